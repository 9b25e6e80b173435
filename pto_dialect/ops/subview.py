"""
`pto.subview`: a window of a tile, in the tile's own storage (PTOAS's SubViewOp):

    %s = pto.subview %tile[%r, %c] sizes [8, 128] [valid [%vr, %vc]] : T_tile -> T_window

The window's type has shape `sizes`, the tile's element type and memory. Its valid shape is the
`valid` operands when given, else the type's (static) valid shape, else the tile's valid region
past the offsets, clipped to the window. A window outside the tile (or, in a boxed layout, not
made of whole boxes) is a verification error when its offsets are constants, a run-time fault
otherwise.

The hardware addresses a window as pto-isa's TSUBVIEW and PTOAS's lowering (PTOResolveBufferSelect)
make it: a tile at the window's address (the tile's storage offset of [row, col]) whose type keeps
the tile's strides (`window_tile_type`): the window's own type when its storage steps as the tile's
does (whole rows of a row-major tile, whole columns of a column-major one), else the tile's shape
with the window's valid shape. The instructions then run on a window of columns as on any tile
whose valid region is smaller than its storage.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, IndexType, IntegerAttr, i64
from xdsl.ir import SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from pto_dialect.ops.memory import constant_index
from pto_dialect.types import TileBufType, TileTypeBase

INDEX = IndexType()


@irdl_op_definition
class SubViewOp(IRDLOperation):
    """A window of a tile at index offsets, of static sizes."""

    name = "pto.subview"

    source = operand_def(TileBufType)
    offsets = var_operand_def(IndexType)
    valid_row = opt_operand_def(IndexType)
    valid_col = opt_operand_def(IndexType)
    sizes = prop_def(ArrayAttr[IntegerAttr])
    result = result_def(TileBufType)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())

    @property
    def window(self) -> tuple[int, int]:
        rows, cols = (a.value.data for a in self.sizes.data)
        return rows, cols

    @classmethod
    def parse(cls, parser: Parser) -> SubViewOp:
        source = parser.parse_unresolved_operand()
        offsets = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
        parser.parse_keyword("sizes")
        sizes = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
        valid: Sequence[UnresolvedOperand] = ()
        if parser.parse_optional_keyword("valid") is not None:
            valid = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
            if len(valid) != 2:
                parser.raise_error("subview expects valid [valid_row, valid_col]")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        resolved_valid = [parser.resolve_operand(v, INDEX) for v in valid]
        op = cls.build(
            operands=[
                parser.resolve_operand(source, source_type),
                [parser.resolve_operand(o, INDEX) for o in offsets],
                resolved_valid[:1],
                resolved_valid[1:],
            ],
            result_types=[result_type],
            properties={"sizes": ArrayAttr([IntegerAttr(s, i64) for s in sizes])},
        )
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        printer.print_string("[")
        printer.print_list(self.offsets, printer.print_ssa_value)
        printer.print_string(f"] sizes [{', '.join(str(s) for s in self.window)}]")
        if self.valid_row is not None and self.valid_col is not None:
            printer.print_string(" valid [")
            printer.print_list((self.valid_row, self.valid_col), printer.print_ssa_value)
            printer.print_string("]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        source, result = self.source.type, self.result.type
        assert isinstance(source, TileBufType) and isinstance(result, TileBufType)
        if len(self.sizes.data) != 2 or len(self.offsets) != 2:
            raise VerifyException("subview expects 2-D offsets and sizes")
        window = self.window
        if min(window) <= 0:
            raise VerifyException(f"subview sizes must be positive, got {list(window)}")
        if tuple(result.shape) != window:
            raise VerifyException(f"expects the result shape to match the subview sizes {list(window)}, got {result}")
        if result.element_type != source.element_type or result.loc != source.loc:
            raise VerifyException(f"expects the result's element type and memory to be the source's, got {result} from {source}")
        if (box := source.inner_box) is not None and (window[0] % box[0] or window[1] % box[1]):
            raise VerifyException(f"the {window[0]}x{window[1]} window is not made of whole {box[0]}x{box[1]} boxes of the tile")
        for dim, (offset, size) in enumerate(zip(self.offsets, window)):
            known = constant_index(offset)
            if known is not None and (problem := window_problem(source, dim, known, size)) is not None:
                raise VerifyException(problem)
        for name, value, size in (("valid_row", self.valid_row, window[0]), ("valid_col", self.valid_col, window[1])):
            known = constant_index(value) if value is not None else None
            if known is not None and not 0 <= known <= size:
                raise VerifyException(f"{name} {known} is outside [0, {size}] for the {window[0]}x{window[1]} window")
        if (self.valid_row is None) != (self.valid_col is None):
            raise VerifyException("subview takes both valid operands or neither")
        for dim, value in enumerate((self.valid_row, self.valid_col)):
            # PTOAS's SubViewOp::verify: a constant operand fixes the result's valid extent
            # (static there, or `?`); a computed one needs `?`
            known = constant_index(value) if value is not None else None
            if value is not None and result.valid_shape[dim] not in (DYNAMIC_INDEX, known):
                need = "?" if known is None else f"{known} or ?"
                raise VerifyException(
                    f"expects result valid_shape[{dim}] to match the valid operand ({need}), got {result}"
                )


def window_problem(source: TileTypeBase, dim: int, offset: int, size: int) -> str | None:
    """Why a window of `size` at `offset` along `dim` does not fit the tile, if it does not."""
    whole = source.shape[dim]
    if not (0 <= offset and offset + size <= whole):
        return f"the window [{offset}, {offset + size}) of dim {dim} is outside the {source.shape[0]}x{source.shape[1]} tile"
    if (box := source.inner_box) is not None and offset % box[dim]:
        return f"the window's offset {offset} in dim {dim} is not on a {box[0]}x{box[1]} box of the tile"
    return None


def window_tile_type(source: TileTypeBase, result: TileBufType) -> TileBufType:
    """The type the window's tile has on the hardware (see the module's docstring)."""
    steps_alike = result.shape[1] == source.shape[1] if source.is_row_major else result.shape[0] == source.shape[0]
    if steps_alike:
        return result
    rows, cols = source.shape
    return TileBufType.from_params(replace(result.params, rows=rows, cols=cols))


def stored_type(tile: SSAValue) -> TileBufType:
    """The type a tile value has on the hardware: a subview's keeps its source's strides
    (window_tile_type); any other value's is its own."""
    owner = tile.owner
    if isinstance(owner, SubViewOp):
        return window_tile_type(stored_type(owner.source), owner.result.type)
    assert isinstance(tile.type, TileBufType)
    return tile.type


def window_valid(op: SubViewOp, parent_valid: tuple[int, int], offsets: tuple[int, int], given: Sequence[int]) -> tuple[int, int]:
    """The window's valid shape at run time (see the module's docstring)."""
    if given:
        return given[0], given[1]
    result = op.result.type
    assert isinstance(result, TileBufType)
    inferred = tuple(max(0, min(size, v - o)) for v, o, size in zip(parent_valid, offsets, op.window))
    return tuple(s if s != DYNAMIC_INDEX else i for s, i in zip(result.valid_shape, inferred))  # pyright: ignore[reportReturnType]
