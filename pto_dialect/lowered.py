"""
The base of every target dialect's ops (targets/<name>/lowering.py declares them, each
subclassing a base its instruction's module declares). A lowered op is DPS
(`ins(...) outs(...) {attrs}`, the pto instruction's operand order and roles), keeps
the pto op's attributes under their names (so the rules read either op alike), and
records each choice its target makes as a typed `#pto_choice<...>` property. Its class
names the kernel that runs it (`KERNEL`, with what it reads and writes in `FOOTPRINT`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, ClassVar

from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.str_enum import StrEnum
from xdsl.irdl import AttrSizedOperandSegments, IRDLOperation, ParsePropInAttrDict, prop_def, traits_def, var_operand_def

from pto_dialect.choices import Numerics
from pto_dialect.ops.common import OperandEffects, PtoInstructionOp, Roles

if TYPE_CHECKING:
    from pto_dialect.phases import InternalFlag, Phase


class Launch(StrEnum):
    """How a target runs an instruction, where that matters beyond its result (the a5 SIMT
    launch shrinks the UB a kernel may use): said by the lowered op's class."""

    SIMULATOR = "simulator"
    DMA = "dma"
    SCALAR = "scalar"
    SIMT = "simt"
    VECTOR = "vector"


class LoweredOp(IRDLOperation):
    """A target instruction: DPS operands, the pto op's attributes, typed choices."""

    SOURCE: ClassVar[type[PtoInstructionOp]]
    """The pto op it implements: its operand roles, run-time rules and messages."""
    KERNEL: ClassVar[Callable[..., object]]
    """`KERNEL(operands_by_role, **params)`: the NumPy code that runs the op; each keyword
    parameter is a property of the op of that name (a choice arrives as its enum member)."""
    LAUNCH: ClassVar[Launch] = Launch.VECTOR
    PHASES: ClassVar[tuple[Phase, ...] | None] = None
    """The pipes it runs on, phase by phase, where it runs on more than its instruction's
    pipe (pto_dialect/phases.py); None: one phase on that pipe, as its memory effects say."""
    INTERNAL_FLAGS: ClassVar[tuple[InternalFlag, ...]] = ()
    """The flags its library code sets and waits for itself."""
    FOOTPRINT: ClassVar[Callable[..., object] | None] = None
    """Called as KERNEL is: what the kernel reads and writes (pto_dialect/machine.py
    Footprint), for a batched loop; None where the kernel does not take a leading
    iteration axis."""

    ins = var_operand_def()
    outs = var_operand_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    traits = traits_def(OperandEffects())
    assembly_format = (
        "`ins` `(` $ins `:` type($ins) `)` `outs` `(` $outs `:` type($outs) `)` attr-dict"
    )

    @property
    def WORKSPACE(self) -> frozenset[str]:
        return self.SOURCE.WORKSPACE

    @property
    def WRITTEN_INS(self) -> frozenset[str]:
        return self.SOURCE.WRITTEN_INS

    @classmethod
    def create_from(
        cls, source: Operation, ins: Sequence[SSAValue], outs: Sequence[SSAValue], **props: Attribute
    ):
        op = cls.build(operands=[ins, outs], properties=props)
        op.location = source.location
        return op

    def role_lists(self) -> Roles:
        return self.SOURCE.operand_roles(len(self.ins), len(self.outs))

    @property
    def roles(self) -> tuple[str, ...]:
        """The role of each operand, ins then outs."""
        ins_roles, out_roles = self.role_lists()
        return (*ins_roles, *out_roles)

    def role(self, name: str) -> SSAValue | None:
        roles = self.roles
        return self.operands[roles.index(name)] if name in roles else None


def operand_roles(op: Operation) -> tuple[str, ...]:
    """The name of each operand of an instruction's op: its role (a pto op or a lowered op),
    else its definition's name (a register step)."""
    if isinstance(op, LoweredOp):
        return op.roles
    if isinstance(op, PtoInstructionOp):
        ins_roles, out_roles = op.role_lists()
        return (*ins_roles, *out_roles)
    return tuple(name for name, _ in op.get_irdl_definition().operands)  # pyright: ignore[reportAttributeAccessIssue]


def lowered_base(
    source: type[PtoInstructionOp], kernel: Callable[..., object], summary: str,
    footprint: Callable[..., object] | None = None, **choices: type[Attribute],
) -> type[LoweredOp]:
    """The lowered-op base (`TMovBase` for `TMovOp`) of an instruction lowered to one op: `source`'s
    operands run by `kernel` (reading and writing `footprint`), described by `summary`, recording
    `numerics` (does public code fix its values) and each of `choices`, a property by name."""
    return type(
        source.__name__.removesuffix("Op") + "Base",
        (LoweredOp,),
        {
            "__doc__": summary,
            "__module__": source.__module__,
            "__annotations__": {name: ClassVar for name in ("SOURCE", "KERNEL", "FOOTPRINT")},
            "SOURCE": source,
            "KERNEL": staticmethod(kernel),
            "FOOTPRINT": staticmethod(footprint) if footprint else None,
            **{name: prop_def(kind) for name, kind in choices.items()},
            "numerics": prop_def(Numerics.Attr),
        },
    )
