"""
Where tiles live in on-chip memory: live ranges, the planner behind
`pto-plan-memory`, and the checks of hand-written addresses that
`pto-opt --target T` runs by default.

A tile's bytes are live from the first op that may write it (an instruction's
`outs`, or an op whose effect is not known here, such as a call; a tile only read
is live from its first use) to its last use, at op granularity wherever those ops
are nested (a section runs its body once), except that a loop (`scf.for`,
`scf.while`) counts as a whole where the tile lives across its iterations: some
use in the body may read it before that iteration's own unconditional write. So
kernels that declare every tile up front, before a section, at reused addresses
(as PTOAS, PyPTO and ptodsl write them) are accepted as long as no byte is read
after another tile overwrote it. Positions are the ops' indices in a pre-order
walk of the function.

A tile also stays live through every value it lives on as (`CallGraph.aliases`):
a call result that returns it, an scf result that yields it, the next loop
iteration's iter_args. A `func.call` holds every tile of its callee (and of the
callee's callees) at the callee's addresses, so a caller's tile live across the
call never shares bytes with them: callees are planned before their callers, and
calls between functions that reach tiles must be acyclic.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import cast

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Block, BlockArgument, Operation, SSAValue, Use
from xdsl.traits import IsTerminator, SymbolTable
from pto_dialect.walk import walk

from pto_dialect.diagnostics import PtoError
from pto_dialect.lowered import Launch, LoweredOp
from pto_dialect.ops import AllocTileOp, TAssignOp
from pto_dialect.ops.common import OperandEffects, PtoInstructionOp
from pto_dialect.ops.common import written_operands
from pto_dialect.ops.memory import SectionOp
from pto_dialect.phases import ignored_operands
from targets.rules.aliasing import Alias, exact_alias, forward_alias, in_place_refusal, leading_alias
from pto_dialect.ops.memory import TILE_ADDRESS_ALIGNMENT, constant_index
from pto_dialect.types import TileTypeBase

import targets
from targets import TargetInfo
from targets.info import MEMORY_NAMES

DYN_UBUF_ATTR = "pto.dyn_ubuf_size"


@dataclass
class Buffer:
    """One tile placement (an alloc_tile, a tassign moving a tile, or a callee's tile held
    by a func.call): its space, size, live range and (once known) address."""

    op: AllocTileOp | TAssignOp | func.CallOp
    space: str
    size: int
    start: int
    end: int
    addr: int | None
    label: str
    """`%t`, `tile at FILE:LINE:COL` for a value without a name, `%t of @callee` for a call."""
    moved_from: Buffer | None = None
    """For a tassign: the placement of the same tile it replaces."""
    returned: int | None = None
    """In a callee's footprint: the index of the function result that returns this tile."""
    value: SSAValue | None = None
    """The value naming the tile in its function: an alloc's or tassign's result, or the
    result of a call that returns a callee's tile."""
    writer: Operation | None = None
    """The op at `start`: the first that may write the tile (or a loop carrying it)."""
    reader: Operation | None = None
    """The op at `end`: the last that uses the tile (or a loop carrying it)."""
    read_across: Operation | None = None
    """The loop that `reader` is in and the tile lives across: the read may come in a later
    iteration than a write the loop's body makes after it."""

    @property
    def name(self) -> str:
        """`tile %t`, or `tile at FILE:LINE:COL` (sentences)."""
        return self.label if self.label.startswith("tile ") else f"tile {self.label}"

    @property
    def is_callee_tile(self) -> bool:
        return isinstance(self.op, func.CallOp)

    @property
    def holds_nothing(self) -> bool:
        """Every use ignores the tile (CallGraph.untouched: a tmp its instruction's target code
        does not use): its live range is empty, it is live with no tile."""
        return self.start > self.end

    def live_with(self, other: Buffer) -> bool:
        if self.moved_from is other and other.end <= self.start or other.moved_from is self and self.end <= other.start:
            return False  # one tile, before and after its tassign (the source not used after it)
        if self.is_callee_tile and self.op is other.op:
            return False  # tiles of one call: the callee's own plan keeps them apart
        if self.holds_nothing or other.holds_nothing:
            return False
        return self.start <= other.end and other.start <= self.end

    def overlaps(self, other: Buffer) -> bool:
        assert self.addr is not None and other.addr is not None
        return self.addr < other.addr + other.size and other.addr < self.addr + self.size


