"""`pto-lower{target=T}`: rewrite pto instructions into target T's dialect (lowering/)."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import Literal

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker

from lowering.convert import TargetLowering, patterns


def target_lowering(target: str) -> TargetLowering:
    return import_module(f"lowering.{target}").LOWERING


@dataclass(frozen=True)
class LowerPass(ModulePass):
    """
    Lower pto instructions (DPS form) to the target dialect `pto_<target>`, whose ops
    and attributes show how that target executes them. Option: target = cpu | a2a3 | a5.
    Views, tiles, tload/tstore and sections stay in the pto dialect.
    """

    name = "pto-lower"

    target: Literal["cpu", "a2a3", "a5"] = "a2a3"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        walker = PatternRewriteWalker(
            GreedyRewritePatternApplier(patterns(target_lowering(self.target))),
            apply_recursively=False,
        )
        walker.rewrite_module(op)


def _alias(target: Literal["cpu", "a2a3", "a5"]) -> type[ModulePass]:
    @dataclass(frozen=True)
    class ConvertPtoToTarget(ModulePass):
        __doc__ = f"`pto-lower{{target={target}}}` under xDSL's naming habit."
        name = f"convert-pto-to-{target}"

        def apply(self, ctx: Context, op: ModuleOp) -> None:
            LowerPass(target).apply(ctx, op)

    return ConvertPtoToTarget
