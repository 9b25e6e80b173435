"""
`pto-insert-sync{target=T}`: give a kernel without sync ops of its own the set_flag / wait_flag
pairs its pipes need on T, so that the sync checker (passes/sync_check.py) accepts it.

Each instruction runs its phases (pto_dialect/phases.py) on the pipes T's lowering picks. Before an
instruction, each pipe of its phases waits for every other pipe that last wrote memory the phase
reads or writes (RAW, WAW), or read memory it writes (WAR), unless it is ordered after that access
already (waits are transitive: a pipe that waited for one that had waited for a third is ordered
after it too). Where the flag goes depends on where the producer ran:

- in the same loop iteration (or with no loop between): `pto.set_flag[<P>, <Q>, <EVENT_IDn>]` then
  `pto.wait_flag[...]` right before the instruction (P signals once its earlier work is done, Q
  waits for it);
- before a loop the instruction is in: the same pair right before that loop (once, not every trip);
- in an earlier iteration of a loop (the loop reuses a buffer): a loop-carried flag. Its set_flag
  follows the body op holding the producer, its wait_flag precedes the body op holding the
  consumer, one set_flag before the loop stands for the iteration before the first (the buffer
  starts free) and one wait_flag after it takes the last iteration's. Each carried flag has its
  own event id, so with two buffers used in turn (ping, pong) the load of ping in iteration i+1
  waits only for the flag set after iteration i's last use of ping, and the load of pong may
  overlap the store of ping.

Event ids come from T's SyncFacts (`flag_events` per pipe pair). A carried flag is pending across
its loop's body, so it keeps its id for the whole loop: the pairs inside and the instructions'
own library flags (INTERNAL_FLAGS) take others. A loop whose flags need more ids than T has ends
its body with `pto.barrier <PIPE_ALL>` instead (the next iteration's pipes start after all of it),
and so does a loop nested more than `_DEEPEST` deep (finding carried flags replays each loop's
body twice: a deep nest would replay its innermost body exponentially often).
A `func.call` of a function that issues instructions (or of one the module does not define) has
a barrier before and after it: the callee is synchronized as a kernel of its own, which starts
with every pipe idle, and the caller cannot place flags inside a body other callers share. These
are the only barriers the pass writes. Each `scf.if` branch gets its own pairs; after the `scf.if`, what
either branch may have done counts, and a loop that may run no trip counts as both.

Memory is tracked per operand value (tile, GM view) and its bytes, as the checker sees it: tiles
at constant addresses whose bytes overlap are one memory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.dialects.func import CallOp, FuncOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from pto_dialect.walk import walk

import targets
from pto_dialect.instruction import Pipe
from pto_dialect.ops import AllocTileOp, SectionCubeOp, SectionVectorOp
from pto_dialect.ops.common import PtoInstructionOp
from pto_dialect.ops.sync import SYNC_OPS, BarrierOp, SetFlagOp, WaitFlagOp
from pto_dialect.phases import InternalFlag, Phase, Step, internal_flags, phases_of, without_ignored


def target_phases(target: targets.TargetInfo) -> Callable[[Operation], tuple[tuple[Step, ...], tuple[InternalFlag, ...]] | None]:
    """An op's phases and internal flags on `target`: a lowered op's own; a pto instruction's as
    the lowered op its target picks for it declares them. An operand the target's code ignores
    (a tmp: pto_dialect/phases.py without_ignored) is no access."""

    def of(op: Operation):  # noqa: ANN202
        if isinstance(op, PtoInstructionOp) and not op.res:
            lowered, _ = target.lowering.choose(op)
            declared: tuple[Phase, ...] | None = getattr(lowered, "PHASES", None)
            if declared is not None:
                steps = tuple(
                    Step(p.pipe, tuple(v for v in map(op.role, p.reads) if v is not None), tuple(v for v in map(op.role, p.writes) if v is not None))
                    for p in declared
                )
                return without_ignored(op, steps, target.rules), getattr(lowered, "INTERNAL_FLAGS", ())
        steps = phases_of(op, target.rules)
        return None if steps is None else (steps, internal_flags(op))

    return of


@dataclass(frozen=True, slots=True)
class _Access:
    """An access as the model remembers it: its pipe, that pipe's count at it, the step's
    sequence number in the replay, and its instruction."""

    pipe: Pipe
    count: int
    seq: int
    op: Operation


_Snapshot = tuple[dict[Pipe, int], dict[tuple[Pipe, Pipe], int]]
"""Each pipe's count, and how far each pipe has waited for each other: what a set_flag carries."""


