"""
`pto_a2a3`: Atlas A2/A3 (reference/semantics.md). Indices are reinterpreted
as uint32; MGATHER row mode is one DMA burst per row, bounded by the product
of Shape[0..3] and addressed with the view's row stride; elem mode is a scalar
loop; an NZ table has its own path; TGATHER faults on out-of-range offsets
(our choice), numbers compare-form matches by src.Cols; TCOLARGMIN compares
16/32-bit sources as fp16/fp32 bit patterns.
"""

from __future__ import annotations

from xdsl.ir import Dialect
from xdsl.irdl import irdl_op_definition

from pto_dialect import ops as pto
from pto_dialect.attributes import Coalesce, GmLayout
from pto_dialect.types import TileTypeBase

from passes.rules.common import inferred_layout
from lowering.common import (
    MGatherBase,
    MGatherElemBase,
    MGatherL1Base,
    MGatherRowBase,
    TColArgMinBase,
    TGatherCompareBase,
    TGatherIndexBase,
    TGatherMaskBase,
)
from lowering.convert import TargetLowering


@irdl_op_definition
class MGatherRowDmaOp(MGatherRowBase):
    """One copy_gm_to_ubuf DMA burst per dst row (ND table)."""

    name = "pto_a2a3.mgather_row_dma"


@irdl_op_definition
class MGatherElemScalarOp(MGatherElemBase):
    """A scalar GM->UB copy per element, one thread (ND table)."""

    name = "pto_a2a3.mgather_elem_scalar"


@irdl_op_definition
class MGatherRowNzOp(MGatherBase):
    """NZ table into an NZ tile: logical rows, one multi-burst transfer per row."""

    name = "pto_a2a3.mgather_row_nz"


@irdl_op_definition
class MGatherElemNzOp(MGatherBase):
    """NZ table into an NZ tile, element by element through MGatherNZGmOffset."""

    name = "pto_a2a3.mgather_elem_nz"


@irdl_op_definition
class MGatherRowL1Op(MGatherL1Base):
    """GM -> L1 NZ tile, row mode (GM index tensor)."""

    name = "pto_a2a3.mgather_row_l1"


@irdl_op_definition
class MGatherElemL1Op(MGatherL1Base):
    """GM -> L1 NZ tile, elem mode: gathered into zeroed GM scratch, then copied whole."""

    name = "pto_a2a3.mgather_elem_l1"


@irdl_op_definition
class TGatherIndexOp(TGatherIndexBase):
    """vgather; b16 data goes through tmp as byte offsets."""

    name = "pto_a2a3.tgather_index"


@irdl_op_definition
class TGatherMaskOp(TGatherMaskBase):
    name = "pto_a2a3.tgather_mask"


@irdl_op_definition
class TGatherCompareOp(TGatherCompareBase):
    name = "pto_a2a3.tgather_compare"


@irdl_op_definition
class TColArgMinOp(TColArgMinBase):
    name = "pto_a2a3.tcolargmin"


PTO_A2A3 = Dialect(
    "pto_a2a3",
    [
        MGatherRowDmaOp,
        MGatherElemScalarOp,
        MGatherRowNzOp,
        MGatherElemNzOp,
        MGatherRowL1Op,
        MGatherElemL1Op,
        TGatherIndexOp,
        TGatherMaskOp,
        TGatherCompareOp,
        TColArgMinOp,
    ],
)


def _mgather(op: pto.MGatherOp):
    assert op.coalesce is not None
    row = op.coalesce.data == Coalesce.ROW
    if op.is_gm_to_l1:
        if row:
            return MGatherRowL1Op, {"index_width": 32, "capacity": "S0*S1*S2*S3", "row_stride": "T3"}
        return MGatherElemL1Op, {"index_width": 32, "capacity": "S0*S1*S2*S3*S4"}
    if inferred_layout(op.mem) == GmLayout.NZ:
        if row:
            return MGatherRowNzOp, {"index_width": 32, "capacity": "LR"}
        return MGatherElemNzOp, {"index_width": 32, "capacity": "LR*LC"}
    if row:
        return MGatherRowDmaOp, {
            "index_width": 32,
            "capacity": "S0*S1*S2*S3",
            "row_stride": "T3",
            "col_stride": "1",
        }
    return MGatherElemScalarOp, {"index_width": 32, "capacity": "S0*S1*S2*S3*S4"}


def _tgather(op: pto.TGatherOp):
    if op.form == pto.TGatherForm.MASK:
        return TGatherMaskOp, {}
    if op.form == pto.TGatherForm.INDEX:
        return TGatherIndexOp, {"out_of_range": "fault", "tmp_use": "b16_byte_offsets"}
    return TGatherCompareOp, {"index_numbering": "src_cols", "compare": "numeric"}


def _tcolargmin(op: pto.TColArgMinOp):
    src = op.src.type
    assert isinstance(src, TileTypeBase)
    two_byte_index_only = src.element.bytes == 2 and op.dst_val is None
    return TColArgMinOp, {
        "compare": "fp_bits",
        "nan": "propagates",
        "row_counter": "f16" if two_byte_index_only else "exact",
        "src_read": "row_major_storage",
    }


LOWERING = TargetLowering("a2a3", _mgather, _tgather, _tcolargmin)
