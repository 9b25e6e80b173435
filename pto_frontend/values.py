"""
The builder's types and values: element types (`pto.f16`, ... from the dtype table),
argument annotations (`pto.ptr(dtype)`, `pto.index`), and what kernel code holds (scalars,
pointers, views, tiles), each around the SSA value it names.

Index and integer scalars support `+ - * // %` with each other and with Python ints, each
building one `arith` op: `//` is arith.floordivsi (Python's floor division), `%` is
arith.remsi (C's remainder: Python's for non-negative operands).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.ir import Attribute, SSAValue

from pto_dialect.dtypes import ELEMENT_TYPES
from pto_dialect.types import PartitionTensorViewType, PtrType, TensorViewType, TileTypeBase
from pto_dialect.vpto.types import MaskType, VRegType

from pto_frontend.trace import current, located


@dataclass(frozen=True)
class DType:
    """An element or scalar type: `pto.f16`, `pto.i32`, ..., `pto.index`."""

    name: str
    attr: Attribute

    def __repr__(self) -> str:
        return f"pto.{self.name}"


_BY_ATTR: dict[Attribute, DType] = {attr: DType(info.mlir.removeprefix("!pto."), attr) for attr, info in ELEMENT_TYPES.items()}
"""Every element type of the dtype table, by its attribute."""

DTYPES: dict[str, DType] = {dtype.name: dtype for dtype in _BY_ATTR.values()}
"""Every element type of the dtype table, by its PTO spelling (`f16`, `si32`, `f8E4M3FN`, `hif8`)."""

index = DType("index", IndexType())
"""The `index` scalar type (loop counters, offsets, sizes)."""


@dataclass(frozen=True)
class Ptr:
    """`pto.ptr(dtype)`: the annotation of a GM pointer argument."""

    dtype: DType
    space: str = "gm"

    @property
    def attr(self) -> PtrType:
        return PtrType.get(self.dtype.attr, self.space)

    def __repr__(self) -> str:
        return f"pto.ptr({self.dtype!r})"


def ptr(dtype: DType, space: str = "gm") -> Ptr:
    """A GM pointer to `dtype` elements, to annotate a kernel argument with."""
    if not isinstance(dtype, DType) or dtype.attr not in ELEMENT_TYPES:
        raise located(f"pto.ptr() takes an element type (pto.f16, pto.i32, ...), got {dtype!r}")
    return Ptr(dtype, space)


class Value:
    """A value of kernel code, around the SSA value it names."""

    __slots__ = ("ssa",)

    def __init__(self, ssa: SSAValue):
        self.ssa = ssa

    @property
    def type(self) -> Attribute:
        return self.ssa.type

    def __repr__(self) -> str:
        name = f"%{self.ssa.name_hint} " if self.ssa.name_hint else ""
        return f"<{type(self).__name__} {name}: {self.ssa.type}>"

    def __bool__(self) -> bool:
        raise located(f"{self!r} has no truth value while the kernel is built (it has one when the kernel runs)")


def _arith(op_class: type[arith.SignlessIntegerBinaryOperation], symbol: str):
    def apply(self: Scalar, other: object, reflected: bool = False) -> Scalar:
        trace = current(f"'{symbol}' on a pto value")
        if not isinstance(self.type, IndexType | IntegerType):
            raise located(f"'{symbol}' takes index or integer values, got {self.type}")
        if isinstance(other, Scalar):
            if other.type != self.type:
                raise located(f"'{symbol}' takes two values of one type, got {self.type} and {other.type}")
            rhs = other.ssa
        elif isinstance(other, int) and not isinstance(other, bool):
            rhs = trace.constant(other, self.type)
        else:
            return NotImplemented  # pyright: ignore[reportReturnType]
        lhs, rhs = (rhs, self.ssa) if reflected else (self.ssa, rhs)
        return Scalar(trace.append(op_class(lhs, rhs)).results[0])

    return apply, lambda self, other: apply(self, other, reflected=True)


class Scalar(Value):
    """An index, integer or float value (a kernel argument, a loop counter, a computed offset)."""

    __slots__ = ()

    __add__, __radd__ = _arith(arith.AddiOp, "+")
    __sub__, __rsub__ = _arith(arith.SubiOp, "-")
    __mul__, __rmul__ = _arith(arith.MuliOp, "*")
    __floordiv__, __rfloordiv__ = _arith(arith.FloorDivSIOp, "//")
    __mod__, __rmod__ = _arith(arith.RemSIOp, "%")


class Pointer(Value):
    """A pointer: a GM pointer argument, or a `!pto.ptr<T, ub>` of the register level (pto.castptr)."""

    __slots__ = ()


class TensorView(Value):
    """A `!pto.tensor_view` (pto.make_tensor_view)."""

    __slots__ = ()

    @property
    def shape(self) -> tuple[int, ...]:
        """Its dims; -1 where dynamic."""
        return self.type.shape  # pyright: ignore[reportAttributeAccessIssue]


class PartitionView(TensorView):
    """A `!pto.partition_tensor_view` (pto.partition_view)."""

    __slots__ = ()


class Tile(Value):
    """A `!pto.tile_buf` (pto.alloc_tile)."""

    __slots__ = ()

    @property
    def shape(self) -> tuple[int, int]:
        return self.type.shape  # pyright: ignore[reportAttributeAccessIssue]

    @property
    def valid_shape(self) -> tuple[int, int]:
        """Valid rows and cols; -1 where dynamic."""
        return self.type.valid_shape  # pyright: ignore[reportAttributeAccessIssue]

    @property
    def dtype(self) -> DType:
        return _BY_ATTR[self.type.element_type]  # pyright: ignore[reportAttributeAccessIssue]


class VReg(Value):
    """A `!pto.vreg<NxT>` vector register (a5's register level: pto.vlds, pto.vgather2, ...)."""

    __slots__ = ()


class Mask(Value):
    """A `!pto.mask<bN>` predicate register (pto.pset_b32, pto.plt_b16, ...)."""

    __slots__ = ()


_VALUE_OF_TYPE: tuple[tuple[type[Attribute], type[Value]], ...] = (
    (TileTypeBase, Tile),
    (PartitionTensorViewType, PartitionView),
    (TensorViewType, TensorView),
    (PtrType, Pointer),
    (VRegType, VReg),
    (MaskType, Mask),
)
"""The builder's value class of each SSA type (a Scalar for any other)."""


def wrap(ssa: SSAValue) -> Value:
    """The builder's value for an SSA value, by its type."""
    value_class = next((value for t, value in _VALUE_OF_TYPE if isinstance(ssa.type, t)), Scalar)
    return value_class(ssa)


def index_operand(value: object, what: str) -> SSAValue:
    """An index operand: an index value, or a Python int (a constant)."""
    if isinstance(value, Scalar) and isinstance(value.type, IndexType):
        return value.ssa
    if isinstance(value, int) and not isinstance(value, bool):
        return current(what).constant(value, IndexType())
    raise located(f"{what} takes index values or Python ints, got {value!r}")


__all__ = [
    "DTYPES", "DType", "Mask", "PartitionView", "Pointer", "Ptr", "Scalar", "TensorView", "Tile", "VReg", "Value", "index", "ptr", "wrap",
]
