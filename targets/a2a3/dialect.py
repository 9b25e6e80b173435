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
    target_op,
)

MGatherRowDmaOp = target_op(
    MGatherRowBase, "pto_a2a3.mgather_row_dma", "One copy_gm_to_ubuf DMA burst per dst row (ND table).", Launch.DMA
)
MGatherElemScalarOp = target_op(
    MGatherElemBase, "pto_a2a3.mgather_elem_scalar", "A scalar GM->UB copy per element, one thread (ND table).",
    Launch.SCALAR,
)
MGatherRowNzOp = target_op(
    MGatherNzBase, "pto_a2a3.mgather_row_nz",
    "NZ table into an NZ tile: logical rows, one multi-burst transfer per row.", Launch.DMA,
)
MGatherElemNzOp = target_op(
    MGatherNzBase, "pto_a2a3.mgather_elem_nz", "NZ table into an NZ tile, element by element through MGatherNZGmOffset.",
    Launch.SCALAR,
)
MGatherRowL1Op = target_op(
    MGatherL1Base, "pto_a2a3.mgather_row_l1", "GM -> L1 NZ tile, row mode (GM index tensor).", Launch.DMA
)
MGatherElemL1Op = target_op(
    MGatherL1Base, "pto_a2a3.mgather_elem_l1",
    "GM -> L1 NZ tile, elem mode: gathered into zeroed GM scratch, then copied whole.", Launch.SCALAR,
)
TGatherIndexOp = target_op(TGatherIndexBase, "pto_a2a3.tgather_index", "vgather; b16 data goes through tmp as byte offsets.")
TGatherMaskOp = target_op(TGatherMaskBase, "pto_a2a3.tgather_mask")
TGatherCompareOp = target_op(TGatherCompareBase, "pto_a2a3.tgather_compare")
TColArgMinOp = target_op(TColArgMinBase, "pto_a2a3.tcolargmin")

DIALECT = Dialect(
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
