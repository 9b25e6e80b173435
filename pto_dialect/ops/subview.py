"""
`pto.subview`: a window of a tile, in the tile's own storage (PTOAS's SubViewOp):

    %s = pto.subview %tile[%r, %c] sizes [8, 128] [valid [%vr, %vc]] : T_tile -> T_window

The window's type has shape `sizes`, the tile's element type and memory. Its valid shape is the
`valid` operands when given, else the type's (static) valid shape, else the tile's valid region
past the offsets, clipped to the window. A window outside the tile is a verification error when
its offsets are constants, a run-time fault otherwise.

The interpreter runs windows that are contiguous in the tile's storage: whole rows of an ND tile
(column offset 0, the tile's width); any other window is a located run-time error (its instructions
would need the tile's row stride, which the interpreter's tiles do not carry yet).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, IndexType, IntegerAttr, i64
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
from pto_dialect.types import TileBufType

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
        for dim, (offset, size, whole) in enumerate(zip(self.offsets, window, source.shape)):
            known = constant_index(offset)
            if known is not None and not (0 <= known and known + size <= whole):
                raise VerifyException(
                    f"the window [{known}, {known + size}) of dim {dim} is outside the {source.shape[0]}x{source.shape[1]} tile"
                )
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


def window_valid(op: SubViewOp, parent_valid: tuple[int, int], offsets: tuple[int, int], given: Sequence[int]) -> tuple[int, int]:
    """The window's valid shape at run time (see the module's docstring)."""
    if given:
        return given[0], given[1]
    result = op.result.type
    assert isinstance(result, TileBufType)
    inferred = tuple(max(0, min(size, v - o)) for v, o, size in zip(parent_valid, offsets, op.window))
    return tuple(s if s != DYNAMIC_INDEX else i for s, i in zip(result.valid_shape, inferred))  # pyright: ignore[reportReturnType]
