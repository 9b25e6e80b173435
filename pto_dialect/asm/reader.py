"""
Reading the PTO assembly form (pto_asm.lark) into SSA IR.

A file becomes one `func.func`, named after the file (`function_name`, by default `main`):
- its arguments are the names used before they are defined, in order of first use,
  typed by the instruction that first uses them;
- each instruction becomes its SSA op: `%d = mgather %m, %i : Tm, Ti -> Td` is
  `%d = pto.mgather %m, %i {coalesce = #pto<coalesce row>} : (Tm, Ti) -> Td`, and
  `mscatter %m, %s, %i : Tm, Ts, Ti` is `pto.mscatter %s, %i, %m : (Ts, Ti, Tm) -> ()`
  (operands reordered as its AsmForm says);
- it returns the results that no later instruction uses, in order of definition.

Short spellings are filled in as forms.py says. Types and attribute values are
read by xDSL's parser, `!pto.memref<...>` as `!pto.partition_tensor_view<...>`.
Every error, from the grammar or from the meaning of a name, is a PtoError worded
`FILE:LINE:COL: error: ...`; the module is returned unverified.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken
from lark.lexer import PatternStr
from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, IRWithName, Region, SSAValue
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Input, Span

from pto_dialect.asm.forms import INSTRUCTIONS, MEMREF, VIEW, spell_type
from pto_dialect.diagnostics import PtoError


def _one_of(words: list[str]) -> str:
    """`a`, `a or b`, `a, b or c`."""
    if len(words) <= 1:
        return "".join(words) or "nothing more"
    return ", ".join(words[:-1]) + " or " + words[-1]


_TERMINAL_DESCRIPTIONS = {
    "$END": "end of file",
    "VALUE": "a value name (%name)",
    "OPCODE": "an instruction's mnemonic (" + ", ".join(f"'{name}'" for name in list(INSTRUCTIONS)[:3]) + ", ...)",
    "ATTRIBUTE_NAME": "an attribute name",
    "ATTRIBUTE_VALUE": "an attribute value",
    "TYPE": "a type",
}


@cache
def asm_grammar() -> Lark:
    """pto_asm.lark, with its OPCODE terminal: the registry's instructions that have an
    assembly form."""
    opcodes = " | ".join(f'"{name}"' for name in INSTRUCTIONS)
    grammar = Path(__file__).with_name("pto_asm.lark").read_text() + f"\nOPCODE: {opcodes}\n"
    return Lark(grammar, parser="lalr", lexer="contextual")


def read_asm(
    ctx: Context, text: str, file_name: str, function_name: str = "main", line_offset: int = 0
) -> ModuleOp:
    """The module holding the function that `text` spells (not verified); PtoError on bad input.

    `line_offset` is the line of the file where `text` starts (a `--split-input-file` chunk).
    """
    return _Reader(ctx, text, file_name, line_offset).read(function_name)


class _Reader:
    def __init__(self, ctx: Context, text: str, file_name: str, line_offset: int):
        self.ctx = ctx
        self.input = Input(text, file_name)
        self.file = StringAttr(file_name)
        self.line_offset = line_offset
        self.block = Block()
        self.values: dict[str, SSAValue] = {}
        self.first_seen: dict[str, Token] = {}
        self.results: list[SSAValue] = []

    # -- errors -----------------------------------------------------------------

    def error(self, start: int, end: int, message: str) -> PtoError:
        span = Span(start, max(end, start), self.input, self.line_offset)
        return PtoError.from_parse_error(ParseError(span, message))

    def error_at(self, token: Token, message: str) -> PtoError:
        return self.error(token.start_pos or 0, token.end_pos or 0, message)

    def location(self, line: int, column: int) -> FileLineColLoc:
        """Of a line and column of the text, in the file."""
        return FileLineColLoc(self.file, IntAttr(line + self.line_offset), IntAttr(column))

    def where(self, token: Token) -> str:
        return f"{token.line + self.line_offset}:{token.column}"

    def syntax_error(self, e: UnexpectedInput) -> PtoError:
        if isinstance(e, UnexpectedToken):
            expected, token = e.expected, e.token
            found = "end of file" if token.type == "$END" else f"'{token}'"
            start = token.start_pos or 0
            end = start + len(token)
        elif isinstance(e, UnexpectedCharacters):
            expected, start = e.allowed, e.pos_in_stream
            found, end = f"'{e.char}'", start + 1
        else:  # UnexpectedEOF (not raised by the LALR parser, but part of lark's contract)
            expected, found = getattr(e, "expected", ()), "end of file"
            start = end = len(self.input.content)
        message = f"expected {_describe(expected)}, found {found}"
        if self.input.content.startswith("pto.", start):
            message += " (the assembly form writes instructions without the `pto.` prefix)"
        elif found == "'->'":  # only an instruction without results stops before `->`
            message += " (an instruction without results names no result types)"
        return self.error(start, end, message)

    # -- reading ----------------------------------------------------------------

    def read(self, function_name: str) -> ModuleOp:
        try:
            tree = asm_grammar().parse(self.input.content)
        except UnexpectedInput as e:
            raise self.syntax_error(e) from None
        for instruction in tree.children:
            assert isinstance(instruction, Tree)
            self.instruction(instruction)
        outputs = [r for r in self.results if not r.uses]
        self.block.add_op(ReturnOp(*outputs))
        function = FuncOp(
            function_name,
            ([a.type for a in self.block.args], [r.type for r in outputs]),
            Region(self.block),
        )
        function.location = self.location(1, 1)  # the function is the whole file
        return ModuleOp([function])

    def instruction(self, tree: Tree) -> None:
        children = {child.data: child for child in tree.children if isinstance(child, Tree)}
        (opcode,) = [child for child in tree.children if isinstance(child, Token)]
        operands = children["operands"]
        operand_types = children.get("operand_types") or children["written_types"]
        attributes = children.get("attributes")

        result_tokens = _tokens(children["results"]) if "results" in children else []
        operand_tokens = _tokens(operands)
        out_types = []
        if "result_types" in children:
            out_types = [self.type(t) for t in _tokens(children["result_types"])]
            if len(out_types) != len(result_tokens):
                raise self.error_at(
                    _tokens(children["result_types"])[0],
                    f"expected {_count(len(result_tokens), 'result type')}, one per result, found {len(out_types)}",
                )
        form = INSTRUCTIONS[str(opcode)].asm
        assert form is not None
        attrs = dict(form.implied)
        if attributes is not None:
            attrs |= self.attribute_dict(attributes)
        in_types = self.operand_types(str(opcode), operand_tokens, _tokens(operand_types), out_types, attrs)
        written = [self.use(name, type_) for name, type_ in zip(operand_tokens, in_types, strict=True)]
        ins = written
        if form.operand_order and len(written) == len(form.operand_order):
            ins = [written[form.operand_order.index(k)] for k in range(len(written))]

        op = INSTRUCTIONS[str(opcode)].op.from_parts(ins, [], out_types, attrs)
        first = result_tokens[0] if result_tokens else opcode
        op.location = self.location(first.line or 0, first.column or 0)
        self.block.add_op(op)
        for token, result in zip(result_tokens, op.results, strict=True):
            self.define(token, result)

    def operand_types(
        self,
        opcode: str,
        operands: list[Token],
        type_tokens: list[Token],
        out_types: list[Attribute],
        attrs: dict[str, Attribute],
    ) -> list[Attribute]:
        types = [self.type(t) for t in type_tokens]
        if len(types) == len(operands):
            return types
        message = f"expected {_count(len(operands), 'operand type')}, one per operand, found {len(types)}"
        short = INSTRUCTIONS[opcode].asm.short_operand  # pyright: ignore[reportOptionalMemberAccess]
        if short is not None and (len(operands), len(types), len(out_types)) == (2, 1, 1):
            implied = short(out_types[0], attrs)
            if isinstance(implied, Attribute):
                return [types[0], implied]
            if implied is not None:
                message += f" ({implied})"
        raise self.error_at(type_tokens[0], message)

    # -- names --------------------------------------------------------------------

    def use(self, token: Token, type_: Attribute) -> SSAValue:
        """The value a name refers to; a name not defined yet becomes a function argument."""
        name = str(token)
        if (value := self.values.get(name)) is None:
            value = self.block.insert_arg(type_, len(self.block.args))
            self.name(value, token)
        elif value.type != type_:
            raise self.error_at(
                token,
                f"{name} is used as {spell_type(type_)}, but it is {spell_type(value.type)} "
                f"(first seen at {self.where(self.first_seen[name])})",
            )
        return value

    def define(self, token: Token, value: SSAValue) -> None:
        name = str(token)
        if name in self.values:
            first = self.first_seen[name]
            how = (
                "defined"
                if self.values[name] in self.results
                else "used before its definition, as a function argument,"
            )
            raise self.error_at(token, f"redefinition of {name}, {how} at {self.where(first)}")
        self.name(value, token)
        self.results.append(value)

    def name(self, value: SSAValue, token: Token) -> None:
        name = str(token)
        self.values[name] = value
        self.first_seen[name] = token
        if IRWithName.is_valid_name(hint := name[1:]):  # %12 stays unnamed
            value.name_hint = hint

    # -- types and attributes -------------------------------------------------------

    def type(self, token: Token) -> Attribute:
        rename = (MEMREF, VIEW) if str(token).startswith(MEMREF + "<") else ("", "")
        return self.parse(token, Parser.parse_type, "type", rename)

    def attribute_dict(self, tree: Tree) -> dict[str, Attribute]:
        attrs: dict[str, Attribute] = {}
        for entry in tree.children:
            assert isinstance(entry, Tree)
            name, value = _tokens(entry)
            if str(name) in attrs:
                raise self.error_at(name, f"duplicate attribute '{name}'")
            attrs[str(name)] = self.parse(value, Parser.parse_attribute, "attribute")
        return attrs

    def parse(
        self,
        token: Token,
        parse: Callable[[Parser], Attribute],
        what: str,
        rename: tuple[str, str] = ("", ""),
    ) -> Attribute:
        """The token's text parsed by xDSL, its prefix `rename[0]` read as `rename[1]`;
        errors point into the token."""
        old, new = rename
        start = token.start_pos or 0
        text = new + str(token)[len(old):]
        shift = len(new) - len(old)

        def in_token(offset: int) -> int:
            return start + max(offset - shift, 0)

        try:
            parser = Parser(self.ctx, text, self.input.name)
            attribute = parse(parser)
        except ParseError as e:
            raise self.error(in_token(e.span.start), in_token(e.span.end), e.msg) from None
        except VerifyException as e:
            raise self.error_at(token, str(e)) from None
        if parser.pos != len(text):
            raise self.error(in_token(parser.pos), start + len(token), f"unexpected text after the {what}")
        return attribute


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _tokens(tree: Tree) -> list[Token]:
    tokens = [child for child in tree.children if isinstance(child, Token)]
    assert len(tokens) == len(tree.children)
    return tokens


def _describe(terminals: Iterable[str]) -> str:
    """`'->'`, `':' or ','`, `a type`: how an error names what the grammar expected."""
    words: list[str] = []
    for name in sorted(terminals):
        if name in _TERMINAL_DESCRIPTIONS:
            words.append(_TERMINAL_DESCRIPTIONS[name])
        else:
            pattern = asm_grammar().get_terminal(name).pattern
            assert isinstance(pattern, PatternStr), f"describe terminal {name}"
            words.append(f"'{pattern.value}'")
    return _one_of(words)
