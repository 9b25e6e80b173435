"""
Parsing PTO text into a verified module, with a `FILE:LINE:COL` on every op.

xDSL keeps no source location on ops parsed without `loc(...)`; the located
parser records one per op so that verifier, pass and run-time errors can point
at the op. Line numbers come from a table of line starts (bisect), so the cost
per op is constant.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import replace

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.mlir_lexer import MLIRLexer

from pto_dialect.diagnostics import PtoError

# xDSL 0.74's string-literal regex nests `+` inside `*`, so on an unterminated
# string it backtracks exponentially in the length of the rest of the line (a
# stray `"` hangs the parser). The same language with possessive quantifiers
# (Python >= 3.11) fails in linear time.
MLIRLexer._unescaped_characters_regex = re.compile(  # pyright: ignore[reportPrivateUsage]
    r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"'
)


class LocatedParser(Parser):
    """An xDSL parser that gives every op it parses a FileLineColLoc."""

    def __init__(self, ctx: Context, text: str, name: str, line_offset: int = 0):
        super().__init__(ctx, text, name)
        self._file = StringAttr(name)
        self._line_offset = line_offset
        self._line_starts = [0]
        find = text.find
        pos = find("\n")
        while pos != -1:
            self._line_starts.append(pos + 1)
            pos = find("\n", pos + 1)

    def _location(self, offset: int) -> FileLineColLoc:
        line = bisect_right(self._line_starts, offset)
        col = offset - self._line_starts[line - 1] + 1
        return FileLineColLoc(self._file, IntAttr(line + self._line_offset), IntAttr(col))

    def parse_operation(self) -> Operation:
        span = self._current_token.span
        try:
            op = super().parse_operation()
        except VerifyException as e:
            # IRDL constraint failures while building an op carry no location
            raise ParseError(span, str(e)) from e
        if isinstance(op.location, UnknownLoc):
            op.location = self._location(span.start)
        return op


def verify_located(module: Operation) -> None:
    """Verify every op, innermost first, raising a PtoError located at the failing op."""
    for op in module.walk(reverse=True):
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as e:
            raise PtoError.at_op(op, _strip_op_prefix(str(e), op)) from e


def _strip_op_prefix(message: str, op: Operation) -> str:
    """xDSL sometimes words IRDL failures itself; keep only the message."""
    message = message.strip()
    prefix = f"{op.name}: "
    return message[len(prefix):] if message.startswith(prefix) else message


def parse_module(ctx: Context, text: str, name: str, line_offset: int = 0) -> ModuleOp:
    """Parse (not verify) one module; ParseError on bad syntax, at its line in the whole file."""
    try:
        return LocatedParser(ctx, text, name, line_offset).parse_module()
    except ParseError as e:
        # a --split-input-file chunk's lines start at line_offset (as xDSL's own run() does)
        e.span = replace(e.span, line_offset=line_offset)
        raise
