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

from typing import ClassVar

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute, Operation, SSAValue, TypeAttribute
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import EffectInstance, MemoryEffect, MemoryEffectKind
from xdsl.utils.exceptions import VerifyException

from pto_dialect.instruction import Pipe
from pto_dialect.ops.memory import constant_index
from pto_dialect.phases import Phase
from pto_dialect.types import TileBufType

INDEX = IndexType()


class _TileElementAccess(MemoryEffect):
    """TGETVAL reads its tile, TSETVAL writes one element of it."""

    @classmethod
    def get_effects(cls, op: Operation) -> set[EffectInstance]:
        assert isinstance(op, TGetValOp | TSetValOp)
        kind = MemoryEffectKind.WRITE if isinstance(op, TSetValOp) else MemoryEffectKind.READ
        return {EffectInstance(kind, op.tile)}


def storage_elements(tile: TileBufType) -> int:
    rows, cols = tile.shape
    return rows * cols


def _check(op: TGetValOp | TSetValOp, scalar: Attribute, what: str) -> None:
    tile = op.tile.type
    assert isinstance(tile, TileBufType)
    if tile.loc.data != "vec":
        raise VerifyException(
            f"expects a Vec tile (loc=vec): Tile::GetValue / SetValue static_assert it, got loc={tile.loc.data}"
        )
    if scalar != tile.element_type:
        raise VerifyException(f"expects {what} type to match the tile's element type, got {scalar} and {tile.element_type}")
    offset = constant_index(op.offset)
    if offset is not None and not 0 <= offset < storage_elements(tile):
        raise VerifyException(
            f"expects offset to be inside the tile's {storage_elements(tile)} elements of storage, got {offset}"
        )


def _parse_group(parser: Parser) -> tuple[list[UnresolvedOperand], list[TypeAttribute]]:
    """`(%a, %b : Ta, Tb)`."""
    parser.parse_punctuation("(")
    names = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
    parser.parse_punctuation(")")
    if len(names) != len(types):
        parser.raise_error(f"expects {len(names)} types, got {len(types)}")
    return names, types


def _print_group(printer: Printer, values: list[SSAValue]) -> None:
    printer.print_string("(")
    printer.print_list(values, printer.print_ssa_value)
    printer.print_string(" : ")
    printer.print_list([v.type for v in values], printer.print_attribute)
    printer.print_string(")")


@irdl_op_definition
class TGetValOp(IRDLOperation):
    """The element at `offset` of the tile's storage."""

    name = "pto.tgetval"

    tile = operand_def(TileBufType)
    offset = operand_def(IndexType)
    value = result_def()
    traits = traits_def(_TileElementAccess())
    PHASES: ClassVar = (Phase(Pipe.SCALAR, reads=("tile",)),)
    """The scalar unit reads the tile (Tile::GetValue): a vector write before it needs V -> S."""

    @classmethod
    def parse(cls, parser: Parser) -> TGetValOp:
        parser.parse_keyword("ins")
        pos = parser.pos
        names, types = _parse_group(parser)
        if len(names) != 2:
            parser.raise_error("expects tgetval ins(src, offset)", pos)
        parser.parse_keyword("outs")
        parser.parse_punctuation(":")
        value_type = parser.parse_type()
        attrs = parser.parse_optional_attr_dict()
        op = cls.build(operands=list(parser.resolve_operands(names, types, pos)), result_types=[value_type])
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ins")
        _print_group(printer, [self.tile, self.offset])
        printer.print_string(" outs : ")
        printer.print_attribute(self.value.type)
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        _check(self, self.value.type, "result")


@irdl_op_definition
class TSetValOp(IRDLOperation):
    """The element at `offset` of the tile's storage set to `value`."""

    name = "pto.tsetval"

    offset = operand_def(IndexType)
    value = operand_def()
    tile = operand_def(TileBufType)
    traits = traits_def(_TileElementAccess())
    PHASES: ClassVar = (Phase(Pipe.SCALAR, writes=("tile",)),)
    """The scalar unit writes the tile (Tile::SetValue)."""

    @classmethod
    def parse(cls, parser: Parser) -> TSetValOp:
        parser.parse_keyword("ins")
        pos = parser.pos
        names, types = _parse_group(parser)
        if len(names) != 2:
            parser.raise_error("expects tsetval ins(offset, value)", pos)
        parser.parse_keyword("outs")
        out_pos = parser.pos
        out_names, out_types = _parse_group(parser)
        if len(out_names) != 1:
            parser.raise_error("expects tsetval outs(dst)", out_pos)
        attrs = parser.parse_optional_attr_dict()
        operands = [*parser.resolve_operands(names, types, pos), *parser.resolve_operands(out_names, out_types, out_pos)]
        op = cls.build(operands=operands)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ins")
        _print_group(printer, [self.offset, self.value])
        printer.print_string(" outs")
        _print_group(printer, [self.tile])
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        _check(self, self.value.type, "value")
