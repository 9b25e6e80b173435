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
  flag of the kernel's pending on a pair it uses itself (INTERNAL_FLAGS) is an error;
- a `func.call` to a function the module defines replays the callee's body in place, its
  arguments bound to the caller's values: its accesses meet the caller's and are located at the
  callee's ops (the messages name the call); a call to a function without a body is a located
  warning (what it accesses is not checked). A function some other function calls is checked
  at its calls, not on its own.

Static mode (`pto-opt --verify-sync`): values the kernel computes from its arguments are
unknown; a loop of constant trip count is replayed as in dynamic mode (every iteration with its
index: a double buffer's address and event id chosen by the index's parity are known); any other
loop runs its body twice (iteration i and i+1, where loop-carried hazards meet) and may also run
zero times; an `scf.if` whose condition is unknown runs both branches and
keeps only what both guarantee (a flag set on one path only cannot satisfy a later wait).
Dynamic mode (`pto-run --check-sync`): the same replay with the run's scalar arguments,
every iteration with its induction variable's value, which the messages name. A loop of known
trip count whose body is straight-line code (no nested loop, branch or section; flag event ids
not computed in it) is checked in one batch (`_BatchedLoop`): its first iterations are replayed
for their flags and clocks only, until the pipes' state repeats shifted (the state before
iteration k+1 is the one before k plus each pipe's count per iteration, so it does for every
later one); each access's clock and count in every iteration follow; the byte ranges every
access touches come from evaluating the body's index arithmetic once over all induction values
(NumPy arrays); each pair of accesses on different pipes is then checked over all iteration
pairs at once (for an earlier access, the later iterations it is unordered with form a range,
found by binary search in the later access's clocks). The loop's accesses stay as arrays
(`BatchedAccesses`) for what runs after it. A body whose state does not repeat within
`_WARMUP` iterations is replayed iteration by iteration.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from bisect import bisect_left, insort
from dataclasses import dataclass, field, replace
from typing import NamedTuple

import numpy as np
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from pto_dialect.walk import walk

from pto_dialect.diagnostics import PtoError, op_location
from pto_dialect.instruction import Pipe
from pto_dialect.integer_arith import INTEGER_BINARY, compare, type_bits
from pto_dialect.integer_casts import integer_cast
from pto_dialect.machine import RuntimeFault
from pto_dialect.ops import AllocTileOp, MakeTensorViewOp, PartitionViewOp, SectionCubeOp, SectionVectorOp, TAssignOp
from pto_dialect.ops.sync import BarrierOp, CrossCoreBase, DynFlagOp, FlagOpBase, SetFlagDynOp, SetFlagOp
from pto_dialect.phases import internal_flags, phases_of
from pto_dialect.types import PtrType, TileTypeBase
from pto_dialect.vpto.common import UB
from pto_dialect.vpto.pointers import AddPtrOp, CastPtrOp
from pto_dialect.vpto.scope import VecScopeOp
from targets.info import MEMORY_NAMES, TargetInfo

Clock = dict[Pipe, int]


class Region(NamedTuple):
    """Bytes [start, end) of one memory (`vec`, `mat`, GM argument i, a private tile); start None: anywhere in it."""

    space: object
    start: int | np.ndarray | None = None
    end: int | np.ndarray | None = None
    """Arrays (one bound per iteration) only while a batched loop's index arithmetic runs."""

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


@dataclass(frozen=True)
class _Pointer:
    """A register-level `!pto.ptr`: its memory and byte address there (None: unknown)."""

    space: object
    address: int | np.ndarray | None


_UB_SPACE = ("mem", "vec")
"""The memory of `!pto.ptr<T, ub>`: the UB the `vec` tiles live in."""


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


@dataclass(frozen=True, slots=True)
class BatchedAccesses:
    """One access of a batched loop's body, in each iteration i: bytes [starts[i], ends[i]) of
    `space` (anywhere in it when not `known`), its count `seqs[i]` on its pipe."""

    op: Operation
    phase: int | None
    pipe: Pipe
    write: bool
    space: object
    known: bool
    starts: np.ndarray
    ends: np.ndarray
    seqs: np.ndarray
    where: tuple[str, ...]
    """Where the loop is, then its own iteration's words (a format of the induction value)."""
    induction: np.ndarray

    def access(self, i: int) -> Access:
        *outer, own = self.where
        return Access(self.op, self.pipe, int(self.seqs[i]), self.phase, (*outer, own.format(self.induction[i])))

    def region(self, i: int) -> Region:
        return Region(self.space, int(self.starts[i]), int(self.ends[i])) if self.known else Region(self.space)

    def overlaps(self, region: Region) -> np.ndarray | bool:
        if not self.known or region.start is None or region.end is None:
            return True
        return (self.starts < region.end) & (self.ends > region.start)


class _Record(NamedTuple):
    """An access replayed for its clock only (a batched loop's first iterations)."""

    op: Operation
    phase: int | None
    pipe: Pipe
    value: SSAValue
    write: bool
    seq: int
    clock: Clock


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
            start, end = int(region.start), int(region.end)
            insort(self.known, (start, end, region))
            self.longest = max(self.longest, end - start)

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
    batched: list[BatchedAccesses] = field(default_factory=list)
    """The accesses of batched loops that a later access may still race with."""

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
            list(self.batched),
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
        merged.batched = [*a.batched, *(x for x in b.batched if all(x is not y for y in a.batched))]
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
    def __init__(
        self,
        target: TargetInfo,
        scalars: dict[SSAValue, object] | None = None,
        batch_loops: bool = True,
        functions: dict[str, FuncOp] | None = None,
    ):
        self.facts = target.sync
        self.rules = target.rules
        """Its rule rows: an operand the target's code ignores is no access (pto_dialect/phases.py)."""
        self.functions = functions or {}
        """The module's functions by name, for the calls."""
        self.calling: list[FuncOp] = []
        self.dynamic = scalars is not None
        self.batch_loops = batch_loops
        self.recording: list[_Record] | None = None
        """While a batched loop's first iterations replay: their accesses, not checked."""
        self.vector = False
        """While a batched loop's index arithmetic runs over all induction values at once."""
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
        if (steps := phases_of(op, self.rules)) is not None:
            return lambda state: self.instruction(op, steps, state)
        if isinstance(op, FlagOpBase):
            return lambda state: self.flag(op, state)
        if isinstance(op, BarrierOp):
            return self.barrier if op.pipe.data == Pipe.ALL else _unchanged  # one pipe is in order anyway
        if isinstance(op, scf.ForOp):
            return lambda state: self.loop(op, state)
        if isinstance(op, scf.IfOp):
            return lambda state: self.branch(op, state)
        if isinstance(op, SectionVectorOp | SectionCubeOp | VecScopeOp):  # a scope without tiles: its register ops
            return lambda state: self.block(op.body.block, state)
        if isinstance(op, CallOp):
            return lambda state: self.call(op, state)
        if isinstance(op, CrossCoreBase | ReturnOp | scf.YieldOp):
            return _unchanged  # cross-core signals order cores, not the pipes of one
        if isinstance(op, PartitionViewOp):
            operands = (op.source, tuple(op.offsets), tuple(op.sizes), op.result)
            return lambda state: self.partition(operands, state)
        return lambda state: self.evaluate(op, state)

    def call(self, op: CallOp, state: PipeState) -> PipeState:
        """The callee's body replayed in place, its arguments the call's operands."""
        name = op.callee.root_reference.data
        callee = self.functions.get(name)
        if callee is None or not callee.body.blocks:
            self.warn(op, f"calls @{name}, which the module does not define: what it accesses is not checked")
            return state
        if callee in self.calling:
            self.warn(op, f"calls @{name} recursively: what the inner call accesses is not checked")
            return state
        for arg, operand in zip(callee.args, op.arguments):
            self.values[arg] = self.values.get(operand)
        self.where.append(f" (in @{name} called at {op_location(op) or '?'})")
        self.calling.append(callee)
        try:
            state = self.block(callee.body.block, state)
        finally:
            self.calling.pop()
            self.where.pop()
        returned = callee.body.block.last_op
        if isinstance(returned, ReturnOp):
            for result, value in zip(op.results, returned.arguments):
                self.values[result] = self.values.get(value)
        return state

    def warn(self, op: Operation, message: str) -> None:
        if ("warning", op) not in self.reported:
            self.reported.add(("warning", op))
            self.report.warnings.append(f"{op_location(op) or '?'}: warning: '{op.name}' op {message}")

    def barrier(self, state: PipeState) -> PipeState:
        joined: Clock = {}
        for clock in state.clocks.values():
            _join(joined, clock)
        state.clocks = {pipe: dict(joined) for pipe in Pipe}
        state.batched = []  # every pipe is past every access
        return state

    def loop(self, op: scf.ForOp, state: PipeState) -> PipeState:
        lb, ub, step = (self.values.get(v) for v in (op.lb, op.ub, op.step))
        iv = op.body.block.args[0]
        name = iv.name_hint or "i"
        known = all(isinstance(v, int) for v in (lb, ub, step)) and step > 0  # pyright: ignore[reportOperatorIssue]
        carried_args, results = op.body.block.args[1:], op.results
        if known:  # known trips: replayed exactly, in either mode (a step of 0 or less: as unknown ones)
            trips = range(lb, ub, step)  # pyright: ignore[reportArgumentType, reportCallIssue]
            # a loop carrying values (a pointer's offset) is replayed, each iteration with its values
            if self.batch_loops and not carried_args and len(trips) > _WARMUP and _straight_line(op.body.block):
                batched = _BatchedLoop(self, op, trips).run(state)
                if batched is not None:
                    return batched
            carried = [self.values.get(v) for v in op.iter_args]
            yielded = op.body.block.last_op
            for i in trips:
                self.values[iv] = i
                self.values.update(zip(carried_args, carried))
                self.where.append(f" in iteration %{name} = {i}")
                state = self.block(op.body.block, state)
                self.where.pop()
                if isinstance(yielded, scf.YieldOp):
                    carried = [self.values.get(v) for v in yielded.arguments]
            self.values.update(zip(results, carried))
            return state
        self.values[iv] = None
        self.values.update((v, None) for v in (*carried_args, *results))
        before = state.copy()
        for k in range(2):
            self.where.append(f" in iteration {'i' if k == 0 else 'i+1'} of the loop over %{name}")
            state = self.block(op.body.block, state)
            self.where.pop()
        return PipeState.merge(before, state)

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
        if isinstance(v, int) or self.vector and isinstance(v, np.ndarray):
            return v  # pyright: ignore[reportReturnType]
        raise _Unknown

    def _value(self, op: Operation) -> object:
        if isinstance(op, arith.ConstantOp):
            return op.value.value.data if isinstance(op.value, IntegerAttr) else None
        if (binary := INTEGER_BINARY.get(type(op))) is not None:
            return self.integer_result(op, lambda width: binary(self.known(op.operands[0]), self.known(op.operands[1]), width))
        if (cast := integer_cast(op)) is not None:
            try:
                return cast(self.known(op.operands[0]))
            except OverflowError:  # a batched loop's values zero-extended past int64
                raise _Unknown from None
        if isinstance(op, arith.CmpiOp):
            return self.integer_result(op, lambda width: compare(op.predicate.value.data, self.known(op.lhs), self.known(op.rhs), width), op.lhs.type)
        if isinstance(op, arith.SelectOp):
            cond = self.known(op.cond)
            if isinstance(cond, np.ndarray):
                return np.where(cond, self.known(op.lhs), self.known(op.rhs))
            return self.known(op.lhs) if cond else self.known(op.rhs)
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
            return Region(space, addr, addr + tile.size_bytes) if isinstance(addr, int | np.ndarray) else Region(space)
        if isinstance(op, TAssignOp):
            tile = op.result.type
            addr = self.values.get(op.addr)
            space = ("mem", tile.loc.data)  # pyright: ignore[reportAttributeAccessIssue]
            return Region(space, addr, addr + tile.size_bytes) if isinstance(addr, int | np.ndarray) else Region(space)  # pyright: ignore[reportAttributeAccessIssue]
        if isinstance(op, CastPtrOp | AddPtrOp):
            return self.pointer(op)
        raise _Unknown

    @staticmethod
    def integer_result(op: Operation, at_width: Callable[[int], object], int_type: Attribute | None = None) -> object:
        """`at_width` at the bits of `int_type` (by default the op's result type): unknown for
        another type, a fault (a zero divisor, an over-wide shift) or an array that cannot hold it."""
        width = type_bits(op.results[0].type if int_type is None else int_type)
        if width is None:
            raise _Unknown
        try:
            return at_width(width)
        except (RuntimeFault, OverflowError):
            raise _Unknown from None

    def pointer(self, op: CastPtrOp | AddPtrOp) -> _Pointer:
        """A castptr's or addptr's pointer: an integer cast is its address, a GM argument's its buffer."""
        result_type = op.result.type
        if not isinstance(result_type, PtrType):
            raise _Unknown  # a pointer cast to its integer address
        if isinstance(op, AddPtrOp):
            base = self.values.get(op.ptr)
            if not isinstance(base, _Pointer):
                raise _Unknown
            try:
                step = self.known(op.offset) * result_type.element.bytes
            except _Unknown:
                return _Pointer(base.space, None)
            return _Pointer(base.space, None if base.address is None else base.address + step)
        source = self.values.get(op.input)
        if isinstance(source, _Pointer):
            return source
        if isinstance(source, _View):
            return _Pointer(source.buffer, None if source.offset is None else source.offset * source.element_bytes)
        if result_type.space.data == UB:
            address = source if isinstance(source, int) or self.vector and isinstance(source, np.ndarray) else None
            return _Pointer(_UB_SPACE, address)
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
        if source.offset is None or any(not isinstance(x, int | np.ndarray) for x in (*offsets, *sizes, *source.strides)):
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
        if isinstance(v, _View | _Pointer):
            return Region(v.buffer if isinstance(v, _View) else v.space)
        return None

    def accessed(self, op: Operation, value: SSAValue) -> Region | None:
        """The bytes `op` touches through `value`: a tile's or view's region; through a register-level
        pointer, its address plus the op's `byte_span` (the whole memory where either is unknown; a UB
        pointer the replay cannot follow is anywhere in UB, a GM one is not checked)."""
        pointer = self.values.get(value)
        if isinstance(pointer, _View) and isinstance(value.type, PtrType):  # a GM argument passed as it is
            pointer = _Pointer(pointer.buffer, None if pointer.offset is None else pointer.offset * pointer.element_bytes)
        if not isinstance(pointer, _Pointer):
            if isinstance(value.type, PtrType) and value.type.space.data == UB:
                return Region(_UB_SPACE)
            return self.region(value)
        span = getattr(op, "byte_span", None)
        if pointer.address is None or span is None:
            return Region(pointer.space)
        try:
            offset, length = span(value, self.known)
        except _Unknown:
            return Region(pointer.space)
        start = pointer.address + offset
        return Region(pointer.space, start, start + length)

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
        recording = self.recording
        for index, step in enumerate(steps):
            clock = state.clock(step.pipe)
            if previous is not None and previous != step.pipe:  # the library orders its own phases
                _join(clock, state.clock(previous))
            clock[step.pipe] = clock.get(step.pipe, 0) + 1
            previous = step.pipe
            if recording is not None:
                seen = dict(clock)
                phase = index if multi else None
                recording += [_Record(op, phase, step.pipe, v, False, seen[step.pipe], seen) for v in step.reads]
                recording += [_Record(op, phase, step.pipe, v, True, seen[step.pipe], seen) for v in step.writes]
                continue
            access = Access(op, step.pipe, clock[step.pipe], index if multi else None, where)
            for value in step.reads:
                if (region := self.accessed(op, value)) is not None:
                    self.access(state, region, access, write=False)
            for value in step.writes:
                if (region := self.accessed(op, value)) is not None:
                    self.access(state, region, access, write=True)
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
        for batch in state.batched:
            if batch.space == region.space and batch.pipe != access.pipe and (write or batch.write):
                hits = np.flatnonzero((batch.seqs > clock.get(batch.pipe, 0)) & batch.overlaps(region))
                if hits.size:
                    self.race(_kind(batch.write, write), batch.access(int(hits[-1])), access, region, state)
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


_WARMUP = 8
"""Iterations a batched loop replays at most, waiting for its pipes' state to repeat."""


class _BatchedLoop:
    """One run of a loop of known trip count with a straight-line body, checked over all its
    iterations at once (the module docstring says how)."""

    def __init__(self, checker: SyncChecker, op: scf.ForOp, trips: range):
        self.checker, self.trips, self.body = checker, trips, op.body.block
        self.iv = self.body.args[0]
        self.label = f" in iteration %{self.iv.name_hint or 'i'} = {{}}"

    def run(self, state: PipeState) -> PipeState | None:
        """The state after the loop, its races reported; None where the body's pipe state does
        not repeat in the first iterations (or an error shows there): replay it iteration by iteration."""
        checker = self.checker
        report, reported = checker.report, set(checker.reported)
        checker.report = SyncReport()
        snapshots = [_snapshot(state)]
        sim = PipeState(*_snapshot(state))
        records: list[list[_Record]] = []
        shift: dict[Pipe, int] | None = None
        try:
            for k in range(_WARMUP):
                checker.values[self.iv] = self.trips[k]
                checker.where.append(self.label.format(self.trips[k]))
                checker.recording = []
                try:
                    sim = checker.block(self.body, sim)
                finally:
                    records.append(checker.recording)
                    checker.recording = None
                    checker.where.pop()
                snapshots.append(_snapshot(sim))
                if checker.report.errors:
                    break
                if (shift := _shift(snapshots[k], snapshots[k + 1], self.touched(records[0]))) is not None:
                    break
        finally:
            failed = bool(checker.report.errors)
            checker.report, checker.reported = report, reported
        if shift is None or failed:
            return None
        return self.check(state, records, snapshots, shift)

    def touched(self, records: list[_Record]) -> frozenset[Pipe]:
        """The pipes whose clocks the body reads or changes: its instructions', its flags', all at a barrier."""
        if any(isinstance(op, BarrierOp) for op in self.body.ops):
            return frozenset(Pipe)
        flags = [op.pair for op in self.body.ops if isinstance(op, FlagOpBase)]
        return frozenset({r.pipe for r in records} | {p for pair in flags for p in pair})

    def check(
        self, state: PipeState, records: list[list[_Record]], snapshots: list[_Snapshot], shift: dict[Pipe, int]
    ) -> PipeState:
        checker, n, warm = self.checker, len(self.trips), len(records) - 1
        later = np.arange(1, n - warm, dtype=np.int64)  # iterations past `warm`, counted from it

        def series(position: int, of: Callable[[_Record], int], per_iteration: int) -> np.ndarray:
            out = np.empty(n, np.int64)
            out[: warm + 1] = [of(r[position]) for r in records]
            out[warm + 1 :] = of(records[warm][position]) + later * per_iteration
            return out

        induction = np.arange(self.trips.start, self.trips.stop, self.trips.step, dtype=np.int64)
        checker.values[self.iv] = induction
        checker.vector = True
        try:
            for op in self.body.ops:
                if phases_of(op) is None and not isinstance(op, FlagOpBase | BarrierOp):
                    checker.op(op, state)
        finally:
            checker.vector = False
        where = (*checker.where, self.label)
        batches: list[tuple[int, BatchedAccesses]] = []
        for position, record in enumerate(records[warm]):
            region = checker.accessed(record.op, record.value)
            if region is None:
                continue
            known = region.start is not None and region.end is not None
            batches.append((position, BatchedAccesses(
                record.op, record.phase, record.pipe, record.write, region.space, known,
                np.broadcast_to(np.asarray(region.start if known else 0, np.int64), (n,)),
                np.broadcast_to(np.asarray(region.end if known else 0, np.int64), (n,)),
                series(position, lambda r: r.seq, shift[record.pipe]), where, induction,
            )))
        self.finish(state, snapshots[warm], snapshots[warm + 1], shift, n - warm, self.touched(records[0]))
        for position, y in batches:
            clock_of = {}

            def clock(pipe: Pipe, position: int = position, clock_of: dict = clock_of) -> np.ndarray:  # noqa: B008
                if pipe not in clock_of:
                    clock_of[pipe] = series(position, lambda r: r.clock.get(pipe, 0), shift.get(pipe, 0))
                return clock_of[pipe]

            for earlier_position, x in batches:  # this loop's accesses
                if x.pipe != y.pipe and (x.write or y.write) and x.space == y.space:
                    lo = np.arange(n, dtype=np.int64) + (0 if earlier_position < position else 1)
                    self.report(x, y, _first_race(x, y, clock(x.pipe), lo), state)
            for x in self.earlier(state, y):  # what ran before the loop
                if x.pipe != y.pipe and (x.write or y.write):
                    self.report(x, y, _first_race(x, y, clock(x.pipe), np.zeros(len(x.seqs), np.int64)), state)
        state.batched = [*state.batched, *(b for _, b in batches)]
        return state

    def earlier(self, state: PipeState, y: BatchedAccesses) -> list[BatchedAccesses]:
        """The accesses before the loop to y's memory: earlier batches, and the shadow's as batches of one."""
        found = [b for b in state.batched if b.space == y.space]
        index = state.index.get(y.space)
        if index is None:
            return found
        hull = Region(y.space, int(y.starts.min()), int(y.ends.max())) if y.known else Region(y.space)
        for region in index.overlapping(hull):
            shadow = state.shadow[region]
            known = region.start is not None and region.end is not None
            for write, accesses in ((True, shadow.writes), (False, shadow.reads)):
                found += [
                    BatchedAccesses(
                        a.op, a.phase, a.pipe, write, region.space, known,
                        np.array([region.start if known else 0]), np.array([region.end if known else 0]),
                        np.array([a.seq]), (*a.where, ""), np.zeros(1, np.int64),
                    )
                    for a in accesses.values()
                ]
        return found

    def report(self, x: BatchedAccesses, y: BatchedAccesses, found: tuple[int, int] | None, state: PipeState) -> None:
        if found is not None:
            i, j = found
            self.checker.race(_kind(x.write, y.write), x.access(i), y.access(j), y.region(j), state)

    def finish(
        self, state: PipeState, warm: _Snapshot, after: _Snapshot, shift: dict[Pipe, int], iterations: int, touched: frozenset[Pipe]
    ) -> None:
        """The pipes' state after the last iteration: the one before iteration `warm` moved on by
        `iterations` iterations (a token pending since before the loop stays as it is)."""
        clocks, flags = warm
        state.clocks = {p: _moved(clocks.get(p, {}), shift, iterations) if p in touched else clocks[p] for p in {*clocks, *touched}}
        outer = "".join(self.checker.where)
        iteration_of = {outer + self.label.format(i): k for k, i in enumerate(self.trips)}

        def moved(token: _Token, stays: bool) -> _Token:
            if stays:
                return token
            k = iteration_of.get(token.where)
            where = token.where if k is None else outer + self.label.format(self.trips[k + iterations])
            return _Token(_moved(token.clock, shift, iterations), token.op, token.event, where)

        state.flags = {
            key: [moved(t, t is u) for t, u in zip(tokens, after[1].get(key, []))] for key, tokens in flags.items()
        }


_Snapshot = tuple[dict[Pipe, Clock], dict[tuple[Pipe, Pipe], list[_Token]]]


def _snapshot(state: PipeState) -> _Snapshot:
    return {p: dict(c) for p, c in state.clocks.items()}, {k: list(v) for k, v in state.flags.items()}


def _moved(clock: Clock, shift: dict[Pipe, int], iterations: int) -> Clock:
    """`clock` (a count missing: 0) with each pipe's count moved on by `iterations` times its shift."""
    return {q: clock.get(q, 0) + iterations * shift.get(q, 0) for q in {*clock, *shift}}


def _shift(before: _Snapshot, after: _Snapshot, touched: frozenset[Pipe]) -> dict[Pipe, int] | None:
    """Each pipe's count per iteration if `after` is `before` with every count (a missing one
    0) moved on by it, in the clock of every pipe the body `touched` (the others' the body
    neither reads nor changes) and every pending token (one pending in both unchanged); else None."""
    (c0, f0), (c1, f1) = before, after
    shift = {q: c1.get(q, {}).get(q, 0) - c0.get(q, {}).get(q, 0) for q in Pipe}

    def moved(a: Clock, b: Clock) -> bool:
        return all(b.get(q, 0) - a.get(q, 0) == shift[q] for q in Pipe)

    if not all(moved(c0.get(p, {}), c1.get(p, {})) for p in touched):
        return None
    for key in {*f0, *f1}:
        t0, t1 = f0.get(key, []), f1.get(key, [])
        if len(t0) != len(t1):
            return None
        for x, y in zip(t0, t1):
            if x is not y and (x.op is not y.op or x.event != y.event or not moved(x.clock, y.clock)):
                return None
    return shift


def _first_race(x: BatchedAccesses, y: BatchedAccesses, y_clock: np.ndarray, lo: np.ndarray) -> tuple[int, int] | None:
    """An (i, j) with x's access in iteration i and y's in iteration j >= lo[i] unordered (y's
    clock of x's pipe short of x's count: j below a bound, y's clocks growing) on overlapping
    bytes, j the least; None if there is none."""
    bound = np.searchsorted(y_clock, x.seqs, side="left")
    rows = np.flatnonzero(bound > lo)
    if not rows.size:
        return None
    first, width = lo[rows], bound[rows] - lo[rows]
    if not (x.known and y.known):
        return int(rows[np.argmin(first)]), int(first.min())
    xs, xe, ys, ye = x.starts, x.ends, y.starts, y.ends
    best: tuple[int, int] | None = None
    if width.max() <= _BAND:  # a few iterations apart at most: one comparison per distance
        for d in range(int(width.max())):
            i = rows[width > d]
            j = first[width > d] + d
            hit = np.flatnonzero((xs[i] < ye[j]) & (ys[j] < xe[i]))
            if hit.size:
                k = hit[np.argmin(j[hit])]
                if best is None or j[k] < best[1]:
                    best = int(i[k]), int(j[k])
        return best
    columns = np.arange(len(ys))
    for chunk in range(0, len(rows), _BAND):
        i = rows[chunk : chunk + _BAND, None]
        mask = (columns >= lo[i]) & (columns < bound[i]) & (xs[i] < ye) & (ys < xe[i])
        if mask.any():
            r, j = np.nonzero(mask)
            k = np.argmin(j)
            if best is None or j[k] < best[1]:
                best = int(i[r[k], 0]), int(j[k])
    return best


_BAND = 64


def _kind(earlier_writes: bool, later_writes: bool) -> str:
    return ("WAW" if later_writes else "RAW") if earlier_writes else "WAR"


def _straight_line(block: Block) -> bool:
    """No nested region, and no flag whose event id the body computes (so every iteration
    runs the same sync)."""
    for op in block.ops:
        if op.regions or isinstance(op, CallOp):
            return False
        if isinstance(op, DynFlagOp):
            owner = op.event_id.owner
            if isinstance(owner, Operation) and owner.parent_block() is block or owner is block:
                return False
    return True


def written_name(op: Operation) -> str:
    """The name the kernel wrote: a lowered op's pto instruction."""
    source = getattr(op, "SOURCE", None)
    return source.name if source is not None else op.name


def _join(into: Clock, other: Clock) -> None:
    for p, n in other.items():
        if into.get(p, 0) < n:
            into[p] = n


def check_sync(
    module: ModuleOp,
    target: TargetInfo,
    scalars: Sequence[object] | None = None,
    entry: FuncOp | None = None,
    batch_loops: bool = True,
) -> SyncReport:
    """Check every kernel of a lowered module (static), or `entry` with its scalar
    arguments `scalars` (one per argument; dynamic; `batch_loops` False: every loop
    iteration by iteration)."""
    functions = {op.sym_name.data: op for op in walk(module) if isinstance(op, FuncOp)}
    if entry is not None:
        values: dict[SSAValue, object] = {arg: v for arg, v in zip(entry.args, scalars or ()) if isinstance(v, int)}
        return SyncChecker(target, values, batch_loops, functions).function(entry)
    report = SyncReport()
    for function in _checked_alone(functions):
        found = SyncChecker(target, functions=functions).function(function)
        report.errors += found.errors
        report.warnings += found.warnings
    return report


def _checked_alone(functions: dict[str, FuncOp]) -> list[FuncOp]:
    """The functions with bodies that no other one calls, then any the calls from those do not
    reach (a cycle of calls): each other function is checked where it is called."""
    calls = {
        name: {c.callee.root_reference.data for c in walk(f) if isinstance(c, CallOp)} - {name}
        for name, f in functions.items()
    }
    called = set().union(*calls.values()) if calls else set()
    order = [name for name in functions if name not in called]
    reached: set[str] = set()
    for name in [*order, *functions]:
        if name in reached:
            continue
        if name not in order:
            order.append(name)
        pending = [name]
        while pending:
            current = pending.pop()
            if current not in reached:
                reached.add(current)
                pending += calls.get(current, set())
    return [functions[name] for name in order if functions[name].body.blocks]
