"""
Stack arrays of the scalar unit (PTOAS's DeclareLocalArrayOp, LocalArrayGetOp, LocalArraySetOp):

    %a = pto.declare_local_array -> !pto.local_array<16xi32>          C++: int32_t a[16];
    %v = pto.local_array_get %a[%i] : !pto.local_array<16xi32> -> i32  int32_t v = a[i];
    pto.local_array_set %a[%i, %j], %v : !pto.local_array<8x8xf32>, f32   a[i][j] = v;

One index per dim, the value typed as the element (PTOAS's verifiers). A constant index outside
its dim is a verification error; a computed one is checked when the kernel runs, as is a read
of an element no set wrote (C++ leaves a stack array uninitialized). The array takes no part in
tile memory planning: the C++ compiler places it.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def, var_operand_def
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import EffectInstance, MemoryEffect, MemoryEffectKind
from xdsl.utils.exceptions import VerifyException

from pto_dialect.ops.memory import constant_index
from pto_dialect.types import LocalArrayType

INDEX = IndexType()


class _ArrayAccess(MemoryEffect):
    """A get reads, a set writes, the array; a declaration allocates it."""

    @classmethod
    def get_effects(cls, op: Operation) -> set[EffectInstance]:
        if isinstance(op, DeclareLocalArrayOp):
            return {EffectInstance(MemoryEffectKind.ALLOC, op.array)}
        assert isinstance(op, LocalArrayGetOp | LocalArraySetOp)
        kind = MemoryEffectKind.WRITE if isinstance(op, LocalArraySetOp) else MemoryEffectKind.READ
        return {EffectInstance(kind, op.array)}


def _check_indices(op: LocalArrayGetOp | LocalArraySetOp, value_type: Attribute, what: str) -> None:
    array = op.array.type
    assert isinstance(array, LocalArrayType)
    rank = len(array.shape)
    if len(op.indices) != rank:
        raise VerifyException(f"expects {rank} indices for !pto.local_array of rank {rank}, got {len(op.indices)}")
    if value_type != array.element_type:
        raise VerifyException(f"{what} type {value_type} does not match array element type {array.element_type}")
    for dim, (index, size) in enumerate(zip(op.indices, array.shape)):
        known = constant_index(index)
        if known is not None and not 0 <= known < size:
            raise VerifyException(f"index {known} of dim {dim} is outside [0, {size - 1}] for {array}")


def _parse_access(parser: Parser) -> tuple[UnresolvedOperand, list[UnresolvedOperand]]:
    """`%a[%i, %j]`"""
    array = parser.parse_unresolved_operand()
    indices = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
    return array, indices


def _print_access(printer: Printer, array: SSAValue, indices: tuple[SSAValue, ...] | list[SSAValue]) -> None:
    printer.print_string(" ")
    printer.print_ssa_value(array)
    printer.print_string("[")
    printer.print_list(indices, printer.print_ssa_value)
    printer.print_string("]")


@irdl_op_definition
class DeclareLocalArrayOp(IRDLOperation):
    """`%a = pto.declare_local_array -> !pto.local_array<...>`"""

    name = "pto.declare_local_array"

    array = result_def(LocalArrayType)
    traits = traits_def(_ArrayAccess())

    @classmethod
    def parse(cls, parser: Parser) -> DeclareLocalArrayOp:
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation("->")
        op = cls.build(result_types=[parser.parse_type()])
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        printer.print_string(" -> ")
        printer.print_attribute(self.array.type)


@irdl_op_definition
class LocalArrayGetOp(IRDLOperation):
    """`%v = pto.local_array_get %a[%i...] : !pto.local_array<...> -> T`"""

    name = "pto.local_array_get"

    array = operand_def(LocalArrayType)
    indices = var_operand_def(IndexType)
    value = result_def()
    traits = traits_def(_ArrayAccess())

    @classmethod
    def parse(cls, parser: Parser) -> LocalArrayGetOp:
        array, indices = _parse_access(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        array_type = parser.parse_type()
        parser.parse_punctuation("->")
        value_type = parser.parse_type()
        op = cls.build(
            operands=[parser.resolve_operand(array, array_type), [parser.resolve_operand(i, INDEX) for i in indices]],
            result_types=[value_type],
        )
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        _print_access(printer, self.array, self.indices)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.array.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.value.type)

    def verify_(self) -> None:
        _check_indices(self, self.value.type, "result")


@irdl_op_definition
class LocalArraySetOp(IRDLOperation):
    """`pto.local_array_set %a[%i...], %v : !pto.local_array<...>, T`"""

    name = "pto.local_array_set"

    array = operand_def(LocalArrayType)
    indices = var_operand_def(IndexType)
    value = operand_def()
    traits = traits_def(_ArrayAccess())

    @classmethod
    def parse(cls, parser: Parser) -> LocalArraySetOp:
        array, indices = _parse_access(parser)
        parser.parse_punctuation(",")
        value = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        array_type = parser.parse_type()
        parser.parse_punctuation(",")
        value_type = parser.parse_type()
        op = cls.build(
            operands=[
                parser.resolve_operand(array, array_type),
                [parser.resolve_operand(i, INDEX) for i in indices],
                parser.resolve_operand(value, value_type),
            ],
        )
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        _print_access(printer, self.array, self.indices)
        printer.print_string(", ")
        printer.print_ssa_value(self.value)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.array.type)
        printer.print_string(", ")
        printer.print_attribute(self.value.type)

    def verify_(self) -> None:
        _check_indices(self, self.value.type, "value")


LOCAL_ARRAY_OPS = [DeclareLocalArrayOp, LocalArrayGetOp, LocalArraySetOp]
