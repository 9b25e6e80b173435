"""
Typed pointers at the register level (PTOAS include/PTO/IR/PTOOps.td, docs/isa/micro-isa/18-special-scalar.md):

    %ub = pto.castptr %c0_i64 : i64 -> !pto.ptr<f32, ub>                 an address (bytes) as a pointer
    %b  = pto.castptr %arg0 : !pto.ptr<ui32, gm> -> !pto.ptr<ui8, gm>    the same address, another element type
    %p  = pto.addptr %ub, %c64 : !pto.ptr<f32, ub> -> !pto.ptr<f32, ub>  advanced by 64 elements (not bytes)

A cast never changes the address space: gm <-> ub is an error, as in PTOAS.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def
from xdsl.irdl.declarative_assembly_format import CustomDirective, ParsingState, PrintingState, TypeDirective, irdl_custom_directive
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from pto_dialect.types import PtrType
from pto_dialect.vpto.common import PureRegisterOp


@irdl_op_definition
class CastPtrOp(PureRegisterOp):
    """An integer byte address as a `!pto.ptr`, a pointer as another element type's, or a pointer as its address."""

    name = "pto.castptr"

    input = operand_def()
    result = result_def()

    def verify_(self) -> None:
        source, target = self.input.type, self.result.type
        if isinstance(source, PtrType) and isinstance(target, PtrType):
            if source.space != target.space:
                raise VerifyException(
                    f"cannot cast between address spaces ({source.space.data} -> {target.space.data}): {source} -> {target}"
                )
            return
        if isinstance(target, PtrType) and isinstance(source, IntegerType | IndexType):
            return
        if isinstance(source, PtrType) and isinstance(target, IntegerType | IndexType):
            return
        raise VerifyException(f"casts an integer to a !pto.ptr, a !pto.ptr to an integer or to another !pto.ptr; got {source} -> {target}")


@irdl_custom_directive
class PointerType(CustomDirective):
    """A `!pto.ptr` type, read also in the stripped form `<f32, ub>` that MLIR prints where an op's format
    fixes the type's kind (PTOAS's `pto.addptr`); printed in full."""

    pointer: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        pointer = parser.parse_optional_type()
        self.pointer.set(state, [pointer if pointer is not None else PtrType.new(PtrType.parse_parameters(parser))])

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_attribute(self.pointer.get(op)[0])


@irdl_op_definition
class AddPtrOp(PureRegisterOp):
    """`ptr + offset` elements of the pointer's element type."""

    name = "pto.addptr"

    ptr = operand_def(PtrType)
    offset = operand_def(IndexType)
    result = result_def(PtrType)
    assembly_format = "$ptr `,` $offset attr-dict `:` custom<PointerType>(type($ptr)) `->` custom<PointerType>(type($result))"
    custom_directives = (PointerType,)

    def verify_(self) -> None:
        if self.result.type != self.ptr.type:
            raise VerifyException(f"requires the result type to match the pointer type {self.ptr.type}, got {self.result.type}")


POINTER_OPS = [CastPtrOp, AddPtrOp]
