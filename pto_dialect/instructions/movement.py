"""
UB-to-UB data movement between Vec tiles (pto-isa docs/isa/TMOV.md, TEXTRACT.md):

    pto.tmov ins(%src : S) outs(%dst : D)                                  dst = src
    pto.textract ins(%src, %r, %c : S, index, index) outs(%dst : D)        dst = src[r:, c:]
    pto.tinsert ins(%src, %r, %c : S, index, index) outs(%dst : D)         dst[r:, c:] = src
    pto.tconcat ins(%src0, %src1 : S0, S1) outs(%dst : D)                  dst = [src0 | src1]

(SSA: `%d = pto.tmov %src : S -> D`, `%d = pto.textract %src, %r, %c : (S, index, index) -> D`),
emitted as `TMOV(dst, src)`, `TEXTRACT(dst, src, r, c)`, `TINSERT(dst, src, r, c)` and
`TCONCAT(dst, src0, src1)`. Of the cube-side moves, TMOV loads a mat (L1) tile into a left (L0A)
or right (L0B) one where the target's code does (a5: npu/a5/TMov.hpp TMovToLeft / TMovToRight,
load_cbuf_to_ca / load_cbuf_to_cb on the MTE1 pipe; `TMovL0Base`): dst[i, j] = src[i, j] over the
whole tile (TMOV.md), each tile through its own fractal layout, an NZ left and a ZN right tile as
the static_asserts ask, the transposing loads (a ZN src into NZ, an NZ src into ZN) in whole
fractals; a one-row src (TExtractToAVector) and compact tiles are not taken here. The other
cube-side moves (acc, bias, scaling tiles; mat -> vec) are not implemented: a located error says so.

How each target copies (TMOV's `move_copy` choice):
- cpu (cpu/TMov.hpp): element by element through each tile's own layout, so any layout pair
  converts, and a dst of another element type receives C++'s conversion; the valid shapes must
  be equal (an assert: a run-time error here).
- a2a3 (npu/a2a3/TMov.hpp TMovToVec): copy_ubuf_to_ubuf of storage, the smaller valid shape,
  whole rows when dst's valid columns are all its columns, else each row's columns rounded up
  to 32-byte blocks (elements past the valid columns are copied too); same shape, same layout
  (a byte copy cannot convert one), an element type of the same size (its bits kept).
- a5 (npu/a5/TMov.hpp TMovVecToVec): vlds / vsts of the smaller valid rows and columns, each
  row at its tile's RowStride; same layout (its ND->NZ and ND->ZN repacks are not taken
  here), an element type of the same size (bits kept).

TEXTRACT and TINSERT are one family (a window copy): TEXTRACT copies dst's valid region from src
at (indexRow, indexCol), TINSERT src's valid region into dst there, on every target the same
elements (cpu's element loop, the NPUs' copy_ubuf / vcopy / vlds / vsts); the targets differ in
the types and layouts they take and in what the position must satisfy (the `window_bounds`
choice), which a constant position meets at verify time and any other at run time.

TCONCAT puts src1's valid columns after src0's in each of the common valid rows (`concat_copy`):
cpu and a5 exactly those columns (cpu through any layouts, a5 row-major tiles); a2a3 copies
src0's rows in whole 32-byte blocks, so past its valid columns until src1's overwrite them,
and src1's the same way when src0's valid columns end on a block (else element by element).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, prop_def
from xdsl.utils.exceptions import VerifyException

from pto_dialect.attributes import RoundMode, SaturationMode
from pto_dialect.choices import ConcatCopy, MoveCopy, Numerics, WindowBounds
from pto_dialect.cost import CceMachine, CostFn, DmaPath, InstructionCost, OpCost, SimulatorMachine, VfMachine, Work
from pto_dialect.diagnostics import CUBE_SIDE, not_implemented
from pto_dialect.facts import TileFacts, known, require, require_type, spell
from pto_dialect.family import Family, FamilyLoweredOp, Member, member_instruction, member_lowered_base, member_op
from pto_dialect.instruction import CheckRule, DocsCells, Emission, InPlace, Instruction, Pipe, RuleRow, per_target
from pto_dialect.instructions.tcvt import simulated, x86_cast
from pto_dialect.lowered import LoweredOp, lowered_base
from pto_dialect.machine import RuntimeFault, Tile, np, storage_offsets
from pto_dialect.ops.common import PtoInstructionOp, same_element_type
from pto_dialect.instructions.operands import taking
from pto_dialect.ops.memory import constant_index
from pto_dialect.phases import Phase
from pto_dialect.types import TileTypeBase
from pto_dialect.vector import vector_repeats

BLOCK_BYTES = 32
"""A UB block: what copy_ubuf_to_ubuf moves whole."""


def _vec_pair(src: TileFacts, dst: TileFacts) -> None:
    require(
        src.loc == "vec" and dst.loc == "vec",
        not_implemented(f"moves loc={src.loc} to loc={dst.loc}", CUBE_SIDE),
    )


def require_vec(tiles: tuple[TileFacts, ...]) -> None:
    """Every tile a Vec tile (the other locations: cube-side forms, not implemented here)."""
    for tile in tiles:
        require(tile.loc == "vec", not_implemented(f"has {tile.role} at loc={tile.loc}", CUBE_SIDE))


def require_nd(tiles: tuple[TileFacts, ...], stride: str) -> None:
    """Every tile row-major ND, as the target's code addresses row i at i * `stride`."""
    for tile in tiles:
        require(
            tile.is_nd,
            f"expects {tile.role} to be row-major ND (its code addresses row i at i * {stride}), "
            f"got blayout={tile.blayout}, slayout={tile.slayout}",
        )


