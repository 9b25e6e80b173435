"""
A GM table addressed through indices (MGATHER and MSCATTER; TSCATTER reads its indexes the
same way): the NZ table geometry, how a target reads an index (widen), the extent it bounds
it by (table_capacity) and what it does with one out of range (remap), where row and elem
mode find their indices, the rules on index shapes and NZ tables, and the GM traffic the
accesses cause (what the costs count).
"""

from __future__ import annotations

from math import prod
from typing import Protocol

from pto_dialect.attributes import Coalesce, CoalesceAttr, GatherOob
from pto_dialect.choices import Capacity, IndexRead, Stride
from pto_dialect.cost import CceTrace, DmaPath, Work
from pto_dialect.facts import RuleViolation, TileFacts, ViewFacts, known, require
from pto_dialect.machine import GmView, RuntimeFault, Tile, first_failing, np, rect
from pto_dialect.types import dim_text

# ---------------------------------------------------------------------------
# An NZ table's geometry and the rules on index shapes

FRACTAL_NZ_ROW = 16
"""The rows of one NZ fractal (FRACTAL_NZ_ROW)."""
C0_BYTES = 32
"""The bytes of one NZ fractal row: C0 = 32 / sizeof(T) elements."""


def nz_offset(x: np.ndarray, y: np.ndarray, n_rows: int, c0: int) -> np.ndarray:
    """Offset of logical (x, y) in an NZ matrix of n_rows rows."""
    return (y // c0) * n_rows * c0 + x * c0 + (y % c0)


def check_row_index(shapes: tuple[str, ...], dst: TileFacts, idx: TileFacts) -> None:
    """[1, R] in a row-major tile or [R, 1] in a col-major one (as `shapes`, the target's
    row_index_shapes, allows)."""
    r, ir, ic = dst.valid_row, idx.valid_row, idx.valid_col
    forms = {"1xR": ("row_major", ir, ic, f"[1, {dim_text(r)}]"), "Rx1": ("col_major", ic, ir, f"[{dim_text(r)}, 1]")}
    allowed = [forms[s] for s in shapes]
    wanted = " or ".join(f"{text} ({blayout})" for blayout, _, _, text in allowed)
    found = f"[{dim_text(ir)}, {dim_text(ic)}] ({idx.blayout})"
    for blayout, one, length, _ in allowed:
        if idx.blayout == blayout and (not known(one) or one == 1) and (not known(length, r) or length == r):
            return
    raise RuleViolation(f"expects row-coalesce idx valid shape {wanted} (R = {dst.role} valid rows), got {found}")


def check_elem_index(dst: TileFacts, idx: TileFacts | ViewFacts) -> None:
    if isinstance(idx, ViewFacts):
        ir, ic = idx.shape5[3], idx.shape5[4]
    else:
        ir, ic = idx.valid_row, idx.valid_col
    for name, i, d in (("rows", ir, dst.valid_row), ("cols", ic, dst.valid_col)):
        if known(i, d):
            require(
                i == d,
                f"expects elem-coalesce idx valid {name} to equal {dst.role} valid {name}, got {i} and {d}",
            )


def check_packed_rows(table: ViewFacts, tile: TileFacts, inner_why: str, stride_why: str = "") -> None:
    """A row-mode table whose rows lie at the tile's valid-column stride: its inner dim
    (Shape[4]) equal to the tile's valid cols and its row stride equal to its cols."""
    if known(table.shape5[4], tile.valid_col):
        require(
            table.shape5[4] == tile.valid_col,
            f"expects the table's inner dim (Shape[4]) to equal {tile.role} valid cols ({inner_why}), "
            f"got {table.shape5[4]} and {tile.valid_col}",
        )
    if len(table.shape) >= 2 and known(table.row_stride, table.shape[-1]):
        require(
            table.row_stride == table.shape[-1],
            f"expects the table's rows packed (row stride == its cols{stride_why}), got row stride {table.row_stride} "
            f"for {table.shape[-1]} cols",
        )


def check_nz_table(dst: TileFacts, table: ViewFacts) -> None:
    c0 = C0_BYTES // dst.elem.bytes
    require(
        dst.loc == "vec" and dst.is_nz,
        f"expects {dst.role} to be NZ (blayout=col_major, slayout=row_major, fractal=512) "
        f"for an NZ table, got {dst.layout_text()}",
    )
    s3, s4 = table.shape5[3], table.shape5[4]
    if known(s3):
        require(s3 == FRACTAL_NZ_ROW, f"expects NZ table Shape[3] to be {FRACTAL_NZ_ROW}, got {s3}")
    if known(s4):
        require(s4 == c0, f"expects NZ table Shape[4] to be C0 = 32 / sizeof(T) = {c0}, got {s4}")
    check_nz_tile(dst, c0)


def check_nz_tile(dst: TileFacts, c0: int) -> None:
    require(
        dst.cols % c0 == 0,
        f"expects {dst.role} padded cols to be a multiple of {c0} (C0 = 32 / sizeof(T)), got {dst.cols}",
    )
    require(
        dst.rows % FRACTAL_NZ_ROW == 0,
        f"expects {dst.role} padded rows to be a multiple of {FRACTAL_NZ_ROW} (FRACTAL_NZ_ROW), got {dst.rows}",
    )


# ---------------------------------------------------------------------------
# Reading, bounding and remapping indices (the kernels)


def widen(idx: np.ndarray, read: IndexRead) -> np.ndarray:
    """Indices as the target reads them, unsigned: 64-bit (signed values sign-extend), or
    reinterpreted as uint32 or as unsigned of their own width."""
    match read:
        case IndexRead.SIGNED_64:
            return idx.astype(np.int64).view(np.uint64)
        case IndexRead.UNSIGNED_OWN_WIDTH:
            return idx.view(f"u{idx.dtype.itemsize}")
        case IndexRead.UNSIGNED_32 if idx.dtype.itemsize == 4:
            return idx.view(np.uint32)
        case IndexRead.UNSIGNED_32:
            return (idx.astype(np.int64) & 0xFFFFFFFF).view(np.uint64)


def table_capacity(which: Capacity, table: GmView) -> int:
    """The extent an index is bounded by, as the lowered op's `capacity` names it."""
    s = table.shape5
    logical_rows = s[2] * FRACTAL_NZ_ROW
    match which:
        case Capacity.S3:
            return s[3]
        case Capacity.S0_TO_S3:
            return s[0] * s[1] * s[2] * s[3]
        case Capacity.ALL_ELEMENTS:
            return prod(s)
        case Capacity.NZ_ROWS:
            return logical_rows
        case Capacity.NZ_ELEMENTS:
            return logical_rows * s[0] * s[1] * (C0_BYTES // table.buffer.itemsize)


_UNSIGNED_MAX = {4: 0xFFFFFFFF, 8: 0xFFFFFFFFFFFFFFFF}


def remap(u: np.ndarray, cap: int, oob: GatherOob, entry_dims: int, tile: str = "dst",
          policy: str = "gatherOob") -> tuple[np.ndarray, np.ndarray | None]:
    """Apply the OOB policy: (in-range indices, mask of entries to keep; None = all).

    `u` has `entry_dims` trailing axes: 1 (row mode: one index per row of the data tile,
    `tile`) or 2 (elem mode: idx[r, c]), after an iteration axis when batched; `policy` names
    the attribute in the message (MSCATTER's scatterOob)."""
    if cap <= 0:
        raise RuntimeFault("the table has no rows (capacity 0)")
    if cap > _UNSIGNED_MAX[u.dtype.itemsize]:  # every index is in range
        return u, None
    cap_u = u.dtype.type(cap)
    match oob:
        case GatherOob.CLAMP:
            return np.minimum(u, cap_u - 1), None
        case GatherOob.WRAP:
            return u % cap_u, None
        case GatherOob.ZERO:
            inside = u < cap_u
            return np.where(inside, u, 0).astype(u.dtype, copy=False), inside
        case GatherOob.UNDEFINED:
            pass
    inside = u < cap_u
    if not inside.all():
        iteration, where = first_failing(~inside, u.ndim - entry_dims)
        place = f"for {tile} row {where[0]}" if entry_dims == 1 else f"at idx[{where[0]}, {where[1]}]"
        value = u[(iteration, *where) if iteration is not None else where]
        raise RuntimeFault(
            f"index {int(value)} {place} is out of bounds for a table capacity of {cap} "
            f"({policy} = undefined)",
            iteration,
        )
    return u, None


def read_elements(buffer: np.ndarray, offsets: np.ndarray, entry_dims: int = 2) -> np.ndarray:
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


def row_indices(idx: Tile | GmView, count: int) -> np.ndarray:
    """Row mode's idx_r, r < count: a [1, R] or [R, 1] tile, or a GM view's elements in order."""
    if isinstance(idx, GmView):
        return idx.read2d().reshape(-1)[:count]
    values = idx.read_valid()
    return (values[..., 0, :] if idx.valid_row == 1 else values[..., :, 0])[..., :count]


def stride(which: Stride, table: GmView, dst: Tile) -> int:
    """A row or column stride, as the lowered op's `row_stride` / `col_stride` names it."""
    match which:
        case Stride.ONE:
            return 1
        case Stride.VALID_COLS:
            return dst.valid_col
        case Stride.T3:
            return table.strides5[3]
        case Stride.T4:
            return table.strides5[4]


def elem_indices(idx: Tile | GmView, rows: int, cols: int) -> np.ndarray:
    """Elem mode's idx[r, c]: through the tile's layout, or at GM offset r*T3 + c."""
    if isinstance(idx, GmView):
        r = np.arange(rows, dtype=np.int64)[:, None]
        c = np.arange(cols, dtype=np.int64)[None, :]
        return read_elements(idx.buffer, idx.offset + r * idx.strides5[3] + c)
    return idx.values[..., :rows, :cols]


def row_index_reads(idx: Tile, count: int) -> np.ndarray:
    """What row_indices reads: the index tile's first row (or column), up to `count` entries."""
    if idx.valid_row == 1:
        return rect(idx, 1, min(count, idx.valid_col))
    return rect(idx, min(count, idx.valid_row), 1)


# ---------------------------------------------------------------------------
# The GM traffic of indexed accesses (the costs)


class Coalesced(Protocol):
    """A lowered MGATHER or MSCATTER: its mode recorded in `coalesce`."""

    @property
    def coalesce(self) -> CoalesceAttr: ...


def table_entries(coalesce: CoalesceAttr | None, table_shape: tuple[int, ...]) -> int | None:
    """How many entries an index of a gather or scatter over a GM table of `table_shape` selects
    among (random inputs draw indices inside it): its rows in row mode and when the mode is
    left to the target (rows are fewer than elements), its elements in elem mode."""
    if any(d < 0 for d in table_shape):
        return None
    return table_shape[0] if coalesce is None or coalesce.data == Coalesce.ROW else prod(table_shape)


def row_mode(op: Coalesced) -> bool:
    return op.coalesce.data == Coalesce.ROW


def scalar_loop(t: CceTrace, elements: int, work: Work, *line_paths: DmaPath) -> None:
    """A scalar loop over `elements` table elements: one scalar cycle each (the mocks' price
    of a scalar call; the cost model charges the loop nothing), and each GM line it moves to
    (`lines`, estimate: every element) moved along each of `line_paths` (a read fills it
    GM->UB, a store writes it UB->GM; its bytes: the lines')."""
    t.call(elements)
    lines = work.get("lines", elements)
    line = int(t.machine.scalar_line_bytes.value)
    for path in line_paths:
        t.dma(path, line, times=lines)


def in_loop_order(a: np.ndarray, nz_c0: int | None) -> np.ndarray:
    """Values (..., vr, vc) of the valid region in the order an elem-mode loop visits it
    (..., vr * vc): row by row, or (`nz_c0`: an NZ table's C0, MGatherElemNzImpl /
    MScatterElemNzImpl) by blocks of C0 columns, row by row within a block."""
    vr, vc = a.shape[-2:]
    flat = a.reshape(*a.shape[:-2], vr * vc)
    if nz_c0 is None:
        return flat
    r, c = np.meshgrid(np.arange(vr), np.arange(vc), indexing="ij")
    return flat[..., np.lexsort(((c % nz_c0).ravel(), r.ravel(), (c // nz_c0).ravel()))]


def nz_c0(table: GmView, nz: bool) -> int | None:
    """An NZ table's C0 (elements per 32 bytes), None for an ND table."""
    return C0_BYTES // table.buffer.itemsize if nz else None


def elem_addresses(table: GmView, flat: np.ndarray, nz: bool) -> np.ndarray:
    """The byte address of each elem-mode access of table element `flat` (..., vr, vc), in
    loop order (..., vr * vc): an NZ table's at its NZ offsets."""
    flat = flat.astype(np.int64)
    c0 = nz_c0(table, nz)
    if c0 is not None:
        s = table.shape5
        flat = nz_offset(*np.divmod(flat, s[0] * s[1] * c0), s[2] * FRACTAL_NZ_ROW, c0)
    offset = np.asarray(table.offset).reshape(-1, 1, 1) if np.ndim(table.offset) else table.offset
    return in_loop_order((offset + flat) * table.buffer.itemsize, c0)


def line_moves(lines: np.ndarray, kept: np.ndarray | None = None) -> np.ndarray:
    """How often a loop's accesses (..., n) in order move to another GM line: the first kept
    access, and each kept one on another line than the kept access before it."""
    n = lines.shape[-1]
    kept = np.ones(lines.shape, bool) if kept is None else np.broadcast_to(kept, lines.shape)
    last = np.maximum.accumulate(np.where(kept, np.arange(n), -1), axis=-1)
    before = np.concatenate([np.full((*lines.shape[:-1], 1), -1), last[..., :-1]], axis=-1)
    previous = np.take_along_axis(lines, np.maximum(before, 0), axis=-1)
    return (kept & ((before < 0) | (previous != lines))).sum(axis=-1)


def warp_bursts(segments: np.ndarray, lanes: int, kept: np.ndarray | None = None) -> np.ndarray:
    """The GM segments warps of `lanes` consecutive accesses (..., n) touch: per warp, the
    distinct segments of its kept lanes."""
    n = segments.shape[-1]
    kept = np.ones(segments.shape, bool) if kept is None else np.broadcast_to(kept, segments.shape)
    pad = [(0, 0)] * (segments.ndim - 1) + [(0, -n % lanes)]  # the last warp's idle lanes touch nothing
    marked = np.pad(np.where(kept, segments, -1), pad, constant_values=-1)
    warps = np.sort(marked.reshape(*marked.shape[:-1], -1, lanes), axis=-1)
    distinct = (warps[..., :1] >= 0).sum(axis=-1) + ((warps[..., 1:] != warps[..., :-1]) & (warps[..., 1:] >= 0)).sum(axis=-1)
    return distinct.sum(axis=-1)


def row_bursts(start: np.ndarray, row_bytes: int, burst: int, keep: np.ndarray | None) -> np.ndarray | int:
    """The GM segments rows of `row_bytes` bytes at byte addresses `start` (..., rows) span,
    over the kept rows."""
    if row_bytes == 0:
        return 0
    spans = (start + row_bytes - 1) // burst - start // burst + 1
    return (spans if keep is None else np.where(keep, spans, 0)).sum(axis=-1)


def row_starts(table: GmView, rows: np.ndarray, row_stride: int) -> np.ndarray:
    """The byte address of table row `rows` (..., R), a batched view's offset per iteration."""
    offset = np.asarray(table.offset).reshape(-1, 1) if np.ndim(table.offset) else table.offset
    return (offset + rows.astype(np.int64) * row_stride) * table.buffer.itemsize
