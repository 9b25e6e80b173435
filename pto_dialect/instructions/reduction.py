"""
The row reductions (pto-isa docs/isa/TROWSUM.md, TROWMAX.md, TROWMIN.md, TROWPROD.md): each row
of src's valid region combined into one element, written to dst's column 0. A member is a row
(`Reduction`): its mnemonic, how it combines (sum, max, min, prod) and the intrinsics its cost is
priced as; every target's rule row says which element types it takes.

      dst[i, 0] = src[i, 0] (+|max|min|*) src[i, 1] ... src[i, vc-1]        i < vr

        pto.trowsum ins(%src[, %tmp] : Ts[, Tt]) outs(%dst : Td)
        %d = pto.trowsum %src[, %tmp] : (Ts[, Tt]) -> Td

What targets decide, as their lowered ops record:
- `reduce_order`: the order the elements are combined in, which fixes a float sum's and a
  float product's rounding. The simulator runs one accumulator left to right (cpu/TRowSum.hpp,
  in float for half and bfloat16 (`TypeSum`); cpu/TRowProd.hpp in the element type; a g++ build:
  GCC's `ivdep` keeps the order). a2a3 sums 256-byte repeats lane-wise into tmp (pairs of
  repeats, the odd last one into the first, the tail of the row into the first, then pairs of
  pairs: TRowSum.hpp FillTmp/TmpProc), then `vcadd`s each row's 256 bytes; for the four f32
  shapes 64x128, 32x256, 16x512, 8x1024 into a one-column DN dst it goes through `vcgadd`
  (32-byte groups) instead (TRowReduceOps.hpp ReduceOptFP32_*); its product multiplies 32-byte
  blocks lane-wise, then the lanes left to right in float (TRowProd.hpp). a5 reduces each
  256-byte chunk with `vcadd`/`vcmax`/`vcmin` and accumulates the chunk results from 0 / the
  type's lowest / highest (a5/TRowReduce.hpp); its product multiplies the chunks lane-wise, then
  folds the lanes by halves with `vintlv` and `vmul` (a5/TRowProd.hpp).
- `extreme_nan` (max and min): the simulator's `std::max(acc, x)` = `(acc < x) ? x : acc` keeps a
  NaN it holds and never takes a later one (so the first element's NaN sticks, and of equal
  values, +0 and -0 included, the first is kept); on the NPUs any NaN is assumed to give NaN.
- `numerics`: the order of `vcadd`'s and `vcgadd`'s tree inside a repeat is the hardware's
  (pto-isa docs/isa/vcadd.md: "a tree-reduction strategy implemented by the hardware"), fixed
  by no public code: TROWSUM is approximate on a2a3 and a5 for float types, the interpreter
  summing adjacent pairs, then adjacent pairs of those, ... (lanes past the valid ones as +0).
  Integer sums wrap, so their order does not matter and they are exact.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from xdsl.dialects.builtin import BoolAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException

from pto_dialect.choices import Choice, ExtremeNan, ReduceOrder
from pto_dialect.cost import CceMachine, InstructionCost, OpCost, SimulatorMachine, VfMachine, Work, simulator_loop
from pto_dialect.diagnostics import not_implemented
from pto_dialect.dtypes import FLOAT_DTYPE_NAMES
from pto_dialect.facts import known, require, require_type, spell
from pto_dialect.family import Family, FamilyLoweredOp, Member, member_instruction, member_lowered_base, member_op, member_row
from pto_dialect.instructions.elementwise import implemented_vec_tiles
from pto_dialect.instruction import Emission, InPlace, Instruction, Pipe, per_target, tmp_untouched_unless
from pto_dialect.arg_reduce import TMP_ADDED, TmpAdded, added_tmp
from pto_dialect.vector import BLOCK_BYTES, REPEAT_BYTES, vector_repeats
from pto_dialect.machine import Footprint, Tile, np, rect, valid_rect
from pto_dialect.types import TileTypeBase
from pto_dialect.ops.common import SrcTmpDstOp, parse_operand_group_with, same_element_type
from pto_dialect.ops.memory import AllocTileOp

# ---------------------------------------------------------------------------
# The rows


@dataclass(frozen=True)
class Reduction(Member):
    """One reduction."""

    combine: str = field(kw_only=True)
    """`sum`, `max`, `min` or `prod`."""
    priced_as: tuple[str, str] = field(kw_only=True)
    """The a2a3 intrinsics its cost is priced as: the lane-wise one (vadd) and the one across a
    repeat (vcadd); a5 prices the same names."""
    over_first_row: str = ""
    """A column reduction: why every target computes dst laid over src's first row (empty: not
    shown)."""


# ---------------------------------------------------------------------------
# The op


class RowReduceOp(SrcTmpDstOp):
    """A row reduction: src, an optional tmp workspace, dst (one column)."""

    def verify_src_dst(self, src: TileTypeBase, dst: TileTypeBase) -> None:
        same_element_type("src", src.element_type, "dst", dst.element_type)


# ---------------------------------------------------------------------------
# What each target accepts


@dataclass(frozen=True)
class RowReduceRules:
    """One target's rules for a row reduction."""

    types: frozenset[str]
    """src's and dst's element type; empty: the target's code has no such instruction."""
    vector_layouts: bool
    """src row-major ND; dst ND, or DN with one column (TRowReduceCheck's static_asserts); else
    any layout (the simulator reads and writes through GetTileElementOffset)."""
    tmp_same_type: bool
    """tmp holds src-typed partial results (a2a3): src's element type, at least 32 bytes. Else
    the target's code ignores a tmp (cpu/TRowSum.hpp ... TRowProd.hpp, a5/TRowReduce.hpp and
    TRowProd.hpp): it takes no UB at the op (`untouched`)."""
    implicit_tmp: TmpAdded
    note: str
    """Where the rules come from."""
    same_rows: bool = False
    """src and dst have the same Rows (cpu/TRowSum.hpp CheckRSValid static_asserts it)."""


