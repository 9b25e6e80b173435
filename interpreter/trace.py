"""
`pto-run --profile=trace`: what ran as a per-pipe timeline, in the Chrome trace format
(https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNImMc, which Perfetto
and chrome://tracing open).

Each op execution is a slice on its pipe's track (MTE2, V, MTE3, ...), as long as its cycles
(1 trace microsecond = 1 cycle), placed as early as both allow: its pipe is free (a pipe runs
its ops in program order), and the ops it depends on through memory have finished (it reads
what an earlier op wrote, or writes what an earlier op read or wrote: tiles by their bytes,
GM by the argument it views), and the kernel's own synchronization allows: after a
`wait_flag(src, dst, e)`, dst starts nothing before src's matching `set_flag` (when everything src
issued before it has finished), after `barrier <PIPE_ALL>` no pipe starts before every pipe's earlier
work has finished. So where the kernel sets no flag the timeline is as if one were set where the data
dependences need it (`--check-sync` reports such a race). A register-level op (a5) is placed by its
pipe and the flags only: the UB its pointers reach is not tracked. An arrow (a flow event) goes from the op on
another pipe that an op waited for to that op, and each set_flag / wait_flag is an instant marker on
its pipe's track. Loops run iteration by iteration; each slice names the
iteration it belongs to (`%i=3`: its enclosing loops' induction variables, from how often the op
ran and their static bounds; `#k`, its k-th execution, under a loop without static bounds).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from numpy.lib.array_utils import byte_bounds
from xdsl.interpreter import PythonValues

from xdsl.dialects import scf
from xdsl.ir import Operation

from passes.estimate import trip_count
from pto_dialect.diagnostics import op_location
from pto_dialect.instruction import Pipe
from pto_dialect.machine import GmView, Tile
from pto_dialect.ops.memory import constant_index

from interpreter.lowered import source_name

Region = tuple[int, int]
"""A byte range [low, high) of the interpreter's memory."""


@dataclass
class _Uses:
    written: int = 0
    """When the last op writing the region finishes."""
    writer: int | None = None
    """That op's slice."""
    read: int = 0
    """When the last op reading it finishes."""
    reader: int | None = None
    """That op's slice."""


@dataclass
class Slice:
    name: str
    pipe: str
    start: int
    cycles: int
    loc: str | None
    nbytes: int
    loops: tuple[tuple[str, int], ...]
    waited_for: int | None = None
    """The slice on another pipe whose end it waited for (a data dependence), if any."""


@dataclass
class Mark:
    """A synchronization op at the time it takes effect on its pipe."""

    name: str
    pipe: str
    time: int
    loc: str | None