def _op_at(op: Operation | None) -> str:
    """`pto.tload at FILE:LINE:COL` (an op named in a message about another op)."""
    if op is None:
        return "an op"
    from pto_dialect.diagnostics import op_location

    where = op_location(op)
    return f"{op.name} at {where}" if where else op.name


def _walks_before(a: Operation | None, b: Operation | None, f: func.FuncOp) -> bool:
    """`a` comes before `b` in a pre-order walk of `f` (for messages)."""
    order = {op: i for i, op in enumerate(walk(f))}
    return a is not None and b is not None and a in order and b in order and order[a] < order[b]


def _where(op: Operation) -> str:
    from pto_dialect.diagnostics import op_location

    return op_location(op) or op.name


class CallGraph:
    """The module's functions with bodies and their `func.call`s, with what a caller sees of
    a callee: its tiles at their addresses (`footprint`), the tiles its callers keep live
    across calls to it (`reserved`), and the budget every caller imposes (`limit`)."""

    def __init__(self, module: Operation, target: str | TargetInfo):
        self.target = targets.get(target)
        self._untouched: dict[Operation, frozenset[int]] = {}
        """Per instruction: the indices of the operands its target code ignores."""
        self._written: dict[Operation, tuple[int, ...]] = {}
        """Per op: the indices of the operands its memory effects say it writes."""
        self.functions = [f for f in walk(module) if isinstance(f, func.FuncOp) and f.body.blocks]
        self.calls: dict[func.FuncOp, list[tuple[func.CallOp, func.FuncOp]]] = {f: [] for f in self.functions}
        self.callee: dict[func.CallOp, func.FuncOp] = {}
        """The function with a body each call enters (calls closing a tile-free cycle: none)."""
        for f in self.functions:
            for op in walk(f):
                if isinstance(op, func.CallOp):
                    callee = SymbolTable.lookup_symbol(op, op.callee)
                    if isinstance(callee, func.FuncOp) and callee in self.calls:
                        self.calls[f].append((op, callee))
                        self.callee[op] = callee
        self.callees_first = self._order()
        self._footprints: dict[func.FuncOp, list[Buffer]] = {}
        self._limits: dict[tuple[func.FuncOp, str], tuple[int, str]] = {}
        self._simt: dict[func.FuncOp, bool] = {}
        self._returns: dict[func.FuncOp, list[func.ReturnOp]] = {}
        """Each function's returns, found by one walk (planning replaces allocs, never returns)."""

    def _order(self) -> list[func.FuncOp]:
        """Callees before callers; a cycle that reaches a function with tiles is an error (the
        calls of a cycle that reaches none hold no tiles and are dropped)."""
        out: list[func.FuncOp] = []
        done: set[func.FuncOp] = set()

        def visit(f: func.FuncOp, stack: list[func.FuncOp]) -> None:
            if f in done:
                return
            stack.append(f)
            for call, callee in list(self.calls[f]):
                if callee in stack:
                    if self._reaches_tiles(stack[stack.index(callee) :]):
                        raise PtoError.at_op(
                            call,
                            f"recursive call to @{callee.sym_name.data}: tiles can only be placed "
                            "when the calls between functions with tiles are acyclic",
                        )
                    self.calls[f].remove((call, callee))
                    del self.callee[call]
                else:
                    visit(callee, stack)
            stack.pop()
            done.add(f)
            out.append(f)

        for f in self.functions:
            visit(f, [])
        return out

    def _reaches_tiles(self, functions: list[func.FuncOp]) -> bool:
        seen: set[func.FuncOp] = set()
        todo = list(functions)
        while todo:
            f = todo.pop()
            if f not in seen:
                seen.add(f)
                if any(isinstance(op, AllocTileOp | TAssignOp) for op in walk(f)):
                    return True
                todo += [callee for _, callee in self.calls[f]]
        return False

    def callers_of(self, f: func.FuncOp) -> list[tuple[func.CallOp, func.FuncOp]]:
        return [(call, g) for g in self.functions for call, callee in self.calls[g] if callee is f]

    def carried(self, use: Use) -> list[SSAValue]:
        """The values through which the tile used by `use` lives on: the result of an scf op
        it is yielded as (or starts the iter_args of), or the result of a call whose callee
        returns that argument."""
        user = use.operation
        if isinstance(user, scf.YieldOp) and isinstance(carrier := user.parent_op(), scf.ForOp | scf.IfOp):
            return [carrier.results[use.index]]
        if isinstance(user, scf.ForOp) and use.index >= 3 and not _runs_at_least_once(user):
            return [user.results[use.index - 3]]  # a loop that may not run returns its iter_args start
        if isinstance(user, scf.ConditionOp) and use.index >= 1 and isinstance(loop := user.parent_op(), scf.WhileOp):
            return [loop.results[use.index - 1]]
        if isinstance(user, func.CallOp) and (callee := self.callee.get(user)) is not None:
            k = self.returned_index(callee, callee.args[use.index])  # a tile passed in and out
            return [] if k is None else [user.results[k]]
        return []

    def aliases(self, value: SSAValue) -> list[SSAValue]:
        """`value` (first) and every value the tile lives on as (see `carried`), transitively."""
        out, todo = [], [value]
        while todo:
            v = todo.pop()
            if v not in out:
                out.append(v)
                todo += [c for use in v.uses for c in self.carried(use)]
        return out

    def returned_index(self, f: func.FuncOp, value: SSAValue) -> int | None:
        """The result of `f` that returns the tile named `value` (directly or carried), if any."""
        names = self.aliases(value)
        if f not in self._returns:
            self._returns[f] = [op for op in walk(f) if isinstance(op, func.ReturnOp)]
        for op in self._returns[f]:
            for i, v in enumerate(op.arguments):
                if v in names:
                    return i
        return None

    def buffers_of(self, f: func.FuncOp, with_calls: bool = True) -> list[Buffer]:
        """Every tile placement in `f` with its live range, in program order; with_calls: a call
        also stands for its callee's placed tiles, for the instant of the call (a returned
        tile: until the caller's last use of it)."""
        ordered = list(walk(f))
        position = {op: i for i, op in enumerate(ordered)}
        last_inside: dict[Operation, int] = {}
        for op in reversed(ordered):  # nested ops come after their parent in pre-order
            last_inside[op] = max([position[op], *(last_inside[c] for r in op.regions for b in r.blocks for c in b.ops)])
        loops_around = _LoopsAround(f)

        def span(user: Operation, crossed: set[Operation]) -> tuple[int, int, Operation | None]:
            """The positions an access by `user` keeps a tile live over: its own, or those of
            the outermost loop around it across whose iterations the tile lives (`crossed`,
            returned too)."""
            loop = next((loop for loop in loops_around(user) if loop in crossed), None)
            held = loop or user
            return position[held], last_inside[held], loop

        def live_range(
            names: list[SSAValue], op: Operation
        ) -> tuple[tuple[int, Operation], tuple[int, Operation, Operation | None]]:
            """(start, the op writing there), (end, the op reading there, the loop it reads
            across) of the tile known by `names`: from the first op that may write it (else
            the first that uses it; else `op`) to the last that uses it, each at op
            granularity, or the whole of a loop the tile lives across (_loops_lived_across). A
            tile that every use ignores (`untouched`) holds nothing: an empty range after `op`."""
            accesses = [use for v in names for use in v.uses if not self.untouched(use)]
            if not accesses and any(v.uses for v in names):
                return (position[op] + 1, op), (position[op], op, None)
            one_per_parent = {use.operation.parent_op(): use.operation for use in accesses}  # same loops around
            loops = {loop for user in one_per_parent.values() for loop in loops_around(user)}
            crossed = _loops_lived_across(loops, accesses, self.writes)
            start: tuple[int, Operation] | None = None
            for writes in (True, False):
                for use in accesses:
                    if not writes or self.may_write(use):
                        at = span(use.operation, crossed)[0]
                        if start is None or at < start[0]:
                            start = (at, use.operation)
                if start is not None:
                    break
            end, reader, across = position[op], op, None
            for use in accesses:
                _, at, loop = span(use.operation, crossed)
                if at > end or (at == end and (reader is op or not self.may_write(use))):  # name a read if one is last
                    end, reader, across = at, use.operation, loop
            return start or (position[op], op), (end, reader, across)

        out: list[Buffer] = []
        by_value: dict[SSAValue, Buffer] = {}
        for op in ordered:
            if isinstance(op, func.CallOp):
                if with_calls and op in self.callee:
                    for inner in self.footprint(self.callee[op]):
                        value = op.results[inner.returned] if inner.returned is not None else None
                        end, reader, across = (
                            live_range(self.aliases(value), op)[1] if value is not None else (position[op], op, None)
                        )
                        out.append(
                            Buffer(op, inner.space, inner.size, position[op], end, inner.addr, inner.label,
                                   value=value, writer=op, reader=reader, read_across=across)
                        )
                continue
            if not isinstance(op, AllocTileOp | TAssignOp):
                continue
            addr = constant_index(op.addr) if op.addr is not None else None
            tile = op.result.type
            assert isinstance(tile, TileTypeBase)
            moved = by_value.get(op.tile) if isinstance(op, TAssignOp) else None
            hint = op.result.name_hint
            label = f"%{hint}" if hint else f"tile at {_where(op)}"
            names = self.aliases(op.result)
            (start, writer), (end, reader, across) = live_range(names, op)
            for loop, _ in _carried_args(names):  # read as the carried tile of the next iteration
                if position[loop] < start:
                    start, writer = position[loop], loop
                if last_inside[loop] > end:
                    end, reader, across = last_inside[loop], loop, None
            buffer = Buffer(
                op, tile.loc.data, tile.size_bytes, start, end, addr, label, moved,
                value=op.result, writer=writer, reader=reader, read_across=across,
            )
            by_value[op.result] = buffer
            out.append(buffer)
        return out

    def footprint(self, f: func.FuncOp) -> list[Buffer]:
        """What a call to `f` holds: its placed tiles and its callees', each once, labelled
        `%t of @f`, with the index of the result that returns it, if one does."""
        if f not in self._footprints:
            name = f.sym_name.data
            seen: dict[tuple[object, ...], Buffer] = {}
            for b in self.buffers_of(f):
                if b.addr is None:
                    continue
                index = self.returned_index(f, b.value) if b.value is not None else None
                label = b.label if b.is_callee_tile else f"{b.label} of @{name}"
                key = (b.space, b.addr, b.size, label, index)
                seen.setdefault(key, Buffer(b.op, b.space, b.size, 0, 0, b.addr, label, returned=index))
            self._footprints[f] = list(seen.values())
        return self._footprints[f]

    def reserved(self) -> dict[func.FuncOp, list[Buffer]]:
        """For each function, its callers' hand-placed tiles live across a call to it (and
        theirs, transitively): the planner keeps the function's tiles off them."""
        out: dict[func.FuncOp, dict[Operation, Buffer]] = {f: {} for f in self.functions}
        for g in reversed(self.callees_first):  # callers first
            if not self.calls[g]:
                continue
            name = g.sym_name.data
            own = [
                Buffer(b.op, b.space, b.size, b.start, b.end, b.addr, f"{b.label} of @{name}")
                for b in self.buffers_of(g, with_calls=False)
                if b.addr is not None
            ]
            position = {op: i for i, op in enumerate(walk(g))}
            for call, callee in self.calls[g]:
                at = position[call]
                out[callee].update({b.op: b for b in own if b.start <= at <= b.end} | out[g])
        return {f: list(tiles.values()) for f, tiles in out.items()}

    def untouched(self, use: Use) -> bool:
        """Whether the target's code for the instruction using the tile ignores that operand
        (its `untouched` roles: a tmp it does not use takes no memory there)."""
        return use.index in self.ignored_operands(use.operation)

    def ignored_operands(self, op: Operation) -> frozenset[int]:
        """The indices of the operands the target's code for `op` ignores (Instruction.untouched)."""
        if not isinstance(op, PtoInstructionOp):
            return frozenset()
        if (indices := self._untouched.get(op)) is None:
            indices = self._untouched[op] = ignored_operands(op, self.target.rules)
        return indices

    def writes(self, use: Use) -> bool:
        """The op certainly writes the tile used by `use` before reading it there: an instruction's
        out, or its scratch space (a `tmp`), as its memory effects say."""
        op = use.operation
        if (indices := self._written.get(op)) is None:
            indices = self._written[op] = written_operands(op) if op.has_trait(OperandEffects) else ()
        return use.index in indices

    def may_write(self, use: Use) -> bool:
        """Whether the op may write the tile used by `use`: an instruction says so by its memory
        effects (it writes its outs and its scratch, such as a tmp, and reads its other ins); an
        op whose effect is not known here (a call, a loop's iter_args, ...) may write it."""
        op = use.operation
        if op.has_trait(OperandEffects):
            return self.writes(use)
        return not isinstance(op, TAssignOp) and not op.has_trait(IsTerminator)

    def limit(self, f: func.FuncOp, space: str) -> tuple[int, str]:
        """The budget that f's tiles must fit: every caller's, transitively, and f's own
        (a called function without pto.dyn_ubuf_size runs within its callers' launch)."""
        if (f, space) not in self._limits:
            callers = [self.limit(g, space) for _, g in self.callers_of(f)]
            own = [] if callers and DYN_UBUF_ATTR not in f.attributes else [budget(f, space, self.target, self)]
            self._limits[f, space] = min([*own, *callers], key=lambda b: b[0])
        return self._limits[f, space]

    def launches_simt(self, f: func.FuncOp) -> bool:
        """f, or a function it calls, runs an instruction as a SIMT launch."""
        if f not in self._simt:
            self._simt[f] = _launches_simt(f, self.target) or any(self.launches_simt(c) for _, c in self.calls[f])
        return self._simt[f]


