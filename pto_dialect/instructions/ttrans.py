"""
TTRANS (pto-isa docs/isa/TTRANS.md), the 2-D tile transpose: dst[c, r] = src[r, c] over src's
valid region (its valid rows r, valid cols c), as PTOAS writes it:

    pto.ttrans ins(%src[, %tmp] : S[, T]) outs(%dst : D)      (SSA: %dst = pto.ttrans %src[, %tmp] : ...)

emitted as `TTRANS(dst, src, tmp)`; an omitted tmp is added by pto-materialize-implicit-tmp (the
C++ call takes one). The ConvTile forms (NCHW -> NC1HWC0, ...) are not taken here.

What each target writes (the `trans_write` choice):
- cpu (cpu/TTrans.hpp TTrans_Impl): each element of src's valid region, through each tile's
  layout, converted to dst's type; nothing else.
- a2a3 (npu/a2a3/TTrans.hpp TTransOperation): with dst's row stride a whole number of 16 (1-byte
  types: 32) elements, scatter_vnchwconv of 16x16 (32x32) blocks into tmp, then copy_ubuf_to_ubuf
  of src's valid cols rows, each src's valid rows rounded up to a 32-byte block: the block's tail
  of each dst row takes what the unset vnchwconv addresses (UB address 0) hold, which the
  interpreter does not model (those elements keep dst's contents: the values are approximate
  there); else a scalar loop over the valid region. Bits kept.
- a5 (npu/a5/TTrans.hpp TTransTile): vgather2 / vsts column by column (src rows at least its
  cols) or vlds / vscatter row by row, exactly the valid region, bits kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar
from enum import StrEnum

from xdsl.ir import Attribute, Operation
from xdsl.irdl import irdl_op_definition
from xdsl.utils.exceptions import VerifyException

from pto_dialect.arg_reduce import TMP_ADDED, TmpAdded, added_tmp
from pto_dialect.choices import TransWrite
from pto_dialect.cost import CceMachine, DmaPath, InstructionCost, OpCost, SimulatorMachine, VfMachine, Work
from pto_dialect.facts import TileFacts, known, require, require_type, spell
from pto_dialect.instruction import DocsCells, Emission, Instruction, Pipe, RuleRow, tmp_untouched_unless_row_uses_it
from pto_dialect.instructions.movement import BLOCK_BYTES, cpp_converted, require_nd, require_vec
from pto_dialect.lowered import LoweredOp, lowered_base
from pto_dialect.machine import RuntimeFault, np
from pto_dialect.types import TileTypeBase
from pto_dialect.ops.common import SrcTmpDstOp
from pto_dialect.ops.memory import AllocTileOp
from pto_dialect.vector import vector_repeats

class TmpNeed(StrEnum):
    """How large PTOAS's verifier wants an explicit tmp."""

    UNUSED = "unused"
    BLOCK = "at least 32 bytes"
    SRC_ON_VNCHWCONV = "at least src's bytes on the vnchwconv path, else 32"




def block_rows(size: int) -> int:
    """Rows of a2a3's vnchwconv block: 32 for 1-byte types, else 16 (its Y_ELEM_B8 / Y_ELEM_OTHER)."""
    return 32 if size == 1 else 16


@irdl_op_definition
class TTransOp(SrcTmpDstOp):
    """dst = src's valid region transposed."""

    name = "pto.ttrans"

    def verify_src_dst(self, src: TileTypeBase, dst: TileTypeBase) -> None:
        if src.element.bytes != dst.element.bytes:
            raise VerifyException(
                f"expects src and dst element types of one size, got {src.element.mlir} and {dst.element.mlir}"
            )


