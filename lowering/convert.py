"""
The rewrite patterns of `pto-lower{target=T}`, driven by a target's lowering
table (`targets/<name>/lowering.py` provides one `TargetLowering`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from lowering.ops import Choice, LoweredOp, MaskAxis, Packing, choice
from pto_dialect.attributes import CmpMode, CmpModeAttr, GatherOobAttr
from pto_dialect.diagnostics import PtoError
from pto_dialect.ops import MGatherOp, TColArgMinOp, TGatherForm, TGatherOp, TLoadOp

Lowered = tuple[type[LoweredOp], dict] | None
"""The target op and its choices; None when the target has no such instruction form."""


@dataclass(frozen=True)
class TargetLowering:
    """How one target lowers each pto instruction: which op, with which choices."""

    target: str
    mgather: Callable[[MGatherOp], Lowered]
    tgather: Callable[[TGatherOp], Lowered]
    tcolargmin: Callable[[TColArgMinOp], Lowered]
    tload: Callable[[TLoadOp], dict[str, Choice]]
    """The choices recorded on a pto.tload, which stays in the pto dialect (its padding)."""
    extra_patterns: tuple[RewritePattern, ...] = ()
    """Target patterns tried before the table-driven ones (e.g. a5's register gather)."""

    def choose(self, op: MGatherOp | TGatherOp | TColArgMinOp) -> tuple[type[LoweredOp], dict]:
        """The table's entry for `op`; a located error where the target has none."""
        table = {MGatherOp: self.mgather, TGatherOp: self.tgather, TColArgMinOp: self.tcolargmin}
        entry = table[type(op)](op)
        if entry is None:
            form = f"{op.form}-form " if isinstance(op, TGatherOp) else ""
            raise PtoError.at_op(op, f"{form}{op.name} has no lowering on target {self.target}")
        return entry


def _require_dps(op: Operation) -> None:
    if op.results:
        raise PtoError.at_op(
            op, "expects DPS form before lowering (run pto-ssa-to-dps first)"
        )


class _TablePattern(RewritePattern):
    """A pattern driven by one target's lowering table."""

    def __init__(self, lowering: TargetLowering):
        self.lowering = lowering


class LowerMGather(_TablePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MGatherOp, rewriter: PatternRewriter) -> None:
        _require_dps(op)
        cls, props = self.lowering.choose(op)
        props |= {"coalesce": op.coalesce, "oob": GatherOobAttr(op.oob)}
        rewriter.replace(op, cls.create_from(op, op.ins, op.outs, **_attrs(props)), [])


class LowerTGather(_TablePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TGatherOp, rewriter: PatternRewriter) -> None:
        _require_dps(op)
        cls, props = self.lowering.choose(op)
        if op.form == TGatherForm.MASK:
            assert op.mask_pattern is not None
            props = {"pattern": op.mask_pattern, "axis": MaskAxis(op.mask_axis), "packing": Packing.DENSE} | props
        elif op.form == TGatherForm.COMPARE:
            props |= {
                "cmp_mode": op.cmp_mode or CmpModeAttr(CmpMode.EQ),
                "offset": IntegerAttr(op.offset.value.data if op.offset is not None else 0, 64),
            }
        rewriter.replace(op, cls.create_from(op, op.ins, op.outs, **_attrs(props)), [])


class LowerTColArgMin(_TablePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TColArgMinOp, rewriter: PatternRewriter) -> None:
        _require_dps(op)
        cls, props = self.lowering.choose(op)
        rewriter.replace(op, cls.create_from(op, op.ins, op.outs, **_attrs(props)), [])


class RecordTLoadChoices(_TablePattern):
    """A pto.tload keeps its op and records the target's choices as attributes."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TLoadOp, rewriter: PatternRewriter) -> None:
        choices = _attrs(self.lowering.tload(op))
        if any(op.attributes.get(k) != v for k, v in choices.items()):
            op.attributes.update(choices)
            rewriter.notify_op_modified(op)


def _attrs(props: dict) -> dict:
    """Choices in a lowering table become their `#pto_choice` attributes, ints i64."""
    out = {}
    for k, v in props.items():
        if isinstance(v, bool):
            raise TypeError(k)
        out[k] = choice(v) if isinstance(v, Choice) else IntegerAttr(v, 64) if isinstance(v, int) else v
    return out


def patterns(lowering: TargetLowering) -> list[RewritePattern]:
    return [
        *lowering.extra_patterns,
        LowerMGather(lowering),
        LowerTGather(lowering),
        LowerTColArgMin(lowering),
        RecordTLoadChoices(lowering),
    ]

