"""
MGATHER: gather from a GM table into a tile through an index tile (docs/isa: pto-isa's
MGATHER.md).

      row:  dst[r, j] = table[idx[r], j]
      elem: dst[r, c] = table[idx[r, c]]

A `loc=mat` destination selects the GM->L1 path: the index is then a GM view, and elem
mode takes a GM `scratch` view.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from math import prod
from typing import ClassVar, Protocol, cast

from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, opt_prop_def, prop_def
from xdsl.utils.exceptions import VerifyException

from pto_dialect.attributes import (
    Coalesce,
    CoalesceAttr,
    GatherExec,
    GatherExecAttr,
    GatherOob,
    GatherOobAttr,
    GmLayout,
)
from pto_dialect.choices import Capacity, CapacityAttr, IndexRead, IndexReadAttr, Stride, StrideAttr
from pto_dialect.cost import (
    CceMachine,
    CceTrace,
    DmaPath,
    InstructionCost,
    OpCost,
    SimulatorMachine,
    VfMachine,
    Work,
)
from pto_dialect.facts import (
    INT32,
    INTEGERS,
    UNKNOWN,
    RuleViolation,
    TileFacts,
    ViewFacts,
    known,
    per_target,
    require,
    require_type,
    spell,
)
from pto_dialect.instruction import AsmForm, Emission, InPlace, Instruction, Pipe, camel
from pto_dialect.lowered import LoweredOp
from pto_dialect.machine import Footprint, GmView, RuntimeFault, Tile, first_failing, np, rect, valid_rect
from pto_dialect.ops.common import PtoInstructionOp, operand_of_role, Roles
from pto_dialect.types import PartitionTensorViewType, TileTypeBase, dim_text

# ---------------------------------------------------------------------------
# The op


@irdl_op_definition
class MGatherOp(PtoInstructionOp):
    """
    Gather from a GM table into a tile through an index tile (docs/isa: pto-isa's MGATHER.md).

      row:  dst[r, j] = table[idx[r], j]
      elem: dst[r, c] = table[idx[r, c]]

    A `loc=mat` destination selects the GM->L1 path: the index is then a GM view,
    and elem mode takes a GM `scratch` view.

        pto.mgather ins(%mem, %idx[, %scratch] : Tm, Ti[, Ts]) outs(%dst : Td) {coalesce = ...}
        %dst = pto.mgather %mem, %idx {coalesce = ...} : (Tm, Ti) -> Tt
    """

    name = "pto.mgather"

    WORKSPACE: ClassVar[frozenset[str]] = frozenset({"scratch"})

    coalesce = opt_prop_def(CoalesceAttr)
    gather_oob = opt_prop_def(GatherOobAttr, prop_name="gatherOob")
    gather_exec = opt_prop_def(GatherExecAttr, prop_name="gatherExec")

    OMITS_DEFAULTS: ClassVar[bool] = True
    DEFAULTS: ClassVar[dict[str, Attribute]] = {
        "gatherOob": GatherOobAttr(GatherOob.UNDEFINED),
        "gatherExec": GatherExecAttr(GatherExec.SCALAR),
    }

    FORMS: ClassVar[tuple[tuple[int, int], ...]] = ((2, 1), (3, 1))
    BUILDER_NAMES: ClassVar[dict[str, str]] = {"mem": "table_view", "idx": "idx_tile", "dst": "dst_tile"}

    @classmethod
    def operand_roles(cls, n_ins: int, n_outs: int) -> Roles:
        return ("mem", "idx", "scratch")[:n_ins], ("dst",)

    mem = operand_of_role("mem")
    idx = operand_of_role("idx")
    scratch = operand_of_role("scratch", optional=True)
    dst = operand_of_role("dst")

    @property
    def oob(self) -> GatherOob:
        return cast(GatherOobAttr, self.gather_oob or self.DEFAULTS["gatherOob"]).data

    @property
    def is_gm_to_l1(self) -> bool:
        return isinstance(self.dst.type, TileTypeBase) and self.dst.type.loc.data == "mat"

    def verify_(self) -> None:
        self.verify_dps_or_ssa()
        if self.coalesce is None:
            raise VerifyException("requires attribute 'coalesce'")
        if len(self.ins) not in (2, 3):
            raise VerifyException("expects mgather ins(mem, idx[, scratch])")
        if len(self.destinations) != 1:
            raise VerifyException(f"expects exactly one dst, got {len(self.destinations)}")
        mem = self.expect_view("mem", self.mem)
        dst = self.expect_tile("dst", self.dst)
        if self.is_gm_to_l1:
            if isinstance(self.idx.type, TileTypeBase):
                raise VerifyException(
                    "expects GM->L1 mgather idx to be a GM tensor partition_tensor_view, not a tile_buf"
                )
            if not isinstance(self.idx.type, PartitionTensorViewType):
                raise VerifyException(
                    f"expects GM->L1 mgather idx to be a partition_tensor_view, got {self.idx.type}"
                )
            if self.scratch is not None:
                scratch = self.scratch.type
                if not isinstance(scratch, PartitionTensorViewType):
                    raise VerifyException(
                        f"expects GM->L1 mgather scratch to be a partition_tensor_view, got {scratch}"
                    )
                if scratch.element_type != dst.element_type:
                    raise VerifyException(
                        "expects GM->L1 mgather scratch element type to match dst element type, "
                        f"got {scratch.element_type} and {dst.element_type}"
                    )
        else:
            if self.scratch is not None:
                raise VerifyException("expects scratch operand only on GM->L1 (loc=mat) mgather")
            self.expect_tile_in("idx", self.idx)
        if mem.element_type != dst.element_type:
            raise VerifyException(
                "expects mem element type to match dst element type, "
                f"got {mem.element_type} and {dst.element_type}"
            )


# ---------------------------------------------------------------------------
# What each target accepts


FRACTAL_NZ_ROW = 16
C0_BYTES = 32


@dataclass(frozen=True)
class MGatherRules:
    """One target's MGATHER rules."""

    data_types: frozenset[str]
    """dst / table element types."""
    index_types: frozenset[str]
    table_layouts: tuple[GmLayout, ...]
    """GM table layouts (GM->UB); a2a3 pairs an NZ table with an NZ dst tile."""
    dst_blayouts: tuple[str, ...]
    """dst tile blayouts for an ND table (slayout none_box)."""
    index_blayouts: tuple[str, ...]
    row_index_shapes: tuple[str, ...]
    """Row-mode index valid shapes: "1xR" (a row-major tile) and/or "Rx1" (a col-major tile),
    R = dst valid rows: either way idx_r is storage element r."""
    alignment_dim: str
    """"cols": padded Cols*sizeof(T) % 32 == 0; "major": Cols if row-major, Rows if col-major."""
    packed_table_rows: bool
    """Row mode reads the table with row stride = dst valid cols: Shape[4] == dst ValidCol."""
    nonempty_dst: bool
    """dst valid rows and cols must be >= 1."""
    gather_exec: bool
    """`gatherExec` chooses the elem GM->L1 executor."""
    note: str
    """Why this row differs from the others or from PTOAS, for the docs."""


def check(rules: MGatherRules, operands: dict, attrs: Mapping[str, Attribute], target: str) -> None:
    """Raise RuleViolation for the first MGATHER rule of the target that does not hold.

    An explicit `gatherExec` is the op's executor choice; the default (scalar) counts as
    none, as the printer leaves it out. Dims UNKNOWN statically are skipped, as pto-isa's
    MGatherCheck skips `-1` dims.
    """
    dst, table, idx, scratch = operands["dst"], operands["mem"], operands["idx"], operands.get("scratch")
    coalesce = attrs["coalesce"].data  # pyright: ignore[reportAttributeAccessIssue]
    executor = attrs.get("gatherExec")
    gather_exec = executor.data if executor is not None else None  # pyright: ignore[reportAttributeAccessIssue]
    require_type("dst", dst.elem, rules.data_types)
    if gather_exec not in (None, GatherExec.SCALAR):
        require(
            rules.gather_exec and dst.loc == "mat" and coalesce == Coalesce.ELEM,
            "expects gatherExec = simt only on elem-mode GM->L1 (loc=mat) mgather, which only "
            f"a5 has; got {coalesce.value} mode with a loc={dst.loc} dst",
        )
    if dst.loc == "mat":
        _check_gm_to_l1(coalesce, dst, table, idx, scratch)
        return
    assert isinstance(idx, TileFacts), "structural verification: GM->UB idx is a tile"
    require(dst.loc == "vec", f"expects dst to be a Vec tile (loc=vec), got loc={dst.loc}")
    require(idx.loc == "vec", f"expects idx to be a Vec tile (loc=vec), got loc={idx.loc}")
    require_type("idx", idx.elem, rules.index_types)
    require(
        idx.blayout in rules.index_blayouts and idx.slayout == "none_box",
        f"expects idx to use blayout {' or '.join(rules.index_blayouts)} with slayout=none_box, "
        f"got {idx.layout_text()}",
    )
    layout = table.layout or GmLayout.ND
    require(
        layout in rules.table_layouts,
        f"expects the table to use layout {' or '.join(l.value for l in rules.table_layouts)}, "
        f"got {layout.value}",
    )
    if layout == GmLayout.NZ:
        check_nz_table(dst, table)
    else:
        require(
            dst.blayout in rules.dst_blayouts and dst.slayout == "none_box",
            f"expects dst to use blayout {' or '.join(rules.dst_blayouts)} with slayout=none_box "
            f"for an ND table, got {dst.layout_text()}",
        )
    _check_alignment(rules, dst)
    if rules.nonempty_dst:
        for name, dim in (("rows", dst.valid_row), ("cols", dst.valid_col)):
            if known(dim):
                require(dim >= 1, f"expects dst valid {name} to be at least 1, got {dim}")
    if coalesce == Coalesce.ROW:
        check_row_index(rules.row_index_shapes, dst, idx)
        if rules.packed_table_rows and known(table.shape5[4], dst.valid_col):
            require(
                table.shape5[4] == dst.valid_col,
                "expects the table's inner dim (Shape[4]) to equal dst valid cols "
                f"(no inter-row padding), got {table.shape5[4]} and {dst.valid_col}",
            )
        if rules.packed_table_rows and len(table.shape) >= 2 and known(table.row_stride, table.shape[-1]):
            require(
                table.row_stride == table.shape[-1],
                "expects the table's rows packed (row stride == its cols, no inter-row padding: the "
                f"kernel reads rows at the valid-column stride), got row stride {table.row_stride} "
                f"for {table.shape[-1]} cols",
            )
    else:
        check_elem_index(dst, idx)


def _check_alignment(rules: MGatherRules, dst: TileFacts) -> None:
    by_rows = rules.alignment_dim == "major" and dst.blayout == "col_major"
    extent, name = (dst.rows, "Rows") if by_rows else (dst.cols, "Cols")
    require(
        extent * dst.elem.bytes % 32 == 0,
        f"expects dst padded {name} * sizeof(T) to be 32-byte aligned, got "
        f"{extent} * {dst.elem.bytes} = {extent * dst.elem.bytes} bytes",
    )


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
    _check_nz_tile(dst, c0)


def _check_nz_tile(dst: TileFacts, c0: int) -> None:
    require(
        dst.cols % c0 == 0,
        f"expects {dst.role} padded cols to be a multiple of {c0} (C0 = 32 / sizeof(T)), got {dst.cols}",
    )
    require(
        dst.rows % FRACTAL_NZ_ROW == 0,
        f"expects {dst.role} padded rows to be a multiple of {FRACTAL_NZ_ROW} (FRACTAL_NZ_ROW), got {dst.rows}",
    )


def _check_gm_to_l1(
    coalesce: Coalesce,
    dst: TileFacts,
    table: ViewFacts,
    idx: TileFacts | ViewFacts,
    scratch: ViewFacts | None,
) -> None:
    require(
        dst.blayout == "col_major" and dst.slayout == "row_major",
        "expects GM->L1 mgather dst (loc=mat) to use blayout=col_major and slayout=row_major (NZ), "
        f"got {dst.layout_text()}",
    )
    require(dst.fractal == 512, f"expects GM->L1 mgather dst fractal size to be 512, got {dst.fractal}")
    _check_nz_tile(dst, C0_BYTES // dst.elem.bytes)
    assert isinstance(idx, ViewFacts), "structural verification: GM->L1 idx is a view"
    require_type("GM->L1 mgather idx", idx.elem, INT32)
    layout = table.layout or GmLayout.ND
    require(layout == GmLayout.ND, f"expects the GM->L1 table to use layout nd, got {layout.value}")
    if coalesce == Coalesce.ELEM:
        require(scratch is not None, "expects GM->L1 mgather with coalesce=elem to provide a GM scratch operand")
        assert scratch is not None
        need, have = dst.rows * dst.cols, scratch.element_count
        if have != UNKNOWN:
            require(
                have >= need,
                f"expects GM->L1 mgather scratch to hold at least Rows * Cols = {need} elements, got {have}",
            )
        check_elem_index(dst, idx)
    else:
        require(scratch is None, "expects GM->L1 mgather with coalesce=row to omit the scratch operand")


def describe(t: dict[str, MGatherRules]) -> list[tuple[str, dict[str, str]]]:
    """Rows of the docs table: rule, then what each target requires."""
    return per_target(t, [
        ("dst / table element type", lambda r: spell(r.data_types)),
        ("idx element type", lambda r: spell(r.index_types) if r.index_types != INTEGERS else "any integer"),
        ("GM table layout (GM->UB)", lambda r: ", ".join(l.value for l in r.table_layouts)),
        ("dst blayout (ND table)", lambda r: ", ".join(r.dst_blayouts) + " (slayout none_box)"),
        ("idx blayout", lambda r: ", ".join(r.index_blayouts) + " (slayout none_box)"),
        ("row-mode idx valid shape", lambda r: ", ".join({"1xR": "[1, R] row-major", "Rx1": "[R, 1] col-major"}[s] for s in r.row_index_shapes)),
        ("32-byte aligned dim", lambda r: "padded Cols*sizeof(T)" if r.alignment_dim == "cols" else "Cols*sizeof(T) row-major, Rows*sizeof(T) col-major"),
        ("row mode: table Shape[4] == dst valid cols, rows packed (row stride == cols)", lambda r: "yes" if r.packed_table_rows else "no"),
        ("dst valid shape non-empty", lambda r: "yes (static dims)" if r.nonempty_dst else "no (empty is a no-op)"),
        ("elem mode: idx valid shape == dst valid shape", lambda r: "yes"),
        ("NZ table (a2a3): Shape[3] = 16, Shape[4] = C0, dst NZ, Cols % C0 = 0, Rows % 16 = 0", lambda r: "yes" if GmLayout.NZ in r.table_layouts else "n/a"),
        ("GM->L1 (loc=mat): NZ dst, fractal 512, Cols % C0, Rows % 16, GM i32/ui32 idx, ND table, scratch iff elem (>= Rows*Cols)", lambda r: "yes"),
        ("gatherExec = simt", lambda r: "elem GM->L1 only" if r.gather_exec else "rejected"),
        ("why", lambda r: r.note),
    ])


# ---------------------------------------------------------------------------
# The choices a target makes


# ---------------------------------------------------------------------------
# The kernels


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
    match which:
        case Stride.ONE:
            return 1
        case Stride.VALID_COLS:
            return dst.valid_col
        case Stride.T3:
            return table.strides5[3]
        case Stride.T4:
            return table.strides5[4]


def strided_rows(buffer: np.ndarray, offset: int, rows: int, cols: int, row_stride: int, col_stride: int,
                 iteration: int | None = None) -> np.ndarray:
    """A rows x cols view of `buffer` (element strides), refusing to reach outside it."""
    last = offset + (rows - 1) * row_stride + (cols - 1) * col_stride
    if offset < 0 or last >= buffer.size or row_stride < 0 or col_stride < 0:
        raise RuntimeFault(f"reads up to element {last} of a GM buffer of {buffer.size} elements", iteration)
    size = buffer.itemsize
    return np.ndarray((rows, cols), buffer.dtype, buffer=buffer, offset=offset * size,
                      strides=(row_stride * size, col_stride * size))


def mgather_row(o: dict, *, gather_oob: GatherOob, index_read: IndexRead, capacity: Capacity, row_stride: Stride,
                col_stride: Stride) -> None:
    """dst[r, j] = table[base + remap(idx_r) * row_stride + j * col_stride], r < vr, j < vc."""
    table, idx, dst = o["mem"], o["idx"], o["dst"]
    vr, vc = dst.valid_shape
    cap = table_capacity(capacity, table)
    rows, keep = remap(widen(row_indices(idx, vr), index_read), cap, gather_oob, 1)
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


def mgather_elem(o: dict, *, gather_oob: GatherOob, index_read: IndexRead, capacity: Capacity) -> None:
    """dst[r, c] = table_flat[base + remap(idx[r, c])] (view strides ignored)."""
    table, idx, dst = o["mem"], o["idx"], o["dst"]
    vr, vc = dst.valid_shape
    flat, keep = remap(widen(elem_indices(idx, vr, vc), index_read), table_capacity(capacity, table), gather_oob, 2)
    values = _read(table.buffer, table.offset + flat.astype(np.int64))
    dst.write_valid(_zero_out(values, keep))


def nz_offset(x: np.ndarray, y: np.ndarray, n_rows: int, c0: int) -> np.ndarray:
    """Offset of logical (x, y) in an NZ matrix of n_rows rows."""
    return (y // c0) * n_rows * c0 + x * c0 + (y % c0)


def mgather_nz(o: dict, *, coalesce: Coalesce, gather_oob: GatherOob, index_read: IndexRead,
               capacity: Capacity) -> None:
    """a2a3 NZ table into an NZ tile: logical rows LR = S2*16, logical cols LC = S0*S1*C0."""
    table, idx, dst = o["mem"], o["idx"], o["dst"]
    row_mode, oob = coalesce == Coalesce.ROW, gather_oob
    s = table.shape5
    c0 = C0_BYTES // table.buffer.itemsize
    n_rows, n_cols = s[2] * FRACTAL_NZ_ROW, s[0] * s[1] * c0
    vr, vc = dst.valid_shape
    cap = table_capacity(capacity, table)
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


def mgather_l1_row(o: dict, *, gather_oob: GatherOob, index_read: IndexRead, capacity: Capacity,
                   row_stride: Stride) -> None:
    """GM -> L1 row mode: vc elements of table row remap(idx_r) into NZ tile row r."""
    table, idx, dst = o["mem"], o["idx"], o["dst"]
    if gather_oob == GatherOob.ZERO:
        dst.flat[:] = 0
    vr, vc = dst.valid_shape
    rows, keep = remap(widen(row_indices(idx, vr), index_read), table_capacity(capacity, table), gather_oob, 1)
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


def mgather_l1_elem(o: dict, *, gather_oob: GatherOob, index_read: IndexRead, capacity: Capacity) -> None:
    """GM -> L1 elem mode: gather into zero-filled GM scratch at NZ offsets, copy the
    whole image to L1 (every non-valid slot becomes 0; scratch keeps the image)."""
    table, idx, scratch, dst = o["mem"], o["idx"], o["scratch"], o["dst"]
    vr, vc = dst.valid_shape
    flat, keep = remap(widen(elem_indices(idx, vr, vc), index_read), table_capacity(capacity, table), gather_oob, 2)
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


def _index_read(idx: Tile | GmView, reads: np.ndarray | None) -> Footprint:
    if isinstance(idx, GmView):
        return Footprint([], [(idx, False, True)])
    return Footprint([(idx, False, reads)], [])


def row_index_reads(idx: Tile, count: int) -> np.ndarray:
    """What row_indices reads: the index tile's first row (or column), up to `count` entries."""
    if idx.valid_row == 1:
        return rect(idx, 1, min(count, idx.valid_col))
    return rect(idx, min(count, idx.valid_row), 1)


def mgather_row_footprint(o: dict, **_: object) -> Footprint:
    table, idx, dst = o["mem"], o["idx"], o["dst"]
    reads = _index_read(idx, row_index_reads(idx, dst.valid_row) if isinstance(idx, Tile) else None)
    return Footprint([*reads.tiles, (dst, True, valid_rect(dst))], [(table, False, True), *reads.views])


def mgather_elem_footprint(o: dict, **_: object) -> Footprint:
    table, idx, dst = o["mem"], o["idx"], o["dst"]
    reads = _index_read(idx, rect(idx, *dst.valid_shape) if isinstance(idx, Tile) else None)
    return Footprint([*reads.tiles, (dst, True, valid_rect(dst))], [(table, False, True), *reads.views])


class MGatherBase(LoweredOp):
    """MGATHER: ins(table, idx[, scratch]) outs(dst)."""

    SOURCE: ClassVar[type[PtoInstructionOp]] = MGatherOp
    coalesce = prop_def(CoalesceAttr)
    gather_oob = prop_def(GatherOobAttr, prop_name="gatherOob")
    index_read = prop_def(IndexReadAttr)
    capacity = prop_def(CapacityAttr)


class MGatherRowBase(MGatherBase):
    """dst[r, j] = table[base + remap(idx_r) * row_stride + j * col_stride]"""

    KERNEL = staticmethod(mgather_row)
    FOOTPRINT = staticmethod(mgather_row_footprint)
    row_stride = prop_def(StrideAttr)
    col_stride = prop_def(StrideAttr)


class MGatherElemBase(MGatherBase):
    """dst[r, c] = table_flat[base + remap(idx[r, c])]"""

    KERNEL = staticmethod(mgather_elem)
    FOOTPRINT = staticmethod(mgather_elem_footprint)


class MGatherNzBase(MGatherBase):
    """An NZ table into an NZ tile, by logical rows (row mode) or elements."""

    KERNEL = staticmethod(mgather_nz)


class MGatherRowL1Base(MGatherBase):
    """GM -> L1 (NZ mat tile), row mode; idx is a GM view."""

    KERNEL = staticmethod(mgather_l1_row)
    row_stride = prop_def(StrideAttr)


class MGatherElemL1Base(MGatherBase):
    """GM -> L1 (NZ mat tile), elem mode, staged through GM scratch; idx is a GM view.
    `gatherExec` says which core runs the gather (a5)."""

    KERNEL = staticmethod(mgather_l1_elem)
    gather_exec = opt_prop_def(GatherExecAttr, prop_name="gatherExec")


# ---------------------------------------------------------------------------
# What it costs
#
# Data-dependent counts (Work), measured by `pto-run --profile`:
#   rows_read  rows whose transfer is issued: all but the out-of-range ones in zero mode
#              (estimate: every dst valid row)
#   lines      (a2a3 scalar gathers) GM lines the loop's reads move to, in loop order: each
#              read leaving the line of the read before fills a new one (estimate: every element)
#   segments   (a5 SIMT gathers) 128-byte GM segments the warps read: per 32 consecutive
#              lanes, the distinct segments (row mode: the segments each read row spans)
#              (estimate: every element one; row mode: aligned rows)


class Coalesced(Protocol):
    """A lowered MGATHER or MSCATTER: its mode recorded in `coalesce`."""

    @property
    def coalesce(self) -> CoalesceAttr: ...


def row_mode(op: Coalesced) -> bool:
    return op.coalesce.data == Coalesce.ROW


def _cce(op: MGatherBase, o: dict, machine: CceMachine, work: Work) -> OpCost:
    """npu/a2a3/MGather.hpp: one copy_gm_to_ubuf per read row (ND), gShape0 multi-burst
    copies per read row (NZ), an ND2NZ copy_gm_to_cbuf per read row (GM->L1, a zero mode first
    clears the tile); elem mode is a scalar loop (GM->L1: into zeroed GM scratch, then one
    copy). Its pipe flags cost nothing in the cost model (they resolve to the CPU stub's)."""
    dst, table, t = o["dst"], o["mem"], machine.trace()
    vr, vc = dst.valid_shape
    size = dst.elem.bytes
    rows = work.get("rows_read", vr)
    idle = {"idle": machine.idle_vector, "elements": vr * vc}
    match op:
        case MGatherRowBase():
            t.dma(DmaPath.GM_TO_UB, vc * size, times=rows)
            return t.cost(Pipe.MTE2, exact=op.gather_oob.data == GatherOob.UNDEFINED, **idle)
        case MGatherNzBase() if row_mode(op):
            s0, s1 = table.shape5[:2]
            t.dma(DmaPath.GM_TO_UB, s1 * C0_BYTES, times=rows * s0)
            return t.cost(Pipe.MTE2, exact=False, **idle)
        case MGatherRowL1Base():
            if op.gather_oob.data == GatherOob.ZERO:  # pto_create_cbuf_matrix
                t.dma(DmaPath.L1_FILL, dst.rows * dst.cols * size)
            t.dma(DmaPath.GM_TO_L1, vc * size, times=rows)
            return t.cost(Pipe.MTE2, exact=False, **idle)
        case MGatherElemL1Base():
            t.call(dst.rows * dst.cols)  # zeroing the GM scratch
            scalar_loop(t, vr * vc, work, DmaPath.GM_TO_UB)
            t.call()  # dsb
            t.dma(DmaPath.GM_TO_L1, dst.rows * dst.cols * size)
            return t.cost(Pipe.MTE2, exact=False)
    scalar_loop(t, vr * vc, work, DmaPath.GM_TO_UB)  # MGatherElemBase, elem-mode MGatherNzBase
    return t.cost(Pipe.SCALAR, exact=False)


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


def _vf(op: MGatherBase, o: dict, machine: VfMachine, work: Work) -> OpCost:
    """npu/a5/MGather.hpp: a SIMT launch whose warps' reads coalesce into 128-byte GM
    bursts (the (1, 1) elem case: one scalar read); GM->L1 row mode an ND2NZ copy per read
    row, elem mode a gather into GM scratch then one copy of the tile."""
    dst = o["dst"]
    vr, vc = dst.valid_shape
    size = dst.elem.bytes
    burst = int(machine.burst_bytes.value)
    match op:
        case MGatherRowL1Base():
            rows = work.get("rows_read", vr)
            return machine.cost(Pipe.MTE2, rows * vc * size, machine.dma.cycles(DmaPath.GM_TO_L1, vc * size) * rows)
        case MGatherRowBase():
            segments = work.get("segments", work.get("rows_read", vr) * -(-vc * size // burst))
            cycles = machine.dma.cycles(DmaPath.GM_TO_UB, segments * burst)
        case _:
            segments = work.get("segments", vr * vc)
            cycles = machine.dma.cycles(DmaPath.GM_TO_UB, segments * burst)
            if isinstance(op, MGatherElemL1Base):
                tile = dst.rows * dst.cols * size
                return machine.cost(Pipe.MTE2, segments * burst + tile, cycles + machine.dma.cycles(DmaPath.GM_TO_L1, tile))
    return machine.cost(Pipe.VECTOR, segments * burst, cycles)


def _simulated(op: MGatherBase, o: dict, machine: SimulatorMachine, work: Work) -> OpCost:
    """pto-isa cpu/MGather.hpp: a loop over every dst valid element."""
    dst = o["dst"]
    elements = dst.valid_row * dst.valid_col
    return machine.cost(Pipe.VECTOR, elements * dst.elem.bytes, elements)


def _rows_read(op: MGatherBase, o: dict) -> np.ndarray | int:
    table, idx, dst = o["mem"], o["idx"], o["dst"]
    vr = dst.valid_row
    if op.gather_oob.data != GatherOob.ZERO:
        return vr
    u = widen(row_indices(idx, vr), op.index_read.data)
    return (u < table_capacity(op.capacity.data, table)).sum(axis=-1)


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


def _elem_addresses(op: MGatherBase, o: dict) -> np.ndarray:
    """The byte address each elem-mode read reads, in loop order; a lane the zero mode skips
    counts as reading element 0."""
    table, idx, dst = o["mem"], o["idx"], o["dst"]
    vr, vc = dst.valid_shape
    flat, _ = remap(widen(elem_indices(idx, vr, vc), op.index_read.data), table_capacity(op.capacity.data, table),
                    op.gather_oob.data, 2)
    return elem_addresses(table, flat, isinstance(op, MGatherNzBase))


def _measure_cce(op: MGatherBase, o: dict, machine: CceMachine) -> dict[str, object]:
    if row_mode(op):
        return {"rows_read": _rows_read(op, o)}
    return {"lines": line_moves(_elem_addresses(op, o) // int(machine.scalar_line_bytes.value))}


def _measure_vf(op: MGatherBase, o: dict, machine: VfMachine) -> dict[str, object]:
    burst, lanes = int(machine.burst_bytes.value), int(machine.warp_lanes.value)
    if isinstance(op, MGatherRowL1Base):
        return {"rows_read": _rows_read(op, o)}
    if isinstance(op, MGatherRowBase):
        table, idx, dst = o["mem"], o["idx"], o["dst"]
        vr, vc = dst.valid_shape
        rows, keep = remap(widen(row_indices(idx, vr), op.index_read.data), table_capacity(op.capacity.data, table),
                           op.gather_oob.data, 1)
        start = row_starts(table, rows, stride(op.row_stride.data, table, dst))
        return {"segments": row_bursts(start, vc * table.buffer.itemsize, burst, keep)}
    return {"segments": warp_bursts(_elem_addresses(op, o) // burst, lanes)}


COST = InstructionCost(
    on={CceMachine: _cce, VfMachine: _vf, SimulatorMachine: _simulated},
    measure={CceMachine: _measure_cce, VfMachine: _measure_vf},
)


# ---------------------------------------------------------------------------
# C++ and the registry entry


def emit(e: Emission, op: MGatherOp) -> None:
    """`MGATHER<Coalesce::Row, GatherOOB::Clamp[, GatherExec::Simt]>(dst, table, idx[, scratch])`."""
    assert op.coalesce is not None, "verified"
    template = [f"Coalesce::{camel(op.coalesce.data)}", f"GatherOOB::{camel(op.oob)}"]
    if op.gather_exec is not None and op.gather_exec.data != GatherExec.SCALAR:
        template.append(f"GatherExec::{camel(op.gather_exec.data)}")
    e.issue(op, e.call("MGATHER", [op.dst, *op.ins], template))


MGATHER = Instruction(
    op=MGatherOp,
    rules=MGatherRules,
    check=check,
    describe=describe,
    lowered=(MGatherRowBase, MGatherElemBase, MGatherNzBase, MGatherRowL1Base, MGatherElemL1Base),
    emit=emit,
    pipe=Pipe.VECTOR,
    in_place={
        "elem": InPlace(
            frozenset({"idx"}),
            how="idx[r, c] is read before dst[r, c] is written on every target (the simulator's loop, "
            "a2a3's MGatherElemImpl scalar loop, one a5 SIMT thread per element)",
            refused="only dst over idx is computed in place.",
        ),
        "row": InPlace(
            frozenset(),
            how="",
            refused="a dst row (Cols elements) is wider than an index: writing row r overwrites "
            "indices of later rows before they are read.",
        ),
    },
    asm=AsmForm(implied={"coalesce": CoalesceAttr(Coalesce.ROW)}),
    form=lambda op: op.coalesce.data.value if op.coalesce is not None else "",
    cost=COST,
)