@dataclass
class _Model:
    """Per memory value: the accesses that may have written it last (several where paths met)
    and the latest read per pipe since; per pipe pair, how far the consumer has waited for the
    producer."""

    issued: dict[Pipe, int] = field(default_factory=dict)
    waited: dict[tuple[Pipe, Pipe], int] = field(default_factory=dict)
    writes: dict[SSAValue, tuple[_Access, ...]] = field(default_factory=dict)
    reads: dict[SSAValue, dict[Pipe, _Access]] = field(default_factory=dict)
    steps: int = 0

    def copy(self) -> _Model:
        return _Model(dict(self.issued), dict(self.waited), dict(self.writes),
                      {v: dict(r) for v, r in self.reads.items()}, self.steps)

    def snapshot(self) -> _Snapshot:
        return dict(self.issued), dict(self.waited)

    def needs(self, step: Step, aliases: dict[SSAValue, tuple[SSAValue, ...]]) -> list[_Access]:
        """Per other pipe, the latest access `step` must be ordered after and is not yet: over
        each value's bytes, the accesses to values `aliases` says share them, made since the
        value itself was last written."""
        found: list[_Access] = []
        for value in (*step.reads, *step.writes):
            since = min((a.seq for a in self.writes.get(value, ())), default=-1)
            for alias in aliases.get(value, (value,)):
                found += [a for a in self.writes.get(alias, ()) if alias is value or a.seq > since]
                if value in step.writes:
                    found += [a for a in self.reads.get(alias, {}).values() if alias is value or a.seq > since]
        latest: dict[Pipe, _Access] = {}
        for access in found:
            if access.pipe != step.pipe and self.waited.get((step.pipe, access.pipe), 0) < access.count:
                if access.pipe not in latest or access.count > latest[access.pipe].count:
                    latest[access.pipe] = access
        return list(latest.values())

    def waits_of(self, pipe: Pipe) -> int:
        """How many other pipes `pipe` has waited for."""
        return sum(1 for waiter, _ in self.waited if waiter == pipe)

    def wait(self, consumer: Pipe, producer: Pipe, at: _Snapshot | None = None) -> None:
        """`consumer` waits for a flag `producer` set at `at` (default: now): for all `producer`
        had issued then, and so for all that `producer` had waited for."""
        issued, waited = at if at is not None else (self.issued, self.waited)
        if self.waited.get((consumer, producer), 0) < (count := issued.get(producer, 0)):
            self.waited[(consumer, producer)] = count
        for (waiter, other), count in list(waited.items()):
            if waiter == producer and other != consumer and count > self.waited.get((consumer, other), 0):
                self.waited[(consumer, other)] = count

    def issue(self, step: Step, covered: dict[SSAValue, tuple[SSAValue, ...]], op: Operation) -> None:
        """`step` of `op` runs; what it writes is now last written by it, and so is every value
        whose bytes lie inside (`covered`)."""
        n = self.issued[step.pipe] = self.issued.get(step.pipe, 0) + 1
        self.steps += 1
        access = _Access(step.pipe, n, self.steps, op)
        for value in step.reads:
            self.reads.setdefault(value, {})[step.pipe] = access
        for value in step.writes:
            for inside in covered.get(value, (value,)):
                self.writes[inside] = (access,)
                self.reads[inside] = {}

    @staticmethod
    def merge(a: _Model, b: _Model) -> _Model:
        """Where two paths meet: every access either may have made; only the waits both made."""
        merged = _Model(
            {p: max(a.issued.get(p, 0), b.issued.get(p, 0)) for p in {*a.issued, *b.issued}},
            {k: min(n, b.waited[k]) for k, n in a.waited.items() if k in b.waited},
            steps=max(a.steps, b.steps),
        )
        for value in {*a.writes, *b.writes}:
            merged.writes[value] = tuple(dict.fromkeys((*a.writes.get(value, ()), *b.writes.get(value, ()))))
        for value in {*a.reads, *b.reads}:
            reads = dict(a.reads.get(value, {}))
            for pipe, access in b.reads.get(value, {}).items():
                if pipe not in reads or access.count > reads[pipe].count:
                    reads[pipe] = access
            merged.reads[value] = reads
        return merged


