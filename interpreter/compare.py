"""
One kernel on several targets: where does it behave differently?

    report = interpreter.compare("k.pto", targets="all", args=[table, ids, out])
    print(report.text())

Each target that accepts the kernel runs it on copies of the same arguments. The
report holds each target's verdict and outputs, per argument whether all targets
agree bit for bit (NaN equal to NaN) and where they differ, and the first op, in
execution order, whose writes differ between targets, with the lowered choices
that differ for it (read from the lowered ops' `#pto_choice` attributes). A tile
argument the kernel uses only as an instruction's scratch space (`tmp`, `scratch`)
holds each target's own intermediate data: it is reported as scratch, not compared.
An op whose lowered op records `numerics = approximate` on a target (a hardware intrinsic
no public code fixes: TEXP on a2a3, ...) is listed as approximate there: agreement through it
is the reference formula's, not bit for bit, and a difference at it is not a bug.
The kernel must be from before pto-lower: lowered IR runs on its own target only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter, PythonValues
from xdsl.ir import Operation, Use

import pto_dialect
from pto_dialect.diagnostics import PtoError, op_location
from pto_dialect.choices import Numerics, choices_of
from pto_dialect.dtypes import FLOAT_DTYPE_NAMES
from pto_dialect.machine import GmView, Tile
from pto_dialect.ops.common import PtoInstructionOp
from targets import check_comparable
from targets import parse_list

from interpreter.lowered import roles_of, runs_kernel, source_name, written_operands

if TYPE_CHECKING:
    import hashlib

    from passes.estimate import CostReport  # the cost model, imported by the runs that profile

SHOWN_POSITIONS = 5
"""Differing positions listed per argument."""

CHECKPOINTS = 1024
"""Chain digests a target's run keeps to find where the targets' writes first differ."""

KEPT_WRITES = 4096
"""The writes a run keeps whole: those of a window that narrowing made this small."""

APPROXIMATE = "a hardware intrinsic no public code fixes: the interpreter gives the reference formula's values"


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
    """Elements whose value is not the same on every target (0: all agree, or scratch)."""
    positions: list[tuple[tuple[int, ...], dict[str, object]]]
    """The first differing positions, each with every target's value."""
    scratch: str | None = None
    """For a scratch tile argument, what uses it (`the tmp of pto.tgather at k.pto:3:5`):
    its contents are each target's own, not compared."""


@dataclass(frozen=True)
class DivergentOp:
    """The first executed op whose writes differ between targets."""

    location: str
    name: str
    choices: list[str]
    """Each lowered choice that differs for it, as `phrase (targets) / phrase (targets)`."""
    how: str = ""
    """How its writes differ when not in their valid region: `outside the valid region`, or
    `runs on some targets only` (the targets ran different numbers of writing ops)."""
    approximate_on: list[str] = field(default_factory=list)
    """The targets on which it is approximate: its difference there is not a bug."""

    def text(self) -> str:
        head = f"{self.location} {self.name}" + (f" ({self.how})" if self.how else "")
        if self.approximate_on:
            head += f" (approximate on {', '.join(self.approximate_on)}: {APPROXIMATE}, not a bug)"
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
    approximate: dict[str, list[str]] = field(default_factory=dict)
    """Each executed op (`k.pto:3:3 pto.texp`) approximate on some target, with those targets."""

    @property
    def agree(self) -> bool:
        """Every target ran and all outputs (scratch arguments aside) agree."""
        return all(v.ran for v in self.verdicts.values()) and not any(d.differing for d in self.differences)

    def text(self) -> str:
        lines = []
        for v in self.verdicts.values():
            lines.append(f"{v.target}: ran" if v.ran else f"{v.target}: did not run: {v.error}")
        ran = [t for t, v in self.verdicts.items() if v.ran]
        for d in self.differences:
            if d.scratch is not None:
                lines.append(f"{d.name}: scratch ({d.scratch}): each target's own contents, not compared")
                continue
            if not d.differing:
                lines.append(f"{d.name}: all targets agree ({', '.join(ran)})")
                continue
            lines.append(f"{d.name}: {d.differing} elements differ")
            for position, values in d.positions:
                shown = ", ".join(f"{t}={v}" for t, v in values.items())
                lines.append(f"  [{', '.join(map(str, position))}]: {shown}")
        if self.first_divergent_op is not None:
            lines.append(f"first divergent op: {self.first_divergent_op.text()}")
        for op, on in self.approximate.items():
            lines.append(f"approximate: {op} on {', '.join(on)} ({APPROXIMATE})")
        if len(ran) > 1 and not any(d.differing for d in self.differences):
            but = " (scratch arguments aside)" if any(d.scratch for d in self.differences) else ""
            if self.approximate:
                lines.append(f"the targets that ran agree ({', '.join(ran)}){but}, but not bit for bit: through the "
                             "approximate ops above they agree on the reference formula's values")
            else:
                lines.append(f"the targets that ran agree bit for bit ({', '.join(ran)}){but}")
        return "\n".join(lines) + "\n"


