"""`pto-verify-target`: check every pto op against its target's rule table."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from pto_dialect.walk import clone, walk

from pto_dialect.diagnostics import PtoError, op_location
from pto_dialect.types import TileTypeBase

import targets
from targets.info import MEMORY_NAMES


def rule_violations(module: Operation, target: targets.TargetInfo) -> Iterator[PtoError]:
    """A located error for each op that `target`'s rule tables reject, or that defines a tile
    larger than its memory on `target`, in program order."""
    from targets.rules import RuleViolation, check_op  # imported when the pass runs: --help lists the passes without it

    past_storage = []
    for op in walk(module):
        if (outside := _boxes_past_storage(op)) is not None:
            past_storage.append(outside)
        if (too_large := _tile_size_error(op, target)) is not None:
            yield too_large
        try:
            check_op(op, target)
        except RuleViolation as e:
            # the one place a rule's message names its target: the rule tables' messages never do
            yield PtoError.at_op(op, f"{e} (target {target})")
    # after the instructions' rules, which say more of the layouts they take
    yield from past_storage


def verify_target(module: Operation, target: str | targets.TargetInfo) -> None:
    """Raise a PtoError located at the first op that `target` would reject."""
    for error in rule_violations(module, targets.get(target)):
        raise error


def _tile_size_error(op: Operation, target: targets.TargetInfo) -> PtoError | None:
    """A tile the op defines (result or block argument) larger than its memory on `target`."""
    values = [*op.results, *(arg for region in op.regions for block in region.blocks for arg in block.args)]
    for value in values:
        tile = value.type
        if not isinstance(tile, TileTypeBase):
            continue
        loc = tile.loc.data
        capacity = target.tile_capacity(loc)
        if capacity is not None and tile.size_bytes > capacity:
            return PtoError.at_op(
                op,
                f"{_argument(value)}{loc} tile of {tile.size_bytes} bytes exceeds the {capacity} bytes of "
                f"{MEMORY_NAMES[loc]} (target {target})",
            )
    return None


def _boxes_past_storage(op: Operation) -> PtoError | None:
    """A tile the op defines (a function argument too, which no op's own verifier sees) whose
    shape pto_tile.hpp's Tile static_asserts against, or whose boxes do not tile its shape so that
    an element lies past its storage (pto-isa's offsets for a vec tile of 8 rows in 16-row boxes):
    no target holds it."""
    values = [*op.results, *(arg for region in op.regions for block in region.blocks for arg in block.args)]
    for value in values:
        tile = value.type
        if isinstance(tile, TileTypeBase) and (problem := tile.params.box_shape_problem()) is not None:
            expected, why = problem
            return PtoError.at_op(op, f"{_argument(value)}expects {expected} ({tile}): {why}")
        if isinstance(tile, TileTypeBase) and (outside := tile.params.element_outside_storage()) is not None:
            (r, c, at), (br, bc) = outside, tile.inner_box or (0, 0)
            return PtoError.at_op(
                op,
                f"{_argument(value)}places element [{r}, {c}] of {tile} at storage element {at}, past its {tile.rows.data * tile.cols.data}: "
                f"the {br}x{bc} boxes of slayout={tile.slayout.data} must tile its {tile.rows.data}x{tile.cols.data} shape",
            )
    return None


def _argument(value: SSAValue) -> str:
    """`argument 0 (%t): ` for a block argument (of a function, a loop body), which the error is
    located at the op of; nothing for an op's result."""
    if not isinstance(value, BlockArgument):
        return ""
    return f"argument {value.index} ({'%' + value.name_hint if value.name_hint else 'unnamed'}): "


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
        verify_target(op, targets.resolve(self.target, op))


def rejections(module: ModuleOp, target: targets.TargetInfo) -> list[PtoError]:
    """Everything `target` rejects in the module: each op its rule tables reject; when they
    accept it, the first error of the whole pipeline (memory plan, lowering) on a copy."""
    from passes.pipeline import PipelinePass

    found = list(rule_violations(module, target))
    if not found:
        try:
            PipelinePass(target.name).apply(Context(), clone(module))
        except PtoError as e:
            found.append(e)
    return found


def verdict_matrix(
    module: ModuleOp, chosen: Sequence[targets.TargetInfo]
) -> tuple[str, list[targets.TargetInfo]]:
    """`pto-opt --targets`: one row per rejected op (where, which op), one column per target,
    each cell `ok` or the rule's message; and the targets that accept the module."""
    names = [t.name for t in chosen]
    rows: dict[tuple[str, str], dict[str, str]] = {}
    for target in chosen:
        for error in rejections(module, target):
            where = op_location(error.op) or "?"
            what = error.op.name if error.op is not None else ""
            message = error.message.removesuffix(f" (target {target})")
            rows.setdefault((where, what), {})[target.name] = message
    if not rows:
        return f"accepted by every target ({', '.join(names)})\n", list(chosen)
    lines = ["| op | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for (where, what), cells in rows.items():
        lines.append(f"| {where} {what} | " + " | ".join(cells.get(n, "ok").replace("|", "\\|") for n in names) + " |")
    rejecting = [n for n in names if any(n in cells for cells in rows.values())]
    accepting = [n for n in names if n not in rejecting]
    lines.append(f"rejected by: {', '.join(rejecting)}" + (f"; accepted by: {', '.join(accepting)}" if accepting else ""))
    return "\n".join(lines) + "\n", [t for t in chosen if t.name in accepting]
