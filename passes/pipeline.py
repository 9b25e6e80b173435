"""`pto-pipeline{target=T}`: verify, SSA -> DPS, implicit tmps, plan memory, lower."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

import targets
from passes.implicit_tmp import MaterializeImplicitTmpPass
from passes.lower import LowerPass
from passes.plan_memory import PlanMemoryPass
from passes.ssa_to_dps import SsaToDpsPass
from passes.verify_target import VerifyTargetPass


@dataclass(frozen=True)
class PipelinePass(ModulePass):
    """
    Everything pto-run applies: verify, SSA to DPS, implicit tmps, memory plan, lower.

    The whole path from a verified kernel to target ops, in order:
    pto-verify-target, pto-ssa-to-dps, pto-materialize-implicit-tmp, pto-plan-memory,
    pto-lower.
    Option: target (default: pto-opt's --target, else the module's pto.target_arch, else a2a3).
    """

    name = "pto-pipeline"

    target: str | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        target = targets.resolve(self.target, None, op).name
        for stage in (
            VerifyTargetPass(target),
            SsaToDpsPass(),
            MaterializeImplicitTmpPass(target),
            PlanMemoryPass(target),
            LowerPass(target),
        ):
            stage.apply(ctx, op)
