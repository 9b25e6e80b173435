"""
`pto_a5`: Ascend 950 (reference/semantics.md). MGATHER is a SIMT launch over
a {32, 32} grid (the (1, 1) elem case runs the scalar fallback); indices are
reinterpreted as uint32; row mode bounds an index by Shape[3] and reads packed
rows (stride = dst valid cols). TGATHER's index form is the register gather
of spec/reg-gather.md: load the index vector, gather by index under a mask,
store. Compare-form matches are numbered per 64-lane chunk.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, IntegerType, Signedness, i64
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
)
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from pto_dialect import ops as pto
from pto_dialect.attributes import Coalesce, GatherExec, GatherExecAttr
from pto_dialect.types import TileBufType, TileTypeBase

from lowering.common import (
    MGatherElemBase,
    MGatherL1Base,
    MGatherRowBase,
    TColArgMinBase,
    TGatherCompareBase,
    TGatherIndexBase,
    TGatherMaskBase,
)
from lowering.convert import TargetLowering

SIMT_GRID = (32, 32)


@irdl_attr_definition
class VRegType(ParametrizedAttribute, TypeAttribute):
    """`!pto_a5.vreg<T>`: a vector register of T lanes (one whole tile's worth here)."""

    name = "pto_a5.vreg"
    element_type: Attribute


@irdl_op_definition
class MGatherRowSimtOp(MGatherRowBase):
    """SIMT launch over `grid`, warp-parallel channels per row."""

    name = "pto_a5.mgather_row_simt"
    grid = prop_def(DenseArrayBase)


@irdl_op_definition
class MGatherElemSimtOp(MGatherElemBase):
    """SIMT launch over `grid`, one channel per element."""

    name = "pto_a5.mgather_elem_simt"
    grid = prop_def(DenseArrayBase)


@irdl_op_definition
class MGatherElemScalarOp(MGatherElemBase):
    """MGatherScalarImpl on the AIV core: the degenerate (1, 1) elem gather."""

    name = "pto_a5.mgather_elem_scalar"


@irdl_op_definition
class MGatherRowL1Op(MGatherL1Base):
    """GM -> L1 NZ tile, row mode (GM index tensor)."""

    name = "pto_a5.mgather_row_l1"


@irdl_op_definition
class MGatherElemL1Op(MGatherL1Base):
    """Elem GM -> L1 through GM scratch; `executor`: cube scalar loop or AIV SIMT kernel."""

    name = "pto_a5.mgather_elem_l1"


@irdl_op_definition
class LoadIndexVectorOp(IRDLOperation):
    """`LoadAlign` of the index tile's valid elements into a register, as `index_type` lanes."""

    name = "pto_a5.load_index_vector"
    SOURCE: ClassVar[str] = "pto.tgather"
    indices = operand_def(TileBufType)
    result = result_def(VRegType)
    assembly_format = "$indices attr-dict `:` type($indices) `->` type($result)"


@irdl_op_definition
class GatherOp(IRDLOperation):
    """
    Register gather from UB (reg-gather.md): lane i = base[index[i]] for lanes under the
    mask (the dst tile's valid elements). b8 data is gathered into b16 lanes, zero-extended.
    """

    name = "pto_a5.gather"
    SOURCE: ClassVar[str] = "pto.tgather"
    base = operand_def(TileBufType)
    index = operand_def(VRegType)
    mask = operand_def(TileBufType)
    result = result_def(VRegType)
    assembly_format = (
        "$base `[` $index `]` `mask` `(` $mask `)` attr-dict `:` type($base) `,` type($index) "
        "`,` type($mask) `->` type($result)"
    )


@irdl_op_definition
class StoreOp(IRDLOperation):
    """`StoreAlign` of the register into the dst tile's valid elements (b16 lanes of b8 data keep their low byte)."""

    name = "pto_a5.store"
    SOURCE: ClassVar[str] = "pto.tgather"
    value = operand_def(VRegType)
    dst = operand_def(TileBufType)
    assembly_format = "$value `,` $dst attr-dict `:` type($value) `,` type($dst)"


@irdl_op_definition
class GatherB32OffsetsOp(TGatherIndexBase):
    """b16 data with 32-bit indices: pto-isa's vgather2_bc variant (u32 offsets, packed store)."""

    name = "pto_a5.gather_b16_by_u32"


@irdl_op_definition
class TGatherMaskOp(TGatherMaskBase):
    name = "pto_a5.tgather_mask"


@irdl_op_definition
class TGatherCompareOp(TGatherCompareBase):
    name = "pto_a5.tgather_compare"


@irdl_op_definition
class TColArgMinOp(TColArgMinBase):
    name = "pto_a5.tcolargmin"


PTO_A5 = Dialect(
    "pto_a5",
    [
        MGatherRowSimtOp,
        MGatherElemSimtOp,
        MGatherElemScalarOp,
        MGatherRowL1Op,
        MGatherElemL1Op,
        LoadIndexVectorOp,
        GatherOp,
        StoreOp,
        GatherB32OffsetsOp,
        TGatherMaskOp,
        TGatherCompareOp,
        TColArgMinOp,
    ],
    [VRegType],
)

def register_gather_types(data: TileTypeBase) -> tuple[Attribute, Attribute]:
    """(lane type, index lane type) of the UB register gather for data of this tile type."""
    width = data.element.bytes
    lane = data.element_type
    if width == 1:  # b8 is gathered into b16 lanes, zero-extended (reg-gather.md)
        signed = isinstance(lane, IntegerType) and lane.signedness.data != Signedness.UNSIGNED
        lane = IntegerType(16, Signedness.SIGNLESS if signed else Signedness.UNSIGNED)
    index = IntegerType(16 if width <= 2 else 32, Signedness.UNSIGNED)
    return lane, index


def _mgather(op: pto.MGatherOp):
    assert op.coalesce is not None
    row = op.coalesce.data == Coalesce.ROW
    if op.is_gm_to_l1:
        if row:
            return MGatherRowL1Op, {"index_width": 32, "capacity": "S0*S1*S2*S3", "row_stride": "T3"}
        executor = op.gather_exec or GatherExecAttr(GatherExec.SCALAR)
        return MGatherElemL1Op, {"index_width": 32, "capacity": "S0*S1*S2*S3*S4", "executor": executor}
    grid = DenseArrayBase.from_list(i64, SIMT_GRID)
    if row:
        return MGatherRowSimtOp, {
            "index_width": 32,
            "capacity": "S3",
            "row_stride": "valid_cols",
            "col_stride": "1",
            "grid": grid,
        }
    dst = op.dst.type
    assert isinstance(dst, TileTypeBase)
    if dst.valid_shape == (1, 1):
        return MGatherElemScalarOp, {"index_width": 32, "capacity": "S0*S1*S2*S3*S4"}
    return MGatherElemSimtOp, {"index_width": 32, "capacity": "S0*S1*S2*S3*S4", "grid": grid}


def _tgather(op: pto.TGatherOp):
    if op.form == pto.TGatherForm.MASK:
        src = op.src.type
        assert isinstance(src, TileTypeBase)
        return TGatherMaskOp, {"packing": "per_row" if src.element.bytes == 8 else "dense"}
    if op.form == pto.TGatherForm.COMPARE:
        return TGatherCompareOp, {"index_numbering": "lane_chunks", "compare": "unsigned_after_round"}
    return GatherB32OffsetsOp, {"out_of_range": "fault", "tmp_use": "none"}


def _tcolargmin(op: pto.TColArgMinOp):
    return TColArgMinOp, {"compare": "native", "nan": "first_sticks", "row_counter": "exact", "src_read": "layout"}


class LowerIndexTGatherToRegisters(RewritePattern):
    """Index-form TGATHER -> load index vector, gather by index under a mask, store."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: pto.TGatherOp, rewriter: PatternRewriter) -> None:
        if op.form != pto.TGatherForm.INDEX or op.results:
            return
        src, indices = op.src.type, op.ins[1].type
        assert isinstance(src, TileBufType) and isinstance(indices, TileBufType)
        if src.element.bytes == 2 and indices.element.bytes == 4:
            return  # the vgather2_bc variant: lowered as one op by the table
        lane, index_lane = register_gather_types(src)
        load = LoadIndexVectorOp.build(operands=[op.ins[1]], result_types=[VRegType(index_lane)])
        gather = GatherOp.build(operands=[op.src, load.result, op.dst], result_types=[VRegType(lane)])
        store = StoreOp.build(operands=[gather.result, op.dst])
        for new in (load, gather, store):
            new.location = op.location
        rewriter.replace(op, [load, gather, store], [])


LOWERING = TargetLowering("a5", _mgather, _tgather, _tcolargmin, extra_patterns=(LowerIndexTGatherToRegisters(),))
