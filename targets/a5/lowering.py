"""How the Ascend 950 lowers each pto instruction (its choices, reference/semantics.md)."""

from __future__ import annotations

from functools import partial

from xdsl.dialects.builtin import DenseArrayBase, IntegerType, Signedness, i64
from xdsl.ir import Attribute
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from lowering.convert import Lowered, TargetLowering
from lowering.ops import (
    TYPED_COLUMN_ARGMIN,
    Capacity,
    CompareKind,
    IndexNumbering,
    IndexRead,
    OutOfRange,
    Packing,
    Stride,
    TmpUse,
    VRegType,
)
from pto_dialect import ops as pto
from pto_dialect.attributes import Coalesce, GatherExec, GatherExecAttr
from pto_dialect.types import TileBufType, TileTypeBase
from targets.a5.rules import TRANSFER
from targets.rules.transfer import tload_choices
from targets.a5.dialect import (
    GatherB32OffsetsOp,
    GatherOp,
    LoadIndexVectorOp,
    MGatherElemL1Op,
    MGatherElemScalarOp,
    MGatherElemSimtOp,
    MGatherRowL1Op,
    MGatherRowSimtOp,
    StoreOp,
    TColArgMinOp,
    TGatherCompareOp,
    TGatherMaskOp,
)

SIMT_GRID = (32, 32)
U32 = {"index_read": IndexRead.UNSIGNED_32}


def register_gather_types(data: TileTypeBase) -> tuple[Attribute, Attribute]:
    """(lane type, index lane type) of the UB register gather for data of this tile type."""
    width = data.element.bytes
    lane = data.element_type
    if width == 1:  # b8 is gathered into b16 lanes, zero-extended (reg-gather.md)
        signed = isinstance(lane, IntegerType) and lane.signedness.data != Signedness.UNSIGNED
        lane = IntegerType(16, Signedness.SIGNLESS if signed else Signedness.UNSIGNED)
    index = IntegerType(16 if width <= 2 else 32, Signedness.UNSIGNED)
    return lane, index


def _mgather(op: pto.MGatherOp) -> Lowered:
    assert op.coalesce is not None
    row = op.coalesce.data == Coalesce.ROW
    if op.is_gm_to_l1:
        if row:
            return MGatherRowL1Op, U32 | {"capacity": Capacity.S0_TO_S3, "row_stride": Stride.T3}
        executor = op.gather_exec or GatherExecAttr(GatherExec.SCALAR)
        return MGatherElemL1Op, U32 | {"capacity": Capacity.ALL_ELEMENTS, "executor": executor}
    grid = DenseArrayBase.from_list(i64, SIMT_GRID)
    if row:
        return MGatherRowSimtOp, U32 | {
            "capacity": Capacity.S3,
            "row_stride": Stride.VALID_COLS,
            "col_stride": Stride.ONE,
            "grid": grid,
        }
    dst = op.dst.type
    assert isinstance(dst, TileTypeBase)
    if dst.valid_shape == (1, 1):
        return MGatherElemScalarOp, U32 | {"capacity": Capacity.ALL_ELEMENTS}
    return MGatherElemSimtOp, U32 | {"capacity": Capacity.ALL_ELEMENTS, "grid": grid}


def _tgather(op: pto.TGatherOp) -> Lowered:
    if op.form == pto.TGatherForm.MASK:
        src = op.src.type
        assert isinstance(src, TileTypeBase)
        return TGatherMaskOp, {"packing": Packing.PER_ROW if src.element.bytes == 8 else Packing.DENSE}
    if op.form == pto.TGatherForm.COMPARE:
        return TGatherCompareOp, {
            "index_numbering": IndexNumbering.LANE_CHUNKS,
            "compare": CompareKind.UNSIGNED_AFTER_ROUND,
        }
    return GatherB32OffsetsOp, {"out_of_range": OutOfRange.FAULT, "tmp_use": TmpUse.NONE}


def _tcolargmin(op: pto.TColArgMinOp) -> Lowered:
    return TColArgMinOp, dict(TYPED_COLUMN_ARGMIN)


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


LOWERING = TargetLowering("a5", _mgather, _tgather, _tcolargmin, partial(tload_choices, TRANSFER), extra_patterns=(LowerIndexTGatherToRegisters(),))
