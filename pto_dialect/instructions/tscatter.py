"""
TSCATTER: scatter inside a tile (pto-isa's TSCATTER.md), in two forms:

      index: dst.flat[indexes[i, j]] = src[i, j]      (i, j) < the indexes' valid shape
      mask:  row axis: dst[i, t*j + k] = src[i, j], zeros between (period t, position k of the
             pattern: P0101 -> t = 2, k = 0); col axis: dst[t*i + k, j] = src[i, j]; P1111 copies

        pto.tscatter ins(%src, %idx : Ts, Ti) outs(%dst : Td)
        pto.tscatter ins(%src, {maskPattern = #pto.mask_pattern<P0101>} : Ts, "row") outs(%dst : Td)
        %dst = pto.tscatter %src, %idx : (Ts, Ti) -> Td
        %dst = pto.tscatter %src {maskPattern = #pto.mask_pattern<P0101>, axis = "col"} : Ts -> Td

Every target's code (cpu/TScatter.hpp, a2a3/TScatter.hpp, a5/TScatter.hpp) offsets the index
into dst's storage (TSCATTER.md's `dst[idx[i, j], j]` is not what the code does: the code wins).
a2a3 and a5 zero the whole dst tile first; the simulator writes only the scattered elements.
Colliding indices: the last write in row-major order wins on cpu and a2a3 (scalar loops); a5
scatters each row in vscatters of one register of indices, the lowest lane winning within one
(pto-isa's vscatter.md), later ones overwriting. An index outside dst's storage writes
outside the tile on every target: a run-time fault here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from math import prod
from typing import ClassVar

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, opt_prop_def, prop_def
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from pto_dialect.attributes import MaskPattern, MaskPatternAttr
from pto_dialect.choices import DstFill, IndexRead, MaskSource, ScatterWinner, SrcRead
from pto_dialect.cost import CceMachine, CceTrace, DmaPath, InstructionCost, OpCost, SimulatorMachine, VfMachine, Work, by_op
from pto_dialect.facts import TileFacts, known, require, require_type, spell
from pto_dialect.instruction import DocsCells, Emission, InPlace, Instruction, Pipe, RuleRow
from pto_dialect.gm_index import widen
from pto_dialect.lowered import LoweredOp
from pto_dialect.machine import Footprint, RuntimeFault, first_failing, np, rect, valid_rect
from pto_dialect.ops.common import Roles, operand_of_role, same_element_type
from pto_dialect.ops.mask_ins import MaskInsOp
from pto_dialect.src_read import valid_reads, valid_values
from pto_dialect.vector import BLOCK_BYTES, REPEAT_BYTES, vector_repeats
from pto_dialect.write_collisions import surviving_writes

# ---------------------------------------------------------------------------
# The op


class TScatterForm(StrEnum):
    INDEX = "index"
    MASK = "mask"


@irdl_op_definition
class TScatterOp(MaskInsOp):
    """Scatter src's elements into dst by index, or between zeros by a mask pattern."""

    name = "pto.tscatter"

    mask_pattern = opt_prop_def(MaskPatternAttr, prop_name="maskPattern")
    axis = opt_prop_def(StringAttr)

    HIDDEN_IN_DPS_ATTR_DICT: ClassVar[tuple[str, ...]] = ("maskPattern", "axis")
    MAX_INS: ClassVar[int] = 2
    FORMS: ClassVar[tuple[tuple[int, int], ...]] = ((1, 1), (2, 1))  # mask form, index form (ptodsl's indexes=)
    DEFAULTS: ClassVar[dict[str, Attribute]] = {"axis": StringAttr("row")}

    @classmethod
    def operand_roles(cls, n_ins: int, n_outs: int) -> Roles:
        return ("src", "indexes")[: max(n_ins, 1)], ("dst",)

    src = operand_of_role("src")
    indexes = operand_of_role("indexes", optional=True)
    dst = operand_of_role("dst")

    def index_entries(self, value: SSAValue) -> int | None:
        """How many entries `value` selects among when it is the index (random inputs): the
        storage of the tile it indexes."""
        return prod(self.dst.type.shape) if value is self.indexes else None  # pyright: ignore[reportAttributeAccessIssue]

    @property
    def form(self) -> TScatterForm:
        return TScatterForm.MASK if self.mask_pattern is not None else TScatterForm.INDEX

    @property
    def mask_axis(self) -> str:
        """Mask-form axis; absent means row (pto-isa's ScatterAxis default)."""
        return (self.axis or self.DEFAULTS["axis"]).data  # pyright: ignore[reportAttributeAccessIssue]

    def verify_operands(self) -> None:
        if (len(self.ins) == 2) == (self.mask_pattern is not None):
            raise VerifyException("expects exactly one of indexes operand or maskPattern attribute")
        if self.axis is not None and self.axis.data not in ("row", "col"):
            raise VerifyException('axis must be "row" or "col"')
        if self.indexes is not None and self.axis is not None:
            raise VerifyException("axis attribute must not be provided with indexes operand")
        src = self.expect_tile_in("src", self.src)
        dst = self.expect_tile("dst", self.dst)
        same_element_type("src", src.element_type, "dst", dst.element_type)
        if self.indexes is not None:
            indexes = self.expect_tile_in("indexes", self.indexes)
            if not indexes.element.is_integer:
                raise VerifyException(f"expects indexes element type to be an integer, got {indexes.element_type}")


