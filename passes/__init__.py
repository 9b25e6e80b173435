"""
Passes over pto modules, one `ModulePass` per module. `get_all_passes()` maps
each pass name to a lazy loader returning the pass class, as xDSL's own
`xdsl.transforms.get_all_passes()` does.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.passes import ModulePass


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

    return {
        "pto-verify-target": verify_target,
        "canonicalize": canonicalize,
        "dce": dce,
        "cse": cse,
    }