@dataclass(frozen=True)
class TTransRules(RuleRow):
    types: frozenset[str]
    one_type: bool
    """src, tmp and dst of one element type (else dst's of src's size, converted)."""
    row_major: bool
    """src and dst row-major ND (the code addresses row i at i * RowStride)."""
    mirrored_valid: bool
    """dst's valid shape src's transposed (a static_assert); else dst only holds it."""
    tmp_need: TmpNeed
    tmp_used: bool
    """Its code reads or writes a tmp (a2a3: the vnchwconv paths, counted for all); else it ignores
    one (cpu/TTrans.hpp, npu/a5/TTrans.hpp), which takes no UB at the op (`untouched`)."""
    index_16_bits: bool
    """1- and 2-byte types: the gather (scatter) index of the last element of src (dst) within 16 bits."""
    implicit_tmp: TmpAdded
    note: str

    def check(self, operands: dict, attrs: Mapping[str, Attribute]) -> None:
        src, dst, tmp = operands["src"], operands["dst"], operands.get("tmp")
        tiles = (src, dst) if tmp is None else (src, tmp, dst)
        require_vec(tiles)
        require_type("src", src.elem, self.types)
        require_type("dst", dst.elem, self.types)
        if self.one_type:
            for tile in tiles[1:]:
                require(
                    tile.elem.mlir == src.elem.mlir,
                    f"expects src and {tile.role} to have the same element type, got {src.elem.mlir} "
                    f"and {tile.elem.mlir}",
                )
        if self.row_major:
            require_nd((src, dst), "RowStride")
        if self.mirrored_valid:
            require(
                known(src.valid_row) == known(dst.valid_col) and known(src.valid_col) == known(dst.valid_row),
                f"expects src's valid dims and dst's transposed ones both static or both dynamic (a "
                f"static_assert compares them), got {_spelled(src)} and {_spelled(dst)}",
            )
        if known(src.valid_row, src.valid_col, dst.valid_row, dst.valid_col) and self.mirrored_valid:
            require(
                (dst.valid_row, dst.valid_col) == (src.valid_col, src.valid_row),
                f"expects dst's valid shape to be src's transposed, got {src.valid_row}x{src.valid_col} and "
                f"{dst.valid_row}x{dst.valid_col}",
            )
        if known(src.valid_row, src.valid_col):
            require(
                dst.rows >= src.valid_col and dst.cols >= src.valid_row,
                f"expects dst's shape to hold src's valid shape transposed, got {src.valid_row}x{src.valid_col} and "
                f"{dst.rows}x{dst.cols}",
            )
        if tmp is not None and self.tmp_need is not TmpNeed.UNUSED:
            on_path = self.tmp_need is TmpNeed.SRC_ON_VNCHWCONV and vnchwconv_path(src, dst)
            needed = src.rows * src.cols * src.elem.bytes if on_path else BLOCK_BYTES
            require(
                    tmp.rows * tmp.cols * tmp.elem.bytes >= needed,
                    f"expects tmp to hold at least {needed} bytes, got {tmp.rows}x{tmp.cols} x "
                    f"{tmp.elem.mlir}",
                )
        if self.index_16_bits and src.elem.bytes < 4:
            by_rows = src.rows < src.cols  # TTransTile: row by row (scatter into dst), else column by column
            tile = dst if by_rows else src
            last = (tile.rows - 1) * tile.cols + tile.cols - 1
            require(
                last <= 0xFFFF,
                f"expects the {'scatter' if by_rows else 'gather'} index of {tile.role}'s last element ({last}) within "
                f"16 bits ({tile.elem.mlir})",
            )

    DOCS: ClassVar[DocsCells] = (
        ("element types", lambda r: spell(r.types)),
        ("src, tmp and dst", lambda r: "one element type" if r.one_type else "dst of src's size (converted)"),
        ("layouts", lambda r: "src and dst row-major ND" if r.row_major else "any"),
        ("valid shapes", lambda r: "dst's src's transposed, both static or both dynamic" if r.mirrored_valid
         else "src's transposed within dst's shape"),
        ("tmp", lambda r: r.tmp_need.value if r.tmp_used or r.tmp_need is TmpNeed.UNUSED
         else f"{r.tmp_need.value} (PTOAS's contract); unused by the code"),
        ("1- and 2-byte index", lambda r: "the last element's gather / scatter index within 16 bits" if r.index_16_bits else "any"),
        ("tmp added when omitted (pto-materialize-implicit-tmp)", lambda r: TMP_ADDED[r.implicit_tmp]),
        ("why", lambda r: r.note),
    )


def vnchwconv_path(src: TileFacts, dst: TileFacts) -> bool:
    """Whether a2a3 transposes by vnchwconv through tmp: dst's row stride a whole number of
    vnchwconv block rows, src's a whole number of 32-byte blocks (TTransOperation's test)."""
    size = src.elem.bytes
    return dst.cols % block_rows(size) == 0 and src.cols * size % BLOCK_BYTES == 0


def vnchwconv_tail(op: Operation) -> bool:
    """Whether a2a3's vnchwconv path copies more of each dst row than src's valid rows (the rest of
    a 32-byte block, from UB address 0), or may (src's valid rows known only at run time)."""
    assert isinstance(op, TTransOp)
    src, dst = TileFacts.of("src", op.src.type), TileFacts.of("dst", op.destinations[0].type)  # pyright: ignore[reportArgumentType]
    return vnchwconv_path(src, dst) and (not known(src.valid_row) or src.valid_row * src.elem.bytes % BLOCK_BYTES != 0)


def _spelled(tile: TileFacts) -> str:
    return "x".join(str(d) if known(d) else "?" for d in (tile.valid_row, tile.valid_col))


def ttrans_implicit_tmp(op: TTransOp, rules: TTransRules) -> AllocTileOp | None:
    return added_tmp(op, op.src, op.tmp, rules.implicit_tmp)