# ---------------------------------------------------------------------------
# What each target accepts


@dataclass(frozen=True)
class TScatterRules(RuleRow):
    """One target's TSCATTER rules."""

    index_data_types: frozenset[str]
    """Index form: src / dst element types."""
    index_types_by_data_bytes: dict[int, frozenset[str]]
    """Index form: indexes element types, per data element width."""
    mask_types: frozenset[str]
    """Mask form: src / dst element types."""
    b64_max_cols: int | None
    """8-byte data: at most this many valid columns (a5 scatters a row of b64 in one register)."""
    copy_same_shape: bool
    """P1111 (a TMOV) needs src and dst of one shape, Rows x Cols (a2a3's TMOV static_assert)."""
    note: str

    def check(self, operands: dict, attrs: Mapping[str, Attribute]) -> None:
        src, dst, indexes = operands["src"], operands["dst"], operands.get("indexes")
        tiles = [src, dst] if indexes is None else [src, indexes, dst]
        for t in tiles:
            require(t.loc == "vec", f"expects {t.role} to be a Vec tile (loc=vec), got loc={t.loc}")
        if indexes is not None:
            for t in tiles:
                require(t.slayout == "none_box", f"expects {t.role} to use the none_box slayout, got {t.slayout}")
            require_type("src/dst", src.elem, self.index_data_types)
            allowed = self.index_types_by_data_bytes[src.elem.bytes]
            require(
                indexes.elem.mlir in allowed,
                f"expects indexes element type to be {spell(allowed)} for {src.elem.bytes}-byte data, got {indexes.elem.mlir}",
            )
            for d, what in ((0, "rows"), (1, "cols")):
                s, i = (src.valid_row, src.valid_col)[d], (indexes.valid_row, indexes.valid_col)[d]
                if known(s, i):
                    require(s == i, f"expects src and indexes to have the same valid {what}, got {s} and {i}")
            _check_b64_cols(self, src, indexes)
            return
        pattern: MaskPattern = attrs["maskPattern"].data  # pyright: ignore[reportAttributeAccessIssue]
        axis = (attrs.get("axis") or TScatterOp.DEFAULTS["axis"]).data  # pyright: ignore[reportAttributeAccessIssue]
        for t in tiles:
            require(t.is_nd, f"expects {t.role} to use the row-major ND layout in mask form, got {t.layout_text()}")
        require_type("src/dst", src.elem, self.mask_types)
        spread, same = (1, 0) if axis == "row" else (0, 1)
        names = ("rows", "cols")
        s, d = (src.valid_row, src.valid_col), (dst.valid_row, dst.valid_col)
        if known(s[same], d[same]):
            require(
                s[same] == d[same],
                f"expects dst valid {names[same]} to equal src valid {names[same]} for {axis} direction, got {d[same]} and {s[same]}",
            )
        if known(s[spread], d[spread]):
            t = pattern.period
            require(
                d[spread] == s[spread] * t,
                f"expects dst valid {names[spread]} to equal src valid {names[spread]} times the mask expansion factor "
                f"({t}) for {axis} direction, got {d[spread]} and {s[spread]}",
            )
        if pattern.period == 1 and self.copy_same_shape:
            require(
                (src.rows, src.cols) == (dst.rows, dst.cols),
                f"expects src and dst of the same shape for P1111 (a TMOV), got {src.rows}x{src.cols} and {dst.rows}x{dst.cols}",
            )
        _check_b64_cols(self, src, src)

    DOCS: ClassVar[DocsCells] = (
        ("index: src / dst element type", lambda r: spell(r.index_data_types)),
        ("index: indexes element type per data width",
         lambda r: "; ".join(f"{b} B: {spell(s)}" for b, s in sorted(r.index_types_by_data_bytes.items()))),
        ("index: vec, none_box; src valid shape == indexes valid shape", lambda r: "yes"),
        ("mask: src / dst element type", lambda r: spell(r.mask_types)),
        ("mask: vec, row-major ND; dst valid = src valid x period along the axis, equal along the other",
         lambda r: "yes"),
        ("mask P1111: src and dst of one shape", lambda r: "yes" if r.copy_same_shape else "no"),
        ("8-byte data: valid columns", lambda r: f"<= {r.b64_max_cols}" if r.b64_max_cols else "any"),
        ("why", lambda r: r.note),
    )


