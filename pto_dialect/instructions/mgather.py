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
from typing import ClassVar, cast

from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, opt_prop_def, prop_def
from xdsl.utils.exceptions import VerifyException

from pto_dialect.attributes import Coalesce, CoalesceAttr, GatherExec, GatherExecAttr, GatherOob, GatherOobAttr, GmLayout
from pto_dialect.choices import Capacity, IndexRead, Stride
from pto_dialect.cost import CceMachine, DmaPath, InstructionCost, OpCost, SimulatorMachine, VfMachine, Work
from pto_dialect.facts import INT32, INTEGERS, UNKNOWN, TileFacts, ViewFacts, known, require, require_type, spell
from pto_dialect.gm_index import table_entries, C0_BYTES, FRACTAL_NZ_ROW, check_elem_index, check_nz_table, check_nz_tile, check_packed_rows, check_row_index, elem_addresses, elem_indices, line_moves, nz_offset, read_elements, remap, row_bursts, row_index_reads, row_indices, row_mode, row_starts, scalar_loop, stride, table_capacity, warp_bursts, widen
from pto_dialect.instruction import AsmForm, camel, DocsCells, Emission, InPlace, Instruction, Pipe, RuleRow
from pto_dialect.lowered import LoweredOp
from pto_dialect.machine import Footprint, GmView, RuntimeFault, Tile, np, rect, valid_rect
from pto_dialect.ops.common import PtoInstructionOp, operand_of_role
from pto_dialect.instructions.operands import taking
from pto_dialect.phases import InternalFlag, Phase
from pto_dialect.types import PartitionTensorViewType, TileTypeBase

# ---------------------------------------------------------------------------
# The op


@irdl_op_definition
class MGatherOp(taking("mem", "idx", optional="scratch")):
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

    BUILDER_NAMES: ClassVar[dict[str, str]] = {"mem": "table_view", "idx": "idx_tile", "dst": "dst_tile"}

    mem = operand_of_role("mem")
    idx = operand_of_role("idx")
    scratch = operand_of_role("scratch", optional=True)
    dst = operand_of_role("dst")

    def index_entries(self, value: SSAValue) -> int | None:
        """How many entries `value` selects among when it is the index (random inputs)."""
        return table_entries(self.coalesce, tuple(self.mem.type.shape)) if value is self.idx else None  # pyright: ignore[reportAttributeAccessIssue]

    @property
    def oob(self) -> GatherOob:
        return cast(GatherOobAttr, self.gather_oob or self.DEFAULTS["gatherOob"]).data

    @property
    def is_gm_to_l1(self) -> bool:
        return isinstance(self.dst.type, TileTypeBase) and self.dst.type.loc.data == "mat"

    def verify_operands(self) -> None:
        if self.coalesce is None:
            raise VerifyException("requires attribute 'coalesce'")
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


@dataclass(frozen=True)
class MGatherRules(RuleRow):
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

    def check(self, operands: dict, attrs: Mapping[str, Attribute]) -> None:
        """Raise RuleViolation for the first MGATHER rule of the target that does not hold.

        An explicit `gatherExec` is the op's executor choice; the default (scalar) counts as
        none, as the printer leaves it out. Dims UNKNOWN statically are skipped, as pto-isa's
        MGatherCheck skips `-1` dims.
        """
        dst, table, idx, scratch = operands["dst"], operands["mem"], operands["idx"], operands.get("scratch")
        coalesce = attrs["coalesce"].data  # pyright: ignore[reportAttributeAccessIssue]
        executor = attrs.get("gatherExec")
        gather_exec = executor.data if executor is not None else None  # pyright: ignore[reportAttributeAccessIssue]
        require_type("dst", dst.elem, self.data_types)
        if gather_exec not in (None, GatherExec.SCALAR):
            require(
                self.gather_exec and dst.loc == "mat" and coalesce == Coalesce.ELEM,
                "expects gatherExec = simt only on elem-mode GM->L1 (loc=mat) mgather, which only "
                f"a5 has; got {coalesce.value} mode with a loc={dst.loc} dst",
            )
        if dst.loc == "mat":
            _check_gm_to_l1(coalesce, dst, table, idx, scratch)
            return
        assert isinstance(idx, TileFacts), "structural verification: GM->UB idx is a tile"
        require(dst.loc == "vec", f"expects dst to be a Vec tile (loc=vec), got loc={dst.loc}")
        require(idx.loc == "vec", f"expects idx to be a Vec tile (loc=vec), got loc={idx.loc}")
        require_type("idx", idx.elem, self.index_types)
        require(
            idx.blayout in self.index_blayouts and idx.slayout == "none_box",
            f"expects idx to use blayout {' or '.join(self.index_blayouts)} with slayout=none_box, "
            f"got {idx.layout_text()}",
        )
        layout = table.layout or GmLayout.ND
        require(
            layout in self.table_layouts,
            f"expects the table to use layout {' or '.join(l.value for l in self.table_layouts)}, "
            f"got {layout.value}",
        )
        if layout == GmLayout.NZ:
            check_nz_table(dst, table)
        else:
            require(
                dst.blayout in self.dst_blayouts and dst.slayout == "none_box",
                f"expects dst to use blayout {' or '.join(self.dst_blayouts)} with slayout=none_box "
                f"for an ND table, got {dst.layout_text()}",
            )
        _check_alignment(self, dst)
        if self.nonempty_dst:
            for name, dim in (("rows", dst.valid_row), ("cols", dst.valid_col)):
                if known(dim):
                    require(dim >= 1, f"expects dst valid {name} to be at least 1, got {dim}")
        if coalesce == Coalesce.ROW:
            check_row_index(self.row_index_shapes, dst, idx)
            if self.packed_table_rows:
                check_packed_rows(
                    table, dst, "no inter-row padding",
                    ", no inter-row padding: the kernel reads rows at the valid-column stride",
                )
        else:
            check_elem_index(dst, idx)

    DOCS: ClassVar[DocsCells] = (
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
    )


