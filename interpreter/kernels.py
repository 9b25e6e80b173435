"""
Whole-array NumPy implementations of the lowered instructions. Every target
choice arrives as an argument read from the lowered op's properties; nothing
here branches on a target name. Faults raise RuntimeFault with a message.

The kernels a batched loop runs (interpreter/batch.py: MGATHER row/elem, TGATHER
index/mask, TCOLARGMIN, a5's register gather) also take tiles and index arrays
with a leading iteration axis: they index trailing axes, and a data-dependent
fault names the first failing iteration with the message that iteration alone gives.
"""

from __future__ import annotations

from math import ceil, prod
from typing import NamedTuple

import numpy as np

from pto_dialect.attributes import CmpMode, GatherOob, MaskPattern
from pto_dialect.dtypes import ELEMENT_TYPES

from lowering.ops import Capacity, IndexRead, Stride

from interpreter.memory import GmView, RuntimeFault, Tile, first_failing, storage_offsets

C0_BYTES = 32
FRACTAL_NZ_ROW = 16
FLOAT_DTYPE_NAMES = frozenset(
    i.dtype_name for i in ELEMENT_TYPES.values() if i.family in ("float", "fp8")
)
"""Names of the NumPy dtypes with NaN (ml_dtypes' bf16 and fp8 have no kind 'f')."""

# ---------------------------------------------------------------------------
# MGATHER


def widen(idx: np.ndarray, read: IndexRead) -> np.ndarray:
    """Indices as the target reads them, unsigned: 64-bit (signed values sign-extend) or
    reinterpreted as uint32."""
    if read == IndexRead.UNSIGNED_32 and idx.dtype.itemsize == 4:
        return idx.view(np.uint32)
    wide = idx.astype(np.int64)
    if read == IndexRead.UNSIGNED_32:
        wide &= 0xFFFFFFFF
    return wide.view(np.uint64)