def _layout(t: TileFacts) -> str:
    return f"blayout={t.blayout}, slayout={t.slayout}"


def _same_layout(a: TileFacts, b: TileFacts) -> bool:
    return (a.blayout, a.slayout, a.fractal if a.slayout != "none_box" else 0) == (
        b.blayout, b.slayout, b.fractal if b.slayout != "none_box" else 0)


def _storage_rows(tile: Tile, rows: int, cols: int) -> np.ndarray:
    """Storage offsets `i * RowStride + j` of rows x cols (pto-isa's RowStride: Cols for a
    row-major block layout, 1 for a column-major one), as a flat index."""
    stride = tile.type.shape[1] if tile.type.is_row_major else 1
    index = (np.arange(rows)[:, None] * stride + np.arange(cols)[None, :]).ravel()
    return index[index < tile.flat.shape[-1]]


# ---------------------------------------------------------------------------
# TMOV


@irdl_op_definition
class TMovOp(taking("src")):
    """dst = src (Vec to Vec), converting layout and element type where the target can."""

    name = "pto.tmov"

    def verify_operands(self) -> None:
        self.expect_tile("dst", self.destinations[0])
        self.expect_tile_in("src", self.ins[0])


def _l0_cell(loc: str) -> Callable[[TMovRules], str]:
    def cell(r: TMovRules) -> str:
        load = r.l0_loads.get(loc)
        if load is None:
            return "not implemented"
        blayout, slayout = load.dst_layout
        return (f"{spell(load.types)}, one type and shape; dst blayout={blayout}, slayout={slayout}; src row-major or NZ "
                f"(a transposing load: rows and cols in whole fractals), {'not one row, ' if loc == 'left' else ''}not compact; {load.note}")

    return cell


@dataclass(frozen=True)
class TMovRules(RuleRow):
    types: frozenset[str]
    converts: bool
    """dst may have another element type, converted as C++ converts (else one of the same
    size, whose bits the copy keeps)."""
    same_shape: bool
    """src and dst of one shape (a static_assert)."""
    same_layout: bool
    """src and dst of one layout (the copy cannot convert one)."""
    equal_valid: bool
    """src's and dst's valid shapes equal (else the smaller is copied)."""
    note: str
    l0_loads: Mapping[str, L0Load] = field(default_factory=dict)
    """The mat -> left / right moves the target's code makes, by dst loc (none: not implemented)."""

    def check(self, operands: dict, attrs: Mapping[str, Attribute]) -> None:
        src, dst = operands["src"], operands["dst"]
        if src.loc == "mat" and dst.loc in ("left", "right"):
            _l0_check(self, src, dst)
            return
        _vec_pair(src, dst)
        require_type("src", src.elem, self.types)
        require_type("dst", dst.elem, self.types)
        require(
            self.converts or src.elem.bytes == dst.elem.bytes,
            f"expects src and dst element types of one size (its copy keeps the bits), "
            f"got {src.elem.mlir} and {dst.elem.mlir}",
        )
        require(
            not self.same_shape or src.shape == dst.shape,
            f"expects src and dst to have the same shape, got {src.rows}x{src.cols} and "
            f"{dst.rows}x{dst.cols}",
        )
        require(
            not self.same_layout or _same_layout(src, dst),
            f"expects src and dst to have the same layout, which cannot convert "
            f"{_layout(src)} to {_layout(dst)} ({self.note})",
        )
        if self.equal_valid and known(src.valid_row, src.valid_col, dst.valid_row, dst.valid_col):
            require(
                src.valid_shape == dst.valid_shape,
                f"expects src and dst to have the same valid shape, got {src.valid_row}x{src.valid_col} and "
                f"{dst.valid_row}x{dst.valid_col}",
            )

    DOCS: ClassVar[DocsCells] = (
        ("element types", lambda r: spell(r.types)),
        ("dst's element type", lambda r: "any of them (converted)" if r.converts else "one of src's size (bits kept)"),
        ("shapes", lambda r: "src's equals dst's" if r.same_shape else "any"),
        ("layouts", lambda r: "src's equals dst's" if r.same_layout else "any pair (converted)"),
        ("valid shapes", lambda r: "src's equals dst's" if r.equal_valid else "the smaller is copied"),
        ("why", lambda r: r.note),
        *((f"mat -> {loc}", _l0_cell(loc)) for loc in ("left", "right")),
    )


