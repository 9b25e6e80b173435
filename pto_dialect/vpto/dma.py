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
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    var_operand_def,
)
from xdsl.irdl.operations import VarOperand
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from pto_dialect.instruction import Pipe
from pto_dialect.phases import Phase, SpanValue, ValueOf
from pto_dialect.types import PtrType
from pto_dialect.vpto.common import CopyOpBase, UbToGmCopyOp

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


def _comma_operands(parser: Parser, count: int) -> list[UnresolvedOperand]:
    values = [parser.parse_unresolved_operand()]
    for _ in range(count - 1):
        parser.parse_punctuation(",")
        values.append(parser.parse_unresolved_operand())
    return values


def _print_group(printer: Printer, keyword: str, values: Sequence[SSAValue]) -> None:
    """` keyword(%a, %b)`, nothing for no values."""
    if values:
        printer.print_string(f" {keyword}(")
        printer.print_list(values, printer.print_ssa_value)
        printer.print_string(")")


def _print_types(printer: Printer, values: Sequence[SSAValue]) -> None:
    printer.print_list([v.type for v in values], printer.print_attribute)


class MteOpBase(CopyOpBase):
    """What both directions share: pointers, the burst group, the loop groups."""

    assembly_format = None  # its groups are parsed and printed below
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    if TYPE_CHECKING:  # each direction defines them, in PTOAS's operand order
        len_burst: SSAValue
        n_burst: SSAValue
        nburst_src_stride: SSAValue
        nburst_dst_stride: SSAValue
        loop_counts: VarOperand
        loop_src_strides: VarOperand
        loop_dst_strides: VarOperand

    LEADING: ClassVar[tuple[str, ...]]
    """The operands before `nburst(...)`, in their order."""
    GROUP: ClassVar[tuple[str, tuple[str, ...]]]
    """The optional group (`l2_cache_ctl(%c)`, `pad(%v[, %left, %right])`): its keyword and operands."""
    GROUP_BEFORE_LOOPS: ClassVar[bool]
    """Where the group stands: before the loops, its types right after the fixed ones; else after
    them, its types last behind the keyword (`, pad T`)."""

    @property
    def _fixed(self) -> list[SSAValue]:
        return [getattr(self, n) for n in self.LEADING] + [self.n_burst, self.nburst_src_stride, self.nburst_dst_stride]

    @property
    def _group(self) -> list[SSAValue]:
        return [v for v in (getattr(self, n) for n in self.GROUP[1]) if v is not None]

    @classmethod
    def parse(cls, parser: Parser) -> MteOpBase:
        keyword, names = cls.GROUP
        leading = _comma_operands(parser, len(cls.LEADING))
        parser.parse_keyword("nburst")
        nburst = _parse_triple(parser)
        group: list[UnresolvedOperand] = []
        if cls.GROUP_BEFORE_LOOPS and parser.parse_optional_keyword(keyword) is not None:
            group = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        loops: list[list[UnresolvedOperand]] = []
        while parser.parse_optional_keyword_in(("loop", "loop1", "loop2")) is not None:
            loops.append(_parse_triple(parser))
        if not cls.GROUP_BEFORE_LOOPS and parser.parse_optional_keyword(keyword) is not None:
            group = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = _parse_types(parser, len(cls.LEADING) + 3)
        group_types: list[Attribute] = []
        loop_types: list[list[Attribute]] = []
        if cls.GROUP_BEFORE_LOOPS and group and parser.parse_optional_punctuation(",") is not None:
            group_types = _parse_types(parser, len(group))
        while parser.parse_optional_punctuation(",") is not None:
            if cls.GROUP_BEFORE_LOOPS:
                parser.parse_keyword("loop", "expected 'loop'")
                loop_types.append(_parse_types(parser, 3))
            elif (word := parser.parse_optional_keyword_in(("loop", keyword))) == "loop":
                loop_types.append(_parse_types(parser, 3))
            elif word == keyword:
                group_types = [parser.parse_type()]
                while len(group_types) < len(names) and parser.parse_optional_punctuation(",") is not None:
                    group_types.append(parser.parse_type())
            else:
                parser.raise_error(f"expected one of 'loop' or '{keyword}'")
        if len(loop_types) != len(loops) or len(group_types) != len(group):
            parser.raise_error(f"requires loop and {keyword} operand and type groups to match")
        resolve = parser.resolve_operands
        values = dict(zip((*cls.LEADING, "n_burst", "nburst_src_stride", "nburst_dst_stride"),
                          resolve([*leading, *nburst], types, parser.pos)))
        grouped = dict(zip(names, resolve(group, group_types, parser.pos)))
        columns = ([resolve([g[k]], [t[k]], parser.pos)[0] for g, t in zip(loops, loop_types)] for k in range(3))
        by_name = {**values, **{n: [grouped[n]] if n in grouped else [] for n in names},
                   **dict(zip(("loop_counts", "loop_src_strides", "loop_dst_strides"), columns))}
        op = cls.build(operands=[by_name[name] for name, _ in cls.get_irdl_definition().operands])
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        keyword, _ = self.GROUP
        before = self.GROUP_BEFORE_LOOPS
        printer.print_string(" ")
        printer.print_list([getattr(self, n) for n in self.LEADING], printer.print_ssa_value)
        _print_group(printer, "nburst", [self.n_burst, self.nburst_src_stride, self.nburst_dst_stride])
        _print_group(printer, keyword, self._group if before else [])
        for loop in self.loops:
            _print_group(printer, "loop", loop)
        _print_group(printer, keyword, [] if before else self._group)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        _print_types(printer, self._fixed)
        if before and self._group:
            printer.print_string(", ")
            _print_types(printer, self._group)
        for loop in self.loops:
            printer.print_string(", loop ")
            _print_types(printer, loop)
        if not before and self._group:
            printer.print_string(f", {keyword} ")
            _print_types(printer, self._group)

    def verify_(self) -> None:
        super().verify_()
        if not len(self.loop_counts) == len(self.loop_src_strides) == len(self.loop_dst_strides):
            raise VerifyException("requires each loop group to provide count, src stride, and dst stride")

    def byte_span(self, pointer: SSAValue, value_of: ValueOf) -> tuple[SpanValue, SpanValue]:
        """The bytes the transfer touches from `pointer` on, (offset, length): the last row's start
        (every stride counted to its last repeat) plus its length, a padded UB row to its boundary."""
        from_source = pointer is self.source
        strides = [(self.n_burst, self.nburst_src_stride if from_source else self.nburst_dst_stride)]
        strides += [(count, source if from_source else destination) for count, source, destination in self.loops]
        length = value_of(self.len_burst)
        if not from_source and getattr(self, "pad_value", None) is not None:
            length = -(-length // UB_ROW_ALIGN_BYTES) * UB_ROW_ALIGN_BYTES
        for count, stride in strides:
            length = length + (value_of(count) - 1) * value_of(stride)
        return 0, length

    @property
    def loops(self) -> list[tuple[SSAValue, SSAValue, SSAValue]]:
        """The loop groups, innermost first: (count, source stride, destination stride)."""
        return list(zip(self.loop_counts, self.loop_src_strides, self.loop_dst_strides))


@irdl_op_definition
class MteGmUbOp(MteOpBase):
    """GM -> UB (the MTE2 pipe)."""

    name = "pto.mte_gm_ub"

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

    LEADING: ClassVar = ("source", "destination", "l2_cache_ctl", "len_burst")
    GROUP: ClassVar = ("pad", ("pad_value", "left_padding_count", "right_padding_count"))
    GROUP_BEFORE_LOOPS: ClassVar = False
    PHASES: ClassVar = (Phase(Pipe.MTE2, reads=("source",), writes=("destination",)),)

    def verify_(self) -> None:
        super().verify_()
        if (self.left_padding_count is None) != (self.right_padding_count is None):
            raise VerifyException("requires pad group to provide both left and right counts, or omit both")
        if self.pad_value is not None and not isinstance(self.pad_value.type, IntegerType | AnyFloat):
            raise VerifyException(f"expects pad value to be an integer or float scalar, but got {self.pad_value.type}")


@irdl_op_definition
class MteUbGmOp(MteOpBase, UbToGmCopyOp):
    """UB -> GM (the MTE3 pipe)."""

    name = "pto.mte_ub_gm"

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

    LEADING: ClassVar = ("source", "destination", "len_burst")
    GROUP: ClassVar = ("l2_cache_ctl", ("l2_cache_ctl",))
    GROUP_BEFORE_LOOPS: ClassVar = True
    PHASES: ClassVar = (Phase(Pipe.MTE3, reads=("source",), writes=("destination",)),)



DMA_OPS = [MteGmUbOp, MteUbGmOp]
