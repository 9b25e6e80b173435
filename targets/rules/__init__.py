"""
What each target accepts: one rule table type and check function per op
(`mgather.py`, `tgather.py`, `tcolargmin.py`; each target's folder has its
rows), and `check_op`: the one entry point that applies an op's
table, used by the verifier pass (static types) and by the interpreter (with
the tiles' actual valid shapes).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Operation, SSAValue

from pto_dialect.attributes import CmpMode, MaskPattern
from pto_dialect.ops import MGatherOp, TColArgMinOp, TGatherForm, TGatherOp
from pto_dialect.types import ShapedViewBase, TileTypeBase

from targets.info import TargetInfo
from targets.rules.common import RuleViolation, TileFacts, ViewFacts
from targets.rules.mgather import check_mgather
from targets.rules.tcolargmin import check_tcolargmin
from targets.rules.tgather import check_tgather_compare, check_tgather_index, check_tgather_mask

ValidShapes = Callable[[SSAValue], tuple[int, int] | None]
"""The actual valid shape of a tile value at run time, or None to use its type's."""


def _static(_: SSAValue) -> None:
    return None


class _Facts:
    """Builds operand facts, with run-time valid shapes where the caller has them."""

    def __init__(self, valid_shapes: ValidShapes):
        self.valid_shapes = valid_shapes

    def tile(self, role: str, value: SSAValue) -> TileFacts:
        assert isinstance(value.type, TileTypeBase)
        facts = TileFacts.of(role, value.type)
        actual = self.valid_shapes(value)
        return facts if actual is None else facts.with_valid(*actual)

    def tile_or_view(self, role: str, value: SSAValue) -> TileFacts | ViewFacts:
        if isinstance(value.type, ShapedViewBase):
            return ViewFacts.of(role, value)
        return self.tile(role, value)


def _mgather(op: MGatherOp, target: TargetInfo, facts: _Facts) -> None:
    assert op.coalesce is not None
    check_mgather(
        target,
        op.coalesce.data,
        facts.tile("dst", op.dst),
        ViewFacts.of("mem", op.mem),
        facts.tile_or_view("idx", op.idx),
        ViewFacts.of("scratch", op.scratch) if op.scratch is not None else None,
        op.gather_exec.data if op.gather_exec is not None else None,
    )


def _tgather(op: TGatherOp, target: TargetInfo, facts: _Facts) -> None:
    src = facts.tile("src", op.src)
    if op.form == TGatherForm.MASK:
        assert op.mask_pattern is not None
        pattern: MaskPattern = op.mask_pattern.data
        check_tgather_mask(target, pattern, op.mask_axis, src, facts.tile("dst", op.dst))
    elif op.form == TGatherForm.COMPARE:
        k = op.threshold
        threshold = facts.tile("threshold", k) if isinstance(k.type, TileTypeBase) else str(k.type)
        check_tgather_compare(
            target,
            op.cmp_mode.data if op.cmp_mode is not None else CmpMode.EQ,
            src,
            threshold,
            facts.tile("dst", op.dst),
            facts.tile("cdst", op.operand("cdst")),
            facts.tile("tmp", op.operand("tmp")),
        )
    else:
        tmp = op.role("tmp")
        check_tgather_index(
            target,
            src,
            facts.tile("indices", op.operand("indices")),
            facts.tile("dst", op.dst),
            facts.tile("tmp", tmp) if tmp is not None else None,
        )


def _tcolargmin(op: TColArgMinOp, target: TargetInfo, facts: _Facts) -> None:
    value_form = op.dst_val is not None
    check_tcolargmin(
        target,
        facts.tile("src", op.src),
        facts.tile("dstIdx" if value_form else "dst", op.dst_idx),
        facts.tile("dstVal", op.dst_val) if op.dst_val is not None else None,
        facts.tile("tmp", op.tmp) if op.tmp is not None else None,
    )


RULE_CHECKS: dict[type[Operation], Callable[..., None]] = {
    MGatherOp: _mgather,
    TGatherOp: _tgather,
    TColArgMinOp: _tcolargmin,
}


def check_op(op: Operation, target: TargetInfo, valid_shapes: ValidShapes = _static) -> None:
    """Raise RuleViolation if `op` breaks a rule of `target` (no-op for ops without rules)."""
    if (check := RULE_CHECKS.get(type(op))) is not None:
        check(op, target, _Facts(valid_shapes))


__all__ = ["RULE_CHECKS", "RuleViolation", "check_op"]
