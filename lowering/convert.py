"""
The rewrite patterns of `pto-lower{target=T}`, driven by a target's lowering table
(`targets/<name>/lowering.py` provides one `TargetLowering`): per instruction, which
lowered op and which choices.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from xdsl.ir import Attribute, Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from pto_dialect.choices import Choice, choice
from pto_dialect.diagnostics import PtoError
from pto_dialect.instruction import Instruction
from pto_dialect.instructions import instruction_of
from pto_dialect.lowered import LoweredOp
from pto_dialect.ops.common import PtoInstructionOp

Lowered = tuple[type[LoweredOp] | None, Mapping[str, Choice | Attribute]] | None
"""The lowered op and the choices it records, with any other property of the target's op
(no op: the pto op stays and records the choices as attributes); None where the target
has no such instruction form."""


@dataclass(frozen=True)
class TargetLowering:
    """How one target lowers each instruction: which op, with which choices."""

    target: str
    table: Mapping[Instruction, Callable[[Any], Lowered]]
    """Each entry takes the op class of its instruction (which a Mapping's type cannot say)."""
    extra_patterns: tuple[RewritePattern, ...] = ()
    """Target patterns tried before the table-driven one (e.g. a5's register gather)."""

    def choose(self, op: PtoInstructionOp) -> tuple[type[LoweredOp] | None, Mapping[str, Choice | Attribute]]:
        """The table's entry for `op`; a located error where the target has none."""
        instruction = instruction_of(op)
        assert instruction is not None, op.name
        entry = self.table[instruction](op)
        if entry is None:
            form = f"{instruction.form(op)}-form " if instruction.form(op) else ""
            raise PtoError.at_op(op, f"{form}{op.name} has no lowering on target {self.target}")
        return entry


class LowerInstruction(RewritePattern):
    """A pto instruction becomes its target's op, keeping its operands and attributes (absent
    ones spelled out as their meaning) and recording the target's choices; an instruction
    without a lowered op records the choices on itself."""

    def __init__(self, lowering: TargetLowering):
        self.lowering = lowering

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, PtoInstructionOp):
            return
        if op.res:
            raise PtoError.at_op(op, "expects DPS form before lowering (run pto-ssa-to-dps first)")
        lowered, choices = self.lowering.choose(op)
        recorded = {name: choice(v) if isinstance(v, Choice) else v for name, v in choices.items()}
        if lowered is None:
            if any(op.attributes.get(k) != v for k, v in recorded.items()):
                op.attributes.update(recorded)
                rewriter.notify_op_modified(op)
            return
        kept: dict[str, Attribute] = {
            name: value
            for name in lowered.get_irdl_definition().properties
            if name != "operandSegmentSizes" and (value := op.properties.get(name, op.DEFAULTS.get(name))) is not None
        }
        rewriter.replace(op, lowered.create_from(op, op.ins, op.outs, **kept, **recorded), [])


def patterns(lowering: TargetLowering) -> list[RewritePattern]:
    return [*lowering.extra_patterns, LowerInstruction(lowering)]
