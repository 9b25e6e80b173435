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

SCAFFOLDING = [
    MakeTensorViewOp,
    PartitionViewOp,
    AllocTileOp,
    TAssignOp,
    SectionVectorOp,
    SectionCubeOp,
]

__all__ = [op.__name__ for op in SCAFFOLDING] + ["SCAFFOLDING"]