@dataclass
class _Write:
    """One executed op that writes memory: where it is, and digests of what it wrote."""

    location: str
    name: str
    digest: bytes
    """Of the valid region of each tile (each GM window) it wrote."""
    whole_digest: bytes
    """Of the whole storage of each tile it wrote, padding included."""
    op: Operation


def _digest() -> hashlib.blake2b:
    """A fresh 16-byte BLAKE2b. hashlib (its OpenSSL binding: a few ms to load) comes with the
    runs that compare targets, not with every run that imports this module."""
    import hashlib

    return hashlib.blake2b(digest_size=16)


class _WriteRecorder(Interpreter.Listener):
    """Follows, in execution order, each op that writes a tile or GM view, in memory bounded
    whatever the run's length: digests of what the writes from `start` on (up to `stop`)
    wrote, chained, with the chains after every `every` writes (at most CHECKPOINTS of
    them: past that, every other is dropped and `every` doubles); the writes themselves
    (`kept`) when the window [start, stop) holds at most KEPT_WRITES. The ops approximate
    on the target (at most one entry per op of the kernel) are noted all along."""

    def __init__(self, start: int = 0, stop: int | None = None) -> None:
        self.start, self.stop = start, stop
        self.count = 0
        """Writes so far, from the run's start."""
        self.keeps = stop is not None and stop - start <= KEPT_WRITES
        self.kept: list[_Write] = []
        self.chains = (_digest(), _digest())
        """Over the window's writes: where each is and what it wrote (valid region; whole tile)."""
        self.checkpoints: dict[int, tuple[bytes, bytes]] = {}
        """After n writes of the window: the chains' digests."""
        self.every = 1
        self.approximate: dict[str, None] = {}
        """`k.pto:3:3 pto.texp` for each op approximate on the target that wrote, in order."""
        self._pending: PythonValues = ()

    @property
    def in_window(self) -> int:
        """Writes made inside the window."""
        end = self.count if self.stop is None else min(self.count, self.stop)
        return max(0, end - self.start)

    def will_interpret_op(self, op: Operation, args: PythonValues) -> None:
        self._pending = args

    def did_interpret_op(self, op: Operation, results: PythonValues) -> None:
        written = _written(op, self._pending)
        if written is None:
            return
        index = self.count
        self.count += 1
        location, name = op_location(op) or "?", source_name(op)
        if _approximate(op):
            self.approximate.setdefault(f"{location} {name}")
        if index < self.start or (self.stop is not None and index >= self.stop):
            return
        valid, whole = _digest(), _digest()
        for value in written:
            for digest, data in (
                (valid, value.read_valid() if isinstance(value, Tile) else value.read2d()),
                (whole, value.values if isinstance(value, Tile) else value.read2d()),
            ):
                digest.update(str(data.shape).encode())
                digest.update(np.ascontiguousarray(data).tobytes())
        write = _Write(location, name, valid.digest(), whole.digest(), op)
        if self.keeps:
            self.kept.append(write)
        where = f"{location} {name}".encode()
        for chain, digest in zip(self.chains, (write.digest, write.whole_digest)):
            chain.update(where)
            chain.update(digest)
        n = index + 1 - self.start
        if n % self.every == 0:
            self.checkpoints[n] = (self.chains[0].digest(), self.chains[1].digest())
            if len(self.checkpoints) > CHECKPOINTS:
                self.every *= 2
                self.checkpoints = {k: v for k, v in self.checkpoints.items() if k % self.every == 0}


VALID, WHOLE = 0, 1
"""Which chain a search compares: of the valid regions, or of the whole tiles."""