def _runs_at_least_once(loop: scf.ForOp) -> bool:
    lb, ub = constant_index(loop.lb), constant_index(loop.ub)
    return lb is not None and ub is not None and ub > lb


class _LoopsAround:
    """The loops (scf.for, scf.while) around an op inside `f`, outermost first, found once per
    op holding others: the ops of a nest share their parents' answers."""

    def __init__(self, f: func.FuncOp):
        self.f = f
        self.inside: dict[Operation, tuple[Operation, ...]] = {}
        """For an op of f holding others: the loops its ops are in (itself included)."""

    def __call__(self, op: Operation) -> tuple[Operation, ...]:
        climbed: list[Operation] = []
        parent = op.parent_op()
        while parent is not None and parent is not self.f and parent not in self.inside:
            climbed.append(parent)
            parent = parent.parent_op()
        loops = self.inside.get(parent, ()) if parent is not None else ()
        for holder in reversed(climbed):  # outermost first
            loops = loops + (holder,) if isinstance(holder, scf.ForOp | scf.WhileOp) else loops
            self.inside[holder] = loops
        return loops


def _loops_lived_across(loops: Iterable[Operation], accesses: list[Use], writes: Callable[[Use], bool]) -> set[Operation]:
    """The `loops` across whose iterations a tile (used by `accesses`) may hold a value from one
    iteration that a later one reads: some use in its body may read the tile before one
    iteration's own unconditional write (an instruction's outs, not inside an scf.if or an
    inner loop that may run no iteration; a section runs its body once). A tile written first
    in each iteration is live there from that write only (`writes`: whether a use certainly
    writes the tile, CallGraph.writes).

    One scan per block and entry state, shared by all the loops: only ops holding a use are
    entered, so a deep nest costs its depth, not its depth squared."""
    by_op: dict[Operation, list[Use]] = {}
    for use in accesses:
        by_op.setdefault(use.operation, []).append(use)
    holding: set[Operation] = set()  # the ops with a use strictly inside them
    for o in by_op:
        parent = o.parent_op()
        while parent is not None and parent not in holding:
            holding.add(parent)
            parent = parent.parent_op()
    scanned: dict[tuple[Block, bool], tuple[bool, bool]] = {}

    def reads_before_writing(block: Block, written: bool) -> tuple[bool, bool]:
        """(a use may read before a write, written afterwards) over the block's ops, run once
        in order."""
        key = (block, written)
        if key not in scanned:
            scanned[key] = scan(block, written)
        return scanned[key]

    def scan(block: Block, written: bool) -> tuple[bool, bool]:
        for o in block.ops:
            uses = by_op.get(o)
            if uses is not None:
                if not written and any(not writes(u) for u in uses):
                    return True, written
                written = written or any(writes(u) for u in uses)
            if o not in holding:
                continue  # nothing inside reads or writes the tile
            once = isinstance(o, SectionOp)
            for region in o.regions:
                for inner in region.blocks:
                    read_first, after = reads_before_writing(inner, written)
                    if read_first:
                        return True, written
                    if once:
                        written = after
        return False, written

    return {
        loop for loop in loops
        if loop in holding and any(reads_before_writing(block, False)[0] for region in loop.regions for block in region.blocks)
    }


