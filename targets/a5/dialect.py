"""
`pto_a5`: Ascend 950 (reference/semantics.md). MGATHER is a SIMT launch over
a {32, 32} grid (the (1, 1) elem case runs the scalar fallback); indices are
reinterpreted as uint32; row mode bounds an index by Shape[3] and reads packed
rows (stride = dst valid cols). TGATHER's index form is the register gather
of spec/reg-gather.md: load the index vector, gather by index under a mask,
store. Compare-form matches are numbered per 64-lane chunk.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DenseArrayBase
from xdsl.ir import Dialect
from xdsl.irdl import prop_def

from lowering.ops import (
    Launch,
    LoadIndexVectorBase,
    MGatherElemBase,
    MGatherL1Base,
    MGatherRowBase,
    RegisterGatherBase,
    RegisterStoreBase,
    TColArgMinBase,
    TGatherCompareBase,
    TGatherIndexBase,
    TGatherMaskBase,
    target_op,
)

MGatherRowSimtOp = target_op(
    MGatherRowBase, "pto_a5.mgather_row_simt", "SIMT launch over `grid`, warp-parallel channels per row.",
    Launch.SIMT, grid=prop_def(DenseArrayBase),
)
MGatherElemSimtOp = target_op(
    MGatherElemBase, "pto_a5.mgather_elem_simt", "SIMT launch over `grid`, one channel per element.",
    Launch.SIMT, grid=prop_def(DenseArrayBase),
)
MGatherElemScalarOp = target_op(
    MGatherElemBase, "pto_a5.mgather_elem_scalar", "MGatherScalarImpl on the AIV core: the degenerate (1, 1) elem gather.",
    Launch.SCALAR,
)
MGatherRowL1Op = target_op(MGatherL1Base, "pto_a5.mgather_row_l1", "GM -> L1 NZ tile, row mode (GM index tensor).", Launch.DMA)
MGatherElemL1Op = target_op(
    MGatherL1Base, "pto_a5.mgather_elem_l1",
    "Elem GM -> L1 through GM scratch; `executor`: cube scalar loop or AIV SIMT kernel.", Launch.SCALAR,
)
LoadIndexVectorOp = target_op(LoadIndexVectorBase, "pto_a5.load_index_vector")
GatherOp = target_op(RegisterGatherBase, "pto_a5.gather", "reg-gather.md; b8 data is gathered into b16 lanes, zero-extended.")
StoreOp = target_op(RegisterStoreBase, "pto_a5.store", "b16 lanes of b8 data keep their low byte.")
GatherB32OffsetsOp = target_op(
    TGatherIndexBase, "pto_a5.gather_b16_by_u32",
    "b16 data with 32-bit indices: pto-isa's vgather2_bc variant (u32 offsets, packed store).",
)
TGatherMaskOp = target_op(TGatherMaskBase, "pto_a5.tgather_mask")
TGatherCompareOp = target_op(TGatherCompareBase, "pto_a5.tgather_compare")
TColArgMinOp = target_op(TColArgMinBase, "pto_a5.tcolargmin")

DIALECT = Dialect(
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
)
