"""
Scalar access to GM through a pointer (PTOAS's PTOOps.td; the scalar pipe, PIPE_S):

    %v = pto.load_scalar %ptr[%offset] : !pto.ptr<T> -> T
    pto.store_scalar %v, %ptr[%offset] : !pto.ptr<T>, T

The offset counts elements. Where it is a constant and the pointer is a kernel argument whose
tensor views all have static shapes and strides, an offset outside every view of it is a
verification error; otherwise the run checks it against the argument's array.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute, BlockArgument, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def
from xdsl.utils.exceptions import VerifyException

from pto_dialect.ops.memory import MakeTensorViewOp, constant_index
from pto_dialect.ops.common import ElementAccessOp, ElementReadOp, ElementWriteOp
from pto_dialect.types import PtrType


def view_extent(shape: Sequence[int], strides: Sequence[int]) -> int:
    """Elements from a view's first element to its last, inclusive (0 for an empty view)."""
    if min(shape, default=1) <= 0:
        return 0
    return 1 + sum((d - 1) * s for d, s in zip(shape, strides))


def static_pointer_extent(ptr: SSAValue) -> int | None:
    """The elements a kernel argument's tensor views reach, when every one of them is static."""
    if not isinstance(ptr, BlockArgument):
        return None
    views = [u.operation for u in ptr.uses if isinstance(u.operation, MakeTensorViewOp)]
    extents = []
    for view in views:
        sizes = [constant_index(v) for v in (*view.shape, *view.strides)]
        known = [s for s in sizes if s is not None]
        if len(known) < len(sizes):
            return None
        extents.append(view_extent(known[: len(view.shape)], known[len(view.shape) :]))
    return max(extents, default=None)


class ScalarAccessOp(ElementAccessOp):
    """An element of GM at `ptr[offset]`."""

    CONTAINER: ClassVar[str] = "ptr"
    ptr = operand_def(PtrType)
    offset = operand_def(IndexType)

    def check_element(self, value_type: Attribute, what: str) -> None:
        ptr_type = self.ptr.type
        assert isinstance(ptr_type, PtrType)
        if value_type != ptr_type.element_type:
            raise VerifyException(f"expects {what} type to match ptr element type, got {value_type} for {ptr_type}")
        offset = constant_index(self.offset)
        if offset is None:
            return
        if offset < 0:
            raise VerifyException(f"offset {offset} is negative: before the pointer's first element")
        extent = static_pointer_extent(self.ptr)
        if extent is not None and offset >= extent:
            raise VerifyException(
                f"offset {offset} is outside the tensor views of %{self.ptr.name_hint or 'ptr'} "
                f"(they reach {extent} elements)"
            )


@irdl_op_definition
class LoadScalarOp(ScalarAccessOp, ElementReadOp):
    """One element read from GM: `%v = pto.load_scalar %ptr[%offset] : !pto.ptr<T> -> T`."""

    name = "pto.load_scalar"
    assembly_format = "$ptr `[` $offset `]` attr-dict `:` type($ptr) `->` type($value)"


@irdl_op_definition
class StoreScalarOp(ElementWriteOp, ScalarAccessOp):
    """One element written to GM: `pto.store_scalar %v, %ptr[%offset] : !pto.ptr<T>, T`."""

    name = "pto.store_scalar"
    assembly_format = "$value `,` $ptr `[` $offset `]` attr-dict `:` type($ptr) `,` type($value)"
