"""
A tile as the register level sees it (PTOAS include/PTO/IR/VPTOOps.td, PTOOps.td):

    %p = pto.tile_buf_addr %t : !pto.tile_buf<vec, 16x64xf32> -> !pto.ptr<f32, ub>   its storage's UB address
    %n = pto.tile_valid_rows %t : !pto.tile_buf<vec, 16x64xf32, valid=?x64> -> index   its valid rows

What a lowering to registers (a5's TGATHER) writes to reach a tile's bytes, and what a user may write.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from pto_dialect.types import PtrType, TileBufType
from pto_dialect.vpto.pointers import AddPtrOp, CastPtrOp


@irdl_op_definition
class TileBufAddrOp(IRDLOperation):
    """The UB address of a vec tile's storage, as a pointer to its element type."""

    name = "pto.tile_buf_addr"

    src = operand_def(TileBufType)
    result = result_def(PtrType)
    traits = traits_def(Pure())
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"

    def __init__(self, tile: SSAValue):
        tile_type = tile.type
        assert isinstance(tile_type, TileBufType)
        super().__init__(operands=[tile], result_types=[PtrType.get(tile_type.element_type, "ub")])

    def verify_(self) -> None:
        tile, pointer = self.src.type, self.result.type
        assert isinstance(tile, TileBufType)
        if tile.loc.data != "vec":
            raise VerifyException(f"requires a vec tile (its storage is in UB), got {tile}")
        if pointer != PtrType.get(tile.element_type, "ub"):
            raise VerifyException(f"requires result type !pto.ptr<{tile.element_type}, ub>, got {pointer}")


@irdl_op_definition
class TileValidRowsOp(IRDLOperation):
    """A tile's valid rows (its type's, or the value a dynamic `?` carries)."""

    name = "pto.tile_valid_rows"

    src = operand_def(TileBufType)
    result = result_def(IndexType)
    traits = traits_def(Pure())
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"

    def __init__(self, tile: SSAValue):
        super().__init__(operands=[tile], result_types=[IndexType()])


TILE_HANDLE_OPS = [TileBufAddrOp, TileValidRowsOp]


def tile_of(pointer: SSAValue) -> SSAValue | None:
    """The tile a pointer was taken from (through casts and advances), if it was."""
    owner = pointer.owner
    while isinstance(owner, CastPtrOp | AddPtrOp):
        owner = (owner.input if isinstance(owner, CastPtrOp) else owner.ptr).owner
    return owner.src if isinstance(owner, TileBufAddrOp) else None


def scope_tile_accesses(scope: Operation) -> tuple[tuple[SSAValue, ...], tuple[SSAValue, ...]]:
    """(tiles read, tiles written) by the register ops in `scope` through pointers taken from tiles: an op's
    `source` pointer is read, its `destination` written (vlds, the gathers; vsts, vscatter)."""
    reads: list[SSAValue] = []
    writes: list[SSAValue] = []
    for op in scope.walk():
        for name, seen in (("source", reads), ("destination", writes)):
            pointer = getattr(op, name, None)
            if isinstance(pointer, SSAValue) and (tile := tile_of(pointer)) is not None and tile not in seen:
                seen.append(tile)
    return tuple(reads), tuple(writes)