def _carried_args(names: list[SSAValue]) -> list[tuple[scf.ForOp, BlockArgument]]:
    """The loops that carry a tile (known by `names`, its aliases) into their next
    iteration, each with the block argument that reads it there (only those with uses)."""
    out = []
    for v in names:
        for use in v.uses:
            loop = use.operation.parent_op()
            if isinstance(use.operation, scf.YieldOp) and isinstance(loop, scf.ForOp):
                carried = loop.body.block.args[use.index + 1]  # after the induction variable
                if carried.uses and carried is not names[0]:
                    out.append((loop, carried))
    return out


def _check_not_rewritten_while_carried(op: AllocTileOp | TAssignOp, graph: CallGraph) -> None:
    """A tile placed in a loop body and carried to the next iteration has one address for
    both iterations: the new one is written there while the carried one may still be read."""
    for loop, carried in _carried_args(graph.aliases(op.result)):
        if loop.is_ancestor(op):
            body = loop.body.block
            order = {o: i for i, o in enumerate(body.ops)}
            ancestor = _ancestor_in(body, op)
            assert ancestor is not None, "op is inside the loop"
            written = order[ancestor]
            in_body = [a for user in _readers(carried, graph) if (a := _ancestor_in(body, user)) is not None]
            if any(order[a] >= written for a in in_body):
                name = f"%{carried.name_hint}" if carried.name_hint else "the carried tile"
                raise PtoError.at_op(
                    op,
                    f"this tile is carried to the next loop iteration (as {name}) and placed anew in "
                    f"each one: both would share one address while {name} is still read; "
                    "alternate two tiles instead",
                )


