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
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerType, Signedness, StringAttr, i32
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from pto_dialect.types import PtrType, TileBufType
from pto_dialect.vpto.gather import VGATHER2_BC_FORMS, VGATHER2_FORMS, GatherForm, VGather2BcOp, VGather2Op
from pto_dialect.vpto.load_store import VldsOp, VstsOp
from pto_dialect.vpto.pointers import CastPtrOp
from pto_dialect.vpto.predicates import PLT_OPS
from pto_dialect.vpto.scope import VecScopeOp
from pto_dialect.vpto.tile_handles import TileBufAddrOp, TileValidRowsOp
from pto_dialect.vpto.types import VECTOR_BYTES, MaskType, VRegType

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
    form = (VGATHER2_BC_FORMS if by_words else VGATHER2_FORMS)[width]
    element = gathered_element(form, src_t)
    lanes = VECTOR_BYTES // index_bytes
    if by_words:
        result, store_element, dist = VRegType.of(unsigned_of(32)), element, "PK_B32"
    elif width == 1:
        signed = isinstance(element, IntegerType) and element.signedness.data != Signedness.UNSIGNED
        result = VRegType.of(IntegerType(16, Signedness.SIGNLESS if signed else Signedness.UNSIGNED))
        store_element, dist = element, "PK_B16"
    else:
        result, store_element, dist = VRegType.of(element), element, None
    source = out.pointer(src, element)
    offsets_from = out.pointer(indices, idx_t.element_type)
    destination = out.pointer(dst, store_element)
    cols = dst_t.shape[1]
    rows = out.index(dst_t.valid_shape[0]) if dst_t.valid_shape[0] >= 0 else out.add(TileValidRowsOp(dst)).results[0]
    zero, one, dst_cols, lane_step = out.index(0), out.index(1), out.index(cols), out.index(lanes)
    index_cols = dst_cols if idx_t.shape[1] == cols else out.index(idx_t.shape[1])
    all_cols = out.add(arith.ConstantOp.from_int_and_width(cols, i32)).results[0]
    named = ((source, "src"), (offsets_from, "indices"), (destination, "dst"), (rows, "rows"), (zero, "c0"), (one, "c1"),
             (dst_cols, f"c{cols}"), (index_cols, f"c{idx_t.shape[1]}"), (lane_step, f"c{lanes}"), (all_cols, f"c{cols}_i32"))
    for value, name in named:
        value.name_hint = name

    row = Block(arg_types=[IndexType()])
    row.args[0].name_hint = "row"
    row_body = Builder(op.location)
    index_row = row_body.add(arith.MuliOp(row.args[0], index_cols)).results[0]
    index_row.name_hint = "row_start"
    dst_row = index_row if index_cols is dst_cols else row_body.add(arith.MuliOp(row.args[0], dst_cols)).results[0]

    chunk = Block(arg_types=[IndexType(), i32])
    col, remaining = chunk.args
    col.name_hint, remaining.name_hint = "col", "left"
    step = Builder(op.location)
    granularity = f"b{8 * index_bytes}"
    mask, rest = step.add(PLT[granularity].build(operands=[remaining], result_types=[MaskType.of(granularity), i32])).results
    at_index = step.add(arith.AddiOp(index_row, col)).results[0]
    offsets = step.add(VldsOp.build(
        operands=[offsets_from, at_index], result_types=[VRegType.of(idx_t.element_type), None])).results[0]
    gather = VGather2BcOp if by_words else VGather2Op
    gathered = step.add(gather(source, offsets, mask, result)).results[0]
    at_dst = at_index if dst_row is index_row else step.add(arith.AddiOp(dst_row, col)).results[0]
    properties = {"dist": StringAttr(dist)} if dist is not None else {}
    step.add(VstsOp.build(operands=[gathered, destination, at_dst, mask], result_types=[None], properties=properties))
    step.add(scf.YieldOp(rest))
    for value, name in ((mask, "mask"), (rest, "rest"), (offsets, "offsets"), (gathered, "lanes")):
        value.name_hint = name
    chunk.add_ops(step.ops)

    row_body.add(scf.ForOp(zero, dst_cols, lane_step, [all_cols], Region(chunk)))
    row_body.add(scf.YieldOp())
    row.add_ops(row_body.ops)
    rows_loop = scf.ForOp(zero, rows, one, [], Region(row))
    rows_loop.location = op.location
    out.add(VecScopeOp(Region(Block([rows_loop]))))
    return out.ops