def check(rules: RowReduceRules, operands: dict, attrs: Mapping[str, Attribute]) -> None:
    src, tmp, dst = operands["src"], operands.get("tmp"), operands["dst"]
    implemented_vec_tiles(operands, rules.types, rules.note)
    if rules.vector_layouts:
        require(src.is_nd, f"expects src to use the row-major ND layout, got {src.layout_text()}")
        require(dst.slayout == "none_box", f"expects dst to use the none_box slayout, got {dst.slayout}")
        if not dst.is_row_major:
            require(dst.cols == 1, f"expects a col-major (DN) dst to have shape[1] == 1, got {dst.cols}")
    require_type("dst", dst.elem, rules.types)
    if rules.same_rows:
        require(src.rows == dst.rows, f"expects src and dst to have the same rows (shape[0]), got {src.rows} and {dst.rows}")
    if known(src.valid_row):
        require(src.valid_row != 0, "expects src valid_shape[0] to be non-zero")
    if known(src.valid_col):
        require(src.valid_col != 0, "expects src valid_shape[1] to be non-zero")
    if known(src.valid_row, dst.valid_row):
        require(
            src.valid_row == dst.valid_row,
            f"expects src and dst to have the same valid_shape[0], got {src.valid_row} and {dst.valid_row}",
        )
    if known(dst.valid_col):
        require(dst.valid_col == 1, f"expects dst valid_shape[1] to be 1, got {dst.valid_col}")
    if tmp is not None and rules.tmp_same_type:
        require(
            tmp.elem.mlir == src.elem.mlir,
            f"expects tmp to have src's element type, got {tmp.elem.mlir} and {src.elem.mlir}",
        )
        require(
            tmp.rows * tmp.cols * tmp.elem.bytes >= BLOCK_BYTES,
            f"expects tmp to hold at least {BLOCK_BYTES} bytes, got {tmp.rows * tmp.cols * tmp.elem.bytes}",
        )


def describe(t: dict[str, RowReduceRules]) -> list[tuple[str, dict[str, str]]]:
    return per_target(t, [
        ("element type (src = dst)", lambda r: spell(r.types) if r.types else "not implemented"),
        ("tiles", lambda r: "vec; src row-major ND; dst ND, or DN with one column" if r.vector_layouts
         else "vec, any layout"),
        ("valid shapes", lambda r: "src's non-zero; dst's [src valid rows, 1]" + ("; src's rows dst's" if r.same_rows else "")),
        ("tmp", lambda r: "vec, src's type, at least 32 bytes" if r.tmp_same_type else "vec; unused"),
        ("tmp added when omitted (pto-materialize-implicit-tmp)", lambda r: TMP_ADDED[r.implicit_tmp]),
        ("why", lambda r: r.note),
    ])


def implicit_tmp(op: RowReduceOp, rules: RowReduceRules) -> AllocTileOp | None:
    return added_tmp(op, op.src, op.tmp, rules.implicit_tmp)


def untouched(op: RowReduceOp, rules: RowReduceRules) -> frozenset[str]:
    """a2a3 keeps partial results in tmp (its short-row paths skip it; counted as used); cpu
    and a5 ignore it."""
    return tmp_untouched_unless(rules.tmp_same_type)


# ---------------------------------------------------------------------------
# The kernel: each order as whole-array NumPy over the rows (and loop iterations, batched)


def hardware_tree(lanes: Any) -> Any:  # noqa: ANN401
    """Sum of the last axis (a power of two long) by adjacent pairs, then pairs of those, ...:
    the order the interpreter assumes for vcadd's and vcgadd's tree (approximate)."""
    while lanes.shape[-1] > 1:
        lanes = lanes[..., 0::2] + lanes[..., 1::2]
    return lanes[..., 0]


