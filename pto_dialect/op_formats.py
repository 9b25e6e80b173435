"""
The project's ops read their declarative assembly format when an op of them is first parsed or
printed, not when the class is declared: a run parses and prints a handful of the ~500 op classes
(pto, the register level, each target's lowered ops), and reading every format into a parser was
a good part of `pto-run`'s start-up (bench/startup.py).

xDSL's `irdl_op_definition` reads the format through `get_accessors_from_op_def`; from the import
of `pto_dialect` on, that reads the formats of ops named `pto.*` and `pto_<dialect>.*` on first
use and leaves every other op (xDSL's own dialects) as xDSL defines it. A format with an error
fails on first use then; tests/test_startup.py reads every one of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.irdl import IRDLOperation, OpDef
from xdsl.irdl import operations as irdl_operations
from xdsl.irdl.declarative_assembly_format import FormatProgram
from xdsl.parser import Parser
from xdsl.printer import Printer

Accessors = Callable[[OpDef, Any], dict[str, Any]]


def is_project_op(name: str) -> bool:
    """`pto.tadd`, `pto_a5.tadd`: an op of the pto dialect or of a dialect of this project."""
    dialect = name.partition(".")[0]
    return dialect == "pto" or dialect.startswith("pto_")


def format_program(definition: OpDef) -> FormatProgram:
    """The parser and printer of an op's assembly format, read on first call."""
    program = getattr(definition, "_pto_format_program", None)
    if program is None:
        assert definition.assembly_format is not None
        program = FormatProgram.from_str(definition.assembly_format, definition)
        definition._pto_format_program = program  # pyright: ignore[reportAttributeAccessIssue]
    return program


def _format_on_first_use(accessors: Accessors) -> Accessors:
    def with_lazy_format(definition: OpDef, custom_verify: Any) -> dict[str, Any]:  # noqa: ANN401
        text = definition.assembly_format
        if text is None or not is_project_op(definition.name):
            return accessors(definition, custom_verify)
        definition.assembly_format = None  # xDSL reads no format then
        try:
            new_attributes = accessors(definition, custom_verify)
        finally:
            definition.assembly_format = text

        def parse(cls: type[IRDLOperation], parser: Parser) -> IRDLOperation:
            return format_program(definition).parse(parser, cls)

        def print_with_format(self: IRDLOperation, printer: Printer) -> None:
            format_program(definition).print(printer, self)

        return new_attributes | {"parse": classmethod(parse), "print": print_with_format}

    with_lazy_format.reads_formats_on_first_use = True  # pyright: ignore[reportFunctionMemberAccess]
    return with_lazy_format


if not getattr(irdl_operations.get_accessors_from_op_def, "reads_formats_on_first_use", False):
    irdl_operations.get_accessors_from_op_def = _format_on_first_use(irdl_operations.get_accessors_from_op_def)
