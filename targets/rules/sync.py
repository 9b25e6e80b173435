"""A target's rules for the synchronization ops (pto_dialect/ops/sync.py), from its SyncFacts
(targets/<t>/sync.py): which pipes a flag or a cross-core signal may name, which event ids."""

from __future__ import annotations

from xdsl.ir import Operation

from pto_dialect.facts import RuleViolation
from pto_dialect.ops.sync import FlagOpBase, StaticFlagOp, CrossCoreBase
from targets.info import SyncFacts, TargetInfo


def check_sync_op(op: Operation, target: TargetInfo) -> None:
    """Raise RuleViolation if a sync op names a pipe or event id `target` lacks (no-op for other ops)."""
    if isinstance(op, FlagOpBase):
        _check_flag(op, target.sync)
    elif isinstance(op, CrossCoreBase):
        _check_cross_core(op, target.sync)


def _pipes(pipes: frozenset[str]) -> str:
    return ", ".join(f"<{p}>" for p in sorted(pipes))


def _check_flag(op: FlagOpBase, facts: SyncFacts) -> None:
    for side, pipe in zip(("source", "destination"), op.pair):
        if pipe.value not in facts.flag_pipes:
            raise RuleViolation(
                f"expects its {side} pipe to be one of {_pipes(facts.flag_pipes)}, got <{pipe.value}>"
            )
    if isinstance(op, StaticFlagOp) and op.event >= facts.flag_events:
        raise RuleViolation(
            f"expects an event id in EVENT_ID0..EVENT_ID{facts.flag_events - 1}, got {op.event_id.data.value}"
        )


def _check_cross_core(op: CrossCoreBase, facts: SyncFacts) -> None:
    if facts.cross_core_pipes is not None and op.pipe.data.value not in facts.cross_core_pipes:
        raise RuleViolation(
            f"expects pipe to be one of {_pipes(facts.cross_core_pipes)}, got <{op.pipe.data.value}>"
        )
    if op.event_id is not None and not 0 <= op.event_id.value.data < facts.cross_core_events:
        raise RuleViolation(
            f"expects a static FFTS event_id in [0, {facts.cross_core_events - 1}], "
            f"got {op.event_id.value.data}"
        )