@dataclass(frozen=True)
class L0Load:
    """A cube operand load, mat (L1) -> left (L0A) or right (L0B): TMovToLeft / TMovToRight."""

    dst_layout: tuple[str, str]
    """The (blayout, slayout) its dst static_assert asks."""
    types: frozenset[str]
    """The element types (src's and dst's, one type: a static_assert)."""
    note: str


def _l0_check(rules: TMovRules, src: TileFacts, dst: TileFacts) -> None:
    """mat -> left / right, as the target's code loads it (pto-isa docs/isa/TMOV.md: dst = src)."""
    load = rules.l0_loads.get(dst.loc)
    require(load is not None, not_implemented(f"moves loc={src.loc} to loc={dst.loc}", CUBE_SIDE))
    assert load is not None
    require_type("src", src.elem, load.types)
    require(
        src.elem == dst.elem,
        f"expects src and dst to have the same element type (a static_assert), got {src.elem.mlir} and {dst.elem.mlir}",
    )
    require(
        src.shape == dst.shape,
        f"expects src and dst to have the same shape (a static_assert), got {src.rows}x{src.cols} and {dst.rows}x{dst.cols}",
    )
    blayout, slayout = load.dst_layout
    require(
        (dst.blayout, dst.slayout, dst.fractal) == (blayout, slayout, 512),
        f"expects dst (loc={dst.loc}) to be blayout={blayout}, slayout={slayout}, fractal=512 "
        f"({load.note}), got {_layout(dst)}, fractal={dst.fractal}",
    )
    require(
        src.is_row_major or (src.blayout, src.slayout) == ("col_major", "row_major"),
        f"expects src (loc=mat) to be row-major or NZ (blayout=col_major, slayout=row_major) "
        f"(a static_assert), got {_layout(src)}",
    )
    require(dst.compact == 0 and src.compact == 0, not_implemented(f"moves loc=mat to loc={dst.loc} between compact tiles", CUBE_SIDE))
    require(
        not (dst.loc == "left" and src.rows == 1 and src.is_row_major),
        not_implemented("moves a one-row mat tile to loc=left (TExtractToAVector's GEMV operand)", CUBE_SIDE),
    )
    if src.slayout != dst.slayout:  # a transposing load: whole fractals of rows and cols
        align = 32 // src.elem.bytes if src.elem.bytes == 1 else 16
        require(
            src.rows % align == 0 and src.cols % align == 0,
            f"expects src and dst rows and cols to be multiples of {align} for a transposing load ({_layout(src)} "
            f"to {_layout(dst)}) (a static_assert), got {src.rows}x{src.cols}",
        )


def cpp_converted(x: Any, dtype: Any) -> Any:  # noqa: ANN401
    """`static_cast<D>(x)` as g++ compiles it on x86-64: a float to an integer truncated
    (cvttss2si / cvttsd2si, out of range the integer indefinite), else as TCVT's simulator."""
    if x.dtype == dtype:
        return x
    if x.dtype.kind not in "iu" and dtype.kind in "iu":
        return x86_cast(x.astype(np.float64), dtype)
    return simulated(x, dtype, RoundMode.CAST_RINT, SaturationMode.OFF)


def tmov_kernel(o: dict, *, move_copy: MoveCopy) -> None:
    src, dst = o["src"], o["dst"]
    if move_copy is MoveCopy.ELEMENTS:  # the rules checked the valid shapes are equal
        with np.errstate(all="ignore"):
            dst.write_valid(cpp_converted(src.read_valid(), dst.flat.dtype))
        return
    rows, cols = min(src.valid_row, dst.valid_row), min(src.valid_col, dst.valid_col)
    rows_alike = dst.type.shape[1] == src.type.shape[1] or dst.type.shape[0] == 1  # not a window of columns into a tile
    if move_copy is MoveCopy.UB_BLOCKS and rows_alike and (dst.type.valid_shape[1] == dst.type.shape[1] or cols == dst.type.shape[1]):
        # one burst of the first `rows` rows' storage, whole blocks (pto-isa's TMovToVecImpl)
        dst_index = src_index = np.arange(min(_whole_blocks(dst.type.shape[1] * rows, dst), dst.flat.shape[-1]))
    else:
        if move_copy is MoveCopy.UB_BLOCKS:
            cols = _whole_blocks(cols, dst)  # each row's columns rounded up to whole blocks
        dst_index, src_index = _storage_rows(dst, rows, cols), _storage_rows(src, rows, cols)
    n = min(dst_index.size, src_index.size)
    dst.flat[..., dst_index[:n]] = src.flat[..., src_index[:n]].view(dst.flat.dtype)


