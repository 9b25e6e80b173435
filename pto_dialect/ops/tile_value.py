"""
One element of a Vec tile read into, or written from, the scalar unit (PTOAS's TGetValOp and
TSetValOp; pto-isa's Tile::GetValue / Tile::SetValue, which PTOAS emits for them):

    %v = pto.tgetval ins(%src, %offset : !pto.tile_buf<vec, ...>, index) outs : T
    pto.tsetval ins(%offset, %v : index, T) outs(%dst : !pto.tile_buf<vec, ...>)

The offset counts elements of the tile's storage (`*(ptr + offset)`: the layout's order, valid
region or not), on every target alike; each target's code static_asserts a Vec tile. An offset
outside the tile's storage reads or writes other UB: a constant one is a verification error, a
computed one a run-time fault.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def
from xdsl.utils.exceptions import VerifyException

from pto_dialect.instruction import Pipe
from pto_dialect.ops.memory import constant_index
from pto_dialect.phases import Phase
from pto_dialect.ops.common import ElementAccessOp, ElementReadOp, ElementWriteOp
from pto_dialect.types import TileBufType


def storage_elements(tile: TileBufType) -> int:
    rows, cols = tile.shape
    return rows * cols


class TileValueAccessOp(ElementAccessOp):
    """An element of a Vec tile's storage at `offset`, accessed by the scalar unit."""

    CONTAINER: ClassVar[str] = "tile"
    if TYPE_CHECKING:  # each op defines them, in PTOAS's operand order
        tile: SSAValue
        offset: SSAValue

    def check_element(self, value_type: Attribute, what: str) -> None:
        tile = self.tile.type
        assert isinstance(tile, TileBufType)
        if tile.loc.data != "vec":
            raise VerifyException(
                f"expects a Vec tile (loc=vec): Tile::GetValue / SetValue static_assert it, got loc={tile.loc.data}"
            )
        if value_type != tile.element_type:
            raise VerifyException(f"expects {what} type to match the tile's element type, got {value_type} and {tile.element_type}")
        offset = constant_index(self.offset)
        if offset is not None and not 0 <= offset < storage_elements(tile):
            raise VerifyException(
                f"expects offset to be inside the tile's {storage_elements(tile)} elements of storage, got {offset}"
            )


@irdl_op_definition
class TGetValOp(TileValueAccessOp, ElementReadOp):
    """The element at `offset` of the tile's storage."""

    name = "pto.tgetval"

    tile = operand_def(TileBufType)
    offset = operand_def(IndexType)
    PHASES: ClassVar = (Phase(Pipe.SCALAR, reads=("tile",)),)
    """The scalar unit reads the tile (Tile::GetValue): a vector write before it needs V -> S."""
    assembly_format = "`ins` `(` $tile `,` $offset `:` type($tile) `,` type($offset) `)` `outs` `:` type($value) attr-dict"


@irdl_op_definition
class TSetValOp(TileValueAccessOp, ElementWriteOp):
    """The element at `offset` of the tile's storage set to `value`."""

    name = "pto.tsetval"

    offset = operand_def(IndexType)
    value = operand_def()
    tile = operand_def(TileBufType)
    PHASES: ClassVar = (Phase(Pipe.SCALAR, writes=("tile",)),)
    """The scalar unit writes the tile (Tile::SetValue)."""
    assembly_format = (
        "`ins` `(` $offset `,` $value `:` type($offset) `,` type($value) `)` `outs` `(` $tile `:` type($tile) `)` attr-dict"
    )
