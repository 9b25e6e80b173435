"""
`pto-insert-sync{target=T}`: give a kernel without sync ops of its own the set_flag / wait_flag
pairs (and barriers) its pipes need on T, so that the sync checker (passes/sync_check.py) accepts it.

Each instruction runs its phases (pto_dialect/phases.py) on the pipes T's lowering picks. Before an
instruction, each pipe of its phases waits for every other pipe that last wrote memory the phase
reads or writes (RAW, WAW), or read memory it writes (WAR), unless that pipe already waited for it
since: `pto.set_flag[<P>, <Q>, <EVENT_IDn>]` then `pto.wait_flag[...]` right before the instruction
(P signals once its earlier work is done, Q waits for it). A pair is set and taken at once, so one
event id per pipe pair serves (EVENT_ID0, or the lowest one the instruction's library code does not
use itself: INTERNAL_FLAGS). Where a flag cannot serve, a barrier does: a loop body that issued work
ends with `pto.barrier <PIPE_ALL>` (the next iteration's pipes start after all of it), and so does an
`scf.if` whose branches issued work. Memory is tracked per operand value (tile, GM view) and its
bytes, as the checker sees it: tiles at constant addresses whose bytes overlap are one memory, and a
wait is transitive (a pipe that waited for one that had waited for a third is ordered after it too).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from pto_dialect.walk import walk

import targets
from pto_dialect.instruction import Pipe
from pto_dialect.ops import AllocTileOp, SectionCubeOp, SectionVectorOp
from pto_dialect.ops.common import PtoInstructionOp
from pto_dialect.ops.sync import SYNC_OPS, BarrierOp, SetFlagOp, WaitFlagOp
from pto_dialect.phases import InternalFlag, Phase, Step, internal_flags, phases_of


def target_phases(target: targets.TargetInfo) -> Callable[[Operation], tuple[tuple[Step, ...], tuple[InternalFlag, ...]] | None]:
    """An op's phases and internal flags on `target`: a lowered op's own; a pto instruction's as
    the lowered op its target picks for it declares them."""

    def of(op: Operation):  # noqa: ANN202
        if isinstance(op, PtoInstructionOp) and not op.res:
            lowered, _ = target.lowering.choose(op)
            declared: tuple[Phase, ...] | None = getattr(lowered, "PHASES", None)
            if declared is not None:
                steps = tuple(
                    Step(p.pipe, tuple(v for v in map(op.role, p.reads) if v is not None), tuple(v for v in map(op.role, p.writes) if v is not None))
                    for p in declared
                )
                return steps, getattr(lowered, "INTERNAL_FLAGS", ())
        steps = phases_of(op)
        return None if steps is None else (steps, internal_flags(op))

    return of


@dataclass
class _Model:
    """Per memory value: its last writer pipe and the pipes reading it since; per pipe pair, how
    far the consumer has waited for the producer."""

    issued: dict[Pipe, int] = field(default_factory=dict)
    waited: dict[tuple[Pipe, Pipe], int] = field(default_factory=dict)
    last_write: dict[SSAValue, tuple[Pipe, int, int]] = field(default_factory=dict)
    """Per value: the pipe that last wrote it, that pipe's count then, and the step's sequence number."""
    reads: dict[SSAValue, dict[Pipe, tuple[int, int]]] = field(default_factory=dict)
    steps: int = 0

    def copy(self) -> _Model:
        return _Model(dict(self.issued), dict(self.waited), dict(self.last_write),
                      {v: dict(r) for v, r in self.reads.items()}, self.steps)

    def needs(self, step: Step, aliases: dict[SSAValue, tuple[SSAValue, ...]]) -> set[Pipe]:
        """The pipes `step`'s pipe must wait for before it runs: over each value's bytes, the
        accesses to values `aliases` says share them, made since the value itself was last written."""
        found: list[tuple[Pipe, int]] = []
        for value in (*step.reads, *step.writes):
            since = own[2] if (own := self.last_write.get(value)) is not None else -1
            for alias in aliases.get(value, (value,)):
                if (w := self.last_write.get(alias)) is not None and (alias is value or w[2] > since):
                    found.append((w[0], w[1]))
            if value in step.writes:
                for alias in aliases.get(value, (value,)):
                    found += [(p, n) for p, (n, at) in self.reads.get(alias, {}).items() if alias is value or at > since]
        return {p for p, n in found if p != step.pipe and self.waited.get((step.pipe, p), 0) < n}

    def waits_of(self, pipe: Pipe) -> int:
        """How many other pipes `pipe` has waited for."""
        return sum(1 for waiter, _ in self.waited if waiter == pipe)

    def wait(self, consumer: Pipe, producer: Pipe) -> None:
        """`consumer` waits for all `producer` issued, and so for all that `producer` had waited for."""
        self.waited[(consumer, producer)] = self.issued.get(producer, 0)
        for (waiter, other), count in list(self.waited.items()):
            if waiter == producer and other != consumer and count > self.waited.get((consumer, other), 0):
                self.waited[(consumer, other)] = count

    def issue(self, step: Step, covered: dict[SSAValue, tuple[SSAValue, ...]]) -> None:
        """`step` runs; what it writes is now last written by its pipe, and so is every value
        whose bytes lie inside (`covered`)."""
        n = self.issued[step.pipe] = self.issued.get(step.pipe, 0) + 1
        self.steps += 1
        for value in step.reads:
            self.reads.setdefault(value, {})[step.pipe] = (n, self.steps)
        for value in step.writes:
            for inside in covered.get(value, (value,)):
                self.last_write[inside] = (step.pipe, n, self.steps)
                self.reads[inside] = {}


@dataclass
class _Inserter:
    phases: Callable[[Operation], tuple[tuple[Step, ...], tuple[InternalFlag, ...]] | None]
    events: int
    inserted: int = 0
    aliases: dict[SSAValue, tuple[SSAValue, ...]] = field(default_factory=dict)
    """The kernel's tiles at constant addresses, each with those whose bytes overlap its own."""
    covered: dict[SSAValue, tuple[SSAValue, ...]] = field(default_factory=dict)
    """The same tiles, each with those whose bytes lie inside its own."""

    def block(self, block: Block, model: _Model) -> _Model:
        for op in list(block.ops):
            model = self.op(op, model)
        return model

    def op(self, op: Operation, model: _Model) -> _Model:
        found = self.phases(op)
        if found is not None:
            steps, internal = found
            pairs: list[tuple[Pipe, Pipe]] = []
            # Each phase after the ones before it (the instruction orders its own phases): what
            # those phases waited for is not needed again.
            trial, previous = model.copy(), None
            for step in steps:
                if previous is not None and previous != step.pipe:
                    trial.wait(step.pipe, previous)
                # A producer that has itself waited for others goes first: waiting for it may cover them.
                needed = sorted(trial.needs(step, self.aliases), key=lambda p: (-trial.waits_of(p), p.value))
                for producer in needed:
                    if trial.waited.get((step.pipe, producer), 0) < trial.issued.get(producer, 0):
                        pairs.append((producer, step.pipe))
                        trial.wait(step.pipe, producer)
                trial.issue(step, self.covered)
                previous = step.pipe
            for producer, consumer in pairs:
                event = self.event(producer, consumer, internal)
                Rewriter.insert_op(SetFlagOp(producer, consumer, event), InsertPoint.before(op))
                Rewriter.insert_op(WaitFlagOp(producer, consumer, event), InsertPoint.before(op))
                model.wait(consumer, producer)
                self.inserted += 1
            previous: Pipe | None = None
            for step in steps:
                if previous is not None and previous != step.pipe:
                    model.wait(step.pipe, previous)
                model.issue(step, self.covered)
                previous = step.pipe
            return model
        if isinstance(op, SectionVectorOp | SectionCubeOp):
            return self.block(op.body.block, model)
        if isinstance(op, scf.ForOp):
            body = op.body.block
            after = self.block(body, model.copy())
            if after.issued != model.issued:
                self.barrier(body.last_op, before=True)  # the terminator
                return model if not _runs_once_at_least(op) else _Model()
            return model
        if isinstance(op, scf.IfOp):
            issued = False
            for region in (op.true_region, op.false_region):
                if region.blocks:
                    branch = self.block(region.block, model.copy())
                    issued |= branch.issued != model.issued
            if issued:
                self.barrier(op, before=False)
                return _Model()
            return model
        return model

    def event(self, producer: Pipe, consumer: Pipe, internal: tuple[InternalFlag, ...]) -> int:
        used = {f.event for f in internal if (f.src, f.dst) == (producer, consumer)}
        return next(e for e in range(self.events) if e not in used)

    def barrier(self, at: Operation | None, before: bool) -> None:
        assert at is not None
        Rewriter.insert_op(BarrierOp(Pipe.ALL), InsertPoint.before(at) if before else InsertPoint.after(at))
        self.inserted += 1


