"""
THISTOGRAM (pto-isa docs/isa/THISTOGRAM.md): per source row, the cumulative count of one byte's
values, the byte-bucket pass of a radix sort. Byte k of each element of src's valid region (k = 0
the least significant) is counted where the element's upper bytes match the filter, and dst's row
holds, for each bin b < 256, how many counted elements have byte k <= b (an ascending cumulative
histogram, in uint32: at most src's valid cols, so it never wraps):

      dst[r, b] = |{ j < vc : B_k(src[r, j]) <= b  and  filter(r, j) }|        r < vr, b < 256

- ui16 src, byte 1: no filter; byte 0: B_1(src[r, j]) == idx[r, 0] (one match byte per row).
- ui32 src, byte 3: no filter (idx unused); byte 2, 1, 0: B_3 == idx[0, 0], and B_2 == idx[1, 0],
  and B_1 == idx[2, 0] for the rows of idx the byte needs (one filter for every row of src).

PTOAS writes

    pto.thistogram ins(%src, %idx : Ts, Ti) outs(%dst : Td) {byte = 3 : i32}
    %dst = pto.thistogram %src, %idx : (Ts, Ti) -> Td

with `byte` 1 when omitted, or the legacy `isMSB` (true: byte 1, false: byte 0), and emits
`THISTOGRAM<HistByte::BYTE_k>(dst, src, idx)`. The headers that define it: cpu/THistogram.hpp
(scalar loops through each tile's layout, a running sum over the bins) and npu/a5/THistogram.hpp
(byte deinterleave, vcmp_eq filters, chistv2 under the predicate, whose counts the a5 ST golden
gives as the same ascending cumulative histogram); npu/a2a3 has none (arch_capability.hpp:
SupportsTHistogram false). Where they differ (the `histogram_rows` choice): cpu writes row r's bins
at dst's (r, b) through its layout; a5 stores them at dst's storage element 256 * r + b whatever
dst's row stride.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import IntegerAttr, i32
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, opt_prop_def
from xdsl.utils.exceptions import VerifyException

from pto_dialect.choices import HistogramRows, Numerics
from pto_dialect.cost import CceMachine, InstructionCost, NoCostModel, OpCost, SimulatorMachine, VfMachine, Work
from pto_dialect.facts import TileFacts, known, require, require_type, spell, types_named
from pto_dialect.instruction import DocsCells, Emission, Instruction, Pipe, RuleRow
from pto_dialect.lowered import LoweredOp, lowered_base
from pto_dialect.machine import RuntimeFault, np
from pto_dialect.ops.common import operand_of_role
from pto_dialect.instructions.operands import taking
from pto_dialect.vector import vector_repeats

BINS = 256
"""One bin per byte value: every row of dst holds 256."""

DEFAULT_BYTE = 1
"""PTOAS's `byte` when neither it nor `isMSB` is given (HistByte::BYTE_1)."""


def selected_byte(properties: Mapping[str, Attribute]) -> int:
    """The byte an op histograms: the lowered op's `selected_byte`, else `byte`, else the
    legacy `isMSB` (true: 1, false: 0), else 1."""
    for name in ("selected_byte", "byte"):
        if isinstance(attr := properties.get(name), IntegerAttr):
            return attr.value.data
    legacy = properties.get("isMSB")
    if isinstance(legacy, IntegerAttr):
        return 1 if legacy.value.data else 0
    return DEFAULT_BYTE


def filter_rows(src_bytes: int, byte: int) -> int:
    """The filter bytes the byte needs: ui16's byte 0 one per row of src (counted by rows
    elsewhere, so 0 here); ui32's byte k the 3 - k bytes above it, one idx row each."""
    return 3 - byte if src_bytes == 4 else 0


@irdl_op_definition
class THistogramOp(taking("src", "idx")):
    """Per row of src, the ascending cumulative histogram of one byte of its elements."""

    name = "pto.thistogram"
    byte = opt_prop_def(IntegerAttr)
    is_msb = opt_prop_def(IntegerAttr, prop_name="isMSB")

    src = operand_of_role("src")
    idx = operand_of_role("idx")

    def verify_operands(self) -> None:
        src = self.expect_tile_in("src", self.src)
        self.expect_tile_in("idx", self.idx)
        self.expect_tile("dst", self.destinations[0])
        if self.byte is not None and self.is_msb is not None and self.byte.value.data != (1 if self.is_msb.value.data else 0):
            raise VerifyException("does not allow conflicting 'byte' and legacy 'isMSB' attributes")
        byte = selected_byte(self.properties)
        if not 0 <= byte <= 3:
            raise VerifyException("expects byte to be in range [0, 3]")
        if src.element.bytes == 2 and byte > 1:
            raise VerifyException(
                f"expects byte to be 0 or 1 when src element type is {src.element.mlir} (it has two bytes; every "
                "target's code static_asserts it)"
            )


# ---------------------------------------------------------------------------
# What each target accepts


