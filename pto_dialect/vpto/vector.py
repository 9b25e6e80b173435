"""
Register-to-register ops the load/store and predicate cases use (PTOAS 05-materialization-predicate.md,
11-compare-select.md, 12-data-rearrangement.md):

    %v = pto.vbr %s : T -> !pto.vreg<NxT>                             every lane s
    %v = pto.vdup %s, %m : T, !pto.mask<G> -> !pto.vreg<NxT>          m ? s : 0
    %v = pto.vdup %x, %m {position = "LOWEST|HIGHEST"} : !pto.vreg<NxT>, ... -> ...   m ? x[0 | N-1] : 0
    %v = pto.vsel %a, %b, %m : ... -> !pto.vreg<NxT>                  m ? a : b
    %r = pto.vcmps %x, %s, %m, "gt" : !pto.vreg<NxT>, T, !pto.mask<G> -> !pto.mask<G>    m & (x > s)
    %v = pto.vsqz %x, %m : ... -> !pto.vreg<NxT>                      the active lanes moved to the front, the
                                                                      rest zero; SPR SQZN = their bytes
    %lo, %hi = pto.vintlv %a, %b : ... -> !pto.vreg<NxT>, !pto.vreg<NxT>   a[0], b[0], a[1], b[1], ... split in two
    %lo, %hi = pto.vdintlv %a, %b : ...                                 the lanes of a then b: even ones, odd ones
"""