def _check_alignment(rules: MGatherRules, dst: TileFacts) -> None:
    by_rows = rules.alignment_dim == "major" and dst.blayout == "col_major"
    extent, name = (dst.rows, "Rows") if by_rows else (dst.cols, "Cols")
    require(
        extent * dst.elem.bytes % 32 == 0,
        f"expects dst padded {name} * sizeof(T) to be 32-byte aligned, got "
        f"{extent} * {dst.elem.bytes} = {extent * dst.elem.bytes} bytes",
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
    check_nz_tile(dst, C0_BYTES // dst.elem.bytes)
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


# ---------------------------------------------------------------------------
# The choices a target makes


# ---------------------------------------------------------------------------
# The kernels


def _zero_out(values: np.ndarray, keep: np.ndarray | None) -> np.ndarray:
    """values with the entries outside `keep` zeroed (in place)."""
    if keep is not None:
        values[~keep] = 0
    return values


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


def mgather_elem(o: dict, *, gather_oob: GatherOob, index_read: IndexRead, capacity: Capacity) -> None:
    """dst[r, c] = table_flat[base + remap(idx[r, c])] (view strides ignored)."""
    table, idx, dst = o["mem"], o["idx"], o["dst"]
    vr, vc = dst.valid_shape
    flat, keep = remap(widen(elem_indices(idx, vr, vc), index_read), table_capacity(capacity, table), gather_oob, 2)
    values = read_elements(table.buffer, table.offset + flat.astype(np.int64))
    dst.write_valid(_zero_out(values, keep))


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
    values = read_elements(table.buffer, table.offset + nz_offset(x, y, n_rows, c0))
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
    values = read_elements(table.buffer, offsets)
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
    values = _zero_out(read_elements(table.buffer, table.offset + flat.astype(np.int64)), keep)
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
    index_read = prop_def(IndexRead.Attr)
    capacity = prop_def(Capacity.Attr)


class MGatherRowBase(MGatherBase):
    """dst[r, j] = table[base + remap(idx_r) * row_stride + j * col_stride]"""

    KERNEL = staticmethod(mgather_row)
    FOOTPRINT = staticmethod(mgather_row_footprint)
    row_stride = prop_def(Stride.Attr)
    col_stride = prop_def(Stride.Attr)


class MGatherElemBase(MGatherBase):
    """dst[r, c] = table_flat[base + remap(idx[r, c])]"""

    KERNEL = staticmethod(mgather_elem)
    FOOTPRINT = staticmethod(mgather_elem_footprint)


class MGatherNzBase(MGatherBase):
    """An NZ table into an NZ tile, by logical rows (row mode) or elements."""

    KERNEL = staticmethod(mgather_nz)


L1_GATHER_PHASES = (
    Phase(Pipe.SCALAR, reads=("idx",), writes=("scratch",)),
    Phase(Pipe.MTE2, reads=("mem", "scratch"), writes=("dst",)),
)
"""GM -> L1 on every NPU (PTOAS SyncMacroModel.cpp): the scalar pipe reads the GM index (and,
elem mode, fills the GM scratch), then MTE2 fills the L1 tile; pto-isa keeps S -> MTE2 EVENT_ID0."""
L1_GATHER_FLAGS = (InternalFlag(Pipe.SCALAR, Pipe.MTE2),)


class MGatherRowL1Base(MGatherBase):
    """GM -> L1 (NZ mat tile), row mode; idx is a GM view."""

    KERNEL = staticmethod(mgather_l1_row)
    PHASES: ClassVar[tuple[Phase, ...]] = L1_GATHER_PHASES
    INTERNAL_FLAGS: ClassVar[tuple[InternalFlag, ...]] = L1_GATHER_FLAGS
    row_stride = prop_def(Stride.Attr)


class MGatherElemL1Base(MGatherBase):
    """GM -> L1 (NZ mat tile), elem mode, staged through GM scratch; idx is a GM view.
    `gatherExec` says which core runs the gather (a5)."""

    KERNEL = staticmethod(mgather_l1_elem)
    PHASES: ClassVar[tuple[Phase, ...]] = L1_GATHER_PHASES
    INTERNAL_FLAGS: ClassVar[tuple[InternalFlag, ...]] = L1_GATHER_FLAGS
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
    rules=MGatherRules,
    lowered=(MGatherRowBase, MGatherElemBase, MGatherNzBase, MGatherRowL1Base, MGatherElemL1Base),
    emit=emit,
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

