"""
The sync checker: on the NPU each pipe runs its own queue, and only set_flag / wait_flag
and barriers order one pipe's work after another's. Every CPU run (ours, pto-isa's
simulator) is in program order, so a missing flag shows only on the device. This checker
replays a lowered kernel's pipes with vector clocks:

- each instruction phase (pto_dialect/phases.py) is an access on its pipe to the UB / L1 /
  GM bytes of its operands; a later access from another pipe to overlapping bytes (RAW,
  WAR, WAW) must be ordered after it by a chain of flags or a barrier, else it is a race,
  reported at the later op, naming both ops, their pipes and the flag pair that orders them;
  accesses on one pipe are in order and never reported;
- `pto.set_flag` sends the source pipe's clock; `pto.wait_flag` takes the oldest pending set
  of its (src, dst, event) and joins its clock into the destination pipe's; one with none
  pending on some path is a deadlock; `pto.barrier <PIPE_ALL>` joins every pipe;
- a flag still set at the end of the kernel is a warning;
- a multi-phase instruction runs its phases in order (its library code's own flags), and a
  flag of the kernel's pending on a pair it uses itself (INTERNAL_FLAGS) is an error.

Static mode (`pto-opt --verify-sync`): values the kernel computes from its arguments are
unknown; a loop runs its body twice (iteration i and i+1, where loop-carried hazards meet)
and may also run zero times; an `scf.if` whose condition is unknown runs both branches and
keeps only what both guarantee (a flag set on one path only cannot satisfy a later wait).
Dynamic mode (`pto-run --check-sync`): the same replay with the run's scalar arguments,
every iteration with its induction variable's value, which the messages name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from bisect import bisect_left, insort
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Operation, SSAValue

from pto_dialect.diagnostics import PtoError, op_location
from pto_dialect.instruction import Pipe
from pto_dialect.ops import AllocTileOp, MakeTensorViewOp, PartitionViewOp, SectionCubeOp, SectionVectorOp, TAssignOp
from pto_dialect.ops.sync import BarrierOp, CrossCoreBase, DynFlagOp, FlagOpBase, SetFlagDynOp, SetFlagOp
from pto_dialect.phases import internal_flags, phases_of
from pto_dialect.types import PtrType, TileTypeBase
from targets.info import MEMORY_NAMES, SyncFacts

Clock = dict[Pipe, int]


class Region(NamedTuple):
    """Bytes [start, end) of one memory (`vec`, `mat`, GM argument i, a private tile); start None: anywhere in it."""

    space: object
    start: int | None = None
    end: int | None = None

    def describe(self) -> str:
        kind, *rest = self.space if isinstance(self.space, tuple) else (self.space,)
        if kind == "mem":
            what = MEMORY_NAMES.get(str(rest[0]), str(rest[0]))
        else:
            what = f"GM argument {rest[0]}" if kind == "gm" else "tile"
        span = "" if self.start is None else f" bytes [{self.start}, {self.end})"
        return what + span


@dataclass(frozen=True)
class _View:
    """A GM tensor view: which buffer, element bytes, byte offset (None: unknown), element strides."""

    buffer: object
    element_bytes: int
    offset: int | None
    strides: tuple[int | None, ...]


@dataclass(frozen=True, slots=True)
class Access:
    op: Operation
    pipe: Pipe
    seq: int
    phase: int | None
    where: tuple[str, ...]
    seen_by: frozenset[Pipe] = frozenset()
    """Pipes ordered after it on every path that ran it (kept when paths merge)."""

    def ordered_for(self, pipe: Pipe, clock: Clock) -> bool:
        return pipe == self.pipe or pipe in self.seen_by or clock.get(self.pipe, 0) >= self.seq

    def describe(self) -> str:
        phase = f" (its phase {self.phase + 1})" if self.phase is not None else ""
        return f"{written_name(self.op)} at {op_location(self.op) or '?'}{''.join(self.where)}{phase}"


@dataclass
class _Shadow:
    writes: dict[Pipe, Access] = field(default_factory=dict)
    reads: dict[Pipe, Access] = field(default_factory=dict)


@dataclass
class _SpaceIndex:
    known: list[tuple[int, int, Region]] = field(default_factory=list)
    longest: int = 0
    unknown: list[Region] = field(default_factory=list)

    def add(self, region: Region) -> None:
        if region.start is None or region.end is None:
            self.unknown.append(region)
        else:
            insort(self.known, (region.start, region.end, region))
            self.longest = max(self.longest, region.end - region.start)

    def overlapping(self, region: Region) -> list[Region]:
        if region.start is None or region.end is None:
            return [r for _, _, r in self.known] + self.unknown
        lo = bisect_left(self.known, (region.start - self.longest,))
        hi = bisect_left(self.known, (region.end,))
        return [r for start, end, r in self.known[lo:hi] if end > region.start] + self.unknown

    def copy(self) -> _SpaceIndex:
        return _SpaceIndex(list(self.known), self.longest, list(self.unknown))


@dataclass
class _Token:
    clock: Clock
    op: Operation
    event: int | None
    where: str


@dataclass
class PipeState:
    clocks: dict[Pipe, Clock] = field(default_factory=dict)
    flags: dict[tuple[Pipe, Pipe], list[_Token]] = field(default_factory=dict)
    shadow: dict[Region, _Shadow] = field(default_factory=dict)
    index: dict[object, _SpaceIndex] = field(default_factory=dict)
    """The shadow's regions per memory, sorted, so an access finds what it overlaps by bisection."""
    maybe_left: list[tuple[tuple[Pipe, Pipe], _Token]] = field(default_factory=list)
    """Flags pending on some path only where paths met (a loop that may run no trip, a branch):
    no wait can rely on them, but one may be left set at the end (a warning)."""

    def clock(self, pipe: Pipe) -> Clock:
        return self.clocks.setdefault(pipe, {})

    def entry(self, region: Region) -> _Shadow:
        found = self.shadow.get(region)
        if found is None:
            found = self.shadow[region] = _Shadow()
            self.index.setdefault(region.space, _SpaceIndex()).add(region)
        return found

    def overlapping(self, region: Region) -> list[_Shadow]:
        space = self.index.get(region.space)
        if space is None:
            return []
        return [self.shadow[r] for r in space.overlapping(region)]

    def reindex(self) -> None:
        self.index = {}
        for region in self.shadow:
            self.index.setdefault(region.space, _SpaceIndex()).add(region)

    def copy(self) -> PipeState:
        return PipeState(
            {p: dict(c) for p, c in self.clocks.items()},
            {k: list(v) for k, v in self.flags.items()},
            {r: _Shadow(dict(s.writes), dict(s.reads)) for r, s in self.shadow.items()},
            {space: i.copy() for space, i in self.index.items()},
            list(self.maybe_left),
        )

    @staticmethod
    def merge(a: PipeState, b: PipeState) -> PipeState:
        """What both paths guarantee: a pipe's own count the larger, what it has seen of
        another the smaller; a flag pending on both; every access of either."""
        merged = PipeState()
        for pipe in set(a.clocks) | set(b.clocks):
            ca, cb = a.clocks.get(pipe, {}), b.clocks.get(pipe, {})
            merged.clocks[pipe] = {
                p: (max if p == pipe else min)(ca.get(p, 0), cb.get(p, 0)) for p in set(ca) | set(cb)
            }
        for key in set(a.flags) | set(b.flags):
            ta, tb = a.flags.get(key, []), b.flags.get(key, [])
            merged.flags[key] = [
                _Token({p: min(x.clock.get(p, 0), y.clock.get(p, 0)) for p in x.clock}, x.op, x.event, x.where)
                for x, y in zip(ta, tb)
            ]
            longer = ta if len(ta) > len(tb) else tb
            merged.maybe_left += [(key, token) for token in longer[len(merged.flags[key]):]]
        merged.maybe_left += [*a.maybe_left, *b.maybe_left]
        for region in set(a.shadow) | set(b.shadow):
            sa, sb = a.shadow.get(region, _Shadow()), b.shadow.get(region, _Shadow())
            merged.shadow[region] = _Shadow(
                _latest(_seen(sa.writes, a), _seen(sb.writes, b)), _latest(_seen(sa.reads, a), _seen(sb.reads, b))
            )
        merged.reindex()
        return merged


