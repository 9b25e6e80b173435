"""
The kernel scaffolding as PTOAS's ptodsl spells it: GM views, tiles, loops and sections.

    tv = pto.make_tensor_view(table, shape=[1000, 128], strides=[128, 1])
    tp = pto.partition_view(tv, offsets=[0, 0], sizes=[1000, 128])
    idx = pto.alloc_tile(shape=[1, 64], dtype=pto.i32)
    for t in pto.range(16):               # scf.for %t = 0 to 16 step 1
        ...
    with pto.section_vector():            # pto.section.vector { ... }
        ...
    with pto.vecscope():                  # pto.vecscope { ... } (a5's register level)
        ...
"""

from __future__ import annotations

import builtins
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from enum import Enum
from typing import TypeVar

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerType, i64
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from pto_dialect.attributes import GmLayout, GmLayoutAttr
from pto_dialect.ops.memory import AllocTileOp, MakeTensorViewOp, PartitionViewOp, SectionCubeOp, SectionOp, SectionVectorOp, constant_index
from pto_dialect.ops.reshape import TReshapeOp
from pto_dialect.ops.scalar import LoadScalarOp, StoreScalarOp
from pto_dialect.ops.tile_value import TGetValOp, TSetValOp
from pto_dialect.ops.valid_shape import SetValidShapeOp
from pto_dialect.vpto.scope import VecScopeOp
from pto_dialect.types import PADS, PartitionTensorViewType, TensorViewType, TileBufType

from pto_frontend.trace import Trace, checked_call, current, located, sequence_of
from pto_frontend.values import DType, PartitionView, Pointer, Scalar, TensorView, Tile, Value, index, index_operand


@checked_call("pto.make_tensor_view()")
def make_tensor_view(ptr: Value, shape: Sequence[int | Scalar], strides: Sequence[int | Scalar], layout: str | None = None) -> TensorView:
    """A GM tensor over a pointer argument; its type's dims are the Python ints of `shape`
    (`?` for index values)."""
    trace = current("pto.make_tensor_view()")
    if not isinstance(ptr, Pointer):
        raise located(f"pto.make_tensor_view() takes a pointer argument (pto.ptr(...)), got {ptr!r}")
    shape_ssa = [index_operand(d, "pto.make_tensor_view(shape=...)") for d in sequence_of("pto.make_tensor_view()", "shape", shape)]
    stride_ssa = [index_operand(s, "pto.make_tensor_view(strides=...)") for s in sequence_of("pto.make_tensor_view()", "strides", strides)]
    dims = [c if (c := constant_index(v)) is not None else DYNAMIC_INDEX for v in shape_ssa]
    view = TensorViewType.get(dims, ptr.type.element_type)  # pyright: ignore[reportAttributeAccessIssue]
    props = {"layout": GmLayoutAttr(_enum(GmLayout, layout, "layout"))} if layout is not None else {}
    op = MakeTensorViewOp.build(operands=[ptr.ssa, shape_ssa, stride_ssa], result_types=[view], properties=props)
    return TensorView(trace.append(op).results[0])


@checked_call("pto.partition_view()")
def partition_view(view: TensorView, offsets: Sequence[int | Scalar], sizes: Sequence[int | Scalar]) -> PartitionView:
    """A window of a tensor view; its type's dims are the Python ints of `sizes`."""
    trace = current("pto.partition_view()")
    if not isinstance(view, TensorView) or isinstance(view, PartitionView):
        raise located(f"pto.partition_view() takes a tensor view (pto.make_tensor_view), got {view!r}")
    offset_ssa = [index_operand(o, "pto.partition_view(offsets=...)") for o in sequence_of("pto.partition_view()", "offsets", offsets)]
    size_ssa = [index_operand(s, "pto.partition_view(sizes=...)") for s in sequence_of("pto.partition_view()", "sizes", sizes)]
    result: PartitionTensorViewType = PartitionViewOp.inferred_type(view.type, size_ssa)  # pyright: ignore[reportArgumentType]
    op = PartitionViewOp.build(operands=[view.ssa, offset_ssa, size_ssa], result_types=[result])
    return PartitionView(trace.append(op).results[0])