def _readers(value: SSAValue, graph: CallGraph) -> list[Operation]:
    """The ops that read the tile named `value`, following it where it is only passed on (a
    yield, an inner loop's iter_args, and the values those make)."""
    readers, seen, todo = [], set(), [value]
    while todo:
        v = todo.pop()
        if v in seen:
            continue
        seen.add(v)
        todo += graph.aliases(v)
        for use in v.uses:
            user = use.operation
            if isinstance(user, scf.ForOp) and use.index >= 3:  # starts an inner loop's carried tile
                todo.append(user.body.block.args[use.index - 2])
            elif not user.has_trait(IsTerminator):
                readers.append(user)
    return readers


def _ancestor_in(block: Block, op: Operation) -> Operation | None:
    """The op of `block` that is or holds `op` (None: `op` is outside the block)."""
    current: Operation | None = op
    while current is not None and current.parent_block() is not block:
        current = current.parent_op()
    return current


def budget(f: func.FuncOp, space: str, target: TargetInfo, graph: CallGraph) -> tuple[int, str]:
    """Bytes a function may use in `space` by its own launch, and why (for messages); a SIMT
    launch in a callee counts as the function's own."""
    total = target.on_chip_bytes[space]
    simt = target.simt_budget
    if space != "vec" or simt is None or not graph.launches_simt(f):
        return total, f"the {MEMORY_NAMES[space]} of target {target} ({total} bytes)"
    declared = f.attributes.get(DYN_UBUF_ATTR)
    if declared is None:
        return simt.default_bytes, (
            f"the {simt.default_bytes} bytes of UB a kernel with a SIMT launch gets on {target} without "
            f"{DYN_UBUF_ATTR} (at most {simt.max_bytes})"
        )
    if not isinstance(declared, IntegerAttr) or declared.value.data < 0:
        raise PtoError.at_op(f, f"{DYN_UBUF_ATTR} must be a non-negative integer byte count, got {declared}")
    size = declared.value.data
    if size > simt.max_bytes:
        raise PtoError.at_op(
            f, f"{DYN_UBUF_ATTR} = {size} exceeds the {simt.max_bytes} bytes of UB a kernel with a SIMT launch can have on {target}"
        )
    return size, f"the {size} bytes of UB declared by {DYN_UBUF_ATTR} for a kernel with a SIMT launch on {target}"


