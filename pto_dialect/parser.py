"""
Parsing PTO text into a verified module, with a `FILE:LINE:COL` on every op.

xDSL keeps no source location on ops parsed without `loc(...)`; the located
parser records one per op so that verifier, pass and run-time errors can point
at the op. Line numbers come from a table of line starts (bisect), so the cost
per op is constant. Line numbers stay those of the whole file when the input is
split into chunks (`split_input`).

Real kernels spell the same long tile types again and again: the parser keeps each
dialect type or attribute it has parsed, keyed by its exact text, and meets a repeat
by skipping the text (bench/parse.py).
"""

from __future__ import annotations

import re
import sys
from bisect import bisect_right
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TypeVar

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Attribute, BlockArgument, ErasedSSAValue, Operation, SSAValue
from xdsl.irdl import AttrSizedOperandSegments, IRDLOperation
from xdsl.parser import Parser
from xdsl.traits import NoTerminator, SymbolTable
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind
from pto_dialect.walk import walk

from pto_dialect.diagnostics import CUBE_SIDE, PtoError, not_implemented, op_location

SPLIT_MARKER = "// -----"
_T = TypeVar("_T")

RECURSION_LIMIT = 8000
"""Python frames allowed while parsing (and in the CLIs, for verifying, passes and printing):
the parser takes ~8 frames per level of nesting, so about 1000 nested regions, brackets or
types parse; deeper input is a located "nesting too deep" error."""