def _seen(accesses: dict[Pipe, Access], path: PipeState) -> dict[Pipe, Access]:
    """Each access with the pipes `path` ordered after it (where the other path never ran it,
    only this one's order matters)."""
    return {
        pipe: replace(a, seen_by=a.seen_by | {q for q, clock in path.clocks.items() if a.ordered_for(q, clock)})
        for pipe, a in accesses.items()
    }


def _latest(a: dict[Pipe, Access], b: dict[Pipe, Access]) -> dict[Pipe, Access]:
    """Per pipe, the later access; one both paths ran is seen by a pipe only if both order it."""
    out = dict(a)
    for pipe, access in b.items():
        mine = out.get(pipe)
        if mine is None or access.seq > mine.seq:
            out[pipe] = access
        elif access.op is mine.op and access.seq == mine.seq:
            out[pipe] = replace(mine, seen_by=mine.seen_by & access.seen_by)
    return out


@dataclass
class SyncReport:
    errors: list[PtoError] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _unchanged(state: PipeState) -> PipeState:
    return state


class _Unknown(Exception):
    """A value the replay cannot know."""


class SyncChecker:
    def __init__(self, facts: SyncFacts, scalars: dict[SSAValue, object] | None = None):
        self.facts = facts
        self.dynamic = scalars is not None
        self.values: dict[SSAValue, object] = dict(scalars or {})
        self.report = SyncReport()
        self.reported: set[tuple[object, ...]] = set()
        self.where: list[str] = []
        self.handlers: dict[Operation, Callable[[PipeState], PipeState]] = {}

    # -- driving -------------------------------------------------------------------

    def function(self, function: FuncOp) -> SyncReport:
        for index, arg in enumerate(function.args):
            if isinstance(arg.type, PtrType):
                self.values[arg] = _View(("gm", index), arg.type.element.bytes, 0, ())
            elif isinstance(arg.type, TileTypeBase):
                self.values[arg] = Region(("arg", index), 0, arg.type.size_bytes)
        state = self.block(function.body.block, PipeState())
        left = [(key, token, "") for key, tokens in state.flags.items() for token in tokens]
        seen = {id(token.op) for _, token, _ in left}
        for key, token in state.maybe_left:  # pending on some path only where paths met
            if id(token.op) not in seen:
                seen.add(id(token.op))
                left.append((key, token, " on some path"))
        for (src, dst), token, paths in sorted(left, key=lambda kv: (kv[0][0].value, kv[0][1].value)):
            event = f"<EVENT_ID{token.event}>" if token.event is not None else "its event"
            self.report.warnings.append(
                f"{op_location(token.op) or '?'}: warning: '{token.op.name}' op flag "
                f"[<{src.value}>, <{dst.value}>, {event}] set{token.where} is still set when the kernel ends"
                f"{paths} (no wait_flag takes it)"
            )
        return self.report

    def block(self, block: Block, state: PipeState) -> PipeState:
        for op in block.ops:
            state = self.op(op, state)
        return state

    def op(self, op: Operation, state: PipeState) -> PipeState:
        handler = self.handlers.get(op)
        if handler is None:
            handler = self.handlers[op] = self.handler(op)
        return handler(state)

    def handler(self, op: Operation) -> Callable[[PipeState], PipeState]:
        """What replaying the op does, decided once per op (a loop replays its body often)."""
        if (steps := phases_of(op)) is not None:
            return lambda state: self.instruction(op, steps, state)
        if isinstance(op, FlagOpBase):
            return lambda state: self.flag(op, state)
        if isinstance(op, BarrierOp):
            return self.barrier if op.pipe.data == Pipe.ALL else _unchanged  # one pipe is in order anyway
        if isinstance(op, scf.ForOp):
            return lambda state: self.loop(op, state)
        if isinstance(op, scf.IfOp):
            return lambda state: self.branch(op, state)
        if isinstance(op, SectionVectorOp | SectionCubeOp):
            return lambda state: self.block(op.body.block, state)
        if isinstance(op, CrossCoreBase | ReturnOp | scf.YieldOp):
            return _unchanged  # cross-core signals order cores, not the pipes of one
        if isinstance(op, PartitionViewOp):
            operands = (op.source, tuple(op.offsets), tuple(op.sizes), op.result)
            return lambda state: self.partition(operands, state)
        return lambda state: self.evaluate(op, state)

    def barrier(self, state: PipeState) -> PipeState:
        joined: Clock = {}
        for clock in state.clocks.values():
            _join(joined, clock)
        state.clocks = {pipe: dict(joined) for pipe in Pipe}
        return state

    def loop(self, op: scf.ForOp, state: PipeState) -> PipeState:
        lb, ub, step = (self.values.get(v) for v in (op.lb, op.ub, op.step))
        iv = op.body.block.args[0]
        name = iv.name_hint or "i"
        if all(isinstance(v, int) for v in (lb, ub, step)) and self.dynamic:
            for i in range(lb, ub, step):  # pyright: ignore[reportArgumentType, reportCallIssue]
                self.values[iv] = i
                self.where.append(f" in iteration %{name} = {i}")
                state = self.block(op.body.block, state)
                self.where.pop()
            return state
        trips = len(range(lb, ub, step)) if all(isinstance(v, int) for v in (lb, ub, step)) else None  # pyright: ignore[reportArgumentType]
        self.values[iv] = None
        before = state.copy()
        for k in range(min(trips if trips is not None else 2, 2)):
            self.where.append(f" in iteration {'i' if k == 0 else 'i+1'} of the loop over %{name}")
            state = self.block(op.body.block, state)
            self.where.pop()
        return PipeState.merge(before, state) if trips is None or trips == 0 else state

    def branch(self, op: scf.IfOp, state: PipeState) -> PipeState:
        cond = self.values.get(op.cond)
        if isinstance(cond, int | bool):
            region = op.true_region if cond else op.false_region
            return self.block(region.block, state) if region.blocks else state
        paths = []
        for region, which in ((op.true_region, "then"), (op.false_region, "else")):
            self.where.append(f" (on the {which} path of the scf.if at {op_location(op) or '?'})")
            paths.append(self.block(region.block, state.copy()) if region.blocks else state.copy())
            self.where.pop()
        return PipeState.merge(*paths)

    # -- values --------------------------------------------------------------------

    def evaluate(self, op: Operation, state: PipeState) -> PipeState:
        try:
            value = self._value(op)
        except _Unknown:
            value = None
        if op.results:
            self.values[op.results[0]] = value
        return state

    def known(self, value: SSAValue) -> int:
        v = self.values.get(value)
        if not isinstance(v, int) or isinstance(v, bool) and False:
            raise _Unknown
        return v

    def _value(self, op: Operation) -> object:
        if isinstance(op, arith.ConstantOp):
            return op.value.value.data if isinstance(op.value, IntegerAttr) else None
        if (fn := _INT_OPS.get(type(op))) is not None:
            return fn(self.known(op.operands[0]), self.known(op.operands[1]))
        if isinstance(op, arith.IndexCastOp | arith.ExtSIOp | arith.ExtUIOp | arith.TruncIOp):
            return self.known(op.operands[0])
        if isinstance(op, arith.CmpiOp):
            return _compare(op.predicate.value.data, self.known(op.lhs), self.known(op.rhs))
        if isinstance(op, arith.SelectOp):
            return self.known(op.lhs) if self.known(op.cond) else self.known(op.rhs)
        if isinstance(op, MakeTensorViewOp):
            source = self.values.get(op.ptr)
            if not isinstance(source, _View):
                raise _Unknown
            strides = tuple(self.values.get(s) if isinstance(self.values.get(s), int) else None for s in op.strides)
            return _View(source.buffer, source.element_bytes, 0, strides)  # pyright: ignore[reportArgumentType]
        if isinstance(op, AllocTileOp):
            tile = op.tile
            addr = self.values.get(op.addr) if op.addr is not None else None
            if op.addr is None:
                return Region(("tile", id(op)), 0, tile.size_bytes)
            space = ("mem", tile.loc.data)
            return Region(space, addr, addr + tile.size_bytes) if isinstance(addr, int) else Region(space)
        if isinstance(op, TAssignOp):
            tile = op.result.type
            addr = self.values.get(op.addr)
            space = ("mem", tile.loc.data)  # pyright: ignore[reportAttributeAccessIssue]
            return Region(space, addr, addr + tile.size_bytes) if isinstance(addr, int) else Region(space)  # pyright: ignore[reportAttributeAccessIssue]
        raise _Unknown

    def partition(self, operands: tuple[SSAValue, tuple[SSAValue, ...], tuple[SSAValue, ...], SSAValue], state: PipeState) -> PipeState:
        source_value, offset_values, size_values, result = operands
        values = self.values
        source = values.get(source_value)
        if not isinstance(source, _View):
            values[result] = None
            return state
        offsets = [values.get(v) for v in offset_values]
        sizes = [values.get(v) for v in size_values]
        if source.offset is None or any(not isinstance(x, int) for x in (*offsets, *sizes, *source.strides)):
            values[result] = Region(source.buffer)
            return state
        start = source.offset + sum(o * s for o, s in zip(offsets, source.strides))  # pyright: ignore[reportOperatorIssue]
        extent = sum((n - 1) * s for n, s in zip(sizes, source.strides)) + 1  # pyright: ignore[reportOperatorIssue]
        eb = source.element_bytes
        values[result] = Region(source.buffer, start * eb, (start + extent) * eb)
        return state

    def region(self, value: SSAValue) -> Region | None:
        v = self.values.get(value)
        if isinstance(v, Region):
            return v
        if isinstance(v, _View):
            return Region(v.buffer)
        return None

    # -- pipes ---------------------------------------------------------------------

    def instruction(self, op: Operation, steps, state: PipeState) -> PipeState:  # noqa: ANN001
        for flag in internal_flags(op) if any(state.flags.values()) else ():
            for token in state.flags.get((flag.src, flag.dst), []):
                if token.event in (flag.event, None):
                    self.error(
                        op,
                        f"runs while flag [<{flag.src.value}>, <{flag.dst.value}>, <EVENT_ID{flag.event}>] set by "
                        f"{written_name(token.op)} at {op_location(token.op) or '?'}{token.where} is pending; its library code "
                        f"sets and waits for that flag itself, so its wait would take that set (use another event id)",
                        ("internal", op, token.op),
                    )
        previous: Pipe | None = None
        multi = len(steps) > 1
        where = tuple(self.where)
        region_of = self.region
        for index, step in enumerate(steps):
            clock = state.clock(step.pipe)
            if previous is not None and previous != step.pipe:  # the library orders its own phases
                _join(clock, state.clock(previous))
            clock[step.pipe] = clock.get(step.pipe, 0) + 1
            access = Access(op, step.pipe, clock[step.pipe], index if multi else None, where)
            for value in step.reads:
                if (region := region_of(value)) is not None:
                    self.access(state, region, access, write=False)
            for value in step.writes:
                if (region := region_of(value)) is not None:
                    self.access(state, region, access, write=True)
            previous = step.pipe
        return state

    def access(self, state: PipeState, region: Region, access: Access, write: bool) -> None:
        clock = state.clocks[access.pipe]
        for shadow in state.overlapping(region):
            for earlier in shadow.writes.values():
                if not earlier.ordered_for(access.pipe, clock):
                    self.race("WAW" if write else "RAW", earlier, access, region, state)
            if write:
                for earlier in shadow.reads.values():
                    if not earlier.ordered_for(access.pipe, clock):
                        self.race("WAR", earlier, access, region, state)
        shadow = state.entry(region)
        if write:
            shadow.writes = {access.pipe: access}
            shadow.reads = {}
        else:
            shadow.reads[access.pipe] = access

    def race(self, kind: str, earlier: Access, later: Access, region: Region, state: PipeState) -> None:
        key = (kind, earlier.op, earlier.phase, later.op, later.phase)
        if key in self.reported:
            return
        self.reported.add(key)
        src, dst = earlier.pipe.value, later.pipe.value
        event = self.free_event(state, earlier.pipe, later.pipe)
        verb = {"RAW": "reads", "WAR": "writes", "WAW": "writes"}[kind]
        what = {"RAW": "wrote", "WAR": "reads", "WAW": "writes"}[kind]
        phase = f" (its phase {later.phase + 1})" if later.phase is not None else ""
        self.error(
            later.op,
            f"{kind} race on {region.describe()}: it {verb} on {dst}{phase}{''.join(later.where)} what {earlier.describe()} "
            f"{what} on {src}, and no flag or barrier orders them; add pto.set_flag[<{src}>, <{dst}>, <EVENT_ID{event}>] "
            f"after the first and pto.wait_flag[<{src}>, <{dst}>, <EVENT_ID{event}>] before the second",
            None,
        )

    def free_event(self, state: PipeState, src: Pipe, dst: Pipe) -> int:
        used = {t.event for t in state.flags.get((src, dst), [])}
        return next((e for e in range(self.facts.flag_events) if e not in used), 0)

    def flag(self, op: FlagOpBase, state: PipeState) -> PipeState:
        src, dst = op.pair
        if isinstance(op, DynFlagOp):
            event = self.values.get(op.event_id)
            event = event if isinstance(event, int) else None
        else:
            event = op.event  # pyright: ignore[reportAttributeAccessIssue]
        where = "".join(self.where)
        tokens = state.flags.setdefault((src, dst), [])
        if isinstance(op, SetFlagOp | SetFlagDynOp):
            clock = state.clock(src)
            tokens.append(_Token(dict(clock), op, event, where))
            return state
        match = next((t for t in tokens if event is None or t.event is None or t.event == event), None)
        if match is None:
            shown = f"<EVENT_ID{event}>" if event is not None else "its event"
            self.error(
                op,
                f"deadlock{where}: it waits for flag [<{src.value}>, <{dst.value}>, {shown}] that no earlier "
                f"set_flag sets on {'this' if self.dynamic else 'some'} path, so {dst.value} would wait forever",
                ("deadlock", op),
            )
            for clock in list(state.clocks.values()):  # past a deadlock nothing runs: no more reports from it
                _join(state.clock(dst), clock)
            return state
        tokens.remove(match)
        _join(state.clock(dst), match.clock)
        return state

    def error(self, op: Operation, message: str, key: tuple[object, ...] | None) -> None:
        if key is not None:
            if key in self.reported:
                return
            self.reported.add(key)
        self.report.errors.append(PtoError.at_op(op, message, name=written_name(op)))


