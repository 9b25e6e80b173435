"""`pto-verify-target`: check every pto op against its target's rule table."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from pto_dialect.diagnostics import PtoError

import targets
from targets.rules import RuleViolation, check_op


def verify_target(module: Operation, target: str | targets.TargetInfo) -> None:
    """Raise a PtoError located at the first op that `target` would reject."""
    target = targets.get(target)
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
    Reject what the target's toolchain and hardware would reject (targets/rules/).

    Option: target (cpu, a2a3 (a2, a3), a5; default: pto-opt's --target, else the
    module's pto.target_arch, else a2a3). `pto-opt` runs the same checks right after parsing.
    """

    name = "pto-verify-target"

    target: str | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        verify_target(op, targets.resolve(self.target, None, op))
