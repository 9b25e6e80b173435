"""
TFILLPAD (pto-isa docs/isa/TFILLPAD.md, TFILLPAD_INPLACE.md, TFILLPAD_EXPAND.md): src's valid
region copied into dst, the rest of dst filled with dst's pad value:

    pto.tfillpad ins(%src : S) outs(%dst : D)           (SSA: %dst = pto.tfillpad %src : S -> D)

emitted as `TFILLPAD(dst, src)`. As PTOAS does (docs/isa/tile-op/12-fill-and-padding-ops.md), the
form is inferred, never spelled (a `mode` attribute is refused): dst larger than src in a
dimension is the expand form, `TFILLPAD<pto::TFillPadMode::Expand>`; src and dst one tile (the
same value, or two tiles placed at one address) the in-place form,
`TFILLPAD<pto::TFillPadMode::InPlace>`, which skips the copy; else the normal form.

What each target writes (the `fill_write` choice), with rows at i * Cols on the NPUs:
- cpu (cpu/TFillPad.hpp): every element of dst's Rows x Cols, through each tile's layout: src's
  element (converted to dst's type) inside src's valid region, the pad value elsewhere; nothing
  when dst's valid rows or columns are 0.
- a2a3 (npu/a2a3/TFillPad.hpp): nothing when dst's valid rows or columns are 0; else (normal and
  expand) src's valid rows copied whole (all of src's Cols, bits kept) by vcopy; each of those
  rows padded from src's valid columns rounded up to a 32-byte block to dst's Cols (row 0 even
  when src has no valid row); the columns between src's valid columns and that block padded only
  when dst's pad differs from src's (else they keep what the copy brought); dst's rows from src's
  valid rows to its own valid rows padded whole. The counter-mode vcopy / vector_dup calls are
  read as the code intends them: each repeat writes the mask's count of elements (one row).
- a5 (npu/a5/TFillPad.hpp): src's valid region copied (vlds / vsts, bits kept), each of src's
  valid rows padded from its valid columns to dst's Cols (vstus), dst's rows from src's valid
  rows to its own valid rows padded whole; its bottom padding counts dst's valid rows minus
  src's unsigned, so fewer dst valid rows than src's is an error.
Rows past dst's valid rows (and past src's) keep their contents on a2a3 and a5.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import irdl_op_definition
from xdsl.utils.exceptions import VerifyException

from pto_dialect.choices import Choice, FillPadMode, FillPadWrite, Numerics, PadValue, choices_of
from pto_dialect.cost import CceMachine, InstructionCost, OpCost, SimulatorMachine, VfMachine, Work
from pto_dialect.facts import known, require, require_type, spell
from pto_dialect.instruction import DocsCells, Emission, InPlace, Instruction, Pipe, RuleRow
from pto_dialect.instructions.movement import BLOCK_BYTES, cpp_converted, require_nd, require_vec
from pto_dialect.instructions.transfer import pad_value
from pto_dialect.lowered import LoweredOp, lowered_base
from pto_dialect.machine import RuntimeFault, np
from pto_dialect.instructions.operands import taking
from pto_dialect.ops.memory import AllocTileOp, constant_index
from pto_dialect.types import TileTypeBase
from pto_dialect.vector import vector_repeats

REPEAT_MAX = 255
"""Repeats of one a2a3 vector intrinsic (its repeat operand is 8 bits)."""


@irdl_op_definition
class TFillPadOp(taking("src")):
    """dst = src's valid region, the pad value around it."""

    name = "pto.tfillpad"

    def verify_operands(self) -> None:
        if "mode" in self.attributes:
            raise VerifyException(
                "does not accept 'mode': the form (normal, in place, expand) is inferred from the tiles' shapes "
                "and addresses, as PTOAS infers it"
            )
        dst = self.expect_tile("dst", self.destinations[0])
        src = self.expect_tile_in("src", self.ins[0])
        if src.element.bytes != dst.element.bytes:
            raise VerifyException(
                f"expects src and dst element types of one size, got {src.element.mlir} and {dst.element.mlir}"
            )
        if any(s > d for s, d in zip(src.shape, dst.shape)):
            raise VerifyException(
                f"expects each dst shape dimension to be at least src's, got {src.shape[0]}x{src.shape[1]} and "
                f"{dst.shape[0]}x{dst.shape[1]}"
            )
        if dst.pad.data == 0:
            raise VerifyException("expects dst to have a pad value (pad=1 zero, 2 max or 3 min), got pad=0 (null)")


