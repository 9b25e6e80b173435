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

from xdsl.dialects.builtin import DenseArrayBase
from xdsl.ir import Dialect
from xdsl.irdl import irdl_op_definition, prop_def

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
)


@irdl_op_definition
class MGatherRowSimtOp(MGatherRowBase):
    """SIMT launch over `grid`, warp-parallel channels per row."""

    name = "pto_a5.mgather_row_simt"
    LAUNCH: ClassVar[Launch] = Launch.SIMT
    grid = prop_def(DenseArrayBase)


@irdl_op_definition
class MGatherElemSimtOp(MGatherElemBase):
    """SIMT launch over `grid`, one channel per element."""

    name = "pto_a5.mgather_elem_simt"
    LAUNCH: ClassVar[Launch] = Launch.SIMT
    grid = prop_def(DenseArrayBase)


@irdl_op_definition
class MGatherElemScalarOp(MGatherElemBase):
    """MGatherScalarImpl on the AIV core: the degenerate (1, 1) elem gather."""

    name = "pto_a5.mgather_elem_scalar"
    LAUNCH: ClassVar[Launch] = Launch.SCALAR


@irdl_op_definition
class MGatherRowL1Op(MGatherL1Base):
    """GM -> L1 NZ tile, row mode (GM index tensor)."""

    name = "pto_a5.mgather_row_l1"
    LAUNCH: ClassVar[Launch] = Launch.DMA


@irdl_op_definition
class MGatherElemL1Op(MGatherL1Base):
    """Elem GM -> L1 through GM scratch; `executor`: cube scalar loop or AIV SIMT kernel."""

    name = "pto_a5.mgather_elem_l1"
    LAUNCH: ClassVar[Launch] = Launch.SCALAR


@irdl_op_definition
class LoadIndexVectorOp(LoadIndexVectorBase):
    name = "pto_a5.load_index_vector"


@irdl_op_definition
class GatherOp(RegisterGatherBase):
    """reg-gather.md; b8 data is gathered into b16 lanes, zero-extended."""

    name = "pto_a5.gather"


@irdl_op_definition
class StoreOp(RegisterStoreBase):
    """b16 lanes of b8 data keep their low byte."""

    name = "pto_a5.store"


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
)
