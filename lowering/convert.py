"""
The rewrite patterns of `pto-lower{target=T}`, driven by a target's lowering
table (`lowering/<target>.py` provides `LOWERING: TargetLowering`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from pto_dialect.attributes import CmpMode, CmpModeAttr, GatherOobAttr
from pto_dialect.diagnostics import PtoError
from pto_dialect.ops import MGatherOp, TColArgMinOp, TGatherForm, TGatherOp

from lowering.common import LoweredOp, i64

@dataclass(frozen=True)
class TargetLowering:
    """How one target lowers each pto instruction: which op, with which properties."""

    target: str
    mgather: Callable[[MGatherOp], tuple[type[LoweredOp], dict]]
    tgather: Callable[[TGatherOp], tuple[type[LoweredOp], dict]]
    tcolargmin: Callable[[TColArgMinOp], tuple[type[LoweredOp], dict]]
    extra_patterns: tuple[RewritePattern, ...] = ()
    """Target patterns tried before the table-driven ones (e.g. a5's register gather)."""


def _require_dps(op: Operation) -> None:
    if op.results:
        raise PtoError.at_op(
            op, "expects DPS form before lowering (run pto-ssa-to-dps first)"
        )


class LowerMGather(RewritePattern):
    def __init__(self, lowering: TargetLowering):
        self.lowering = lowering

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MGatherOp, rewriter: PatternRewriter) -> None:
        _require_dps(op)
        cls, props = self.lowering.mgather(op)
        props |= {"coalesce": op.coalesce, "oob": GatherOobAttr(op.oob)}
        rewriter.replace(op, cls.create_from(op, op.ins, op.outs, **_attrs(props)), [])


class LowerTGather(RewritePattern):
    def __init__(self, lowering: TargetLowering):
        self.lowering = lowering

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TGatherOp, rewriter: PatternRewriter) -> None:
        _require_dps(op)
        cls, props = self.lowering.tgather(op)
        if op.form == TGatherForm.MASK:
            assert op.mask_pattern is not None
            props = {"pattern": op.mask_pattern, "axis": StringAttr(op.mask_axis), "packing": "dense"} | props
        elif op.form == TGatherForm.COMPARE:
            props |= {
                "cmp_mode": op.cmp_mode or CmpModeAttr(CmpMode.EQ),
                "offset": i64(op.offset.value.data if op.offset is not None else 0),
            }
        rewriter.replace(op, cls.create_from(op, op.ins, op.outs, **_attrs(props)), [])


class LowerTColArgMin(RewritePattern):
    def __init__(self, lowering: TargetLowering):
        self.lowering = lowering

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TColArgMinOp, rewriter: PatternRewriter) -> None:
        _require_dps(op)
        cls, props = self.lowering.tcolargmin(op)
        rewriter.replace(op, cls.create_from(op, op.ins, op.outs, **_attrs(props)), [])


def _attrs(props: dict) -> dict:
    """Plain ints and strs in a lowering table become i64 / string attributes."""
    out = {}
    for k, v in props.items():
        if isinstance(v, bool):
            raise TypeError(k)
        out[k] = i64(v) if isinstance(v, int) else StringAttr(v) if isinstance(v, str) else v
    return out


def patterns(lowering: TargetLowering) -> list[RewritePattern]:
    return [
        *lowering.extra_patterns,
        LowerMGather(lowering),
        LowerTGather(lowering),
        LowerTColArgMin(lowering),
    ]

