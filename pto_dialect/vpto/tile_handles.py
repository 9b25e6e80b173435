"""
A tile as the register level sees it (PTOAS include/PTO/IR/VPTOOps.td, PTOOps.td):

    %p = pto.tile_buf_addr %t : !pto.tile_buf<vec, 16x64xf32> -> !pto.ptr<f32, ub>   its storage's UB address
    %n = pto.tile_valid_rows %t : !pto.tile_buf<vec, 16x64xf32, valid=?x64> -> index   its valid rows

What a lowering to registers (a5's TGATHER) writes to reach a tile's bytes, and what a user may write.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, result_def
from xdsl.utils.exceptions import VerifyException

from pto_dialect.types import PtrType, TileBufType
from pto_dialect.vpto.common import PureRegisterOp
from pto_dialect.vpto.pointers import AddPtrOp, CastPtrOp


class TileQueryOp(PureRegisterOp):
    """A fact of a tile as a value: `%r = pto.<op> %tile : <tile type> -> <the fact's type>`."""

    src = operand_def(TileBufType)

    def __init__(self, tile: SSAValue):
        super().__init__(operands=[tile], result_types=[self.result_type(tile.type)])

    @staticmethod
    def result_type(tile: Attribute) -> Attribute:
        raise NotImplementedError


@irdl_op_definition
class TileValidRowsOp(TileQueryOp):
    """A tile's valid rows (its type's, or the value a dynamic `?` carries)."""

    name = "pto.tile_valid_rows"

    result = result_def(IndexType)

    @staticmethod
    def result_type(tile: Attribute) -> Attribute:
        return IndexType()


@irdl_op_definition
class TileBufAddrOp(TileQueryOp):
    """The UB address of a vec tile's storage, as a pointer to its element type."""

    name = "pto.tile_buf_addr"

    result = result_def(PtrType)

    def verify_(self) -> None:
        tile, pointer = self.src.type, self.result.type
        assert isinstance(tile, TileBufType)
        if tile.loc.data != "vec":
            raise VerifyException(f"requires a vec tile (its storage is in UB), got {tile}")
        if pointer != self.result_type(tile):
            raise VerifyException(f"requires result type !pto.ptr<{tile.element_type}, ub>, got {pointer}")

    @staticmethod
    def result_type(tile: Attribute) -> Attribute:
        assert isinstance(tile, TileBufType)
        return PtrType.get(tile.element_type, "ub")


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
