"""
The DPS `ins(...)` of an op with a mask-pattern form (TGATHER, TSCATTER): operands, or the
src and its mask pattern.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.parser import Parser
from xdsl.printer import Printer

from pto_dialect.attributes import MaskPatternAttr
from pto_dialect.ops.common import PtoInstructionOp, parse_operand_group


class MaskInsOp(PtoInstructionOp):
    """An op whose DPS `ins(...)` holds either operands or, in its mask form, the src and its
    mask pattern: `ins(%src, {maskPattern = #pto.mask_pattern<P0101>} : Ts[, "row"|"col"])`
    (TGATHER, TSCATTER)."""

    MAX_INS: ClassVar[int]
    """The most operands of the other forms' ins(...)."""

    @classmethod
    def parse_dps_ins(cls, parser: Parser) -> tuple[list[SSAValue], dict[str, Attribute]]:
        start = parser.pos
        parser.parse_punctuation("(")
        src = parser.parse_unresolved_operand()
        if parser.parse_optional_punctuation(",") is None:
            parser._resume_from(start)  # pyright: ignore[reportPrivateUsage]
            names, types, pos = parse_operand_group(parser, "ins")
            return list(parser.resolve_operands(names, types, pos)), {}
        if parser._current_token.text != "{":  # pyright: ignore[reportPrivateUsage]
            parser._resume_from(start)  # pyright: ignore[reportPrivateUsage]
            names, types, pos = parse_operand_group(parser, "ins")
            if len(names) > cls.MAX_INS:
                word = cls.name.removeprefix("pto.")
                parser.raise_error(f"expected at most {cls.MAX_INS - 1} extra operands in {word} ins(...)", pos)
            return list(parser.resolve_operands(names, types, pos)), {}
        inline = parser.parse_optional_attr_dict()
        if set(inline) != {"maskPattern"}:
            parser.raise_error("expected #pto.mask_pattern<Pxxxx> for maskPattern", start)
        if not isinstance(inline["maskPattern"], MaskPatternAttr):
            parser.raise_error("expected #pto.mask_pattern<Pxxxx> for maskPattern", start)
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        if parser.parse_optional_punctuation(",") is not None:
            axis_pos = parser.pos
            axis = parser.parse_optional_str_literal()
            if axis not in ("row", "col"):
                parser.raise_error('axis must be "row" or "col"', axis_pos)
            inline["axis"] = StringAttr(axis)
        parser.parse_punctuation(")")
        return [parser.resolve_operand(src, src_type)], inline

    def print_dps_ins(self, printer: Printer) -> None:
        mask_pattern, axis = self.properties.get("maskPattern"), self.properties.get("axis")
        if mask_pattern is None:
            return super().print_dps_ins(printer)
        printer.print_string(" ins(")
        printer.print_ssa_value(self.ins[0])
        printer.print_string(", ")
        printer.print_attr_dict({"maskPattern": mask_pattern})
        printer.print_string(" : ")
        printer.print_attribute(self.ins[0].type)
        if axis is not None:
            printer.print_string(", ")
            printer.print_attribute(axis)
        printer.print_string(")")
