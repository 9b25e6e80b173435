"""
The one way a failure reaches a user: `FILE:LINE:COL: error: MESSAGE`.

Parse errors carry a span; verifier, pass and run-time errors carry the op
they are about (`PtoError.op`), whose location the located parser recorded.
Rules raise with a message; this module alone formats locations.
"""

from __future__ import annotations

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException, ParseError


NOT_IMPLEMENTED = "not implemented in pto-frontend"
"""The words of every refusal of valid PTO that the targets' code runs but this project does
not implement (cube-side tiles, ...), so that bench/ptoas_lit.py can tell them from verdicts."""


def not_implemented(detail: str, feature: str) -> str:
    """`DETAIL (not implemented in pto-frontend: FEATURE)`: `feature` names the family of input
    refused, the same words for each (bench/ptoas_lit.py counts PTOAS inputs by it)."""
    return f"{detail} ({NOT_IMPLEMENTED}: {feature})"


CUBE_SIDE = "cube-side tiles, loc=mat|left|right|acc|bias|scaling"
"""The tiles of the cube unit's buffers and what the targets' code does with them (moves between
them, an acc tile's quantizing moves and stores): `not_implemented`'s feature for all of it."""


class PtoError(DiagnosticException):
    """A user-facing error, worded `FILE:LINE:COL: error: ...` (plus source context).

    An xDSL diagnostic, so that xDSL's driver loop prints it under --verify-diagnostics."""

    def __init__(self, text: str, op: Operation | None = None, message: str | None = None):
        super().__init__(text)
        self.text = text
        self.op = op
        """The op it is about, where it has one."""
        self.message = message if message is not None else text
        """The text without its location and op name."""

    @classmethod
    def at_op(cls, op: Operation | None, message: str, *, name: str | None = None) -> PtoError:
        """About `op`, named `name` (default: the op's own name, e.g. a lowered op's source)."""
        return cls(format_error(message, op, name=name), op, message)

    @classmethod
    def from_parse_error(cls, e: ParseError) -> PtoError:
        return cls(format_parse_error(e))

    def __str__(self) -> str:
        return self.text


def op_location(op: Operation | None) -> str | None:
    """`FILE:LINE:COL` of an op or of its nearest located ancestor."""
    while op is not None:
        loc = op.location
        if isinstance(loc, FileLineColLoc):
            return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
        op = op.parent_op()
    return None


def format_error(message: str, op: Operation | None = None, *, name: str | None = None) -> str:
    """`FILE:LINE:COL: error: 'pto.x' op MESSAGE` (MLIR's wording for op errors)."""
    where = op_location(op)
    text = f"'{name or op.name}' op {message}" if op is not None else message
    return f"{where}: error: {text}" if where else f"error: {text}"


def format_parse_error(e: ParseError) -> str:
    """`FILE:LINE:COL: error: MESSAGE`, then the source line and a caret, as MLIR prints."""
    loc = e.span.get_location()
    # print_with_context starts with its own "file:line:col" line; keep the source and caret
    body = e.span.print_with_context().rstrip("\n").partition("\n")[2]
    head = f"{loc.file}:{loc.line}:{loc.col}: error: {e.msg}"
    return f"{head}\n{body}" if body else head
