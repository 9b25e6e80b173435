"""
`pto-run --profile`: what really ran, priced as `pto-opt --estimate` prices it (passes/estimate.py).

The interpreter tells the profiler about each op it runs through a kernel (a batched loop:
once, with every iteration), before the kernel runs; the profiler prices one execution from
the operands' actual shapes and, where the instruction measures some (rows an out-of-range
mode skips, the GM lines or bursts an element gather reads), the data's counts, iteration by
iteration. A report row is one source op: its executions, and its mean cycles and bytes per
execution (an integer when every execution cost the same).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.interpreter import PythonValues
from xdsl.ir import Operation

from pto_dialect.diagnostics import op_location
from pto_dialect.ops import sync
from pto_dialect.instructions import instruction_of
from pto_dialect.machine import GmView, Tile
from pto_dialect.phases import ignored_operands
from passes.estimate import REGISTER_OPS, CostReport, OpRow, cost_function, cost_machine, kernel_cores, price, priced_by, register_op_cost, with_cores
import targets

from interpreter.lowered import actual_shapes, instruction_facts, roles_of, written_operands
from interpreter.trace import Timeline


@dataclass
class _Totals:
    op: Operation
    pipe: str
    model: str
    count: int = 0
    cycles: int = 0
    bytes: int = 0


class Profiler:
    """Counts, per op, its executions and their cycles and bytes on one target."""

    def __init__(
        self, target: str | targets.TargetInfo, cost_model: str = "pto-isa", cores: int | None = None,
        trace: bool = False,
    ):
        self.target = targets.get(target)
        self.machine = cost_machine(self.target, cost_model, cores)
        self._given_cores = cores
        self.cores = kernel_cores(None, cores)
        """`--cores`, else the run's SPMD block count (`bind`), else 1."""
        self.timeline = Timeline(self.target.name, self.machine.model) if trace else None
        """With `trace`: each execution placed on its pipe (interpreter/trace.py); a run then goes
        iteration by iteration."""
        self._ops: dict[Operation, _Totals] = {}
        self._prices: dict[tuple, tuple[str, str, int, int]] = {}

    def bind(self, function: func.FuncOp, arguments: Sequence[object]) -> None:
        """The kernel is about to run `function` on `arguments`: the cores they launch it on."""
        self.cores = kernel_cores(function, self._given_cores, arguments)
        self.machine = with_cores(self.machine, self.cores)

    def record(self, op: Operation, args: PythonValues) -> None:
        """`op` is about to run on `args` (each iteration of a batched loop at once)."""
        if instruction_of(op) is None:
            self._record_register_level(op, args)
            return
        iterations = _iterations(args)
        operands = dict(zip(roles_of(op), args))
        shapes = actual_shapes(args)
        measure = instruction_of(op).cost.measure_of(self.machine)  # pyright: ignore[reportOptionalMemberAccess]
        counts = measure(op, operands, self.machine) if measure is not None else {}
        totals = self._ops.get(op)
        for work, times in _cases(counts, iterations):
            key = (op, shapes, tuple(sorted(work.items())))
            priced = self._prices.get(key)
            if priced is None:
                cost = price(op, self.target, instruction_facts(op, args), work, self.machine)
                priced = self._prices[key] = (cost.pipe.short, cost.model, cost.cycles, cost.bytes)
            pipe, model, cycles, nbytes = priced
            if totals is None:
                totals = self._ops[op] = _Totals(op, pipe, model)
            totals.count += times
            totals.cycles += cycles * times
            totals.bytes += nbytes * times
            if self.timeline is not None:
                assert iterations == 1, "a timeline needs the run iteration by iteration"
                self.timeline.add(op, pipe, cycles, nbytes, args, written_operands(op), ignored_operands(op, self.target.rules))

    def _record_register_level(self, op: Operation, args: PythonValues) -> None:
        """A register-level op priced as the machine's `register_level` table says (a free one: no row)."""
        operands = list(op.operands)
        cost = register_op_cost(op, self.target, self.machine, lambda value: args[operands.index(value)])
        if cost is None:
            return
        totals = self._ops.get(op)
        if totals is None:
            totals = self._ops[op] = _Totals(op, cost.pipe.short, cost.model)
        totals.count += 1
        totals.cycles += cost.cycles
        totals.bytes += cost.bytes
        if self.timeline is not None:  # placed by its pipe and the kernel's flags (its pointers not tracked)
            self.timeline.add(op, cost.pipe.short, cost.cycles, cost.bytes, (), ())

    def synchronize(self, op: Operation, args: PythonValues) -> None:
        """A synchronization op ran: the timeline, if any, orders its pipes by it."""
        timeline = self.timeline
        if timeline is None:
            return
        if isinstance(op, sync.FlagOpBase):
            event = op.event if isinstance(op, sync.StaticFlagOp) else int(args[0])
            setting = isinstance(op, sync.SetFlagOp | sync.SetFlagDynOp)
            (timeline.set_flag if setting else timeline.wait_flag)(op, *op.pair, event)
        elif isinstance(op, sync.BarrierOp):
            timeline.barrier(op.pipe.data)

    def check(self, op: Operation) -> None:
        """Fail before running when `op` has no cost model on the target."""
        if instruction_of(op) is not None:
            cost_function(op, self.target, self.machine)
        elif isinstance(op, REGISTER_OPS):
            register_op_cost(op, self.target, self.machine, lambda _: 0)

    def report(self) -> CostReport:
        """One row per source op, in the order they first ran."""
        report = CostReport(self.target.name, what="profile", **priced_by(self.machine, self.cores))
        rows: dict[object, OpRow] = {}
        sums: dict[object, list[int]] = {}
        for t in self._ops.values():
            instruction = instruction_of(t.op)
            name = instruction.name if instruction is not None else t.op.name  # a register-level op
            loc = op_location(t.op)
            key = (loc, name) if loc is not None else t.op
            if key not in rows:
                rows[key] = OpRow(name, loc, t.pipe, 0, 0, t.count, t.model)
                sums[key] = [0, 0]
                report.ops.append(rows[key])
            sums[key][0] += t.cycles
            sums[key][1] += t.bytes
        for key, row in rows.items():
            cycles, nbytes = sums[key]
            row.cycles, row.bytes, row.counted_total = _mean(cycles, row.count), _mean(nbytes, row.count), cycles
        return report


def _mean(total: int, count: int | None) -> int | float:
    if not count:
        return 0
    return total // count if total % count == 0 else round(total / count, 2)


def _iterations(args: PythonValues) -> int:
    """How many iterations the op runs for: a batched loop's leading axis, else 1."""
    for a in args:
        if isinstance(a, Tile) and a.flat.ndim > 1:
            return a.flat.shape[0]
        if isinstance(a, GmView) and isinstance(a.offset, np.ndarray):
            return a.offset.shape[0]
    return 1


def _cases(counts: dict[str, object], iterations: int) -> list[tuple[dict[str, int], int]]:
    """The distinct data-dependent counts among the iterations, each with how many had it."""
    if not counts:
        return [({}, iterations)]
    if iterations == 1:
        return [({n: int(np.asarray(v).item()) for n, v in counts.items()}, 1)]
    names = list(counts)
    columns = np.stack([np.broadcast_to(np.asarray(counts[n], dtype=np.int64), (iterations,)) for n in names], axis=1)
    distinct, times = np.unique(columns, axis=0, return_counts=True)
    return [({n: int(v) for n, v in zip(names, row)}, int(t)) for row, t in zip(distinct, times)]


__all__ = ["Profiler"]
