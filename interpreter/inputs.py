"""
Random inputs for a kernel: one array per argument of its entry function, sized from the
signature and from the tensor views the kernel makes of each pointer.

    arrays = random_inputs(module, seed=7, scalars={"n": 64})

- `!pto.ptr<T>`: a flat array long enough for every `pto.make_tensor_view` of it (the view's
  last element, from its shape and strides, evaluated from constants and the scalar arguments).
- `!pto.partition_tensor_view<...>`, `!pto.tile_buf<...>`: the type's (static) shape.
- scalars: the value given in `scalars` (by argument name or position); a float scalar not
  given is drawn; an integer or index scalar must be given (it usually sizes something).
- values: floats uniform in [-1, 1) (rounded to the element type); integers uniform in
  [-100, 100] clipped to the type; i1 either way. An integer array that reaches the index
  operand of a gather or scatter (through views, a tload, subviews and reshapes) is drawn inside the table it
  indexes, `[0, entries)`; with `indices="wide"` in `[-entries, 2 * entries)` instead, to
  exercise the out-of-range modes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Literal

import numpy as np
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerAttr, IntegerType
from xdsl.ir import Attribute, BlockArgument, OpResult, Operation, SSAValue

from pto_dialect.diagnostics import PtoError
from pto_dialect.dtypes import element_info
from pto_dialect.ops import LoadScalarOp, MakeTensorViewOp, PartitionViewOp, StoreScalarOp, SubViewOp, TReshapeOp
from pto_dialect.ops.scalar import view_extent
from pto_dialect.types import PartitionTensorViewType, PtrType, TileBufType

IndexDraw = Literal["table", "wide"]
INDEX_DRAWS: tuple[IndexDraw, ...] = ("table", "wide")
INTEGER_SPAN = 100
"""Integers are drawn in [-INTEGER_SPAN, INTEGER_SPAN] (clipped to the type)."""

_INTEGER_OPS = {
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
    arith.MuliOp: lambda a, b: a * b,
    arith.DivSIOp: lambda a, b: int(a / b),
    arith.DivUIOp: lambda a, b: a // b,
    arith.CeilDivSIOp: lambda a, b: -(-a // b),
    arith.CeilDivUIOp: lambda a, b: -(-a // b),
    arith.FloorDivSIOp: lambda a, b: a // b,
    arith.RemSIOp: lambda a, b: int(math.fmod(a, b)),
    arith.RemUIOp: lambda a, b: a % b,
    arith.MaxSIOp: max,
    arith.MinSIOp: min,
    arith.MaxUIOp: max,
    arith.MinUIOp: min,
}
_CASTS = (arith.IndexCastOp, arith.ExtSIOp, arith.ExtUIOp)
_CLAMPS = (arith.MaxSIOp, arith.MinSIOp, arith.MaxUIOp, arith.MinUIOp)


def parse_inputs_spec(spec: str) -> int:
    """`random` or `random:SEED` -> the seed (0 when none is given)."""
    kind, _, seed = spec.partition(":")
    if kind != "random" or (seed and not seed.lstrip("-").isdigit()):
        raise PtoError(f"error: --inputs takes random or random:SEED (an integer), got '{spec}'")
    return int(seed) if seed else 0


def argument_name(function: func.FuncOp, index: int) -> str:
    """The argument's name in the text (`%table` -> `table`), else its position."""
    return function.args[index].name_hint or str(index)