def _launches_simt(f: func.FuncOp, target: TargetInfo) -> bool:
    """f runs an instruction as a SIMT launch (a5's MGATHER and MSCATTER): the lowered op's class says so,
    and for a pto op the target's lowering table is asked which op it becomes."""
    for op in walk(f):
        if isinstance(op, PtoInstructionOp) and not op.res:
            op_class, _ = target.lowering.choose(op)
        elif isinstance(op, LoweredOp):
            op_class = type(op)
        else:
            continue
        if op_class is not None and op_class.LAUNCH == Launch.SIMT:
            return True
    return False


def check_manual_addresses(module: Operation, target: str | TargetInfo, strict: bool = False) -> None:
    """pto-opt's checks of hand-placed tiles: each inside its memory, and wherever one
    instruction reads a tile and writes another over some of its bytes, an alias the target
    computes in place. Tiles placed over each other's bytes otherwise share them, as PTOAS
    takes them (PyPTO reuses the bytes of a dead tile, or carries an accumulator from one
    tile to the next at one address): a tile reads what was last written to its bytes, the
    interpreter runs it so, and races between pipes are pto-insert-sync's and
    `--check-sync`'s matter. A tile placed anew in each iteration of a loop that carries it
    to the next is an error (one alloc cannot be both). `strict` (pto-opt --strict-addresses,
    and what the planner guarantees of its own placements) also rejects a tile written over
    the bytes of another that is read later."""
    graph = CallGraph(module, target)
    for f in graph.callees_first:
        for op in walk(f):
            if isinstance(op, AllocTileOp | TAssignOp):
                _check_not_rewritten_while_carried(op, graph)
        buffers = graph.buffers_of(f)
        _check_inside(f, buffers, graph)
        _check_in_place_ops(f, buffers, graph)
        if strict:
            _check_apart(f, [b for b in buffers if b.addr is not None], set(map(id, buffers)), graph)


