"""
Batched loops: an `scf.for` whose iterations are independent runs each body op once, over
all iterations at once, on values with a leading iteration axis (issue 12, item 3).

Independent, decided at run time from the actual addresses of every iteration:
- no `iter_args`: the induction variable is the only value that changes between iterations;
- GM: no element one iteration writes is read or written by another (iteration windows with
  disjoint spans, else compared element by element); a buffer read at data-dependent places
  (an MGATHER table) is not written in the loop; a buffer written at data-dependent places (an
  MSCATTER table) is touched by nothing else in the loop (no other access, no other buffer
  sharing its memory): its one op then takes every iteration's writes and applies them in the
  serial order, iteration after iteration, so colliding writes of different iterations land
  (or accumulate, rounding after each add) as they would one iteration at a time;
- UB: an element an iteration reads before writing it is written by no iteration (so each
  iteration sees its pre-loop value), and the tiles the loop writes overlap no other tile it uses.
- scalars read from GM (`pto.load_scalar`, of an integer type) are read from a buffer the loop
  writes nowhere (so every iteration reads what it would have read in order), and feed only
  index math and view offsets: a token id read per iteration makes the view of its row move.
Anything else (another op in the body, a view whose shape varies, a fault in the index math)
runs iteration by iteration, as interpreter/loops.py does.

Batched values: the induction variable, the scalars read at offsets computed from it and the
index math on them are int64 arrays (wrapping at the result's width as the scalar ops do); a view at a varying offset holds one offset per
iteration (memory.GmView); a tile the loop writes gets one storage per iteration, and the last
iteration's contents go back to UB. Data ops run their ordinary implementations on these
values: the kernels (pto_dialect/instructions/) index trailing axes, and each op's
`FOOTPRINT` says what its kernel reads and writes.

A fault names its first failing iteration (memory.RuntimeFault.iteration). The run then goes
on with that op and the following ones over the iterations before it only, so the fault
reported is the one the serial run would meet first: same op, same message, plus the iteration.
"""

from __future__ import annotations

from typing import Any, NamedTuple, cast

import numpy as np
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.interpreter import Interpreter
from xdsl.ir import Attribute, Operation

from xdsl.traits import MemoryEffectKind, get_effects

from pto_dialect.diagnostics import PtoError, op_location
from pto_dialect.instructions.transfer import TLoadOp, TStoreOp
from pto_dialect.integer_arith import INTEGER_BINARY, wrap_array
from pto_dialect.machine import Footprint, GmView, RuntimeFault, Tile
from pto_dialect.mlir_arith import IndexCastUIOp
from pto_dialect.ops import LoadScalarOp, PartitionViewOp
from pto_dialect.types import PtrType
from pto_dialect.ops.sync import SYNC_OPS

from interpreter.lowered import kernel_call
from interpreter.state import located_failure, run_state

SYNC_OP_TYPES = tuple(SYNC_OPS)

SLICE_TRIPS = 1 << 16
"""Iterations batched at a time: a longer loop runs slice after slice, in order (its index
arrays stay small, and Ctrl-C is seen between slices)."""
CHUNK_BYTES = 4 << 20
"""Most bytes of per-iteration tile storage at once: longer loops run batched in chunks of
iterations, one after the other, so memory stays within this much (plus the kernels' temporaries
of the same size) whatever the trip count. Small enough for a chunk's arrays to stay in the
caches from one op to the next, large enough for each op's per-chunk cost to stay small. CPU
time of bench/softmax.py's kernel: 143 ms at 64 MiB, 94 ms at 4 MiB, 83 ms at 1 MiB where
malloc reuses freed memory; about 140 ms at each where every chunk's arrays are new pages (the
page faults, 20,500 a run at 4 MiB against 3,700, take what the caches give). bench/run.py's
PTOAS-style lookup: 9.4 ms at 64 MiB, 9.6 ms at 4 MiB, 13 ms at 1 MiB. A tile that TLOADs write
straight into the windows its TSTORE copies it to, nothing else touching it, costs neither
(`_passes_through`): bench/embedding.py's DeepSeek-style lookup, 1024 rows of 14 KiB, then runs
in one chunk, 4.1 ms of CPU against 5.6 ms in four."""