@dataclass(frozen=True)
class _Carried:
    """A loop-carried flag: set after body op `set_after`, waited for before body op `wait_before`."""

    producer: Pipe
    consumer: Pipe
    set_after: Operation
    wait_before: Operation


@dataclass
class _Frame:
    """A loop being replayed: the state at its entry (what the set_flags before it carry), where
    its replay and its current iteration began, and the state after each body op in the
    previous iteration (what that iteration's carried set_flags carry)."""

    loop: scf.ForOp
    entry: _Snapshot
    entry_seq: int
    start: _Model
    """The state at its entry, for the path where it runs no iteration."""
    iteration_seq: int = 0
    previous: dict[Operation, _Snapshot] | None = None


@dataclass
class _Inserter:
    phases: Callable[[Operation], tuple[tuple[Step, ...], tuple[InternalFlag, ...]] | None]
    events: int
    functions: dict[str, FuncOp] = field(default_factory=dict)
    """The module's functions by name, for the calls."""
    calls: list[CallOp] = field(default_factory=list)
    """The calls that get a barrier before and after."""
    aliases: dict[SSAValue, tuple[SSAValue, ...]] = field(default_factory=dict)
    """The kernel's tiles at constant addresses, each with those whose bytes overlap its own."""
    covered: dict[SSAValue, tuple[SSAValue, ...]] = field(default_factory=dict)
    """The same tiles, each with those whose bytes lie inside its own."""
    pairs: dict[Operation, list[tuple[Pipe, Pipe]]] = field(default_factory=dict)
    """Set and waited for right before the op."""
    hoisted: dict[Operation, list[tuple[Pipe, Pipe]]] = field(default_factory=dict)
    """Set and waited for right before a loop: a producer before it, a consumer in it. These and
    `pairs` are found again by each replay; the carried flags are kept from one to the next."""
    carried: dict[scf.ForOp, list[_Carried]] = field(default_factory=dict)
    barrier_loops: set[scf.ForOp] = field(default_factory=set)
    """Loops whose carried flags would need more event ids than the target has."""
    frames: list[_Frame] = field(default_factory=list)
    branches: list[tuple[int, list[_Model]]] = field(default_factory=list)
    """Per scf.if being replayed: how many loops were around it, its paths' models."""
    loop_pipes: dict[Operation, set[Pipe]] = field(default_factory=dict)
    """The pipes the instructions in each loop run on (a call: all)."""
    discovered: bool = False
    """A carried flag found: replay again (its wait orders the first iteration too)."""

    def function(self, function: FuncOp) -> int:
        """Find the flags `function` needs, give them event ids, insert them; how many set_flags
        and barriers."""
        self.aliases, self.covered = _placed_aliases(function)
        for op in walk(function):
            found = self.phases(op)
            pipes = {Pipe.ALL, Pipe.SCALAR} if isinstance(op, CallOp) else {s.pipe for s in found[0]} if found else set()
            for loop in _loops_around(op) if pipes else ():
                self.loop_pipes.setdefault(loop, set()).update(pipes)
        self.carried, self.barrier_loops = {}, set()
        while True:
            self.discovered = True
            while self.discovered:
                self.pairs, self.hoisted, self.discovered, self.frames, self.calls = {}, {}, False, [], []
                self.block(function.body.block, _Model())
            ids = self.allocate(function)
            if isinstance(ids, scf.ForOp):
                self.barrier_loops.add(ids)
                self.carried.pop(ids, None)
                continue
            return self.materialize(ids)

    def block(self, block: Block, model: _Model) -> _Model:
        for op in list(block.ops):
            model = self.op(op, model)
        return model

    def op(self, op: Operation, model: _Model) -> _Model:
        self.waits_before(op, model)
        found = self.phases(op)
        if found is not None:
            steps, _ = found
            before = model.snapshot()
            previous: Pipe | None = None
            for step in steps:
                if previous is not None and previous != step.pipe:
                    model.wait(step.pipe, previous)  # the instruction orders its own phases
                # A producer that has itself waited for others goes first: waiting for it may cover them.
                needed = sorted(model.needs(step, self.aliases), key=lambda a: (-model.waits_of(a.pipe), a.pipe.value))
                for access in needed:
                    if model.waited.get((step.pipe, access.pipe), 0) < access.count:
                        self.order(op, step.pipe, access, model, before)
                model.issue(step, self.covered, op)
                previous = step.pipe
            return model
        if isinstance(op, SectionVectorOp | SectionCubeOp):
            return self.block(op.body.block, model)
        if isinstance(op, CallOp) and self.issues_work(op.callee.root_reference.data, set()):
            self.calls.append(op)
            return _Model(steps=model.steps)  # the barrier after it orders all of it, and all before
        if isinstance(op, scf.ForOp):
            return self.loop(op, model)
        if isinstance(op, scf.IfOp):
            # The paths' models, kept where a flag found inside a branch but placed before a loop
            # around the scf.if also orders the other path (`order`).
            paths = [model]
            self.branches.append((len(self.frames), paths))
            for region in (op.true_region, op.false_region):
                paths.append(self.block(region.block, model.copy()) if region.blocks else model)
            self.branches.pop()
            return _Model.merge(paths[1], paths[2])
        return model

    def one_pipe(self, loop: scf.ForOp) -> bool:
        """Every instruction in `loop` runs on one pipe, and it calls no function."""
        return len(self.loop_pipes.get(loop, ())) <= 1

    def issues_work(self, name: str, seen: set[str]) -> bool:
        """The function `name` may run an instruction (one the module does not define may)."""
        callee = self.functions.get(name)
        if callee is None or not callee.body.blocks:
            return True
        seen.add(name)
        return any(
            self.phases(op) is not None
            or isinstance(op, CallOp) and op.callee.root_reference.data not in seen and self.issues_work(op.callee.root_reference.data, seen)
            for op in walk(callee)
        )

    def waits_before(self, op: Operation, model: _Model) -> None:
        """The waits placed before `op`, as the replay reaches it."""
        for producer, consumer in self.pairs.get(op, ()):
            model.wait(consumer, producer)
        if self.frames and op.parent_block() is (frame := self.frames[-1]).loop.body.block:
            for carried in self.carried.get(frame.loop, ()):
                if carried.wait_before is op:
                    # the first iteration takes the set_flag before the loop, the others the previous iteration's
                    at = frame.entry if frame.previous is None else frame.previous[carried.set_after]
                    model.wait(carried.consumer, carried.producer, at)

    def order(self, op: Operation, consumer: Pipe, access: _Access, model: _Model, before: _Snapshot) -> None:
        """Order `consumer`'s phase of `op` after `access`, by a flag placed where the loops
        around them allow (the module docstring)."""
        pair = (access.pipe, consumer)
        entered: list[_Frame] = []  # the loops entered since the access, outermost first
        for frame in reversed(self.frames):
            if access.seq > frame.iteration_seq:  # steps are numbered from 1 past the count
                break
            if access.seq > frame.entry_seq:  # an earlier iteration of this loop
                carried = _Carried(access.pipe, consumer, _body_op(frame.loop, access.op), _body_op(frame.loop, op))
                known = self.carried.setdefault(frame.loop, [])
                if carried not in known:
                    known.append(carried)
                    self.discovered = True
                if carried.wait_before is op and frame is self.frames[-1]:
                    model.wait(consumer, access.pipe, frame.entry if frame.previous is None else frame.previous[carried.set_after])
                return
            entered.insert(0, frame)
        anchored, at = (self.hoisted, entered[0].loop) if entered else (self.pairs, op)
        if pair not in (pairs := anchored.setdefault(at, [])):
            pairs.append(pair)
        # the set_flag goes right before `at`: it carries what the producer had issued there
        model.wait(consumer, access.pipe, entered[0].entry if entered else before)
        depth = len(self.frames) - len(entered)
        for other in [*(f.start for f in entered), *(m for d, models in self.branches if d > depth for m in models)]:
            other.wait(consumer, access.pipe, entered[0].entry)  # the paths that skip the consumer pass it too

    def loop(self, op: scf.ForOp, model: _Model) -> _Model:
        trips = _trip_count(op)
        if trips == 0:
            return model
        one_pipe = self.one_pipe(op)  # its iterations are in order on that pipe: one replay shows all
        if trips != 1 and not one_pipe and len(self.frames) >= _DEEPEST:
            # Each loop replays its body twice, so a nest replays its innermost body 2**depth
            # times: past _DEEPEST levels a barrier ends each iteration instead, which one replay shows.
            self.barrier_loops.add(op)
        start = model.copy()
        body = op.body.block
        after: dict[Operation, _Snapshot] = {}
        frame = _Frame(op, model.snapshot(), model.steps, start)
        self.frames.append(frame)
        # Two iterations: the second meets what the first left (loop-carried hazards); a
        # barrier loop's body ends ordered after all of it, so one shows all.
        for _ in range(2 if trips != 1 and not one_pipe and op not in self.barrier_loops else 1):
            frame.iteration_seq = model.steps
            after = {}
            for body_op in list(body.ops):
                model = self.op(body_op, model)
                after[body_op] = model.snapshot()
            frame.previous = after
        self.frames.pop()
        if op in self.barrier_loops:
            model = _Model(steps=model.steps)
        for carried in self.carried.get(op, ()):  # the wait_flags after the loop take the last iteration's
            model.wait(carried.consumer, carried.producer, after[carried.set_after])
            start.wait(carried.consumer, carried.producer)
        return model if trips is not None else _Model.merge(start, model)

    def allocate(self, function: FuncOp) -> dict[object, int] | scf.ForOp:
        """An event id for each flag: a carried flag's differs from every flag pending while its
        loop runs (the other carried flags of the loops around, the library flags of the
        instructions in it); a pair's from the carried flags around it and its instruction's own
        library flags. A loop whose carried flag finds none is returned instead."""
        ids: dict[object, int] = {}

        def free(pair: tuple[Pipe, Pipe], at: Operation, taken: set[int]) -> int | None:
            taken = taken | {ids[c] for loop in _loops_around(at) for c in self.carried.get(loop, ()) if (c.producer, c.consumer) == pair}
            return next((e for e in range(self.events) if e not in taken), None)

        for loop in (op for op in walk(function) if isinstance(op, scf.ForOp)):
            for carried in self.carried.get(loop, ()):
                pair = (carried.producer, carried.consumer)
                taken = {ids[c] for c in self.carried[loop] if c in ids and (c.producer, c.consumer) == pair}
                taken |= {f.event for inner in walk(loop) for f in self.internal(inner) if (f.src, f.dst) == pair}
                event = free(pair, loop, taken)
                if event is None:
                    return loop
                ids[carried] = event
        for anchored in (self.pairs, self.hoisted):
            for op, pairs in anchored.items():
                for pair in pairs:
                    event = free(pair, op, {f.event for f in self.internal(op) if (f.src, f.dst) == pair})
                    if event is None:
                        return _loops_around(op)[-1]  # the innermost loop's carried flags took them all
                    ids[(op, pair)] = event
        return ids

    def internal(self, op: Operation) -> tuple[InternalFlag, ...]:
        found = self.phases(op)
        return found[1] if found is not None else ()

    def materialize(self, ids: dict[object, int]) -> int:
        inserted = 0
        for anchored in (self.pairs, self.hoisted):  # before a loop, before its carried set_flags
            for op, pairs in anchored.items():
                for producer, consumer in pairs:
                    event = ids[(op, (producer, consumer))]
                    Rewriter.insert_op([SetFlagOp(producer, consumer, event), WaitFlagOp(producer, consumer, event)], InsertPoint.before(op))
                    inserted += 1
        for loop, flags in self.carried.items():
            last: dict[Operation, Operation] = {}  # the flags inserted after an op so far, in order
            for carried in flags:
                event, pair = ids[carried], (carried.producer, carried.consumer)
                Rewriter.insert_op(SetFlagOp(*pair, event), InsertPoint.before(loop))
                Rewriter.insert_op(WaitFlagOp(*pair, event), InsertPoint.before(carried.wait_before))
                for anchor, flag in ((carried.set_after, SetFlagOp(*pair, event)), (loop, WaitFlagOp(*pair, event))):
                    Rewriter.insert_op(flag, InsertPoint.after(last.get(anchor, anchor)))
                    last[anchor] = flag
                inserted += 2
        for call in self.calls:
            Rewriter.insert_op(BarrierOp(Pipe.ALL), InsertPoint.before(call))
            Rewriter.insert_op(BarrierOp(Pipe.ALL), InsertPoint.after(call))
            inserted += 2
        for loop in self.barrier_loops:
            if _trip_count(loop) != 0:
                assert (end := loop.body.block.last_op) is not None
                Rewriter.insert_op(BarrierOp(Pipe.ALL), InsertPoint.before(end))  # before the yield
                inserted += 1
        return inserted


