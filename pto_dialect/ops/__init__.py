"""PTO operations, one module per op family."""

from pto_dialect.ops.argreduce import TColArgMinOp
from pto_dialect.ops.gather import MGatherOp, TGatherForm, TGatherOp
from pto_dialect.ops.memory import (
    AllocTileOp,
    MakeTensorViewOp,
    PartitionViewOp,
    SectionCubeOp,
    SectionVectorOp,
    TAssignOp,
    TLoadOp,
    TStoreOp,
)

OPS = [
    MGatherOp,
    TGatherOp,
    TColArgMinOp,
    MakeTensorViewOp,
    PartitionViewOp,
    AllocTileOp,
    TAssignOp,
    TLoadOp,
    TStoreOp,
    SectionVectorOp,
    SectionCubeOp,
]

__all__ = [op.__name__ for op in OPS] + ["OPS", "TGatherForm"]
