"""
In-place instructions: may an output exactly alias an input (the same tile, or another
tile at the same address with the same shape, layout and element size), or, where an
instruction says so, lie forward over it (narrower elements at the same address)? Each
instruction's `in_place` says so per form (pto_dialect/instruction.py InPlace); every
other alias is rejected, saying why. Read by the verifier (the same value as input and
output) and by the address checks (two tiles at one address, passes/memory_plan.py).
"""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING

from xdsl.ir import Operation, SSAValue

from pto_dialect.instructions import REGISTRY, instruction_of
from pto_dialect.ops.common import PtoInstructionOp
from pto_dialect.types import TileTypeBase

if TYPE_CHECKING:
    from targets.info import TargetInfo


def exact_alias(a: TileTypeBase, b: TileTypeBase) -> bool:
    """Two tiles at one address hold element (r, c) at the same bytes."""
    return (a.shape, a.element.bytes, a.blayout, a.slayout, a.fractal) == (
        b.shape, b.element.bytes, b.blayout, b.slayout, b.fractal
    )


class Alias(Enum):
    """How an output tile lies over an input's bytes."""

    EXACT = "exact"
    """Element (r, c) of both at the same bytes (exact_alias at one address)."""
    FORWARD = "forward"
    """At one address, each output element at or before the bytes of the input's (forward_alias)."""
    LEADING = "leading"
    """At one address, a smaller output's element (r, c) at the bytes of the input's (leading_alias)."""
    OTHER = "other"


def forward_alias(written: TileTypeBase, read: TileTypeBase) -> bool:
    """At one address, element (r, c) of `written` starts at or before that of `read` and ends
    before the next element of `read`: same shape and layouts without fractal boxes, elements
    no wider."""
    w, r = written.params, read.params
    return (
        w.slayout == r.slayout == "none_box"
        and (w.shape, w.blayout) == (r.shape, r.blayout)
        and written.element.bytes <= read.element.bytes
    )


def leading_alias(written: TileTypeBase, read: TileTypeBase) -> bool:
    """At one address, element (r, c) of `written` at the bytes of element (r, c) of `read`, and
    `written` no larger: the same element size, row-major without fractal boxes, and one row or
    the same row length."""
    w, r = written.params, read.params
    (w_rows, w_cols), (r_rows, r_cols) = written.shape, read.shape
    return (
        w.slayout == r.slayout == "none_box"
        and w.blayout == r.blayout == "row_major"
        and written.element.bytes == read.element.bytes
        and w_rows <= r_rows and w_cols <= r_cols and (w_rows == 1 or w_cols == r_cols)
    )


def _role(op: Operation, value: SSAValue, output: bool) -> str:
    """The role `value` plays as an output (or input) of `op`."""
    if isinstance(op, PtoInstructionOp):
        ins_roles, out_roles = op.role_lists()
        roles, values = (out_roles, op.destinations) if output else (ins_roles, op.ins)
        for role, v in zip(roles, values):
            if v is value:
                return role
    return "an operand"


def in_place_refusal(op: Operation, read: SSAValue, written: SSAValue, target: TargetInfo, laid: Alias) -> str | None:
    """None when `target` computes `op` correctly with `written` laid over `read` as `laid`
    says; otherwise why not (for a message)."""
    instruction = instruction_of(op)
    rules = instruction.in_place.get(instruction.form(op)) if instruction is not None else None
    if rules is None:
        return f"{op.name} does not compute in place"
    form = instruction.form(op)  # pyright: ignore[reportOptionalMemberAccess]
    read_role = _role(op, read, output=False)
    what = f"{instruction.mnemonic} {form} {_role(op, written, output=True)} over {read_role}".replace("  ", " ")  # pyright: ignore[reportOptionalMemberAccess]
    if laid in (Alias.LEADING, Alias.EXACT) and rules.leading is not None and read_role == "src" not in rules.safe:
        why = rules.leading(op)
        return None if why is None else f"{what}'s leading elements is not computed right: {why}"
    if read_role not in rules.safe:
        return f"{what} is not computed in place: {rules.refused}"
    if rules.refused_by is not None and (why := rules.refused_by(target.rules[instruction])):  # pyright: ignore[reportOptionalMemberAccess]
        return f"{what} is not computed in place: {why}"
    if laid is Alias.FORWARD and rules.forward:
        return None
    if laid is not Alias.EXACT:
        forward = " nor a forward one (narrower dst elements at src's address)" if rules.forward else ""
        return f"{what} is not an exact alias (another shape, layout or element size){forward}"
    return None


def describe() -> list[tuple[str, str]]:
    """Rows of the docs table: each instruction form, the aliases computed in place and why."""
    rows = []
    for instruction in REGISTRY:
        for form, rules in instruction.in_place.items():
            safe = ", ".join(f"dst over {role}" for role in sorted(rules.safe)) or "none"
            forward = f" Narrower dst elements at src's address: {rules.forward}" if rules.forward else ""
            leading = f" A smaller dst over src's leading elements: {rules.leading_how}" if rules.leading_how else ""
            rows.append((f"{instruction.mnemonic} {form}".strip(), f"{safe}: {rules.how or rules.refused}{forward}{leading}"))
    return rows
