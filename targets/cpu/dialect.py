"""
`pto_cpu`: the pto-isa CPU simulator's execution of each instruction
(reference/semantics.md). The simulator loops over valid elements in C++:
indices are widened to 64 bits (an i32 sign-extends), row mode bounds an
index by Shape[3] and reads rows at the view's strides, TGATHER's out-of-range
offsets read 0, TCOLARGMIN compares natively.
"""

from __future__ import annotations

from xdsl.ir import Dialect

from lowering.ops import (
    Launch,
    MGatherElemBase,
    MGatherRowBase,
    TColArgMinBase,
    TGatherIndexBase,
    TGatherMaskBase,
    target_op,
)

MGatherRowOp = target_op(
    MGatherRowBase, "pto_cpu.mgather_row",
    "Row gather in the simulator's row loop (also its GM->L1 form, scratch ignored).", Launch.SIMULATOR,
)
MGatherElemOp = target_op(
    MGatherElemBase, "pto_cpu.mgather_elem", "Element gather in the simulator's loop over validRow * validCol.",
    Launch.SIMULATOR,
)
TGatherIndexOp = target_op(TGatherIndexBase, "pto_cpu.tgather_index")
TGatherMaskOp = target_op(TGatherMaskBase, "pto_cpu.tgather_mask")
TColArgMinOp = target_op(TColArgMinBase, "pto_cpu.tcolargmin")

DIALECT = Dialect("pto_cpu", [MGatherRowOp, MGatherElemOp, TGatherIndexOp, TGatherMaskOp, TColArgMinOp])
