"""
`pto_cpu`: the pto-isa CPU simulator's execution of each instruction
(reference/semantics.md). The simulator loops over valid elements in C++:
indices are widened to 64 bits (an i32 sign-extends), row mode bounds an
index by Shape[3] and reads rows at the view's strides, TGATHER's out-of-range
offsets read 0, TCOLARGMIN compares natively.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.ir import Dialect
from xdsl.irdl import irdl_op_definition

from lowering.ops import (
    Launch,
    MGatherElemBase,
    MGatherRowBase,
    TColArgMinBase,
    TGatherIndexBase,
    TGatherMaskBase,
)


@irdl_op_definition
class MGatherRowOp(MGatherRowBase):
    """Row gather in the simulator's row loop (also its GM->L1 form, scratch ignored)."""

    name = "pto_cpu.mgather_row"
    LAUNCH: ClassVar[Launch] = Launch.SIMULATOR


@irdl_op_definition
class MGatherElemOp(MGatherElemBase):
    """Element gather in the simulator's loop over validRow * validCol."""

    name = "pto_cpu.mgather_elem"
    LAUNCH: ClassVar[Launch] = Launch.SIMULATOR


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