ELEMENT_CHECK_LIMIT = 1 << 22
"""Most GM element accesses (one buffer, all iterations) compared one by one when iteration
windows' spans overlap; beyond it the loop runs iteration by iteration."""

INDEX_MATH = (arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.MinSIOp, arith.MaxSIOp)
"""Integer ops computed on a varying operand (elementwise at the result width: pto_dialect/integer_arith.py)."""

def int_width(interpreter: Interpreter, op: Operation) -> int:
    return type_width(interpreter, op.results[0].type)


def type_width(interpreter: Interpreter, int_type: Attribute) -> int:
    """The bits of an integer or index type."""
    if isinstance(int_type, IndexType):
        return interpreter.index_bitwidth
    assert isinstance(int_type, IntegerType)
    return int_type.width.data


# ---------------------------------------------------------------------------
# Which loops: decided once per loop from its prepared plan


def _is_data(op: Operation) -> bool:
    """An op whose kernel takes a leading iteration axis (it says what it touches)."""
    return getattr(op, "FOOTPRINT", None) is not None


def _is_sync(op: Operation) -> bool:
    """A sync op: it orders pipes, which a run in program order has no use for."""
    return isinstance(op, SYNC_OP_TYPES)


def _is_pure(op: Operation) -> bool:
    """An op whose memory effects are at most the allocation of its results: an alloc_tile
    only places a tile (at the same UB address, or a private buffer, in every iteration while
    its operands do not vary)."""
    effects = get_effects(op)
    return effects is not None and all(e.kind == MemoryEffectKind.ALLOC for e in effects)


def _loads_integer(op: LoadScalarOp) -> bool:
    """A scalar read whose values int64 holds exactly (what index math computes on)."""
    ptr_type = op.ptr.type
    assert isinstance(ptr_type, PtrType)
    dtype = ptr_type.element.numpy
    return dtype.kind == "i" or (dtype.kind == "u" and dtype.itemsize < 8)


def _cast_width(interpreter: Interpreter, op: arith.IndexCastOp) -> int:
    """The bits an index_cast keeps: sign-extended from a narrower input, truncated to a
    narrower result (xDSL's run_indexcast)."""
    source = op.input.type
    source_width = interpreter.index_bitwidth if isinstance(source, IndexType) else cast(IntegerType, source).width.data
    return min(source_width, int_width(interpreter, op))


def _varies_ok(interpreter: Interpreter, op: Operation, operands: tuple[int, ...], varying: set[int]) -> bool:
    """Whether `op` can take its varying operands as arrays."""
    if isinstance(op, PartitionViewOp):
        rank = (len(operands) - 1) // 2
        return not varying.intersection(operands[1 + rank :])  # sizes stay the same
    if isinstance(op, LoadScalarOp):
        return True  # only the offset can vary: a pointer is no index math
    if isinstance(op, arith.IndexCastOp):
        return _cast_width(interpreter, op) <= 64
    if isinstance(op, IndexCastUIOp):
        return max(type_width(interpreter, op.input.type), int_width(interpreter, op)) <= 64
    return isinstance(op, INDEX_MATH) and int_width(interpreter, op) <= 64


def eligible(interpreter: Interpreter, plan: Any) -> bool:
    """Whether the loop's shape allows batching: no carried values; the body holds only
    index math, views, integer scalar reads and data ops with batched kernels; index math does
    not read data, and what scalar reads give reaches data ops only as view offsets."""
    if len(plan.block_args) != 1 or plan.yielded:
        return False
    varying = {plan.block_args[0]}
    loaded: set[int] = set()
    """Scalars read from GM and values computed from them (not the views they place)."""
    data_results: set[int] = set()
    for step in plan.steps:
        if _is_data(step.op):
            if loaded.intersection(step.operands):
                return False  # a kernel's scalar operand is one number, not one per iteration
            data_results.update(step.results)
            continue
        if _is_sync(step.op):
            continue
        if data_results.intersection(step.operands):
            return False
        if isinstance(step.op, LoadScalarOp):
            if not _loads_integer(step.op):
                return False
            loaded.update(step.results)
        elif not _is_pure(step.op):
            return False
        elif loaded.intersection(step.operands) and not isinstance(step.op, PartitionViewOp):
            loaded.update(step.results)
        if varying.intersection(step.operands):
            if not _varies_ok(interpreter, step.op, step.operands, varying):
                return False
            varying.update(step.results)
    return True


