"""
Applying the rules: `check_instruction` runs an instruction's rule function with the
target's row of its rules (each target's folder has the rows), on its operands' facts by
role. The verifier pass calls it through `check_op` with facts from the static types; the
interpreter with the actual valid shapes of a lowered op's operands.
"""

from __future__ import annotations

from collections.abc import Mapping

from xdsl.ir import Attribute, Operation

from pto_dialect.facts import RuleViolation, TileFacts, ViewFacts, static_facts
from pto_dialect.instruction import Instruction
from pto_dialect.instructions import instruction_of
from pto_dialect.ops.common import PtoInstructionOp
from pto_dialect.types import TileTypeBase
from targets.info import TargetInfo
from targets.rules.aliasing import Alias, in_place_refusal
from targets.rules.register_gather import check_register_gather
from targets.rules.register_level import check_register_level
from targets.rules.sync import check_sync_op

Operands = dict[str, TileFacts | ViewFacts | str]
"""An instruction's operand facts by role; a scalar operand is its type's spelling."""


def check_instruction(
    instruction: Instruction, target: TargetInfo, operands: Operands, attributes: Mapping[str, Attribute]
) -> None:
    """Raise RuleViolation if the instruction breaks a rule of `target`."""
    instruction.check(target.rules[instruction], operands, attributes)


def check_op(op: Operation, target: TargetInfo) -> None:
    """Raise RuleViolation if the pto op breaks a rule of `target` (no-op for ops without rules)."""
    check_sync_op(op, target)
    check_register_level(op, target)
    check_register_gather(op)
    instruction = instruction_of(op)
    if instruction is None or not isinstance(op, PtoInstructionOp):
        return
    _check_same_tile_in_and_out(op, target)
    operands = {role: static_facts(role, value) for role, value in op.by_role().items()}
    check_instruction(instruction, target, operands, op.properties)


def _check_same_tile_in_and_out(op: PtoInstructionOp, target: TargetInfo) -> None:
    for value in op.ins:
        if value in op.outs and isinstance(value.type, TileTypeBase):
            if (why := in_place_refusal(op, value, value, target, Alias.EXACT)) is not None:
                raise RuleViolation(f"reads and writes one tile: {why}")


__all__ = ["Operands", "RuleViolation", "check_instruction", "check_op"]
