"""
One builder function per instruction of the registry (pto_dialect/instructions/), made from
its op rather than written: `pto.<mnemonic>(inputs..., outputs..., *, keywords)`, building
the op in DPS form.

- Operands: the roles of the op's forms (`FORMS`, `operand_roles`), named as PTOAS's ptodsl
  names them (the op's `BUILDER_NAMES`, else the role in snake_case). Those every form has
  are positional, inputs first; the others are keyword-only, None when absent. The operands
  given pick the form.
- Keyword attributes: the op's properties by their Python names (`gather_oob=`), each given
  as its enum's value (`"clamp"`), a str, a Python int, or an attribute.
- A Python number as an operand (tgather's `k_value`) is a constant of the element type of
  the op's first tile input (or of the input its op's SCALAR_LIKE names).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerAttr, IntegerType, StringAttr, i32, i64
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import IRDLOperation, VerificationContext
from xdsl.utils.exceptions import VerifyException

from pto_dialect.instruction import Instruction
from pto_dialect.instructions import REGISTRY
from pto_dialect.ops.common import PtoInstructionOp
from pto_dialect.types import TileTypeBase

from pto_frontend.trace import bind, current, located
from pto_frontend.values import Value


def argument_name(op: type[PtoInstructionOp], role: str) -> str:
    """`dstIdx` -> `dst_idx`, unless the op names the role's argument otherwise."""
    return op.BUILDER_NAMES.get(role) or re.sub(r"(?<!^)([A-Z])", r"_\1", role).lower()


@dataclass(frozen=True)
class Form:
    """One form of an instruction: its operands' argument names (inputs, outputs)."""

    names: tuple[tuple[str, ...], tuple[str, ...]]

    @property
    def arguments(self) -> frozenset[str]:
        return frozenset((*self.names[0], *self.names[1]))


@dataclass(frozen=True)
class BuilderSignature:
    """What an instruction's builder function takes."""

    forms: tuple[Form, ...]
    positional: tuple[str, ...]
    optional: tuple[str, ...]
    properties: dict[str, str]
    """Python name -> the property's IR name."""

    @staticmethod
    def of(op: type[PtoInstructionOp]) -> BuilderSignature:
        forms = []
        for n_ins, n_outs in op.FORMS:
            roles = op.operand_roles(n_ins, n_outs)
            names = (tuple(argument_name(op, r) for r in roles[0]), tuple(argument_name(op, r) for r in roles[1]))
            forms.append(Form(names))
        every = frozenset.intersection(*(f.arguments for f in forms))
        ins = [n for f in forms for n in f.names[0]]
        outs = [n for f in forms for n in f.names[1]]
        positional = tuple(dict.fromkeys(n for n in ins + outs if n in every))
        optional = tuple(dict.fromkeys(n for n in ins + outs if n not in every))
        definition = op.get_irdl_definition()
        properties = {
            py: ir for py, (ir, kind) in definition.accessor_names.items() if kind == "property" and ir in definition.properties
        }
        return BuilderSignature(tuple(forms), positional, optional, properties)

    def python_signature(self) -> inspect.Signature:
        keyword = inspect.Parameter.KEYWORD_ONLY
        return inspect.Signature(
            [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in self.positional]
            + [inspect.Parameter(n, keyword, default=None) for n in (*self.optional, *self.properties)]
        )


def builder(instruction: Instruction) -> Callable[..., None]:
    """The builder function of an instruction."""
    op_class = instruction.op
    spec = BuilderSignature.of(op_class)
    signature = spec.python_signature()
    name = f"pto.{instruction.mnemonic}"

    def build(*args: object, **kwargs: object) -> None:
        trace = current(f"{name}()")
        arguments = bind(f"{name}()", signature, args, kwargs)
        given = frozenset(n for n in (*spec.positional, *spec.optional) if arguments.get(n) is not None)
        form = next((f for f in spec.forms if f.arguments == given), None)
        if form is None:
            takes = "; ".join(", ".join((*f.names[0], *f.names[1])) for f in spec.forms)
            raise located(f"{name}() has no form taking {', '.join(sorted(given))}; its forms take: {takes}")
        typed_by = [op_class.SCALAR_LIKE] if op_class.SCALAR_LIKE in form.names[0] else (*form.names[0], *form.names[1])
        scalar_type = next(  # a number takes the element type of the first tile input (else output), or SCALAR_LIKE's
            (v.type.element_type for n in typed_by if isinstance(v := arguments[n], Value) and isinstance(v.type, TileTypeBase)),
            None,
        )
        ins, outs = ([_operand(name, n, arguments[n], scalar_type) for n in names] for names in form.names)
        attributes = {
            spec.properties[py]: property_attribute(name, op_class, spec.properties[py], py, value)
            for py, value in arguments.items()
            if py in spec.properties and value is not None
        }
        trace.append(op_class.from_parts(ins, outs, [], attributes))

    build.__name__ = build.__qualname__ = instruction.mnemonic
    build.__signature__ = signature  # pyright: ignore[reportFunctionMemberAccess]
    build.__doc__ = f"{name}{signature}: builds `{op_class.name}` in DPS form (inputs, then outputs).\n\n{inspect.cleandoc(op_class.__doc__ or '')}"
    build.__module__ = "pto_frontend"
    return build


def _operand(function: str, argument: str, value: object, scalar_type: Attribute | None) -> SSAValue:
    if isinstance(value, Value):
        return value.ssa
    if isinstance(value, int | float) and not isinstance(value, bool) and scalar_type is not None:
        number = float(value) if isinstance(scalar_type, AnyFloat) else value
        return current(function).constant(number, scalar_type)  # pyright: ignore[reportArgumentType]
    raise located(f"{function}(): '{argument}' takes a tile, a view or a scalar of the kernel, got {value!r}")


def property_attribute(function: str, op: type[IRDLOperation], ir_name: str, py_name: str, value: object) -> Attribute:
    """The attribute for a keyword's value: the first spelling the property's constraint takes."""
    constraint = op.get_irdl_definition().properties[ir_name].constr
    bases = constraint.get_bases() or set()
    candidates: list[Attribute] = [value] if isinstance(value, Attribute) else []
    enums = [b for b in bases if issubclass(b, EnumAttribute)]
    for base in enums:
        if isinstance(value, str) and value in set(base.enum_type):
            candidates.append(base(base.enum_type(value)))
    if StringAttr in bases and isinstance(value, str):
        candidates.append(StringAttr(value))
    if IntegerAttr in bases and isinstance(value, bool):  # PTOAS's BoolAttr (tci's descending)
        candidates.append(IntegerAttr(int(value), IntegerType(1)))
    if IntegerAttr in bases and isinstance(value, int) and not isinstance(value, bool):
        for width in (i32, i64, IndexType()):
            try:
                candidates.append(IntegerAttr(value, width))
            except VerifyException:
                pass
    for candidate in candidates:
        try:
            constraint.verify(candidate, VerificationContext())
            return candidate
        except VerifyException:
            continue
    expected = "/".join(str(v) for b in enums for v in b.enum_type) or "/".join(sorted(b.__name__ for b in bases))
    raise located(f"{function}(): {py_name}={value!r}: expected {expected}")


FUNCTIONS: dict[str, Callable[..., None]] = {i.mnemonic: builder(i) for i in REGISTRY}
"""Every instruction's builder function, by its mnemonic."""

__all__ = ["FUNCTIONS", "BuilderSignature", "argument_name", "builder", "property_attribute"]
