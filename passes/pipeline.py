"""`pto-pipeline{target=T}`: verify, SSA -> DPS, implicit tmps, plan memory, lower, insert sync."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline

import targets
from passes.implicit_tmp import MaterializeImplicitTmpPass
from passes.insert_sync import InsertSyncPass
from passes.lower import LowerPass
from passes.plan_memory import PlanMemoryPass
from passes.ssa_to_dps import SsaToDpsPass
from passes.verify_target import VerifyTargetPass


@dataclass(frozen=True)
class PipelinePass(ModulePass):
    """
    Everything pto-run applies: verify, SSA to DPS, implicit tmps, memory plan, lower, sync.

    The sync (pto-insert-sync) goes only into kernels without sync ops of their own.

    The whole path from a verified kernel to target ops, as an xDSL pass pipeline:
    pto-verify-target, pto-ssa-to-dps, pto-materialize-implicit-tmp, pto-plan-memory,
    pto-lower, pto-insert-sync. `pto-opt` runs its stages as passes of its own pipeline, so that
    `--mlir-print-ir-after-all`, `--print-between-passes` and `--time-passes` see each.
    Option: target (default: the invocation's target).
    """

    name = "pto-pipeline"

    target: str | None = None

    def stages(self, op: ModuleOp) -> tuple[ModulePass, ...]:
        """The passes it runs, each for the target it resolves for `op`."""
        target = targets.resolve(self.target, op).name
        return (
            VerifyTargetPass(target),
            SsaToDpsPass(),
            MaterializeImplicitTmpPass(target),
            PlanMemoryPass(target),
            LowerPass(target),
            InsertSyncPass(target),
        )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PassPipeline(self.stages(op)).apply(ctx, op)