# ---------------------------------------------------------------------------
# Running a loop batched


def _vary(interpreter: Interpreter, op: Operation, args: list[Any], count: int) -> tuple[Any, ...]:
    """A pure op with at least one varying operand, for every iteration at once."""
    if isinstance(op, PartitionViewOp):
        return (_partition(args, count),)
    if isinstance(op, LoadScalarOp):
        buffer, offsets = args
        if np.any((offsets < 0) | (offsets >= buffer.size)):
            raise RuntimeFault("offset outside the pointer's array")  # the serial run words it
        return (buffer[offsets].astype(np.int64),)
    if isinstance(op, arith.IndexCastOp):
        return (wrap_array(args[0], _cast_width(interpreter, op)),)
    if isinstance(op, IndexCastUIOp):
        source = type_width(interpreter, op.input.type)
        unsigned = args[0] if source == 64 else args[0] & np.int64((1 << source) - 1)  # int64 keeps 64 bits as they are
        return (wrap_array(unsigned, int_width(interpreter, op)),)
    return (INTEGER_BINARY[type(op)](args[0], args[1], int_width(interpreter, op)),)


def _partition(args: list[Any], count: int) -> GmView:
    source, *rest = args
    assert isinstance(source, GmView)
    rank = len(rest) // 2
    sizes = tuple(rest[rank:])
    offset = np.broadcast_to(np.asarray(source.offset, np.int64), (count,))
    for o, s, d, st in zip(rest, sizes, source.shape, source.strides):
        if np.any((o < 0) | (s <= 0) | (o + s > d)):
            raise RuntimeFault("partition outside its source")  # the serial run words it
        offset = offset + o * st
    return GmView(source.buffer, offset, sizes, source.strides)


def _footprint(op: Operation, args: list[Any]) -> Footprint:
    call = kernel_call(op, tuple(args))
    return type(op).FOOTPRINT(call.operands, **call.params)  # pyright: ignore[reportAttributeAccessIssue]


class _TileUse:
    __slots__ = ("tile", "written", "read_first")

    def __init__(self, tile: Tile):
        self.tile = tile
        self.written = np.zeros(tile.flat.size, bool)
        """Storage elements the body writes."""
        self.read_first = np.zeros(tile.flat.size, bool)
        """Storage elements an iteration reads before writing them."""


def _tile_uses(prints: list[Footprint]) -> list[_TileUse] | None:
    """Every tile the body touches, or None if an iteration could see another's UB contents."""
    uses: dict[int, _TileUse] = {}
    for fp in prints:
        for tile, write, elements in fp.tiles:
            use = uses.get(id(tile))
            if use is None:
                use = uses[id(tile)] = _TileUse(tile)
            mask = np.zeros(tile.flat.size, bool)
            mask[slice(None) if elements is None else elements] = True
            if write:
                use.written |= mask
            else:
                use.read_first |= mask & ~use.written
    found = list(uses.values())
    for i, use in enumerate(found):
        if (use.read_first & use.written).any():
            return None
        for other in found[i + 1 :]:
            if (use.written.any() or other.written.any()) and np.may_share_memory(use.tile.flat, other.tile.flat):
                return None
    return found