def random_inputs(
    function: func.FuncOp,
    seed: int = 0,
    scalars: Mapping[str, object] | None = None,
    indices: IndexDraw = "table",
) -> list[np.ndarray]:
    """One array per argument of `function` (see the module's docstring)."""
    if indices not in INDEX_DRAWS:
        raise PtoError(f"error: indices must be one of {', '.join(INDEX_DRAWS)}, got '{indices}'")
    given = dict(scalars or {})
    names = [argument_name(function, i) for i in range(len(function.args))]
    unknown = [k for k in given if k not in names and not (k.isdigit() and int(k) < len(names))]
    if unknown:
        raise PtoError.at_op(
            function, f"no argument named '{unknown[0]}' (arguments: {', '.join(names)})"
        )
    by_position = {int(k) if k.isdigit() else names.index(k): v for k, v in given.items()}
    values: dict[SSAValue, int | float] = {
        function.args[i]: _given_scalar(function, i, function.args[i].type, v) for i, v in by_position.items()
    }
    rng = np.random.default_rng(seed)
    arrays = []
    for i, arg in enumerate(function.args):
        arg_type = arg.type
        if arg in values:
            arrays.append(np.array(values[arg], dtype=_scalar_numpy(arg_type)))
            continue
        if isinstance(arg_type, PtrType):
            shape: tuple[int, ...] = (_pointer_extent(function, i, values),)
            element = arg_type.element
        elif isinstance(arg_type, PartitionTensorViewType | TileBufType):
            shape = tuple(arg_type.shape)
            if any(d < 0 for d in shape):
                raise PtoError.at_op(function, f"argument {i} (%{names[i]}): a dynamic shape cannot be drawn")
            element = arg_type.element
        elif isinstance(arg_type, AnyFloat) or (
            (info := element_info(arg_type)) is not None and not info.is_integer
        ):
            arrays.append(_draw(rng, _scalar_numpy(arg_type), False, ()))
            continue
        else:
            raise PtoError.at_op(
                function,
                f"argument {i} (%{names[i]}: {arg_type}) is an integer scalar: give its value "
                f"(pto-run: --arg {names[i]}=VALUE)",
            )
        bound = _index_bound(function, arg, values)
        if bound is not None and np.dtype(element.numpy).kind in "iu":
            low, high = (0, bound) if indices == "table" else (-bound, 2 * bound)
            info = np.iinfo(element.numpy)
            arrays.append(rng.integers(max(low, info.min), min(high, info.max + 1), shape).astype(element.numpy))
        else:
            arrays.append(_draw(rng, element.numpy, element.family == "hif8", shape))
    return arrays


def _draw(rng: np.random.Generator, dtype: np.dtype, hif8: bool, shape: tuple[int, ...]) -> np.ndarray:
    if hif8:  # raw bits: every pattern
        return rng.integers(0, 256, shape).astype(np.uint8)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(-INTEGER_SPAN, info.min), min(INTEGER_SPAN, info.max) + 1, shape).astype(dtype)
    return rng.uniform(-1.0, 1.0, shape).astype(np.float32).astype(dtype)


def _scalar_numpy(arg_type: Attribute) -> np.dtype:
    from interpreter import _scalar_dtype

    return _scalar_dtype(arg_type) or np.dtype(np.int64)


def _given_scalar(function: func.FuncOp, index: int, arg_type: Attribute, value: object) -> int | float:
    name = argument_name(function, index)
    if not isinstance(arg_type, IndexType | IntegerType | AnyFloat) and element_info(arg_type) is None:
        raise PtoError.at_op(function, f"argument {index} (%{name}: {arg_type}) is not a scalar: it cannot be given a value")
    try:
        return float(str(value)) if isinstance(arg_type, AnyFloat) else int(str(value), 0)
    except ValueError:
        raise PtoError.at_op(function, f"argument {index} (%{name}: {arg_type}): '{value}' is not a number of its type") from None


def _pointer_extent(function: func.FuncOp, index: int, values: Mapping[SSAValue, int | float]) -> int:
    """Elements a pointer argument needs: the furthest element any view of it reaches (none
    for an argument the kernel never uses)."""
    name = argument_name(function, index)
    if not function.args[index].uses:
        return 0  # never read or written: an empty array
    views = [u.operation for u in function.args[index].uses if isinstance(u.operation, MakeTensorViewOp)]
    if not views:
        raise PtoError.at_op(
            function, f"argument {index} (%{name}): no pto.make_tensor_view of it tells its size; give arrays instead"
        )
    extent = 0
    for view in views:
        shape = [_evaluate(d, values, view, name) for d in view.shape]
        strides = [_evaluate(s, values, view, name) for s in view.strides]
        if min(shape, default=1) <= 0:
            raise PtoError.at_op(view, f"the view of %{name} has shape {shape}: nothing to draw")
        extent = max(extent, view_extent(shape, strides))
    return extent