@dataclass(frozen=True)
class HistogramRules(RuleRow):
    src_types: frozenset[str]
    """src's element types; empty: the target's code has no THISTOGRAM."""
    layouts: bool
    """The static_asserts of npu/a5/THistogram.hpp: src and dst row-major; a ui16 src's idx DN
    (col_major, none_box) of one column; a ui32 src's idx (byte < 3) row-major, exactly the
    filter's rows, src's cols."""
    ptoas_shapes: bool
    """PTOAS's A5 verifier: dst's rows and valid rows src's, dst's valid cols 0 or at least 256; a ui16
    src's idx rows and valid rows src's."""
    dst_valid_bins: bool
    """dst's valid cols at least 256 (cpu/THistogram.hpp's PTO_CPU_ASSERT)."""
    note: str

    def check(self, operands: dict, attrs: Mapping[str, Attribute]) -> None:
        src, idx, dst = operands["src"], operands["idx"], operands["dst"]
        require(bool(self.src_types), f"is not implemented: {self.note}")
        elsewhere = next((tile for tile in (src, idx, dst) if tile.loc != "vec"), None)
        require(elsewhere is None, f"expects {elsewhere and elsewhere.role} to be a Vec tile (loc=vec), got loc={elsewhere and elsewhere.loc}")
        require_type("src", src.elem, self.src_types)
        require_type("idx", idx.elem, types_named("ui8"))
        require_type("dst", dst.elem, types_named("ui32"))
        byte = selected_byte(attrs)
        require(dst.cols >= BINS, f"expects dst to have at least {BINS} cols (one per byte value), got {dst.cols}")
        if self.layouts:
            for tile in (src, dst):
                require(tile.is_nd, f"expects {tile.role} to be row-major ND (a static_assert), got {tile.layout_text()}")
        if self.ptoas_shapes:
            require(
                dst.rows == src.rows and (not known(src.valid_row, dst.valid_row) or dst.valid_row == src.valid_row),
                f"expects dst rows and valid rows to match src (PTOAS's verifier), got {dst.rows}x{dst.cols} "
                f"(valid {_dims(dst)}) and {src.rows}x{src.cols} (valid {_dims(src)})",
            )
            require(
                not known(dst.valid_col) or dst.valid_col == 0 or dst.valid_col >= BINS,
                f"expects dst valid cols to be 0 or at least {BINS} (PTOAS's verifier), got {dst.valid_col}",
            )
        if known(src.valid_row):
            require(
                dst.rows >= src.valid_row,
                f"expects dst to have a row per valid row of src ({src.valid_row}), got {dst.rows}",
            )
        if self.dst_valid_bins and known(dst.valid_col):
            require(
                dst.valid_col >= BINS,
                f"expects dst valid cols to be at least {BINS} (cpu/THistogram.hpp asserts it), got {dst.valid_col}",
            )
        if src.elem.bytes == 2:
            if self.layouts:
                require(
                    idx.blayout == "col_major" and idx.slayout == "none_box" and idx.cols == 1,
                    f"expects idx to be DN (col_major, none_box) with one column when src is {src.elem.mlir} "
                    f"(a static_assert), got {idx.rows}x{idx.cols}, {idx.layout_text()}",
                )
            if self.ptoas_shapes:
                require(
                    idx.rows == src.rows and (not known(src.valid_row, idx.valid_row) or idx.valid_row == src.valid_row),
                    f"expects idx rows and valid rows to match src when src is {src.elem.mlir} (PTOAS's "
                    f"verifier), got {idx.rows}x{idx.cols} (valid {_dims(idx)}) and {src.rows}x{src.cols} (valid {_dims(src)})",
                )
            if known(src.valid_row):
                require(
                    idx.rows >= src.valid_row,
                    f"expects idx to have a match byte per valid row of src ({src.valid_row}), got {idx.rows} rows",
                )
            return
        needed = filter_rows(src.elem.bytes, byte)
        if needed == 0:
            return
        if self.layouts:
            require(
                idx.is_nd and idx.rows == needed and idx.cols == src.cols,
                f"expects idx to be row-major ND of {needed}x{src.cols} (the filter's rows, src's cols) for byte {byte} of "
                f"{src.elem.mlir} (a static_assert), got {idx.rows}x{idx.cols}, {idx.layout_text()}",
            )
        require(idx.rows >= needed, f"expects idx to have at least {needed} rows (a filter byte each) for byte {byte} of {src.elem.mlir}, got {idx.rows}")

    DOCS: ClassVar[DocsCells] = (
        ("src element type", lambda r: spell(r.src_types) if r.src_types else "not implemented"),
        ("idx, dst", lambda r: "ui8, ui32 of at least 256 cols and a row per valid row of src" if r.src_types else "-"),
        ("layouts", lambda r: "src, dst row-major ND; idx DN of one column (ui16) or row-major of the filter's rows and src's cols (ui32)"
         if r.layouts else "any" if r.src_types else "-"),
        ("shapes", lambda r: "dst's rows and valid rows src's; dst valid cols 0 or at least 256; ui16: idx rows and valid rows src's" if r.ptoas_shapes
         else "dst valid cols at least 256" if r.dst_valid_bins else "-"),
        ("why", lambda r: r.note),
    )


