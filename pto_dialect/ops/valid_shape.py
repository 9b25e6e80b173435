"""
`pto.set_validshape`: a tile's run-time valid shape, changed in place (PTOAS's SetValidShapeOp;
pto-isa's Tile::SetValidShape):

    pto.set_validshape %tile, %valid_row, %valid_col : !pto.tile_buf<vec, 16x64xf32, valid=?x?>

Only a tile whose valid row and column are both dynamic, bound in the kernel (an alloc_tile, not
an argument). A constant outside [0, Rows] / [0, Cols] is a verification error; a computed one a
run-time fault (the simulator's PTO_ASSERT).
"""

from __future__ import annotations

from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType
from xdsl.dialects.func import FuncOp
from xdsl.ir import BlockArgument
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, traits_def
from xdsl.utils.exceptions import VerifyException

from pto_dialect.ops.memory import constant_index
from pto_dialect.ops.common import OperandEffectsByName
from pto_dialect.types import TileBufType


@irdl_op_definition
class SetValidShapeOp(IRDLOperation):
    """The tile's valid rows and columns from here on."""

    name = "pto.set_validshape"

    source = operand_def(TileBufType)
    valid_row = operand_def(IndexType)
    valid_col = operand_def(IndexType)
    # it changes what the tile's instructions see: a write of the tile (loops that hold one run
    # iteration by iteration)
    traits = traits_def(OperandEffectsByName(writes=("source",)))
    assembly_format = "$source `,` $valid_row `,` $valid_col attr-dict `:` type($source)"

    def verify_(self) -> None:
        tile = self.source.type
        assert isinstance(tile, TileBufType)
        if tile.valid_shape != (DYNAMIC_INDEX, DYNAMIC_INDEX):
            raise VerifyException(f"expects a tile with a dynamic valid shape (valid=?x?), got {tile}")
        if isinstance(self.source, BlockArgument) and isinstance(self.source.owner.parent_op(), FuncOp):
            raise VerifyException("requires a tile bound in the kernel (pto.alloc_tile); a function argument's cannot change")
        for name, value, limit in (("valid_row", self.valid_row, tile.shape[0]), ("valid_col", self.valid_col, tile.shape[1])):
            if (known := constant_index(value)) is not None and not 0 <= known <= limit:
                raise VerifyException(f"{name} {known} is outside [0, {limit}] for a {tile.shape[0]}x{tile.shape[1]} tile")
