"""
One kernel on several targets: where does it behave differently?

    report = interpreter.compare("k.pto", targets="all", args=[table, ids, out])
    print(report.text())

Each target that accepts the kernel runs it on copies of the same arguments. The
report holds each target's verdict and outputs, per argument whether all targets
agree bit for bit (NaN equal to NaN) and where they differ, and the first op, in
execution order, whose writes differ between targets, with the lowered choices
that differ for it (read from the lowered ops' `#pto_choice` attributes).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter, PythonValues
from xdsl.ir import Operation

import pto_dialect
from pto_dialect.diagnostics import PtoError, op_location
from pto_dialect.choices import choices_of
from pto_dialect.dtypes import FLOAT_DTYPE_NAMES
from pto_dialect.machine import GmView, Tile
from pto_dialect.ops.common import writes as declares_write
from targets import get as get_target
from targets import parse_list

from interpreter.lowered import runs_kernel, source_name
from passes.estimate import CostReport

SHOWN_POSITIONS = 5
"""Differing positions listed per argument."""


@dataclass(frozen=True)
class Verdict:
    target: str
    ran: bool
    error: str | None = None
    """The located error that stopped this target (rejected kernel or run-time fault)."""


@dataclass(frozen=True)
class Difference:
    """One output argument compared across the targets that ran."""

    name: str
    differing: int
    """Elements whose value is not the same on every target (0: all agree)."""
    positions: list[tuple[tuple[int, ...], dict[str, object]]]
    """The first differing positions, each with every target's value."""


@dataclass(frozen=True)
class DivergentOp:
    """The first executed op whose writes differ between targets."""

    location: str
    name: str
    choices: list[str]
    """Each lowered choice that differs for it, as `phrase (targets) / phrase (targets)`."""

    def text(self) -> str:
        head = f"{self.location} {self.name}"
        if not self.choices:
            return f"{head} (no lowered choice differs)"
        return "\n".join([f"{head}: {self.choices[0]}", *(f"  and {c}" for c in self.choices[1:])])


@dataclass
class Report:
    verdicts: dict[str, Verdict]
    outputs: dict[str, list[np.ndarray]] = field(default_factory=dict)
    """Each target's final argument contents."""
    results: dict[str, list[np.ndarray]] = field(default_factory=dict)
    """Each target's function results."""
    differences: list[Difference] = field(default_factory=list)
    first_divergent_op: DivergentOp | None = None
    profiles: dict[str, CostReport] = field(default_factory=dict)
    """With `profile`: what ran on each target that ran (interpreter/profile.py)."""

    @property
    def agree(self) -> bool:
        """Every target ran and all outputs agree."""
        return all(v.ran for v in self.verdicts.values()) and not any(d.differing for d in self.differences)

    def text(self) -> str:
        lines = []
        for v in self.verdicts.values():
            lines.append(f"{v.target}: ran" if v.ran else f"{v.target}: did not run: {v.error}")
        ran = [t for t, v in self.verdicts.items() if v.ran]
        for d in self.differences:
            if not d.differing:
                lines.append(f"{d.name}: all targets agree ({', '.join(ran)})")
                continue
            lines.append(f"{d.name}: {d.differing} elements differ")
            for position, values in d.positions:
                shown = ", ".join(f"{t}={v}" for t, v in values.items())
                lines.append(f"  [{', '.join(map(str, position))}]: {shown}")
        if self.first_divergent_op is not None:
            lines.append(f"first divergent op: {self.first_divergent_op.text()}")
        if len(ran) > 1 and not any(d.differing for d in self.differences):
            lines.append(f"the targets that ran agree bit for bit ({', '.join(ran)})")
        return "\n".join(lines) + "\n"


@dataclass
class _Write:
    """One executed op that writes memory: where it is, and a digest of what it wrote."""

    location: str
    name: str
    digest: bytes
    op: Operation


class _WriteRecorder(Interpreter.Listener):
    """Records, in execution order, each op that writes a tile or GM view and what it wrote."""

    def __init__(self) -> None:
        self.writes: list[_Write] = []
        self._pending: PythonValues = ()

    def will_interpret_op(self, op: Operation, args: PythonValues) -> None:
        self._pending = args

    def did_interpret_op(self, op: Operation, results: PythonValues) -> None:
        written = _written(op, self._pending)
        if written is None:
            return
        digest = hashlib.blake2b(digest_size=16)
        for value in written:
            data = value.read_valid() if isinstance(value, Tile) else value.read2d()
            digest.update(str(data.shape).encode())
            digest.update(np.ascontiguousarray(data).tobytes())
        self.writes.append(_Write(op_location(op) or "?", source_name(op), digest.digest(), op))


