"""
Print docs/instructions.md from the instruction registry and each target's lowering, so the
docs cannot drift from the code: `python -m targets.instructions_doc > docs/instructions.md`
(tests/test_rules_docs.py checks the file is current). For each instruction: what it
computes and where the targets differ (its module's docstring), the ops each target lowers
it to, and the choices those ops record with what each value means.
"""

from __future__ import annotations

import inspect
import sys

import targets
from pto_dialect.choices import ChoiceAttr
from pto_dialect.instructions import REGISTRY

HEADER = """\
# Instructions

Generated from the instruction registry (`pto_dialect/instructions/`) and each target's
lowering (`targets/<name>/lowering.py`) by `python -m targets.instructions_doc`; do not edit.
What each target accepts: `docs/verification.md`. What a target's lowering chose for a given
op is printed on the lowered op (`pto-opt K.pto --target T -p pto-lower`), and
`pto-run --targets all` names the choices that differ where results do.
"""


def _lowered_classes(instruction, target: targets.TargetInfo) -> list[type]:
    """The target's lowered ops of the instruction."""
    return [op for op in target.dialect.operations if issubclass(op, instruction.lowered)]


def _lowered_ops(instruction, target: targets.TargetInfo) -> list[str]:
    ops = _lowered_classes(instruction, target)
    if not instruction.lowered:
        return [f"`{instruction.name}` stays, recording its choices as attributes"]
    if not ops:
        return ["none (the target rejects it)"]
    return [f"`{op.name}`" + (f" ({_first_line(op).rstrip('.')})" if op.__doc__ and op.__doc__ != _base_doc(op) else "") for op in ops]


def _first_line(cls: type) -> str:
    return (inspect.getdoc(cls) or "").splitlines()[0]


def _base_doc(op: type) -> str | None:
    return op.__mro__[1].__doc__


def _choices(instruction) -> list[str]:
    """Each choice property of the instruction's lowered ops (or of its own op's lowering), once."""
    kinds = set(ChoiceAttr.KINDS.values())
    seen: dict[str, type] = {}
    for op in _ops_of(instruction):
        for name, prop in op.get_irdl_definition().properties.items():
            for kind in prop.constr.get_bases() or ():
                if kind in kinds:
                    seen.setdefault(name, kind)
    lines = []
    for name, kind in seen.items():
        values = "; ".join(f"`{c.value}`: {c.phrase}" for c in kind.enum_type)  # pyright: ignore[reportAttributeAccessIssue]
        lines.append(f"- `{name}` ({kind.name.removeprefix('pto_choice.')}): {values}")
    return lines


def _ops_of(instruction) -> list[type]:
    """Every target's lowered ops of the instruction."""
    return [op for t in targets.REGISTRY for op in _lowered_classes(instruction, t)]


def render() -> str:
    out = [HEADER]
    described: dict[str, str] = {}
    for instruction in REGISTRY:
        module = instruction.op.__module__
        out.append(f"\n## `{instruction.name}`\n")
        if module in described:
            out.append(f"See `{described[module]}`.\n")
        else:
            described[module] = instruction.name
            out.append((inspect.getdoc(sys.modules[module]) or "").strip() + "\n")
        if instruction.summary:
            out.append(f"Computes: `{instruction.summary}`.\n")
        if approximate := {t.name: why for t in targets.REGISTRY if (why := t.lowering.approximate.get(instruction))}:
            out.append("Approximate (a hardware intrinsic no public code fixes): " + "; ".join(
                f"{t}, the interpreter computing {why}" for t, why in approximate.items()) + ".\n")
        out.append("Lowered ops:\n")
        for target in targets.REGISTRY:
            out.append(f"- {target.name}: " + "; ".join(_lowered_ops(instruction, target)))
        if choices := _choices(instruction):
            out.append("\nChoices they record:\n")
            out += choices
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(render(), end="")