def _placed_at(value: SSAValue) -> int | None:
    """The constant address of the alloc_tile that made `value`, if it has one."""
    owner = value.owner
    if isinstance(owner, AllocTileOp) and owner.addr is not None:
        return constant_index(owner.addr)
    return None


def fillpad_mode(op: Operation) -> FillPadMode:
    """The form PTOAS infers: expand where dst is larger, in place where src and dst are one
    tile (one value, or one constant address: after pto-plan-memory, or by hand), else normal."""
    assert isinstance(op, TFillPadOp)
    src, dst = op.ins[0], op.destinations[0]
    assert isinstance(src.type, TileTypeBase) and isinstance(dst.type, TileTypeBase)
    if src.type.shape != dst.type.shape:
        return FillPadMode.EXPAND
    at = _placed_at(src)
    if src is dst or (at is not None and at == _placed_at(dst)):
        return FillPadMode.IN_PLACE
    return FillPadMode.NORMAL


@dataclass(frozen=True)
class FillPadRules(RuleRow):
    types: frozenset[str]
    row_major: bool
    """Both tiles row-major ND: the code addresses row i at i * Cols, whatever the layout (else
    any layouts, element by element)."""
    dst_rows_cover_src: bool
    """dst's valid rows at least src's (a5's bottom padding counts their difference unsigned)."""
    note: str

    def check(self, operands: dict, attrs: Mapping[str, Attribute]) -> None:
        src, dst = operands["src"], operands["dst"]
        require_vec((src, dst))
        require_type("src", src.elem, self.types)
        require_type("dst", dst.elem, self.types)
        if self.row_major:
            require_nd((src, dst), "Cols")
        if self.dst_rows_cover_src and known(src.valid_row, dst.valid_row):
            require(
                dst.valid_row >= src.valid_row,
                f"expects dst valid rows to be at least src's (its bottom padding counts their "
                f"difference unsigned), got {dst.valid_row} and {src.valid_row}",
            )

    DOCS: ClassVar[DocsCells] = (
        ("element types (src's and dst's of one size)", lambda r: spell(r.types)),
        ("layouts", lambda r: "row-major ND" if r.row_major else "any (element by element)"),
        ("valid rows", lambda r: "dst's at least src's" if r.dst_rows_cover_src else "any"),
        ("why", lambda r: r.note),
    )


def _fill_value(tile: TileTypeBase, value: PadValue) -> np.ndarray:
    return np.asarray(pad_value(tile, value), dtype=tile.element.numpy)


def _handle_block_rows(rows: int, size: int) -> int:
    """Rows of a2a3's Handle32BAlignedPad: a scalar loop over all (1-byte types), else one
    vector_dup of up to 255 repeats and one more whose 8-bit repeat wraps."""
    if size == 1 or rows <= REPEAT_MAX:
        return rows
    return REPEAT_MAX + (rows - REPEAT_MAX) % 256