def _gm_independent(prints: list[Footprint], count: int) -> bool:
    """No GM element one iteration writes is read or written by another."""
    accesses: dict[int, list[tuple[GmView, bool]]] = {}
    gathered: set[int] = set()
    scattered: set[int] = set()
    for fp in prints:
        for view, write, at_data in fp.views:
            if at_data and not write and isinstance(view.offset, np.ndarray):
                return False  # a gather table that moves: its kernels take one base
            accesses.setdefault(id(view.buffer), []).append((view, write))
            if at_data:
                (scattered if write else gathered).add(id(view.buffer))
    buffers = {key: views[0][0].buffer for key, views in accesses.items()}
    for key, views in accesses.items():
        if not any(write for _, write in views):
            continue
        if key in gathered:
            return False
        if any(k != key and np.may_share_memory(buffers[key], other) for k, other in buffers.items()):
            return False
        if key in scattered:
            if len(views) > 1:
                return False  # another op's accesses would move relative to the scatter's
            continue  # its kernel applies the writes in serial order, iterations outermost
        if not _windows_disjoint(views, count):
            return False
    return True


def _unwritten(buffers: list[np.ndarray], prints: list[Footprint]) -> bool:
    """No op of the loop writes memory of `buffers` (the arrays scalar reads read: all of them
    were read before any data op ran)."""
    written = [view.buffer for fp in prints for view, write, _ in fp.views if write]
    return not any(np.may_share_memory(b, w) for b in buffers for w in written)


def _scatters_see_iterations(prints: list[Footprint], uses: list[_TileUse]) -> bool:
    """Every op writing GM at data-dependent places gets an operand with the iteration axis (a
    tile the loop writes, or a view that moves), so its one call applies every iteration's
    writes; one that scatters the same tile to the same place each time runs serially."""
    written = {id(use.tile) for use in uses if use.written.any()}
    for fp in prints:
        if not any(write and at_data for _, write, at_data in fp.views):
            continue
        if not any(isinstance(v.offset, np.ndarray) for v, _, _ in fp.views) and not any(
            id(t) in written for t, _, _ in fp.tiles
        ):
            return False
    return True


def _windows_disjoint(accesses: list[tuple[GmView, bool]], count: int) -> bool:
    """No element one iteration writes is touched by another iteration."""
    lows, highs = [], []
    for view, write in accesses:
        if write and not isinstance(view.offset, np.ndarray) and count > 1:
            return False  # every iteration writes the same window
        low, high = view.reach(view.offset)
        lows.append(np.broadcast_to(low, (count,)))
        highs.append(np.broadcast_to(high, (count,)))
    low, high = np.min(lows, axis=0), np.max(highs, axis=0)
    order = np.argsort(low, kind="stable")
    if (high[order][:-1] < low[order][1:]).all():
        return True
    if count * sum(int(np.prod(v.shape)) for v, _ in accesses) > ELEMENT_CHECK_LIMIT:
        return False
    return _elements_disjoint(accesses, count)


def _elements(view: GmView, count: int) -> np.ndarray:
    """iterations x the window's element offsets."""
    offsets = view.offsets2d()
    per_window = offsets.shape[-2] * offsets.shape[-1]
    return np.broadcast_to(offsets.reshape(*offsets.shape[:-2], per_window), (count, per_window))


def _elements_disjoint(accesses: list[tuple[GmView, bool]], count: int) -> bool:
    writes = np.concatenate([_elements(v, count) for v, w in accesses if w], axis=1)
    owners = np.broadcast_to(np.arange(count)[:, None], writes.shape).reshape(-1)
    written = writes.reshape(-1)
    order = np.lexsort((owners, written))
    written, owners = written[order], owners[order]
    if ((written[1:] == written[:-1]) & (owners[1:] != owners[:-1])).any():
        return False
    unique, first = np.unique(written, return_index=True)
    owner = owners[first]
    reads = [_elements(v, count) for v, w in accesses if not w]
    if not reads:
        return True
    read = np.concatenate(reads, axis=1)
    at = np.minimum(np.searchsorted(unique, read), unique.size - 1)
    return not ((unique[at] == read) & (owner[at] != np.arange(count)[:, None])).any()


