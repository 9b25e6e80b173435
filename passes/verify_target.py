"""`pto-verify-target`: check every pto op against its target's rule table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from pto_dialect.diagnostics import PtoError
from pto_dialect.targets import Target

from passes.rules import RuleViolation, check_op


def verify_target(module: ModuleOp, target: Target) -> None:
    """Raise a PtoError located at the first op that `target` would reject."""
    for op in module.walk():
        try:
            check_op(op, target)
        except RuleViolation as e:
            message = str(e)
            if not message.endswith(f"on target {target}"):
                message += f" (target {target})"
            raise PtoError.at_op(op, message) from e


@dataclass(frozen=True)
class VerifyTargetPass(ModulePass):
    """
    Reject what the target's toolchain and hardware would reject (passes/rules/).

    Option: target = cpu | a2a3 | a5. `pto-opt --target T` runs the same checks
    right after parsing.
    """

    name = "pto-verify-target"

    target: Literal["cpu", "a2a3", "a5"] = "a2a3"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        verify_target(op, self.target)