def _check_inside(f: func.FuncOp, buffers: list[Buffer], graph: CallGraph) -> None:
    for b in buffers:
        if b.addr is None or b.space not in graph.target.on_chip_bytes:
            continue
        limit, what = graph.limit(f, b.space)
        if b.addr + b.size > limit:
            raise PtoError.at_op(b.op, f"{b.name} ends at byte {b.addr + b.size}, beyond {what}")


def _check_apart(f: func.FuncOp, placed: list[Buffer], checked: set[int], graph: CallGraph) -> None:
    """No two `placed` tiles live at the same time share a byte, for the pairs holding a
    buffer whose id is in `checked` (the planner's own placements)."""
    for i, a in enumerate(placed):
        for b in placed[i + 1 :]:
            if id(a) not in checked and id(b) not in checked:
                continue
            if a.space == b.space and a.live_with(b) and a.overlaps(b):
                # the later-written tile clobbers the bytes of the other, which is read after
                late, early = (b, a) if a.start <= b.start else (a, b)
                if late.writer is not None and late.writer is early.reader and late.start == early.end:
                    continue  # one op reads one and writes the other: _check_in_place_ops decides
                later = (
                    f" in a later iteration of the {_op_at(early.read_across)}"
                    if early.read_across is not None and _walks_before(early.reader, late.writer, f)
                    else ""
                )
                raise PtoError.at_op(
                    late.op,
                    f"{late.name} at bytes [{late.addr}, {late.addr + late.size}) overlaps {early.name} "
                    f"at [{early.addr}, {early.addr + early.size}) while both are live: "
                    f"{_op_at(late.writer)} writes {late.label} before {_op_at(early.reader)} reads {early.label}"
                    f"{later}",
                )


def _check_in_place_ops(f: func.FuncOp, buffers: list[Buffer], graph: CallGraph) -> None:
    """Every instruction that reads one placed tile and writes another over some of its bytes
    does so where the target computes it in place (targets/rules/aliasing.py)."""
    placed: dict[SSAValue, Buffer] = {}
    for b in buffers:
        if b.addr is not None and not b.is_callee_tile and b.value is not None and b.space in graph.target.on_chip_bytes:
            for name in graph.aliases(b.value):
                placed.setdefault(name, b)
    if not placed:
        return
    for op in walk(f):
        if not isinstance(op, PtoInstructionOp):
            continue
        outs = [v for v in op.destinations if v in placed]
        ignored = graph.ignored_operands(op)
        for read in (v for i, v in enumerate(op.ins) if v in placed and i not in ignored):
            for written in outs:
                w, r = placed[written], placed[read]
                if written is not read and w is not r and w.space == r.space and w.overlaps(r):
                    _check_in_place(op, w, written, r, read, graph.target)