def _store_target(
    use: _TileUse, data: list[Any], prints: list[Footprint], count: int
) -> tuple[np.ndarray, int, GmView] | None:
    """Per-iteration storage for a tile that lives in the GM windows a tstore copies it to, that
    tstore's position (it then has nothing left to do) and its view; None when that would differ.

    Holds when the tile (ND, valid = shape) is written whole before any read in an iteration,
    every write precedes the tstore, the windows are evenly spaced and each is the tile's
    storage, contiguous, and no other access in the loop touches their buffer."""
    tile = use.tile
    if tile.type.inner_box is not None or not use.written.all() or use.read_first.any():
        return None
    if tile.valid_shape != tuple(tile.type.shape) or not tile.type.is_row_major:
        return None
    touches = [i for i, fp in enumerate(prints) for t, _, _ in fp.tiles if t is tile]
    writes = [i for i, fp in enumerate(prints) for t, w, _ in fp.tiles if t is tile and w]
    store = next((i for i in touches if isinstance(data[i].op, TStoreOp) and i > max(writes)), None)
    if store is None:
        return None
    (view, _, _), = prints[store].views
    if not isinstance(view.offset, np.ndarray) or view.buffer.dtype != tile.flat.dtype:
        return None
    if not view.buffer.flags.writeable:
        return None
    if view.shape2d != tuple(tile.type.shape):
        return None
    if sum(v.buffer is view.buffer for fp in prints for v, _, _ in fp.views) != 1:
        return None
    try:
        windows = view.array()
        if windows is None:
            return None
        return np.reshape(windows, (count, tile.flat.size), copy=False), store, view
    except (RuntimeFault, ValueError):  # out of bounds (the tstore reports it), or not contiguous
        return None


def _passes_through(use: _TileUse, target: tuple[np.ndarray, int, GmView] | None, data: list[Any], prints: list[Footprint]) -> bool:
    """Whether a tile only carries GM to GM: written straight into its tstore's windows (`target`)
    by TLOADs alone, touched by nothing else. Its chunk then allocates nothing for it and no
    kernel computes on it (no temporaries of its size): it does not count toward CHUNK_BYTES."""
    if target is None:
        return False
    store = target[1]
    return all(i == store or isinstance(data[i].op, TLoadOp) for i, fp in enumerate(prints) for t, _, _ in fp.tiles if t is use.tile)


def _iterations(value: Any, start: int, stop: int) -> Any:
    """A batched value's iterations start..stop-1 (views into the same storage)."""
    if isinstance(value, Tile):
        return Tile(value.type, value.flat[start:stop], value.valid_row, value.valid_col)
    if isinstance(value, GmView):
        return GmView(value.buffer, cast(np.ndarray, value.offset)[start:stop], value.shape, value.strides)
    return value[start:stop]


def _failing_iteration(error: BaseException) -> int:
    """The first failing iteration a fault names (0: it fails in every iteration)."""
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, RuntimeFault) and cause.iteration is not None:
            return cause.iteration
        cause = cause.__cause__
    return 0


def in_iteration(error: PtoError, loop: scf.ForOp, iteration: int, value: int) -> PtoError:
    """A fault inside a batchable loop, with the iteration it happened in."""
    where = f"iteration {iteration} of the scf.for at {op_location(loop)}, induction variable {value}"
    return PtoError(f"{error.text} ({where})")


class _Fault(NamedTuple):
    iteration: int
    error: PtoError