def _dims(tile: TileFacts) -> str:
    return "x".join(str(d) if known(d) else "?" for d in (tile.valid_row, tile.valid_col))


# ---------------------------------------------------------------------------
# The kernel


def histogram_kernel(o: dict, *, selected_byte: int, histogram_rows: HistogramRows) -> None:
    src, idx, dst = o["src"], o["idx"], o["dst"]
    rows, cols = src.valid_shape
    if rows > dst.type.shape[0] or (histogram_rows is HistogramRows.PACKED and rows * BINS > dst.flat.shape[-1]):
        raise RuntimeFault(f"dst's {dst.type.shape[0]}x{dst.type.shape[1]} tile does not hold {rows} rows of {BINS} bins")
    values = src.values[..., :rows, :cols].astype(np.uint32)
    keys = (values >> (8 * selected_byte)) & 0xFF
    counted = np.ones(values.shape, bool)
    if src.flat.dtype.itemsize == 2:
        if selected_byte == 0:
            if rows > idx.type.shape[0]:
                raise RuntimeFault(f"idx's {idx.type.shape[0]} rows hold no match byte for src's valid row {idx.type.shape[0]}")
            counted = (values >> 8) == idx.values[..., :rows, :1]
    else:
        for k in range(filter_rows(4, selected_byte)):
            counted &= ((values >> (8 * (3 - k))) & 0xFF) == idx.values[..., k : k + 1, :1]
    batch = values.shape[:-2]
    row_ids = np.arange(int(np.prod(batch, dtype=np.int64)) * rows).reshape(*batch, rows, 1)
    counts = np.bincount((row_ids * BINS + keys)[counted], minlength=row_ids.size * BINS)
    cumulative = np.cumsum(counts.reshape(*batch, rows, BINS), axis=-1, dtype=np.uint32)
    if histogram_rows is HistogramRows.TILE:
        dst.write(rows, BINS, cumulative)
    else:
        dst.flat[..., : rows * BINS] = cumulative.reshape(*batch, rows * BINS)


THistogramBase = lowered_base(
    THistogramOp, histogram_kernel, "Per row of src, the cumulative histogram of one byte, stored as the target does (histogram_rows).",
    selected_byte=IntegerAttr, histogram_rows=HistogramRows.Attr,
)


def lowering_choices(rows: HistogramRows):
    """The choices a target's lowering records: its row placement and the byte the op selects."""
    return lambda op: {
        "selected_byte": IntegerAttr(selected_byte(op.properties), i32), "histogram_rows": rows, "numerics": Numerics.EXACT,
    }


# ---------------------------------------------------------------------------
# What it costs


def _vf(op: LoweredOp, o: dict, machine: VfMachine, work: Work) -> OpCost:
    """npu/a5/THistogram.hpp: one vector function; per valid row the idx loads, four vbr and two
    vsts; per 256 elements of the row the loads (ui16: one DINTLV_B8; ui32: two DINTLV_B16 and two
    vdintlv), the filter's vcmp_eq, two chistv2, four vcvt, four vadd and two vbr."""
    src = o["src"]
    rows, cols = src.valid_shape
    byte = selected_byte(op.properties)
    n = rows * vector_repeats(cols, 1)
    wide = src.elem.bytes == 4
    compares = (filter_rows(4, byte) if wide else int(byte == 0)) * n
    body = {
        "vlds": (2 if wide else 1) * n + rows * max(1, filter_rows(src.elem.bytes, byte)), "vdintlv": 2 * n if wide else 0,
        "vcmp": compares, "chistv2": 2 * n, "vcvt": 4 * n, "vadd": 4 * n, "vbr": 2 * n + 4 * rows + 2, "vsts": 2 * rows,
    }
    return machine.cost(Pipe.VECTOR, 0, machine.vector_function({"pset": 2, **body}))


def _simulated(op: LoweredOp, o: dict, machine: SimulatorMachine, work: Work) -> OpCost:
    """pto-isa cpu/THistogram.hpp: per valid row a loop over its valid cols and one over the 256 bins."""
    rows, cols = o["src"].valid_shape
    return machine.cost(Pipe.VECTOR, 0, rows * (cols + BINS))


def _cce(op: LoweredOp, o: dict, machine: CceMachine, work: Work) -> OpCost:
    """npu/a2a3 has no THISTOGRAM: its rules reject the op before anything prices it."""
    raise NoCostModel(f"{op.name}: npu/a2a3 has no THISTOGRAM")


COST = InstructionCost(on={CceMachine: _cce, VfMachine: _vf, SimulatorMachine: _simulated})


# ---------------------------------------------------------------------------
# C++


def emit(e: Emission, op: THistogramOp) -> None:
    """`THISTOGRAM<HistByte::BYTE_k>(dst, src, idx)`."""
    e.issue(op, e.call("THISTOGRAM", [op.destinations[0], op.src, op.idx], [f"HistByte::BYTE_{selected_byte(op.properties)}"]))


THISTOGRAM = Instruction(
    rules=HistogramRules,
    lowered=(THistogramBase,),
    emit=emit,
    cost=COST,
)

