"""
Lane-wise arithmetic on vector registers (PTOAS 07-binary-vector-ops.md, 08-vec-scalar-ops.md; VPTO.cpp
verifyBinaryVecOp, verifyVecScalarMaskedOpLike):

    %r = pto.vadd %lhs, %rhs, %mask : !pto.vreg<NxT>, !pto.vreg<NxT>, !pto.mask<G> -> !pto.vreg<NxT>
    %r = pto.vadds %input, %scalar, %mask : !pto.vreg<NxT>, T, !pto.mask<G> -> !pto.vreg<NxT>

Active lanes get `lhs OP rhs` (`input OP scalar`), integers wrapping; masked-off lanes are zero (the
hardware's predication is ZEROING, vpto-spec.md). One row per op: what it computes and the element
types a5 takes (low-precision types are refused, as PTOAS refuses them). The interpreter's NumPy
function for each `operation` is in interpreter/vpto/functions.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import IntegerType, Signedness
from xdsl.irdl import operand_def
from xdsl.utils.exceptions import VerifyException

from pto_dialect.facts import INT8, INT16, INT32, spell, types_named
from pto_dialect.vpto.common import MaskedLaneOp, require_mask_for, require_same, row_op
from pto_dialect.vpto.types import VRegType

FLOATS = types_named("f16", "bf16", "f32")


@dataclass(frozen=True)
class Arithmetic:
    """One lane-wise op: `operation` (add, sub, mul) and the element types a5 takes for it."""

    operation: str
    types: frozenset[str]

    @property
    def symbol(self) -> str:
        return {"add": "+", "sub": "-", "mul": "*"}[self.operation]


BINARY = {
    "vadd": Arithmetic("add", INT8 | INT16 | INT32 | FLOATS),
    "vsub": Arithmetic("sub", INT8 | INT16 | INT32 | FLOATS),
    "vmul": Arithmetic("mul", INT16 | INT32 | FLOATS),  # not b8 (07-binary-vector-ops.md)
}
"""Two registers, lane by lane (64-bit lanes, which PTOAS also names, have no mask granularity here)."""
VEC_SCALAR = {
    "vadds": Arithmetic("add", INT8 | INT16 | INT32 | FLOATS),
    "vmuls": Arithmetic("mul", INT16 | INT32 | FLOATS),
}
"""A register and a scalar broadcast to every lane."""


def _require_type(row: Arithmetic, vreg: object) -> VRegType:
    if not isinstance(vreg, VRegType):
        raise VerifyException(f"requires a !pto.vreg, got {vreg}")
    if vreg.element.mlir not in row.types:
        raise VerifyException(f"expects element type {spell(row.types)}, got {vreg.element.mlir}")
    return vreg


class ArithmeticOpBase(MaskedLaneOp):
    """`mask ? first OP second : 0`, lane by lane, the operation and its element types a table's row."""

    ROW: ClassVar[Arithmetic]
    FORMULA: ClassVar[str]

    def verify_(self) -> None:
        vreg = _require_type(self.ROW, self.operands[0].type)
        self.require_operands(vreg)
        require_mask_for(vreg, self.mask.type)

    def require_operands(self, vreg: VRegType) -> None:
        """The rules for the operands before the mask (the first of them a `vreg`, of the row's types)."""
        raise NotImplementedError


class BinaryArithmeticOp(ArithmeticOpBase):
    """`mask ? lhs OP rhs : 0`, lane by lane (BINARY's row for the op)."""

    FORMULA: ClassVar[str] = "`mask ? lhs {} rhs : 0`, lane by lane"
    lhs = operand_def(VRegType)
    rhs = operand_def(VRegType)

    def require_operands(self, vreg: VRegType) -> None:
        require_same(self.lhs.type, self.rhs.type, "lhs and rhs")
        require_same(self.lhs.type, self.result.type, "the operands and the result")


class VecScalarArithmeticOp(ArithmeticOpBase):
    """`mask ? input OP scalar : 0`, lane by lane (VEC_SCALAR's row for the op)."""

    FORMULA: ClassVar[str] = "`mask ? input {} scalar : 0`, lane by lane"
    input = operand_def(VRegType)
    scalar = operand_def()

    def require_operands(self, vreg: VRegType) -> None:
        require_same(self.input.type, self.result.type, "input and result")
        _require_scalar_for(vreg, self.scalar.type)


def _require_scalar_for(vreg: VRegType, scalar: object) -> None:
    """PTOAS's rule: the element type itself, or for an integer lane a same-width integer of its
    signedness or signless."""
    lane = vreg.element_type
    if scalar == lane:
        return
    if isinstance(lane, IntegerType) and isinstance(scalar, IntegerType) and lane.width == scalar.width:
        if scalar.signedness.data in (lane.signedness.data, Signedness.SIGNLESS):
            return
    raise VerifyException(
        f"requires a scalar of the lane type {lane} (an integer lane: its signedness or signless, same width), got {scalar}"
    )


def _define(name: str, row: Arithmetic, base: type[ArithmeticOpBase]) -> type[ArithmeticOpBase]:
    """The op `pto.<name>` of `base` computing `row` (its doc: the formula with the row's operator)."""
    doc = f"{base.FORMULA.format(row.symbol)} ({spell(row.types)})."
    return row_op(base, name.capitalize() + "Op", name, doc, ROW=row)


ARITHMETIC_OPS = [*(_define(n, r, BinaryArithmeticOp) for n, r in BINARY.items()),
                  *(_define(n, r, VecScalarArithmeticOp) for n, r in VEC_SCALAR.items())]
BY_NAME = {op.name.removeprefix("pto."): op for op in ARITHMETIC_OPS}
