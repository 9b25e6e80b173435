"""
Random inputs for a kernel: one array per argument of its entry function, sized from the
signature and from the tensor views the kernel makes of each pointer.

    arrays = random_inputs(module, seed=7, scalars={"n": 64})

- `!pto.ptr<T>`: a flat array long enough for every `pto.make_tensor_view` of it (the view's
  last element, from its shape and strides, evaluated from constants and the scalar arguments),
  and for every `load_scalar` / `store_scalar` offset into it that constants, scalar arguments
  and loop bounds fix.
- `!pto.partition_tensor_view<...>`, `!pto.tile_buf<...>`: the type's (static) shape.
- scalars: the value given in `scalars` (by argument name or position); a float scalar not
  given is drawn; an integer or index scalar not given is drawn where it only serves as an offset
  or index (as the arrays below), else it must be given (it sizes something: a view, or a tile's
  valid row or column count, which the tiles it meets in elementwise ops may need whole).
- values: floats uniform in [-1, 1) (rounded to the element type); integers uniform in
  [-100, 100] clipped to the type; i1 either way. An array of more than POOL_ELEMENTS repeats a
  drawn pool of that many. An integer array whose elements become an
  offset or an index (of a gather or scatter, a scalar access, a partition, a subview, a
  tgetval / tsetval), directly or through arithmetic, tiles and loops, is drawn where every such
  offset stays inside what it indexes (interpreter/value_ranges.py: the widest such range
  from the smallest non-negative value; clamps the kernel applies are not counted on where it
  can be done without them); with `indices="wide"` in a range as wide again on each side, to
  exercise the out-of-range modes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Literal

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerType, i1
from xdsl.ir import Attribute, BlockArgument, OpResult, SSAValue

from pto_dialect.diagnostics import PtoError
from pto_dialect.dtypes import element_info
from interpreter.value_ranges import Interval, ValueRanges, fit_draws, integer_cap, sinks, table_of
from pto_dialect.ops import LoadScalarOp, MakeTensorViewOp, StoreScalarOp
from pto_dialect.ops.scalar import view_extent
from pto_dialect.types import PartitionTensorViewType, PtrType, TileBufType

IndexDraw = Literal["table", "wide"]
INDEX_DRAWS: tuple[IndexDraw, ...] = ("table", "wide")
INTEGER_SPAN = 100
"""Integers are drawn in [-INTEGER_SPAN, INTEGER_SPAN] (clipped to the type)."""
POOL_ELEMENTS = 1_048_573
"""An array of more elements than this (a prime: a row of any length below it never repeats
another) repeats a drawn pool of this many: PyPTO's tables reach 2**29 elements, which would
take minutes and gigabytes to draw one by one."""



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
    extents = _pointer_extents(function, values)
    draws = _index_draws(function, values, extents)
    granules = _index_granules(function, values)
    arrays = []
    for i, arg in enumerate(function.args):
        arg_type = arg.type
        if arg in values:
            arrays.append(np.array(values[arg], dtype=_scalar_numpy(arg_type)))
            continue
        if isinstance(arg_type, PtrType):
            shape: tuple[int, ...] = (extents[arg],)
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
        elif arg in draws:  # an integer scalar some offset depends on, and no size
            low, high = draws[arg]
            arrays.append(np.array(rng.integers(low, high + 1), dtype=_scalar_numpy(arg_type)))
            continue
        else:
            raise PtoError.at_op(
                function,
                f"argument {i} (%{names[i]}: {arg_type}) is an integer scalar: give its value "
                f"(pto-run: --arg {names[i]}=VALUE)",
            )
        if arg in draws:
            low, high = draws[arg]
            if indices == "wide":
                low, high = low - (high - low + 1), high + (high - low + 1)
            info = np.iinfo(element.numpy)
            low, high, granule = max(low, info.min), min(high, info.max), granules.get(arg, 1)
            if -(-low // granule) <= high // granule:  # multiples of the granule, where the range holds one
                low, high = -(-low // granule), high // granule
            else:
                granule = 1
            arrays.append((rng.integers(low, high + 1, shape) * granule).astype(element.numpy))
        else:
            arrays.append(_draw(rng, element.numpy, element.family == "hif8", shape))
    return arrays


def _draw(rng: np.random.Generator, dtype: np.dtype, hif8: bool, shape: tuple[int, ...]) -> np.ndarray:
    size = math.prod(shape)
    if size > POOL_ELEMENTS:  # a PyPTO weight or embedding table: the pool repeated
        return np.resize(_draw(rng, dtype, hif8, (POOL_ELEMENTS,)), size).reshape(shape)
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


def _pointer_extents(function: func.FuncOp, values: Mapping[SSAValue, int | float]) -> dict[BlockArgument, int]:
    """Elements each pointer argument needs: the furthest element any view of it reaches; for a
    pointer without views, the furthest `load_scalar` / `store_scalar` offset (none for an
    argument the kernel never uses)."""
    extents: dict[BlockArgument, int] = {}
    for index, arg in enumerate(function.args):
        if not isinstance(arg.type, PtrType):
            continue
        name = argument_name(function, index)
        views = [u.operation for u in arg.uses if isinstance(u.operation, MakeTensorViewOp)]
        extent = 0
        for view in views:
            shape = [_evaluate(d, values, view, name) for d in view.shape]
            strides = [_evaluate(s, values, view, name) for s in view.strides]
            if min(shape, default=1) <= 0:
                raise PtoError.at_op(view, f"the view of %{name} has shape {shape}: nothing to draw")
            extent = max(extent, view_extent(shape, strides))
        extents[arg] = max(extent, _scalar_access_extent(function, index, values, bool(views)))
    return extents


def _scalar_access_extent(function: func.FuncOp, index: int, values: Mapping[SSAValue, int | float], viewed: bool) -> int:
    """One past the largest `load_scalar` / `store_scalar` offset into a pointer that constants,
    given scalars and loop bounds fix (PyPTO reads a whole table through a view sized by a
    scalar argument). Every other use of a pointer without views is a located error."""
    arg, name = function.args[index], argument_name(function, index)
    ranges = ValueRanges(values, {})
    extent = 0
    for use in arg.uses:
        user = use.operation
        offset = ranges.of(user.offset) if isinstance(user, LoadScalarOp | StoreScalarOp) and user.ptr is arg else None
        if offset is not None and not ranges.depends_on(user.offset):  # pyright: ignore[reportAttributeAccessIssue]
            extent = max(extent, offset[1] + 1)
        elif not viewed:
            raise PtoError.at_op(
                user, f"cannot size %{name} for random inputs: no pto.make_tensor_view of it, and this use does not "
                "tell how far it reaches; give arrays instead"
            )
    return extent


def _evaluate(value: SSAValue, values: Mapping[SSAValue, int | float], where, name: str) -> int:  # noqa: ANN001
    """An index computed from constants and given scalar arguments."""
    ranges = ValueRanges(values, {})
    interval = ranges.of(value)
    if interval is not None and interval[0] == interval[1]:
        return interval[0]
    while isinstance(value, OpResult):  # down to what it depends on that is not fixed
        unfixed = [v for v in value.op.operands if (r := ranges.of(v)) is None or r[0] != r[1]]
        if not unfixed:
            break
        value = unfixed[0]
    if isinstance(value, BlockArgument) and value.name_hint and isinstance(value.owner.parent_op(), func.FuncOp):
        hint = f": give it (pto-run: --arg {value.name_hint}=VALUE)"
    else:
        hint = ": it is computed at run time"
    raise PtoError.at_op(where, f"cannot size %{name} for random inputs: a view dimension depends on %{value.name_hint or '?'}{hint}")


def _index_granules(function: func.FuncOp, values: Mapping[SSAValue, int | float]) -> dict[BlockArgument, int]:
    """The multiple each drawn index array's elements are, where an op reads them as aligned offsets
    (its `index_granule`: TGATHERB's byte offsets of 32-byte blocks)."""
    ranges = ValueRanges(values, {})
    granules: dict[BlockArgument, int] = {}
    for op in function.walk():
        if (granule_of := getattr(op, "index_granule", None)) is None:
            continue
        for operand in op.operands:
            if (granule := granule_of(operand)) is not None:
                table = table_of(operand)
                for arg in {table} if table is not None else ranges.depends_on(operand):
                    granules[arg] = math.lcm(granules.get(arg, 1), granule)
    return granules


def _index_draws(
    function: func.FuncOp, values: Mapping[SSAValue, int | float], extents: Mapping[BlockArgument, int]
) -> dict[BlockArgument, Interval]:
    """The range of each integer array whose elements become offsets or indices
    (interpreter/value_ranges.py); an array none depends on is left out."""
    defaults: dict[BlockArgument, Interval] = {}
    caps: dict[BlockArgument, int] = {}
    for arg in function.args:
        element = getattr(arg.type, "element", None)
        if isinstance(arg.type, IndexType | IntegerType) and arg.type != i1:
            dtype = _scalar_numpy(arg.type)
        elif element is not None:
            dtype = np.dtype(element.numpy)
        else:
            continue
        if arg in values or dtype.kind not in "iu":
            continue
        info = np.iinfo(dtype)
        defaults[arg] = (max(-INTEGER_SPAN, int(info.min)), min(INTEGER_SPAN, int(info.max)))
        caps[arg] = integer_cap(dtype)
    for length in _length_scalars(function, values, defaults, extents):
        del defaults[length], caps[length]
    fitted = fit_draws(function, values, defaults, caps, extents)
    return {arg: interval for arg, interval in fitted.items() if interval != defaults[arg]}


def _length_scalars(
    function: func.FuncOp, values: Mapping[SSAValue, int | float], defaults: Mapping[BlockArgument, Interval],
    extents: Mapping[BlockArgument, int],
) -> set[BlockArgument]:
    """The integer scalar arguments a valid row or column count depends on: lengths the caller
    gives (PyPTO's row count of the last block), not offsets to draw. A loop bound is not one: a
    drawn trip count is fitted to the views the loop walks (PyPTO's block counts)."""
    ranges = ValueRanges(values, defaults)
    found = {arg for sink in sinks(function, ranges, extents) if sink.length for arg in ranges.depends_on(sink.value)}
    return {arg for arg in found if isinstance(arg.type, IndexType | IntegerType)}
