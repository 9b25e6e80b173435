"""
Ops build their IRDL definition when first used, not when declared: a run makes a handful of
the ~450 op classes it declares (pto's, its target's lowered ops, and xDSL's arith, scf and func,
which a context imports when IR first names them), and building every definition (xDSL's
`OpDef.from_pyrdl`, its accessors, the assembly formats of xDSL's own ops) was a good part of
`pto-run`'s start-up (bench/startup.py).

From the import of `pto_dialect` on, `irdl_op_definition` leaves the class as declared and
gives it stand-ins for what the definition adds that is read before an op of the class exists:
the class's `get_irdl_definition` (which every way of making an op calls first, through
`IRDLOperation.__post_init__`), `traits` and `parse`. The first use of any of them defines the
class (its IRDL bases first, as if each had been defined when declared) exactly as xDSL does,
and the stand-ins go. Ops declared before (builtin's, which xDSL's IR imports) are defined when
declared. A definition with an error fails on first use then; tests/test_startup.py defines
every op of the project's dialects and of arith, scf and func.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

import xdsl.irdl
from xdsl.ir import Operation, OpTraits
from xdsl.irdl import IRDLOperation, traits_def
from xdsl.irdl import operations as irdl_operations
from xdsl.parser import Parser


OpT = TypeVar("OpT", bound=IRDLOperation)

_define_now: Callable[[type[IRDLOperation]], object] = getattr(
    irdl_operations.irdl_op_definition, "defines_now", irdl_operations.irdl_op_definition
)
_STAND_INS = ("get_irdl_definition", "traits", "parse")
"""What a class not yet defined holds in place of what the definition gives it."""
_UNDEFINED = "_pto_declared"
"""The class attribute holding, on a class not yet defined, what the stand-ins replaced."""


def defined(cls: type[IRDLOperation]) -> bool:
    """Whether the IRDL definition of `cls` (and of each of its bases) is built."""
    return not any(_UNDEFINED in base.__dict__ for base in cls.__mro__)


def define(cls: type[IRDLOperation]) -> None:
    """Build the IRDL definition of `cls` (and of its bases not yet defined) if not built."""
    for base in reversed(cls.__mro__):
        replaced: dict[str, Any] | None = base.__dict__.get(_UNDEFINED)
        if replaced is None:
            continue
        delattr(base, _UNDEFINED)
        for name in _STAND_INS:
            delattr(base, name)
            if name in replaced:
                setattr(base, name, replaced[name])
        _define_now(base)


class _Traits:
    """The `traits` of a class not yet defined: those its definition will give it, gathered as
    xDSL's `OpDef.from_pyrdl` gathers them (so that `has_trait`, which xDSL's interpreter asks
    of every op it registers, does not define the class)."""

    def __init__(self, owner: type[IRDLOperation], declared: OpTraits | None):
        self.owner, self.declared = owner, declared
        self.gathered: OpTraits | None = None

    def __get__(self, instance: object, cls: type[IRDLOperation]) -> OpTraits:
        if self.gathered is None:
            self.gathered = self.gather()
        return self.gathered

    def gather(self) -> OpTraits:
        """The `traits` of the class and of each base; an IRDL base has its definition's."""
        found = [self.declared] if self.declared is not None else []
        for base in self.owner.__mro__[1:]:
            if base is Generic or base in Operation.__mro__:
                continue
            traits = base.__dict__.get("traits")
            if isinstance(traits, _Traits):
                found.append(traits.__get__(None, base))
            elif traits is not None:
                found.append(traits)
        if len(found) == 1:
            return found[0]
        return OpTraits(lambda: tuple(trait for traits in found for trait in traits.gen_traits())) if found else traits_def()


def _on_first_use(cls: type[OpT]) -> type[OpT]:
    """`irdl_op_definition`, deferred until the class is first used."""
    if not issubclass(cls, IRDLOperation):
        _define_now(cls)  # xDSL's own message
        return cls

    def get_irdl_definition(owner: type[IRDLOperation]) -> irdl_operations.OpDef:
        define(cls)
        return owner.get_irdl_definition()

    def parse(owner: type[IRDLOperation], parser: Parser) -> IRDLOperation:
        define(cls)
        return owner.parse(parser)

    setattr(cls, _UNDEFINED, {name: cls.__dict__[name] for name in _STAND_INS if name in cls.__dict__})
    cls.get_irdl_definition = classmethod(get_irdl_definition)  # pyright: ignore[reportAttributeAccessIssue]
    cls.traits = _Traits(cls, cls.__dict__.get("traits"))  # pyright: ignore[reportAttributeAccessIssue]
    cls.parse = classmethod(parse)  # pyright: ignore[reportAttributeAccessIssue]
    return cls


_on_first_use.defines_now = _define_now  # pyright: ignore[reportFunctionMemberAccess]
irdl_operations.irdl_op_definition = xdsl.irdl.irdl_op_definition = _on_first_use