@checked_call("pto.alloc_tile()")
def alloc_tile(
    shape: Sequence[int],
    dtype: DType,
    loc: str = "vec",
    valid: Sequence[int | Scalar] | None = None,
    blayout: str | None = None,
    slayout: str | None = None,
    pad: int | str | None = None,
    addr: int | Scalar | None = None,
) -> Tile:
    """A tile buffer: `valid` may hold index values (a dynamic valid dim), `pad` is 0-3 or
    its name (null, zero, max, min), `addr` a byte address (else pto-plan-memory places it)."""
    trace = current("pto.alloc_tile()")
    if not isinstance(dtype, DType):
        raise located(f"pto.alloc_tile() takes dtype=pto.f16, pto.i32, ..., got {dtype!r}")
    shape = sequence_of("pto.alloc_tile()", "shape", shape)
    valid = list(shape) if valid is None else sequence_of("pto.alloc_tile()", "valid", valid)
    if len(valid) != 2:
        raise located(f"pto.alloc_tile() takes valid=[rows, cols], got {valid!r}")
    static = [v if isinstance(v, int) and not isinstance(v, bool) else DYNAMIC_INDEX for v in valid]
    dynamic = [index_operand(v, "pto.alloc_tile(valid=...)") if s == DYNAMIC_INDEX else None for v, s in zip(valid, static)]
    layout: dict[str, str | int] = {k: v for k, v in (("blayout", blayout), ("slayout", slayout)) if v is not None}
    if pad is not None:
        names = {name: code for code, name in PADS.items()}
        layout["pad"] = names.get(pad, pad) if isinstance(pad, str) else pad
    try:
        tile = TileBufType.get(loc, tuple(shape), dtype.attr, valid=static, **layout)
    except (VerifyException, ValueError, TypeError) as e:
        raise located(f"pto.alloc_tile(): {e}") from e
    if addr is None or (isinstance(addr, Scalar) and addr.type == i64):
        address = addr.ssa if addr is not None else None
    elif isinstance(addr, int) and not isinstance(addr, bool):
        address = trace.constant(addr, i64)
    else:
        raise located(f"pto.alloc_tile() takes addr as a Python int or an i64 value, got {addr!r}")
    op = AllocTileOp(tile, address, *dynamic)
    return Tile(trace.append(op).results[0])


@checked_call("pto.range()")
def range(start: int | Scalar, stop: int | Scalar | None = None, step: int | Scalar = 1) -> Iterator[Scalar]:
    """`scf.for`: `for i in pto.range(n)` or `pto.range(start, stop, step)`; the body, traced
    once, is the loop's body, and `i` its index."""
    trace = current("pto.range()")
    if stop is None:
        start, stop = 0, start
    lower, upper, step_value = (index_operand(v, "pto.range()") for v in (start, stop, step))
    body = Block(arg_types=[IndexType()])
    loop = trace.append(scf.ForOp(lower, upper, step_value, [], body))
    counter = Scalar(body.args[0])
    with trace.inside(body):
        yield counter
        trace.name_values()
    body.add_op(scf.YieldOp())
    body.last_op.location = loop.location  # pyright: ignore[reportOptionalMemberAccess]


@contextmanager
def _section(kind: type[SectionOp] | type[VecScopeOp], name: str) -> Iterator[None]:
    trace = current(f"pto.{name}()")
    body = Block()
    trace.append(kind.create(regions=[Region(body)]))
    with trace.inside(body):
        yield


def section_vector():
    """`with pto.section_vector():` code for the vector core (`pto.section.vector`)."""
    return _section(SectionVectorOp, "section_vector")


def section_cube():
    """`with pto.section_cube():` code for the cube core (`pto.section.cube`)."""
    return _section(SectionCubeOp, "section_cube")


def vecscope():
    """`with pto.vecscope():` one vector-scope interval of a5's register level (`pto.vecscope`)."""
    return _section(VecScopeOp, "vecscope")


@checked_call("pto.constant()")
def constant(value: int | float, dtype: DType = index) -> Scalar:
    """An `arith.constant` of `dtype` (index by default): a value where a Python number would
    be folded into the type, such as a dynamic valid dim that starts at a known size."""
    return Scalar(current("pto.constant()").constant(value, dtype.attr))


_POINTER = (Pointer, "a pointer argument (pto.ptr(...))")
_TILE = (Tile, "a tile (pto.alloc_tile)")


def _element_at(call: str, holder: object, kind: tuple[type[Pointer | Tile], str], offset: object) -> tuple[Trace, SSAValue]:
    """The trace and the offset operand of `call` (`pto.tgetval`, ...) on the element at
    `offset` of `holder`, which must be of `kind` (its class and how an error names it)."""
    trace = current(f"{call}()")
    if not isinstance(holder, kind[0]):
        raise located(f"{call}() takes {kind[1]}, got {holder!r}")
    return trace, index_operand(offset, f"{call}(offset)")


def _read_element(
    call: str, op_type: type[LoadScalarOp | TGetValOp], holder: object, kind: tuple[type[Pointer | Tile], str], offset: object
) -> Scalar:
    """`call`'s op (`op_type`) reading the element at `offset` of `holder`, of `kind`."""
    trace, offset_ssa = _element_at(call, holder, kind, offset)
    assert isinstance(holder, Pointer | Tile)
    op = op_type.build(operands=[holder.ssa, offset_ssa], result_types=[holder.type.element_type])  # pyright: ignore[reportAttributeAccessIssue]
    return Scalar(trace.append(op).results[0])