def _whole_blocks(elements: int, tile: Tile) -> int:
    """`elements` rounded up to whole 32-byte blocks of the tile's element type."""
    size = tile.flat.dtype.itemsize
    return -(-elements * size // BLOCK_BYTES) * BLOCK_BYTES // size


TMovBase = lowered_base(TMovOp, tmov_kernel, "dst = src, as the target copies (move_copy).", move_copy=MoveCopy.Attr)


def loads_l0(op: TMovOp) -> bool:
    """A TMOV from a mat tile into a left or right tile (TMovL0Base's op), from its types."""
    src, dst = op.ins[0].type, op.destinations[0].type
    return (isinstance(src, TileTypeBase) and isinstance(dst, TileTypeBase) and src.loc.data == "mat"
            and dst.loc.data in ("left", "right"))


def l0_load_kernel(o: dict) -> None:
    """dst = src over the whole tile (TExtractToA / TExtractToB load Rows / 16 x Cols * size / 32
    fractals, past the valid region too), logical element by logical element: each tile's fractal
    layout is its addressing (TMOV.md's dst[i, j] = src[i, j])."""
    src, dst = o["src"], o["dst"]
    dst.write(*dst.type.shape, src.values)


L0_LOAD_PHASES = (Phase(Pipe.MTE1, reads=("src",), writes=("dst",)),)
"""L1 -> L0A / L0B: the MTE1 pipe (PTOAS's sync model: MGATHER's MTE2 -> MTE1 before the TMOV)."""


class TMovL0Base(LoweredOp):
    """dst (loc=left / right) = src (loc=mat): a cube operand load (npu/a5/TMov.hpp TMovToLeft /
    TMovToRight, load_cbuf_to_ca / load_cbuf_to_cb) on the MTE1 pipe."""

    SOURCE: ClassVar[type[PtoInstructionOp]] = TMovOp
    KERNEL = staticmethod(l0_load_kernel)
    PHASES: ClassVar[tuple[Phase, ...]] = L0_LOAD_PHASES
    numerics = prop_def(Numerics.Attr)


def _l0_path(dst: TileFacts) -> DmaPath:
    return DmaPath.L1_TO_L0A if dst.loc == "left" else DmaPath.L1_TO_L0B


def _l0_vf(op: LoweredOp, o: dict, machine: VfMachine, work: Work) -> OpCost:
    """One load_cbuf_to_ca / load_cbuf_to_cb of the tile's 512-byte fractals, priced at the cost
    model's L1 -> L0A / L0B bandwidth (the only figure it has for these loads)."""
    dst = o["dst"]
    nbytes = dst.rows * dst.cols * dst.elem.bytes
    return machine.cost(Pipe.MTE1, nbytes, machine.dma.cycles(_l0_path(dst), nbytes))


def _tmov_cce(op: LoweredOp, o: dict, machine: CceMachine, work: Work) -> OpCost:
    """npu/a2a3/TMov.hpp TMovToVecImpl: one copy_ubuf_to_ubuf of the valid rows' whole rows
    when dst's valid columns are all its columns, else one per valid row of its valid
    columns' 32-byte blocks (the cost model prices each call's bytes at the UB->UB rate)."""
    src, dst = o["src"], o["dst"]
    rows, cols = min(src.valid_row, dst.valid_row), min(src.valid_col, dst.valid_col)
    t = machine.trace()
    size = dst.elem.bytes
    if dst.valid_col == dst.cols or cols == dst.cols:
        t.dma(DmaPath.UB_TO_UB, -(-dst.cols * rows * size // BLOCK_BYTES) * BLOCK_BYTES)
    else:
        t.dma(DmaPath.UB_TO_UB, -(-cols * size // BLOCK_BYTES) * BLOCK_BYTES, times=rows)
    return t.cost(Pipe.VECTOR, exact=True, idle=machine.idle_vector, elements=rows * cols)


def _tmov_vf(op: LoweredOp, o: dict, machine: VfMachine, work: Work) -> OpCost:
    """npu/a5/TMov.hpp TMovVecToVec: one vector function; per register of each valid row a
    predicate, a load and a store (a load into left / right: `_l0_vf`)."""
    if isinstance(op, TMovL0Base):
        return _l0_vf(op, o, machine, work)
    src, dst = o["src"], o["dst"]
    rows, cols = min(src.valid_row, dst.valid_row), min(src.valid_col, dst.valid_col)
    registers = rows * vector_repeats(cols, dst.elem.bytes)
    body = {"plt": registers, "vlds": registers, "vsts": registers}
    return machine.cost(Pipe.VECTOR, 0, machine.vector_function(body))


def _tmov_simulated(op: LoweredOp, o: dict, machine: SimulatorMachine, work: Work) -> OpCost:
    """pto-isa cpu/TMov.hpp: a loop over the valid elements."""
    src = o["src"]
    return machine.cost(Pipe.VECTOR, 0, src.valid_row * src.valid_col)


def dst_first(cpp: str) -> Callable[[Emission, PtoInstructionOp], None]:
    """`CPP(dst, <the ins>)`: TMOV(dst, src), TEXTRACT / TINSERT(dst, src, r, c), TCONCAT(dst, src0, src1)."""

    def emit(e: Emission, op: PtoInstructionOp) -> None:
        e.issue(op, e.call(cpp, [*op.outs, *op.ins]))

    return emit


TMOV = Instruction(
    rules=TMovRules,
    lowered=(TMovBase, TMovL0Base),
    emit=dst_first("TMOV"),
    in_place={"": InPlace(frozenset({"src"}), how="each element (cpu), block or register (a2a3, a5) is read "
                          "before the same place of dst is written", refused="")},
    cost=InstructionCost(on={CceMachine: _tmov_cce, VfMachine: _tmov_vf, SimulatorMachine: _tmov_simulated}),
)


# ---------------------------------------------------------------------------
# TEXTRACT and TINSERT: a window copy


class WindowOp(taking("src", "index_row", "index_col")):
    """A window of the whole tile (at indexRow, indexCol) copied from or to the part tile."""

    WHOLE: ClassVar[str]
    """The role the position indexes into (TEXTRACT's src, TINSERT's dst)."""
    PART: ClassVar[str]
    """The role whose valid shape is the window's."""

    def verify_operands(self) -> None:
        tiles = {"dst": self.expect_tile("dst", self.destinations[0]), "src": self.expect_tile_in("src", self.ins[0])}
        for role, value in zip(("indexRow", "indexCol"), self.ins[1:]):
            if not isinstance(value.type, IndexType):
                raise VerifyException(f"expects {role} to be an index, got {value.type}")
        same_element_type("src", tiles["src"].element_type, "dst", tiles["dst"].element_type)
        whole, part = tiles[self.WHOLE], tiles[self.PART]
        for role, value, bound, extent, what in (
            ("indexRow", self.ins[1], whole.shape[0], part.valid_shape[0], "rows"),
            ("indexCol", self.ins[2], whole.shape[1], part.valid_shape[1], "cols"),
        ):
            at = constant_index(value)
            if at is not None and at < 0:
                raise VerifyException(f"expects {role} to be non-negative, got {at}")
            if at is not None and known(extent) and at + extent > bound:
                raise VerifyException(
                    f"expects {role} + {self.PART} valid {what} to be at most {self.WHOLE} {what}, got "
                    f"{at} + {extent} > {bound}"
                )


@dataclass(frozen=True)
class WindowRules:
    types: frozenset[str]
    layouts: frozenset[str]
    """`nd` and / or `nz`: both tiles in one of them; empty: any pair (element by element)."""
    part_within_whole: bool
    """The part's rows and cols at most the whole's (static_asserts)."""
    even_valid_bytes: bool
    """The part's valid columns a whole number of 2-byte units unless it is 1x1 (a
    static_assert, which a dynamic valid column, DYNAMIC = -1 there, fails for 1-byte types only)."""
    note: str


def _kind(t: TileFacts) -> str:
    return "nd" if t.is_nd else "nz" if t.is_nz else "other"


def window_check(row: WindowCopy) -> CheckRule:
    def check(rules: WindowRules, operands: dict, attrs: Mapping[str, Attribute]) -> None:
        src, dst = operands["src"], operands["dst"]
        whole, part = operands[row.whole], operands[row.part]
        _vec_pair(src, dst)
        require_type("dst", dst.elem, rules.types)
        if rules.layouts:
            require(
                _kind(src) == _kind(dst) and _kind(dst) in rules.layouts,
                f"expects src and dst both {' or both '.join(k.upper() for k in sorted(rules.layouts))}, "
                f"got {_layout(src)} and {_layout(dst)}",
            )
        if rules.part_within_whole:
            require(
                part.rows <= whole.rows and part.cols <= whole.cols,
                f"expects {row.part}'s shape within {row.whole}'s, got {part.rows}x{part.cols} and "
                f"{whole.rows}x{whole.cols}",
            )
        if rules.even_valid_bytes and (part.valid_row, part.valid_col) != (1, 1):
            # a dynamic valid col is pto-isa's DYNAMIC (-1) in the static_assert: odd only for 1-byte types
            valid_col = part.valid_col if known(part.valid_col) else -1
            require(
                valid_col * part.elem.bytes % 2 == 0,
                f"expects {row.part} valid cols to span whole 2-byte units (unless {row.part} is "
                f"1x1), got {'?' if not known(part.valid_col) else part.valid_col} x {part.elem.mlir}",
            )

    return check


def window_describe(t: dict[str, WindowRules]) -> list[tuple[str, dict[str, str]]]:
    return per_target(t, [
        ("element types (src's is dst's)", lambda r: spell(r.types)),
        ("layouts", lambda r: " or ".join(f"both {k.upper()}" for k in sorted(r.layouts)) or "any pair"),
        ("the window's tile (TEXTRACT's dst, TINSERT's src)", lambda r: "within the other" if r.part_within_whole else "any shape"),
        ("its valid cols", lambda r: "whole 2-byte units (or 1x1)" if r.even_valid_bytes else "any"),
        ("why", lambda r: r.note),
    ])


def _window_fault(
    bounds: WindowBounds, whole: Tile, role: str, part: Tile, row: int, col: int, scalar_path: bool
) -> str | None:
    """What the target's code asserts of the position, if it does not hold."""
    if row < 0 or col < 0:
        return f"the position ({row}, {col}) is negative"
    rows, cols = (1, 1) if scalar_path else part.valid_shape
    if bounds is WindowBounds.WHOLE_VALID:
        limit, names = whole.valid_shape, f"{role}'s valid shape"
    else:
        limit, names = whole.type.shape, f"{role}'s shape"
    if row + rows > limit[0] or col + cols > limit[1]:
        return f"the {rows}x{cols} window at ({row}, {col}) reaches past {names} {limit[0]}x{limit[1]}"
    if bounds is WindowBounds.ALIGNED_TILE and not scalar_path:
        size = part.flat.dtype.itemsize
        if whole.type.is_row_major and col * size % BLOCK_BYTES:
            return f"indexCol {col} is not a whole number of 32-byte blocks (a2a3's ND copy)"
        if not whole.type.is_row_major and (row % 16 or col % (BLOCK_BYTES // size)):
            return f"the position ({row}, {col}) is not on a 16-row, {BLOCK_BYTES // size}-column box (a2a3's NZ copy)"
    return None


def window_kernel(row: WindowCopy) -> Callable[..., None]:
    def kernel(o: dict, *, window_bounds: WindowBounds) -> None:
        whole, part = o[row.whole], o[row.part]
        at_row, at_col = int(o["index_row"]), int(o["index_col"])
        scalar_path = window_bounds is not WindowBounds.WHOLE_VALID and part.type.valid_shape == (1, 1)
        fault = _window_fault(window_bounds, whole, row.whole, part, at_row, at_col, scalar_path)
        if fault is not None:
            raise RuntimeFault(fault)
        rows, cols = part.valid_shape
        if row.whole == "src":
            part.write(rows, cols, whole.values[..., at_row : at_row + rows, at_col : at_col + cols])
        else:
            window = np.zeros(whole.type.shape, bool)
            window[at_row : at_row + rows, at_col : at_col + cols] = True
            whole.flat[..., storage_offsets(whole.type)[window]] = part.read_valid().reshape(*part.flat.shape[:-1], -1)

    return kernel


class WindowBase(FamilyLoweredOp):
    """A window copy as its target bounds the position (window_bounds)."""


def _window_cce(row: WindowCopy) -> CostFn:
    def cost(op: LoweredOp, o: dict, machine: CceMachine, work: Work) -> OpCost:
        """npu/a2a3/TExtract.hpp, TInsert.hpp: a 1x1 window one scalar move between two flag
        pairs; else one copy_ubuf_to_ubuf of the window's rows' whole 32-byte blocks, and for a
        tail of a block set_mask_count, set_vector_mask, a vcopy per 255 rows and the two resets."""
        part = o[row.part]
        t = machine.trace()
        if (part.valid_row, part.valid_col) == (1, 1):
            t.call(5)  # set_flag, wait_flag, the move, set_flag, wait_flag
            return t.cost(Pipe.VECTOR, exact=True, idle=machine.idle_vector, elements=1)
        row_bytes = part.valid_col * part.elem.bytes
        aligned = row_bytes // BLOCK_BYTES * BLOCK_BYTES
        if aligned:
            t.dma(DmaPath.UB_TO_UB, part.valid_row * aligned)
        if row_bytes - aligned:
            t.call(2)
            t.vector("vcopy", repeat=min(part.valid_row, 255))
            if part.valid_row > 255:
                t.vector("vcopy", repeat=part.valid_row - 255)
            t.call(2)
        return t.cost(Pipe.VECTOR, exact=True, idle=machine.idle_vector, elements=part.valid_row * part.valid_col)

    return cost


def _window_vf(row: WindowCopy) -> CostFn:
    def cost(op: LoweredOp, o: dict, machine: VfMachine, work: Work) -> OpCost:
        """npu/a5/TExtract.hpp, TInsert.hpp: the window's valid columns whole 32-byte blocks: one
        copy_ubuf_to_ubuf (priced by bytes); else a vector function with a load and a store per
        register of each valid row (the position's alignment unknown to the model)."""
        part = o[row.part]
        size = part.elem.bytes
        if part.valid_col * size % BLOCK_BYTES == 0:
            nbytes = part.valid_row * part.valid_col * size
            return machine.cost(Pipe.VECTOR, nbytes, machine.dma.cycles(DmaPath.UB_TO_UB, nbytes))
        registers = part.valid_row * vector_repeats(part.valid_col, size)
        return machine.cost(Pipe.VECTOR, 0, machine.vector_function({"vlds": registers, "vsts": registers}))

    return cost


def _window_simulated(row: WindowCopy) -> CostFn:
    def cost(op: LoweredOp, o: dict, machine: SimulatorMachine, work: Work) -> OpCost:
        """pto-isa cpu/TExtract.hpp, TInsert.hpp: a loop over the window's valid elements."""
        part = o[row.part]
        return machine.cost(Pipe.VECTOR, 0, part.valid_row * part.valid_col)

    return cost


@dataclass(frozen=True)
class WindowCopy(Member):
    """TEXTRACT or TINSERT: which tile the position indexes."""

    whole: str = field(kw_only=True)
    part: str = field(kw_only=True)


def declare_window(row: WindowCopy) -> Instruction:
    op = member_op(WindowOp, row, WHOLE=row.whole, PART=row.part)
    lowered = member_lowered_base(WindowBase, op, row, window_kernel(row), None)
    cost = InstructionCost(on={CceMachine: _window_cce(row), VfMachine: _window_vf(row), SimulatorMachine: _window_simulated(row)})
    return member_instruction(
        row, lowered, rules=WindowRules, check_rule=window_check(row), docs_table=window_describe, emit=dst_first(row.cpp_name),
        cost=cost, in_place=WINDOW_IN_PLACE if row.whole == "src" else {},
    )


def _window_at_origin(op: WindowOp) -> str | None:
    position = [constant_index(op.operand(role)) for role in ("index_row", "index_col")]
    return None if position == [0, 0] else f"the window is at {position} (a constant (0, 0) copies each element onto itself)"


WINDOW_IN_PLACE = {
    "": InPlace(
        frozenset(), how="", refused="dst over src is not shown safe by the code: rejected.", leading=_window_at_origin,
        leading_how="at window (0, 0), every element is copied onto its own bytes, whatever order the code copies "
        "them in (PyPTO extracts a tile's first columns into a tile at its address).",
    )
}
"""TEXTRACT's src under dst: only at window (0, 0)."""


WINDOW_COPIES = Family.of(
    "window copy",
    (
        WindowCopy("textract", "dst = src[indexRow : + dst's valid rows, indexCol : + its valid cols]",
                   choices={"window_bounds": WindowBounds}, whole="src", part="dst"),
        WindowCopy("tinsert", "dst[indexRow : + src's valid rows, indexCol : + its valid cols] = src's valid region",
                   choices={"window_bounds": WindowBounds}, whole="dst", part="src"),
    ),
    declare_window,
)
"""TEXTRACT and TINSERT, Vec to Vec."""
TEXTRACT, TINSERT = WINDOW_COPIES.instructions


# ---------------------------------------------------------------------------
# TCONCAT


@irdl_op_definition
class TConcatOp(taking("src0", "src1")):
    """dst = src0's valid columns, then src1's, in each valid row."""

    name = "pto.tconcat"

    def verify_operands(self) -> None:
        dst = self.expect_tile("dst", self.destinations[0])
        for role, value in zip(("src0", "src1"), self.ins):
            same_element_type(role, self.expect_tile_in(role, value).element_type, "dst", dst.element_type)


@dataclass(frozen=True)
class TConcatRules(RuleRow):
    types: frozenset[str]
    row_major: bool
    """Every tile row-major ND (else any layouts, element by element)."""
    exact_cols: bool
    """dst's valid columns are src0's plus src1's (else they fit in dst's columns)."""
    note: str

    def check(self, operands: dict, attrs: Mapping[str, Attribute]) -> None:
        src0, src1, dst = operands["src0"], operands["src1"], operands["dst"]
        for tile in (src0, src1, dst):
            require(tile.loc == "vec", f"expects {tile.role} to be a Vec tile (loc=vec), got loc={tile.loc}")
            if self.row_major:
                require(tile.is_nd, f"expects {tile.role} to be row-major ND, got {_layout(tile)}")
        require_type("dst", dst.elem, self.types)
        if known(src0.valid_row, src1.valid_row, dst.valid_row):
            require(
                src0.valid_row == dst.valid_row == src1.valid_row,
                f"expects src0, src1 and dst to have the same valid rows, got {src0.valid_row}, {src1.valid_row} and "
                f"{dst.valid_row}",
            )
        if not known(src0.valid_col, src1.valid_col):
            return
        total = src0.valid_col + src1.valid_col
        if self.exact_cols:
            if known(dst.valid_col):
                require(
                    total == dst.valid_col,
                    f"expects dst valid cols to be src0's plus src1's, got {dst.valid_col} and {src0.valid_col} + "
                    f"{src1.valid_col}",
                )
        else:
            require(
                total <= dst.cols,
                f"expects src0's and src1's valid cols to fit in dst's cols, got {src0.valid_col} + {src1.valid_col} > "
                f"{dst.cols}",
            )

    DOCS: ClassVar[DocsCells] = (
        ("element types (all three alike)", lambda r: spell(r.types)),
        ("layouts", lambda r: "row-major ND" if r.row_major else "any"),
        ("valid shapes", lambda r: "one valid row count; dst's valid cols "
         + ("are src0's plus src1's" if r.exact_cols else "not read: src0's plus src1's fit in dst's cols")),
        ("why", lambda r: r.note),
    )


def tconcat_kernel(o: dict, *, concat_copy: ConcatCopy) -> None:
    src0, src1, dst = o["src0"], o["src1"], o["dst"]
    rows, cols0, cols1 = dst.valid_row, src0.valid_col, src1.valid_col
    if concat_copy is not ConcatCopy.UB_BLOCKS:
        dst.write(rows, cols0 + cols1, np.concatenate(
            [src0.values[..., :rows, :cols0], src1.values[..., :rows, :cols1]], axis=-1))
        return
    # row-major ND tiles: storage i * Cols + j; a row's blocks past its end run on into the next
    blocks0 = _whole_blocks(cols0, dst)
    _copy_rows(dst, 0, src0, rows, blocks0)
    blocks1 = _whole_blocks(cols1, dst) if cols0 % (BLOCK_BYTES // dst.flat.dtype.itemsize) == 0 else cols1
    _copy_rows(dst, cols0, src1, rows, blocks1)


def _copy_rows(dst: Tile, at: int, src: Tile, rows: int, cols: int) -> None:
    """dst's storage from column `at` of each of `rows` rows, `cols` elements, from src's rows
    (each row at its tile's row stride), row after row."""
    rows_at = np.arange(rows)[:, None]
    within = np.arange(cols)[None, :]
    dst_index = (rows_at * dst.type.shape[1] + at + within).ravel()
    src_index = (rows_at * src.type.shape[1] + within).ravel()
    inside = (dst_index < dst.flat.shape[-1]) & (src_index < src.flat.shape[-1])
    dst.flat[..., dst_index[inside]] = src.flat[..., src_index[inside]]


TConcatBase = lowered_base(TConcatOp, tconcat_kernel, "dst = [src0 | src1] over the valid rows.", concat_copy=ConcatCopy.Attr)


def _tconcat_cce(op: LoweredOp, o: dict, machine: CceMachine, work: Work) -> OpCost:
    """npu/a2a3/TConcat.hpp: a copy_ubuf_to_ubuf per valid row of src0's valid columns' blocks;
    then one per row of src1's when src0's valid columns end on a block, else a scalar store
    per element of src1's valid region (a flag pair before)."""
    src0, src1, dst = o["src0"], o["src1"], o["dst"]
    rows, size = dst.valid_row, dst.elem.bytes
    t = machine.trace()
    t.dma(DmaPath.UB_TO_UB, -(-src0.valid_col * size // BLOCK_BYTES) * BLOCK_BYTES, times=rows)
    if src0.valid_col * size % BLOCK_BYTES == 0:
        t.dma(DmaPath.UB_TO_UB, -(-src1.valid_col * size // BLOCK_BYTES) * BLOCK_BYTES, times=rows)
    else:
        t.call(4 + rows * src1.valid_col)
    return t.cost(Pipe.VECTOR, exact=True, idle=machine.idle_vector, elements=rows * dst.valid_col)


def _tconcat_vf(op: LoweredOp, o: dict, machine: VfMachine, work: Work) -> OpCost:
    """npu/a5/TConcat.hpp: one vector function; per valid row, per register of src0 a
    predicate, a load and a store; of src1 a predicate, a load, vci and vscatter (priced as
    the gather's fallback, which vscatter's lacks)."""
    src0, src1, dst = o["src0"], o["src1"], o["dst"]
    first, second = (dst.valid_row * vector_repeats(t.valid_col, dst.elem.bytes) for t in (src0, src1))
    body = {"plt": first + second, "vlds": first + second, "vsts": first, "vci": second, "vgather2": second}
    return machine.cost(Pipe.VECTOR, 0, machine.vector_function(body))


def _tconcat_simulated(op: LoweredOp, o: dict, machine: SimulatorMachine, work: Work) -> OpCost:
    """pto-isa cpu/TConcat.hpp: a loop over both valid regions."""
    src0, src1, dst = o["src0"], o["src1"], o["dst"]
    return machine.cost(Pipe.VECTOR, 0, dst.valid_row * (src0.valid_col + src1.valid_col))


TCONCAT = Instruction(
    rules=TConcatRules,
    lowered=(TConcatBase,),
    emit=dst_first("TCONCAT"),
    cost=InstructionCost(on={CceMachine: _tconcat_cce, VfMachine: _tconcat_vf, SimulatorMachine: _tconcat_simulated}),
)
