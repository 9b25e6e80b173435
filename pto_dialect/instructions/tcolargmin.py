"""
TCOLARGMIN: the row index of each column's minimum, optionally with the minimum
(docs/isa: pto-isa's TCOLARGMIN.md). TCOLARGMAX (tcolargmax.py) is the same
instruction with the comparison reversed: this module holds what they share.

      dstIdx[0, j] = argmin_{i < vr} src[i, j]        j < vc
      dstVal[0, j] = min_{i < vr} src[i, j]           (value+index form)

        pto.tcolargmin ins(%src[, %tmp] : Ts[, Tt]) outs(%dst : Ti)
        pto.tcolargmin ins(%src[, %tmp] : Ts[, Tt]) outs(%dstVal, %dstIdx : Tv, Ti)
        %i = pto.tcolargmin %src[, %tmp] : (Ts[, Tt]) -> Ti
        %v, %i = pto.tcolargmin %src[, %tmp] : (Ts[, Tt]) -> (Tv, Ti)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from math import ceil
from typing import ClassVar

from xdsl.ir import SSAValue
from xdsl.irdl import irdl_op_definition, prop_def
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from pto_dialect.cost import CceMachine, DmaPath, InstructionCost, OpCost, SimulatorMachine, VfMachine, Work
from pto_dialect.choices import Choice, ArgCompare, ArgCompareAttr, NanPolicy, NanPolicyAttr, RowCounter, RowCounterAttr, SrcRead, SrcReadAttr
from pto_dialect.dtypes import FLOAT_DTYPE_NAMES
from pto_dialect.facts import TileFacts, known, per_target, require, require_type, spell
from pto_dialect.instruction import AsmForm, Emission, InPlace, Instruction, Pipe
from pto_dialect.lowered import LoweredOp
from pto_dialect.machine import Footprint, Tile, np, rect, valid_rect
from pto_dialect.ops.common import PtoInstructionOp, operand_of_role, Roles, same_element_type
from pto_dialect.ops.memory import AllocTileOp, alloc_like, smallest_tile

# ---------------------------------------------------------------------------
# The op


class ColArgReduceOp(PtoInstructionOp):
    """A column arg-reduction: TCOLARGMIN or TCOLARGMAX (their operands and checks)."""

    WORKSPACE: ClassVar[frozenset[str]] = frozenset({"tmp"})

    FORMS: ClassVar[tuple[tuple[int, int], ...]] = ((1, 1), (2, 1), (1, 2), (2, 2))
    BUILDER_NAMES: ClassVar[dict[str, str]] = {"dst": "dst_idx"}  # the index output, with or without dstVal

    @classmethod
    def operand_roles(cls, n_ins: int, n_outs: int) -> Roles:
        return ("src", "tmp")[:n_ins], ("dstVal", "dstIdx") if n_outs == 2 else ("dst",)

    src = operand_of_role("src")
    tmp = operand_of_role("tmp", optional=True)

    @property
    def dst_idx(self) -> SSAValue:
        return self.destinations[-1]  # "dst" or "dstIdx": always the last

    dst_val = operand_of_role("dstVal", optional=True)

    def verify_(self) -> None:
        word = self.name.removeprefix("pto.")
        self.verify_dps_or_ssa()
        if len(self.ins) not in (1, 2):
            raise VerifyException(f"expects {word} ins(src[, tmp])")
        if len(self.destinations) not in (1, 2):
            raise VerifyException(f"expects {word} outs(dstIdx) or outs(dstVal, dstIdx)")
        src = self.expect_tile_in("src", self.src)
        if self.tmp is not None:
            self.expect_tile_in("tmp", self.tmp)
        self.expect_tile("dstIdx" if self.dst_val is not None else "dst", self.dst_idx)
        if self.dst_val is not None:
            val = self.expect_tile("dstVal", self.dst_val)
            same_element_type("dstVal", val.element_type, "src", src.element_type)


@irdl_op_definition
class TColArgMinOp(ColArgReduceOp):
    """Row index of each column's minimum (first minimum wins), optionally with the value."""

    name = "pto.tcolargmin"


# ---------------------------------------------------------------------------
# What each target accepts


class TmpAdded(StrEnum):
    """The tmp `pto-materialize-implicit-tmp` adds where the op omits it."""

    LIKE_SRC = "like_src"
    """src's type, shape and valid shape: always legal (a2a3 uses tmp)."""
    SMALLEST = "smallest"
    """1 x 32 bytes of src's type: the tmp is unused."""
    NONE = "none"
    """Nothing: the target takes no tmp."""