def _runs_once_at_least(loop: scf.ForOp) -> bool:
    from pto_dialect.ops.memory import constant_index

    lb, ub = constant_index(loop.lb), constant_index(loop.ub)
    return lb is not None and ub is not None and lb < ub


def _placed_aliases(
    function: FuncOp,
) -> tuple[dict[SSAValue, tuple[SSAValue, ...]], dict[SSAValue, tuple[SSAValue, ...]]]:
    """Tiles allocated at constant addresses, each with every such tile whose bytes overlap its own,
    and with those whose bytes lie inside its own (itself included in both): a kernel may place two
    tile types over one buffer, and the memory plan reuses a dead tile's bytes."""
    placed: list[tuple[SSAValue, str, int, int]] = []
    for op in walk(function):
        if isinstance(op, AllocTileOp) and op.addr is not None and isinstance(constant := op.addr.owner, arith.ConstantOp):
            if isinstance(constant.value, IntegerAttr):
                start = constant.value.value.data
                placed.append((op.result, op.tile.loc.data, start, start + op.tile.size_bytes))
    overlapping = {
        value: tuple(other for other, other_space, s, e in placed if other_space == space and s < end and start < e)
        for value, space, start, end in placed
    }
    inside = {
        value: tuple(other for other, other_space, s, e in placed if other_space == space and start <= s and e <= end)
        for value, space, start, end in placed
    }
    return overlapping, inside


def has_explicit_sync(function: FuncOp) -> bool:
    """The kernel orders its pipes itself (any sync op in it)."""
    return any(isinstance(op, tuple(SYNC_OPS)) for op in walk(function))


def insert_sync(module: ModuleOp, target: targets.TargetInfo) -> int:
    """Insert the sync of every kernel without its own; returns how many flag pairs and barriers."""
    inserter = _Inserter(target_phases(target), target.sync.flag_events)
    for op in walk(module):
        if isinstance(op, FuncOp) and op.body.blocks and not has_explicit_sync(op):
            inserter.aliases, inserter.covered = _placed_aliases(op)
            inserter.block(op.body.block, _Model())
    return inserter.inserted


@dataclass(frozen=True)
class InsertSyncPass(ModulePass):
    """
    Insert the set_flag / wait_flag pairs and barriers a kernel without sync of its own needs.

    For the target's pipes and each instruction's phases there (passes/insert_sync.py); kernels
    with sync ops of their own are left as they are. Option: target.
    """

    name = "pto-insert-sync"

    target: str | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        insert_sync(op, targets.resolve(self.target, op))