def _narrowed(recorders: Sequence[_WriteRecorder], chain: int) -> tuple[int, int] | None:
    """The window [lo, hi) of writes (counted from the run's start) holding the first write
    whose `chain` side differs between the targets (or is at a different op), from the
    recorders of one run over the same window; None when none differs among the writes all
    targets made."""
    start = recorders[0].start
    common = min(r.in_window for r in recorders)
    every = max(r.every for r in recorders)  # the coarsest: every target has its checkpoints
    agreed = 0
    for n in range(every, common + 1, every):
        if len({r.checkpoints[n][chain] for r in recorders}) > 1:
            return start + agreed, start + n
        agreed = n
    if agreed == common:
        return None
    if len({r.in_window for r in recorders}) == 1 and len({r.chains[chain].digest() for r in recorders}) == 1:
        return None
    return start + agreed, start + common


def _divergence_window(
    recorders: dict[str, _WriteRecorder], outputs_differ: bool, rerun: Callable[[int, int], dict[str, _WriteRecorder]]
) -> dict[str, list[_Write]] | None:
    """Each target's writes over a window in which `_first_divergent_op` finds what it would
    find over the whole runs, narrowed from the chains' checkpoints by running the targets
    again (`rerun(lo, hi)`: the recorders of a run over [lo, hi)); None when no write differs."""
    for chain in (VALID, WHOLE) if outputs_differ else (VALID,):
        current = recorders
        while not all(r.keeps for r in current.values()):
            window = _narrowed(list(current.values()), chain)
            if window is None:
                break
            current = rerun(*window)
        else:
            if _narrowed(list(current.values()), chain) is not None:
                return {t: r.kept for t, r in current.items()}
    if not outputs_differ:
        return None
    common = min(r.count for r in recorders.values())
    if all(r.count == common for r in recorders.values()):
        return None
    return {t: r.kept for t, r in rerun(common, common + 1).items()}  # a write some targets make


def _written(op: Operation, args: PythonValues) -> list[Tile | GmView] | None:
    """The runtime values an op writes as its output (a workspace such as tmp is scratch, not
    an output), or None for an op that writes no memory."""
    if not runs_kernel(op):
        return None
    workspace, roles = getattr(op, "WORKSPACE", frozenset()), roles_of(op)
    written = [
        args[i] for i in written_operands(op) if roles[i] not in workspace and isinstance(args[i], Tile | GmView)
    ]
    return written or None


def compare(
    module_or_path: ModuleOp | str | Path,
    targets: str | Sequence[str] = "all",
    args: Sequence[np.ndarray] = (),
    entry: str | None = None,
    profile: bool = False,
    cost_model: str = "pto-isa",
    cores: int | None = None,
) -> Report:
    """Run the kernel on each target (`"all"`, `"cpu,a5"` or a list of names) and compare;
    with `profile`, also count what runs on each (`Report.profiles`), priced by `cost_model`
    with `cores` cores transferring at once (passes/estimate.py cost_machine)."""
    from interpreter import entry_function, run_with_results
    from interpreter.profile import Profiler

    module = module_or_path if isinstance(module_or_path, ModuleOp) else pto_dialect.load(module_or_path)
    check_comparable(module)
    chosen = parse_list(targets)
    report = Report({})
    recorded: dict[str, _WriteRecorder] = {}
    for target in chosen:
        recorder = _WriteRecorder()
        profiler = Profiler(target, cost_model, cores) if profile else None
        try:
            outputs, results = run_with_results(module, target.name, args, entry, listeners=[recorder], profiler=profiler)
        except PtoError as e:
            report.verdicts[target.name] = Verdict(target.name, False, e.text)
            continue
        if profiler is not None:
            report.profiles[target.name] = profiler.report()
        report.verdicts[target.name] = Verdict(target.name, True)
        report.outputs[target.name], report.results[target.name] = outputs, results
        recorded[target.name] = recorder

    def rerun(start: int, stop: int) -> dict[str, _WriteRecorder]:
        """The targets that ran, run again, recording the writes in [start, stop)."""
        again = {t: _WriteRecorder(start, stop) for t in recorded}
        for t, recorder in again.items():
            run_with_results(module, t, args, entry, listeners=[recorder])
        return again
    if report.outputs:
        scratch = scratch_arguments(entry_function(module, entry))
        for i, finals in enumerate(zip(*report.outputs.values())):
            per_target = dict(zip(report.outputs, finals))
            report.differences.append(
                Difference(f"arg{i}", 0, [], scratch[i]) if i in scratch else _difference(f"arg{i}", per_target)
            )
        for k, results in enumerate(zip(*report.results.values())):
            report.differences.append(_difference(f"result{k}", dict(zip(report.results, results))))
    report.approximate = _approximate_ops({t: r.approximate for t, r in recorded.items()})
    if len(recorded) > 1:
        outputs_differ = any(d.differing for d in report.differences)
        window = _divergence_window(recorded, outputs_differ, rerun)
        report.first_divergent_op = _first_divergent_op(window, outputs_differ) if window is not None else None
    return report


