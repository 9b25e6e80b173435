"""
The row broadcasts (pto-isa docs/isa/TROWEXPAND.md, TROWEXPANDADD.md, ...): a per-row value
spread across dst's valid row, alone (TROWEXPAND) or combined with a full tile elementwise
(TROWEXPAND{ADD,SUB,MUL,DIV,MAX,MIN,EXPDIF}). A member is a row (`Broadcast`): its mnemonic,
its formula (none for the plain expand) and the intrinsic its cost is priced as.

      dst[i, j] = src[i, 0]                                    pto.trowexpand ins(%src) outs(%dst)
      dst[i, j] = f(src0[i, j], src1[i, j % vc1])              src0 full, src1 the per-row operand
      dst[i, j] = f(src0[i, j % vc0], src1[i, j])              src1 full, src0 the per-row operand

        pto.trowexpandsub ins(%src0, %src1[, %tmp] : T0, T1[, Tt]) outs(%dst : Td)
        %d = pto.trowexpandsub %src0, %src1 : (T0, T1) -> Td

The full operand is the one whose valid shape is dst's (where both have it, src0, or on a2a3
without a tmp the larger row stride: `full_operand`); the per-row operand is a col-major tile
with one valid column (mode 1) or a row-major tile with 32 bytes of valid columns (mode 2).
In mode 2 every target reads the per-row operand's columns cyclically, `j % (32 bytes)`: the
simulator through `c % src1.GetValidCol()` (cpu/TRowExpandOp.hpp), a2a3 with a 32-byte block
repeated across each repeat (block stride 0, a2a3/TRowExpandBinOp.hpp), a5 by a BLK load
(a5/TRowExpandBinOp.hpp).

The column broadcasts (TCOLEXPAND and TCOLEXPAND{ADD,SUB,MUL,DIV,MAX,MIN,EXPDIF}) take row 0 of
src1 (of src for TCOLEXPAND) for every row: dst[i, j] = f(src0[i, j], src1[0, j]), every tile
row-major, src0 of dst's shape and valid shape (cpu/TColExpandOp.hpp, TColExpand.hpp; a2a3 and
a5 TColExpandBinOp.hpp; PTOAS's verifyTColExpandBinaryLikeOp).

What targets decide, as their lowered ops record:
- `full_operand`: which input is the full operand where both have dst's valid shape, from the
  target's rule row (so verification and the run agree).
- `vector_read` (mode 2): the simulator reads row i of the per-row operand through its layout;
  a2a3 and a5 read the 32-byte block at i * 32 bytes of its storage (the same where the tile
  is 32 bytes wide).
- `extreme_nan` (max, min): the simulator's `std::max(src0, src1)` = `(src0 < src1) ? src1 : src0`
  keeps a NaN of src0 and drops one of src1; vmax/vmin are assumed to propagate NaN.
- `zero_divisor` (div): the simulator asserts a non-zero divisor (a located run-time error
  naming the element); vdiv gives IEEE infinities and NaN.
- `numerics`: EXPDIF's exp is the hardware's on a2a3/a5 (approximate); the simulator's is
  libm's `exp` in double, which NumPy's exp reproduces but for rare last-bit ties.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from xdsl.ir import Attribute

from pto_dialect.choices import Choice, ExtremeNan, FullOperand, VectorRead, BroadcastDivisor
from pto_dialect.cost import CceMachine, InstructionCost, OpCost, SimulatorMachine, VfMachine, Work, simulator_loop
from pto_dialect.dtypes import FLOAT_DTYPE_NAMES
from pto_dialect.facts import TileFacts, known, require, require_type, spell
from pto_dialect.family import Family, FamilyLoweredOp, Member, member_instruction, member_lowered_base, member_op, member_row
from pto_dialect.instructions.elementwise import implemented_vec_tiles
from pto_dialect.instruction import Emission, InPlace, Instruction, Pipe, per_target, tmp_untouched_unless
from pto_dialect.vector import BLOCK_BYTES, REPEAT_BYTES, vector_repeats
from pto_dialect.machine import Footprint, RuntimeFault, Tile, first_failing, np, rect, takes_out, valid_rect
from pto_dialect.ops.common import PtoInstructionOp, operand_of_role, same_element_type
from pto_dialect.instructions.operands import taking

# ---------------------------------------------------------------------------
# The rows


@dataclass(frozen=True)
class Broadcast(Member):
    """One broadcast instruction."""

    compute: Callable[..., Any] | None = field(kw_only=True)
    """The formula on (src0's, src1's) values as dst sees them, with the row's choices as
    keywords; None: the plain expand."""
    priced_as: str = field(kw_only=True)
    """The vector intrinsic its cost is priced as (a2a3 `vsub`, a5 VfSim's `vsub`)."""


def commuted(compute: Callable[..., Any]) -> Callable[..., Any]:
    """The same sum or product with the simulator's NaN where both operands are NaN (x86 keeps the
    first operand's): g++ puts src1 first for float, src0 first for half (computed through float);
    found by bench/simdiff."""

    def swapped(a: Any, b: Any, **choices: Any) -> Any:  # noqa: ANN401
        return compute(b, a, **choices) if a.dtype.itemsize == 4 else compute(a, b, **choices)

    return swapped


def subtract(a: Any, b: Any, *, out: Any = None) -> Any:  # noqa: ANN401
    return np.subtract(a, b, out=out)


def add(a: Any, b: Any) -> Any:  # noqa: ANN401
    return a + b


def multiply(a: Any, b: Any) -> Any:  # noqa: ANN401
    return a * b


def divide(a: Any, b: Any, *, zero_divisor: BroadcastDivisor, out: Any = None) -> Any:  # noqa: ANN401
    if zero_divisor == BroadcastDivisor.FAULT:
        zero = b == 0
        if a.dtype.kind == "i" and a.dtype.itemsize >= 4:  # int32's minimum over -1 traps (SIGFPE); narrower types divide as int
            zero = zero | ((a == np.iinfo(a.dtype).min) & (b == -1))
        if zero.any():
            raise ZeroDivision(np.broadcast_to(zero, np.broadcast_shapes(a.shape, b.shape)))
    if a.dtype.kind in "iu":  # C++ integer division truncates toward zero
        return np.where(b == 0, 0, np.trunc(a.astype(np.float64) / np.where(b == 0, 1, b))).astype(a.dtype)
    return np.divide(a, b, out=out)


class ZeroDivision(Exception):
    """A zero divisor where the target asserts (the kernel names the element)."""

    def __init__(self, where: Any):  # noqa: ANN401
        super().__init__()
        self.where = where


def extreme(take_second: Callable[[Any, Any], Any]) -> Callable[..., Any]:
    def compute(a: Any, b: Any, *, nan: ExtremeNan) -> Any:  # noqa: ANN401
        if nan == ExtremeNan.FIRST_STICKS or a.dtype.name not in FLOAT_DTYPE_NAMES:
            return np.where(take_second(a, b), b, a)  # (a < b) ? b : a, as std::max(a, b)
        either_nan = np.isnan(a) | np.isnan(b)
        return np.where(either_nan, a + b, np.where(take_second(a, b), b, a))

    return compute


def exp_difference(a: Any, b: Any) -> Any:  # noqa: ANN401
    """exp(src0 - src1): the difference in the element type, exp in double, rounded back."""
    return np.exp((a - b).astype(np.float64)).astype(a.dtype)


# ---------------------------------------------------------------------------
# The ops


class RowExpandOp(taking("src")):
    """TROWEXPAND: src's column 0 across dst's valid rows."""

    src = operand_of_role("src")

    def verify_operands(self) -> None:
        src = self.expect_tile_in("src", self.src)
        dst = self.expect_tile("dst", self.destinations[0])
        same_element_type("src", src.element_type, "dst", dst.element_type)


class RowExpandBinaryOp(taking("src0", "src1", optional="tmp")):
    """A row broadcast with an operation: src0, src1, an optional tmp workspace, dst."""

    WORKSPACE: ClassVar[frozenset[str]] = frozenset({"tmp"})

    src0 = operand_of_role("src0")
    src1 = operand_of_role("src1")
    tmp = operand_of_role("tmp", optional=True)

    def verify_operands(self) -> None:
        src0 = self.expect_tile_in("src0", self.src0)
        src1 = self.expect_tile_in("src1", self.src1)
        if self.tmp is not None:
            self.expect_tile_in("tmp", self.tmp)
        dst = self.expect_tile("dst", self.destinations[0])
        same_element_type("src0", src0.element_type, "dst", dst.element_type)
        same_element_type("src1", src1.element_type, "dst", dst.element_type)


class ColExpandBinaryOp(taking("src0", "src1")):
    """A column broadcast with an operation: src0 (dst's shape), src1 (row 0 read), dst."""

    src0 = operand_of_role("src0")
    src1 = operand_of_role("src1")

    def verify_operands(self) -> None:
        src0 = self.expect_tile_in("src0", self.src0)
        src1 = self.expect_tile_in("src1", self.src1)
        dst = self.expect_tile("dst", self.destinations[0])
        same_element_type("src0", src0.element_type, "dst", dst.element_type)
        same_element_type("src1", src1.element_type, "dst", dst.element_type)


# ---------------------------------------------------------------------------
# What each target accepts


@dataclass(frozen=True)
class BroadcastRules:
    """One target's rules for a row broadcast."""

    types: frozenset[str]
    """dst's (and every input's) element type; empty: the target's code has no such instruction."""
    vector_layouts: bool
    """The plain expand's src none_box (ND or DN) and dst ND (a2a3/a5 TRowExpand.hpp); else any."""
    tmp_mode1_capacity: bool
    """A tmp form takes a mode-1 (col-major) per-row operand and holds vbrcb's broadcast:
    ceil(rows / 8) * 256 bytes below 256 rows, else 30 * 256 (a2a3; PTOAS's tmp contract). Else
    the target's code ignores a tmp (cpu/TRowExpandOp.hpp, the a5 4-argument overloads): it
    takes no UB at the op (`untouched`)."""
    note: str
    """Where the rules come from."""
    full_operand: FullOperand = FullOperand.SRC0
    """Which input is the full operand where both have dst's valid shape, in the form without a
    tmp (the lowering records it, `full_operand`, for the run); else src0 whenever its valid shape
    is dst's, whatever its layout."""


def full_operand(rules: BroadcastRules, with_tmp: bool) -> FullOperand:
    """A row broadcast's full-operand choice under `rules`: a form with a tmp takes src0 on every
    target (a2a3 TRowExpandAdd.hpp:98-103 and its siblings test src0's valid shape alone; a5's
    forward to the form without a tmp, which does the same)."""
    return FullOperand.SRC0 if with_tmp else rules.full_operand


def src0_is_full(
    choice: FullOperand, valid: tuple[Any, Any, Any], row_strides: tuple[int, int]
) -> bool:
    """Whether src0 is the full operand, from the (src0, src1, dst) valid shapes and the inputs'
    row strides: src0 has dst's valid shape and, where src1 has it too and the target takes the
    larger row stride, src0's is at least src1's."""
    src0_valid, src1_valid, dst_valid = valid
    if src0_valid != dst_valid:
        return False
    if choice == FullOperand.LARGER_ROW_STRIDE and src1_valid == dst_valid:
        return row_strides[0] >= row_strides[1]
    return True


def row_stride(rows_cols: tuple[int, int], is_row_major: bool) -> int:
    """Elements between rows of a rows x cols tile, as pto-isa's Tile::RowStride (1 in a col-major tile)."""
    return rows_cols[1] if is_row_major else 1


def per_row_operand(full: TileFacts, vector: TileFacts) -> str | None:
    """Why `vector` is not a per-row operand for `full`'s rows, or None."""
    block = BLOCK_BYTES // full.elem.bytes
    if vector.is_row_major:
        if known(vector.valid_col) and vector.valid_col != block:
            return f"a row-major {vector.role} to have {block} valid columns (32 bytes), got {vector.valid_col}"
    elif known(vector.valid_col) and vector.valid_col != 1:
        return f"a col-major {vector.role} to have one valid column, got {vector.valid_col}"
    if known(vector.valid_row, full.valid_row) and vector.valid_row != full.valid_row:
        return f"{vector.role} valid_shape[0] to be dst's, got {vector.valid_row} and {full.valid_row}"
    return None


def _same_valid(a: TileFacts, b: TileFacts) -> bool:
    return not known(a.valid_row, a.valid_col, b.valid_row, b.valid_col) or a.valid_shape == b.valid_shape


def check(rules: BroadcastRules, operands: dict, attrs: Mapping[str, Attribute]) -> None:
    dst = operands["dst"]
    implemented_vec_tiles(operands, rules.types, rules.note)
    require(dst.is_row_major, f"expects dst to use row-major layout, got {dst.layout_text()}")
    require_type("dst", dst.elem, rules.types)
    if "src" in operands:
        src = operands["src"]
        if rules.vector_layouts:
            require(src.slayout == "none_box", f"expects src to use the none_box slayout, got {src.slayout}")
            require(dst.is_nd, f"expects dst to use the row-major ND layout, got {dst.layout_text()}")
        if known(src.valid_row, dst.valid_row):
            require(src.valid_row == dst.valid_row,
                    f"expects src and dst to have the same valid_shape[0], got {src.valid_row} and {dst.valid_row}")
        return
    src0, src1, tmp = operands["src0"], operands["src1"], operands.get("tmp")

    def full_beside(t: TileFacts, other: TileFacts) -> bool:
        return t.is_row_major and _same_valid(t, dst) and per_row_operand(dst, other) is None

    if known(src0.valid_row, src0.valid_col, src1.valid_row, src1.valid_col, dst.valid_row, dst.valid_col):
        src0_full = src0_is_full(full_operand(rules, tmp is not None), (src0.valid_shape, src1.valid_shape, dst.valid_shape),
                                 (row_stride(src0.shape, src0.is_row_major), row_stride(src1.shape, src1.is_row_major)))
    else:  # picked at run time: the reading that can hold
        src0_full = full_beside(src0, src1) or (not full_beside(src1, src0) and _same_valid(src0, dst))
    full, vector = (src0, src1) if src0_full else (src1, src0)
    require(
        _same_valid(full, dst),
        f"expects src0 or src1 to have dst's valid shape {dst.valid_row}x{dst.valid_col}, got "
        f"{src0.valid_row}x{src0.valid_col} and {src1.valid_row}x{src1.valid_col}",
    )
    if problem := per_row_operand(dst, vector):  # where the simulator asserts "invalid src1 shape"
        require(False, f"expects {problem} ({full.role} has dst's valid shape)")
    require(full.is_row_major, f"expects {full.role} (dst's valid shape) to use row-major layout, got {full.layout_text()}")
    if tmp is not None and rules.tmp_mode1_capacity:
        require(not vector.is_row_major,
                f"expects a tmp form to take a col-major per-row operand (mode 1), got a row-major {vector.role}")
        need = 30 * REPEAT_BYTES if not known(dst.valid_row) or dst.valid_row >= 256 else -(-dst.valid_row // 8) * REPEAT_BYTES
        have = tmp.rows * tmp.cols * tmp.elem.bytes
        require(have >= need, f"expects tmp to hold at least {need} bytes (vbrcb of the per-row values), got {have}")


def check_columns(rules: BroadcastRules, operands: dict, attrs: Mapping[str, Attribute]) -> None:
    """A column broadcast: every tile a row-major Vec tile; src0 of dst's shape and valid
    shape; src1 (src) at least one valid row, dst's valid columns."""
    dst = operands["dst"]
    implemented_vec_tiles(operands, rules.types, rules.note, "row-major")
    require_type("dst", dst.elem, rules.types)
    vector = operands.get("src1", operands.get("src"))
    if "src0" in operands:
        src0 = operands["src0"]
        require(src0.shape == dst.shape, f"expects src0 and dst to have the same shape, got {src0.rows}x{src0.cols} and {dst.rows}x{dst.cols}")
        require(_same_valid(src0, dst), f"expects src0 and dst to have the same valid shape, got "
                f"{src0.valid_row}x{src0.valid_col} and {dst.valid_row}x{dst.valid_col}")
    if known(vector.valid_col, dst.valid_col):
        require(vector.valid_col == dst.valid_col,
                f"expects {vector.role} to have dst's valid columns, got {vector.valid_col} and {dst.valid_col}")
    if known(vector.valid_row):
        require(vector.valid_row >= 1, f"expects {vector.role} to have a valid row, got {vector.valid_row}")


def describe(t: dict[str, BroadcastRules]) -> list[tuple[str, dict[str, str]]]:
    return per_target(t, [
        ("element type (every tile)", lambda r: spell(r.types) if r.types else "not implemented"),
        ("dst", lambda r: "vec, row-major" + (" ND (TROWEXPAND)" if r.vector_layouts else "")),
        ("per-row operand", lambda r: "col-major with one valid column, or row-major with 32 bytes of valid columns; "
         "dst's valid rows"),
        ("full operand", lambda r: "dst's valid shape, row-major; "
         + ("where both inputs have it, the larger row stride (src0 on a tie; src0 with a tmp)"
            if r.full_operand == FullOperand.LARGER_ROW_STRIDE else "src0 whenever it has it (src1 is then the per-row operand)")),
        ("tmp", lambda r: "mode 1 only; ceil(rows / 8) * 256 bytes (30 * 256 from 256 rows)"
         if r.tmp_mode1_capacity else "unused"),
        ("why", lambda r: r.note),
    ])


# ---------------------------------------------------------------------------
# The kernel


def per_row_values(vector: Tile, rows: int, cols: int, read: VectorRead) -> Any:  # noqa: ANN401
    """The per-row operand as dst sees it: column j % its valid columns of row i (one valid
    column: a rows x 1 view that broadcasts)."""
    width = vector.valid_col
    if width == 1:
        return vector.values[..., :rows, :1]
    j = np.arange(cols) % width
    if read == VectorRead.PACKED_BLOCKS and vector.type.is_row_major:
        return vector.flat[..., (np.arange(rows) * width)[:, None] + j[None, :]]
    return vector.values[..., :rows, :][..., j]


def expand_kernel(o: dict, **_: object) -> None:
    src, dst = o["src"], o["dst"]
    rows, cols = dst.valid_shape
    dst.write(rows, cols, src.values[..., :rows, :1].astype(dst.flat.dtype, copy=False))


def compute_into(
    dst: Tile, compute: Callable[..., Any], operands: tuple[Any, ...], choices: dict[str, Any], into_dst: bool
) -> None:
    """dst's valid region = compute(*operands, **choices) in dst's type (written in place where
    `compute` takes `out` and every operand has dst's type); a zero divisor the simulator asserts
    on is a run-time fault naming the element."""
    out = dst.valid_view() if into_dst and all(o.dtype == dst.flat.dtype for o in operands) else None
    try:
        with np.errstate(all="ignore"):  # overflow, NaN and division by zero are values here
            result = np.asarray(compute(*operands, **choices, **({} if out is None else {"out": out})))
    except ZeroDivision as zero:
        iteration, (i, j) = first_failing(zero.where, zero.where.ndim - 2)
        raise RuntimeFault(
            f"element ({i}, {j}) divides by zero (the simulator asserts 'Divider cannot be equal to "
            "zero', cpu/ElementOp.h) or the integer minimum by -1 (a trap)", iteration) from None
    if result is not out:
        dst.write_valid(result.astype(dst.flat.dtype, copy=False))


def binary_expand_kernel(row: Broadcast) -> Callable[..., None]:
    assert row.compute is not None
    compute = row.compute
    into_dst = takes_out(compute)

    def kernel(o: dict, *, vector_read: VectorRead, full_operand: FullOperand, **choices: Any) -> None:  # noqa: ANN401
        src0_full, full, vector = full_and_vector(o, full_operand)
        dst = o["dst"]
        rows, cols = dst.valid_shape
        a = full.read_valid()
        b = per_row_values(vector, rows, cols, vector_read)
        compute_into(dst, compute, (a, b) if src0_full else (b, a), choices, into_dst)

    kernel.__doc__ = row.summary
    return kernel


def full_and_vector(o: dict, choice: FullOperand) -> tuple[bool, Tile, Tile]:
    """Whether src0 is a row broadcast's full operand under the op's `full_operand` choice, then
    its full and per-row operands."""
    src0, src1, dst = o["src0"], o["src1"], o["dst"]
    src0_full = src0_is_full(choice, (src0.valid_shape, src1.valid_shape, dst.valid_shape),
                             (row_stride(src0.type.shape, src0.type.is_row_major), row_stride(src1.type.shape, src1.type.is_row_major)))
    return (src0_full, src0, src1) if src0_full else (src0_full, src1, src0)


def col_expand_kernel(o: dict, **_: object) -> None:
    src, dst = o["src"], o["dst"]
    rows, cols = dst.valid_shape
    dst.write(rows, cols, src.values[..., :1, :cols].astype(dst.flat.dtype, copy=False))


def col_binary_kernel(row: Broadcast) -> Callable[..., None]:
    assert row.compute is not None
    compute = row.compute
    into_dst = takes_out(compute)

    def kernel(o: dict, **choices: Any) -> None:  # noqa: ANN401
        src0, src1, dst = o["src0"], o["src1"], o["dst"]
        compute_into(dst, compute, (src0.read_valid(), src1.values[..., :1, : dst.valid_col]), choices, into_dst)

    kernel.__doc__ = row.summary
    return kernel


def col_expand_footprint(o: dict, **_: object) -> Footprint:
    src, dst = o["src"], o["dst"]
    return Footprint([(src, False, rect(src, 1, dst.valid_col)), (dst, True, valid_rect(dst))], [])


def col_binary_footprint(o: dict, **_: object) -> Footprint:
    src0, src1, dst = o["src0"], o["src1"], o["dst"]
    return Footprint([(src0, False, valid_rect(src0)), (src1, False, rect(src1, 1, dst.valid_col)),
                      (dst, True, valid_rect(dst))], [])


def expand_footprint(o: dict, **_: object) -> Footprint:
    src, dst = o["src"], o["dst"]
    return Footprint([(src, False, rect(src, dst.valid_row, 1)), (dst, True, valid_rect(dst))], [])


def binary_expand_footprint(o: dict, *, vector_read: VectorRead, full_operand: FullOperand, **_: object) -> Footprint:
    full, vector = full_and_vector(o, full_operand)[1:]
    dst = o["dst"]
    rows, width = dst.valid_row, vector.valid_col
    if vector_read == VectorRead.PACKED_BLOCKS and vector.type.is_row_major and width > 1:
        per_row = np.arange(rows * width)  # the packed blocks: storage elements 0 .. rows * 32 bytes
    else:
        per_row = rect(vector, rows, width)
    return Footprint([(full, False, valid_rect(full)), (vector, False, per_row), (dst, True, valid_rect(dst))], [])


class BroadcastBase(FamilyLoweredOp):
    """dst[i, j] from row i's per-row value (and the full operand's element (i, j))."""


# ---------------------------------------------------------------------------
# What it costs


def _cce(op: FamilyLoweredOp, o: dict, machine: CceMachine, work: Work) -> OpCost:
    """a2a3 TRowExpandBinOp.hpp: vbrcb of the per-row values (mode 1), then one masked call over
    the rows per 256-byte repeat of a row (norm mode; TRowExpand.hpp alike with vcopy)."""
    dst = o["dst"]
    t = machine.trace()
    rows = dst.valid_row
    t.vector("vbrcb", repeat=-(-rows // 8))
    t.call(2)
    for _ in range(vector_repeats(dst.valid_col, dst.elem.bytes)):
        t.vector(member_row(op, Broadcast).priced_as, repeat=rows)
    return t.cost(Pipe.VECTOR, exact=False, idle=machine.idle_vector, elements=rows * dst.valid_col)


def _vf(op: FamilyLoweredOp, o: dict, machine: VfMachine, work: Work) -> OpCost:
    """a5 TRowExpandBinOp.hpp: per row a broadcast load; per 256-byte repeat a predicate, a load,
    the operation and a store."""
    dst = o["dst"]
    registers = dst.valid_row * vector_repeats(dst.valid_col, dst.elem.bytes)
    if "src" in o:  # TROWEXPAND: the broadcast load stored per register
        body = {"vlds": dst.valid_row, "plt": registers, "vsts": registers}
    else:
        body = {"vlds": dst.valid_row + registers, "plt": registers, member_row(op, Broadcast).priced_as: registers, "vsts": registers}
    return machine.cost(Pipe.VECTOR, 0, machine.vector_function(body))


COST = InstructionCost(on={CceMachine: _cce, VfMachine: _vf, SimulatorMachine: simulator_loop("dst", "pto-isa cpu/: a loop over dst's valid elements.")})


# ---------------------------------------------------------------------------
# C++


def emitter(row: Broadcast) -> Callable[[Emission, PtoInstructionOp], None]:
    def emit(e: Emission, op: PtoInstructionOp) -> None:
        """`TROWEXPANDSUB(dst, src0, src1[, tmp])`: dst first, then the inputs."""
        e.issue(op, e.call(row.cpp_name, [*op.outs, *op.ins]))

    return emit


IN_PLACE = {
    "": InPlace(
        frozenset({"src0"}),
        how="each element of dst is computed from the full operand's element at its own place and the per-row value, "
        "read before it is written",
        refused="dst over the per-row operand would overwrite per-row values still to be read.",
    )
}


def _broadcast(
    row: Broadcast, binary_op: type[PtoInstructionOp], plain_run: tuple[Callable[..., Any], Callable[..., Any]],
    binary_run: tuple[Callable[[Broadcast], Callable[..., Any]], Callable[..., Any]], check_fn: Callable[..., None],
    in_place: dict[str, InPlace],
) -> Instruction:
    """A broadcast member's entry: the plain expand (its kernel and footprint `plain_run`) or a
    `binary_op` (the kernel made for the row and the footprint `binary_run`), checked by
    `check_fn`, computed in place as `in_place` says where binary."""
    plain = row.compute is None
    op = member_op(RowExpandOp if plain else binary_op, row)
    kernel, footprint = plain_run if plain else (binary_run[0](row), binary_run[1])
    lowered = member_lowered_base(BroadcastBase, op, row, kernel, footprint)
    return member_instruction(
        row, lowered, rules=BroadcastRules, check_rule=check_fn, docs_table=describe, emit=emitter(row), cost=COST,
        in_place={} if plain else in_place, untouched=untouched if "tmp" in op.WORKSPACE else None,
    )


def untouched(op: PtoInstructionOp, rules: BroadcastRules) -> frozenset[str]:
    return tmp_untouched_unless(rules.tmp_mode1_capacity)


def row_broadcast(row: Broadcast) -> Instruction:
    return _broadcast(row, RowExpandBinaryOp, (expand_kernel, expand_footprint),
                      (binary_expand_kernel, binary_expand_footprint), check, IN_PLACE)


def col_broadcast(row: Broadcast) -> Instruction:
    return _broadcast(row, ColExpandBinaryOp, (col_expand_kernel, col_expand_footprint),
                      (col_binary_kernel, col_binary_footprint), check_columns, COLUMN_IN_PLACE)


COLUMN_IN_PLACE = {
    "": InPlace(
        frozenset({"src0"}),
        how="each element of dst is computed from src0's element at its own place and src1's row 0, read before it is "
        "written",
        refused="dst over src1 would overwrite its row 0 while later rows still read it.",
    )
}

READ: Mapping[str, type[Choice]] = {"vector_read": VectorRead, "full_operand": FullOperand}

VECTOR_UNIT_REFERENCES = {
    f"t{axis}expand{operation}": reference
    for axis in ("row", "col")
    for operation, reference in (
        ("expdif", "vexp as exp in double of the difference, rounded"),
        ("div", "IEEE division correctly rounded; vdiv's own rounding is not public"),
    )
}
"""The members whose values on the NPUs come from a vector intrinsic no public code fixes, with
the reference the interpreter computes there (elementwise.py's on_vector_unit picks a family's)."""

ROW_BROADCASTS = Family.of(
    "row broadcast",
    (
        Broadcast("trowexpandsub", "dst[i, j] = src0[i, j] - src1[i, j % vc1] (or the per-row src0 minus src1)",
                  compute=subtract, priced_as="vsub", choices=READ),
        Broadcast("trowexpanddiv", "dst[i, j] = src0[i, j] / src1[i, j % vc1] (or the per-row src0 over src1)",
                  compute=divide, priced_as="vdiv", choices={**READ, "zero_divisor": BroadcastDivisor}),
        Broadcast("trowexpandadd", "dst[i, j] = src0[i, j] + src1[i, j % vc1] (or the per-row src0 plus src1)",
                  compute=commuted(add), priced_as="vadd", choices=READ),
        Broadcast("trowexpandmul", "dst[i, j] = src0[i, j] * src1[i, j % vc1] (or the per-row src0 times src1)",
                  compute=commuted(multiply), priced_as="vmul", choices=READ),
        Broadcast("trowexpandmax", "dst[i, j] = max(src0[i, j], src1[i, j % vc1]) (or the per-row src0)",
                  compute=extreme(lambda a, b: a < b), priced_as="vmax", choices={**READ, "nan": ExtremeNan}),
        Broadcast("trowexpandmin", "dst[i, j] = min(src0[i, j], src1[i, j % vc1]) (or the per-row src0)",
                  compute=extreme(lambda a, b: b < a), priced_as="vmin", choices={**READ, "nan": ExtremeNan}),
        Broadcast("trowexpandexpdif", "dst[i, j] = exp(src0[i, j] - src1[i, j % vc1]) (or the per-row src0)",
                  compute=exp_difference, priced_as="vexp", choices=READ),
        Broadcast("trowexpand", "dst[i, j] = src[i, 0]", compute=None, priced_as="vcopy"),
    ),
    row_broadcast,
)
"""A per-row value across each row of dst, alone or with a full tile."""


def broadcast_choices(
    row: Member, read: VectorRead, nan: ExtremeNan, zero: BroadcastDivisor, full: FullOperand = FullOperand.SRC0
) -> dict[str, Choice]:
    """A target's choices for a broadcast row: those of its choices the row records."""
    every = {"vector_read": read, "nan": nan, "zero_divisor": zero, "full_operand": full}
    return {name: every[name] for name in row.choices}


def row_broadcast_choices(
    row: Member, rules: BroadcastRules, op: PtoInstructionOp, read: VectorRead, nan: ExtremeNan, zero: BroadcastDivisor
) -> dict[str, Choice]:
    """A target's choices for a row broadcast `op` of the row `row`, its full operand from the
    target's rule row `rules` (as verification picks it)."""
    with_tmp = isinstance(op, RowExpandBinaryOp) and op.tmp is not None
    return broadcast_choices(row, read, nan, zero, full_operand(rules, with_tmp))


COL_BROADCASTS = Family.of(
    "column broadcast",
    (
        Broadcast("tcolexpandsub", "dst[i, j] = src0[i, j] - src1[0, j]", compute=subtract, priced_as="vsub"),
        Broadcast("tcolexpanddiv", "dst[i, j] = src0[i, j] / src1[0, j]", compute=divide, priced_as="vdiv",
                  choices={"zero_divisor": BroadcastDivisor}),
        Broadcast("tcolexpandadd", "dst[i, j] = src0[i, j] + src1[0, j]", compute=commuted(add), priced_as="vadd"),
        Broadcast("tcolexpandmul", "dst[i, j] = src0[i, j] * src1[0, j]", compute=commuted(multiply), priced_as="vmul"),
        Broadcast("tcolexpandmax", "dst[i, j] = max(src0[i, j], src1[0, j])", compute=extreme(lambda a, b: a < b),
                  priced_as="vmax", choices={"nan": ExtremeNan}),
        Broadcast("tcolexpandmin", "dst[i, j] = min(src0[i, j], src1[0, j])", compute=extreme(lambda a, b: b < a),
                  priced_as="vmin", choices={"nan": ExtremeNan}),
        Broadcast("tcolexpandexpdif", "dst[i, j] = exp(src0[i, j] - src1[0, j])", compute=exp_difference, priced_as="vexp"),
        Broadcast("tcolexpand", "dst[i, j] = src[0, j]", compute=None, priced_as="vcopy"),
    ),
    col_broadcast,
)
"""Row 0 of a tile down each column of dst, alone or with a full tile."""
