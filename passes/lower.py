"""`pto-lower{target=T}`: rewrite pto instructions into target T's dialect (targets/<T>/)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker

import targets


@dataclass(frozen=True)
class LowerPass(ModulePass):
    """
    Rewrite pto instructions into the target's dialect, whose attributes spell its choices.

    Lower pto instructions (DPS form) to the target dialect `pto_<target>`, whose ops
    and typed `#pto_choice` attributes show how that target executes them.
    Option: target (default: pto-opt's --target, else the module's pto.target_arch, else a2a3).
    Views, tiles, tload/tstore and sections stay in the pto dialect.
    """

    name = "pto-lower"

    target: str | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from lowering.convert import patterns  # imported when the pass runs: --help lists the passes without it

        target = targets.resolve(self.target, op)
        walker = PatternRewriteWalker(
            GreedyRewritePatternApplier(patterns(target.lowering), dce_enabled=False),  # lowering keeps every op it does not rewrite
            apply_recursively=False,
        )
        walker.rewrite_module(op)


def convert_pto_to(target: targets.TargetInfo) -> type[ModulePass]:
    """`convert-pto-to-<target>`: `pto-lower{target=...}` under xDSL's naming habit."""

    @dataclass(frozen=True)
    class ConvertPtoToTarget(ModulePass):
        __doc__ = f"`pto-lower{{target={target.name}}}` under xDSL's naming habit."
        name = f"convert-pto-to-{target.name}"
        names_target: ClassVar[str] = target.name
        """The target this pass names for its invocation (as a `target` option would)."""

        def apply(self, ctx: Context, op: ModuleOp) -> None:
            LowerPass(target.name).apply(ctx, op)

    return ConvertPtoToTarget