def _check_in_place(op: Operation, written: Buffer, out_value: SSAValue, read: Buffer, in_value: SSAValue, target: TargetInfo) -> None:
    """`op` reads `read` and writes `written` over its bytes: fine where the target computes
    that op in place (targets/rules/aliasing.py), else an error saying why."""
    assert written.addr is not None and read.addr is not None
    w, r = out_value.type, in_value.type
    laid = Alias.OTHER
    if written.addr == read.addr and isinstance(w, TileTypeBase) and isinstance(r, TileTypeBase):
        laid = (
            Alias.EXACT if exact_alias(w, r) else Alias.FORWARD if forward_alias(w, r)
            else Alias.LEADING if leading_alias(w, r) else Alias.OTHER
        )
    if (why := in_place_refusal(op, in_value, out_value, target, laid)) is not None:
        raise PtoError.at_op(
            written.op,
            f"{written.name} at bytes [{written.addr}, {written.addr + written.size}) overlaps {read.name} "
            f"at [{read.addr}, {read.addr + read.size}): {_op_at(op)} reads {read.label} and writes "
            f"{written.label} over it, but {why} (target {target})",
        )


def plan_function(f: func.FuncOp, graph: CallGraph, reserved: list[Buffer]) -> list[Buffer]:
    """Give every unaddressed tile the lowest aligned address free for its whole live range,
    off the `reserved` tiles (callers' tiles live across calls to f) and within the budget
    of f and of its callers. A function with no tile to place has nothing to do here:
    check_manual_addresses has checked its hand-placed ones."""
    if not any(isinstance(op, AllocTileOp) and op.addr is None for op in walk(f)):
        return []
    buffers = graph.buffers_of(f)
    whole = [Buffer(r.op, r.space, r.size, 0, len(buffers) and max(b.end for b in buffers), r.addr, r.label) for r in reserved]
    placed = [b for b in buffers if b.addr is not None] + whole
    planned: list[Buffer] = []
    for b in sorted((b for b in buffers if b.addr is None), key=lambda b: (b.start, -b.size)):
        if b.space not in graph.target.on_chip_bytes or not isinstance(b.op, AllocTileOp):
            continue
        planned.append(b)
        align = TILE_ADDRESS_ALIGNMENT.get(b.space, 32)
        addr = 0
        for other in sorted((o for o in placed if o.space == b.space and o.live_with(b)), key=lambda o: cast(int, o.addr)):
            if addr + b.size <= cast(int, other.addr):
                break
            addr = max(addr, -(-(other.addr + other.size) // align) * align)
        b.addr = addr
        limit, what = graph.limit(f, b.space)
        if addr + b.size > limit:
            live = sorted((o for o in placed if o.space == b.space and o.live_with(b)), key=lambda o: -o.size)
            largest = ", ".join(f"{o.label} ({o.size} bytes)" for o in [b, *live][:4])
            raise PtoError.at_op(
                b.op,
                f"{MEMORY_NAMES[b.space]} overflow: needs {addr + b.size} bytes, target {graph.target} has "
                f"{limit}; live tiles: {largest} (limit: {what})",
            )
        placed.append(b)
    _check_inside(f, buffers, graph)
    _check_apart(f, [b for b in buffers if b.addr is not None], {id(b) for b in planned}, graph)
    return buffers


def plan_table(f: func.FuncOp, buffers: list[Buffer], graph: CallGraph) -> str:
    """The plan of one function as a small markdown table, with the peak per space."""
    lines = [f"memory plan of @{f.sym_name.data} (target {graph.target})", "", "| tile | space | bytes | address | live |", "|---|---|---|---|---|"]
    for b in buffers:
        addr = "-" if b.addr is None else str(b.addr)
        live = "none" if b.holds_nothing else f"{b.start}..{b.end}"
        lines.append(f"| {b.label} | {b.space} | {b.size} | {addr} | {live} |")
    if not buffers:
        lines.append("| (no tiles) | | | | |")
    for space in sorted({b.space for b in buffers if b.addr is not None}):
        peak = max(b.addr + b.size for b in buffers if b.space == space and b.addr is not None)
        # the planner budgets UB and L1; a hand-placed tile elsewhere (L0A, BT, FB, ...) is
        # measured against its memory's size
        on_chip = space in graph.target.on_chip_bytes
        limit = graph.limit(f, space)[0] if on_chip else graph.target.tile_capacity_bytes[space]
        lines.append(f"peak {MEMORY_NAMES.get(space, space)} use: {peak} of {limit} bytes")
    return "\n".join(lines) + "\n"


def memory_plan_report(module: Operation, target: str | TargetInfo) -> str:
    """`--print-memory-plan`: the table of every function (addresses as they now stand)."""
    graph = CallGraph(module, target)
    return "".join("\n" + plan_table(f, graph.buffers_of(f), graph) for f in graph.functions)