def _approximate(op: Operation) -> bool:
    return choices_of(op).get("numerics") is Numerics.APPROXIMATE


def _approximate_ops(per_target: dict[str, dict[str, None]]) -> dict[str, list[str]]:
    """Each op approximate on some target, with those targets, from each target's ops."""
    out: dict[str, list[str]] = {}
    for target, ops in per_target.items():
        for op in ops:
            out.setdefault(op, []).append(target)
    return out


def scratch_arguments(function: func.FuncOp) -> dict[int, str]:
    """The arguments used only as instructions' workspace (`tmp`, `scratch`), each with what
    uses it: `the tmp of pto.tgather at k.pto:3:5`."""
    out = {}
    for i, arg in enumerate(function.args):
        roles = [(_role(use), use.operation) for use in arg.uses]
        if roles and all(role is not None and role in cast(PtoInstructionOp, op).WORKSPACE for role, op in roles):
            out[i] = ", ".join(f"the {role} of {op.name} at {op_location(op) or '?'}" for role, op in roles)
    return out


def _role(use: Use) -> str | None:
    """The role of the operand `use` in its instruction (None: not an instruction's operand)."""
    op = use.operation
    if not isinstance(op, PtoInstructionOp) or use.index >= len(op.ins):
        return None
    return op.role_lists()[0][use.index]


def _difference(name: str, per_target: dict[str, np.ndarray]) -> Difference:
    arrays = list(per_target.values())
    same = np.ones(arrays[0].shape, dtype=bool)
    for other in arrays[1:]:
        same &= same_values(arrays[0], other)
    where = np.argwhere(~same)
    positions = [
        (tuple(int(i) for i in p), {t: a[tuple(p)].item() for t, a in per_target.items()})
        for p in where[:SHOWN_POSITIONS]
    ]
    return Difference(name, int(where.shape[0]), positions)


def same_values(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Equal bit patterns, or both NaN."""
    bits = np.dtype(f"u{a.dtype.itemsize}") if a.dtype.itemsize in (1, 2, 4, 8) else None
    same = a.view(bits) == b.view(bits) if bits is not None else a == b
    if a.dtype.name in FLOAT_DTYPE_NAMES:
        same |= np.isnan(a.astype(np.float32)) & np.isnan(b.astype(np.float32))
    return same


def _first_divergent_op(recorded: dict[str, list[_Write]], outputs_differ: bool) -> DivergentOp | None:
    """The first write whose valid region (or GM window) differs between the targets. When the
    outputs differ and no such write does: the first whose whole tile differs, else the first
    write that some targets make and others do not."""
    sequences = list(recorded.values())

    def first_where(differs: Callable[[tuple[_Write, ...]], bool], how: str = "") -> DivergentOp | None:
        for writes in zip(*sequences):
            if differs(writes) or len({w.location for w in writes}) > 1:
                ops = {t: seq_write.op for t, seq_write in zip(recorded, writes)}
                approximate_on = [t for t, op in ops.items() if _approximate(op)]
                return DivergentOp(writes[0].location, writes[0].name, _differing_choices(ops), how, approximate_on)
        return None

    found = first_where(lambda writes: len({w.digest for w in writes}) > 1)
    if found is not None or not outputs_differ:
        return found
    found = first_where(lambda writes: len({w.whole_digest for w in writes}) > 1, "outside the valid region")
    if found is not None:
        return found
    common = min(len(s) for s in sequences)
    extra = next((s[common] for s in sequences if len(s) > common), None)
    return None if extra is None else DivergentOp(extra.location, extra.name, [], "runs on some targets only")


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


__all__ = ["Difference", "DivergentOp", "Report", "Verdict", "compare", "same_values", "scratch_arguments"]
