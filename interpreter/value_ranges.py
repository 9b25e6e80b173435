"""
The values a kernel's integer SSA values can take, by interval arithmetic over its code, and
from that the ranges random inputs draw integer arrays in (interpreter/inputs.py).

An integer array whose elements become an offset or an index (a `load_scalar` / `store_scalar`
offset, a `partition_view` or `subview` offset, a `tgetval` / `tsetval` offset, the index
operand of a gather or scatter, a dynamic valid row or column count), directly or through
arithmetic (`arith` ops, casts, clamps, a remainder spelt x - (x / c) * c), scalar reads
(`load_scalar`, `tgetval`), tiles (`tload`, `tsetval`, subviews, reshapes) and loop bounds, is
drawn in the widest range [low, high] (low >= 0, as small as it can be) for which
every such offset the analysis can bound stays inside what it indexes (and a loop bound it
gives stays at most LOOP_BOUND_LIMIT, so that runs stay short). The analysis ignores
branch conditions, so it may draw narrower than a kernel needs, never wider.

Integer arithmetic wraps at its type's width: an addi, subi or muli interval may run past the
type's range (its values stand for themselves modulo 2^width, which those ops keep); every
other op reads its operands wrapped first, and `of` gives the wrapped interval (exact where no
value in it wraps, else the type's whole range).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Attribute, BlockArgument, OpResult, Operation, SSAValue

from pto_dialect.dtypes import element_info
from pto_dialect.integer_arith import INTEGER_BINARY, type_bits
from pto_dialect.integer_casts import IntegerCast, integer_cast
from pto_dialect.ops import LoadScalarOp, MakeTensorViewOp, PartitionViewOp, StoreScalarOp, SubViewOp, TReshapeOp
from pto_dialect.ops.common import PtoInstructionOp
from pto_dialect.ops.memory import AllocTileOp, constant_index
from pto_dialect.ops.tile_value import TGetValOp, TSetValOp, storage_elements
from pto_dialect.ops.valid_shape import SetValidShapeOp
from pto_dialect.types import TileBufType

Interval = tuple[int, int]
"""Inclusive bounds."""
Draws = Mapping[BlockArgument, Interval]
"""The range each integer array argument is drawn in."""

_Result = tuple[Interval | None, frozenset[BlockArgument]]
"""A value's interval (None: unknown) and the arrays it depends on."""

_NO_DEPS: frozenset[BlockArgument] = frozenset()


def _corners(op: Callable[[int, int], int], a: Interval, b: Interval) -> Interval:
    values = [op(x, y) for x in a for y in b]
    return min(values), max(values)


def _divide(a: Interval, b: Interval, rounding: Callable[[int, int], int]) -> Interval | None:
    if b[0] <= 0 <= b[1]:
        return None  # a divisor that may be 0
    return _corners(rounding, a, b)


def _unsigned_divide(a: Interval, b: Interval, rounding: Callable[[int, int], int]) -> Interval | None:
    """divui and ceildivui: as signed division where both operands are never negative (else the
    unsigned reading of a negative operand is near 2^width: unknown)."""
    return _divide(a, b, rounding) if a[0] >= 0 and b[0] >= 0 else None


def _remainder(a: Interval, b: Interval, signed: bool) -> Interval | None:
    if b[0] <= 0:
        return None
    top = b[1] - 1
    if a[0] >= 0:
        return (a[0], a[1]) if a[1] < b[0] else (0, min(a[1], top))
    return (-top, top) if signed else None


