"""
In-place instructions: which input may the output exactly alias (the same tile, or
another tile at the same address with the same shape, layout and element size),
per instruction form and target, decided from pto-isa's code. Safe means the code
reads every element of that input before it writes the output element over it;
the interpreter then computes the aliased op exactly as the hardware does (each
output element from the input values read before the op). Every other alias is
rejected, saying why. Read by the verifier (the same value as input and output)
and by the address checks (two tiles at one address, passes/memory_plan.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from typing import TYPE_CHECKING

from xdsl.ir import Operation, SSAValue

from pto_dialect.ops import MGatherOp, TColArgMinOp, TGatherForm, TGatherOp
from pto_dialect.types import TileTypeBase

if TYPE_CHECKING:
    from targets.info import TargetInfo


@dataclass(frozen=True)
class InPlaceRules:
    """One target's row: per instruction form, the input roles its output may exactly alias."""

    safe: dict[str, frozenset[str]]
    note: str
    """How the target's code reads those inputs before writing over them."""


UNSAFE_WHY: dict[str, str] = {
    "mgather elem": "only dst over idx is computed in place.",
    "mgather row": "a dst row (Cols elements) is wider than an index: writing row r overwrites "
    "indices of later rows before they are read.",
    "tgather index": "only dst over indices is computed in place: any src element may be read "
    "after its bytes were written.",
    "tgather mask": "only dst over src is computed in place.",
    "tgather compare": "not shown safe by the code (dst, cdst and tmp are written while src is "
    "scanned): rejected.",
    "tcolargmin": "not shown safe by the code (running results are written while later src rows "
    "are read): rejected.",
}
"""Why an alias outside a target's safe roles is refused, per instruction form."""


def _form_and_roles(op: Operation) -> tuple[str, list[str], list[str]] | None:
    """The instruction form of `op` and the roles of its inputs and outputs, in order."""
    if isinstance(op, MGatherOp) and op.coalesce is not None:
        return f"mgather {op.coalesce.data.value}", ["mem", "idx", "scratch"], ["dst"]
    if isinstance(op, TGatherOp):
        names = {TGatherForm.INDEX: ["src", "indices", "tmp"], TGatherForm.MASK: ["src"],
                 TGatherForm.COMPARE: ["src", "k", "tmp"]}[op.form]
        return f"tgather {op.form}", names, ["dst", "cdst"]
    if isinstance(op, TColArgMinOp):
        return "tcolargmin", ["src", "tmp"], ["dstIdx", "dstVal"]
    return None


def _role(values: Sequence[SSAValue], roles: list[str], value: SSAValue) -> str:
    return next((r for v, r in zip(values, roles) if v is value), "an operand")


def exact_alias(a: TileTypeBase, b: TileTypeBase) -> bool:
    """Two tiles at one address hold element (r, c) at the same bytes."""
    return (a.shape, a.element.bytes, a.blayout, a.slayout, a.fractal) == (
        b.shape, b.element.bytes, b.blayout, b.slayout, b.fractal
    )


def in_place_refusal(op: Operation, read: SSAValue, written: SSAValue, target: TargetInfo, exact: bool) -> str | None:
    """None when `target` computes `op` correctly with `written` laid exactly over `read`;
    otherwise why not (for a message)."""
    found = _form_and_roles(op)
    if found is None:
        return f"{op.name} does not compute in place"
    form, in_roles, out_roles = found
    read_role = _role(getattr(op, "ins"), in_roles, read)
    what = f"{form} {_role(getattr(op, 'destinations'), out_roles, written)} over {read_role}"
    if read_role not in target.in_place.safe.get(form, frozenset()):
        return f"{what} is not computed in place on target {target}: {UNSAFE_WHY[form]}"
    if not exact:
        return f"{what} is not an exact alias (another shape, layout or element size)"
    return None


def describe(t: dict[str, InPlaceRules]) -> list[tuple[str, dict[str, str]]]:
    rows = [
        (form, {name: ", ".join(f"dst over {role}" for role in sorted(r.safe.get(form, ()))) or "none"
                for name, r in t.items()})
        for form in UNSAFE_WHY
    ]
    rows.append(("why (safe)", {name: r.note for name, r in t.items()}))
    rows.append(("why (rejected)", {name: " ".join(f"{form}: {why}" for form, why in UNSAFE_WHY.items()) for name in t}))
    return rows
