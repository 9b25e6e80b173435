"""
Parsing PTO text into a verified module, with a `FILE:LINE:COL` on every op.

xDSL keeps no source location on ops parsed without `loc(...)`; the located
parser records one per op so that verifier, pass and run-time errors can point
at the op. Line numbers come from a table of line starts (bisect), so the cost
per op is constant.

Real kernels spell the same long tile types again and again: the parser keeps each
dialect type or attribute it has parsed, keyed by its exact text, and meets a repeat
by skipping the text (bench/parse.py).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import replace

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Attribute, ErasedSSAValue, Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

from pto_dialect.diagnostics import PtoError

# xDSL 0.74's string-literal regex nests `+` inside `*`, so on an unterminated
# string it backtracks exponentially in the length of the rest of the line (a
# stray `"` hangs the parser). The same language with possessive quantifiers
# (Python >= 3.11) fails in linear time.
MLIRLexer._unescaped_characters_regex = re.compile(  # pyright: ignore[reportPrivateUsage]
    r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"'
)

_FLAT_BODY = re.compile(r'<[^<>()\[\]{}"]*(?<!-)>')
"""A `<...>` type or attribute body with no nested brackets or strings: it ends at the
first `>` (MLIR's balanced scan also reads `->` as no closer)."""


class LocatedParser(Parser):
    """An xDSL parser that gives every op it parses a FileLineColLoc."""

    def __init__(self, ctx: Context, text: str, name: str, line_offset: int = 0):
        super().__init__(ctx, text, name)
        self._file = StringAttr(name)
        self._line_offset = line_offset
        self._known: dict[tuple[str, bool, str], Attribute] = {}
        """Dialect types and attributes parsed so far: (name, is type, `<...>` text) -> value."""
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

    def _parse_extended_type_or_attribute(self, attr_or_dialect_name: str, is_type: bool):
        """`!dialect.name<...>`, `#dialect<...>` and the like, the name already read: a body
        seen before gives the value parsed then (attributes are immutable values)."""
        token = self._current_token
        body = None
        if token.kind is MLIRTokenKind.LESS:
            body = _FLAT_BODY.match(self.lexer.input.content, token.span.start)
        if body is None:
            return super()._parse_extended_type_or_attribute(attr_or_dialect_name, is_type)  # pyright: ignore[reportCallIssue, reportArgumentType]
        key = (attr_or_dialect_name, is_type, body.group())
        if (known := self._known.get(key)) is not None:
            self._resume_from(body.end())
            return known
        value = super()._parse_extended_type_or_attribute(attr_or_dialect_name, is_type)  # pyright: ignore[reportCallIssue, reportArgumentType]
        self._known[key] = value
        return value

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
    """Verify every op, innermost first, raising a PtoError located at the failing op.

    A PTO instruction's checks read only its signature (`_signature`), and kernels repeat
    the same instructions on the same tile types: a signature that verified once is not
    checked again."""
    verified: set[tuple[object, ...]] = set()
    for op in module.walk(reverse=True):
        signature = _signature(op)
        if signature is not None and signature in verified:
            continue
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as e:
            raise PtoError.at_op(op, _strip_op_prefix(str(e), op)) from e
        if signature is not None:
            verified.add(signature)


def _signature(op: Operation) -> tuple[object, ...] | None:
    """What a PTO instruction's verification reads (its class, operand and result types,
    properties and attributes: see PtoInstructionOp); None for any other op, and for an
    instruction ending its block, which xDSL also checks against its block."""
    from pto_dialect.ops.common import PtoInstructionOp

    if not isinstance(op, PtoInstructionOp) or op.next_op is None:
        return None
    operands = op.operands
    if any(isinstance(v, ErasedSSAValue) for v in operands):
        return None
    return (
        type(op),
        tuple(v.type for v in operands),
        tuple(r.type for r in op.results),
        tuple(op.properties.items()),
        tuple(op.attributes.items()),
    )


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
