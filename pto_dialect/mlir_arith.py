"""
MLIR's `arith` dialect as PTOAS's inputs use it: xDSL 0.74's `arith` plus the MLIR op it lacks,

    %i = arith.index_castui %k : i16 to index      // MLIR's IndexCastUIOp

`arith.index_castui` reads its operand as an unsigned number: one of i1..i64 zero-extended to
index, or an index truncated to the integer type (MLIR: the zero-extending index cast). Operand
and result are each a signless integer or index, exactly one of them index. The custom form
above and the generic form (`"arith.index_castui"(%k) : (i16) -> index`) both parse and print.
"""

from __future__ import annotations

from dataclasses import replace

from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import IndexType, IntegerType, Signedness
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException


def _signless_integer_or_index(value: Attribute) -> bool:
    return isinstance(value, IndexType) or (isinstance(value, IntegerType) and value.signedness.data is Signedness.SIGNLESS)


@irdl_op_definition
class IndexCastUIOp(IRDLOperation):
    """An integer read as unsigned, zero-extended to index; or an index truncated to an integer."""

    name = "arith.index_castui"

    input = operand_def()
    result = result_def()
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    def __init__(self, input_arg: SSAValue | Operation, target_type: Attribute):
        super().__init__(operands=[input_arg], result_types=[target_type])

    def verify_(self) -> None:
        # the types are checked here rather than by operand constraints, which xDSL checks
        # while parsing with no message fit to show
        for role, value in (("operand", self.input.type), ("result", self.result.type)):
            if not _signless_integer_or_index(value):
                raise VerifyException(f"{role} must be a signless integer or index, but got '{value}'")
        if isinstance(self.input.type, IndexType) == isinstance(self.result.type, IndexType):
            raise VerifyException(
                f"operand type '{self.input.type}' and result type '{self.result.type}' are cast incompatible "
                "(exactly one of them must be index)"
            )


def arith_dialect() -> Dialect:
    """xDSL's arith with the ops it lacks (what a context registers as `arith`)."""
    return replace(Arith, _operations=[*Arith.operations, IndexCastUIOp])
