"""
`pto_a2a3`: Atlas A2/A3 (reference/semantics.md). Indices are reinterpreted
as uint32; MGATHER row mode is one DMA burst per row, bounded by the product
of Shape[0..3] and addressed with the view's row stride; elem mode is a scalar
loop; an NZ table has its own path; TGATHER faults on out-of-range offsets
(our choice), numbers compare-form matches by src.Cols; TCOLARGMIN compares
16/32-bit sources as fp16/fp32 bit patterns.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.ir import Dialect
from xdsl.irdl import irdl_op_definition

from lowering.ops import (
    Launch,
    MGatherElemBase,
    MGatherL1Base,
    MGatherNzBase,
    MGatherRowBase,
    TColArgMinBase,
    TGatherCompareBase,
    TGatherIndexBase,
    TGatherMaskBase,
)


@irdl_op_definition
class MGatherRowDmaOp(MGatherRowBase):
    """One copy_gm_to_ubuf DMA burst per dst row (ND table)."""

    name = "pto_a2a3.mgather_row_dma"
    LAUNCH: ClassVar[Launch] = Launch.DMA


@irdl_op_definition
class MGatherElemScalarOp(MGatherElemBase):
    """A scalar GM->UB copy per element, one thread (ND table)."""

    name = "pto_a2a3.mgather_elem_scalar"
    LAUNCH: ClassVar[Launch] = Launch.SCALAR


@irdl_op_definition
class MGatherRowNzOp(MGatherNzBase):
    """NZ table into an NZ tile: logical rows, one multi-burst transfer per row."""

    name = "pto_a2a3.mgather_row_nz"
    LAUNCH: ClassVar[Launch] = Launch.DMA


@irdl_op_definition
class MGatherElemNzOp(MGatherNzBase):
    """NZ table into an NZ tile, element by element through MGatherNZGmOffset."""

    name = "pto_a2a3.mgather_elem_nz"
    LAUNCH: ClassVar[Launch] = Launch.SCALAR


@irdl_op_definition
class MGatherRowL1Op(MGatherL1Base):
    """GM -> L1 NZ tile, row mode (GM index tensor)."""

    name = "pto_a2a3.mgather_row_l1"
    LAUNCH: ClassVar[Launch] = Launch.DMA


@irdl_op_definition
class MGatherElemL1Op(MGatherL1Base):
    """GM -> L1 NZ tile, elem mode: gathered into zeroed GM scratch, then copied whole."""

    name = "pto_a2a3.mgather_elem_l1"
    LAUNCH: ClassVar[Launch] = Launch.SCALAR


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