def ttrans_kernel(o: dict, *, trans_write: TransWrite) -> None:
    src, dst = o["src"], o["dst"]
    rows, cols = src.valid_shape
    if rows > dst.type.shape[1] or cols > dst.type.shape[0]:
        raise RuntimeFault(
            f"src's valid shape {rows}x{cols} transposed does not fit dst's shape {dst.type.shape[0]}x{dst.type.shape[1]}"
        )
    if trans_write is TransWrite.VECTOR and (rows == 0) != (cols == 0):
        raise RuntimeFault(f"a5's transpose of a {rows}x{cols} valid region: its repeat count (0) minus 1 wraps")
    region = src.values[..., :rows, :cols].swapaxes(-1, -2)
    if trans_write is TransWrite.ELEMENTS:
        with np.errstate(all="ignore"):
            dst.write(cols, rows, cpp_converted(region, dst.flat.dtype))
        return
    dst.write(cols, rows, region.view(dst.flat.dtype))


TTransBase = lowered_base(TTransOp, ttrans_kernel, "dst = src's valid region transposed, as the target writes it (trans_write).", trans_write=TransWrite.Attr)


def _ttrans_cce(op: LoweredOp, o: dict, machine: CceMachine, work: Work) -> OpCost:
    """npu/a2a3/TTrans.hpp TTransOperation: on the vnchwconv path, per 32-byte column block of
    src's valid cols the address registers (4 set_va_reg_sb; 8 for 1-byte types) and one
    scatter_vnchwconv (four for 1-byte types) of the whole blocks of rows, the same for the rows'
    tail, a barrier and one copy_ubuf_to_ubuf of src's valid cols rows; else a flag pair, a
    scalar store per valid element, a flag pair."""
    src, dst = o["src"], o["dst"]
    rows, cols = src.valid_shape
    size = src.elem.bytes
    t = machine.trace()
    if not vnchwconv_path(src, dst):
        t.call(4 + rows * cols)
        return t.cost(Pipe.VECTOR, exact=True, idle=machine.idle_vector, elements=rows * cols)
    block = BLOCK_BYTES // size
    x_blocks, y_blocks, y_tail = -(-cols // block), rows // block_rows(size), rows % block_rows(size)
    intrinsic, per_call = {1: ("scatter_vnchwconv_b8", 4), 2: ("scatter_vnchwconv_b16", 1)}.get(size, ("scatter_vnchwconv_b32", 1))
    registers = 8 if size == 1 else 4
    if y_blocks:
        for _ in range(x_blocks):
            t.call(registers)
            for _ in range(per_call):
                t.vector(intrinsic, repeat=y_blocks)
    if y_tail:
        t.call(registers)
        for _ in range(per_call):
            t.vector(intrinsic, repeat=x_blocks)
    t.barrier()
    burst = -(-rows * size // BLOCK_BYTES) * BLOCK_BYTES
    t.dma(DmaPath.UB_TO_UB, burst * cols)
    return t.cost(Pipe.VECTOR, exact=True, idle=machine.idle_vector, elements=rows * cols)


def _ttrans_vf(op: LoweredOp, o: dict, machine: VfMachine, work: Work) -> OpCost:
    """npu/a5/TTrans.hpp TTransTile: one vector function; column by column (src rows at least its
    cols) per register of src's valid rows vci, vmins, vmuls, vadds, vgather2 and vsts; else row by
    row per register of its valid cols vlds, vci, vmins, vmuls, vadds and vscatter (1-byte types:
    half a register's elements, unpacked)."""
    src = o["src"]
    rows, cols = src.valid_shape
    size = src.elem.bytes
    lanes = 2 if size == 1 else size
    if src.rows < src.cols:
        n = rows * vector_repeats(cols, lanes)
        body = {"vlds": n, "vci": n, "vmins": n, "vmuls": n, "vadds": n, "vscatter": n}
    else:
        n = cols * vector_repeats(rows, lanes)
        body = {"vci": n, "vmins": n, "vmuls": n, "vadds": n, "vgather2": n, "vsts": n}
    return machine.cost(Pipe.VECTOR, 0, machine.vector_function({"plt": 2, **body}))


def _ttrans_simulated(op: LoweredOp, o: dict, machine: SimulatorMachine, work: Work) -> OpCost:
    """pto-isa cpu/TTrans.hpp TTrans_Impl: a loop over src's valid elements."""
    src = o["src"]
    return machine.cost(Pipe.VECTOR, 0, src.valid_row * src.valid_col)


def _emit(e: Emission, op: TTransOp) -> None:
    """`TTRANS(dst, src, tmp)`."""
    e.issue(op, e.call("TTRANS", [*op.outs, op.src, e.require(op, "tmp")]))


TTRANS = Instruction(
    rules=TTransRules,
    lowered=(TTransBase,),
    emit=_emit,
    implicit_tmp=ttrans_implicit_tmp,
    untouched=tmp_untouched_unless_row_uses_it,
    cost=InstructionCost(on={CceMachine: _ttrans_cce, VfMachine: _ttrans_vf, SimulatorMachine: _ttrans_simulated}),
)
