"""
The grouped DMA micro-ops between GM and UB (PTOAS docs/isa/micro-isa/02-dma-copy.md, VPTOOps.td):

    pto.mte_gm_ub %gm, %ub, %l2_cache_ctl, %len_burst
      nburst(%n_burst, %src_stride, %dst_stride) [loop(%count, %src_stride, %dst_stride)]* [pad(%value)]
      : !pto.ptr<T, gm>, !pto.ptr<T, ub>, i64, i64, i64, i64, i64 [, loop i64, i64, i64]* [, pad T]
    pto.mte_ub_gm %ub, %gm, %len_burst
      nburst(%n_burst, %src_stride, %dst_stride) [l2_cache_ctl(%ctl)] [loop(%count, %src_stride, %dst_stride)]*
      : !pto.ptr<T, ub>, !pto.ptr<T, gm>, i64, i64, i64, i64 [, i64] [, loop i64, i64, i64]*

Each of `n_burst` rows moves `len_burst` contiguous bytes; strides are start-to-start byte distances;
each `loop` group repeats everything inside it (the first wraps nburst). With `pad(%value)` a UB row is
filled with the value from `len_burst` up to its next 32-byte boundary.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from xdsl.dialects.builtin import I64, AnyFloat, IntegerType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    traits_def,
    var_operand_def,
)
from xdsl.irdl.operations import VarOperand
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from pto_dialect.types import PtrType
from pto_dialect.vpto.common import GM, UB, require_space

UB_ROW_ALIGN_BYTES = 32
"""A padded UB row ends on this boundary (02-dma-copy.md, "Alignment Constraints")."""


def _parse_triple(parser: Parser) -> list[UnresolvedOperand]:
    parser.parse_punctuation("(")
    values = [parser.parse_unresolved_operand()]
    for _ in range(2):
        parser.parse_punctuation(",")
        values.append(parser.parse_unresolved_operand())
    parser.parse_punctuation(")")
    return values


def _parse_types(parser: Parser, count: int) -> list[Attribute]:
    types: list[Attribute] = [parser.parse_type()]
    for _ in range(count - 1):
        parser.parse_punctuation(",")
        types.append(parser.parse_type())
    return types


def _print_values(printer: Printer, values: Sequence[SSAValue]) -> None:
    printer.print_list(values, printer.print_ssa_value)


def _print_types(printer: Printer, values: Sequence[SSAValue]) -> None:
    printer.print_list([v.type for v in values], printer.print_attribute)


class MteOpBase(IRDLOperation):
    """What both directions share: pointers, the burst group, the loop groups."""

    if TYPE_CHECKING:  # each direction defines them, in PTOAS's operand order
        source: SSAValue
        destination: SSAValue
        len_burst: SSAValue
        n_burst: SSAValue
        nburst_src_stride: SSAValue
        nburst_dst_stride: SSAValue
        loop_counts: VarOperand
        loop_src_strides: VarOperand
        loop_dst_strides: VarOperand

    SOURCE_SPACE: ClassVar[str] = GM
    DESTINATION_SPACE: ClassVar[str] = UB

    def verify_(self) -> None:
        source = require_space(self.source, self.SOURCE_SPACE, "source")
        destination = require_space(self.destination, self.DESTINATION_SPACE, "destination")
        if source.element.bytes != destination.element.bytes:
            raise VerifyException(
                f"requires source and destination element byte widths to match, got {source} and {destination}"
            )
        if not len(self.loop_counts) == len(self.loop_src_strides) == len(self.loop_dst_strides):
            raise VerifyException("requires each loop group to provide count, src stride, and dst stride")

    @property
    def loops(self) -> list[tuple[SSAValue, SSAValue, SSAValue]]:
        """The loop groups, innermost first: (count, source stride, destination stride)."""
        return list(zip(self.loop_counts, self.loop_src_strides, self.loop_dst_strides))


@irdl_op_definition
class MteGmUbOp(MteOpBase):
    """GM -> UB (the MTE2 pipe)."""

    name = "pto.mte_gm_ub"
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    source = operand_def(PtrType)
    destination = operand_def(PtrType)
    l2_cache_ctl = operand_def(I64)
    len_burst = operand_def(I64)
    n_burst = operand_def(I64)
    nburst_src_stride = operand_def(I64)
    nburst_dst_stride = operand_def(I64)
    loop_counts = var_operand_def(I64)
    loop_src_strides = var_operand_def(I64)
    loop_dst_strides = var_operand_def(I64)
    pad_value = opt_operand_def()
    left_padding_count = opt_operand_def(I64)
    right_padding_count = opt_operand_def(I64)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def verify_(self) -> None:
        super().verify_()
        if (self.left_padding_count is None) != (self.right_padding_count is None):
            raise VerifyException("requires pad group to provide both left and right counts, or omit both")
        if self.pad_value is not None and not isinstance(self.pad_value.type, IntegerType | AnyFloat):
            raise VerifyException(f"expects pad value to be an integer or float scalar, but got {self.pad_value.type}")

    @classmethod
    def parse(cls, parser: Parser) -> MteGmUbOp:
        source, destination, l2, length = _comma_operands(parser, 4)
        parser.parse_keyword("nburst")
        nburst = _parse_triple(parser)
        loops: list[list[UnresolvedOperand]] = []
        pad: list[UnresolvedOperand] = []
        while True:
            if parser.parse_optional_keyword("pad") is not None:
                parser.parse_punctuation("(")
                pad = [parser.parse_unresolved_operand()]
                if parser.parse_optional_punctuation(",") is not None:
                    pad += [parser.parse_unresolved_operand()]
                    parser.parse_punctuation(",")
                    pad += [parser.parse_unresolved_operand()]
                parser.parse_punctuation(")")
                break
            if parser.parse_optional_keyword_in(("loop", "loop1", "loop2")) is None:
                break
            loops.append(_parse_triple(parser))
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = _parse_types(parser, 7)
        loop_types: list[list[Attribute]] = []
        pad_types: list[Attribute] = []
        while parser.parse_optional_punctuation(",") is not None:
            keyword = parser.parse_optional_keyword_in(("loop", "pad"))
            if keyword == "loop":
                loop_types.append(_parse_types(parser, 3))
            elif keyword == "pad":
                pad_types = [parser.parse_type()]
                if parser.parse_optional_punctuation(",") is not None:
                    pad_types += _parse_types(parser, 2)
            else:
                parser.raise_error("expected one of 'loop' or 'pad'")
        if len(loop_types) != len(loops) or len(pad_types) != len(pad):
            parser.raise_error("requires loop and pad operand and type groups to match")
        resolve = parser.resolve_operands
        operands = resolve([source, destination, l2, length, *nburst], types, parser.pos)
        op = cls.build(
            operands=[
                *operands,
                [resolve([g[0]], [t[0]], parser.pos)[0] for g, t in zip(loops, loop_types)],
                [resolve([g[1]], [t[1]], parser.pos)[0] for g, t in zip(loops, loop_types)],
                [resolve([g[2]], [t[2]], parser.pos)[0] for g, t in zip(loops, loop_types)],
                resolve(pad[:1], pad_types[:1], parser.pos),
                resolve(pad[1:2], pad_types[1:2], parser.pos),
                resolve(pad[2:], pad_types[2:], parser.pos),
            ]
        )
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_values(printer, [self.source, self.destination, self.l2_cache_ctl, self.len_burst])
        printer.print_string(" nburst(")
        _print_values(printer, [self.n_burst, self.nburst_src_stride, self.nburst_dst_stride])
        printer.print_string(")")
        for loop in self.loops:
            printer.print_string(" loop(")
            _print_values(printer, loop)
            printer.print_string(")")
        pad = [v for v in (self.pad_value, self.left_padding_count, self.right_padding_count) if v is not None]
        if pad:
            printer.print_string(" pad(")
            _print_values(printer, pad)
            printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        _print_types(printer, [self.source, self.destination, self.l2_cache_ctl, self.len_burst, self.n_burst,
                               self.nburst_src_stride, self.nburst_dst_stride])
        for loop in self.loops:
            printer.print_string(", loop ")
            _print_types(printer, loop)
        if pad:
            printer.print_string(", pad ")
            _print_types(printer, pad)


@irdl_op_definition
class MteUbGmOp(MteOpBase):
    """UB -> GM (the MTE3 pipe)."""

    name = "pto.mte_ub_gm"
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    source = operand_def(PtrType)
    destination = operand_def(PtrType)
    len_burst = operand_def(I64)
    n_burst = operand_def(I64)
    nburst_src_stride = operand_def(I64)
    nburst_dst_stride = operand_def(I64)
    l2_cache_ctl = opt_operand_def(I64)
    loop_counts = var_operand_def(I64)
    loop_src_strides = var_operand_def(I64)
    loop_dst_strides = var_operand_def(I64)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    SOURCE_SPACE: ClassVar[str] = UB
    DESTINATION_SPACE: ClassVar[str] = GM

    @classmethod
    def parse(cls, parser: Parser) -> MteUbGmOp:
        source, destination, length = _comma_operands(parser, 3)
        parser.parse_keyword("nburst")
        nburst = _parse_triple(parser)
        l2: list[UnresolvedOperand] = []
        if parser.parse_optional_keyword("l2_cache_ctl") is not None:
            parser.parse_punctuation("(")
            l2 = [parser.parse_unresolved_operand()]
            parser.parse_punctuation(")")
        loops: list[list[UnresolvedOperand]] = []
        while parser.parse_optional_keyword_in(("loop", "loop1", "loop2")) is not None:
            loops.append(_parse_triple(parser))
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = _parse_types(parser, 6)
        l2_types: list[Attribute] = []
        loop_types: list[list[Attribute]] = []
        if l2 and parser.parse_optional_punctuation(",") is not None:
            l2_types = [parser.parse_type()]
        while parser.parse_optional_punctuation(",") is not None:
            parser.parse_keyword("loop", "expected 'loop'")
            loop_types.append(_parse_types(parser, 3))
        if len(loop_types) != len(loops) or len(l2_types) != len(l2):
            parser.raise_error("requires loop and l2_cache_ctl operand and type groups to match")
        resolve = parser.resolve_operands
        operands = resolve([source, destination, length, *nburst], types, parser.pos)
        op = cls.build(
            operands=[
                *operands,
                resolve(l2, l2_types, parser.pos),
                [resolve([g[0]], [t[0]], parser.pos)[0] for g, t in zip(loops, loop_types)],
                [resolve([g[1]], [t[1]], parser.pos)[0] for g, t in zip(loops, loop_types)],
                [resolve([g[2]], [t[2]], parser.pos)[0] for g, t in zip(loops, loop_types)],
            ]
        )
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_values(printer, [self.source, self.destination, self.len_burst])
        printer.print_string(" nburst(")
        _print_values(printer, [self.n_burst, self.nburst_src_stride, self.nburst_dst_stride])
        printer.print_string(")")
        if self.l2_cache_ctl is not None:
            printer.print_string(" l2_cache_ctl(")
            printer.print_ssa_value(self.l2_cache_ctl)
            printer.print_string(")")
        for loop in self.loops:
            printer.print_string(" loop(")
            _print_values(printer, loop)
            printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        _print_types(printer, [self.source, self.destination, self.len_burst, self.n_burst,
                               self.nburst_src_stride, self.nburst_dst_stride])
        if self.l2_cache_ctl is not None:
            printer.print_string(", ")
            printer.print_attribute(self.l2_cache_ctl.type)
        for loop in self.loops:
            printer.print_string(", loop ")
            _print_types(printer, loop)


def _comma_operands(parser: Parser, count: int) -> list[UnresolvedOperand]:
    values = [parser.parse_unresolved_operand()]
    for _ in range(count - 1):
        parser.parse_punctuation(",")
        values.append(parser.parse_unresolved_operand())
    return values


DMA_OPS = [MteGmUbOp, MteUbGmOp]
