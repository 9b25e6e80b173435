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

from typing import ClassVar

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def, var_operand_def
from xdsl.utils.exceptions import VerifyException

from pto_dialect.ops.memory import AllocatesResult, constant_index
from pto_dialect.ops.common import ElementAccessOp, ElementReadOp, ElementWriteOp
from pto_dialect.types import LocalArrayType


@irdl_op_definition
class DeclareLocalArrayOp(IRDLOperation):
    """`%a = pto.declare_local_array -> !pto.local_array<...>`"""

    name = "pto.declare_local_array"

    array = result_def(LocalArrayType)
    traits = traits_def(AllocatesResult())
    assembly_format = "attr-dict `->` type($array)"


class LocalArrayAccessOp(ElementAccessOp):
    """An element of `array` at one index per dim."""

    CONTAINER: ClassVar[str] = "array"
    array = operand_def(LocalArrayType)
    indices = var_operand_def(IndexType)

    def check_element(self, value_type: Attribute, what: str) -> None:
        array = self.array.type
        assert isinstance(array, LocalArrayType)
        rank = len(array.shape)
        if len(self.indices) != rank:
            raise VerifyException(f"expects {rank} indices for !pto.local_array of rank {rank}, got {len(self.indices)}")
        if value_type != array.element_type:
            raise VerifyException(f"{what} type {value_type} does not match array element type {array.element_type}")
        for dim, (index, size) in enumerate(zip(self.indices, array.shape)):
            known = constant_index(index)
            if known is not None and not 0 <= known < size:
                raise VerifyException(f"index {known} of dim {dim} is outside [0, {size - 1}] for {array}")


@irdl_op_definition
class LocalArrayGetOp(LocalArrayAccessOp, ElementReadOp):
    """`%v = pto.local_array_get %a[%i...] : !pto.local_array<...> -> T`"""

    name = "pto.local_array_get"
    assembly_format = "$array `[` $indices `]` attr-dict `:` type($array) `->` type($value)"


@irdl_op_definition
class LocalArraySetOp(LocalArrayAccessOp, ElementWriteOp):
    """`pto.local_array_set %a[%i...], %v : !pto.local_array<...>, T`"""

    name = "pto.local_array_set"
    assembly_format = "$array `[` $indices `]` `,` $value attr-dict `:` type($array) `,` type($value)"


LOCAL_ARRAY_OPS = [DeclareLocalArrayOp, LocalArrayGetOp, LocalArraySetOp]