def _evaluate(value: SSAValue, values: Mapping[SSAValue, int | float], where, name: str) -> int:  # noqa: ANN001
    """An index computed from constants and given scalar arguments."""
    if value in values:
        return int(values[value])
    if isinstance(value, OpResult):
        op = value.op
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
            return op.value.value.data
        if isinstance(op, _CASTS):
            return _evaluate(op.operands[0], values, where, name)
        if (compute := _INTEGER_OPS.get(type(op))) is not None:
            return compute(*(_evaluate(v, values, where, name) for v in op.operands))
    if isinstance(value, BlockArgument) and value.name_hint and isinstance(value.owner.parent_op(), func.FuncOp):
        hint = f": give it (pto-run: --arg {value.name_hint}=VALUE)"
    else:
        hint = ": it is computed at run time"
    raise PtoError.at_op(where, f"cannot size %{name} for random inputs: a view dimension depends on %{value.name_hint or '?'}{hint}")


def _index_bound(function: func.FuncOp, arg: SSAValue, values: Mapping[SSAValue, int | float]) -> int | None:
    """The fewest entries among the tables the argument's data indexes, or None when it indexes
    none: through its views and the tiles it is loaded into (and their subviews and reshapes), to
    the index operand of a gather or scatter; through pto.load_scalar (and index casts, min/max clamps) to the offset of another
    scalar access or of a partition_view."""
    from pto_dialect.instructions.transfer import TLoadOp

    bounds: list[int] = []
    seen: set[SSAValue] = set()
    pending = [arg]
    while pending:
        value = pending.pop()
        if value in seen:
            continue
        seen.add(value)
        for use in value.uses:
            user = use.operation
            if isinstance(user, MakeTensorViewOp | PartitionViewOp) and use.index == 0:
                pending.append(user.results[0])
            elif isinstance(user, TLoadOp) and user.role("src") is value:
                if (dst := user.role("dst")) is not None:
                    pending.append(dst)
            elif isinstance(user, SubViewOp | TReshapeOp) and user.source is value:
                pending.append(user.results[0])  # the same tile's data, seen as another tile
            elif isinstance(user, LoadScalarOp) and user.ptr is value:
                pending.append(user.value)
            elif isinstance(user, (*_CASTS, *_CLAMPS)) and not isinstance(value.type, PtrType):
                pending.append(user.results[0])
            elif (entries := _offset_bound(function, user, use.index, values)) is not None:
                bounds.append(entries)
    return min(bounds, default=None)


def _offset_bound(function: func.FuncOp, user: Operation, index: int, values: Mapping[SSAValue, int | float]) -> int | None:
    """How many values operand `index` of `user` may take as an index into a table."""
    if (index_entries := getattr(user, "index_entries", None)) is not None:
        return index_entries(user.operands[index])
    if isinstance(user, LoadScalarOp | StoreScalarOp) and user.offset is user.operands[index]:
        ptr = user.ptr
        if isinstance(ptr, BlockArgument) and ptr.owner is function.body.block:
            return _pointer_extent(function, ptr.index, values)
        return None
    if isinstance(user, PartitionViewOp):
        rank = len(user.offsets)
        dim = index - 1
        if 0 <= dim < rank and isinstance(source := user.source.owner, MakeTensorViewOp):
            try:
                whole = _evaluate(source.shape[dim], values, user, "the table")
                size = _evaluate(user.sizes[dim], values, user, "the table")
            except PtoError:
                return None
            return max(whole - size + 1, 0)
    return None