@contextmanager
def recursion_limit(frames: int) -> Iterator[None]:
    """Python's recursion limit at least `frames` inside (xDSL parses, verifies, clones and
    prints nested regions recursively), as it was afterwards."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, frames))
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)

# xDSL 0.74's string-literal regex nests `+` inside `*`, so on an unterminated
# string it backtracks exponentially in the length of the rest of the line (a
# stray `"` hangs the parser). The same language with possessive quantifiers
# (Python >= 3.11) fails in linear time.
MLIRLexer._unescaped_characters_regex = re.compile(  # pyright: ignore[reportPrivateUsage]
    r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"'
)

_UNREGISTERED = re.compile(r"Operation (\S+) is not registered")
_FLAT_BODY = re.compile(r'<[^<>()\[\]{}"]*(?<!-)>')
"""A `<...>` type or attribute body with no nested brackets or strings: it ends at the
first `>` (MLIR's balanced scan also reads `->` as no closer)."""


UNIMPLEMENTED_ATTRIBUTES = {
    "relu_pre_mode": ("an acc tile's ReLU before its move or store", CUBE_SIDE),
    "acc_to_vec_mode": ("an acc tile's split into Vec tiles", CUBE_SIDE),
    "tinsert_mode": ("a Vec-to-Mat insert's split mode", CUBE_SIDE),
    "st_phase": ("TSTORE's phase", "TSTORE's phase and atomic modes"),
    "atomic_type": ("TSTORE's atomic mode", "TSTORE's phase and atomic modes"),
}
"""PTOAS's `#pto` attributes of forms this project does not implement: what each is, and the
feature `not_implemented` names (an unknown one stays "not registered")."""
UNIMPLEMENTED_OPS: dict[str, tuple[str, str]] = {}
"""MLIR ops PTOAS's inputs use that this project does not have: what each is, and the feature
`not_implemented` names (another unknown op stays "not registered")."""
_UNREGISTERED_ATTRIBUTE = re.compile(r"'pto\.(\w+)' is not registered")


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
        seen before gives the value parsed then (attributes are immutable values); one of
        UNIMPLEMENTED_ATTRIBUTES is refused as not implemented."""
        try:
            return self._parse_known_type_or_attribute(attr_or_dialect_name, is_type)
        except ParseError as e:
            unknown = _UNREGISTERED_ATTRIBUTE.fullmatch(e.msg)
            if unknown is None or is_type or unknown.group(1) not in UNIMPLEMENTED_ATTRIBUTES:
                raise
            what, feature = UNIMPLEMENTED_ATTRIBUTES[unknown.group(1)]
            raise ParseError(e.span, not_implemented(f"#pto.{unknown.group(1)} ({what})", feature)) from None

    def _parse_known_type_or_attribute(self, attr_or_dialect_name: str, is_type: bool):
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

    def parse_comma_separated_list(
        self, delimiter: Parser.Delimiter, parse: Callable[[], _T], context_msg: str = ""
    ) -> list[_T]:
        """A list, where one bare item stands for a parenthesized list right after `->`: MLIR's
        result types (`scf.for ... iter_args(...) -> i32`, which xDSL's scf.for reads only as `-> (i32)`)."""
        token = self._current_token
        if (
            delimiter is self.Delimiter.PAREN
            and token.kind is not MLIRTokenKind.L_PAREN
            and self.lexer.input.content[: token.span.start].rstrip().endswith("->")
        ):
            return [parse()]
        return super().parse_comma_separated_list(delimiter, parse, context_msg)

    def _unregistered(self, name: str, start: int) -> ParseError:
        """xDSL's "not registered" at the op's name (not the token after it), with the nearest
        registered op name; one of UNIMPLEMENTED_OPS refused as not implemented."""
        text = self.lexer.input.content
        at = text.find(name, start)
        span = Span(at, at + len(name), self.lexer.input) if at != -1 else self._current_token.span
        if name in UNIMPLEMENTED_OPS:
            what, feature = UNIMPLEMENTED_OPS[name]
            return ParseError(span, not_implemented(f"{name} ({what})", feature))
        known = [op.name for op in self.ctx.loaded_ops]
        if "." in name:
            dialect = name.partition(".")[0]
            known += [op.name for d in self.ctx.registered_dialect_names if d == dialect for op in self.ctx.get_dialect(d).operations]
        import difflib  # only for this error

        nearest = difflib.get_close_matches(name, sorted(set(known)), n=1)
        hint = f"; did you mean {nearest[0]}?" if nearest else ""
        return ParseError(span, f"Operation {name} is not registered{hint}")

    def parse_operation(self) -> Operation:
        span = self._current_token.span
        try:
            op = super().parse_operation()
        except VerifyException as e:
            # IRDL constraint failures while building an op carry no location
            raise ParseError(span, str(e)) from e
        except ParseError as e:
            if (unknown := _UNREGISTERED.fullmatch(e.msg)) is not None:
                raise self._unregistered(unknown.group(1), span.start) from None
            raise
        if isinstance(op.location, UnknownLoc):
            op.location = self._location(span.start)
        return op


def verify_located(module: Operation) -> None:
    """Verify every op, innermost first, raising a PtoError located at the failing op;
    then check that every value is defined before its uses.

    A PTO instruction's checks read only its signature (`_signature`), and kernels repeat
    the same instructions on the same tile types: a signature that verified once is not
    checked again."""
    verified: set[tuple[object, ...]] = set()
    for op in walk(module, reverse=True):
        if op.has_trait(SymbolTable):
            _check_unique_symbols(op)
        signature = _signature(op)
        if signature is not None and signature in verified:
            continue
        verify_op(op)
        if signature is not None:
            verified.add(signature)
    _check_dominance(module, set())


def verify_op(op: Operation) -> None:
    """Verify one op (not the ops it holds); a PtoError located at it."""
    _check_misspelt_properties(op)
    try:
        op.verify(verify_nested_ops=False)
    except VerifyException as e:
        if _lacks_segment_sizes(op):
            raise PtoError.at_op(op, _SEGMENT_SIZES_MESSAGE) from e
        raise PtoError.at_op(op, _strip_op_prefix(str(e), op)) from e
    # what xDSL's Block.verify checks, skipped with the nested ops (`func.func @k(%a: T) {}`)
    if not op.has_trait(NoTerminator):
        for region in op.regions:
            if len(region.blocks) == 1 and region.block.first_op is None:
                raise PtoError.at_op(op, "has an empty block in a single-block region that expects at least a terminator")


def _check_misspelt_properties(op: Operation) -> None:
    """A dialect-less attribute a letter or two from one of the op's property names is that
    property misspelt (`gatherOb` for gatherOob): kept as an attribute, it would leave the
    property unset (its default, or "requires attribute" for a required one)."""
    if not isinstance(op, IRDLOperation):
        return
    properties = list(type(op).get_irdl_definition().properties)
    for name in op.attributes:
        if "." in name or name in properties:
            continue
        import difflib  # only for this error

        if nearest := difflib.get_close_matches(name, properties, n=1, cutoff=0.8):
            raise PtoError.at_op(op, f"has an unknown attribute '{name}'; did you mean '{nearest[0]}'?")


_SEGMENT_SIZES_MESSAGE = (
    "in the generic form needs the operandSegmentSizes property, the sizes of its operand groups "
    "(ins, outs); the custom form (`ins(...) outs(...)`) needs none"
)


def _lacks_segment_sizes(op: Operation) -> bool:
    """A generic-form op with operand groups read without their sizes (PTOAS writes
    `"pto.tscatter"(%src, %dst, %idx) <{maskPattern = ...}>`)."""
    if not isinstance(op, IRDLOperation) or AttrSizedOperandSegments.attribute_name in op.properties:
        return False
    return any(isinstance(o, AttrSizedOperandSegments) for o in type(op).get_irdl_definition().options)


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


def _check_unique_symbols(table: Operation) -> None:
    """MLIR's symbol-table rule, reported at the second definition (xDSL's own check
    reports it at the table, which has no location when the module is implicit)."""
    first: dict[str, Operation] = {}
    for block in table.regions[0].blocks if len(table.regions) == 1 else ():
        for op in block.ops:
            name = op.get_attr_or_prop("sym_name")
            if not isinstance(name, StringAttr):
                continue
            if (earlier := first.setdefault(name.data, op)) is not op:
                raise PtoError.at_op(
                    op, f"redefinition of symbol named '{name.data}' (first defined at {op_location(earlier)})"
                )


def _check_dominance(op: Operation, visible: set[SSAValue]) -> None:
    """Every operand is defined above its use: earlier in the same block or an enclosing one
    (MLIR's dominance rule for the single-block regions of func and scf; in a region of several
    blocks, a block sees the blocks before it). xDSL accepts forward references."""
    for region in op.regions:
        defined: list[SSAValue] = []
        for block in region.blocks:
            visible.update(block.args)
            defined.extend(block.args)
            for inner in block.ops:
                for i, operand in enumerate(inner.operands):
                    if operand not in visible:
                        raise PtoError.at_op(inner, f"operand #{i} does not dominate this use ({_defined_at(operand)})")
                _check_dominance(inner, visible)
                visible.update(inner.results)
                defined.extend(inner.results)
        visible.difference_update(defined)


def _defined_at(value: SSAValue) -> str:
    name = f"%{value.name_hint}" if value.name_hint else "the value"
    owner = value.block.parent_op() if isinstance(value, BlockArgument) else value.owner
    where = op_location(owner) if isinstance(owner, Operation) else None
    return f"{name} is defined at {where}" if where else f"{name} is defined below it"


def _strip_op_prefix(message: str, op: Operation) -> str:
    """xDSL sometimes words IRDL failures itself; keep only the message."""
    message = message.strip()
    prefix = f"{op.name}: "
    return message[len(prefix):] if message.startswith(prefix) else message


def parse_module(ctx: Context, text: str, name: str, line_offset: int = 0) -> ModuleOp:
    """Parse (not verify) one module; ParseError on bad syntax, at its line in the whole file."""
    parser = LocatedParser(ctx, text, name, line_offset)
    try:
        with recursion_limit(RECURSION_LIMIT):
            module = parser.parse_module()
    except RecursionError:
        raise ParseError(  # at its line in the whole file, as below
            replace(parser._current_token.span, line_offset=line_offset), "nesting too deep to parse"  # pyright: ignore[reportPrivateUsage]
        ) from None
    except ParseError as e:
        # a --split-input-file chunk's lines start at line_offset (as xDSL's own run() does)
        e.span = replace(e.span, line_offset=line_offset)
        raise
    if isinstance(module.location, UnknownLoc):  # the implicit module around top-level ops
        module.location = FileLineColLoc(StringAttr(name), IntAttr(1 + line_offset), IntAttr(1))
    return module


def decode_source(data: bytes, name: str, line_offset: int = 0) -> str:
    """The text of a source file; a PtoError at the first byte that is not UTF-8."""
    try:
        return data.decode()
    except UnicodeDecodeError as e:
        before = data[: e.start]
        line_start = before.rfind(b"\n") + 1
        line = before.count(b"\n") + 1 + line_offset
        col = len(before[line_start:].decode()) + 1  # in characters, as the parser counts
        raise PtoError(f"{name}:{line}:{col}: error: input is not valid UTF-8 ({e.reason})") from None


def split_input(data: bytes) -> list[tuple[bytes, int]]:
    """`--split-input-file`: the chunks between lines that are exactly `// -----` (trailing
    blanks allowed), as MLIR splits, each with the number of lines before it in the file."""
    chunks: list[tuple[bytes, int]] = []
    start_line = 0
    current: list[bytes] = []
    marker = SPLIT_MARKER.encode()
    lines = data.split(b"\n")  # line numbers count "\n" only, as the parser does
    for number, line in enumerate(lines):
        line += b"\n" if number < len(lines) - 1 else b""
        if line.rstrip() == marker:
            chunks.append((b"".join(current), start_line))
            current, start_line = [], number + 1
        else:
            current.append(line)
    chunks.append((b"".join(current), start_line))
    return chunks