def _written(op: Operation, args: PythonValues) -> list[Tile | GmView] | None:
    """The runtime values an op writes (its outs), or None for an op that writes no memory."""
    if not runs_kernel(op):
        return None
    first_output = len(getattr(op, "ins", ()))  # a workspace input (tmp) is scratch, not an output
    written = [
        a for i, (v, a) in enumerate(zip(op.operands, args))
        if i >= first_output and declares_write(op, v) and isinstance(a, Tile | GmView)
    ]
    return written or None


def compare(
    module_or_path: ModuleOp | str | Path,
    targets: str | Sequence[str] = "all",
    args: Sequence[np.ndarray] = (),
    entry: str | None = None,
    profile: bool = False,
) -> Report:
    """Run the kernel on each target (`"all"`, `"cpu,a5"` or a list of names) and compare;
    with `profile`, also count what runs on each (`Report.profiles`)."""
    from interpreter import run_with_results
    from interpreter.profile import Profiler

    module = module_or_path if isinstance(module_or_path, ModuleOp) else pto_dialect.load(module_or_path)
    chosen = parse_list(targets) if isinstance(targets, str) else tuple(get_target(t) for t in targets)
    report = Report({})
    recorded: dict[str, list[_Write]] = {}
    for target in chosen:
        recorder = _WriteRecorder()
        profiler = Profiler(target) if profile else None
        try:
            outputs, results = run_with_results(module, target.name, args, entry, listeners=[recorder], profiler=profiler)
        except PtoError as e:
            report.verdicts[target.name] = Verdict(target.name, False, e.text)
            continue
        if profiler is not None:
            report.profiles[target.name] = profiler.report()
        report.verdicts[target.name] = Verdict(target.name, True)
        report.outputs[target.name], report.results[target.name] = outputs, results
        recorded[target.name] = recorder.writes
    for kind, per_target in (("arg", report.outputs), ("result", report.results)):
        if per_target:
            count = len(next(iter(per_target.values())))
            report.differences += [_difference(f"{kind}{i}", {t: o[i] for t, o in per_target.items()}) for i in range(count)]
    if len(recorded) > 1:
        report.first_divergent_op = _first_divergent_op(recorded)
    return report


def _difference(name: str, per_target: dict[str, np.ndarray]) -> Difference:
    arrays = list(per_target.values())
    same = np.ones(arrays[0].shape, dtype=bool)
    for other in arrays[1:]:
        same &= _same_values(arrays[0], other)
    where = np.argwhere(~same)
    positions = [
        (tuple(int(i) for i in p), {t: a[tuple(p)].item() for t, a in per_target.items()})
        for p in where[:SHOWN_POSITIONS]
    ]
    return Difference(name, int(where.shape[0]), positions)


def _same_values(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Equal bit patterns, or both NaN."""
    bits = np.dtype(f"u{a.dtype.itemsize}") if a.dtype.itemsize in (1, 2, 4, 8) else None
    same = a.view(bits) == b.view(bits) if bits is not None else a == b
    if a.dtype.name in FLOAT_DTYPE_NAMES:
        same |= np.isnan(a.astype(np.float32)) & np.isnan(b.astype(np.float32))
    return same


def _first_divergent_op(recorded: dict[str, list[_Write]]) -> DivergentOp | None:
    sequences = list(recorded.values())
    for writes in zip(*sequences):
        if len({w.digest for w in writes}) > 1 or len({w.location for w in writes}) > 1:
            first = writes[0]
            ops = {t: seq_write.op for t, seq_write in zip(recorded, writes)}
            return DivergentOp(first.location, first.name, _differing_choices(ops))
    return None


def _differing_choices(ops: dict[str, Operation]) -> list[str]:
    per_target = {t: choices_of(op) for t, op in ops.items()}
    names = dict.fromkeys(n for c in per_target.values() for n in c)
    out = []
    for name in names:
        phrases = {t: c[name].phrase if name in c else "none" for t, c in per_target.items()}
        if len(set(phrases.values())) > 1:
            # a kind of choice the op records twice (row and col stride): say which one
            kind = next(type(c[name]) for c in per_target.values() if name in c)
            twice = any(sum(type(v) is kind for v in c.values()) > 1 for c in per_target.values())
            subject = f"{name.replace('_', ' ')}: " if twice else ""
            out.append(subject + _grouped(phrases))
    return out


def _grouped(phrases: dict[str, str]) -> str:
    """`index read as 64-bit signed (cpu) / 32-bit unsigned (a2a3, a5)`: targets grouped by
    phrase, the words every phrase starts with said once."""
    groups: dict[str, list[str]] = {}
    for target, phrase in phrases.items():
        groups.setdefault(phrase, []).append(target)
    texts = list(groups)
    common = 0
    words = [t.split(" ") for t in texts]
    while all(len(w) > common + 1 and w[common] == words[0][common] for w in words):
        common += 1
    parts = [f"{' '.join(w[common:] if i else w)} ({', '.join(groups[t])})" for i, (t, w) in enumerate(zip(texts, words))]
    return " / ".join(parts)


__all__ = ["Difference", "DivergentOp", "Report", "Verdict", "compare"]