@dataclass(frozen=True)
class ArgReduceTypes:
    """What one target's rule row of an arg-reduction (row or column) says on element types and tmp."""

    src_types: frozenset[str]
    index_types: frozenset[str]
    """dstIdx element types, index-only form."""
    value_index_types_by_src_bytes: dict[int, frozenset[str]]
    """dstIdx element types with a dstVal, per src element width (absent width: rejected)."""
    implicit_tmp: TmpAdded
    note: str


@dataclass(frozen=True)
class ColArgReduceRules(ArgReduceTypes):
    """One target's TCOLARGMIN / TCOLARGMAX rules."""

    value_form_src_blayouts: tuple[str, ...]
    tmp_same_type: bool
    """tmp holds src-typed values and must be large enough (a2a3)."""


REPEAT_BYTES = 256
"""One vector repeat (REPEAT_BYTE) or register (CCE_VL) of pto-isa."""
BLOCK_BYTES = 32
"""One UB block (BLOCK_BYTE_SIZE)."""


def vector_repeats(count: int, elem_bytes: int) -> int:
    """The repeats (a5: registers) `count` elements of `elem_bytes` take: ceil(count / (REPEAT_BYTES / elem_bytes))."""
    return -(-count // (REPEAT_BYTES // elem_bytes))


def min_tmp_cols(src: TileFacts) -> int:
    """The a2a3 tmp width PTOAS requires: R = 2048/bits, B = 256/bits, rep = ceil(V/R),
    S = (ceil(2*rep/B) + ceil(rep/B)) * B; f32 V=256 -> 16, f16 V=300 -> 32, f32 V=1024 -> 48."""
    per_block = BLOCK_BYTES // src.elem.bytes
    rep = vector_repeats(src.valid_col, src.elem.bytes)
    return (ceil(2 * rep / per_block) + ceil(rep / per_block)) * per_block


def check(rules: ColArgReduceRules, operands: dict, attrs: object, target: str) -> None:
    src, tmp, dst_val = operands["src"], operands.get("tmp"), operands.get("dstVal")
    dst_idx = operands.get("dstIdx") or operands["dst"]
    require(src.loc == "vec", f"expects src to be a Vec tile (loc=vec), got loc={src.loc}")
    require(src.slayout == "none_box", f"expects src to use the none_box slayout, got {src.slayout}")
    require_type("src", src.elem, rules.src_types)
    outs = [dst_idx] if dst_val is None else [dst_val, dst_idx]
    for t in outs:
        require(t.loc == "vec", f"expects {t.role} to be a Vec tile (loc=vec), got loc={t.loc}")
        require(t.is_nd, f"expects {t.role} to use the row-major ND layout, got {t.layout_text()}")
        check_output_shape(t, src, kept=1)
    if known(src.valid_row):
        require(src.valid_row != 0, "expects src valid_shape[0] to be non-zero")
    if known(src.valid_col):
        require(src.valid_col != 0, "expects src valid_shape[1] to be non-zero")
    if dst_val is None:
        require_type(dst_idx.role, dst_idx.elem, rules.index_types)
    else:
        check_value_index_types(rules.value_index_types_by_src_bytes, src, dst_idx)
        require(
            src.blayout in rules.value_form_src_blayouts,
            f"expects src to use blayout {' or '.join(rules.value_form_src_blayouts)} in value+index mode, got {src.blayout}",
        )
    if tmp is not None:
        _check_tmp(rules, src, tmp)


def check_output_shape(out: TileFacts, src: TileFacts, kept: int) -> None:
    """An arg-reduction output's valid shape: src's along dim `kept` (0: rows, 1: columns), 1 along the other."""
    reduced = 1 - kept
    dims, src_dims = (out.valid_row, out.valid_col), (src.valid_row, src.valid_col)
    if known(dims[reduced]):
        require(dims[reduced] == 1, f"expects {out.role} valid_shape[{reduced}] to be 1, got {dims[reduced]}")
    if known(dims[kept], src_dims[kept]):
        require(
            dims[kept] == src_dims[kept],
            f"expects src and {out.role} to have the same valid_shape[{kept}], got {src_dims[kept]} and {dims[kept]}",
        )


def check_value_index_types(by_width: dict[int, frozenset[str]], src: TileFacts, dst_idx: TileFacts) -> None:
    """A value+index form's src width and index type (an arg-reduction's rule row lists them)."""
    allowed = by_width.get(src.elem.bytes)
    require(
        allowed is not None,
        f"expects a {'/'.join(map(str, sorted(by_width)))}-byte src in value+index mode, "
        f"got {src.elem.mlir} ({src.elem.bytes} byte)",
    )
    assert allowed is not None
    require(
        dst_idx.elem.mlir in allowed,
        f"expects dstIdx element type to be {spell(allowed)} for a {src.elem.bytes}-byte src "
        f"in value+index mode, got {dst_idx.elem.mlir}",
    )


def require_tmp_width(src: TileFacts, tmp: TileFacts) -> None:
    """a2a3's tmp row: at least PTOAS's stride (min_tmp_cols) when both widths are known."""
    need = min_tmp_cols(src)
    if known(tmp.valid_col, src.valid_col):
        require(
            tmp.valid_col >= need,
            f"expects tmp valid_shape[1] to be at least {need} for src valid_shape[1] = "
            f"{src.valid_col}, got {tmp.valid_col}",
        )


def _check_tmp(rules: ColArgReduceRules, src: TileFacts, tmp: TileFacts) -> None:
    require(tmp.loc == "vec", f"expects tmp to be a Vec tile (loc=vec), got loc={tmp.loc}")
    require(tmp.blayout == "row_major", f"expects tmp to use the row_major blayout, got {tmp.blayout}")
    if not rules.tmp_same_type:
        return
    require(
        tmp.elem.mlir == src.elem.mlir,
        f"expects src and tmp to have the same element type, got {src.elem.mlir} and {tmp.elem.mlir}",
    )
    require(
        tmp.size_bytes >= 32,
        f"expects tmp capacity to be at least 32 bytes, but got {tmp.size_bytes} bytes",
    )
    same_valid = (tmp.valid_row, tmp.valid_col) == (src.valid_row, src.valid_col)
    if same_valid or not known(src.valid_col, tmp.valid_row, tmp.valid_col):
        return
    require(tmp.valid_row >= 1, f"expects tmp valid_shape[0] to be at least 1, got {tmp.valid_row}")
    require_tmp_width(src, tmp)


TMP_ADDED = {
    TmpAdded.LIKE_SRC: "src's type, shape and valid shape",
    TmpAdded.SMALLEST: "1 x 32 bytes of src's type",
    TmpAdded.NONE: "none",
}
"""The docs' words for the tmp `pto-materialize-implicit-tmp` adds."""


def type_cells(src_layout: str) -> list[tuple[str, Callable[..., str]]]:
    """The docs rows on an arg-reduction's element types (its rule row's fields)."""
    return [
        ("src element type", lambda r: spell(r.src_types)),
        ("src layout", lambda r: src_layout),
        ("dst (index-only) element type", lambda r: spell(r.index_types)),
        ("value+index: dstIdx element type per src width",
         lambda r: "; ".join(f"{b} B: {spell(s)}" for b, s in sorted(r.value_index_types_by_src_bytes.items()))
         + "; other widths: rejected"),
    ]


def describe(t: dict[str, ColArgReduceRules]) -> list[tuple[str, dict[str, str]]]:
    return per_target(t, [
        *type_cells("vec, none_box, row- or col-major"),
        ("value+index: src blayout", lambda r: ", ".join(r.value_form_src_blayouts)),
        ("outputs: vec ND, valid [1, src valid cols]; src valid dims non-zero", lambda r: "yes"),
        ("tmp", lambda r: "vec, row_major, src's type, >= 32 B, wide enough unless same valid shape as src"
         if r.tmp_same_type else "vec, row_major; unused"),
        ("tmp added when omitted (pto-materialize-implicit-tmp)", lambda r: TMP_ADDED[r.implicit_tmp]),
        ("why", lambda r: r.note),
    ])


def implicit_tmp(op: ColArgReduceOp, rules: ColArgReduceRules) -> AllocTileOp | None:
    if op.tmp is not None:
        return None
    match rules.implicit_tmp:
        case TmpAdded.LIKE_SRC:
            return alloc_like(op, op.src)
        case TmpAdded.SMALLEST:
            return AllocTileOp(smallest_tile(op.src.type))  # pyright: ignore[reportArgumentType]
        case TmpAdded.NONE:
            return None


# ---------------------------------------------------------------------------
# The choices a target makes


TYPED_COMPARISON: dict[str, Choice] = {
    "compare": ArgCompare.NATIVE,
    "nan": NanPolicy.FIRST_STICKS,
    "row_counter": RowCounter.EXACT,
    "src_read": SrcRead.LAYOUT,
}
"""A typed comparison over the layout: the CPU simulator's and a5's choices."""


# ---------------------------------------------------------------------------
# The kernel


class Extreme(StrEnum):
    """Which end an arg-reduction looks for."""

    MIN = "min"
    MAX = "max"


def flush_to_fp(bits: np.ndarray) -> np.ndarray:
    """16/32-bit patterns read as fp16/fp32 with denormals flushed to signed zero (a2a3)."""
    as_float = bits.view(np.float16 if bits.itemsize == 2 else np.float32)
    tiny = np.finfo(as_float.dtype).tiny
    return np.where(np.abs(as_float) < tiny, np.copysign(np.zeros((), as_float.dtype), as_float), as_float)


def valid_values(tile: Tile, src_read: SrcRead) -> np.ndarray:
    """A tile's valid region as the target reads it: through its layout, or its storage
    addressed as if it were row-major (a2a3 reads a DN src so)."""
    match src_read:
        case SrcRead.LAYOUT:
            return tile.read_valid()
        case SrcRead.ROW_MAJOR_STORAGE:
            rows, cols = tile.type.shape
            return tile.flat.reshape(*tile.flat.shape[:-1], rows, cols)[..., : tile.valid_row, : tile.valid_col]


def valid_reads(tile: Tile, src_read: SrcRead) -> np.ndarray:
    """The elements valid_values reads, for a Footprint."""
    match src_read:
        case SrcRead.LAYOUT:
            return valid_rect(tile)
        case SrcRead.ROW_MAJOR_STORAGE:
            cols = tile.type.shape[1]
            return (np.arange(tile.valid_row)[:, None] * cols + np.arange(tile.valid_col)[None, :]).reshape(-1)


def extreme_keys(x: np.ndarray, extreme: Extreme, compare: ArgCompare) -> np.ndarray:
    """What a target compares, ordered so that the extreme wanted is the minimum: the values
    (or their fp16/fp32 reading), negated for a maximum (~k = -k - 1 never overflows)."""
    match compare:
        case ArgCompare.NATIVE:
            keys = x
        case ArgCompare.FP_BITS:
            keys = flush_to_fp(x)
    if extreme == Extreme.MAX:
        keys = -keys if keys.dtype.name in FLOAT_DTYPE_NAMES else ~keys
    return keys


def first_minimum(keys: np.ndarray, nan: NanPolicy) -> tuple[np.ndarray, np.ndarray]:
    """(index, found) of the minimum along the last axis, as the target's search finds it;
    `found` is False where the search keeps its initial value (index 0, a NaN-free start)."""
    n = keys.shape[-1]
    found = np.ones(keys.shape[:-1], dtype=bool)
    if n == 1:
        return np.zeros(keys.shape[:-1], dtype=np.int64), found
    floats = keys.dtype.name in FLOAT_DTYPE_NAMES
    match nan:
        case NanPolicy.PROPAGATES:
            # cur = x[0]; for i >= 1: if not (cur <= x[i]): idx = i; cur = min(cur, x[i])
            running = np.minimum.accumulate(keys, axis=-1)
            replaces = ~(running[..., :-1] <= keys[..., 1:])
            idx = np.where(replaces.any(axis=-1), n - 1 - np.argmax(replaces[..., ::-1], axis=-1), 0)
        case NanPolicy.FIRST_STICKS if floats:
            idx = np.where(np.isnan(keys[..., 0]), 0, np.argmin(np.where(np.isnan(keys), np.inf, keys), axis=-1))
        case NanPolicy.FIRST_NAN_WINS if floats:
            nans = np.isnan(keys)
            idx = np.where(nans.any(axis=-1), np.argmax(nans, axis=-1), np.argmin(np.where(nans, np.inf, keys), axis=-1))
        case NanPolicy.NAN_CHUNK_SKIPPED:
            idx, found = _chunked_minimum(keys)
        case NanPolicy.FIRST_STICKS | NanPolicy.FIRST_NAN_WINS:
            idx = np.argmin(keys, axis=-1)
    return idx, found


def _chunked_minimum(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """a5's row search: each 256-byte chunk reduced on its own (a NaN in it makes its result
    NaN), then `best = chunk` only where the chunk's minimum is strictly below the best so far,
    starting from the type's top (+inf, the integer maximum)."""
    n = keys.shape[-1]
    chunk = REPEAT_BYTES // keys.itemsize
    chunks = -(-n // chunk)
    floats = keys.dtype.name in FLOAT_DTYPE_NAMES
    top = np.inf if floats else np.iinfo(keys.dtype).max
    padded = np.full((*keys.shape[:-1], chunks * chunk), top, dtype=keys.dtype)
    padded[..., :n] = keys
    blocks = padded.reshape(*keys.shape[:-1], chunks, chunk)
    minima = blocks.min(axis=-1)  # NaN where the chunk holds one: never strictly below the best
    eligible = ~np.isnan(minima) if floats else np.ones(minima.shape, bool)
    best = np.where(eligible, minima, top).min(axis=-1)
    found = best < top
    first_chunk = np.argmax(eligible & (minima == best[..., None]), axis=-1)
    chosen = np.take_along_axis(blocks, first_chunk[..., None, None], axis=-2)[..., 0, :]
    return np.where(found, first_chunk * chunk + np.argmin(chosen, axis=-1), 0), found


def col_arg_reduce_kernel(o: dict, *, extreme: Extreme, compare: ArgCompare, nan: NanPolicy, row_counter: RowCounter,
                   src_read: SrcRead) -> None:
    """Per column: the row of the minimum (maximum), rows being axis -2 (a leading iteration
    axis rides along)."""
    src, dst_val = o["src"], o.get("dstVal")
    dst_idx = o.get("dstIdx") or o["dst"]
    x = valid_values(src, src_read)
    vr, vc = x.shape[-2:]
    idx, _ = first_minimum(extreme_keys(x, extreme, compare).swapaxes(-1, -2), nan)
    match row_counter:
        case RowCounter.EXACT:
            pass
        case RowCounter.F16:
            idx = idx.astype(np.float16).astype(np.int64)
    dst_idx.write(1, vc, idx.astype(dst_idx.flat.dtype)[..., None, :])
    if dst_val is not None:
        dst_val.write(1, vc, np.take_along_axis(x, np.minimum(idx, vr - 1)[..., None, :], axis=-2))


def footprint(o: dict, *, src_read: SrcRead, **_: object) -> Footprint:
    src, dst_val = o["src"], o.get("dstVal")
    dst_idx = o.get("dstIdx") or o["dst"]
    vc = src.valid_col
    tiles = [(src, False, valid_reads(src, src_read)), (dst_idx, True, rect(dst_idx, 1, vc))]
    if dst_val is not None:
        tiles.append((dst_val, True, rect(dst_val, 1, vc)))
    return Footprint(tiles, [])


class ColArgReduceBase(LoweredOp):
    """idx[0, j] = first i < vr with src[i, j] extreme; val[0, j] = that value."""

    compare = prop_def(ArgCompareAttr)
    nan = prop_def(NanPolicyAttr)
    row_counter = prop_def(RowCounterAttr)
    src_read = prop_def(SrcReadAttr)


class TColArgMinBase(ColArgReduceBase):
    SOURCE: ClassVar[type[PtoInstructionOp]] = TColArgMinOp
    KERNEL = staticmethod(partial(col_arg_reduce_kernel, extreme=Extreme.MIN))
    FOOTPRINT = staticmethod(footprint)


# ---------------------------------------------------------------------------
# What it costs


def _compare_and_keep(extreme: Extreme) -> tuple[str, str]:
    match extreme:
        case Extreme.MIN:
            return "vcmp_le", "vmin"
        case Extreme.MAX:
            return "vcmp_ge", "vmax"


def _cce(op: ColArgReduceBase, o: dict, machine: CceMachine, work: Work) -> OpCost:
    """npu/a2a3/TColReduceIdx.hpp ProcessSingleBlock, per repeat-wide block of columns (the
    last one partial, in counter mode): two vector_dup, the first row copied (UB->UB; vcopy
    for the partial block), then per further row vadds, a compare, a barrier, vsel, the
    running extreme and a barrier; a 2-byte index-only src converts the indices (two vconv),
    a value+index form copies the values out."""
    src, t = o["src"], machine.trace()
    per_repeat = REPEAT_BYTES // src.elem.bytes
    compare, keep = _compare_and_keep(op.KERNEL.keywords["extreme"])
    with_values = o.get("dstVal") is not None

    def block(partial: bool) -> None:
        if partial:
            t.call(2)  # set_mask_count, set_vector_mask
        t.vector("vector_dup")
        t.vector("vector_dup")
        copy = (lambda: t.vector("vcopy")) if partial else (lambda: t.dma(DmaPath.UB_TO_UB, REPEAT_BYTES))
        copy()
        t.barrier()

        def row() -> None:
            t.vector("vadds")
            t.vector(compare)
            t.barrier()
            t.vector("vsel")
            t.vector(keep)
            t.barrier()

        t.loop(src.valid_row - 1, row)
        if src.elem.bytes == 2 and not with_values:
            t.vector("vconv_s162f16a")
            t.barrier()
            t.vector("vconv_f162s32a", repeat=2)
            t.barrier()
        if with_values:
            copy()
            t.barrier()
        if partial:
            t.call(2)  # set_mask_norm, set_vector_mask
            t.barrier()

    full, rest = divmod(src.valid_col, per_repeat)
    t.loop(full, lambda: block(partial=False))
    if rest:
        block(partial=True)
    return t.cost(Pipe.VECTOR, exact=False)


def _vf(op: ColArgReduceBase, o: dict, machine: VfMachine, work: Work) -> OpCost:
    """npu/a5/TColReduceIdx.hpp, one vector function: per register of columns a predicate,
    two vdup and the first row's vlds; per further row vadds, vlds, a compare and two vsel;
    then the index store (a 2-byte index-only src converts it in two parts; 1-byte data
    works on even and odd halves)."""
    src = o["src"]
    chunks = vector_repeats(src.valid_col, src.elem.bytes)
    rows = chunks * (src.valid_row - 1)
    with_values = o.get("dstVal") is not None
    if src.elem.bytes == 1:
        per_chunk = {"plt": 4, "vdup": 4, "vlds": 1, "vcvt": 6, "vintlv": 3, "vsts": 4}
        per_row = {"vadds": 2, "vlds": 1, "vcvt": 2, "vcmp": 2, "vsel": 4}
    else:
        per_chunk = {"plt": 1, "vdup": 2, "vlds": 1, "vsts": 1 + with_values}
        if src.elem.bytes == 2 and not with_values:
            per_chunk |= {"plt": 2, "vcvt": 2, "vintlv": 1, "vsts": 2}
        per_row = {"vadds": 1, "vlds": 1, "vcmp": 1, "vsel": 2}
    body = {"pset": 1}
    for counts, times in ((per_chunk, chunks), (per_row, rows)):
        for name, n in counts.items():
            body[name] = body.get(name, 0) + n * times
    return machine.cost(Pipe.VECTOR, 0, machine.vector_function(body))


def _simulated(op: ColArgReduceBase, o: dict, machine: SimulatorMachine, work: Work) -> OpCost:
    """pto-isa cpu/TColArgMin.hpp: a loop over every src valid element."""
    src = o["src"]
    return machine.cost(Pipe.VECTOR, 0, src.valid_row * src.valid_col)


COST = InstructionCost(on={CceMachine: _cce, VfMachine: _vf, SimulatorMachine: _simulated})


# ---------------------------------------------------------------------------
# C++


def emit(e: Emission, op: ColArgReduceOp) -> None:
    """`TCOLARGMIN(dstIdx, src, tmp)` or `TCOLARGMIN(dstVal, dstIdx, src, tmp)`."""
    tmp = e.require(op, "tmp")
    name = op.name.removeprefix("pto.").upper()
    e.issue(Pipe.VECTOR, [op.src], [*op.outs, tmp], e.call(name, [*op.outs, op.src, tmp]))


IN_PLACE = {
    "": InPlace(
        frozenset(),
        how="",
        refused="not shown safe by the code (running results are written while later src rows are read): rejected.",
    )
}


def col_arg_reduce(op: type[ColArgReduceOp], lowered: type[ColArgReduceBase]) -> Instruction:
    """TCOLARGMIN's declaration for a column arg-reduction op and its lowered op."""
    return Instruction(
        op=op,
        rules=ColArgReduceRules,
        check=check,
        describe=describe,
        lowered=(lowered,),
        emit=emit,
        pipe=Pipe.VECTOR,
        in_place=IN_PLACE,
        implicit_tmp=implicit_tmp,
        asm=AsmForm(),
        cost=COST,
    )


TCOLARGMIN = col_arg_reduce(TColArgMinOp, TColArgMinBase)