def _check_b64_cols(rules: TScatterRules, src: TileFacts, cols_of: TileFacts) -> None:
    if rules.b64_max_cols is not None and src.elem.bytes == 8 and known(cols_of.valid_col):
        require(
            cols_of.valid_col <= rules.b64_max_cols,
            f"expects at most {rules.b64_max_cols} valid {cols_of.role} columns for 8-byte data (one register per "
            f"row), got {cols_of.valid_col}",
        )


# ---------------------------------------------------------------------------
# The kernels


def _write_ranks(shape: tuple[int, ...], winner: ScatterWinner, index_bytes: int) -> np.ndarray:
    """Rank of each write of an iterations x rows x cols scatter (higher survives a collision)."""
    *batch, rows, cols = shape
    i = np.arange(rows)[:, None]
    j = np.arange(cols)[None, :]
    match winner:
        case ScatterWinner.LAST_IN_ORDER | ScatterWinner.UNORDERED:  # (TSCATTER has no unordered kernel)
            rank = i * cols + j
        case ScatterWinner.LOWEST_LANE:  # vscatter by vscatter in order; the lowest lane within one
            lanes = REPEAT_BYTES // index_bytes
            chunks = -(-cols // lanes)
            rank = (i * chunks + j // lanes) * lanes + (lanes - 1 - j % lanes)
    return np.broadcast_to(rank, shape)


def tscatter_index(o: dict, *, dst_fill: DstFill, src_read: SrcRead, index_read: IndexRead,
                   winner: ScatterWinner) -> None:
    """dst.flat[indexes[i, j]] = src[i, j] over the indexes' valid shape (leading iteration axes
    ride along: each iteration writes its own dst storage)."""
    src, idx, dst = o["src"], o["indexes"], o["dst"]
    values = valid_values(src, src_read)
    raw = valid_values(idx, src_read)
    offsets = widen(raw, index_read)
    size = dst.flat.shape[-1]
    outside = offsets >= size
    if outside.any():
        iteration, (i, j) = first_failing(outside, offsets.ndim - 2)
        value = raw[(iteration, i, j) if iteration is not None else (i, j)]
        raise RuntimeFault(
            f"index {int(value)} at indexes[{i}, {j}] is outside dst's storage of {size} elements", iteration
        )
    match dst_fill:
        case DstFill.WHOLE_TILE_ZERO:
            dst.flat[...] = 0
        case DstFill.NONE:
            pass
    batch = np.broadcast_shapes(offsets.shape[:-2], values.shape[:-2], dst.flat.shape[:-1])
    shape = (*batch, *offsets.shape[-2:])
    iteration = np.arange(int(np.prod(batch, dtype=np.int64)), dtype=np.int64).reshape(*batch, 1, 1)
    dest = (iteration * size + offsets.astype(np.int64)).reshape(-1)  # each iteration its own storage
    rank = (iteration * (shape[-2] * shape[-1]) + _write_ranks(shape, winner, idx.flat.itemsize)).reshape(-1)
    where, which = surviving_writes(dest, rank)
    # indexing the (iteration, element) pairs writes through dst's storage, strided or not
    dst.flat[np.unravel_index(where, (*batch, size))] = np.broadcast_to(values, shape).reshape(-1)[which]


def tscatter_mask(o: dict, *, mask_pattern: MaskPattern, axis: str, dst_fill: DstFill, mask_source: MaskSource) -> None:
    """Row axis: dst[i, t*j + k] = src[i, j], zeros at the other positions of dst's valid
    columns; col axis: the same along rows. P1111 copies the valid region (TMOV)."""
    src, dst = o["src"], o["dst"]
    t, k = mask_pattern.period, mask_pattern.offset
    if t == 1:
        dst.write_valid(src.read_valid())
        return
    match dst_fill:
        case DstFill.WHOLE_TILE_ZERO:
            dst.flat[...] = 0
        case DstFill.NONE:
            pass
    svr = src.valid_row
    dvr, dvc = dst.valid_shape
    batch = src.flat.shape[:-1]
    if axis == "col":
        out = np.zeros((*batch, dvr, dvc), dtype=dst.flat.dtype)
        out[..., k::t, :][..., :svr, :] = src.values[..., :svr, :dvc]
        dst.write(dvr, dvc, out)
        return
    out = np.zeros((*batch, svr, dvc), dtype=dst.flat.dtype)
    picked = out[..., k::t]
    match mask_source:
        case MaskSource.ROW:
            picked[...] = src.values[..., :svr, : picked.shape[-1]]
        case MaskSource.STORAGE_STREAM:  # the simulator's (sR, sC) walk over src's physical columns
            stream = src.flat[..., : svr * picked.shape[-1]]
            picked[...] = stream.reshape(*batch, svr, picked.shape[-1])
    dst.write(svr, dvc, out)


def tscatter_index_footprint(o: dict, *, dst_fill: DstFill, src_read: SrcRead, **_: object) -> Footprint:
    src, idx, dst = o["src"], o["indexes"], o["dst"]
    reads = [(t, False, valid_reads(t, src_read)) for t in (src, idx)]
    match dst_fill:
        case DstFill.WHOLE_TILE_ZERO:
            return Footprint([*reads, (dst, True, None)], [])
        case DstFill.NONE:  # elements not scattered to keep their contents: dst counts as read
            return Footprint([*reads, (dst, False, None), (dst, True, None)], [])


def tscatter_mask_footprint(o: dict, *, mask_pattern: MaskPattern, axis: str, dst_fill: DstFill,
                            mask_source: MaskSource) -> Footprint:
    src, dst = o["src"], o["dst"]
    svr = src.valid_row
    dvr, dvc = dst.valid_shape
    if mask_pattern.period == 1:
        return Footprint([(src, False, valid_rect(src)), (dst, True, valid_rect(dst))], [])
    if mask_source == MaskSource.STORAGE_STREAM and axis == "row":
        read = np.arange(svr * len(range(mask_pattern.offset, dvc, mask_pattern.period)))
    else:
        read = valid_rect(src)
    match dst_fill:
        case DstFill.WHOLE_TILE_ZERO:
            written = None
        case DstFill.NONE:
            written = rect(dst, svr if axis == "row" else dvr, dvc)
    return Footprint([(src, False, read), (dst, True, written)], [])


class TScatterIndexBase(LoweredOp):
    """dst.flat[indexes[i, j]] = src[i, j]; dst filled, src/indexes read, collisions as chosen."""

    SOURCE: ClassVar = TScatterOp
    KERNEL = staticmethod(tscatter_index)
    FOOTPRINT = staticmethod(tscatter_index_footprint)
    dst_fill = prop_def(DstFill.Attr)
    src_read = prop_def(SrcRead.Attr)
    index_read = prop_def(IndexRead.Attr)
    winner = prop_def(ScatterWinner.Attr)


class TScatterMaskBase(LoweredOp):
    """src's elements between zeros along `axis`, as `maskPattern` places them."""

    SOURCE: ClassVar = TScatterOp
    KERNEL = staticmethod(tscatter_mask)
    FOOTPRINT = staticmethod(tscatter_mask_footprint)
    mask_pattern = prop_def(MaskPatternAttr, prop_name="maskPattern")
    axis = prop_def(StringAttr)
    dst_fill = prop_def(DstFill.Attr)
    mask_source = prop_def(MaskSource.Attr)


# ---------------------------------------------------------------------------
# What it costs

def _zero_dst(t: CceTrace) -> None:
    """a2a3 InitUBBuffer: one vector_dup over the whole tile in counter mode."""
    t.call(2)  # set_mask_count, set_vector_mask
    t.vector("vector_dup", repeat=0)
    t.call(2)  # set_mask_norm, set_vector_mask


def _cce_index(op: TScatterIndexBase, o: dict, machine: CceMachine, work: Work) -> OpCost:
    """npu/a2a3/TScatter.hpp TScatterImpl: dst zeroed (InitUBBuffer: one vector_dup in
    counter mode), then a scalar loop over the indexes' valid elements, one scalar cycle each
    (the cost model charges it nothing)."""
    idx, t = o["indexes"], machine.trace()
    _zero_dst(t)
    t.call(idx.valid_row * idx.valid_col)
    return t.cost(Pipe.VECTOR, exact=False)


def _cce_mask(op: TScatterMaskBase, o: dict, machine: CceMachine, work: Work) -> OpCost:
    """npu/a2a3/TScatter.hpp TScatterMaskImpl: dst zeroed, then (col axis) one vcopy per src
    valid row in counter mode, or (row axis) a scalar loop over src's valid elements, one
    scalar cycle each; P1111 is TMOV (npu/a2a3/TMov.hpp TMovToVecImpl): one UB->UB copy of the
    valid rows when dst's valid cols fill its rows, else one per row, of whole 32-byte blocks."""
    src, dst, t = o["src"], o["dst"], machine.trace()
    if op.mask_pattern.data.period == 1:
        rows, cols = min(src.valid_row, dst.valid_row), min(src.valid_col, dst.valid_col)
        size = dst.elem.bytes
        if rows and cols:
            if (dst.cols == src.cols or dst.rows == 1) and dst.cols == cols:
                t.dma(DmaPath.UB_TO_UB, -(-dst.cols * rows * size // BLOCK_BYTES) * BLOCK_BYTES)
            else:
                t.dma(DmaPath.UB_TO_UB, -(-cols * size // BLOCK_BYTES) * BLOCK_BYTES, times=rows)
        return t.cost(Pipe.VECTOR, exact=False, idle=machine.idle_vector, elements=dst.valid_row * dst.valid_col)
    _zero_dst(t)
    if op.axis.data == "col":
        t.call(2)  # set_mask_count, set_vector_mask
        t.loop(src.valid_row, lambda: t.vector("vcopy"))
        t.call(2)  # set_mask_norm, set_vector_mask
    else:
        t.call(src.valid_row * src.valid_col)
    return t.cost(Pipe.VECTOR, exact=False)


def _zero_dst_vf(dst: TileFacts) -> dict[str, int]:
    """a5 InitUBBuffer: a zero register, a predicate and vsts per register of dst's storage,
    two memory barriers; 8-byte data (Int64Scatter*'s own loop): no barrier, then the
    predicate of the valid columns."""
    n = -(-dst.rows * dst.cols * dst.elem.bytes // REPEAT_BYTES)
    if dst.elem.bytes == 8:
        return {"vbr": 1, "plt": n + 1, "vsts": n}
    return {"vbr": 1, "plt": n, "vsts": n, "mem_bar": 2}


def _vf_index(op: TScatterIndexBase, o: dict, machine: VfMachine, work: Work) -> OpCost:
    """npu/a5/TScatter.hpp TScatterImpl, one vector function: dst zeroed (InitUBBuffer: vsts
    per register, two memory barriers), then per indexes valid row and register of indices a
    predicate, two vlds and a vscatter; 8-byte data (Int64Scatter): per row two vlds, vadd and
    vadds of the word offsets, two vscatter of the 32-bit halves."""
    idx, dst = o["indexes"], o["dst"]
    rows = idx.valid_row
    body = _zero_dst_vf(dst)
    if dst.elem.bytes == 8:
        body |= {"vlds": 2 * rows, "vadd": rows, "vadds": rows, "vscatter": 2 * rows}
    else:
        n = rows * vector_repeats(idx.valid_col, idx.elem.bytes)
        body["plt"] += n
        body |= {"vlds": 2 * n, "vscatter": n}
    return machine.cost(Pipe.VECTOR, 0, machine.vector_function(body))


def _vf_mask(op: TScatterMaskBase, o: dict, machine: VfMachine, work: Work) -> OpCost:
    """npu/a5/TScatter.hpp TScatterMaskImpl, one vector function: dst zeroed, then per src
    valid row and register a vlds and (col axis) a predicate and vsts, (row axis) one vintlv
    (period 4: three) and a predicate and vsts per register of the interleaved result; P1111
    is TMOV (TMovVecToVec: per row and register a predicate, vlds, vsts); 8-byte data
    (Int64ScatterPattern): the lane offsets once (vci, vmuls, vadds, vadd, vadds), per row a
    vlds and (col) one vsts or (row) two vscatter."""
    src, dst = o["src"], o["dst"]
    size, period = src.elem.bytes, op.mask_pattern.data.period
    rows = src.valid_row
    n = rows * vector_repeats(src.valid_col, size)
    col = op.axis.data == "col"
    if period == 1:
        n = min(rows, dst.valid_row) * vector_repeats(min(src.valid_col, dst.valid_col), size)
        body = {"plt": n, "vlds": n, "vsts": n}
    elif size == 8:
        body = _zero_dst_vf(dst) | {"vci": 1, "vmuls": 1, "vadds": 2, "vadd": 1, "vlds": rows}
        body |= {"vsts": body["vsts"] + rows} if col else {"vscatter": 2 * rows}
    else:
        body = _zero_dst_vf(dst)
        body["vbr"] += 1  # the zeros interleaved
        stores = n if col else n * period
        body |= {"plt": body["plt"] + stores, "vlds": n, "vsts": body["vsts"] + stores}
        if not col:
            body["vintlv"] = n * (1 if period == 2 else 3)
    return machine.cost(Pipe.VECTOR, 0, machine.vector_function(body))


def _simulated(op: LoweredOp, o: dict, machine: SimulatorMachine, work: Work) -> OpCost:
    """pto-isa cpu/TScatter.hpp: a loop over the indexes' valid elements (index form) or dst's
    (mask form; P1111: TMOV's over src's, the same)."""
    tile = o["indexes"] if isinstance(op, TScatterIndexBase) else o["dst"]
    return machine.cost(Pipe.VECTOR, 0, tile.valid_row * tile.valid_col)


COST = InstructionCost(
    on={
        CceMachine: by_op((TScatterIndexBase, _cce_index), (TScatterMaskBase, _cce_mask)),
        VfMachine: by_op((TScatterIndexBase, _vf_index), (TScatterMaskBase, _vf_mask)),
        SimulatorMachine: _simulated,
    },
)


# ---------------------------------------------------------------------------
# C++ and the registry entry


def emit(e: Emission, op: TScatterOp) -> None:
    """`TSCATTER(dst, src, indexes)` or `TSCATTER<MaskPattern::P0101, ScatterAxis::SCATTER_ROW>(dst, src)`."""
    if op.indexes is not None:
        e.issue(op, e.call("TSCATTER", [op.dst, op.src, op.indexes]))
        return
    assert op.mask_pattern is not None
    template = [f"MaskPattern::{op.mask_pattern.data}", f"ScatterAxis::SCATTER_{op.mask_axis.upper()}"]
    e.issue(op, e.call("TSCATTER", [op.dst, op.src], template))


TSCATTER = Instruction(
    rules=TScatterRules,
    lowered=(TScatterIndexBase, TScatterMaskBase),
    emit=emit,
    in_place={
        "index": InPlace(
            frozenset(),
            how="",
            refused="a scattered element may land on src or indexes elements not read yet (a2a3 and a5 also "
            "zero the whole dst first): rejected.",
        ),
        "mask": InPlace(
            frozenset({"src"}),
            how="only P1111 has dst exactly over src: a TMOV, which reads each repeat (the simulator each "
            "element) before writing it",
            refused="only dst over src is computed in place.",
        ),
    },
    form=lambda op: op.form.value,
    cost=COST,
)
