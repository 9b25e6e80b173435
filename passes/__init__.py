"""
Passes over pto modules, one `ModulePass` per module. `get_all_passes()` maps
each pass name to a lazy loader returning the pass class, as xDSL's own
`xdsl.transforms.get_all_passes()` does.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.passes import ModulePass

import targets


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    def canonicalize():
        from xdsl.transforms.canonicalize import CanonicalizePass

        return CanonicalizePass

    def dce():
        from xdsl.transforms.dead_code_elimination import DeadCodeElimination

        return DeadCodeElimination

    def cse():
        from xdsl.transforms.common_subexpression_elimination import (
            CommonSubexpressionElimination,
        )

        return CommonSubexpressionElimination

    def verify_target():
        from passes.verify_target import VerifyTargetPass

        return VerifyTargetPass

    def lower():
        from passes.lower import LowerPass

        return LowerPass

    def convert_to(target):
        def load():
            from passes.lower import convert_pto_to

            return convert_pto_to(target)

        return load

    def ssa_to_dps():
        from passes.ssa_to_dps import SsaToDpsPass

        return SsaToDpsPass

    def implicit_tmp():
        from passes.implicit_tmp import MaterializeImplicitTmpPass

        return MaterializeImplicitTmpPass

    def plan_memory():
        from passes.plan_memory import PlanMemoryPass

        return PlanMemoryPass

    def insert_sync():
        from passes.insert_sync import InsertSyncPass

        return InsertSyncPass

    def pipeline():
        from passes.pipeline import PipelinePass

        return PipelinePass

    return {
        "pto-verify-target": verify_target,
        "pto-ssa-to-dps": ssa_to_dps,
        "pto-materialize-implicit-tmp": implicit_tmp,
        "pto-plan-memory": plan_memory,
        "pto-lower": lower,
        "pto-insert-sync": insert_sync,
        "pto-pipeline": pipeline,
        **{f"convert-pto-to-{t.name}": convert_to(t) for t in targets.REGISTRY},
        "canonicalize": canonicalize,
        "dce": dce,
        "cse": cse,
    }