def load_scalar(ptr: Pointer, offset: int | Scalar) -> Scalar:
    """`pto.load_scalar %ptr[%offset]`: one element of a pointer argument (offset in elements)."""
    return _read_element("pto.load_scalar", LoadScalarOp, ptr, _POINTER, offset)


def _element_value(trace: Trace, value: object, element: Attribute, call: str, whose: str) -> SSAValue:
    """A value written as one element: a Scalar as it is, a Python number as a constant of the
    element type; anything else a located error naming `call`."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return trace.constant(value, element)
    if isinstance(value, Scalar):
        return value.ssa
    raise located(f"{call} takes a value of {whose} element type or a Python number, got {value!r}")


def store_scalar(value: int | float | Scalar, ptr: Pointer, offset: int | Scalar) -> None:
    """`pto.store_scalar %value, %ptr[%offset]`: one element of a pointer argument (a Python
    number becomes a constant of the pointer's element type)."""
    trace, offset_ssa = _element_at("pto.store_scalar", ptr, _POINTER, offset)
    value_ssa = _element_value(trace, value, ptr.type.element_type, "pto.store_scalar()", "the pointer's")  # pyright: ignore[reportAttributeAccessIssue]
    trace.append(StoreScalarOp.build(operands=[value_ssa, ptr.ssa, offset_ssa]))


def tgetval(tile: Tile, offset: int | Scalar) -> Scalar:
    """`pto.tgetval`: the element at `offset` of a Vec tile's storage (Tile::GetValue)."""
    return _read_element("pto.tgetval", TGetValOp, tile, _TILE, offset)


def tsetval(tile: Tile, offset: int | Scalar, value: int | float | Scalar) -> None:
    """`pto.tsetval`: the element at `offset` of a Vec tile's storage set to `value`
    (Tile::SetValue; a Python number becomes a constant of the tile's element type)."""
    trace, offset_ssa = _element_at("pto.tsetval", tile, _TILE, offset)
    value_ssa = _element_value(trace, value, tile.type.element_type, "pto.tsetval()", "the tile's")  # pyright: ignore[reportAttributeAccessIssue]
    trace.append(TSetValOp.build(operands=[offset_ssa, value_ssa, tile.ssa]))


@checked_call("pto.treshape()")
def treshape(
    tile: Tile, shape: Sequence[int], dtype: DType | None = None, blayout: str | None = None, slayout: str | None = None
) -> Tile:
    """`pto.treshape`: the tile's storage as a tile of `shape` (and `dtype`, `blayout`,
    `slayout`; by default the tile's), of the same bytes; nothing moves."""
    trace = current("pto.treshape()")
    if not isinstance(tile, Tile):
        raise located(f"pto.treshape() takes a tile (pto.alloc_tile), got {tile!r}")
    source = tile.type
    assert isinstance(source, TileBufType)
    shape = sequence_of("pto.treshape()", "shape", shape)
    layout = {"blayout": blayout or source.params.blayout, "slayout": slayout or source.params.slayout}
    element = dtype.attr if dtype is not None else source.element_type
    try:
        result = TileBufType.get(source.loc.data, tuple(shape), element, valid=list(shape), **layout)
    except (VerifyException, ValueError, TypeError) as e:
        raise located(f"pto.treshape(): {e}") from e
    return Tile(trace.append(TReshapeOp.build(operands=[tile.ssa], result_types=[result])).results[0])


def set_validshape(tile: Tile, valid_row: int | Scalar, valid_col: int | Scalar) -> None:
    """`pto.set_validshape`: the valid shape of a tile allocated with dynamic valid dims
    (`valid=[pto.constant(n), ...]`), from here on."""
    trace = current("pto.set_validshape()")
    if not isinstance(tile, Tile):
        raise located(f"pto.set_validshape() takes a tile (pto.alloc_tile), got {tile!r}")
    rows, cols = (index_operand(v, "pto.set_validshape()") for v in (valid_row, valid_col))
    trace.append(SetValidShapeOp.build(operands=[tile.ssa, rows, cols]))


def index_cast(value: Scalar) -> Scalar:
    """`arith.index_cast` of an integer value to index (a loaded id as an offset)."""
    trace = current("pto.index_cast()")
    if not isinstance(value, Scalar) or not isinstance(value.type, IntegerType):
        raise located(f"pto.index_cast() takes an integer value, got {value!r}")
    return Scalar(trace.append(arith.IndexCastOp(value.ssa, IndexType())).results[0])


_E = TypeVar("_E", bound=Enum)


def _enum(kind: type[_E], value: str, what: str) -> _E:
    try:
        return kind(value)
    except ValueError:
        raise located(f"{what} must be one of {', '.join(builtins.map(str, kind))}, got {value!r}") from None


__all__ = [
    "alloc_tile", "constant", "index_cast", "load_scalar", "make_tensor_view", "partition_view", "range", "section_cube", "section_vector",
    "set_validshape", "store_scalar", "tgetval", "treshape", "tsetval", "vecscope",
]