from __future__ import annotations
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute
from xdsl.irdl import (
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from pto_dialect.attributes import RoundMode, SaturationMode
from pto_dialect.dtypes import element_info
from pto_dialect.vpto.common import MaskedLaneOp, PureRegisterOp, RegisterOp, require_mask_for, require_same, require_token, row_op
from pto_dialect.vpto.types import MaskType, VRegType


def _vreg(value_type: object) -> VRegType:
    assert isinstance(value_type, VRegType)
    return value_type


def _require_lane_scalar(vreg: VRegType, scalar: Attribute) -> None:
    """A scalar that fills one of `vreg`'s lanes: an element type of the lanes' width."""
    info = element_info(scalar)
    if info is None or info.bytes != vreg.element.bytes:
        raise VerifyException(f"requires a scalar of the lanes' width ({vreg.element.bits} bits), got {scalar}")


@irdl_op_definition
class VbrOp(PureRegisterOp):
    """A scalar in every lane (b8: its low 8 bits)."""

    name = "pto.vbr"

    value = operand_def()
    result = result_def(VRegType)

    def verify_(self) -> None:
        _require_lane_scalar(_vreg(self.result.type), self.value.type)


POSITIONS = ("LOWEST", "HIGHEST")


@irdl_op_definition
class VdupOp(MaskedLaneOp):
    """A scalar, or the register's lowest / highest lane, in every lane the mask selects (others zero)."""

    name = "pto.vdup"
    irdl_options = (ParsePropInAttrDict(),)

    input = operand_def()
    position = opt_prop_def(StringAttr)

    def verify_(self) -> None:
        result = _vreg(self.result.type)
        require_mask_for(result, self.mask.type)
        if isinstance(self.input.type, VRegType):
            require_same(self.input.type, result, "input and result")
            if self.position is not None:
                require_token(self.position.data, POSITIONS, "position")
            return
        if self.position is not None:
            raise VerifyException("takes a position only for a vector input")
        _require_lane_scalar(result, self.input.type)


@irdl_op_definition
class VselOp(MaskedLaneOp):
    """`mask ? src0 : src1`, lane by lane."""

    name = "pto.vsel"

    src0 = operand_def(VRegType)
    src1 = operand_def(VRegType)

    def verify_(self) -> None:
        require_same(self.src0.type, self.src1.type, "src0 and src1")
        require_same(self.src0.type, self.result.type, "the sources and the result")
        require_mask_for(_vreg(self.src0.type), self.mask.type)


COMPARISONS = ("eq", "ne", "lt", "le", "gt", "ge")
"""vcmp / vcmps modes (the interpreter's NumPy comparison for each: interpreter/vpto/functions.py)."""


@irdl_op_definition
class VcmpsOp(PureRegisterOp):
    """`mask & (src CMP scalar)`, lane by lane, as a predicate of the same granularity."""

    name = "pto.vcmps"

    src = operand_def(VRegType)
    scalar = operand_def()
    mask = operand_def(MaskType)
    cmp_mode = prop_def(StringAttr)
    result = result_def(MaskType)
    assembly_format = (
        "$src `,` $scalar `,` $mask `,` $cmp_mode attr-dict `:` type($src) `,` type($scalar) `,` type($mask) `->` type($result)"
    )

    def verify_(self) -> None:
        src = _vreg(self.src.type)
        require_token(self.cmp_mode.data, COMPARISONS, "the comparison")
        require_mask_for(src, self.mask.type)
        require_mask_for(src, self.result.type, "result")
        _require_lane_scalar(src, self.scalar.type)


@irdl_op_definition
class VsqzOp(RegisterOp):
    """The lanes the mask selects, in order, at the front; the rest zero. Sets SPR SQZN (their bytes)."""

    name = "pto.vsqz"

    input = operand_def(VRegType)
    mask = operand_def(MaskType)
    result = result_def(VRegType)
    traits = traits_def(MemoryWriteEffect())  # SQZN, which vstur reads

    def verify_(self) -> None:
        require_same(self.input.type, self.result.type, "input and result")
        require_mask_for(_vreg(self.input.type), self.mask.type)


class LanePairOp(PureRegisterOp):
    """Two registers' lanes interleaved or deinterleaved into two registers of the same type (low, high)."""

    lhs = operand_def(VRegType)
    rhs = operand_def(VRegType)
    low = result_def(VRegType)
    high = result_def(VRegType)

    def verify_(self) -> None:
        require_same(self.lhs.type, self.rhs.type, "lhs and rhs")
        require_same(self.low.type, self.high.type, "the results")
        require_same(self.lhs.type, self.low.type, "the operands and the results")


VintlvOp = row_op(LanePairOp, "VintlvOp", "vintlv",
                  "low = lhs[0], rhs[0], lhs[1], rhs[1], ... (the first N/2 pairs), high = the rest (12-data-rearrangement.md).")
VdintlvOp = row_op(LanePairOp, "VdintlvOp", "vdintlv",
                   "The lanes of lhs then rhs: low = the even ones, high = the odd ones (12-data-rearrangement.md).")


ROUNDINGS = {"R": RoundMode.RINT, "A": RoundMode.ROUND, "F": RoundMode.FLOOR, "C": RoundMode.CEIL,
             "Z": RoundMode.TRUNC, "O": RoundMode.ODD}
"""vcvt rounding modes (09-conversion-ops.md): R nearest-even, A away from zero, F floor, C ceil, Z toward
zero, O to odd; each as TCVT's mode of the same rounding (one conversion model: tcvt.py `vconv`)."""
SATURATIONS = {"SAT": SaturationMode.ON, "NOSAT": SaturationMode.OFF}
PARTS = {"EVEN": 0, "ODD": 1, "P0": 0, "P1": 1, "P2": 2, "P3": 3}
"""vcvt parts: which of the 2 (EVEN/ODD) or 4 (P0..P3) sub-lanes a width-changing conversion uses."""
QUARTER_PARTS = ("P0", "P1", "P2", "P3")
"""The parts of a packed form (4x lanes, or a packed fp4 side), as PTOAS's VcvtOp::verify asks."""


@irdl_op_definition
class VcvtOp(MaskedLaneOp):
    """Convert each active lane to the result's element type. When the lane counts differ by a factor k,
    `part` names which of the k sub-lanes of the wider side the narrower side's lanes pair with."""

    name = "pto.vcvt"
    irdl_options = (ParsePropInAttrDict(),)

    input = operand_def(VRegType)
    rnd = opt_prop_def(StringAttr)
    sat = opt_prop_def(StringAttr)
    part = opt_prop_def(StringAttr)

    @property
    def factor(self) -> int:
        """How many lanes of the side with more lanes pair with one lane of the other."""
        source, result = _vreg(self.input.type).lanes, _vreg(self.result.type).lanes
        return max(source, result) // min(source, result)

    def verify_(self) -> None:
        for attr, tokens, what in ((self.rnd, ROUNDINGS, "rnd"), (self.sat, SATURATIONS, "sat"), (self.part, PARTS, "part")):
            if attr is not None:
                require_token(attr.data, tokens, what)
        factor = self.factor
        if factor not in (1, 2, 4):
            raise VerifyException(f"converts {self.input.type} to {self.result.type}: lane counts must match or differ 2x or 4x")
        if factor > 1 and self.part is None:
            raise VerifyException(f"requires a part for a conversion whose lane counts differ {factor}x")
        if self.part is not None and factor > 1:
            packed = factor == 4 or any(
                (info := element_info(_vreg(t).element_type)) is not None and info.family == "packed"
                for t in (self.input.type, self.result.type)
            )
            if packed and self.part.data not in QUARTER_PARTS:
                raise VerifyException("part must be P0, P1, P2, or P3 for packed vcvt forms")
            if not packed and self.part.data in QUARTER_PARTS:
                raise VerifyException("part must be EVEN or ODD for 8/16 and 16/32 vcvt forms")
        if self.part is not None and PARTS[self.part.data] >= factor:
            raise VerifyException(f"part \"{self.part.data}\" names a sub-lane a {factor}x conversion does not have")


VECTOR_OPS = [VbrOp, VdupOp, VselOp, VcmpsOp, VsqzOp, VintlvOp, VdintlvOp, VcvtOp]
