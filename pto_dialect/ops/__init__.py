"""The kernel scaffolding ops (views, tiles, sections) and the base of the instruction ops;
the instructions themselves are in pto_dialect/instructions/."""

from pto_dialect.ops.memory import (
    AllocTileOp,
    MakeTensorViewOp,
    PartitionViewOp,
    SectionCubeOp,
    SectionVectorOp,
    TAssignOp,
)
from pto_dialect.ops.reshape import TReshapeOp
from pto_dialect.ops.coherence import COHERENCE_OPS, CmoCacheInvalidOp, FenceBarrierAllOp
from pto_dialect.ops.local_array import LOCAL_ARRAY_OPS, DeclareLocalArrayOp, LocalArrayGetOp, LocalArraySetOp
from pto_dialect.ops.reserved import RESERVED_OPS, ImportReservedBufferOp, ReserveBufferOp
from pto_dialect.ops.scalar import LoadScalarOp, StoreScalarOp
from pto_dialect.ops.subview import SubViewOp
from pto_dialect.ops.tile_value import TGetValOp, TSetValOp
from pto_dialect.ops.valid_shape import SetValidShapeOp

SCAFFOLDING = [
    MakeTensorViewOp,
    PartitionViewOp,
    AllocTileOp,
    TAssignOp,
    SectionVectorOp,
    SectionCubeOp,
    LoadScalarOp,
    StoreScalarOp,
    SetValidShapeOp,
    SubViewOp,
    TGetValOp,
    TSetValOp,
    TReshapeOp,
    *LOCAL_ARRAY_OPS,
    *COHERENCE_OPS,
    *RESERVED_OPS,
]

__all__ = [
    "CmoCacheInvalidOp", "DeclareLocalArrayOp", "FenceBarrierAllOp", "ImportReservedBufferOp", "LocalArrayGetOp",
    "LocalArraySetOp", "ReserveBufferOp",
] + [op.__name__ for op in SCAFFOLDING] + ["SCAFFOLDING"]
