"""
`pto_cpu`: the pto-isa CPU simulator's execution of each instruction
(reference/semantics.md). The simulator loops over valid elements in C++:
indices are widened to 64 bits (an i32 sign-extends), row mode bounds an
index by Shape[3] and reads rows at the view's strides, TGATHER's out-of-range
offsets read 0, TCOLARGMIN compares natively.
"""

from __future__ import annotations

from xdsl.ir import Dialect
from xdsl.irdl import irdl_op_definition

from pto_dialect.attributes import Coalesce
from pto_dialect.diagnostics import PtoError
from pto_dialect import ops as pto

from lowering.common import (
    MGatherElemBase,
    MGatherRowBase,
    TColArgMinBase,
    TGatherIndexBase,
    TGatherMaskBase,
)
from lowering.convert import TargetLowering


@irdl_op_definition
class MGatherRowOp(MGatherRowBase):
    """Row gather in the simulator's row loop (also its GM->L1 form, scratch ignored)."""

    name = "pto_cpu.mgather_row"


@irdl_op_definition
class MGatherElemOp(MGatherElemBase):
    """Element gather in the simulator's loop over validRow * validCol."""

    name = "pto_cpu.mgather_elem"


@irdl_op_definition
class TGatherIndexOp(TGatherIndexBase):
    name = "pto_cpu.tgather_index"


@irdl_op_definition
class TGatherMaskOp(TGatherMaskBase):
    name = "pto_cpu.tgather_mask"


@irdl_op_definition
class TColArgMinOp(TColArgMinBase):
    name = "pto_cpu.tcolargmin"


PTO_CPU = Dialect("pto_cpu", [MGatherRowOp, MGatherElemOp, TGatherIndexOp, TGatherMaskOp, TColArgMinOp])


def _mgather(op: pto.MGatherOp):
    assert op.coalesce is not None
    if op.coalesce.data == Coalesce.ROW:
        return MGatherRowOp, {"index_width": 64, "capacity": "S3", "row_stride": "T3", "col_stride": "T4"}
    return MGatherElemOp, {"index_width": 64, "capacity": "S0*S1*S2*S3*S4"}


def _tgather(op: pto.TGatherOp):
    if op.form == pto.TGatherForm.MASK:
        return TGatherMaskOp, {}
    if op.form == pto.TGatherForm.INDEX:
        return TGatherIndexOp, {"out_of_range": "zero", "tmp_use": "none"}
    raise PtoError.at_op(op, "compare-form tgather is not supported on target cpu")


def _tcolargmin(op: pto.TColArgMinOp):
    return TColArgMinOp, {"compare": "native", "nan": "first_sticks", "row_counter": "exact", "src_read": "layout"}


LOWERING = TargetLowering("cpu", _mgather, _tgather, _tcolargmin)