_BINARY: dict[type[Operation], Callable[[Interval, Interval], Interval | None]] = {
    arith.AddiOp: lambda a, b: (a[0] + b[0], a[1] + b[1]),
    arith.SubiOp: lambda a, b: (a[0] - b[1], a[1] - b[0]),
    arith.MuliOp: lambda a, b: _corners(lambda x, y: x * y, a, b),
    arith.DivSIOp: lambda a, b: _divide(a, b, INTEGER_BINARY[arith.DivSIOp].combine),  # exact (a float quotient is not at 64 bits)
    arith.DivUIOp: lambda a, b: _unsigned_divide(a, b, lambda x, y: x // y),
    arith.FloorDivSIOp: lambda a, b: _divide(a, b, lambda x, y: x // y),
    arith.CeilDivSIOp: lambda a, b: _divide(a, b, lambda x, y: -(-x // y)),
    arith.CeilDivUIOp: lambda a, b: _unsigned_divide(a, b, lambda x, y: -(-x // y)),
    arith.RemSIOp: lambda a, b: _remainder(a, b, True),
    arith.RemUIOp: lambda a, b: _remainder(a, b, False),
    arith.MaxSIOp: lambda a, b: (max(a[0], b[0]), max(a[1], b[1])),
    arith.MinSIOp: lambda a, b: (min(a[0], b[0]), min(a[1], b[1])),
    arith.MaxUIOp: lambda a, b: (max(a[0], b[0]), max(a[1], b[1])) if min(a[0], b[0]) >= 0 else None,
    arith.MinUIOp: lambda a, b: (min(a[0], b[0]), min(a[1], b[1])) if min(a[0], b[0]) >= 0 else None,
}
_MODULAR = (arith.AddiOp, arith.SubiOp, arith.MuliOp)
"""Ops whose results modulo 2^width follow from their operands modulo 2^width (unwrapped here)."""
_CLAMPS = (arith.MaxSIOp, arith.MinSIOp, arith.MaxUIOp, arith.MinUIOp)


def _remainder_form(op: Operation) -> tuple[SSAValue, SSAValue] | None:
    """(x, c) when `op` is x - (x / c) * c (signed division, either factor order): x rem c, whose
    bounds interval arithmetic over the subtraction alone would lose."""
    if not isinstance(op, arith.SubiOp) or not isinstance(product := op.rhs.owner, arith.MuliOp):
        return None
    x = op.lhs
    for quotient, divisor in ((product.lhs, product.rhs), (product.rhs, product.lhs)):
        division = quotient.owner
        if isinstance(division, arith.DivSIOp) and division.lhs == x and division.rhs == divisor:
            return x, divisor
    return None


def table_of(view: SSAValue) -> BlockArgument | None:
    """The argument (a pointer, or a view) a view or a partition of it is made of."""
    while isinstance(view, OpResult) and isinstance(view.op, PartitionViewOp | MakeTensorViewOp):
        view = view.op.operands[0]
    return view if isinstance(view, BlockArgument) and isinstance(view.owner.parent_op(), func.FuncOp) else None


def _element(tile: SSAValue) -> Attribute:
    tile_type = tile.type
    assert isinstance(tile_type, TileBufType)
    return tile_type.element_type


def _tile_root(tile: SSAValue) -> SSAValue:
    while isinstance(tile, OpResult) and isinstance(tile.op, SubViewOp | TReshapeOp):
        tile = tile.op.source
    return tile


def _aliases(root: SSAValue) -> Iterator[SSAValue]:
    """The tile and every subview and reshape of it (the same bytes)."""
    pending = [root]
    while pending:
        tile = pending.pop()
        yield tile
        pending += [u.operation.results[0] for u in tile.uses if isinstance(u.operation, SubViewOp | TReshapeOp)]


class ValueRanges:
    """Interval arithmetic over a function's integer values, given the scalar arguments' values
    and the ranges its integer arrays are drawn in."""

    def __init__(self, given: Mapping[SSAValue, int | float], draws: Draws, through_clamps: bool = False) -> None:
        self.given = given
        self.draws = draws
        self.through_clamps = through_clamps
        """A max / min of a drawn value and one that is not is the drawn value: the range that
        needs no clamp (what the kernel means; the clamp guards against bad input)."""
        self._memo: dict[SSAValue, _Result] = {}

    def of(self, value: SSAValue) -> Interval | None:
        return _wrapped(self._eval(value)[0], value.type)

    def depends_on(self, value: SSAValue) -> frozenset[BlockArgument]:
        return self._eval(value)[1]

    def _eval(self, value: SSAValue) -> _Result:
        if value not in self._memo:
            self._memo[value] = (None, _NO_DEPS)  # a cycle (a loop-carried value) is unknown
            self._memo[value] = self._compute(value)
        return self._memo[value]

    def _compute(self, value: SSAValue) -> _Result:
        if value in self.given:
            v = int(self.given[value])
            return (v, v), _NO_DEPS
        if isinstance(value.type, TileBufType):
            return self._tile(value)
        if isinstance(value, BlockArgument):
            return self._block_argument(value)
        assert isinstance(value, OpResult)
        op = value.op
        if isinstance(op, arith.ConstantOp):
            if isinstance(op.value, IntegerAttr):
                return (op.value.value.data, op.value.value.data), _NO_DEPS
            return None, _NO_DEPS
        if (cast := integer_cast(op)) is not None:
            a, deps = self._eval(op.operands[0])
            return (cast.of_interval(*a) if a is not None else None), deps
        if isinstance(op, arith.SelectOp):
            return self._union([op.operands[1], op.operands[2]], extra=[op.operands[0]])
        if (remainder := _remainder_form(op)) is not None:  # x - (x / c) * c, PyPTO's spelling of x % c
            (a, deps_a), (b, deps_b) = self._eval(remainder[0]), self._eval(remainder[1])
            a, b = _wrapped(a, op.results[0].type), _wrapped(b, op.results[0].type)
            return (_remainder(a, b, True) if a is not None and b is not None else None), deps_a | deps_b
        if (combine := _BINARY.get(type(op))) is not None:
            (a, deps_a), (b, deps_b) = self._eval(op.operands[0]), self._eval(op.operands[1])
            if self.through_clamps and isinstance(op, _CLAMPS) and bool(deps_a) != bool(deps_b):
                return (a, deps_a) if deps_a else (b, deps_b)
            if isinstance(op, _MODULAR):
                return (combine(a, b) if a is not None and b is not None else None), deps_a | deps_b
            int_type = op.results[0].type
            a, b = _wrapped(a, int_type), _wrapped(b, int_type)
            return (_wrapped(combine(a, b), int_type) if a is not None and b is not None else None), deps_a | deps_b
        if isinstance(op, LoadScalarOp):
            ptr = op.ptr
            table = frozenset({ptr}) if isinstance(ptr, BlockArgument) and ptr in self.draws else _NO_DEPS
            return self.draws.get(ptr), table | self._eval(op.offset)[1]  # pyright: ignore[reportArgumentType, reportCallIssue]
        if isinstance(op, TGetValOp):
            tile, deps = self._eval(op.tile)
            return tile, deps | self._eval(op.offset)[1]
        return None, _NO_DEPS

    def _union(self, values: Sequence[SSAValue], extra: Sequence[SSAValue] = ()) -> _Result:
        results = [self._eval(v) for v in values]
        deps = frozenset().union(*(d for _, d in results), *(self._eval(v)[1] for v in extra))
        intervals = [r for r, _ in results]
        if any(r is None for r in intervals):
            return None, deps
        return (min(r[0] for r in intervals if r), max(r[1] for r in intervals if r)), deps

    def _block_argument(self, value: BlockArgument) -> _Result:
        loop = value.owner.parent_op()
        if isinstance(loop, scf.ForOp) and value.index == 0:  # the induction variable
            (low, deps_low), (high, deps_high) = self._eval(loop.lb), self._eval(loop.ub)
            deps = deps_low | deps_high
            if low is None or high is None or high[1] - 1 < low[0]:
                return None, deps
            return (low[0], high[1] - 1), deps
        if value in self.draws:  # a scalar argument drawn as an index
            return self.draws[value], frozenset({value})
        return None, _NO_DEPS

    def _tile(self, tile: SSAValue) -> _Result:
        """The values written into a tile (or any subview or reshape of its bytes), as its element
        type holds them."""
        element = _element(tile)
        written: list[Interval] = []
        deps: set[BlockArgument] = set()
        known = True
        for alias in _aliases(_tile_root(tile)):
            for use in alias.uses:
                user = use.operation
                if isinstance(user, SubViewOp | TReshapeOp | TGetValOp):
                    continue
                if isinstance(user, TSetValOp):
                    interval, more = self._eval(user.value)
                elif isinstance(user, PtoInstructionOp) and alias in user.destinations:
                    interval, more = self._instruction_writes(user)
                elif isinstance(user, PtoInstructionOp):
                    continue  # a read
                else:
                    interval, more = None, _NO_DEPS  # passed to a call, yielded: anything may happen
                if _element(alias) != element:
                    interval = None  # written as another element type through a reshape: the bytes reinterpreted
                deps |= more
                if interval is None:
                    known = False
                else:
                    written.append(interval)
        if known and not written:
            return self._left_at_address(_tile_root(tile))
        if not known:
            return None, frozenset(deps)
        return _held((min(w[0] for w in written), max(w[1] for w in written)), element), frozenset(deps)

    def _instruction_writes(self, op: PtoInstructionOp) -> _Result:
        """The values an instruction writes into its destination tile: a tload of an integer
        array, a copy, a fill, TCI's sequence and the integer elementwise arithmetic."""
        from pto_dialect.instructions.transfer import TLoadOp

        if isinstance(op, TLoadOp):
            table = table_of(op.operand("src"))
            return (self.draws.get(table), frozenset({table})) if table is not None else (None, _NO_DEPS)
        dst = op.destinations[0].type
        if not isinstance(dst, TileBufType) or not dst.element.is_integer:
            return None, _NO_DEPS
        if op.name in _COPIES:
            return self._eval(op.operand(_COPIES[op.name]))
        if op.name == "pto.tci":
            (start, deps) = self._eval(op.operand("start"))
            if start is None:
                return None, deps
            span = dst.shape[-1] - 1
            descending = getattr(op, "descending", None)
            if isinstance(descending, IntegerAttr) and descending.value.data:
                return (start[0] - span, start[1]), deps
            return (start[0], start[1] + span), deps
        if (arithmetic := _TILE_ARITHMETIC.get(op.name)) is not None:
            (a, deps_a), (b, deps_b) = (self._eval(v) for v in op.ins[:2])
            return (_BINARY[arithmetic](a, b) if a is not None and b is not None else None), deps_a | deps_b
        return None, _NO_DEPS

    def _left_at_address(self, root: SSAValue) -> _Result:
        """What a hand-placed tile nothing writes holds: the last write before its alloc_tile to
        a tile of the same element type at the same address (PyPTO reuses addresses so)."""
        alloc = root.op if isinstance(root, OpResult) else None
        if not isinstance(alloc, AllocTileOp) or alloc.addr is None or (addr := constant_index(alloc.addr)) is None:
            return None, _NO_DEPS
        element = alloc.result.type.element_type
        op: Operation | None = alloc
        while op is not None:
            earlier = op.prev_op
            if earlier is None:
                op = op.parent_op()
                continue
            op = earlier
            if op.regions:
                return None, _NO_DEPS  # a write inside an earlier loop or branch: not followed
            for tile in _tiles_written(op):
                other = _tile_root(tile)
                if isinstance(other, OpResult) and isinstance(other.op, AllocTileOp) and other.op.addr is not None:
                    if constant_index(other.op.addr) == addr:
                        return self._eval(tile) if other.type.element_type == element else (None, _NO_DEPS)  # pyright: ignore[reportAttributeAccessIssue]
        return None, _NO_DEPS


def _wrapped(interval: Interval | None, int_type: Attribute) -> Interval | None:
    """Bounds on an arith op's results, each of the exact values in `interval` wrapped to the
    width of `int_type` (exact where none wraps, else the type's range)."""
    bits = type_bits(int_type)
    if interval is None or bits is None:
        return interval
    return IntegerCast(bits, unsigned=False).of_interval(*interval)


def _held(interval: Interval, element: Attribute) -> Interval:
    """What an integer tile holds of values in `interval` written into it: the values where its
    element type holds them all, else anywhere in its range (an integer tcvt wraps or saturates,
    by its mode; integer tile arithmetic wraps)."""
    info = element_info(element)
    if info is None or not info.is_integer:
        return interval
    limits = np.iinfo(info.numpy)
    least, most = int(limits.min), int(limits.max)
    return interval if least <= interval[0] and interval[1] <= most else (least, most)


_COPIES = {"pto.tmov": "src", "pto.tcvt": "src", "pto.texpands": "scalar"}
"""Instructions whose destination holds an input's values (integer to integer)."""
_TILE_ARITHMETIC: dict[str, type[Operation]] = {
    "pto.tadd": arith.AddiOp, "pto.tadds": arith.AddiOp, "pto.tsub": arith.SubiOp, "pto.tsubs": arith.SubiOp,
    "pto.tmul": arith.MuliOp, "pto.tmuls": arith.MuliOp, "pto.tdiv": arith.DivSIOp, "pto.tdivs": arith.DivSIOp,
    "pto.tmax": arith.MaxSIOp, "pto.tmaxs": arith.MaxSIOp, "pto.tmin": arith.MinSIOp, "pto.tmins": arith.MinSIOp,
}
"""Integer tile arithmetic, as the scalar arith op computing each element."""


def _tiles_written(op: Operation) -> list[SSAValue]:
    if isinstance(op, TSetValOp):
        return [op.tile]
    if isinstance(op, PtoInstructionOp):
        return [d for d in op.destinations if isinstance(d.type, TileBufType)]
    return []


LOOP_BOUND_LIMIT = 100
"""The largest loop bound drawn data may give (a length read from an array): runs stay short."""


@dataclass(frozen=True)
class Sink:
    """An operand used as an offset or index: its values must lie in [0, entries)."""

    value: SSAValue
    entries: int
    where: Operation
    length: bool = False
    """A valid row or column count: a length, which a scalar argument gives, never a draw."""


def _exact(ranges: ValueRanges, value: SSAValue) -> int | None:
    interval = ranges.of(value)
    return interval[0] if interval is not None and interval[0] == interval[1] else None


def sinks(function: func.FuncOp, ranges: ValueRanges, extents: Mapping[BlockArgument, int]) -> list[Sink]:
    """Every offset and index operand of the function whose bound is known, every dynamic
    valid row and column count (within the tile), and every loop's upper bound
    (LOOP_BOUND_LIMIT at most, where it depends on drawn data)."""
    found: list[Sink] = []
    for op in function.walk():
        if isinstance(op, LoadScalarOp | StoreScalarOp) and op.ptr in extents:
            found.append(Sink(op.offset, extents[op.ptr], op))  # pyright: ignore[reportArgumentType]
        elif isinstance(op, TGetValOp | TSetValOp) and isinstance(tile := op.tile.type, TileBufType):
            found.append(Sink(op.offset, storage_elements(tile), op))
        elif isinstance(op, PartitionViewOp) and isinstance(source := op.source.owner, MakeTensorViewOp):
            for offset, whole, size in zip(op.offsets, source.shape, op.sizes):
                w, s = _exact(ranges, whole), _exact(ranges, size)
                if w is not None and s is not None:
                    found.append(Sink(offset, w - s + 1, op))
        elif isinstance(op, SubViewOp):
            source, result = op.source.type, op.result.type
            if isinstance(source, TileBufType) and isinstance(result, TileBufType):
                for offset, whole, size in zip(op.offsets, source.shape, result.shape):
                    found.append(Sink(offset, whole - size + 1, op))
        elif isinstance(op, AllocTileOp | SetValidShapeOp):  # a valid shape within the tile
            tile = op.result.type if isinstance(op, AllocTileOp) else op.source.type
            for valid, whole in zip((op.valid_row, op.valid_col), tile.shape):  # pyright: ignore[reportAttributeAccessIssue]
                if valid is not None:
                    found.append(Sink(valid, whole + 1, op, length=True))
        elif isinstance(op, scf.ForOp):
            found.append(Sink(op.ub, LOOP_BOUND_LIMIT + 1, op))
        elif (index_entries := getattr(op, "index_entries", None)) is not None:
            for operand in op.operands:
                if (entries := index_entries(operand)) is not None:
                    found.append(Sink(operand, entries, op))
    return found


def _index_operand(ranges: ValueRanges, sink: Sink) -> Interval | None:
    """The values an index operand (a scalar, a tile of indices, or a view of an index array) takes."""
    if (table := table_of(sink.value)) is not None:
        return ranges.draws.get(table)
    return ranges.of(sink.value)


def _depends(ranges: ValueRanges, sink: Sink) -> frozenset[BlockArgument]:
    if (table := table_of(sink.value)) is not None:
        return frozenset({table})
    return ranges.depends_on(sink.value)


def fit_draws(
    function: func.FuncOp,
    given: Mapping[SSAValue, int | float],
    defaults: Mapping[BlockArgument, Interval],
    caps: Mapping[BlockArgument, int],
    extents: Mapping[BlockArgument, int],
) -> dict[BlockArgument, Interval]:
    """The ranges to draw the integer arrays in (`defaults`: their ranges when nothing bounds
    them; `caps`: the largest value of each one's type): each array some offset depends on is
    drawn in the widest [low, high] (low >= 0, as small as it can be) keeping every such offset
    the analysis bounds inside [0, entries), the other arrays held at their ranges (at first
    [0, 0]); twice over, so that each array is fitted knowing the others' fits."""
    draws = dict(defaults)
    found = sinks(function, ValueRanges(given, draws), extents)
    by_table = {table: [s for s in found if table in _depends(ValueRanges(given, draws), s)] for table in defaults}
    by_table = {table: bounded for table, bounded in by_table.items() if bounded}
    draws |= {table: (0, 0) for table in by_table}  # each fitted with the others at their least
    fitted: dict[BlockArgument, Interval | None] = {}
    for _ in range(2):
        for table, bounded in by_table.items():
            fitted[table] = _fit(table, bounded, given, draws, caps[table])
            draws[table] = fitted[table] or (0, 0)
    return draws | {table: defaults[table] for table, fit in fitted.items() if fit is None}


def _fit(
    table: BlockArgument, bounded: list[Sink], given: Mapping[SSAValue, int | float], draws: Draws, cap: int
) -> Interval | None:
    """The range for `table`: one its offsets fit without their clamps, else with them."""
    return _fit_once(table, bounded, given, draws, cap, True) or _fit_once(table, bounded, given, draws, cap, False)


def _fit_once(
    table: BlockArgument, bounded: list[Sink], given: Mapping[SSAValue, int | float], draws: Draws, cap: int,
    through_clamps: bool,
) -> Interval | None:
    """The least low that brings the offsets rising with the value to 0, then the greatest high
    keeping every offset inside; an offset no value keeps inside with the others (it needs
    other data to cooperate, or the kernel's guards) is left out."""

    def intervals(low: int, high: int, sinks: list[Sink]) -> list[Interval | None]:
        ranges = ValueRanges(given, {**draws, table: (low, high)}, through_clamps)
        return [_index_operand(ranges, s) for s in sinks]

    def inside(r: Interval | None, s: Sink) -> bool:
        return r is None or (r[0] >= 0 and r[1] < s.entries)

    at_least, at_most = intervals(0, 0, bounded), intervals(cap, cap, bounded)
    rising = [s for s, a, b in zip(bounded, at_least, at_most) if a is not None and a[0] < 0 and b is not None and b[0] >= 0]
    low = _first(0, cap, lambda v: all(r is None or r[0] >= 0 for r in intervals(v, v, rising)))
    if low is None:
        return None
    bounded = [s for s, r in zip(bounded, intervals(low, low, bounded)) if inside(r, s)]
    if not bounded:
        return None
    high = _first(low, cap, lambda h: not all(inside(r, s) for r, s in zip(intervals(low, h, bounded), bounded)))
    return low, (cap if high is None else high - 1)


def _first(low: int, high: int, holds: Callable[[int], bool]) -> int | None:
    """The least n in [low, high] where `holds` (false below it, true from it on), else None."""
    if not holds(high):
        return None
    while low < high:
        middle = (low + high) // 2
        if holds(middle):
            high = middle
        else:
            low = middle + 1
    return low


def integer_cap(dtype: np.dtype) -> int:
    """The largest value an array of `dtype` is drawn up to when offsets bound it (offsets are
    index-sized: 2**31 - 1 at most)."""
    return min(int(np.iinfo(dtype).max), 2**31 - 1)


