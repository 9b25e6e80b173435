"""How the cpu target lowers each pto instruction (its choices, reference/semantics.md)."""

from __future__ import annotations

from functools import partial

from lowering.convert import Lowered, TargetLowering
from lowering.ops import (
    TYPED_COLUMN_ARGMIN,
    Capacity,
    IndexRead,
    OutOfRange,
    Stride,
    TmpUse,
)
from pto_dialect import ops as pto
from pto_dialect.attributes import Coalesce
from targets.cpu.rules import TRANSFER
from targets.rules.transfer import tload_choices
from targets.cpu.dialect import (
    MGatherElemOp,
    MGatherRowOp,
    TColArgMinOp,
    TGatherIndexOp,
    TGatherMaskOp,
)


def _mgather(op: pto.MGatherOp) -> Lowered:
    assert op.coalesce is not None
    if op.coalesce.data == Coalesce.ROW:
        return MGatherRowOp, {
            "index_read": IndexRead.SIGNED_64,
            "capacity": Capacity.S3,
            "row_stride": Stride.T3,
            "col_stride": Stride.T4,
        }
    return MGatherElemOp, {"index_read": IndexRead.SIGNED_64, "capacity": Capacity.ALL_ELEMENTS}


def _tgather(op: pto.TGatherOp) -> Lowered:
    if op.form == pto.TGatherForm.MASK:
        return TGatherMaskOp, {}
    if op.form == pto.TGatherForm.INDEX:
        return TGatherIndexOp, {"out_of_range": OutOfRange.ZERO, "tmp_use": TmpUse.NONE}
    return None  # the simulator has no compare form


def _tcolargmin(op: pto.TColArgMinOp) -> Lowered:
    return TColArgMinOp, dict(TYPED_COLUMN_ARGMIN)


LOWERING = TargetLowering("cpu", _mgather, _tgather, _tcolargmin, partial(tload_choices, TRANSFER))
