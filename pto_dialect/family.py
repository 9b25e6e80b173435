"""
Instruction families: instructions that differ from their siblings only in data, declared as
one base plus one row per member, the way MLIR ODS and xDSL's `arith` declare theirs.

A family module (pto_dialect/instructions/elementwise.py, ...) holds the base: the op's forms
and roles, the rule function and its rule-row type, the lowered-op base with the kernel, the C++
emission, the cost and the docs. A row (`Member` or a family's subclass of it) holds what
differs: the mnemonic, what it computes, the C++ call, the intrinsic it is priced as, the
choices its lowered ops record. `Family.instructions` are ordinary registry entries
(pto_dialect/instruction.py), so every layer reads a member as it reads any instruction.

A target's folder gives a family one rule row per member (usually one shared row, with an
override where a member differs) and lowers every member with one declaration
(lowering/convert.py `TargetOps.family`), which makes the target's lowered op of each member.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from xdsl.irdl import irdl_op_definition, prop_def

from pto_dialect.choices import Choice, ChoiceAttr, Numerics
from pto_dialect.instruction import Instruction, camel
from pto_dialect.lowered import LoweredOp
from pto_dialect.ops.common import PtoInstructionOp


@dataclass(frozen=True)
class Member:
    """What every row of every family has."""

    mnemonic: str
    """`tadd`: the op `pto.tadd`, the builder `pto.tadd(...)`, the lowered ops `pto_<target>.tadd`."""
    summary: str
    """What it computes, one line (the op's docstring and docs/instructions.md)."""
    cpp: str = ""
    """pto-isa's C++ call; empty: the mnemonic in capitals."""
    choices: Mapping[str, type[Choice]] = field(default_factory=dict)
    """The choices its lowered ops record beyond `numerics`, by property name: each is a
    keyword of its kernel (every target's lowering says which value it takes)."""

    @property
    def cpp_name(self) -> str:
        return self.cpp or self.mnemonic.upper()

    @property
    def class_name(self) -> str:
        """`TAdd`: the stem of its classes' names."""
        return "T" + camel(self.mnemonic.removeprefix("t")) if self.mnemonic.startswith("t") else camel(self.mnemonic)


class FamilyLoweredOp(LoweredOp):
    """A family member's lowered op: the pto op's operands, and `numerics` besides the member's
    own choices (every target says whether public code fixes the values it computes)."""

    numerics = prop_def(Numerics.Attr)
    MEMBER: ClassVar[Member]


def member_op(base: type[PtoInstructionOp], member: Member, **namespace: Any) -> type[PtoInstructionOp]:  # noqa: ANN401
    """The pto op of a member: `base` named `pto.<mnemonic>`, documented by its summary."""
    constants = {k: ClassVar for k in namespace if k.isupper()}  # xDSL reads an upper-case name as a ClassVar
    cls = type(
        f"{member.class_name}Op",
        (base,),
        {"name": f"pto.{member.mnemonic}", "__doc__": member.summary, "__module__": base.__module__,
         "__annotations__": constants, **namespace},
    )
    return irdl_op_definition(cls)


def member_lowered_base(
    base: type[FamilyLoweredOp], source: type[PtoInstructionOp], member: Member, kernel: Callable[..., object],
    footprint: Callable[..., object] | None, **namespace: Any,  # noqa: ANN401
) -> type[FamilyLoweredOp]:
    """The lowered-op base of a member (each target's lowered op subclasses it): its source op,
    its kernel with the member's choices as keyword-only parameters, and a typed property for each
    (and for those of `namespace`)."""
    properties = {name: prop_def(ChoiceAttr.KINDS[kind]) for name, kind in member.choices.items()}
    return type(
        f"{member.class_name}Base",
        (base,),
        {
            "__doc__": member.summary,
            "__module__": base.__module__,
            "__annotations__": {name: ClassVar for name in ("SOURCE", "MEMBER", "KERNEL", "FOOTPRINT")},
            "SOURCE": source,
            "MEMBER": member,
            "KERNEL": staticmethod(with_keywords(kernel, tuple(member.choices))),
            "FOOTPRINT": staticmethod(with_keywords(footprint, tuple(member.choices))) if footprint else None,
            **properties,
            **namespace,
        },
    )


def member_instruction(row: Member, lowered: type[FamilyLoweredOp], **entry: Any) -> Instruction:  # noqa: ANN401
    """A member's registry entry: its lowered-op base (and so its op), described by its row's
    summary, with the family's `entry` (rules, emit, ...)."""
    return Instruction(lowered=(lowered,), summary=row.summary, **entry)


def with_keywords(function: Callable[..., object], keywords: tuple[str, ...]) -> Callable[..., object]:
    """`function(operands, **choices)` shown to the interpreter (interpreter/lowered.py reads a
    kernel's keyword-only parameters to know which properties to pass) as taking exactly
    `keywords`."""

    def call(operands: dict, **choices: object) -> object:
        return function(operands, **choices)

    positional = inspect.Parameter("operands", inspect.Parameter.POSITIONAL_ONLY)
    named = [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY) for k in keywords]
    call.__signature__ = inspect.Signature([positional, *named])  # pyright: ignore[reportFunctionMemberAccess]
    call.__doc__ = function.__doc__
    call.__name__ = call.__qualname__ = getattr(function, "__name__", "kernel")
    return call


RowT = TypeVar("RowT", bound=Member)


def member_row(op: FamilyLoweredOp, kind: type[RowT]) -> RowT:
    """The row declaring the member `op` lowers, as its family's row type `kind`."""
    row = op.MEMBER
    assert isinstance(row, kind)
    return row


@dataclass(frozen=True, eq=False)
class Family(Generic[RowT]):
    """A family: its rows and the instruction each becomes (in the rows' order)."""

    name: str
    """`binary elementwise`: how docs and messages name it."""
    rows: tuple[RowT, ...]
    instructions: tuple[Instruction, ...]

    def __post_init__(self) -> None:
        assert len(self.rows) == len(self.instructions)
        assert len({r.mnemonic for r in self.rows}) == len(self.rows), f"{self.name}: a mnemonic twice"

    @staticmethod
    def of(name: str, rows: tuple[RowT, ...], declare: Callable[[RowT], Instruction]) -> Family[RowT]:
        """The family whose instructions `declare` makes from its rows."""
        return Family(name, rows, tuple(declare(row) for row in rows))

    def fixed(self, **values: Choice) -> Callable[[Member, PtoInstructionOp], Mapping[str, Choice]]:
        """A target's `choose` (lowering/convert.py TargetOps.family) taking one value per kind
        of choice, whatever the op: each member gets the ones its row records."""
        unknown = set(values) - {name for row in self.rows for name in row.choices}
        assert not unknown, f"no member of the {self.name} family records {unknown}"
        return lambda row, op: {name: values[name] for name in row.choices}

    def row(self, instruction: Instruction) -> RowT:
        return self.rows[self.instructions.index(instruction)]

    def __iter__(self) -> Iterator[tuple[RowT, Instruction]]:
        return iter(zip(self.rows, self.instructions))

