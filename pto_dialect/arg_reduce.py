"""
What the arg-reductions (TCOLARGMIN, TCOLARGMAX, TROWARGMIN, TROWARGMAX) share beyond their
op: the rule-row fields on element types and tmp and their checks, and the search each
target runs for the extreme (the keys it compares, the first minimum per NaN policy).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from math import ceil
from typing import ClassVar

from xdsl.ir import Operation, SSAValue
from xdsl.utils.str_enum import StrEnum

from pto_dialect.choices import ArgCompare, NanPolicy
from pto_dialect.dtypes import FLOAT_DTYPE_NAMES
from pto_dialect.facts import TileFacts, known, require, spell
from pto_dialect.machine import Footprint, np, rect
from pto_dialect.ops.memory import AllocTileOp, alloc_like, smallest_tile
from pto_dialect.vector import BLOCK_BYTES, REPEAT_BYTES, vector_repeats

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


def outputs_footprint(o: dict, src_reads: np.ndarray, kept: int) -> Footprint:
    """An arg-reduction's footprint: it reads `src_reads` of src, writes dstIdx (and dstVal) over
    src's valid extent along dim `kept` (0: rows, 1: columns) and 1 along the other."""
    src, dst_val = o["src"], o.get("dstVal")
    dst_idx = o.get("dstIdx") or o["dst"]
    rows, cols = (src.valid_row, 1) if kept == 0 else (1, src.valid_col)
    tiles = [(src, False, src_reads), (dst_idx, True, rect(dst_idx, rows, cols))]
    if dst_val is not None:
        tiles.append((dst_val, True, rect(dst_val, rows, cols)))
    return Footprint(tiles, [])


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


def min_tmp_cols(src: TileFacts) -> int:
    """The a2a3 tmp width PTOAS requires: R = 2048/bits, B = 256/bits, rep = ceil(V/R),
    S = (ceil(2*rep/B) + ceil(rep/B)) * B; f32 V=256 -> 16, f16 V=300 -> 32, f32 V=1024 -> 48."""
    per_block = BLOCK_BYTES // src.elem.bytes
    rep = vector_repeats(src.valid_col, src.elem.bytes)
    return (ceil(2 * rep / per_block) + ceil(rep / per_block)) * per_block


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


TMP_ADDED = {
    TmpAdded.LIKE_SRC: "src's type, shape and valid shape",
    TmpAdded.SMALLEST: "1 x 32 bytes of src's type",
    TmpAdded.NONE: "none",
}
"""The docs' words for the tmp `pto-materialize-implicit-tmp` adds."""


def added_tmp(op: Operation, src: SSAValue, tmp: SSAValue | None, how: TmpAdded) -> AllocTileOp | None:
    """The tmp pto-materialize-implicit-tmp adds to `op` where it omits one (`tmp` None): a tile
    like src, the smallest tile of src's type, or none."""
    if tmp is not None or how is TmpAdded.NONE:
        return None
    if how is TmpAdded.LIKE_SRC:
        return alloc_like(op, src)
    return AllocTileOp(smallest_tile(src.type))  # pyright: ignore[reportArgumentType]


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


# ---------------------------------------------------------------------------
# The search


class Extreme(StrEnum):
    """Which end an arg-reduction looks for."""

    MIN = "min"
    MAX = "max"


class SearchesExtreme:
    """A lowered arg-reduction: its class states the extreme it searches for, which its
    kernel takes as `extreme` and its cost reads (the intrinsic it is priced as)."""

    EXTREME: ClassVar[Extreme]

    @classmethod
    def kernel_params(cls, op: object) -> dict[str, object]:
        return {"extreme": cls.EXTREME}


def flush_to_fp(bits: np.ndarray) -> np.ndarray:
    """16/32-bit patterns read as fp16/fp32 with denormals flushed to signed zero (a2a3)."""
    as_float = bits.view(np.float16 if bits.itemsize == 2 else np.float32)
    tiny = np.finfo(as_float.dtype).tiny
    return np.where(np.abs(as_float) < tiny, np.copysign(np.zeros((), as_float.dtype), as_float), as_float)


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