def capacity(which: Capacity, table: GmView) -> int:
    """The extent an index is bounded by, as the lowered op's `capacity` names it."""
    s = table.shape5
    if which == Capacity.S3:
        return s[3]
    if which == Capacity.S0_TO_S3:
        return s[0] * s[1] * s[2] * s[3]
    if which == Capacity.ALL_ELEMENTS:
        return prod(s)
    logical_rows = s[2] * FRACTAL_NZ_ROW
    if which == Capacity.NZ_ROWS:
        return logical_rows
    assert which == Capacity.NZ_ELEMENTS, which
    return logical_rows * s[0] * s[1] * (C0_BYTES // table.buffer.itemsize)


_UNSIGNED_MAX = {np.dtype(t): np.iinfo(t).max for t in (np.uint32, np.uint64)}


def remap(u: np.ndarray, cap: int, oob: GatherOob, entry_dims: int) -> tuple[np.ndarray, np.ndarray | None]:
    """Apply the OOB policy: (in-range indices, mask of entries to keep; None = all).

    `u` has `entry_dims` trailing axes: 1 (row mode: one index per dst row) or 2 (elem
    mode: idx[r, c]), after an iteration axis when batched."""
    if cap <= 0:
        raise RuntimeFault("the table has no rows to gather from (capacity 0)")
    if cap > _UNSIGNED_MAX[u.dtype]:  # every index is in range
        return u, None
    cap_u = u.dtype.type(cap)
    if oob == GatherOob.CLAMP:
        return np.minimum(u, cap_u - 1), None
    if oob == GatherOob.WRAP:
        return u % cap_u, None
    inside = u < cap_u
    if oob == GatherOob.ZERO:
        return np.where(inside, u, 0).astype(u.dtype, copy=False), inside
    if not inside.all():
        iteration, where = first_failing(~inside, u.ndim - entry_dims)
        place = f"for dst row {where[0]}" if entry_dims == 1 else f"at idx[{where[0]}, {where[1]}]"
        value = u[(iteration, *where) if iteration is not None else where]
        raise RuntimeFault(
            f"index {int(value)} {place} is out of bounds for a table capacity of {cap} "
            "(gatherOob = undefined)",
            iteration,
        )
    return u, None


def _read(buffer: np.ndarray, offsets: np.ndarray, entry_dims: int = 2) -> np.ndarray:
    """buffer[offsets], refusing to read outside the caller's array (`offsets` has
    `entry_dims` trailing axes per iteration)."""
    if offsets.size and (offsets.min() < 0 or offsets.max() >= buffer.size):
        iteration = None
        if offsets.ndim > entry_dims:  # batched: the first iteration reading outside
            per = offsets.reshape(offsets.shape[0], -1)
            iteration = int(np.argmax((per.min(axis=1) < 0) | (per.max(axis=1) >= buffer.size)))
            offsets = offsets[iteration]
        bad = int(offsets.max() if offsets.max() >= buffer.size else offsets.min())
        raise RuntimeFault(f"reads element {bad} of a GM buffer of {buffer.size} elements", iteration)
    return buffer[offsets]


def _zero_out(values: np.ndarray, keep: np.ndarray | None) -> np.ndarray:
    """values with the entries outside `keep` zeroed (in place)."""
    if keep is not None:
        values[~keep] = 0
    return values


def row_indices(idx: Tile | GmView, count: int) -> np.ndarray:
    """Row mode's idx_r, r < count: a [1, R] or [R, 1] tile, or a GM view's elements in order."""
    if isinstance(idx, GmView):
        return idx.read2d().reshape(-1)[:count]
    values = idx.read_valid()
    return (values[..., 0, :] if idx.valid_row == 1 else values[..., :, 0])[..., :count]


def stride(which: Stride, table: GmView, dst: Tile) -> int:
    """A row or column stride, as the lowered op's `row_stride` / `col_stride` names it."""
    if which == Stride.ONE:
        return 1
    if which == Stride.VALID_COLS:
        return dst.valid_col
    return table.strides5[3 if which == Stride.T3 else 4]


def strided_rows(buffer: np.ndarray, offset: int, rows: int, cols: int, row_stride: int, col_stride: int,
                 iteration: int | None = None) -> np.ndarray:
    """A rows x cols view of `buffer` (element strides), refusing to reach outside it."""
    last = offset + (rows - 1) * row_stride + (cols - 1) * col_stride
    if offset < 0 or last >= buffer.size or row_stride < 0 or col_stride < 0:
        raise RuntimeFault(f"reads up to element {last} of a GM buffer of {buffer.size} elements", iteration)
    size = buffer.itemsize
    return np.ndarray((rows, cols), buffer.dtype, buffer=buffer, offset=offset * size,
                      strides=(row_stride * size, col_stride * size))


def mgather_row(table, idx, dst, *, index_read, bound_by, row_stride, col_stride, oob) -> None:
    """dst[r, j] = table[base + remap(idx_r) * row_stride + j * col_stride], r < vr, j < vc."""
    vr, vc = dst.valid_shape
    cap = capacity(bound_by, table)
    rows, keep = remap(widen(row_indices(idx, vr), index_read), cap, oob, 1)
    if vr == 0 or vc == 0:
        return
    row_step, col_step = stride(row_stride, table, dst), stride(col_stride, table, dst)
    reach = cap  # rows < cap after remap; a table reaching past its buffer bounds by the rows used
    if table.offset + (cap - 1) * row_step + (vc - 1) * col_step >= table.buffer.size:
        used = rows.max(axis=-1) if rows.ndim > 1 else rows.max()  # batched: per iteration
        if rows.ndim > 1:  # the first iteration whose rows reach outside faults, as it alone would
            k = int(np.argmax(table.offset + used * row_step + (vc - 1) * col_step >= table.buffer.size))
            strided_rows(table.buffer, table.offset, int(used[k]) + 1, vc, row_step, col_step, iteration=k)
        reach = int(used.max()) + 1
    view = strided_rows(table.buffer, table.offset, reach, vc, row_step, col_step)
    out = dst.valid_view()
    if keep is None and out is not None and out.flags.c_contiguous and out.shape == (*rows.shape, vc):
        # straight into the tile; rows < reach, so mode="clip" changes nothing but spares take a buffer
        np.take(view, rows, axis=0, out=out, mode="clip")
        return
    values = np.take(view, rows, axis=0)
    if keep is not None:
        values[~keep] = 0
    dst.write_valid(values)


def elem_indices(idx: Tile | GmView, rows: int, cols: int) -> np.ndarray:
    """Elem mode's idx[r, c]: through the tile's layout, or at GM offset r*T3 + c."""
    if isinstance(idx, GmView):
        r = np.arange(rows, dtype=np.int64)[:, None]
        c = np.arange(cols, dtype=np.int64)[None, :]
        return _read(idx.buffer, idx.offset + r * idx.strides5[3] + c)
    return idx.values[..., :rows, :cols]


def mgather_elem(table, idx, dst, *, index_read, bound_by, oob) -> None:
    """dst[r, c] = table_flat[base + remap(idx[r, c])] (view strides ignored)."""
    vr, vc = dst.valid_shape
    flat, keep = remap(widen(elem_indices(idx, vr, vc), index_read), capacity(bound_by, table), oob, 2)
    values = _read(table.buffer, table.offset + flat.astype(np.int64))
    dst.write_valid(_zero_out(values, keep))


def nz_offset(x: np.ndarray, y: np.ndarray, n_rows: int, c0: int) -> np.ndarray:
    """Offset of logical (x, y) in an NZ matrix of n_rows rows (semantics.md §1.4)."""
    return (y // c0) * n_rows * c0 + x * c0 + (y % c0)


def mgather_nz(table, idx, dst, *, row_mode, index_read, bound_by, oob) -> None:
    """a2a3 NZ table into an NZ tile: logical rows LR = S2*16, logical cols LC = S0*S1*C0."""
    s = table.shape5
    c0 = C0_BYTES // table.buffer.itemsize
    n_rows, n_cols = s[2] * FRACTAL_NZ_ROW, s[0] * s[1] * c0
    vr, vc = dst.valid_shape
    cap = capacity(bound_by, table)
    if row_mode:
        rows, keep = remap(widen(row_indices(idx, vr), index_read), cap, oob, 1)
        x = rows.astype(np.int64)[:, None]
        y = np.arange(vc, dtype=np.int64)[None, :]
    else:
        flat, keep = remap(widen(elem_indices(idx, vr, vc), index_read), cap, oob, 2)
        x, y = np.divmod(flat.astype(np.int64), n_cols)
    values = _read(table.buffer, table.offset + nz_offset(x, y, n_rows, c0))
    if keep is None:
        dst.write_valid(values)
    elif row_mode:  # the kernel pre-fills the whole tile with 0, then skips the DMA of OOB rows
        dst.flat[:] = 0
        dst.write_valid(np.where(keep[:, None], values, np.zeros((), values.dtype)))
    else:
        dst.write_valid(_zero_out(values, keep))


def mgather_l1_row(table, idx, dst, *, index_read, bound_by, row_stride, oob) -> None:
    """GM -> L1 row mode: vc elements of table row remap(idx_r) into NZ tile row r."""
    if oob == GatherOob.ZERO:
        dst.flat[:] = 0
    vr, vc = dst.valid_shape
    rows, keep = remap(widen(row_indices(idx, vr), index_read), capacity(bound_by, table), oob, 1)
    offsets = (
        table.offset
        + rows.astype(np.int64)[:, None] * stride(row_stride, table, dst)
        + np.arange(vc, dtype=np.int64)[None, :]
    )
    values = _read(table.buffer, offsets)
    if keep is None:
        dst.write_valid(values)
    else:
        current = dst.read_valid().copy()
        current[keep] = values[keep]
        dst.write_valid(current)


def mgather_l1_elem(table, idx, scratch, dst, *, index_read, bound_by, oob) -> None:
    """GM -> L1 elem mode: gather into zero-filled GM scratch at NZ offsets, copy the
    whole image to L1 (every non-valid slot becomes 0; scratch keeps the image)."""
    vr, vc = dst.valid_shape
    flat, keep = remap(widen(elem_indices(idx, vr, vc), index_read), capacity(bound_by, table), oob, 2)
    values = _zero_out(_read(table.buffer, table.offset + flat.astype(np.int64)), keep)
    rows, cols = dst.type.shape
    c0 = C0_BYTES // dst.flat.itemsize
    image = np.zeros(rows * cols, dtype=dst.flat.dtype)
    r = np.arange(vr)[:, None]
    c = np.arange(vc)[None, :]
    image[nz_offset(r, c, rows, c0)] = values
    end = scratch.offset + rows * cols
    if end > scratch.buffer.size:
        raise RuntimeFault(f"scratch needs {rows * cols} elements, its GM buffer ends first")
    scratch.buffer[scratch.offset : end] = image
    dst.flat[:] = image


# ---------------------------------------------------------------------------
# TGATHER


def tgather_index(src: Tile, idx: Tile, dst: Tile, tmp: Tile | None, *, out_of_range: str, tmp_use: str) -> None:
    """dst[r, c] = src.elem(i div Cols, i mod Cols), i = idx[r, c] (padding is readable)."""
    vr, vc = dst.valid_shape
    offsets = idx.values[..., :vr, :vc].astype(np.int64)
    dst.write_valid(gather_src_elements(src, offsets, out_of_range, batched=idx.flat.ndim > 1))
    if _writes_byte_offsets(src, tmp, tmp_use):
        iv = idx.read_valid()
        tmp.write(iv.shape[-2], iv.shape[-1], (iv.astype(np.int64) * 2).astype(tmp.flat.dtype))


def _writes_byte_offsets(src: Tile, tmp: Tile | None, tmp_use: str) -> bool:
    """a2a3 vgather takes byte offsets: for b16 data they are computed into tmp (vmuls)."""
    return tmp_use == "b16_byte_offsets" and tmp is not None and src.flat.itemsize == 2


def gather_src_elements(src: Tile, offsets: np.ndarray, out_of_range: str, *, batched: bool) -> np.ndarray:
    """src's logical elements at row-major `offsets` (rows x cols, after an iteration axis
    if `batched`; a batched src pairs each iteration's offsets with its own storage)."""
    rows, cols = src.type.shape
    inside = (offsets >= 0) & (offsets < rows * cols)
    if not inside.all() and out_of_range == "fault":
        iteration, where = first_failing(~inside, 1 if batched else 0)
        value = offsets[(iteration, *where) if iteration is not None else where]
        raise RuntimeFault(
            f"index {int(value)} at indices position {list(where)} is outside src "
            f"storage of {rows}x{cols} = {rows * cols} elements",
            iteration,
        )
    safe = np.where(inside, offsets, 0)
    if src.flat.ndim > 1:  # one storage per iteration
        logical = src.values.reshape(src.flat.shape[0], rows * cols)
        values = np.take_along_axis(logical, np.broadcast_to(safe, (src.flat.shape[0], *safe.shape[-2:])).reshape(
            src.flat.shape[0], -1), axis=1).reshape(src.flat.shape[0], *safe.shape[-2:])
    else:
        values = src.values[safe // cols, safe % cols]
    if not inside.all():
        values = np.where(inside, values, np.zeros((), dtype=values.dtype))
    return values


def load_index_vector(idx: Tile, lane_dtype: np.dtype) -> np.ndarray:
    """The index tile's valid elements as unsigned lanes (reinterpreted, not converted)."""
    valid = idx.read_valid()
    wide = valid.reshape(*valid.shape[:-2], -1).astype(np.int64)
    return (wide & ((1 << (8 * lane_dtype.itemsize)) - 1)).astype(lane_dtype)


def register_gather(base: Tile, index: np.ndarray, shape: tuple[int, int], lane_dtype: np.dtype) -> np.ndarray:
    """lane i = base[index[i]] for the lanes under the mask (the dst valid `shape`, row by
    row); b8 data zero-extends into b16 lanes."""
    lanes = shape[0] * shape[1]
    lanes_used = index[..., :lanes].astype(np.int64)
    values = gather_src_elements(
        base, lanes_used.reshape(*index.shape[:-1], *shape), "fault", batched=index.ndim > 1
    )
    if values.dtype.itemsize == 1 and lane_dtype.itemsize == 2:
        return values.view(np.uint8).astype(np.uint16).view(lane_dtype)
    return values


def register_store(value: np.ndarray, dst: Tile) -> None:
    """Store lanes into dst's valid elements; b16 lanes of b8 data keep their low byte."""
    target = dst.flat.dtype
    if value.dtype.itemsize != target.itemsize:
        value = value.view(np.uint16).astype(np.uint8).view(target)
    dst.write_valid(value.reshape(*value.shape[:-2], *dst.valid_shape))


def tgather_mask(src: Tile, dst: Tile, *, pattern: MaskPattern, axis: str, packing: str) -> None:
    """Keep the elements `pattern` selects; bits are copied (same element size)."""
    t, off = pattern.period, pattern.offset
    values = src.read_valid().view(dst.flat.dtype) if src.flat.dtype != dst.flat.dtype else src.read_valid()
    batch = values.shape[:-2]
    if axis == "col":
        picked = values[..., off::t, :]
        dst.write(picked.shape[-2], picked.shape[-1], picked)
        return
    if packing == "per_row":  # a5 b64: dst.flat[r*(Cols/t) + k] = src[r, k*t + off], k < vc // t
        per_row = dst.type.shape[1] // t
        count = values.shape[-1] // t
        picked = values[..., off : off + count * t : t]
        r = np.arange(picked.shape[-2])[:, None] * per_row + np.arange(count)[None, :]
        dst.flat[..., r] = picked
        return
    stream = values[..., off::t].reshape(*batch, -1)
    dst.flat[..., : stream.shape[-1]] = stream


def compare_keys(src: np.ndarray, k: np.ndarray, compare: str) -> tuple[np.ndarray, np.ndarray]:
    """The values the target actually compares (src rows x cols, k per row)."""
    if compare == "numeric":
        return src, k[:, None]
    # a5: floats round to int32 (nearest even), then everything compares as unsigned 32-bit
    def as_u32(a: np.ndarray) -> np.ndarray:
        if a.dtype.kind == "f":
            a = np.rint(a.astype(np.float32)).astype(np.int64)
        return a.astype(np.int64) & 0xFFFFFFFF

    return as_u32(src), as_u32(k)[:, None]


def tgather_compare(src: Tile, dst: Tile, cdst: Tile, *, cmp_mode: CmpMode, offset: int,
                    index_numbering: str, compare: str, k_per_row: np.ndarray) -> None:
    """Per row i: the indices of columns j with cmp(src[i, j], k_i), packed left; cdst[i] = count."""
    vr, vc = src.valid_shape
    rows_, cols_ = src.type.shape
    if index_numbering == "src_cols":
        span, row_base = vc, cols_
    else:  # a5: rows numbered in 64-lane chunks (128 for b8); b8/b16 masks are all-true
        lanes = 128 if src.flat.itemsize == 1 else 64
        chunked = ceil(vc / lanes) * lanes
        span = min(chunked, cols_) if src.flat.itemsize <= 2 else vc
        row_base = chunked
    data, keys = compare_keys(src.values[:vr, :span], k_per_row, compare)
    hit = data == keys if cmp_mode == CmpMode.EQ else data > keys
    counts = hit.sum(axis=1)
    index = offset + np.arange(vr)[:, None] * row_base + np.arange(span)[None, :]
    # pack each row's hits to the left: stable sort of "not hit" keeps hits in column order
    order = np.argsort(~hit, axis=1, kind="stable")
    packed = np.take_along_axis(index, order, axis=1)
    width = int(counts.max(initial=0))
    if width > dst.type.shape[1]:
        raise RuntimeFault(f"row matches ({width}) exceed dst cols ({dst.type.shape[1]})")
    current = dst.values[:vr, :width].copy()
    keep = np.arange(width)[None, :] < counts[:, None]
    current[keep] = packed[:, :width][keep]
    dst.write(vr, width, current)
    cdst.flat[:vr] = counts.astype(cdst.flat.dtype)


# ---------------------------------------------------------------------------
# TCOLARGMIN


def flush_to_fp(bits: np.ndarray) -> np.ndarray:
    """16/32-bit patterns read as fp16/fp32 with denormals flushed to signed zero (A2/A3)."""
    as_float = bits.view(np.float16 if bits.itemsize == 2 else np.float32)
    tiny = np.finfo(as_float.dtype).tiny
    return np.where(np.abs(as_float) < tiny, np.copysign(np.zeros((), as_float.dtype), as_float), as_float)


def colargmin(src: Tile, dst_idx: Tile, dst_val: Tile | None, *, compare: str, nan: str,
              row_counter: str, src_read: str) -> None:
    """Per column: the row of the minimum (rows are axis -2; a leading iteration axis rides along)."""
    if src_read == "row_major_storage":  # a2a3 addresses a DN src as if it were row-major
        rows, cols = src.type.shape
        x = src.flat.reshape(*src.flat.shape[:-1], rows, cols)[..., : src.valid_row, : src.valid_col]
    else:
        x = src.read_valid()
    vr, vc = x.shape[-2:]
    keys = flush_to_fp(x) if compare == "fp_bits" else x
    if vr == 1:
        idx = np.zeros((*x.shape[:-2], vc), dtype=np.int64)
    elif nan == "propagates":
        # cur = x[0]; for i >= 1: if not (cur <= x[i]): idx = i; cur = minimum(cur, x[i])
        running = np.minimum.accumulate(keys, axis=-2)
        replaces = ~(running[..., :-1, :] <= keys[..., 1:, :])
        last = np.where(replaces.any(axis=-2), vr - 1 - np.argmax(replaces[..., ::-1, :], axis=-2), 0)
        idx = last
    elif keys.dtype.name in FLOAT_DTYPE_NAMES:
        first_nan = np.isnan(keys[..., 0, :])
        idx = np.argmin(np.where(np.isnan(keys), np.inf, keys), axis=-2)
        idx = np.where(first_nan, 0, idx)
    else:
        idx = np.argmin(keys, axis=-2)
    if row_counter == "f16":
        idx = idx.astype(np.float16).astype(np.int64)
    dst_idx.write(1, vc, idx.astype(dst_idx.flat.dtype)[..., None, :])
    if dst_val is not None:
        dst_val.write(1, vc, np.take_along_axis(x, np.minimum(idx, vr - 1)[..., None, :], axis=-2))


# ---------------------------------------------------------------------------
# Footprints: what each kernel above reads and writes, for deciding whether a loop's
# iterations are independent (interpreter/batch.py). Same arguments as the kernel.


class Footprint(NamedTuple):
    tiles: list[tuple[Tile, bool, np.ndarray | None]]
    """(tile, written?, storage elements; None = any element), reads before writes."""
    views: list[tuple[GmView, bool, bool]]
    """(view, written?, read at data-dependent places of its whole buffer?)."""


def rect(tile: Tile, rows: int, cols: int) -> np.ndarray:
    """Storage elements of the logical top-left rows x cols corner."""
    return storage_offsets(tile.type)[:rows, :cols].reshape(-1)


def valid_rect(tile: Tile) -> np.ndarray:
    return rect(tile, tile.valid_row, tile.valid_col)


def _index_read(idx: Tile | GmView, reads: np.ndarray | None) -> Footprint:
    if isinstance(idx, GmView):
        return Footprint([], [(idx, False, True)])
    return Footprint([(idx, False, reads)], [])


def _row_index_reads(idx: Tile, count: int) -> np.ndarray:
    """What row_indices reads: the index tile's first row (or column), up to `count` entries."""
    if idx.valid_row == 1:
        return rect(idx, 1, min(count, idx.valid_col))
    return rect(idx, min(count, idx.valid_row), 1)


def mgather_row_footprint(table: GmView, idx: Tile | GmView, dst: Tile, **_: object) -> Footprint:
    reads = _index_read(idx, _row_index_reads(idx, dst.valid_row) if isinstance(idx, Tile) else None)
    return Footprint([*reads.tiles, (dst, True, valid_rect(dst))], [(table, False, True), *reads.views])


def mgather_elem_footprint(table: GmView, idx: Tile | GmView, dst: Tile, **_: object) -> Footprint:
    reads = _index_read(idx, rect(idx, *dst.valid_shape) if isinstance(idx, Tile) else None)
    return Footprint([*reads.tiles, (dst, True, valid_rect(dst))], [(table, False, True), *reads.views])


def tgather_index_footprint(
    src: Tile, idx: Tile, dst: Tile, tmp: Tile | None, *, tmp_use: str, **_: object
) -> Footprint:
    tiles = [(idx, False, rect(idx, *dst.valid_shape)), (src, False, None), (dst, True, valid_rect(dst))]
    if tmp is not None and _writes_byte_offsets(src, tmp, tmp_use):
        tiles += [(idx, False, valid_rect(idx)), (tmp, True, rect(tmp, *idx.valid_shape))]
    return Footprint(tiles, [])


def tgather_mask_footprint(src: Tile, dst: Tile, *, pattern: MaskPattern, axis: str, packing: str) -> Footprint:
    t, off = pattern.period, pattern.offset
    vr, vc = src.valid_shape
    if axis == "col":
        written = rect(dst, len(range(off, vr, t)), vc)
    elif packing == "per_row":
        count = vc // t
        written = (np.arange(vr)[:, None] * (dst.type.shape[1] // t) + np.arange(count)[None, :]).reshape(-1)
    else:
        written = np.arange(vr * len(range(off, vc, t)))
    return Footprint([(src, False, valid_rect(src)), (dst, True, written)], [])


def colargmin_footprint(src: Tile, dst_idx: Tile, dst_val: Tile | None, *, src_read: str, **_: object) -> Footprint:
    vr, vc = src.valid_shape
    if src_read == "row_major_storage":
        read = (np.arange(vr)[:, None] * src.type.shape[1] + np.arange(vc)[None, :]).reshape(-1)
    else:
        read = valid_rect(src)
    tiles = [(src, False, read), (dst_idx, True, rect(dst_idx, 1, vc))]
    if dst_val is not None:
        tiles.append((dst_val, True, rect(dst_val, 1, vc)))
    return Footprint(tiles, [])


FOOTPRINTS = {
    mgather_row: mgather_row_footprint,
    mgather_elem: mgather_elem_footprint,
    tgather_index: tgather_index_footprint,
    tgather_mask: tgather_mask_footprint,
    colargmin: colargmin_footprint,
}
"""The kernels a batched loop may run (each takes a leading iteration axis), with their footprints."""
