"""
What every target's lowering table (`targets/<name>/lowering.py`) builds alike: each target
passes its own rules, functions and choices, and lists the entries whose shape is its own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

from xdsl.pattern_rewriter import RewritePattern

from lowering.convert import Lowered, TargetLowering, TargetOps
from pto_dialect.choices import BroadcastDivisor, Capacity, Choice, ExtremeNan, IndexRead, PartFill, ReduceOrder, Stride, VectorRead
from pto_dialect.family import Family
from pto_dialect.instruction import Instruction
from pto_dialect.instructions.broadcast import broadcast_choices, BroadcastRules, COL_BROADCASTS, row_broadcast_choices, ROW_BROADCASTS
from pto_dialect.instructions.compare import COMPARE_SELECT
from pto_dialect.instructions.elementwise import BINARY, FILL, TILE_SCALAR
from pto_dialect.instructions.mgather import MGATHER
from pto_dialect.instructions.mscatter import MSCATTER
from pto_dialect.instructions.partial import filling, PARTIAL
from pto_dialect.instructions.partial_arg import PARTIAL_ARG
from pto_dialect.instructions.reduction import COL_REDUCTIONS, reduction_choices, ROW_REDUCTIONS
from pto_dialect.instructions.tgather import TGATHER
from pto_dialect.instructions.tprint import print_lowering, TPrintRules
from pto_dialect.instructions.transfer import transfer_lowering, TransferRules
from pto_dialect.instructions.tscatter import TSCATTER
from pto_dialect.lowered import LoweredOp
from pto_dialect.ops.common import PtoInstructionOp

Entries = dict[Instruction, Callable[[Any], Lowered]]
"""Lowering-table entries (lowering/convert.py TargetLowering.table)."""
Choose = Callable[[Any, PtoInstructionOp], Mapping[str, Choice]]
"""A family's `choose` (lowering/convert.py TargetOps.family)."""


Forms = Mapping[Any, Lowered | Callable[[Any], Lowered]]
"""How a target lowers each form of a many-form instruction (TGATHER, TSCATTER): a fixed entry,
or a function of the op; a form it lacks has no lowering there."""


def lowering_table(
    target: str,
    ops: TargetOps,
    transfer: TransferRules,
    printing: TPrintRules,
    gathers: tuple[Callable[[Any], Lowered], Callable[[Any], Lowered], Forms, Forms],
    compare_select: Choose,
    partial_arg: Choose,
    entries: Entries,
    extra_patterns: tuple[RewritePattern, ...] = (),
) -> TargetLowering:
    """A target's table: TLOAD / TSTORE and TPRINT from its rules, its MGATHER and MSCATTER
    functions and TGATHER and TSCATTER forms (`gathers`), TEXPANDS, the compare-select and
    partial arg-select families by their `choose`, then `entries`."""
    mgather, mscatter, tgather_forms, tscatter_forms = gathers
    table: Entries = {
        **transfer_lowering(transfer),
        MGATHER: mgather,
        MSCATTER: mscatter,
        TGATHER: lambda op: _form(tgather_forms, op),
        TSCATTER: lambda op: _form(tscatter_forms, op),
        **print_lowering(printing),
        **ops.family(FILL),
        **ops.family(COMPARE_SELECT, compare_select),
        **ops.family(PARTIAL_ARG, partial_arg),
        **entries,
    }
    return TargetLowering(target, table, extra_patterns, approximate=ops.approximate)


def _form(forms: Forms, op: Any) -> Lowered:
    """The entry of `op`'s form (None where the target lacks the form)."""
    entry = forms.get(op.form)
    return entry(op) if callable(entry) else entry


GM_INDEX_U32 = {"index_read": IndexRead.UNSIGNED_32}
"""How a2a3's and a5's MGATHER and MSCATTER read an index: as a 32-bit unsigned number."""


def mgather_to_l1(row: bool, row_op: type[LoweredOp], elem_op: type[LoweredOp]) -> Lowered:
    """An MGATHER into an L1 tile, alike on a2a3 and a5 (pto_dialect/instructions/mgather.py): a
    row-mode index bounded by Shape[0]*...*Shape[3], rows read at Stride[3]; an elem-mode index
    by all table elements."""
    if row:
        return row_op, GM_INDEX_U32 | {"capacity": Capacity.S0_TO_S3, "row_stride": Stride.T3}
    return elem_op, GM_INDEX_U32 | {"capacity": Capacity.ALL_ELEMENTS}


def reductions(ops: TargetOps, row: ReduceOrder, col: ReduceOrder, nan: ExtremeNan, approximate: Mapping[str, str] = {}) -> Entries:
    """Both reduction families: the order a row (`row`) and a column (`col`) is combined in, what
    max / min give for NaN; `approximate`: the members (of either) whose values no public code fixes."""
    return {
        **ops.family(ROW_REDUCTIONS, lambda member, op: reduction_choices(member, row, nan), _within(ROW_REDUCTIONS, approximate)),
        **ops.family(COL_REDUCTIONS, lambda member, op: reduction_choices(member, col, nan), _within(COL_REDUCTIONS, approximate)),
    }


def broadcasts(
    ops: TargetOps, rules: Mapping[Instruction, object], row: VectorRead, col: VectorRead, nan: ExtremeNan,
    divisor: BroadcastDivisor, approximate: Mapping[str, str],
) -> Entries:
    """Both broadcast families: where a row (`row`) and a column broadcast (`col`) read their
    per-row operand, what max / min give for NaN, what a zero divisor gives; a row broadcast's
    full operand from the target's rule row of it in `rules` (its RULES); `approximate` as above."""
    row_rules = {member.mnemonic: cast(BroadcastRules, rules[instruction]) for member, instruction in ROW_BROADCASTS}
    return {
        **ops.family(ROW_BROADCASTS, lambda member, op: row_broadcast_choices(member, row_rules[member.mnemonic], op, row, nan, divisor),
                     _within(ROW_BROADCASTS, approximate)),
        **ops.family(COL_BROADCASTS, lambda member, op: broadcast_choices(member, col, nan, divisor), _within(COL_BROADCASTS, approximate)),
    }


def arithmetic(ops: TargetOps, choose: Choose, part_fill: PartFill, approximate: Mapping[str, str] = {}) -> Entries:
    """The binary, tile-scalar and partial families: one `choose` for their operations, the
    partial family filling by `part_fill`; `approximate` as above."""
    return {
        **ops.family(BINARY, choose, _within(BINARY, approximate)),
        **ops.family(TILE_SCALAR, choose, _within(TILE_SCALAR, approximate)),
        **ops.family(PARTIAL, filling(part_fill, choose), _within(PARTIAL, approximate)),
    }


def _within(family: Family, approximate: Mapping[str, str]) -> dict[str, str]:
    """The entries of `approximate` that name members of `family`."""
    members = {row.mnemonic for row in family.rows}
    return {mnemonic: why for mnemonic, why in approximate.items() if mnemonic in members}