def written_name(op: Operation) -> str:
    """The name the kernel wrote: a lowered op's pto instruction."""
    source = getattr(op, "SOURCE", None)
    return source.name if source is not None else op.name


def _join(into: Clock, other: Clock) -> None:
    for p, n in other.items():
        if into.get(p, 0) < n:
            into[p] = n


def _compare(predicate: int, a: int, b: int) -> bool:
    # arith.cmpi predicates: eq ne slt sle sgt sge ult ule ugt uge
    return [a == b, a != b, a < b, a <= b, a > b, a >= b, a < b, a <= b, a > b, a >= b][predicate]


def _floordiv(a: int, b: int) -> int:
    if b == 0:
        raise _Unknown
    return int(a / b)


def _rem(a: int, b: int) -> int:
    if b == 0:
        raise _Unknown
    return a - b * int(a / b)


_INT_OPS = {
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
    arith.MuliOp: lambda a, b: a * b,
    arith.DivSIOp: _floordiv,
    arith.DivUIOp: _floordiv,
    arith.RemSIOp: _rem,
    arith.RemUIOp: _rem,
    arith.AndIOp: lambda a, b: a & b,
    arith.OrIOp: lambda a, b: a | b,
    arith.XOrIOp: lambda a, b: a ^ b,
    arith.MinSIOp: min,
    arith.MaxSIOp: max,
    arith.MinUIOp: min,
    arith.MaxUIOp: max,
    arith.ShLIOp: lambda a, b: a << b,
    arith.ShRUIOp: lambda a, b: a >> b,
    arith.ShRSIOp: lambda a, b: a >> b,
}


def check_sync(module: ModuleOp, facts: SyncFacts, scalars: Sequence[object] | None = None, entry: FuncOp | None = None) -> SyncReport:
    """Check every kernel of a lowered module (static), or `entry` with its scalar
    arguments `scalars` (one per argument; dynamic)."""
    if entry is not None:
        values: dict[SSAValue, object] = {arg: v for arg, v in zip(entry.args, scalars or ()) if isinstance(v, int)}
        return SyncChecker(facts, values).function(entry)
    report = SyncReport()
    for op in module.walk():
        if isinstance(op, FuncOp) and op.body.blocks:
            found = SyncChecker(facts).function(op)
            report.errors += found.errors
            report.warnings += found.warnings
    return report
