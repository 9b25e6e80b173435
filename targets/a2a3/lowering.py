"""How Atlas A2/A3 lowers each pto instruction (its choices, reference/semantics.md)."""

from __future__ import annotations

from functools import partial

from lowering.convert import Lowered, TargetLowering
from lowering.ops import (
    ArgMinCompare,
    Capacity,
    CompareKind,
    IndexNumbering,
    IndexRead,
    NanPolicy,
    OutOfRange,
    RowCounter,
    SrcRead,
    Stride,
    TmpUse,
)
from pto_dialect import ops as pto
from pto_dialect.attributes import Coalesce, GmLayout
from pto_dialect.types import TileTypeBase
from targets.a2a3.rules import TRANSFER
from targets.rules.transfer import tload_choices
from targets.a2a3.dialect import (
    MGatherElemL1Op,
    MGatherElemNzOp,
    MGatherElemScalarOp,
    MGatherRowDmaOp,
    MGatherRowL1Op,
    MGatherRowNzOp,
    TColArgMinOp,
    TGatherCompareOp,
    TGatherIndexOp,
    TGatherMaskOp,
)
from targets.rules.common import inferred_layout

U32 = {"index_read": IndexRead.UNSIGNED_32}


def _mgather(op: pto.MGatherOp) -> Lowered:
    assert op.coalesce is not None
    row = op.coalesce.data == Coalesce.ROW
    if op.is_gm_to_l1:
        if row:
            return MGatherRowL1Op, U32 | {"capacity": Capacity.S0_TO_S3, "row_stride": Stride.T3}
        return MGatherElemL1Op, U32 | {"capacity": Capacity.ALL_ELEMENTS}
    if inferred_layout(op.mem) == GmLayout.NZ:
        if row:
            return MGatherRowNzOp, U32 | {"capacity": Capacity.NZ_ROWS}
        return MGatherElemNzOp, U32 | {"capacity": Capacity.NZ_ELEMENTS}
    if row:
        return MGatherRowDmaOp, U32 | {"capacity": Capacity.S0_TO_S3, "row_stride": Stride.T3, "col_stride": Stride.ONE}
    return MGatherElemScalarOp, U32 | {"capacity": Capacity.ALL_ELEMENTS}


def _tgather(op: pto.TGatherOp) -> Lowered:
    if op.form == pto.TGatherForm.MASK:
        return TGatherMaskOp, {}
    if op.form == pto.TGatherForm.INDEX:
        return TGatherIndexOp, {"out_of_range": OutOfRange.FAULT, "tmp_use": TmpUse.B16_BYTE_OFFSETS}
    return TGatherCompareOp, {"index_numbering": IndexNumbering.SRC_COLS, "compare": CompareKind.NUMERIC}


def _tcolargmin(op: pto.TColArgMinOp) -> Lowered:
    src = op.src.type
    assert isinstance(src, TileTypeBase)
    two_byte_index_only = src.element.bytes == 2 and op.dst_val is None
    return TColArgMinOp, {
        "compare": ArgMinCompare.FP_BITS,
        "nan": NanPolicy.PROPAGATES,
        "row_counter": RowCounter.F16 if two_byte_index_only else RowCounter.EXACT,
        "src_read": SrcRead.ROW_MAJOR_STORAGE,
    }


LOWERING = TargetLowering("a2a3", _mgather, _tgather, _tcolargmin, partial(tload_choices, TRANSFER))
