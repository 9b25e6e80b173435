"""`pto-ssa-to-dps`: give every SSA tile value a buffer and write instructions in DPS form."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from xdsl.context import Context
from xdsl.dialects.builtin import FunctionType, ModuleOp, StringAttr
from xdsl.ir import Attribute
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from pto_dialect.walk import walk

from pto_dialect.types import TileBufType, TileType


def buffer_type(t: Attribute) -> Attribute:
    """The tile_buf holding a value tile (same parameters); other types unchanged."""
    return TileBufType.from_params(t.params) if isinstance(t, TileType) else t


@dataclass(frozen=True)
class SsaToDpsPass(ModulePass):
    """
    Turn SSA tile values into `pto.alloc_tile` buffers and instructions into their DPS form.

    Every SSA tile result becomes a `pto.alloc_tile` of the matching `!pto.tile_buf`,
    the instruction is rewritten into its DPS form writing that buffer, and the
    value's uses follow the buffer. Every other `!pto.tile` (function signatures and
    arguments, scf.for iter_args, call and scf results) becomes the matching tile_buf.
    """

    name = "pto-ssa-to-dps"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from xdsl.dialects import func

        from pto_dialect.ops import AllocTileOp  # when the pass runs: --help lists the passes without it
        from pto_dialect.ops.common import PtoInstructionOp

        for ssa_op in [o for o in walk(op) if isinstance(o, PtoInstructionOp) and o.res]:
            buffers = [AllocTileOp(cast(TileBufType, buffer_type(r.type))) for r in ssa_op.res]
            attrs = {**ssa_op.attributes, **ssa_op.properties}
            attrs.pop("operandSegmentSizes", None)
            if "maskPattern" in attrs and "axis" not in attrs:  # SSA's default, spelled out
                attrs["axis"] = StringAttr("row")
            dps = type(ssa_op).from_parts(ssa_op.ins, [b.result for b in buffers], [], attrs)
            for new in (*buffers, dps):
                new.location = ssa_op.location
            Rewriter.insert_op(buffers, InsertPoint.before(ssa_op))
            Rewriter.replace_op(ssa_op, dps, [b.result for b in buffers])
        # What still carries a value tile (function signatures and arguments, loop-carried
        # values, call and scf results) now carries the buffer; the ops stay (and their locations).
        for o in walk(op):
            if isinstance(o, func.FuncOp):
                ft = o.function_type
                o.function_type = FunctionType.from_lists(
                    [buffer_type(t) for t in ft.inputs.data], [buffer_type(t) for t in ft.outputs.data]
                )
            values = [*o.results, *(a for r in o.regions for b in r.blocks for a in b.args)]
            for value in values:
                if isinstance(value.type, TileType):
                    Rewriter.replace_value_with_new_type(value, buffer_type(value.type))