_DEEPEST = 6
"""Loops nested deeper than this get a barrier, not carried flags (the replay's cost)."""


def _trip_count(loop: scf.ForOp) -> int | None:
    from pto_dialect.ops.memory import constant_index

    lb, ub, step = constant_index(loop.lb), constant_index(loop.ub), constant_index(loop.step)
    return None if lb is None or ub is None or step is None or step <= 0 else len(range(lb, ub, step))


def _body_op(loop: scf.ForOp, op: Operation) -> Operation:
    """The op of `loop`'s body that is or holds `op`."""
    while op.parent_block() is not loop.body.block:
        assert (parent := op.parent_op()) is not None
        op = parent
    return op


def _loops_around(op: Operation) -> list[scf.ForOp]:
    """The loops `op` is in, outermost first."""
    loops: list[scf.ForOp] = []
    while (op := op.parent_op()) is not None:  # pyright: ignore[reportAssignmentType]
        if isinstance(op, scf.ForOp):
            loops.insert(0, op)
    return loops


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
    """Insert the sync of every kernel without its own; returns how many set_flags and barriers."""
    inserted = 0
    functions = {op.sym_name.data: op for op in walk(module) if isinstance(op, FuncOp)}
    for function in functions.values():
        if function.body.blocks and not has_explicit_sync(function):
            inserted += _Inserter(target_phases(target), target.sync.flag_events, functions).function(function)
    return inserted


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
