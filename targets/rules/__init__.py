"""
What each target accepts: one rule table type and check function per
instruction (`mgather.py`, `tgather.py`, `tcolargmin.py`; each target's folder
has its rows), and `check_instruction`, the one entry point that applies them to
an instruction's operands by role (pto_dialect/roles.py). The verifier pass
calls it through `check_op` with facts from the static types; the interpreter
with the actual valid shapes of a lowered op's operands.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.ir import Operation, SSAValue

from pto_dialect.attributes import CmpMode, Coalesce, GatherExec, MaskPattern
from pto_dialect.ops import MGatherOp, TColArgMinOp, TGatherOp, TLoadOp, TStoreOp
from pto_dialect.types import ShapedViewBase, TileTypeBase
from targets.info import TargetInfo
from targets.rules.aliasing import in_place_refusal
from targets.rules.common import RuleViolation, TileFacts, ViewFacts
from targets.rules.mgather import check_mgather
from targets.rules.tcolargmin import check_tcolargmin
from targets.rules.tgather import (
    check_tgather_compare,
    check_tgather_index,
    check_tgather_mask,
)
from targets.rules.transfer import check_tload, check_tstore

Operands = dict[str, TileFacts | ViewFacts | str]
"""An instruction's operand facts by role; a scalar operand is its type's spelling."""


@dataclass(frozen=True)
class Options:
    """The instruction attributes the rules read (a pto op's or a lowered op's)."""

    coalesce: Coalesce | None = None
    gather_exec: GatherExec | None = None
    mask_pattern: MaskPattern | None = None
    mask_axis: str = "row"
    cmp_mode: CmpMode = CmpMode.EQ


def _mgather(target: TargetInfo, f: Operands, options: Options) -> None:
    assert options.coalesce is not None
    check_mgather(target, options.coalesce, f["dst"], f["mem"], f["idx"], f.get("scratch"), options.gather_exec)  # type: ignore[arg-type]


def _tgather(target: TargetInfo, f: Operands, options: Options) -> None:
    if "indices" in f:
        check_tgather_index(target, f["src"], f["indices"], f["dst"], f.get("tmp"))  # type: ignore[arg-type]
    elif "threshold" in f:
        check_tgather_compare(target, options.cmp_mode, f["src"], f["threshold"], f["dst"], f["cdst"], f["tmp"])  # type: ignore[arg-type]
    else:
        assert options.mask_pattern is not None
        check_tgather_mask(target, options.mask_pattern, options.mask_axis, f["src"], f["dst"])  # type: ignore[arg-type]


def _tcolargmin(target: TargetInfo, f: Operands, options: Options) -> None:
    check_tcolargmin(target, f["src"], f.get("dstIdx", f.get("dst")), f.get("dstVal"), f.get("tmp"))  # type: ignore[arg-type]


RULE_CHECKS: dict[str, Callable[[TargetInfo, Operands, Options], None]] = {
    "pto.mgather": _mgather,
    "pto.tgather": _tgather,
    "pto.tcolargmin": _tcolargmin,
}


def check_instruction(instruction: str, target: TargetInfo, operands: Operands, options: Options) -> None:
    """Raise RuleViolation if the instruction breaks a rule of `target`."""
    RULE_CHECKS[instruction](target, operands, options)


def static_facts(role: str, value: SSAValue) -> TileFacts | ViewFacts | str:
    """An operand's facts from its type."""
    if isinstance(value.type, TileTypeBase):
        return TileFacts.of(role, value.type)
    if isinstance(value.type, ShapedViewBase):
        return ViewFacts.of(role, value)
    return str(value.type)


def check_op(op: Operation, target: TargetInfo) -> None:
    """Raise RuleViolation if the pto op breaks a rule of `target` (no-op for ops without rules)."""
    if isinstance(op, TLoadOp) and op.is_dps:  # an SSA result's valid shape is the view's by construction
        check_tload(target, ViewFacts.of("src", op.src), TileFacts.of("dst", op.dst.type))  # type: ignore[arg-type]
    if isinstance(op, TStoreOp):
        check_tstore(target, TileFacts.of("src", op.src.type), ViewFacts.of("dst", op.dst))  # type: ignore[arg-type]
    if not isinstance(op, MGatherOp | TGatherOp | TColArgMinOp):
        return
    _check_same_tile_in_and_out(op, target)
    operands = {role: static_facts(role, value) for role, value in op.by_role().items()}
    options = Options()
    if isinstance(op, MGatherOp):
        options = Options(
            coalesce=op.coalesce.data if op.coalesce is not None else None,
            gather_exec=op.gather_exec.data if op.gather_exec is not None else None,
        )
    elif isinstance(op, TGatherOp):
        options = Options(
            mask_pattern=op.mask_pattern.data if op.mask_pattern is not None else None,
            mask_axis=op.mask_axis,
            cmp_mode=op.cmp_mode.data if op.cmp_mode is not None else CmpMode.EQ,
        )
    check_instruction(op.name, target, operands, options)


def _check_same_tile_in_and_out(op: Operation, target: TargetInfo) -> None:
    outs = getattr(op, "outs", ())
    for value in getattr(op, "ins", ()):
        if value in outs and isinstance(value.type, TileTypeBase):
            if (why := in_place_refusal(op, value, value, target, exact=True)) is not None:
                raise RuleViolation(f"reads and writes one tile: {why}")


__all__ = ["Operands", "Options", "RULE_CHECKS", "RuleViolation", "check_instruction", "check_op", "static_facts"]