@dataclass
class Timeline:
    """The op executions in the order they ran, each placed on its pipe."""

    target: str
    model: str
    slices: list[Slice] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)
    _pipe_free: dict[str, int] = field(default_factory=dict)
    _pipe_last: dict[str, int] = field(default_factory=dict)
    """Each pipe's last slice."""
    _held: dict[str, int] = field(default_factory=dict)
    """A pipe a wait_flag held: the slice on the other pipe it waited for."""
    _flags: dict[tuple[str, str, object], list[tuple[int, int | None]]] = field(default_factory=dict)
    """Each set flag not yet waited for: when it is set, and the slice it waits for."""
    _barrier: int = 0
    """When the last `barrier <PIPE_ALL>` lets every pipe go on."""
    _uses: dict[Region, _Uses] = field(default_factory=dict)
    _executions: dict[Operation, int] = field(default_factory=dict)

    def set_flag(self, op: Operation, src: Pipe, dst: Pipe, event: object) -> None:
        """`set_flag(src, dst, event)`: set once everything src issued before has finished."""
        time = max(self._pipe_free.get(src.short, 0), self._barrier)
        self._flags.setdefault((src.short, dst.short, event), []).append((time, self._pipe_last.get(src.short)))
        self.marks.append(Mark(f"set_flag {src.short}->{dst.short} #{event}", src.short, time, op_location(op)))

    def wait_flag(self, op: Operation, src: Pipe, dst: Pipe, event: object) -> None:
        """`wait_flag(src, dst, event)`: dst starts nothing before the matching set (a wait no set
        matches is a deadlock `--check-sync` reports: it holds nothing here)."""
        pending = self._flags.get((src.short, dst.short, event))
        if not pending:
            return
        time, slice_index = pending.pop(0)
        free = max(self._pipe_free.get(dst.short, 0), self._barrier)
        if time > free and slice_index is not None:
            self._held[dst.short] = slice_index
        self._pipe_free[dst.short] = max(time, free)
        self.marks.append(Mark(f"wait_flag {src.short}->{dst.short} #{event}", dst.short, max(time, free), op_location(op)))

    def barrier(self, pipe: Pipe) -> None:
        """`barrier <pipe>`: a pipe runs in order already; `<PIPE_ALL>`: every pipe waits for all."""
        if pipe is Pipe.ALL:
            self._barrier = max(self._pipe_free.values(), default=0)

    def add(self, op: Operation, pipe: str, cycles: int, nbytes: int, args: PythonValues,
            written: tuple[int, ...], ignored: frozenset[int] = frozenset()) -> None:
        """One execution of `op` (its `written` operands: the ones it writes; `ignored`: the ones
        the target's code neither reads nor writes, such as a tmp it does not use)."""
        ran = self._executions.get(op, 0)
        self._executions[op] = ran + 1
        reads = [_region(a) for i, a in enumerate(args) if i not in written and i not in ignored]
        writes = [_region(args[i]) for i in written if i not in ignored]
        reads, writes = [r for r in reads if r], [w for w in writes if w]
        ready, waited_for = max(self._pipe_free.get(pipe, 0), self._barrier), self._held.pop(pipe, None)
        for region, uses in self._uses.items():
            after = []
            if any(_overlap(region, r) for r in reads):
                after.append((uses.written, uses.writer))
            if any(_overlap(region, w) for w in writes):
                after += [(uses.written, uses.writer), (uses.read, uses.reader)]
            for end, slice_index in after:
                if end > ready:
                    ready, waited_for = end, slice_index
        end, index = ready + cycles, len(self.slices)
        self._pipe_free[pipe], self._pipe_last[pipe] = end, index
        for r in reads:
            uses = self._uses.setdefault(r, _Uses())
            if end >= uses.read:
                uses.read, uses.reader = end, index
        for w in writes:
            uses = self._uses.setdefault(w, _Uses())
            if end >= uses.written:
                uses.written, uses.writer = end, index
        if waited_for is not None and self.slices[waited_for].pipe == pipe:
            waited_for = None  # its own pipe's order would have placed it there anyway
        self.slices.append(
            Slice(source_name(op), pipe, ready, cycles, op_location(op), nbytes, _iteration(op, ran), waited_for)
        )

    @property
    def cycles(self) -> int:
        """When the last op finishes."""
        return max((s.start + s.cycles for s in self.slices), default=0)

    def chrome_trace(self) -> dict[str, object]:
        """The Chrome trace JSON object: one thread (track) per pipe, in order of first use."""
        pipes = list(dict.fromkeys(s.pipe for s in self.slices))
        tid = {p: i + 1 for i, p in enumerate(pipes)}
        events: list[dict[str, object]] = [
            {"ph": "M", "name": "process_name", "pid": 1, "tid": 0,
             "args": {"name": f"{self.target} ({self.model}), 1 us = 1 cycle"}},
        ]
        for p in pipes:
            events.append({"ph": "M", "name": "thread_name", "pid": 1, "tid": tid[p], "args": {"name": p}})
            events.append({"ph": "M", "name": "thread_sort_index", "pid": 1, "tid": tid[p], "args": {"sort_index": tid[p]}})
        for s in self.slices:
            iteration = " ".join(f"{n}{v}" if n == "#" else f"{n}={v}" for n, v in s.loops)
            events.append({
                "ph": "X", "pid": 1, "tid": tid[s.pipe], "cat": s.pipe,
                "name": f"{s.name} ({iteration})" if iteration else s.name,
                "ts": s.start, "dur": s.cycles,
                "args": {"op": s.name, "loc": s.loc, "cycles": s.cycles, "bytes": s.nbytes,
                         "iteration": dict(s.loops)},
            })
        for m in self.marks:
            if m.pipe not in tid:  # a pipe only synchronization names
                tid[m.pipe] = len(tid) + 1
                events.append({"ph": "M", "name": "thread_name", "pid": 1, "tid": tid[m.pipe], "args": {"name": m.pipe}})
            events.append({"ph": "i", "s": "t", "pid": 1, "tid": tid[m.pipe], "cat": "sync", "name": m.name,
                           "ts": m.time, "args": {"loc": m.loc}})
        for index, s in enumerate(self.slices):  # an arrow from each op to the one that waited for it
            if s.waited_for is not None:
                before = self.slices[s.waited_for]
                flow = {"name": "waits for", "cat": "dependence", "id": index, "pid": 1, "bp": "e"}
                events.append({**flow, "ph": "s", "tid": tid[before.pipe], "ts": before.start})
                events.append({**flow, "ph": "f", "tid": tid[s.pipe], "ts": s.start})
        busy = {p: sum(s.cycles for s in self.slices if s.pipe == p) for p in pipes}
        return {
            "traceEvents": events,
            "displayTimeUnit": "ns",
            "otherData": {"target": self.target, "model": self.model, "time_unit": "cycle",
                          "cycles": self.cycles, "pipes_busy": busy},
        }


def _iteration(op: Operation, ran: int) -> tuple[tuple[str, int], ...]:
    """The induction variables of `op`'s enclosing loops at its execution number `ran` (0 on),
    outermost first, when each loop has static bounds (else `#`: the execution number)."""
    found = []
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, scf.ForOp):
            trips, lower, step = trip_count(parent), constant_index(parent.lb), constant_index(parent.step)
            if not trips or lower is None or step is None:
                return (("#", ran),)
            variable = parent.body.block.args[0]
            found.append((f"%{variable.name_hint}" if variable.name_hint else "%loop", lower + ran % trips * step))
            ran //= trips
        parent = parent.parent_op()
    return tuple(reversed(found))


def _region(value: object) -> Region | None:
    if isinstance(value, Tile):
        low, high = byte_bounds(value.flat)
        return low, high
    if isinstance(value, GmView):
        low, high = byte_bounds(value.buffer)
        return low, high
    return None


def _overlap(a: Region, b: Region) -> bool:
    return a[0] < b[1] and b[0] < a[1]


__all__ = ["Timeline"]
