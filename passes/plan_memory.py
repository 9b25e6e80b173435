"""`pto-plan-memory{target=T}`: give every unaddressed tile an address (passes/memory_plan.py)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

import targets


@dataclass(frozen=True)
class PlanMemoryPass(ModulePass):
    """
    Give unaddressed tiles addresses within the target's on-chip memory, reusing dead tiles' space.

    Place every `pto.alloc_tile` without `addr` in its memory: 32-byte aligned (512 for
    left/right/acc), never over a tile live at the same time (addressed tiles included),
    reusing space of tiles no longer live; lowest free address first, in program order.
    A func.call holds its callee's tiles, so caller tiles live across it avoid them (and a
    callee's tiles avoid hand-placed caller tiles live across calls to it).
    Fails, located at the tile, when the live tiles do not fit the target's budget.
    Option: target (default: pto-opt's --target, else the module's pto.target_arch, else a2a3).
    """

    name = "pto-plan-memory"

    target: str | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from xdsl.dialects import arith

        from passes.memory_plan import CallGraph, check_manual_addresses, plan_function  # imported when the pass runs: --help lists the passes without it
        from pto_dialect.ops import AllocTileOp

        target = targets.resolve(self.target, op)
        check_manual_addresses(op, target)
        # A caller's plan steps around its callees' tiles, so callees get theirs first,
        # off the hand-placed tiles their callers keep live across the calls.
        graph = CallGraph(op, target)
        reserved = graph.reserved()
        for f in graph.callees_first:
            for b in plan_function(f, graph, reserved[f]):
                alloc = b.op
                if not isinstance(alloc, AllocTileOp) or alloc.addr is not None or b.addr is None:
                    continue
                addr = arith.ConstantOp(IntegerAttr(b.addr, i64))
                placed = AllocTileOp(alloc.tile, addr.result, alloc.valid_row, alloc.valid_col)
                placed.attributes.update(alloc.attributes)
                addr.location = placed.location = alloc.location
                Rewriter.insert_op(addr, InsertPoint.before(alloc))
                Rewriter.replace_op(alloc, placed)