def tfillpad_kernel(o: dict, *, fill_write: FillPadWrite, pad_value: PadValue, fill_mode: FillPadMode) -> None:
    src, dst = o["src"], o["dst"]
    pad = _fill_value(dst.type, pad_value)
    (src_rows, src_cols), (dst_rows, dst_cols) = src.valid_shape, dst.valid_shape
    rows, cols = dst.type.shape
    if fill_write is not FillPadWrite.VECTOR and (dst_rows == 0 or dst_cols == 0):
        return
    if fill_write is FillPadWrite.ELEMENTS:
        filled = np.broadcast_to(pad, dst.values.shape[:-2] + (rows, cols)).copy()
        with np.errstate(all="ignore"):
            filled[..., :src_rows, :src_cols] = cpp_converted(src.values[..., :src_rows, :src_cols], dst.flat.dtype)
        dst.write(rows, cols, filled)
        return
    out = dst.values  # row-major ND (the rules): row i at i * Cols
    if fill_write is FillPadWrite.VECTOR:
        if dst_rows < src_rows:
            raise RuntimeFault(
                f"dst valid rows {dst_rows} are fewer than src's {src_rows}: a5's bottom padding counts "
                f"{dst_rows} - {src_rows} rows unsigned (past the tile)"
            )
        if fill_mode is not FillPadMode.IN_PLACE:
            out[..., :src_rows, :src_cols] = src.values[..., :src_rows, :src_cols].view(dst.flat.dtype)
        out[..., :src_rows, src_cols:] = pad
        out[..., src_rows:dst_rows, :] = pad
        return
    if fill_mode is not FillPadMode.IN_PLACE:
        whole = src.type.shape[1]
        out[..., :src_rows, :whole] = src.values[..., :src_rows, :whole].view(dst.flat.dtype)
    block = BLOCK_BYTES // dst.flat.dtype.itemsize
    aligned = -(-src_cols // block) * block
    if dst.type.pad != src.type.pad:
        out[..., : _handle_block_rows(src_rows, dst.flat.dtype.itemsize), src_cols:aligned] = pad
    out[..., 0, aligned:] = pad
    if src.type.shape[0] > 1:
        out[..., 1:src_rows, aligned:] = pad
    out[..., src_rows:dst_rows, :] = pad


TFillPadBase = lowered_base(TFillPadOp, tfillpad_kernel, "dst = src's valid region padded, as the target writes it (fill_write), in the inferred form.", fill_write=FillPadWrite.Attr, fill_mode=FillPadMode.Attr, pad_value=PadValue.Attr)


def fillpad_choices(op: Operation, write: FillPadWrite, zero_pad_types: frozenset[str]) -> dict[str, Choice]:
    """What a target's lowered TFILLPAD records: how it writes, the inferred form, and the pad value
    (0 for the element types the target's PadValueMap pads with 0, as its TLOAD does)."""
    assert isinstance(op, TFillPadOp)
    dst = op.destinations[0].type
    assert isinstance(dst, TileTypeBase)
    zero = dst.element.mlir in zero_pad_types
    return {
        "fill_write": write,
        "fill_mode": fillpad_mode(op),
        "pad_value": PadValue.ALWAYS_ZERO if zero else PadValue.TILE_PAD,
        "numerics": Numerics.EXACT,
    }


def _copies(op: LoweredOp) -> bool:
    return choices_of(op)["fill_mode"] is not FillPadMode.IN_PLACE


def _tfillpad_cce(op: LoweredOp, o: dict, machine: CceMachine, work: Work) -> OpCost:
    """npu/a2a3/TFillPad.hpp TFillPad / TFillPad_Inplace: counter mode; a vcopy of src's valid
    rows per 255 (not in place); where the pads differ the block tails (1-byte types: a flag pair,
    a scalar store per element, dsb; else set_mask_norm, the mask, a vector_dup of the rows and a
    barrier); row 0's right padding (the mask, a vector_dup, a barrier), a vcopy of it to the other
    rows per 255, the bottom rows (the mask, a vector_dup); the mode and mask restored."""
    src, dst = o["src"], o["dst"]
    t = machine.trace()
    if dst.valid_row == 0 or dst.valid_col == 0:
        return t.cost(Pipe.VECTOR, exact=True, idle=machine.idle_vector)
    size, rows = dst.elem.bytes, src.valid_row
    t.call(2)  # set_mask_count, set_vector_mask
    if _copies(op):
        for chunk in _chunks(rows):
            t.vector("vcopy", repeat=chunk)
    block = BLOCK_BYTES // size
    tail = -(-src.valid_col // block) * block - src.valid_col
    if dst.pad != src.pad:
        if size == 1:
            t.call(3 + rows * tail)  # set_flag, wait_flag, the stores, dsb
        else:
            t.call(2)  # set_mask_norm, set_vector_mask
            for chunk in _chunks(_handle_block_rows(rows, size)):
                t.vector("vector_dup", repeat=chunk)
            t.barrier()
    t.call(2)  # set_mask_count, set_vector_mask
    t.vector("vector_dup", repeat=1)
    t.barrier()
    if src.rows > 1:
        for chunk in _chunks(max(rows - 1, 0)):
            t.vector("vcopy", repeat=chunk)
    if dst.valid_row > rows:
        t.call()  # set_vector_mask
        t.vector("vector_dup", repeat=1)
    t.call(2)  # set_mask_norm, set_vector_mask
    return t.cost(Pipe.VECTOR, exact=True, idle=machine.idle_vector, elements=dst.rows * dst.cols)


def _chunks(rows: int) -> list[int]:
    """Repeat counts of the calls covering `rows` rows, 255 a call."""
    return [min(REPEAT_MAX, rows - at) for at in range(0, rows, REPEAT_MAX)]


def _tfillpad_vf(op: LoweredOp, o: dict, machine: VfMachine, work: Work) -> OpCost:
    """npu/a5/TFillPad.hpp TFillPad: one vector function; per register of each of src's valid
    rows a predicate, a load and a store (not in place); the pad vdup; per register of each
    row's right padding an unaligned store and a flush per row; per register of the bottom rows a
    predicate and a store."""
    src, dst = o["src"], o["dst"]
    size = dst.elem.bytes
    copied = src.valid_row * vector_repeats(src.valid_col, size) if _copies(op) else 0
    right = src.valid_row * vector_repeats(dst.cols - src.valid_col, size)
    bottom = vector_repeats(max(dst.valid_row - src.valid_row, 0) * dst.cols, size)
    body = {"plt": copied + bottom, "vlds": copied, "vsts": copied + right + src.valid_row + bottom, "pset": 1, "vdup": 1}
    return machine.cost(Pipe.VECTOR, 0, machine.vector_function(body))


def _tfillpad_simulated(op: LoweredOp, o: dict, machine: SimulatorMachine, work: Work) -> OpCost:
    """pto-isa cpu/TFillPad.hpp: a loop over dst's Rows x Cols."""
    dst = o["dst"]
    return machine.cost(Pipe.VECTOR, 0, dst.rows * dst.cols)


CPP_MODES = {FillPadMode.IN_PLACE: "InPlace", FillPadMode.EXPAND: "Expand"}
"""pto-isa's TFillPadMode of the forms spelled in the template."""


def _emit(e: Emission, op: TFillPadOp) -> None:
    """`TFILLPAD(dst, src)`, `TFILLPAD<pto::TFillPadMode::InPlace>` or `...::Expand` (the inferred form)."""
    mode = fillpad_mode(op)
    template = () if mode is FillPadMode.NORMAL else (f"pto::TFillPadMode::{CPP_MODES[mode]}",)
    e.issue(op, e.call("TFILLPAD", [*op.outs, *op.ins], template))


TFILLPAD = Instruction(
    rules=FillPadRules,
    lowered=(TFillPadBase,),
    emit=_emit,
    in_place={"": InPlace(frozenset({"src"}), how="the in-place form: the copy is skipped (a2a3, a5) or reads each "
                          "element before writing it (cpu); the padding never reads src", refused="")},
    cost=InstructionCost(on={CceMachine: _tfillpad_cce, VfMachine: _tfillpad_vf, SimulatorMachine: _tfillpad_simulated}),
)
