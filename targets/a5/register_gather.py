"""
TGATHER's index form on a5, lowered to the register level a user writes (pto_dialect/vpto/): the vector
function of pto-isa's npu/a5/TGather.hpp (TGather_b32 / _b16 / _b16_bc / _b8), as PTOAS's
lib/TileOps/a5/tgather.py spells it:

    pto.vecscope {
      scf.for %row = 0 to <dst valid rows> {
        scf.for %col = 0 to <dst cols> step <lanes> iter_args(%left = <dst cols>) {
          %mask, %rest = pto.plt_bN %left                      the columns left in this row
          %offsets = pto.vlds %indices[%row * IdxCols + %col]  one register of indices (read unsigned)
          %lanes = pto.vgather2 %src, %offsets, %mask          (b16 data, 32-bit indices: vgather2_bc)
          pto.vsts %lanes, %dst[%row * DstCols + %col], %mask  (b8: PK_B16, b16 by vgather2_bc: PK_B32)
        }
      }
    }

The lanes are the index width's: 128 for 16-bit indices (b8 and b16 data), 64 for 32-bit ones. Element
types the gathers do not name (fp8, hif8, si8, si16, ...) are gathered as the unsigned integer of their
width, through `pto.castptr`: a gather moves bits.

b64 data (pto-isa's Int64Gather) is gathered as 32-bit words: per register of 64 indices

    %words = pto.vadd %offsets, %offsets, %mask                 the element's low word, 2 * index (wrapping)
    %next = pto.vadds %words, %c1, %mask                         its high word
    %low = pto.vgather2 %src_words, %words, %mask
    %high = pto.vgather2 %src_words, %next, %mask
    %first, %second = pto.vintlv %low, %high                     the elements' words in order
    pto.vsts %first / %second at 2 * (row * DstCols + col) (+ 64) words, under the first 2 * left word lanes

Int64Gather stores the pair with one vstsx2 INTLV_B32 under the index mask and gathers one register
per row; PTOAS's docs say vstsx2 ignores its mask (it would write 512 bytes whatever the valid
columns), so the pair is interleaved in registers and stored under word masks, and a row of more
than 64 columns takes several registers as the other widths do.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerType, Signedness, StringAttr, i32
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from pto_dialect.ops.subview import stored_type
from pto_dialect.types import PtrType, TileBufType
from pto_dialect.vpto.arithmetic import BY_NAME as ARITHMETIC
from pto_dialect.vpto.gather import VGATHER2_BC_FORMS, VGATHER2_FORMS, GatherForm, VGather2BcOp, VGather2Op
from pto_dialect.vpto.load_store import VldsOp, VstsOp
from pto_dialect.vpto.pointers import CastPtrOp
from pto_dialect.vpto.predicates import PLT_OPS
from pto_dialect.vpto.scope import VecScopeOp
from pto_dialect.vpto.tile_handles import TileBufAddrOp, TileValidRowsOp
from pto_dialect.vpto.types import VECTOR_BYTES, MaskType, VRegType
from pto_dialect.vpto.vector import VintlvOp

PLT = {op.GRANULARITY: op for op in PLT_OPS}  # pyright: ignore[reportAttributeAccessIssue]
"""The predicate of the first n lanes, per mask granularity."""


def unsigned_of(bits: int) -> IntegerType:
    return IntegerType(bits, Signedness.UNSIGNED)


class Builder:
    """Ops appended in order to one list (a block's body), each located at the TGATHER it lowers."""

    def __init__(self, location: object):
        self.ops: list[Operation] = []
        self.location = location

    def add(self, op: Operation) -> Operation:
        op.location = self.location  # pyright: ignore[reportAttributeAccessIssue]
        self.ops.append(op)
        return op

    def index(self, value: int) -> SSAValue:
        return self.add(arith.ConstantOp.from_int_and_width(value, IndexType())).results[0]

    def pointer(self, tile: SSAValue, element: Attribute) -> SSAValue:
        """The tile's UB pointer, as a pointer to `element` (a cast where that is not the tile's own)."""
        address = self.add(TileBufAddrOp(tile)).results[0]
        if element == address.type.element_type:  # pyright: ignore[reportAttributeAccessIssue]
            return address
        return self.add(CastPtrOp.build(operands=[address], result_types=[PtrType.get(element, "ub")])).results[0]


def gathered_element(form: GatherForm, data: TileBufType) -> Attribute:
    """The element type the gather reads: the data's, or the unsigned integer of its width."""
    return data.element_type if data.element.mlir in form.sources else unsigned_of(data.element.bits)


def register_index_gather(op: Operation, src: SSAValue, indices: SSAValue, dst: SSAValue) -> list[Operation]:
    """The ops of TGATHER's index form over tiles src, indices, dst (static dst cols == valid cols)."""
    src_t, idx_t, dst_t = src.type, indices.type, dst.type
    assert isinstance(src_t, TileBufType) and isinstance(idx_t, TileBufType) and isinstance(dst_t, TileBufType)
    width, index_bytes = src_t.element.bytes, idx_t.element.bytes
    out = Builder(op.location)
    by_words = width == 2 and index_bytes == 4  # pto-isa TGather_b16_bc
    lanes = VECTOR_BYTES // index_bytes
    index_element = idx_t.element_type
    if width == 8:  # pto-isa Int64Gather: 32-bit words, the indices read unsigned
        element = store_element = index_element = unsigned_of(32)
        result, dist = VRegType.of(element), None
    else:
        form = (VGATHER2_BC_FORMS if by_words else VGATHER2_FORMS)[width]
        element = store_element = gathered_element(form, src_t)
        result = (VGather2BcOp if by_words else VGather2Op).result_for(PtrType.get(element, "ub"))
        dist = "PK_B32" if by_words else "PK_B16" if width == 1 else None
    source = out.pointer(src, element)
    offsets_from = out.pointer(indices, index_element)
    destination = out.pointer(dst, store_element)
    cols = dst_t.shape[1]
    # rows step by the stored tiles' columns: a window of columns keeps its tile's (stored_type)
    dst_stride, index_stride = stored_type(dst).shape[1], stored_type(indices).shape[1]
    rows = out.index(dst_t.valid_shape[0]) if dst_t.valid_shape[0] >= 0 else out.add(TileValidRowsOp(dst)).results[0]
    constants: dict[int, SSAValue] = {}
    for value in (0, 1, cols, dst_stride, index_stride, lanes):
        if value not in constants:
            constants[value] = out.index(value)
            constants[value].name_hint = f"c{value}"
    zero, one, dst_cols, lane_step = constants[0], constants[1], constants[cols], constants[lanes]
    dst_step, index_step = constants[dst_stride], constants[index_stride]
    all_cols = out.add(arith.ConstantOp.from_int_and_width(cols, i32)).results[0]
    named = ((source, "src"), (offsets_from, "indices"), (destination, "dst"), (rows, "rows"), (all_cols, f"c{cols}_i32"))
    if width == 8:  # the word arithmetic's constants
        word_constants = (out.add(arith.ConstantOp.from_int_and_width(1, i32)).results[0], out.index(2),
                          out.add(arith.ConstantOp.from_int_and_width(2, i32)).results[0], lane_step)
        named += ((word_constants[0], "c1_i32"), (word_constants[1], "c2"), (word_constants[2], "c2_i32"))
    for value, name in named:
        value.name_hint = name

    row = Block(arg_types=[IndexType()])
    row.args[0].name_hint = "row"
    row_body = Builder(op.location)
    index_row = row_body.add(arith.MuliOp(row.args[0], index_step)).results[0]
    index_row.name_hint = "row_start"
    dst_row = index_row if index_step is dst_step else row_body.add(arith.MuliOp(row.args[0], dst_step)).results[0]

    chunk = Block(arg_types=[IndexType(), i32])
    col, remaining = chunk.args
    col.name_hint, remaining.name_hint = "col", "left"
    step = Builder(op.location)
    granularity = f"b{8 * index_bytes}"
    mask, rest = step.add(PLT[granularity].build(operands=[remaining], result_types=[MaskType.of(granularity), i32])).results
    at_index = step.add(arith.AddiOp(index_row, col)).results[0]
    at_index.name_hint = "at"
    offsets = step.add(VldsOp.build(
        operands=[offsets_from, at_index], result_types=[VRegType.of(index_element), None])).results[0]
    at_dst = at_index if dst_row is index_row else step.add(arith.AddiOp(dst_row, col)).results[0]
    if width == 8:
        _gather_words(step, source, offsets, mask, remaining, destination, at_dst, word_constants)
    else:
        gather = VGather2BcOp if by_words else VGather2Op
        gathered = step.add(gather(source, offsets, mask, result)).results[0]
        properties = {"dist": StringAttr(dist)} if dist is not None else {}
        step.add(VstsOp.build(operands=[gathered, destination, at_dst, mask], result_types=[None], properties=properties))
        gathered.name_hint = "lanes"
    step.add(scf.YieldOp(rest))
    for value, name in ((mask, "mask"), (rest, "rest"), (offsets, "offsets")):
        value.name_hint = name
    chunk.add_ops(step.ops)

    row_body.add(scf.ForOp(zero, dst_cols, lane_step, [all_cols], Region(chunk)))
    row_body.add(scf.YieldOp())
    row.add_ops(row_body.ops)
    rows_loop = scf.ForOp(zero, rows, one, [], Region(row))
    rows_loop.location = op.location
    out.add(VecScopeOp(Region(Block([rows_loop]))))
    return out.ops


def _gather_words(step: Builder, words_base: SSAValue, offsets: SSAValue, mask: SSAValue, left: SSAValue,
                  destination: SSAValue, at: SSAValue, constants: tuple[SSAValue, SSAValue, SSAValue, SSAValue]) -> None:
    """The chunk of a b64 gather (Int64Gather's arithmetic): each element's two 32-bit words gathered,
    interleaved in order and stored under masks of the first 2 * left words. `constants`: 1 (i32), 2
    (index), 2 (i32), a register's words (index)."""
    words_type = offsets.type
    assert isinstance(words_type, VRegType)
    one, two, two_i32, lane_words = constants
    words = step.add(ARITHMETIC["vadd"].build(operands=[offsets, offsets, mask], result_types=[words_type])).results[0]
    following = step.add(ARITHMETIC["vadds"].build(operands=[words, one, mask], result_types=[words_type])).results[0]
    low = step.add(VGather2Op(words_base, words, mask, words_type)).results[0]
    high = step.add(VGather2Op(words_base, following, mask, words_type)).results[0]
    first, second = step.add(VintlvOp.build(operands=[low, high], result_types=[words_type, words_type])).results
    words_left = step.add(arith.MuliOp(left, two_i32)).results[0]
    b32 = MaskType.of("b32")
    first_mask, past_first = step.add(PLT["b32"].build(operands=[words_left], result_types=[b32, i32])).results
    second_mask, past_second = step.add(PLT["b32"].build(operands=[past_first], result_types=[b32, i32])).results
    at_words = step.add(arith.MuliOp(at, two)).results[0]
    at_second = step.add(arith.AddiOp(at_words, lane_words)).results[0]
    step.add(VstsOp.build(operands=[first, destination, at_words, first_mask], result_types=[None]))
    step.add(VstsOp.build(operands=[second, destination, at_second, second_mask], result_types=[None]))
    for value, name in ((words, "words"), (following, "next_words"), (low, "low"), (high, "high"), (first, "first"),
                        (second, "second"), (words_left, "words_left"), (first_mask, "first_mask"),
                        (past_first, "past_first"), (second_mask, "second_mask"), (past_second, "past_second"),
                        (at_words, "at_words"), (at_second, "at_second")):
        value.name_hint = name