def padded(x: Any, width: int, fill: object = 0) -> Any:  # noqa: ANN401
    """x's last axis filled up to a multiple of width (masked lanes)."""
    extra = -x.shape[-1] % width
    if not extra:
        return x
    return np.concatenate([x, np.full((*x.shape[:-1], extra), fill, x.dtype)], axis=-1)


def sequential(x: Any, combine: str, nan: ExtremeNan | None) -> Any:  # noqa: ANN401
    """The simulator's loop: one accumulator, left to right (cpu/TRowSum.hpp, TRowMax.hpp, ...)."""
    if combine == "sum":
        if x.dtype.kind in "iu":
            return np.sum(x, axis=-1, dtype=x.dtype)  # wraps: any order gives the same value
        accumulator = np.dtype(np.float32 if x.dtype.itemsize < 4 else x.dtype)  # TypeSum: half, bfloat16 in float
        return last_nan_wins(x, sequential_sum(x, accumulator).astype(x.dtype, copy=False))
    if combine == "prod":
        product = np.multiply.accumulate(x, axis=-1)[..., -1]
        return product if x.dtype.kind in "iu" else last_nan_wins(x, product)
    return first_extreme(x, combine, nan)


def sequential_sum(x: Any, accumulator: Any) -> Any:  # noqa: ANN401
    """`sum = 0; sum += x[j]` over the last axis in `accumulator`'s type, element after element
    (from +0: a row of -0.0 sums to +0.0). Each tile transposed, NumPy adds column after column
    into all its rows' sums at once, in order (along the innermost axis it would sum pairwise):
    a third of `np.add.accumulate`'s time. The tiles of a batch go through one transposed buffer
    of at most SUM_BLOCK_BYTES, block after block, which the sum then reads from the cache (a
    batch's whole transposed copy, 4 MiB in bench/softmax.py, would go out to memory and back).
    One row has no other axis to run along: accumulated."""
    zero = accumulator.type(0)
    if x.ndim < 2 or x.shape[-2] < 2:
        return np.add.accumulate(x.astype(accumulator, copy=False), axis=-1)[..., -1] + zero
    rows, cols = x.shape[-2:]
    tiles = x.reshape(-1, rows, cols)
    per_block = max(1, SUM_BLOCK_BYTES // (rows * cols * accumulator.itemsize))
    columns = np.empty((min(per_block, len(tiles)), cols, rows), accumulator)
    sums = np.empty((len(tiles), rows), accumulator)
    for start in range(0, len(tiles), per_block):
        block = columns[: min(per_block, len(tiles) - start)]
        block[...] = tiles[start : start + len(block)].swapaxes(-1, -2)
        np.add.reduce(block, axis=-2, initial=zero, out=sums[start : start + len(block)])
    return sums.reshape(*x.shape[:-1])


SUM_BLOCK_BYTES = 512 << 10
"""The transposed copy sequential_sum adds up at a time, inside a core's L2 cache (2 MiB here):
bench/softmax.py's 1024 tiles in batches of 128, at load 18, 8.9 ms against 12.0 ms with each
batch's whole copy (blocks of 128 KiB to 512 KiB alike, 1 MiB 9.7 ms)."""


QUIET_BIT = {2: {"float16": 1 << 9, "bfloat16": 1 << 6}, 4: {"float32": 1 << 22}}
"""The quiet bit of each float type's NaN (the top bit of its significand)."""


def last_nan_wins(x: Any, total: Any) -> Any:  # noqa: ANN401
    """The simulator's `sum += src[j]` as g++ compiles it adds the element first (x86 returns
    the first operand's NaN, quieted): where a row holds a NaN, the sum is its last NaN, quieted
    (its payload kept through float for half and bfloat16); else a NaN from inf - inf is the
    hardware's, as NumPy's."""
    if not _isnan(total).any():  # a NaN element makes its row's total NaN: no NaN anywhere
        return total
    nan = _isnan(x)
    rows = nan.any(axis=-1)
    last = x.shape[-1] - 1 - np.argmax(nan[..., ::-1], axis=-1)
    unsigned = np.dtype(f"u{x.dtype.itemsize}")
    bits = np.take_along_axis(x, last[..., None], axis=-1)[..., 0].view(unsigned) | unsigned.type(QUIET_BIT[x.dtype.itemsize][x.dtype.name])
    return np.where(rows, bits.view(x.dtype), total)


def _isnan(x: Any) -> Any:  # noqa: ANN401
    return np.isnan(x.astype(np.float32)) if x.dtype.itemsize < 4 else np.isnan(x)


def nan_propagating(x: Any, combine: str) -> Any:  # noqa: ANN401
    """NumPy's max or min of the last (float) axis, NaN where a row holds one. Reduced from -inf
    (+inf), which NumPy 2.4 runs at twice the speed of a reduction without a start (bench/softmax.py's
    rows of 128 f32); the value is the same, but a zero's sign could come out of another lane
    order: where a row's result is zero, NumPy's max or min without a start gives it. (Every
    float type the reductions take has infinities; an fp8 type without them would start from NaN.)"""
    start = -np.inf if combine == "max" else np.inf
    extreme = x.max(axis=-1, initial=start) if combine == "max" else x.min(axis=-1, initial=start)
    if (extreme == 0).any():
        return x.max(axis=-1) if combine == "max" else x.min(axis=-1)
    return extreme


def first_extreme(x: Any, combine: str, nan: ExtremeNan | None) -> Any:  # noqa: ANN401
    """max/min by a fold: with FIRST_STICKS the value `(acc < v) ? v : acc` ends with (the first
    element equal to the extreme, or the first element where it is NaN); else NaN-propagating."""
    if x.dtype.name not in FLOAT_DTYPE_NAMES:
        return x.max(axis=-1) if combine == "max" else x.min(axis=-1)
    plain = nan_propagating(x, combine)
    if not _isnan(plain).any():  # NumPy's max and min give NaN for a row holding one: no NaN anywhere
        if nan == ExtremeNan.PROPAGATES or not (plain == 0).any():
            return plain  # no zero of either sign to choose between either
        first = np.argmax(x == plain[..., None], axis=-1)
        return np.take_along_axis(x, first[..., None], axis=-1)[..., 0]
    is_nan = _isnan(x)
    # NaNs as the identity, not through fmax/fmin.reduce: NumPy 2.4's reduction skips values after a signalling NaN
    any_nan = bool(is_nan.any())
    extreme = np.where(is_nan, x.dtype.type(-np.inf if combine == "max" else np.inf), x) if any_nan else x
    extreme = nan_propagating(extreme, combine)
    if nan == ExtremeNan.PROPAGATES:
        return np.where(is_nan.any(axis=-1), x.dtype.type(np.nan), extreme)
    if not (extreme == 0).any() and not (any_nan and is_nan[..., 0].any()):
        return extreme  # no zero of either sign to choose between, no NaN to keep
    first = np.argmax(x == extreme[..., None], axis=-1)
    values = np.take_along_axis(x, first[..., None], axis=-1)[..., 0]
    return np.where(is_nan[..., 0], x[..., 0], values)


def extreme_of(x: Any, combine: str, nan: ExtremeNan | None) -> Any:  # noqa: ANN401
    """A max/min whose value no order changes (the NPUs': NaN as `nan` says)."""
    return first_extreme(x, combine, nan)


def a2a3_float_sum(x: Any, src: Tile, dst: Tile) -> Any:  # noqa: ANN401
    """a2a3 TRowReduceInstr with TRowSum.hpp's FillTmp/TmpProc, or ReduceOptFP32_* for its
    four shapes."""
    per_repeat = REPEAT_BYTES // x.dtype.itemsize
    rows, cols = x.shape[-2:]
    if _fp32_dn_shape(x, src, dst):
        per_block = BLOCK_BYTES // x.dtype.itemsize
        groups = hardware_tree(x.reshape(*x.shape[:-1], cols // per_block, per_block))  # vcgadd
        while groups.shape[-1] > per_block:
            if groups.shape[-1] >= per_repeat:  # vcgadd again
                groups = hardware_tree(groups.reshape(*groups.shape[:-1], -1, per_block))
            else:  # vadd of the even and odd 32-byte blocks
                pairs = groups.reshape(*groups.shape[:-1], -1, 2, per_block)
                groups = (pairs[..., 0, :] + pairs[..., 1, :]).reshape(*groups.shape[:-1], -1)
        return hardware_tree(groups)
    if cols <= per_repeat:
        return hardware_tree(padded(x, per_repeat))
    repeats, tail = divmod(cols, per_repeat)
    blocks = x[..., : repeats * per_repeat].reshape(*x.shape[:-1], repeats, per_repeat)
    if repeats == 1:  # copied into tmp, the tail added to its first lanes
        tmp = blocks[..., 0, :].copy()
        tmp[..., :tail] += x[..., per_repeat:]
        return hardware_tree(tmp)
    half = repeats // 2
    tmp = blocks[..., 0 : 2 * half : 2, :] + blocks[..., 1 : 2 * half : 2, :]
    if repeats % 2:
        tmp[..., 0, :] += blocks[..., repeats - 1, :]
    if tail:
        tmp[..., 0, :tail] += x[..., repeats * per_repeat :]
    length = half
    while length > 1:
        pairs = length // 2
        folded = tmp[..., 0 : 2 * pairs : 2, :] + tmp[..., 1 : 2 * pairs : 2, :]
        if length % 2:
            folded[..., pairs - 1, :] += tmp[..., 2 * pairs, :]
        tmp, length = folded, pairs
    return hardware_tree(tmp[..., 0, :])


FP32_SHAPES = frozenset({(64, 128), (32, 256), (16, 512), (8, 1024)})
"""The f32 shapes a2a3's TryOptimizeFP32Reduce takes (whole tile valid, dst DN one column)."""


def _fp32_dn_shape(x: Any, src: Tile, dst: Tile) -> bool:  # noqa: ANN401
    return (
        x.dtype == np.float32
        and src.type.shape in FP32_SHAPES
        and src.type.valid_shape == src.type.shape
        and not dst.type.is_row_major
        and dst.type.inner_box is None
        and dst.type.valid_shape[1] == 1
    )


def a2a3_prod(x: Any) -> Any:  # noqa: ANN401
    """a2a3 TRowProd.hpp: 32-byte blocks multiplied lane-wise into tmp (from 1), then the lanes
    multiplied left to right, in float for half."""
    per_block = BLOCK_BYTES // x.dtype.itemsize
    lanes = np.multiply.accumulate(padded(x, per_block, 1).reshape(*x.shape[:-1], -1, per_block), axis=-2)[..., -1, :]
    if x.dtype == np.float16:
        return np.multiply.accumulate(lanes.astype(np.float32), axis=-1)[..., -1].astype(x.dtype)
    return np.multiply.accumulate(lanes, axis=-1)[..., -1]


def a5_prod(x: Any) -> Any:  # noqa: ANN401
    """a5 TRowProd.hpp: 256-byte chunks multiplied lane-wise (from 1), then log2(lanes) rounds of
    vintlv with ones and vmul: lane 2i takes lane i times lane i + half, odd lanes 1."""
    per_repeat = REPEAT_BYTES // x.dtype.itemsize
    lanes = np.multiply.accumulate(padded(x, per_repeat, 1).reshape(*x.shape[:-1], -1, per_repeat), axis=-2)[..., -1, :]
    half = per_repeat // 2
    for _ in range(per_repeat.bit_length() - 1):  # TROW_PROD_LOOP_B16 / _B32
        folded = np.ones_like(lanes)
        folded[..., 0::2] = lanes[..., :half] * lanes[..., half:]
        lanes = folded
    return lanes[..., 0]


def a5_chunks(x: Any, combine: str, nan: ExtremeNan | None) -> Any:  # noqa: ANN401
    """a5 TRowReduceProc: vcadd/vcmax/vcmin per 256-byte chunk, the results accumulated in order."""
    if combine != "sum":
        return extreme_of(x, combine, nan)
    if x.dtype.kind in "iu":
        return np.sum(x, axis=-1, dtype=x.dtype)
    per_repeat = REPEAT_BYTES // x.dtype.itemsize
    chunks = hardware_tree(padded(x, per_repeat).reshape(*x.shape[:-1], -1, per_repeat))
    return sequential_sum(chunks, x.dtype)  # from 0, chunk after chunk


def reduce_rows(x: Any, row: Reduction, order: ReduceOrder, nan: ExtremeNan | None, src: Tile, dst: Tile) -> Any:  # noqa: ANN401
    match order:
        case ReduceOrder.SEQUENTIAL:
            return sequential(x, row.combine, nan)
        case ReduceOrder.REPEAT_STAGES:
            if row.combine == "prod":
                return a2a3_prod(x)
            if row.combine == "sum" and x.dtype.kind == "f":
                return a2a3_float_sum(x, src, dst)
            return sequential(x, row.combine, nan) if row.combine == "sum" else extreme_of(x, row.combine, nan)
        case ReduceOrder.CHUNK_THEN_SEQUENTIAL:
            if row.combine == "prod":
                return a5_prod(x)
            return a5_chunks(x, row.combine, nan)


def row_reduce_kernel(row: Reduction) -> Callable[..., None]:
    def kernel(o: dict, **choices: Any) -> None:  # noqa: ANN401
        src, dst = o["src"], o["dst"]
        x = src.read_valid()
        with np.errstate(all="ignore"):  # overflow and NaN are values here, not faults
            result = reduce_rows(x, row, choices["order"], choices.get("nan"), src, dst)
        dst.write(x.shape[-2], 1, np.asarray(result).astype(dst.flat.dtype, copy=False)[..., None])

    kernel.__doc__ = row.summary
    return kernel


def row_reduce_footprint(o: dict, **_: object) -> Footprint:
    src, dst = o["src"], o["dst"]
    return Footprint([(src, False, valid_rect(src)), (dst, True, rect(dst, src.valid_row, 1))], [])


class RowReduceBase(FamilyLoweredOp):
    """dst[i, 0] = row i of src's valid region combined, in the target's order."""


# ---------------------------------------------------------------------------
# What it costs


def _cce(op: FamilyLoweredOp, o: dict, machine: CceMachine, work: Work) -> OpCost:
    """a2a3: the lane-wise stages (one count-mode call over the rows per 256-byte repeat past the
    first; per 32-byte block and row for integers and products) and one vcadd/vcmax/vcmin call
    over the rows (TRowReduceOps.hpp, TRowSum.hpp, TRowProd.hpp)."""
    src = o["src"]
    lane_wise, across = member_row(op, Reduction).priced_as
    t = machine.trace()
    rows, cols = src.valid_row, src.valid_col
    if src.elem.family != "float" or member_row(op, Reduction).combine == "prod":
        blocks = -(-cols * src.elem.bytes // BLOCK_BYTES)

        def row() -> None:
            t.vector("vector_dup")
            t.loop(blocks, lambda: t.vector(lane_wise))
            t.call(4)

        t.loop(rows, row)
    else:
        for _ in range(max(0, vector_repeats(cols, src.elem.bytes) - 1)):
            t.call(2)
            t.vector(lane_wise, repeat=0)
        t.call(2)
        t.vector(across, repeat=rows)
    return t.cost(Pipe.VECTOR, exact=False, idle=machine.idle_vector, elements=rows * cols)


def _vf(op: FamilyLoweredOp, o: dict, machine: VfMachine, work: Work) -> OpCost:
    """a5 TRowReduceProc: per row and 256-byte chunk a predicate, a load, the reduction and the
    accumulation; per row a store."""
    src = o["src"]
    lane_wise, across = member_row(op, Reduction).priced_as
    chunks = src.valid_row * vector_repeats(src.valid_col, src.elem.bytes)
    body = {"plt": chunks, "vlds": chunks, across: chunks, lane_wise: chunks, "vsts": src.valid_row}
    return machine.cost(Pipe.VECTOR, 0, machine.vector_function(body))


COST = InstructionCost(on={CceMachine: _cce, VfMachine: _vf, SimulatorMachine: simulator_loop("src", "pto-isa cpu/: a loop over src's valid elements.")})


# ---------------------------------------------------------------------------
# C++


def emitter(row: Reduction) -> Callable[[Emission, RowReduceOp], None]:
    def emit(e: Emission, op: RowReduceOp) -> None:
        """`TROWSUM(dst, src, tmp)`."""
        tmp = e.require(op, "tmp")
        e.issue(op, e.call(row.cpp_name, [*op.outs, op.src, tmp]))

    return emit


IN_PLACE = {
    "": InPlace(
        frozenset(),
        how="",
        refused="not shown safe by the code (a2a3 writes partial rows into tmp and dst while src is read): rejected.",
    )
}


def row_reduction(row: Reduction) -> Instruction:
    op = member_op(RowReduceOp, row)
    lowered = member_lowered_base(RowReduceBase, op, row, row_reduce_kernel(row), row_reduce_footprint)
    return member_instruction(
        row, lowered, rules=RowReduceRules, check_rule=check, docs_table=describe, emit=emitter(row), cost=COST,
        in_place=IN_PLACE, implicit_tmp=implicit_tmp, untouched=untouched,
    )


ORDERED: Mapping[str, type[Choice]] = {"order": ReduceOrder}
EXTREME: Mapping[str, type[Choice]] = {"order": ReduceOrder, "nan": ExtremeNan}

COMBINES = (
    ("sum", "sum", ("vadd", "vcadd"), ORDERED),
    ("max", "max", ("vmax", "vcmax"), EXTREME),
    ("min", "min", ("vmin", "vcmin"), EXTREME),
    ("prod", "product", ("vmul", "vmul"), ORDERED),
)
"""Each reduction's combine, its name in the summaries, the intrinsics a row reduction is
priced as (a column reduction: the first, elementwise over rows) and its choices."""

ROW_REDUCTIONS = Family.of(
    "row reduction",
    tuple(Reduction(f"trow{c}", f"dst[i, 0] = {word} of src[i, :]", combine=c, priced_as=priced, choices=choices)
          for c, word, priced, choices in COMBINES),
    row_reduction,
)
"""Each row of src's valid region to one element."""


def reduction_choices(row: Member, order: ReduceOrder, nan: ExtremeNan) -> dict[str, Choice]:
    """A target's choices for a reduction row: its order, and the NaN rule where it has one."""
    return {"order": order, **({"nan": nan} if "nan" in row.choices else {})}


# ---------------------------------------------------------------------------
# The column reductions: each column of src's valid region into dst's row 0
#
#       dst[0, j] = src[0, j] (+|max|min|*) src[1, j] ... src[vr-1, j]        j < vc
#
#         pto.tcolmax ins(%src : Ts) outs(%dst : Td)         (TCOLSUM: ins(%src[, %tmp]))
#
# cpu/TColSum.hpp, TColMax.hpp, TColMin.hpp, TColProd.hpp: one accumulator per column from 0 (1;
# row 0 for max and min) down the rows, in the element type (half sums round at every row).
# a2a3 TColReduceOps.hpp (TColSum.hpp alike without isBinary): row 0 copied into dst by whole
# 32-byte blocks (dst's row 0 past the valid columns takes src's up to the block's end), then
# vadd/vmax/vmin/vmul with each later row. a5 TColReduceOps.hpp (the default, post-update
# variant): row 0, then rows 1+2, 3+4, ... added (maxed, ...) pairwise and into it, an odd last
# row last. Every step is lane-wise (no tree inside a register): the orders are exact.
# TCOLSUM's isBinary form (a tree of row pairs through tmp) is not implemented here (PTOAS writes
# its attribute inside ins(...); `isBinary = false` reads as the form without it).


class ColReduceOp(RowReduceOp):
    """A column reduction with an optional tmp workspace (TCOLSUM): src[, tmp], dst (one row)."""

    @classmethod
    def parse_dps_ins(cls, parser: Parser) -> tuple[list[SSAValue], dict[str, Attribute]]:
        """`(%src, %tmp {isBinary = false} : Ts, Tt)`, as PTOAS writes TCOLSUM (kept as an attribute)."""
        names, types, pos, inline = parse_operand_group_with(parser, "ins", ("isBinary",))
        return list(parser.resolve_operands(names, types, pos)), inline

    def verify_src_dst(self, src: TileTypeBase, dst: TileTypeBase) -> None:
        super().verify_src_dst(src, dst)
        if self.attributes.get("isBinary", BoolAttr.from_bool(False)) != BoolAttr.from_bool(False):
            raise VerifyException(
                not_implemented("has isBinary = true (a tree of row pairs through tmp)", "TCOLSUM's binary-tree form")
            )


class ColReduceNoTmpOp(RowReduceOp):
    """A column reduction without tmp (TCOLMAX, TCOLMIN, TCOLPROD): src, dst (one row)."""

    FORMS: ClassVar[tuple[tuple[int, int], ...]] = ((1, 1),)


def column_fold(x: Any, row: Reduction, order: ReduceOrder, nan: ExtremeNan | None) -> Any:  # noqa: ANN401
    """Each column of x (..., rows, cols) reduced over its rows, in `order`."""
    rows = np.swapaxes(x, -1, -2)  # (..., cols, rows): the fold runs along the last axis
    if row.combine in ("max", "min"):
        return first_extreme(rows, row.combine, nan)
    ufunc = np.add if row.combine == "sum" else np.multiply
    match order:
        case ReduceOrder.SEQUENTIAL:  # from 0 (1), the element first in each step: its NaN wins
            start = np.full((*rows.shape[:-1], 1), 0 if row.combine == "sum" else 1, x.dtype)
            total = ufunc.accumulate(np.concatenate([start, rows], axis=-1), axis=-1)[..., -1]
            return total if x.dtype.kind in "iu" else last_nan_wins(rows, total)
        case ReduceOrder.ROW_ZERO_THEN_PAIRS:
            pairs = (rows.shape[-1] - 1) // 2
            folded = ufunc(rows[..., 1 : 1 + 2 * pairs : 2], rows[..., 2 : 2 + 2 * pairs : 2])
            steps = [rows[..., :1], folded]
            if (rows.shape[-1] - 1) % 2:
                steps.append(rows[..., -1:])
            return ufunc.accumulate(np.concatenate(steps, axis=-1), axis=-1)[..., -1]
        case _:  # row 0, then each later row
            return ufunc.accumulate(rows, axis=-1)[..., -1]


def col_reduce_kernel(row: Reduction) -> Callable[..., None]:
    def kernel(o: dict, **choices: Any) -> None:  # noqa: ANN401
        src, dst = o["src"], o["dst"]
        x = src.read_valid()
        order = choices["order"]
        with np.errstate(all="ignore"):
            result = column_fold(x, row, order, choices.get("nan"))
        if order == ReduceOrder.ROW_ZERO_THEN_SEQUENTIAL:  # row 0's copy by whole blocks: dst's padding too
            per_block = BLOCK_BYTES // x.dtype.itemsize
            width = min(-(-x.shape[-1] // per_block) * per_block, src.type.shape[1], dst.type.shape[1])
            dst.write(1, width, src.values[..., :1, :width])
        dst.write(1, x.shape[-1], np.asarray(result).astype(dst.flat.dtype, copy=False)[..., None, :])

    kernel.__doc__ = row.summary
    return kernel


def col_reduce_footprint(o: dict, **_: object) -> Footprint:
    src, dst = o["src"], o["dst"]
    width = -(-src.valid_col * src.flat.itemsize // BLOCK_BYTES) * BLOCK_BYTES // src.flat.itemsize
    width = min(width, src.type.shape[1], dst.type.shape[1])
    return Footprint([(src, False, None), (dst, True, rect(dst, 1, width))], [])


@dataclass(frozen=True)
class ColReduceRules:
    """One target's rules for a column reduction."""

    types: frozenset[str]
    """src's and dst's element type; empty: the target's code has no such instruction."""
    row_major: bool
    """src and dst row-major ND (TColReduceCheck's static_asserts); else any layout."""
    same_cols: bool
    """src and dst have the same Cols (cpu/TColSum.hpp, TColMax.hpp static_assert it)."""
    note: str


def check_columns(rules: ColReduceRules, operands: dict, attrs: Mapping[str, Attribute]) -> None:
    src, dst = operands["src"], operands["dst"]
    implemented_vec_tiles(operands, rules.types, rules.note)
    if rules.row_major:
        for t in (src, dst):
            require(t.is_nd, f"expects {t.role} to use the row-major ND layout, got {t.layout_text()}")
    require_type("dst", dst.elem, rules.types)
    if rules.same_cols:
        require(src.cols == dst.cols, f"expects src and dst to have the same cols (shape[1]), got {src.cols} and {dst.cols}")
    if known(src.valid_row):
        require(src.valid_row != 0, "expects src valid_shape[0] to be non-zero")
    if known(src.valid_col, dst.valid_col):
        require(src.valid_col == dst.valid_col,
                f"expects src and dst to have the same valid_shape[1], got {src.valid_col} and {dst.valid_col}")
    if known(dst.valid_row):
        require(dst.valid_row == 1, f"expects dst valid_shape[0] to be 1, got {dst.valid_row}")


def describe_columns(t: dict[str, ColReduceRules]) -> list[tuple[str, dict[str, str]]]:
    return per_target(t, [
        ("element type (src = dst)", lambda r: spell(r.types) if r.types else "not implemented"),
        ("tiles", lambda r: "vec, row-major ND" if r.row_major else "vec, any layout"),
        ("valid shapes", lambda r: "src's rows non-zero; dst's [1, src valid cols]" + ("; src's cols dst's" if r.same_cols else "")),
        ("why", lambda r: r.note),
    ])


def col_reduction(row: Reduction) -> Instruction:
    op = member_op(ColReduceOp if row.combine == "sum" else ColReduceNoTmpOp, row)
    lowered = member_lowered_base(RowReduceBase, op, row, col_reduce_kernel(row), col_reduce_footprint)
    in_place = {"": replace(IN_PLACE[""], leading=lambda op: None, leading_how=row.over_first_row)} if row.over_first_row else IN_PLACE
    return member_instruction(
        row, lowered, rules=ColReduceRules, check_rule=check_columns, docs_table=describe_columns,
        emit=column_emitter(row), cost=COST, in_place=in_place, untouched=column_untouched if issubclass(op, ColReduceOp) else None,
    )


def column_untouched(op: RowReduceOp, rules: ColReduceRules) -> frozenset[str]:
    """TCOLSUM's tmp: only its isBinary form (refused here) goes through it (a2a3 and a5
    TColSum.hpp; cpu/TColSum.hpp ignores it in both)."""
    return tmp_untouched_unless(op.attributes.get("isBinary", BoolAttr.from_bool(False)) != BoolAttr.from_bool(False))


def column_emitter(row: Reduction) -> Callable[[Emission, RowReduceOp], None]:
    def emit(e: Emission, op: RowReduceOp) -> None:
        """`TCOLMAX(dst, src)`; TCOLSUM with a tmp: `TCOLSUM(dst, src, tmp, false)`."""
        if op.tmp is None:
            e.issue(op, e.call(row.cpp_name, [*op.outs, op.src]))
        else:
            e.issue(op, e.call(row.cpp_name, [*op.outs, op.src, op.tmp], (), ["false"]))

    return emit


SUM_OVER_FIRST_ROW = (
    "cpu sums each column before writing its dst element; a2a3 copies src's first row to dst, then adds the other "
    "rows to it (the sequential form, the one emitted); a5 loads each register's columns of every row before "
    "storing them to dst (PyPTO writes a column sum over its source so)."
)
"""Why TCOLSUM's dst may lie over its src's first row (Reduction.over_first_row)."""


COL_REDUCTIONS = Family.of(
    "column reduction",
    tuple(Reduction(f"tcol{c}", f"dst[0, j] = {word} of src[:, j]", combine=c, priced_as=(priced[0], priced[0]), choices=choices,
                    over_first_row=SUM_OVER_FIRST_ROW if c == "sum" else "")
          for c, word, priced, choices in COMBINES),
    col_reduction,
)
"""Each column of src's valid region to one element."""

