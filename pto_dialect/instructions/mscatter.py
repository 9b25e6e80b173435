"""
MSCATTER: scatter a tile into a GM table through an index tile (pto-isa's MSCATTER.md), the
inverse of MGATHER (mgather.py; the index and table rules they share: gm_index.py).

      row:  table[idx_r, j] (op)= src[r, j]          r < R, j < C
      elem: table_flat[idx[r, c]] (op)= src[r, c]

        pto.mscatter ins(%src, %idx : Ts, Ti) outs(%mem : Tm) {coalesce = #pto<coalesce row>,
            scatterAtomicOp = #pto<scatter_atomic_op add>, scatterOob = #pto<scatter_oob skip>,
            scatterConflict = #pto<scatter_conflict last>}
        pto.mscatter %src, %idx, %mem {coalesce = ...} : (Ts, Ti, Tm) -> ()

`(op)` is a plain store or an atomic add / max / min. Without `coalesce` each target's C++
default applies (the simulator's untemplated MSCATTER is elem mode, the NPUs' row mode).
Colliding writes: the simulator and a2a3 run one serial loop, so the last write in their order
wins (row-major; a2a3's NZ elem path walks column blocks); a5 `last` keeps the largest flat
index (the same), a5 `default` leaves it to the warp scheduler: a run with colliding indices is
a run-time error naming them. Atomic updates combine in that serial order (a5's SIMT atomics:
row-major, a choice the code leaves open); each f16/bf16 add rounds to the element type.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import ClassVar, cast

from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, opt_prop_def, prop_def
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from pto_dialect.attributes import Coalesce, CoalesceAttr, GatherOob, GmLayout, ScatterAtomicOp, ScatterAtomicOpAttr, ScatterConflict, ScatterConflictAttr, ScatterOob, ScatterOobAttr
from pto_dialect.choices import Capacity, ExtremeRead, IndexRead, ScatterWinner, Stride, WriteOrder
from pto_dialect.cost import CceMachine, DmaPath, InstructionCost, OpCost, SimulatorMachine, VfMachine, Work
from pto_dialect.dtypes import FLOAT_DTYPE_NAMES
from pto_dialect.facts import known, require, require_type, spell
from pto_dialect.instruction import AsmForm, camel, DocsCells, Emission, InPlace, Instruction, Pipe, RuleRow
from pto_dialect.gm_index import table_entries, C0_BYTES, FRACTAL_NZ_ROW, check_elem_index, check_nz_table, check_packed_rows, check_row_index, elem_addresses, elem_indices, in_loop_order, line_moves, nz_c0, nz_offset, remap, row_bursts, row_index_reads, row_indices, row_mode, row_starts, scalar_loop, stride, table_capacity, warp_bursts, widen
from pto_dialect.lowered import LoweredOp
from pto_dialect.machine import Footprint, GmView, RuntimeFault, Tile, first_failing, np, rect, valid_rect
from pto_dialect.ops.common import PtoInstructionOp, Roles, operand_of_role
from pto_dialect.types import TileBufType, TileType
from pto_dialect.write_collisions import surviving_writes

# ---------------------------------------------------------------------------
# The op


@irdl_op_definition
class MScatterOp(PtoInstructionOp):
    """
    Scatter a tile into a GM table through an index tile (pto-isa's MSCATTER.md). The DPS form
    writes `outs(%mem)`; the SSA spelling lists the table among its operands and has no result.
    """

    name = "pto.mscatter"

    WRITTEN_INS: ClassVar[frozenset[str]] = frozenset({"mem"})
    """The SSA spelling's table operand: the op's output."""

    coalesce = opt_prop_def(CoalesceAttr)
    scatter_atomic_op = opt_prop_def(ScatterAtomicOpAttr, prop_name="scatterAtomicOp")
    scatter_oob = opt_prop_def(ScatterOobAttr, prop_name="scatterOob")
    scatter_conflict = opt_prop_def(ScatterConflictAttr, prop_name="scatterConflict")

    FORMS: ClassVar[tuple[tuple[int, int], ...]] = ((2, 1),)
    SSA_RESULTS: ClassVar[bool] = False
    BUILDER_NAMES: ClassVar[dict[str, str]] = {"src": "src_tile", "idx": "idx_tile", "mem": "table_view"}
    OMITS_DEFAULTS: ClassVar[bool] = True
    DEFAULTS: ClassVar[dict[str, Attribute]] = {
        "scatterAtomicOp": ScatterAtomicOpAttr(ScatterAtomicOp.NONE),
        "scatterOob": ScatterOobAttr(ScatterOob.UNDEFINED),
    }

    @classmethod
    def operand_roles(cls, n_ins: int, n_outs: int) -> Roles:
        return (("src", "idx", "mem"), ()) if n_ins == 3 else (("src", "idx"), ("mem",))

    src = operand_of_role("src")
    idx = operand_of_role("idx")
    mem = operand_of_role("mem")

    def index_entries(self, value: SSAValue) -> int | None:
        """How many entries `value` selects among when it is the index (random inputs)."""
        return table_entries(self.coalesce, tuple(self.mem.type.shape)) if value is self.idx else None  # pyright: ignore[reportAttributeAccessIssue]

    @property
    def atomic(self) -> ScatterAtomicOp:
        return cast(ScatterAtomicOpAttr, self.scatter_atomic_op or self.DEFAULTS["scatterAtomicOp"]).data

    @property
    def oob(self) -> ScatterOob:
        return cast(ScatterOobAttr, self.scatter_oob or self.DEFAULTS["scatterOob"]).data

    def verify_operands(self) -> None:
        tiles = (TileBufType,) if self.outs else (TileBufType, TileType)  # SSA values until pto-ssa-to-dps
        for role, value in (("src", self.src), ("idx", self.idx)):
            if not isinstance(value.type, tiles):
                raise VerifyException(f"expects {role} to be a tile, got {value.type}")
        mem = self.expect_view("mem", self.mem)
        if mem.element_type != self.src.type.element_type:  # pyright: ignore[reportAttributeAccessIssue]
            raise VerifyException("expects mem element type to match src element type")
        if self.coalesce is None and (
            self.atomic != ScatterAtomicOp.NONE or self.oob != ScatterOob.UNDEFINED or self.scatter_conflict is not None
        ):
            raise VerifyException("expects coalesce when scatterAtomicOp/scatterOob/scatterConflict is specified")


# ---------------------------------------------------------------------------
# What each target accepts


class ConflictPolicy(StrEnum):
    """What a target makes of `scatterConflict`."""

    CHOSEN = "chosen"
    """a5: it picks the kernel (`last`: largest flat index; `default`: the warp scheduler)."""
    IGNORED = "ignored"
    """The simulator: accepted and ignored (last write wins), but `last` with an atomic op is a
    static_assert."""
    ABSENT = "absent"
    """a2a3: MSCATTER has no such parameter."""


CONFLICT_CELLS = {
    ConflictPolicy.CHOSEN: "last (default): largest flat index wins; default: a run-time error on colliding indices",
    ConflictPolicy.IGNORED: "accepted, ignored (last write wins); last with an atomic op rejected",
    ConflictPolicy.ABSENT: "rejected (last write wins)",
}
"""The docs' cell of each conflict policy."""


@dataclass(frozen=True)
class MScatterRules(RuleRow):
    """One target's MSCATTER rules."""

    data_types: frozenset[str]
    index_types: frozenset[str]
    atomic_types: dict[ScatterAtomicOp, frozenset[str]]
    """src element types per atomic op (none: every data type); an op not listed is rejected."""
    table_layouts: tuple[GmLayout, ...]
    src_blayouts: tuple[str, ...]
    """src tile blayouts for an ND table (slayout none_box); an NZ table takes an NZ src."""
    index_blayouts: tuple[str, ...]
    row_index_shapes: tuple[str, ...]
    """Row mode: "1xR" (row-major) and/or "Rx1" (col-major), R = src valid rows."""
    packed_table_rows: bool
    """Row mode writes rows at stride = src valid cols: Shape[4] == src valid cols, rows packed."""
    nonempty_src: bool
    conflict: ConflictPolicy
    default_coalesce: Coalesce
    """The mode of an MSCATTER without `coalesce` (the target's C++ default)."""
    note: str

    def check(self, operands: dict, attrs: Mapping[str, Attribute]) -> None:
        src, idx, table = operands["src"], operands["idx"], operands["mem"]
        coalesce = attrs["coalesce"].data if "coalesce" in attrs else self.default_coalesce  # pyright: ignore[reportAttributeAccessIssue]
        atomic = attrs["scatterAtomicOp"].data if "scatterAtomicOp" in attrs else ScatterAtomicOp.NONE  # pyright: ignore[reportAttributeAccessIssue]
        conflict = attrs["scatterConflict"].data if "scatterConflict" in attrs else None  # pyright: ignore[reportAttributeAccessIssue]
        require(src.loc == "vec", f"expects src to be a Vec tile (loc=vec), got loc={src.loc}")
        require(idx.loc == "vec", f"expects idx to be a Vec tile (loc=vec), got loc={idx.loc}")
        require_type("src", src.elem, self.data_types)
        require_type("idx", idx.elem, self.index_types)
        require(
            idx.blayout in self.index_blayouts and idx.slayout == "none_box",
            f"expects idx to use blayout {' or '.join(self.index_blayouts)} with slayout=none_box, got {idx.layout_text()}",
        )
        layout = table.layout or GmLayout.ND
        require(
            layout in self.table_layouts,
            f"expects the table to use layout {' or '.join(l.value for l in self.table_layouts)}, got {layout.value}",
        )
        if layout == GmLayout.NZ:
            check_nz_table(src, table)
        else:
            require(
                src.blayout in self.src_blayouts and src.slayout == "none_box",
                f"expects src to use blayout {' or '.join(self.src_blayouts)} with slayout=none_box for an ND table, "
                f"got {src.layout_text()}",
            )
        if atomic != ScatterAtomicOp.NONE:
            allowed = self.atomic_types.get(atomic)
            require(allowed is not None, f"expects no scatterAtomicOp = {atomic.value}: the target has no atomic {atomic.value}")
            assert allowed is not None
            require(
                src.elem.mlir in allowed,
                f"expects src element type to be {spell(allowed)} for scatterAtomicOp = {atomic.value}, got {src.elem.mlir}",
            )
        match self.conflict:
            case ConflictPolicy.ABSENT:
                require(conflict is None, "expects no scatterConflict: the target's MSCATTER is one serial loop, the last write wins")
            case ConflictPolicy.IGNORED:
                require(
                    not (conflict == ScatterConflict.LAST and atomic != ScatterAtomicOp.NONE),
                    "expects scatterConflict = last only without scatterAtomicOp",
                )
            case ConflictPolicy.CHOSEN:
                pass
        if self.nonempty_src:
            for name, dim in (("rows", src.valid_row), ("cols", src.valid_col)):
                if known(dim):
                    require(dim >= 1, f"expects src valid {name} to be at least 1, got {dim}")
        if coalesce == Coalesce.ELEM:
            check_elem_index(src, idx)
            return
        check_row_index(self.row_index_shapes, src, idx)
        if self.packed_table_rows:
            check_packed_rows(table, src, "rows written at that stride")

    DOCS: ClassVar[DocsCells] = (
        ("src / table element type", lambda r: spell(r.data_types)),
        ("idx element type", lambda r: spell(r.index_types)),
        ("atomic add / max / min: src element type",
         lambda r: " / ".join(spell(r.atomic_types[a]) if a in r.atomic_types else "rejected"
                             for a in (ScatterAtomicOp.ADD, ScatterAtomicOp.MAX, ScatterAtomicOp.MIN))),
        ("GM table layout", lambda r: ", ".join(l.value for l in r.table_layouts)),
        ("src blayout (ND table)", lambda r: ", ".join(r.src_blayouts) + " (slayout none_box)"),
        ("idx blayout", lambda r: ", ".join(r.index_blayouts) + " (slayout none_box)"),
        ("row-mode idx valid shape", lambda r: ", ".join({"1xR": "[1, R] row-major", "Rx1": "[R, 1] col-major"}[s] for s in r.row_index_shapes)),
        ("row mode: table Shape[4] == src valid cols, rows packed", lambda r: "yes" if r.packed_table_rows else "no"),
        ("src valid shape non-empty", lambda r: "yes (static dims)" if r.nonempty_src else "no (empty is a no-op)"),
        ("elem mode: idx valid shape == src valid shape", lambda r: "yes"),
        ("scatterConflict", lambda r: CONFLICT_CELLS[r.conflict]),
        ("coalesce omitted", lambda r: r.default_coalesce.value),
        ("why", lambda r: r.note),
    )


def coalesce_of(op: MScatterOp, rules: MScatterRules) -> tuple[Coalesce, dict[str, Attribute]]:
    """The op's mode, and the `coalesce` property its lowered op records where the op omits it
    (the target's default)."""
    if op.coalesce is not None:
        return op.coalesce.data, {}
    return rules.default_coalesce, {"coalesce": CoalesceAttr(rules.default_coalesce)}


# ---------------------------------------------------------------------------
# The kernels: each builds the writes in the target's serial order (iterations of a batched
# loop outermost), then applies them


OOB = {
    ScatterOob.UNDEFINED: GatherOob.UNDEFINED,
    ScatterOob.SKIP: GatherOob.ZERO,  # remap's keep mask: the write is dropped
    ScatterOob.CLAMP: GatherOob.CLAMP,
    ScatterOob.WRAP: GatherOob.WRAP,
}


def _remapped(idx: np.ndarray, cap: int, oob: ScatterOob, entry_dims: int) -> tuple[np.ndarray, np.ndarray | None]:
    return remap(idx, cap, OOB[oob], entry_dims, tile="src", policy="scatterOob")


def _collision_error(dest: np.ndarray, keep: np.ndarray | None, what: str, cell: Callable[[int], str]) -> None:
    """a5 `default`: colliding writes of one call have no defined winner. `dest` is iterations x
    writes; `cell` names a write by its position (its src row or idx element)."""
    n = dest.shape[-1]
    places = dest.reshape(-1)
    kept = np.ones(places.size, bool) if keep is None else keep.reshape(-1)
    iteration, position = np.divmod(np.arange(places.size), n)
    order = np.lexsort((position, places, ~kept, iteration))  # per iteration: kept writes by place
    first, second = order[:-1], order[1:]
    same = np.flatnonzero((iteration[first] == iteration[second]) & kept[first] & kept[second]
                          & (places[first] == places[second]))
    if same.size:
        a, b = first[same[0]], second[same[0]]
        raise RuntimeFault(
            f"{cell(int(position[a]))} and {cell(int(position[b]))} both write {what} {int(places[a])}: with scatterConflict = "
            "default the stored value is up to the warp scheduler (use scatterConflict = last, or distinct indices)",
            int(iteration[a]) if dest.ndim > 1 else None,
        )


def _check_span(buffer: np.ndarray, dest: np.ndarray) -> None:
    """Refuse writes outside the table's GM buffer (a serial run meets the first one)."""
    bad = (dest < 0) | (dest >= buffer.size)
    if bad.any():
        iteration, where = first_failing(bad, dest.ndim - 1)
        value = dest[(iteration, *where) if iteration is not None else where]
        raise RuntimeFault(f"writes element {int(value)} of a GM buffer of {buffer.size} elements", iteration)


def accumulate(target: np.ndarray, dest: np.ndarray, values: np.ndarray) -> None:
    """target[dest[k]] += values[k] (scalars, or rows of a 2-D target) in order k: rounds of
    distinct destinations (the k-th write to a place in round k), each rounding to the element
    type as a serial loop does; with many writes to one place, ufunc.at (the same order, one
    write after the other)."""
    order = np.argsort(dest, kind="stable")
    ordered = dest[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    rank = np.empty(dest.size, dtype=np.int64)
    rank[order] = np.arange(dest.size) - np.repeat(starts, np.diff(np.r_[starts, dest.size]))
    rounds = int(rank.max(initial=-1)) + 1
    if rounds > 32 and not _has_nan(values):  # no NaN meets a NaN sum: no choice between NaNs
        np.add.at(target, dest, values)
        return
    by_round = np.argsort(rank, kind="stable")
    ends = np.cumsum(np.bincount(rank, minlength=rounds))
    for start, end in zip(np.r_[0, ends[:-1]], ends):
        at = by_round[start:end]
        target[dest[at]] = _sum(target[dest[at]], values[at])


def _has_nan(values: np.ndarray) -> bool:
    """Whether a float array holds a NaN: a magnitude above infinity's bits (the element types
    with an atomic add all have infinities)."""
    if values.dtype.name not in FLOAT_DTYPE_NAMES:
        return False
    bits = values.view(f"u{values.dtype.itemsize}")
    magnitude = (1 << (8 * values.dtype.itemsize - 1)) - 1
    return bool(((bits & bits.dtype.type(magnitude)) > int(np.array(np.inf, values.dtype).view(bits.dtype))).any())


def _sum(old: np.ndarray, new: np.ndarray) -> np.ndarray:
    """old + new in their type; a NaN operand gives that NaN, quieted, old's first: x86's addss,
    which the simulator's `dst += src` runs on (NumPy's f16 and bf16 adds take the other one).
    The NPUs' NaN bits are not documented: the same taken."""
    with np.errstate(invalid="ignore"):  # inf + -inf; ml_dtypes' isnan warns on a signalling NaN
        total = old + new
        if not _has_nan(old) and not _has_nan(new):
            return total
        old_nan, new_nan = np.isnan(old), np.isnan(new)
    picked = np.where(old_nan, old, new)
    bits = picked.view(f"u{picked.dtype.itemsize}")
    infinity = int(np.array(np.inf, picked.dtype).view(bits.dtype))
    quiet = (bits | ((infinity & -infinity) >> 1)).view(picked.dtype)  # the top mantissa bit
    return np.where(old_nan | new_nan, quiet, total)


def fold_extremes(buffer: np.ndarray, dest: np.ndarray, read: np.ndarray, values: np.ndarray, keep_max: bool) -> None:
    """Serial `buffer[dest[k]] = max(buffer[read[k]], values[k])` (std::max: the table's value
    unless src is strictly larger; a NaN in src never wins, one in the table sticks; min the
    same way), every write in order k. Each write's result is the first extreme along its chain
    of earlier writes (the last one to the place it reads, and so on), found by doubling."""
    n = dest.size
    if n == 0:
        return
    # the write each one reads: the last earlier write to its read position
    key = dest.astype(np.int64) * (n + 1) + np.arange(n)
    order = np.argsort(key)
    probe = np.searchsorted(key[order], read.astype(np.int64) * (n + 1) + np.arange(n)) - 1
    parent = np.where(probe >= 0, order[np.maximum(probe, 0)], -1)
    parent = np.where((parent >= 0) & (dest[np.maximum(parent, 0)] == read), parent, -1)
    floats = values.dtype.name in FLOAT_DTYPE_NAMES
    wide = values.astype(np.float64) if floats else values.astype(np.int64) if values.dtype.kind == "i" else values.astype(np.uint64)
    if floats:  # a NaN in src never wins: as the weakest value
        wide = np.where(np.isnan(wide), -np.inf if keep_max else np.inf, wide)
    best, jump, root = np.arange(n), parent.copy(), np.arange(n)

    def later_wins(earlier: np.ndarray, later: np.ndarray) -> np.ndarray:
        return wide[earlier] < wide[later] if keep_max else wide[later] < wide[earlier]

    while (active := np.flatnonzero(jump >= 0)).size:
        j = jump[active]
        best[active] = np.where(later_wins(best[j], best[active]), best[active], best[j])
        root[active] = root[j]
        jump[active] = jump[j]
    start = buffer[read[root]]
    start_wide = start.astype(np.float64) if floats else start.astype(wide.dtype)
    take_src = (start_wide < wide[best]) if keep_max else (wide[best] < start_wide)
    if floats:
        take_src &= ~np.isnan(start_wide)
    result = np.where(take_src, values[best], start)
    where, which = surviving_writes(dest, np.arange(n))
    buffer[where] = result[which]


def apply_writes(buffer: np.ndarray, dest: np.ndarray, values: np.ndarray, atomic: ScatterAtomicOp,
                 read: np.ndarray | None = None) -> None:
    """The writes (serial order, flat element offsets into `buffer`) under the atomic op; for a
    plain store the last write to each place survives."""
    match atomic:
        case ScatterAtomicOp.NONE:
            where, which = surviving_writes(dest, np.arange(dest.size))
            buffer[where] = values[which]
        case ScatterAtomicOp.ADD:
            accumulate(buffer, dest, values)
        case ScatterAtomicOp.MAX | ScatterAtomicOp.MIN:
            fold_extremes(buffer, dest, dest if read is None else read, values, atomic == ScatterAtomicOp.MAX)


def _base(table: GmView, batch: tuple[int, ...]) -> np.ndarray:
    """The table view's offset per iteration (a batched view may move)."""
    return np.broadcast_to(np.asarray(table.offset, dtype=np.int64), batch) if batch else np.asarray(table.offset, np.int64)


def _per_iteration(table: GmView, src: Tile, indices: np.ndarray, keep: np.ndarray | None, index_dims: int
                   ) -> tuple[tuple[int, ...], np.ndarray, np.ndarray | None, np.ndarray]:
    """The iteration axis of a batched call (whichever of idx, src and the table's offset has
    it), with the indices, their keep mask and src's valid values spread along it."""
    batch = np.broadcast_shapes(indices.shape[: indices.ndim - index_dims], src.flat.shape[:-1], np.shape(table.offset))
    indices = np.broadcast_to(indices.astype(np.int64), (*batch, *indices.shape[indices.ndim - index_dims :]))
    keep = None if keep is None else np.broadcast_to(keep, indices.shape)
    return batch, indices, keep, np.broadcast_to(src.read_valid(), (*batch, *src.valid_shape))


def mscatter_row(o: dict, *, scatter_atomic_op: ScatterAtomicOp, scatter_oob: ScatterOob, index_read: IndexRead,
                 capacity: Capacity, row_stride: Stride, col_stride: Stride, winner: ScatterWinner,
                 extreme_read: ExtremeRead) -> None:
    """table[base + remap(idx_r) * row_stride + j * col_stride] (op)= src[r, j]."""
    table, idx, src = o["mem"], o["idx"], o["src"]
    vr, vc = src.valid_shape
    if vr == 0 or vc == 0:
        return
    cap = table_capacity(capacity, table)
    raw = row_indices(idx, vr)
    batch, rows, keep, values = _per_iteration(table, src, *_remapped(widen(raw, index_read), cap, scatter_oob, 1), 1)
    rs, cs = stride(row_stride, table, src), stride(col_stride, table, src)
    base = _base(table, batch)[..., None]
    if winner == ScatterWinner.UNORDERED and scatter_atomic_op == ScatterAtomicOp.NONE:
        _collision_error(rows, keep, "table row", lambda r: f"src row {r}")
    starts = base + rows * rs  # iterations x rows
    kept = np.ones(rows.shape, bool) if keep is None else keep
    ends = starts + (vc - 1) * cs

    def dest() -> np.ndarray:  # iterations x rows x cols
        return starts[..., None] + np.arange(vc, dtype=np.int64) * cs

    if (kept & ((np.minimum(starts, ends) < 0) | (np.maximum(starts, ends) >= table.buffer.size))).any():
        _check_span(table.buffer, np.where(kept[..., None], dest(), 0))  # the first element outside
    if scatter_atomic_op in (ScatterAtomicOp.NONE, ScatterAtomicOp.ADD) and cs == 1 and rs >= vc:
        _rows_in_place(table, starts[kept], values[kept], scatter_atomic_op, rs)
        return
    writes = dest()
    read = None
    if scatter_atomic_op in (ScatterAtomicOp.MAX, ScatterAtomicOp.MIN) and extreme_read == ExtremeRead.ROW_INDEX_ELEMENT:
        read = np.broadcast_to((base + rows)[..., None], writes.shape)[kept].reshape(-1)
    apply_writes(table.buffer, writes[kept].reshape(-1), values[kept].reshape(-1), scatter_atomic_op, read)


def _rows_in_place(table: GmView, starts: np.ndarray, values: np.ndarray, atomic: ScatterAtomicOp, rs: int) -> None:
    """Whole rows at once, through a strided view of the table (the common case: unit column
    stride, rows that do not overlap): rows are the units of collision and accumulation.
    `starts` / `values`: every row written (skipped ones left out), in serial order (iterations
    first)."""
    if starts.size == 0:
        return
    vc = values.shape[-1]
    low, high = int(starts.min()), int(starts.max())
    if ((starts - low) % rs).any():  # iterations on different row grids: element by element
        apply_writes(table.buffer, (starts[:, None] + np.arange(vc)).reshape(-1), values.reshape(-1), atomic)
        return
    size = table.buffer.itemsize
    count = (high - low) // rs + 1
    view = np.ndarray((count, vc), table.buffer.dtype, buffer=table.buffer, offset=low * size, strides=(rs * size, size))
    units = (starts - low) // rs
    match atomic:
        case ScatterAtomicOp.ADD:
            accumulate(view, units, values)
        case _:
            where, which = surviving_writes(units, np.arange(units.size))
            view[where] = values[which]


def mscatter_elem(o: dict, *, scatter_atomic_op: ScatterAtomicOp, scatter_oob: ScatterOob, index_read: IndexRead,
                  capacity: Capacity, winner: ScatterWinner) -> None:
    """table_flat[base + remap(idx[r, c])] (op)= src[r, c] (view strides ignored)."""
    table, idx, src = o["mem"], o["idx"], o["src"]
    vr, vc = src.valid_shape
    if vr == 0 or vc == 0:
        return
    remapped = _remapped(widen(elem_indices(idx, vr, vc), index_read), table_capacity(capacity, table), scatter_oob, 2)
    batch, flat, keep, values = _per_iteration(table, src, *remapped, 2)
    flat = flat.reshape(*batch, vr * vc)
    kept = np.ones(flat.shape, bool) if keep is None else keep.reshape(flat.shape)
    if winner == ScatterWinner.UNORDERED and scatter_atomic_op == ScatterAtomicOp.NONE:
        _collision_error(flat, kept, "table element", lambda k: f"idx[{k // vc}, {k % vc}]")
    dest = _base(table, batch)[..., None] + flat
    _check_span(table.buffer, np.where(kept, dest, 0))
    values = values.reshape(*batch, vr * vc)
    apply_writes(table.buffer, dest[kept], values[kept], scatter_atomic_op)


def mscatter_nz(o: dict, *, coalesce: Coalesce, scatter_atomic_op: ScatterAtomicOp, scatter_oob: ScatterOob,
                index_read: IndexRead, capacity: Capacity, write_order: WriteOrder) -> None:
    """a2a3's NZ table from an NZ tile: row mode writes each logical row's S0*S1*C0 columns
    (src row r of every column block), elem mode one element per index."""
    table, idx, src = o["mem"], o["idx"], o["src"]
    s = table.shape5
    c0 = C0_BYTES // table.buffer.itemsize
    n_rows, n_cols = s[2] * FRACTAL_NZ_ROW, s[0] * s[1] * c0
    vr, vc = src.valid_shape
    cap = table_capacity(capacity, table)
    if coalesce == Coalesce.ROW:
        rows, keep = _remapped(widen(row_indices(idx, vr), index_read), cap, scatter_oob, 1)
        x, y = rows.astype(np.int64)[:, None], np.arange(n_cols, dtype=np.int64)[None, :]
        if n_cols > src.type.shape[1]:
            raise RuntimeFault(f"row mode writes the table's {n_cols} logical columns, src has {src.type.shape[1]}")
        values = src.values[:vr, :n_cols]
        kept = np.ones((vr, n_cols), bool) if keep is None else np.broadcast_to(keep[:, None], (vr, n_cols))
    else:
        flat, keep = _remapped(widen(elem_indices(idx, vr, vc), index_read), cap, scatter_oob, 2)
        x, y = np.divmod(flat.astype(np.int64), n_cols)
        values = src.read_valid()
        kept = np.ones((vr, vc), bool) if keep is None else keep
    block_c0 = c0 if write_order == WriteOrder.BLOCK_COLUMNS else None  # column block, then row, then column in it
    order = in_loop_order(np.arange(kept.size).reshape(kept.shape), block_c0)
    dest = np.broadcast_to(table.offset + nz_offset(x, y, n_rows, c0), kept.shape)
    _check_span(table.buffer, np.where(kept, dest, 0))
    serial = order[kept.reshape(-1)[order]]
    apply_writes(table.buffer, dest.reshape(-1)[serial], values.reshape(-1)[serial], scatter_atomic_op)


def mscatter_footprint(o: dict, row: bool, **_: object) -> Footprint:
    """src and idx read; the table written at data-dependent places of its whole buffer, which
    a batched loop may only hold if nothing else in it touches that buffer (interpreter/batch.py)."""
    table, idx, src = o["mem"], o["idx"], o["src"]
    idx_reads = row_index_reads(idx, src.valid_row) if row else rect(idx, *src.valid_shape)
    return Footprint([(src, False, valid_rect(src)), (idx, False, idx_reads)], [(table, True, True)])


class MScatterBase(LoweredOp):
    """MSCATTER: ins(src, idx) outs(table)."""

    SOURCE: ClassVar[type[PtoInstructionOp]] = MScatterOp
    coalesce = prop_def(CoalesceAttr)
    scatter_atomic_op = prop_def(ScatterAtomicOpAttr, prop_name="scatterAtomicOp")
    scatter_oob = prop_def(ScatterOobAttr, prop_name="scatterOob")
    index_read = prop_def(IndexRead.Attr)
    capacity = prop_def(Capacity.Attr)


class MScatterRowBase(MScatterBase):
    """table[base + remap(idx_r) * row_stride + j * col_stride] (op)= src[r, j]"""

    KERNEL = staticmethod(mscatter_row)
    FOOTPRINT = staticmethod(partial(mscatter_footprint, row=True))
    row_stride = prop_def(Stride.Attr)
    col_stride = prop_def(Stride.Attr)
    winner = prop_def(ScatterWinner.Attr)
    extreme_read = prop_def(ExtremeRead.Attr)


class MScatterElemBase(MScatterBase):
    """table_flat[base + remap(idx[r, c])] (op)= src[r, c]"""

    KERNEL = staticmethod(mscatter_elem)
    FOOTPRINT = staticmethod(partial(mscatter_footprint, row=False))
    winner = prop_def(ScatterWinner.Attr)


class MScatterNzBase(MScatterBase):
    """An NZ tile into an NZ table (a2a3), by logical rows or elements, in `write_order`."""

    KERNEL = staticmethod(mscatter_nz)
    write_order = prop_def(WriteOrder.Attr)


# ---------------------------------------------------------------------------
# What it costs
#
# Data-dependent counts (Work), measured by `pto-run --profile`:
#   rows_written  (row mode) rows a write is issued for: all but the out-of-range ones under
#                 skip (estimate: every src valid row)
#   lines         (a2a3 elem mode) GM lines the store loop moves to, in loop order, over the
#                 stores it makes: each store leaving the line of the store before (estimate:
#                 every element)
#   segments      (a5 SIMT) 128-byte GM segments the warps write: a written row's span, or
#                 per 32 consecutive lanes the distinct segments of their stores; with
#                 scatterConflict = last, per 32 consecutive table rows (elements) the
#                 distinct segments of their winners' stores, column by column (estimate:
#                 aligned rows; last rows and elements: one per element)


def _cce(op: MScatterBase, o: dict, machine: CceMachine, work: Work) -> OpCost:
    """npu/a2a3/MScatter.hpp: row mode one copy_ubuf_to_gm per written row (ND), gShape0
    multi-burst copies of gShape1 32-byte blocks per written row (NZ), an atomic add between
    set_atomic_<type>, set_atomic_add and set_atomic_none; elem mode a scalar loop (an NZ
    table: column block by column block), each GM line it moves to written back UB->GM (an
    atomic add reads it too: filled GM->UB). Its pipe flags cost nothing in the cost model
    (they resolve to the CPU stub's)."""
    src, table, t = o["src"], o["mem"], machine.trace()
    vr, vc = src.valid_shape
    add = op.scatter_atomic_op.data == ScatterAtomicOp.ADD
    if not row_mode(op):
        scalar_loop(t, vr * vc, work, DmaPath.UB_TO_GM, *([DmaPath.GM_TO_UB] if add else []))
        return t.cost(Pipe.SCALAR, exact=False)
    rows = work.get("rows_written", vr)
    if add:
        t.call(2)  # set_atomic_<type>, set_atomic_add
    if isinstance(op, MScatterNzBase):
        s0, s1 = table.shape5[:2]
        t.dma(DmaPath.UB_TO_GM, s1 * C0_BYTES, times=rows * s0)
    else:
        t.dma(DmaPath.UB_TO_GM, vc * src.elem.bytes, times=rows)
    if add:
        t.call()  # set_atomic_none
    exact = not add and op.scatter_oob.data == ScatterOob.UNDEFINED
    return t.cost(Pipe.MTE3, exact=exact, idle=machine.idle_vector, elements=vr * vc)


def _slot_owners(op: MScatterBase) -> bool:
    """a5 `last` (no atomic op): the kernels give each lane table rows (elements) and store
    the last writer's values (simt_mscatter_*_last_kernel)."""
    return op.scatter_atomic_op.data == ScatterAtomicOp.NONE and op.winner.data == ScatterWinner.LAST_IN_ORDER  # pyright: ignore[reportAttributeAccessIssue]


def _vf(op: MScatterBase, o: dict, machine: VfMachine, work: Work) -> OpCost:
    """npu/a5/MScatter.hpp: a SIMT launch whose warps' stores coalesce into 128-byte GM bursts
    written at the UB->GM bandwidth (atomic updates priced as stores: no documented atomic
    cost): row mode warps over 32 columns of a written row; elem mode a lane per element (the
    (1, 1) case: one scalar store); scatterConflict = last a lane per table row (element) that
    stores its last writer's row column by column (its element), its reverse scan not priced."""
    src = o["src"]
    vr, vc = src.valid_shape
    burst = int(machine.burst_bytes.value)
    if row_mode(op) and not _slot_owners(op):
        segments = work.get("segments", vr * -(-vc * src.elem.bytes // burst))
    else:
        segments = work.get("segments", vr * vc)
    return machine.cost(Pipe.VECTOR, segments * burst, machine.dma.cycles(DmaPath.UB_TO_GM, segments * burst))


def _simulated(op: MScatterBase, o: dict, machine: SimulatorMachine, work: Work) -> OpCost:
    """pto-isa cpu/MScatter.hpp: elem mode a loop over every src valid element, row mode over
    the valid columns of each row written."""
    src = o["src"]
    vr, vc = src.valid_shape
    elements = (work.get("rows_written", vr) if row_mode(op) else vr) * vc
    return machine.cost(Pipe.VECTOR, elements * src.elem.bytes, elements)


def _targets(op: MScatterBase, o: dict) -> tuple[np.ndarray, np.ndarray]:
    """Each write's remapped table row (row mode, (..., vr)) or element (elem mode, (..., vr,
    vc)), and which are made."""
    table, idx, src = o["mem"], o["idx"], o["src"]
    vr, vc = src.valid_shape
    if vr == 0 or vc == 0:  # the kernels write nothing and read no index
        shape = (0,) if row_mode(op) else (0, 0)
        return np.zeros(shape, np.uint64), np.zeros(shape, bool)
    cap = table_capacity(op.capacity.data, table)
    if row_mode(op):
        targets, keep = _remapped(widen(row_indices(idx, vr), op.index_read.data), cap, op.scatter_oob.data, 1)
    else:
        targets, keep = _remapped(widen(elem_indices(idx, vr, vc), op.index_read.data), cap, op.scatter_oob.data, 2)
    return targets, np.ones(targets.shape, bool) if keep is None else keep


def _measure_cce(op: MScatterBase, o: dict, machine: CceMachine) -> dict[str, object]:
    targets, kept = _targets(op, o)
    if row_mode(op):
        return {"rows_written": kept.sum(axis=-1)}
    table, nz = o["mem"], isinstance(op, MScatterNzBase)
    lines = elem_addresses(table, targets, nz) // int(machine.scalar_line_bytes.value)
    return {"lines": line_moves(lines, in_loop_order(kept, nz_c0(table, nz)))}


def _measure_simulated(op: MScatterBase, o: dict, machine: SimulatorMachine) -> dict[str, object]:
    return {"rows_written": _targets(op, o)[1].sum(axis=-1)} if row_mode(op) else {}


def _measure_vf(op: MScatterBase, o: dict, machine: VfMachine) -> dict[str, object]:
    table, src = o["mem"], o["src"]
    vr, vc = src.valid_shape
    burst, lanes = int(machine.burst_bytes.value), int(machine.warp_lanes.value)
    size = table.buffer.itemsize
    targets, kept = _targets(op, o)
    if row_mode(op):  # a5's row mode: unit column stride
        starts = row_starts(table, targets, stride(op.row_stride.data, table, src))  # pyright: ignore[reportAttributeAccessIssue]
        if not _slot_owners(op):
            return {"segments": row_bursts(starts, vc * size, burst, kept)}
        segments = (starts[..., None] + np.arange(vc) * size) // burst  # (..., rows, columns)
        keys = [kept[..., None], (targets // lanes)[..., None], np.arange(vc), segments]
        return {"segments": _distinct(*(np.broadcast_to(k, segments.shape).reshape(*segments.shape[:-2], -1) for k in keys))}
    segments = elem_addresses(table, targets, nz=False) // burst
    kept, targets = (a.reshape(*a.shape[:-2], -1) for a in (kept, targets))
    if not _slot_owners(op):
        return {"segments": warp_bursts(segments, lanes, kept)}
    return {"segments": _distinct(kept, targets // lanes, segments)}


def _distinct(kept: np.ndarray, *keys: np.ndarray) -> np.ndarray | int:
    """Per iteration (the leading axes of (..., n) arrays), the distinct tuples of `keys` over
    the kept entries."""
    shape = np.broadcast_shapes(kept.shape, *(k.shape for k in keys))
    iterations = int(np.prod(shape[:-1], dtype=np.int64))
    iteration = np.broadcast_to(np.arange(iterations).reshape(*shape[:-1], 1), shape)
    mask = np.broadcast_to(kept, shape)
    tuples = np.stack([np.broadcast_to(k, shape)[mask].astype(np.int64) for k in (iteration, *keys)], axis=-1)
    counts = np.bincount(np.unique(tuples, axis=0)[:, 0], minlength=iterations)
    return counts.reshape(shape[:-1]) if shape[:-1] else int(counts[0])


COST = InstructionCost(
    on={CceMachine: _cce, VfMachine: _vf, SimulatorMachine: _simulated},
    measure={CceMachine: _measure_cce, VfMachine: _measure_vf, SimulatorMachine: _measure_simulated},
)


# ---------------------------------------------------------------------------
# C++ and the registry entry


def emit(e: Emission, op: MScatterOp) -> None:
    """`MSCATTER<Coalesce::Row, ScatterAtomicOp::None, ScatterOOB::Skip[, ScatterConflict::Last]>(table, src, idx)`;
    without `coalesce`, the untemplated `MSCATTER(table, src, idx)` (each build's default mode)."""
    template: list[str] = []
    if op.coalesce is not None:
        template = [f"Coalesce::{camel(op.coalesce.data)}", f"ScatterAtomicOp::{camel(op.atomic)}",
                    f"ScatterOOB::{camel(op.oob)}"]
        if op.scatter_conflict is not None:
            template.append(f"ScatterConflict::{camel(op.scatter_conflict.data)}")
    e.issue(op, e.call("MSCATTER", [op.mem, op.src, op.idx], template))


MSCATTER = Instruction(
    rules=MScatterRules,
    lowered=(MScatterRowBase, MScatterElemBase, MScatterNzBase),
    emit=emit,
    in_place={"": InPlace(frozenset(), how="", refused="MSCATTER writes GM only: no tile output to alias.")},
    asm=AsmForm(operand_order=(2, 0, 1)),  # `mscatter %mem, %src, %idx : Tm, Ts, Ti`, the docs' type order
    form=lambda op: op.coalesce.data.value if op.coalesce is not None else "",
    cost=COST,
)