def run_batched(
    interpreter: Interpreter, loop: scf.ForOp, plan: Any, bounds: range, slots: list[Any],
    first_iteration: int = 0,
) -> bool:
    """Run an eligible loop's iterations `bounds` (the loop's iterations from `first_iteration`
    on) batched (True), or leave everything untouched when they are not independent (False:
    run them serially). `slots` holds the body's outside values."""
    count = len(bounds)
    if not (-(1 << 63) <= min(bounds) and max(bounds) < 1 << 63):
        return False
    batched = [False] * len(slots)
    slots[plan.block_args[0]] = np.arange(bounds.start, bounds.stop, bounds.step, dtype=np.int64)
    batched[plan.block_args[0]] = True
    data = []
    try:
        for step in plan.steps:
            if _is_data(step.op):
                data.append(step)
                continue
            if _is_sync(step.op):
                continue
            args = [slots[s] for s in step.operands]
            varying = any(batched[s] for s in step.operands)
            if varying:
                values = _vary(interpreter, step.op, args, count)
            else:
                values = step.run(step.functions, interpreter, step.op, tuple(args)).values
            for s, v in zip(step.results, values):
                slots[s] = v
                batched[s] = varying
        prints = [_footprint(step.op, [slots[s] for s in step.operands]) for step in data]
        uses = _tile_uses(prints)
        if uses is None or not _gm_independent(prints, count) or not _scatters_see_iterations(prints, uses):
            return False
        scalar_sources = [slots[step.operands[0]] for step in plan.steps if isinstance(step.op, LoadScalarOp)]
        if not _unwritten(scalar_sources, prints):
            return False
        written = [use for use in uses if use.written.any()]
        forwarded = {id(use): _store_target(use, data, prints, count) for use in written}
    except Exception:  # a fault in the index math or a window: the serial run reports it, at its iteration
        return False

    per_iteration_bytes = sum(use.tile.flat.nbytes for use in written if not _passes_through(use, forwarded[id(use)], data, prints))
    chunk = max(1, CHUNK_BYTES // per_iteration_bytes) if per_iteration_bytes else count
    for start in range(0, count, chunk):
        stop = min(count, start + chunk)
        chunk_slots = [_iterations(v, start, stop) if b else v for v, b in zip(slots, batched)]
        fault = _run_chunk(interpreter, data, written, forwarded, chunk_slots, list(batched), start, stop)
        if fault is not None:
            k = start + fault.iteration
            raise in_iteration(fault.error, loop, first_iteration + k, bounds[k]) from fault.error
    return True


def _run_chunk(interpreter: Interpreter, data: list[Any], written: list[_TileUse],
               forwarded: dict[int, tuple[np.ndarray, int, GmView] | None], slots: list[Any], batched: list[bool],
               start: int, stop: int) -> _Fault | None:
    """Iterations start..stop-1 of the data ops, each op once; the fault the serial run meets first, if any."""
    count = stop - start
    skipped: set[int] = set()
    per_iteration: list[tuple[_TileUse, Tile]] = []
    for use in written:
        tile, target = use.tile, forwarded[id(use)]
        if target is not None:
            storage = target[0][start:stop]
            skipped.add(target[1])
            if (writes := run_state(interpreter).gm_writes) is not None:  # the skipped tstore's windows, whole
                writes.mark(_iterations(target[2], start, stop))
        else:
            storage = np.empty((count, tile.flat.size), tile.flat.dtype)
        if use.read_first.any():
            storage[:, use.read_first] = tile.flat[use.read_first]
        own = Tile(tile.type, storage, tile.valid_row, tile.valid_col)
        per_iteration.append((use, own))
        for s, v in enumerate(slots):
            if v is tile:
                slots[s], batched[s] = own, True

    limit, fault = count, None
    profiler = run_state(interpreter).profiler
    for position, step in enumerate(data):
        if position in skipped:  # a store the loop's tiles were written straight into
            if profiler is not None:
                profiler.record(step.op, tuple(slots[s] for s in step.operands))
            continue
        while limit:
            args = tuple(_iterations(slots[s], 0, limit) if batched[s] and limit < count else slots[s]
                         for s in step.operands)
            try:
                values = step.run(step.functions, interpreter, step.op, args).values
                break
            except Exception as e:  # rerun this op and the rest over the iterations before the fault
                limit = min(_failing_iteration(e), limit - 1)
                fault = _Fault(limit, located_failure(step.op, e))
        if not limit:
            break
        for s, v in zip(step.results, values):
            slots[s] = v
            batched[s] = any(batched[o] for o in step.operands)
    if fault is None:
        for use, own in per_iteration:
            use.tile.flat[use.written] = own.flat[-1][use.written]
    return fault
