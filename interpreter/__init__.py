"""
Run PTO kernels on NumPy arrays with a target's exact semantics.

    results = interpreter.run("kernel.pto", target="a5", args=[table, ids, out])
    report = interpreter.compare("kernel.pto", targets="all", args=[table, ids, out])

The module is verified for the target, lowered (`pto-lower{target=T}`) on a
copy, and interpreted with xDSL's interpreter: xDSL's own functions for func,
arith and scf (the last two with faster loops and index math, interpreter/loops.py),
ours for the pto scaffolding and for the target dialect.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import update_wrapper
from pathlib import Path
from typing import TYPE_CHECKING, ParamSpec
from weakref import WeakKeyDictionary

import numpy as np
from numpy.typing import ArrayLike

import pto_dialect.xdsl_interpreter  # noqa: F401 (before xDSL's interpreter: runs no program)
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import DYNAMIC_INDEX, AnyFloat, Float64Type, IndexType, IntegerType, ModuleOp, Signedness
from xdsl.ir import Operation, SSAValue
from xdsl.interpreter import Interpreter, InterpreterFunctions, OpImplResult, PythonValues
from xdsl.interpreter import _InterpreterFunctionImpls  # pyright: ignore[reportPrivateUsage]
from xdsl.interpreters.func import FuncFunctions
from xdsl.utils.exceptions import InterpretationError
from pto_dialect.walk import clone, walk

import pto_dialect
from pto_dialect.diagnostics import PtoError, op_location
from pto_dialect.parser import recursion_limit
from pto_dialect.dtypes import element_info
from pto_dialect.ops import LoadScalarOp, MakeTensorViewOp, PartitionViewOp
from pto_dialect.types import PartitionTensorViewType, PtrType, TileBufType

from interpreter.loops import IndexArithFunctions, LoopFunctions
from interpreter.lowered import instruction_functions, kernel_functions, reads_only
from pto_dialect.machine import GmView, Tile, private_storage
from interpreter.inputs import IndexDraw, parse_inputs_spec, random_inputs
from interpreter.pto import PtoFunctions
from interpreter.state import GmWrites, RunState, located_failure, set_run_state
import targets

if TYPE_CHECKING:
    from interpreter.profile import Profiler
    from passes.sync_check import SyncReport

CALL_DEPTH_FRAMES = 16000
"""Python's recursion limit while a kernel runs (interpreted calls and regions recurse in Python)."""

FRAMES_PER_NESTING = 8
"""The Python frames one nested region (an scf.for body, a section) takes while it runs."""


def lower_for(module: ModuleOp, target: str | targets.TargetInfo) -> ModuleOp:
    """A copy of `module` through `pto-pipeline{target}` (verify, SSA -> DPS, implicit
    tmps, memory plan, lowering); the input is not changed."""
    from passes.pipeline import PipelinePass

    lowered = clone(module)
    PipelinePass(targets.get(target).name).apply(Context(), lowered)
    return lowered


LOWERED_KEPT = 16
"""Lowered modules `run` keeps, most recently used first (each with the source it came from)."""

_lowered: OrderedDict[tuple[int, str], tuple[ModuleOp, list[tuple[object, ...]], ModuleOp]] = OrderedDict()


def _lowered_for_run(module: ModuleOp, target: targets.TargetInfo) -> ModuleOp:
    """lower_for(module, target), reused while `module` is unchanged: a kernel run again and
    again (each call of a user's loop) is lowered once. The source is kept with a snapshot of it
    as it was lowered; a module changed since (any op, attribute or type) is lowered again."""
    key = (id(module), target.name)
    kept = _lowered.get(key)
    if kept is not None and kept[0] is module and _snapshot(module) == kept[1]:
        _lowered.move_to_end(key)
        return kept[2]
    lowered = lower_for(module, target)
    _lowered[key] = (module, _snapshot(module), lowered)
    _lowered.move_to_end(key)
    while len(_lowered) > LOWERED_KEPT:
        _lowered.popitem(last=False)
    return lowered


def _snapshot(module: ModuleOp) -> list[tuple[object, ...]]:
    """`module` as far as lowering reads it, for telling whether it changed: each op in walk order
    with its properties, attributes, operands, successors and result types, and its regions'
    blocks with their argument types. Ops, blocks and values compare by identity (xDSL's), so two
    snapshots are equal only while the same ops sit in the same places, the same values flow
    between them and every attribute and type is equal."""
    return [
        (
            op, dict(op.properties), dict(op.attributes), tuple(op.operands), tuple(op.successors), op.result_types,
            tuple(tuple((block, block.arg_types) for block in region.blocks) for region in op.regions),
        )
        for op in walk(module)
    ]


def entry_function(module: ModuleOp, entry: str | None) -> func.FuncOp:
    functions = [op for op in walk(module) if isinstance(op, func.FuncOp)]
    where = module if op_location(module) else next(iter(module.ops), module)
    if entry is not None:
        for f in functions:
            if f.sym_name.data == entry:
                if not f.body.blocks:
                    raise PtoError.at_op(f, f"@{entry} is a declaration: it has no body to run")
                return f
        raise PtoError.at_op(where, f"no function named '{entry}' in the module", name="builtin.module")
    public = [f for f in functions if f.sym_visibility is None or f.sym_visibility.data == "public"]
    public = [f for f in public if f.body.blocks]
    if len(public) != 1:
        names = ", ".join(f.sym_name.data for f in public) or "none"
        raise PtoError.at_op(
            where,
            f"expected exactly one public function to run (found: {names}); use --entry",
            name="builtin.module",
        )
    return public[0]


class _UncaughtImpls(_InterpreterFunctionImpls):
    """xDSL's table of op implementations, run without its catch-all, which prints the whole
    module into each exception at every op the exception passes (an error 1,000 loops deep
    printed the module 1,000 times): LocatingInterpreter locates the error instead."""

    def run(self, interpreter: Interpreter, op: Operation, args: tuple[object, ...]) -> OpImplResult:
        found = self._impl_dict.get(type(op))
        if found is None:
            raise InterpretationError(f"Could not find interpretation function for op {op.name}")
        functions, impl = found
        return impl(functions, interpreter, op, args)


@dataclass
class LocatingInterpreter(Interpreter):
    """xDSL's interpreter, reporting any failure while running an op as a located error at
    that op (the innermost one: an outer op passes the error on)."""

    _impls: _InterpreterFunctionImpls = field(default_factory=_UncaughtImpls)

    def _run_op(self, op: Operation, inputs: PythonValues) -> OpImplResult:
        try:
            return super()._run_op(op, inputs)
        except Exception as e:
            raise located_failure(op, e) from e


def bind_argument(function: func.FuncOp, index: int, arg_type, array: np.ndarray, source: str | None = None):
    """The runtime value for an argument, checking the array against the argument's type;
    an error names the argument (`%table`) and, given, where its array came from (a file)."""
    def fail(what: str) -> PtoError:
        hint = function.args[index].name_hint
        name = f"%{hint}" if hint else f"%arg{index}"
        origin = f", from {source}" if source is not None else ""
        return PtoError.at_op(function, f"argument {index} ({name}: {arg_type}{origin}): {what}")

    if isinstance(arg_type, PtrType):
        want = arg_type.element.numpy
        if array.dtype != want:
            raise fail(f"expected an array of dtype {want}, got {array.dtype}")
        return array.reshape(-1)
    if isinstance(arg_type, PartitionTensorViewType | TileBufType):
        want = arg_type.element.numpy
        shape = arg_type.shape
        if array.dtype != want:
            raise fail(f"expected an array of dtype {want}, got {array.dtype}")
        if tuple(array.shape) != tuple(shape) or -1 in shape:
            raise fail(f"expected an array of shape {list(shape)}, got {list(array.shape)}")
        if isinstance(arg_type, TileBufType):
            # a dynamic valid dim of an argument tile is the whole dim: the array fills it
            (rows, cols), (valid_rows, valid_cols) = shape, arg_type.valid_shape
            valid = (rows if valid_rows == DYNAMIC_INDEX else valid_rows, cols if valid_cols == DYNAMIC_INDEX else valid_cols)
            tile = Tile.over(arg_type, private_storage(array.size, want), valid)
            tile.write(*arg_type.shape, array)
            return tile
        strides = tuple(int(np.prod(shape[i + 1 :])) for i in range(len(shape)))
        return GmView(array.reshape(-1), 0, tuple(shape), strides)
    if isinstance(arg_type, IndexType | IntegerType | AnyFloat) or element_info(arg_type) is not None:
        return _scalar(arg_type, array, fail)
    raise fail("this argument type cannot be bound from an array")


def _scalar(arg_type, array: np.ndarray, fail: Callable[[str], PtoError]) -> int | float | bool:
    """A 0-d array as a scalar argument: an integer for index and integer types (a bool for
    i1), a number of the argument's type for float types."""
    if array.shape != ():
        raise fail(f"expected a scalar (a 0-d array), got an array of shape {list(array.shape)}")
    want = _scalar_dtype(arg_type)
    if isinstance(arg_type, IndexType | IntegerType):
        if array.dtype.kind not in ("iub" if want == np.bool_ else "iu"):
            raise fail(f"expected an integer scalar, got dtype {array.dtype}")
        value = int(array)
        bits = 8 * want.itemsize if want is not None and want != np.bool_ else None
        if bits is not None and not -(1 << (bits - 1)) <= value < (1 << bits):  # signed or unsigned bits
            raise fail(f"{value} does not fit {arg_type}")
        return bool(value) if want == np.bool_ else value
    if want is None or (array.dtype.kind not in "fiu" and array.dtype != want):
        raise fail(f"expected a {arg_type} scalar, got dtype {array.dtype}")
    return array.astype(want).item()


def _scalar_dtype(arg_type) -> np.dtype | None:
    """The NumPy type of a scalar argument type (None for index: any integer)."""
    if isinstance(arg_type, IntegerType) and arg_type.width.data == 1:
        return np.dtype(np.bool_)
    info = element_info(arg_type)
    if info is not None:
        return info.numpy
    if isinstance(arg_type, IntegerType):
        signed = arg_type.signedness.data != Signedness.UNSIGNED
        return np.dtype(f"{'i' if signed else 'u'}{arg_type.width.data // 8}")
    if isinstance(arg_type, Float64Type):
        return np.dtype(np.float64)
    return None


def _as_array(value: object, index: int) -> np.ndarray:
    try:
        return np.asarray(value)
    except ValueError as e:  # a ragged nested list
        raise PtoError(f"error: args[{index}] is not a rectangular array: {e}") from e


def declared_dtype(array: np.ndarray, arg_type) -> np.ndarray:
    """Raw void data of the element's size (what np.save / np.load make of ml_dtypes arrays:
    bf16 reads back as |V2) viewed as the declared element type."""
    element = getattr(arg_type, "element", None)
    want = element.numpy if element is not None else _scalar_dtype(arg_type)
    if array.dtype.type is np.void and array.dtype.fields is None and want is not None:
        if array.dtype.itemsize == want.itemsize:
            return array.view(want)
    return array


def run_with_results(
    module_or_path: ModuleOp | str | Path,
    target: str | targets.TargetInfo | None = None,
    args: Sequence[ArrayLike] = (),
    entry: str | None = None,
    listeners: Sequence[Interpreter.Listener] = (),
    batch_loops: bool = True,
    gm_writes: GmWrites | None = None,
    profiler: Profiler | None = None,
    sync_report: SyncReport | None = None,
    sources: Sequence[str] | None = None,
    inplace: bool = False,
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Run the module's public function (or `entry`) on `args` for `target` (default: the
    module's pto.target_arch, else a2a3); return every argument's final contents and the
    function's results (a tile as its Rows x Cols array, a scalar as a 0-d array of its type).

    With `batch_loops` (and no listener that must see every op of every iteration: one with
    `SEES_EVERY_OP = False`, such as pto-run's progress bar, does not count), an scf.for
    whose iterations are independent runs each body op once over all iterations
    (interpreter/batch.py); the results are the same, bit for bit.

    Raises PtoError (a located message) for a bad kernel, a bad argument or a run-time fault.
    The given module and arrays are not modified: an argument the kernel may write is copied,
    one it only reads (a gather's table) is returned as a read-only view of the input. With
    `inplace`, the kernel writes the given arrays themselves, as a C++ kernel writes its GM
    buffers (no copy: what a caller who allocates its outputs, or reuses them, wants); each one
    it may write must then be a writeable C-contiguous NumPy array of its declared dtype (else a
    PtoError before anything runs), and a run that faults leaves them as written up to the fault.

    With `gm_writes`, its `per_argument` gets, for each argument bound to GM, which of its
    elements the run stored to (flat; None for others).
    A `profiler` (interpreter/profile.py, for the same target) counts what runs; one drawing a
    timeline runs loops iteration by iteration, in program order. A `sync_report` gets what the
    sync checker (passes/sync_check.py) finds replaying the lowered kernel's pipes with this run's
    scalar arguments, every loop iteration with its index. `sources` names where each array
    came from (pto-run: its .npy file), for the errors binding it."""
    with recursion_limit(CALL_DEPTH_FRAMES):  # nested regions and calls recurse in Python
        if isinstance(args, (str, bytes, np.ndarray)) or not isinstance(args, Sequence):
            raise PtoError(
                f"error: run() takes args as a list or tuple with one array per function argument, got {type(args).__name__}"
            )
        module = module_or_path if isinstance(module_or_path, ModuleOp) else pto_dialect.load(module_or_path)
        try:
            t = targets.resolve(target, module)
        except targets.UnknownTarget as e:
            raise PtoError(f"error: {e}") from e
        lowered = _lowered_for_run(module, t)
        function, only_read = _entry_of(lowered, entry)
        if profiler is not None:  # an op without a cost model fails before anything runs
            for op in walk(lowered):
                profiler.check(op)
        arg_types = function.function_type.inputs.data
        if len(args) != len(arg_types):
            raise PtoError.at_op(function, f"takes {len(arg_types)} arguments, got {len(args)}")
        given = [declared_dtype(_as_array(a, i), ty) for i, (a, ty) in enumerate(zip(args, arg_types))]
        arrays = [
            _read_only_view(a) if read else _written(function, i, original, a, inplace)
            for i, (original, a, read) in enumerate(zip(args, given, only_read))
        ]
        values = [
            bind_argument(function, i, ty, a, sources[i] if sources is not None else None)
            for i, (ty, a) in enumerate(zip(arg_types, arrays))
        ]

        if profiler is not None:
            profiler.bind(function, values)
        if sync_report is not None:
            from passes.sync_check import check_sync

            found = check_sync(lowered, t, values, function, batch_loops)
            sync_report.errors += found.errors
            sync_report.warnings += found.warnings
        interpreter = LocatingInterpreter(lowered, listeners=tuple(listeners))
        kernels = kernel_functions(list(t.dialect.operations), t.dialect.name)
        register_level = tuple(f() for f in _register_level_functions())
        for functions in (FuncFunctions(), IndexArithFunctions(), LoopFunctions(), PtoFunctions(), instruction_functions()(), kernels(), *register_level):
            interpreter.register_implementations(functions)
        batch_loops = batch_loops and (profiler is None or profiler.timeline is None)
        set_run_state(interpreter, RunState(t, batch_loops, gm_writes=gm_writes, profiler=profiler))
        try:
            results = interpreter.call_op(function, tuple(values))
        except InterpretationError as e:
            raise PtoError.at_op(function, str(e)) from e
        except RecursionError as e:
            raise _too_deep(lowered, function) from e
        for i, value in enumerate(values):
            if isinstance(value, Tile) and arrays[i].flags.writeable:
                arrays[i][...] = value.values
        if gm_writes is not None:
            gm_writes.per_argument = [
                gm_writes.of(v.buffer if isinstance(v, GmView) else v) if isinstance(v, GmView | np.ndarray) else None
                for v in values
            ]
        result_types = function.function_type.outputs.data
        return arrays, [_result_array(r, ty) for r, ty in zip(results, result_types)]


_P = ParamSpec("_P")


def _arguments_only(run_both: Callable[_P, tuple[list[np.ndarray], list[np.ndarray]]]) -> Callable[_P, list[np.ndarray]]:
    def run(*args: _P.args, **kwargs: _P.kwargs) -> list[np.ndarray]:
        """`run_with_results` without the function's results: every argument's final contents
        (what a kernel that writes its outputs returns)."""
        return run_both(*args, **kwargs)[0]

    return update_wrapper(run, run_both, assigned=("__module__",))  # help() shows its parameters


run = _arguments_only(run_with_results)


def _too_deep(module: ModuleOp, function: func.FuncOp) -> PtoError:
    """What a run that went past Python's recursion limit reports: the deepest nest of regions
    (loops, ifs, sections inside each other) at its innermost op, when that nest alone takes
    half the frames; else the calls, which recurse with the frames of each callee's nest."""
    depth: dict[Operation, int] = {}
    deepest: Operation | None = None
    for op in walk(module):
        parent = op.parent_op()
        depth[op] = depth.get(parent, 0) + 1 if parent is not None and not isinstance(parent, ModuleOp | func.FuncOp) else 0
        if op.regions and not isinstance(op, ModuleOp | func.FuncOp) and (deepest is None or depth[op] > depth[deepest]):
            deepest = op
    levels = CALL_DEPTH_FRAMES // FRAMES_PER_NESTING
    if deepest is not None and (depth[deepest] + 1) * 2 > levels:
        nest: Counter[str] = Counter()
        around: Operation | None = deepest
        while around is not None and not isinstance(around, ModuleOp | func.FuncOp):
            nest[around.name] += 1
            around = around.parent_op()
        kinds = ", ".join(f"{n} {name}" for name, n in nest.most_common())
        return PtoError.at_op(
            deepest,
            f"is nested {depth[deepest] + 1} regions deep ({kinds}): deeper than the interpreter "
            f"can follow (about {levels} nested regions and calls in all)",
        )
    return PtoError.at_op(
        function,
        f"func.call nests deeper than the interpreter can follow (its {CALL_DEPTH_FRAMES} Python frames hold about "
        f"{levels} nested regions, fewer calls)",
    )


def _result_array(value: object, result_type) -> np.ndarray:
    if isinstance(value, Tile):  # a subview's tile may be wider than its type (the parent's row stride)
        rows, cols = result_type.shape
        return np.array(value.values[..., :rows, :cols], copy=True)
    return np.asarray(value, dtype=_scalar_dtype(result_type) or np.int64)


_ENTRIES: WeakKeyDictionary[ModuleOp, dict[str | None, tuple[func.FuncOp, tuple[bool, ...]]]] = WeakKeyDictionary()


def _entry_of(lowered: ModuleOp, entry: str | None) -> tuple[func.FuncOp, tuple[bool, ...]]:
    """entry_function(lowered, entry) and, for each of its arguments, whether the kernel only
    reads it: worked out once per lowered module (run keeps them, and never changes them)."""
    found = _ENTRIES.setdefault(lowered, {})
    if entry not in found:
        function = entry_function(lowered, entry)
        found[entry] = (function, tuple(_only_read(arg) for arg in function.args))
    return found[entry]


def _only_read(value: SSAValue) -> bool:
    """No op can write through `value`: each use is a tload's source or an instruction's
    input (not its workspace), or makes a view that is itself only read (of which it is the
    source: an offset, size or stride of a view is only read)."""
    for use in value.uses:
        user = use.operation
        if isinstance(user, MakeTensorViewOp | PartitionViewOp):
            if use.index == 0 and not _only_read(user.result):
                return False
        elif isinstance(user, LoadScalarOp):
            continue
        elif not reads_only(user, use.index):
            return False
    return True


def _written(function: func.FuncOp, index: int, original: object, array: np.ndarray, inplace: bool) -> np.ndarray:
    """The array the run writes for an argument the kernel may write: a copy of the caller's
    array, or with `inplace` the caller's array itself; `array` as it is when run made it (from
    a list or a number: nobody else holds it)."""
    if isinstance(original, list | tuple | int | float | np.generic):
        return np.asarray(array, order="C")
    if not inplace:
        return np.array(array, copy=True, order="C")
    if not (isinstance(original, np.ndarray) and array.flags.c_contiguous and array.flags.writeable):
        hint = function.args[index].name_hint
        raise PtoError.at_op(
            function, f"argument {index} (%{hint or f'arg{index}'}) is written by the kernel, and run(inplace=True) "
            f"writes it where it is: it must be a writeable C-contiguous NumPy array, got "
            f"{_described(original)} (give a copy made with np.ascontiguousarray, or run without inplace)"
        )
    return array


def _described(value: object) -> str:
    if not isinstance(value, np.ndarray):
        return f"a {type(value).__name__}"
    return "a read-only array" if not value.flags.writeable else "an array that is not C-contiguous"


def _read_only_view(array: np.ndarray) -> np.ndarray:
    """The input itself (C-contiguous), through a view that refuses writes."""
    view = np.asarray(array, order="C").view()
    view.flags.writeable = False
    return view


def draw_inputs(
    module_or_path: ModuleOp | str | Path,
    inputs: str = "random",
    entry: str | None = None,
    scalars: Mapping[str, object] | None = None,
    indices: IndexDraw = "table",
) -> list[np.ndarray]:
    """Arrays for every argument of the entry function, drawn as `inputs` says (`random` or
    `random:SEED`; interpreter/inputs.py): the same seed gives the same arrays."""
    module = module_or_path if isinstance(module_or_path, ModuleOp) else pto_dialect.load(module_or_path)
    return random_inputs(entry_function(module, entry), parse_inputs_spec(inputs), scalars, indices)


def _register_level_functions() -> tuple[type[InterpreterFunctions], ...]:
    """The register level's implementations, where its ops can be in the IR (only once declared:
    a run of tile-level IR has no use for them)."""
    if not pto_dialect.register_level_declared():
        return ()
    from interpreter.vpto import REGISTER_LEVEL_FUNCTIONS

    return REGISTER_LEVEL_FUNCTIONS


def __getattr__(name: str) -> object:
    """The profiler and the sync report, imported (with the cost model and the sync check) by
    the runs that ask for them."""
    if name == "Profiler":
        from interpreter.profile import Profiler

        return Profiler
    if name == "SyncReport":
        from passes.sync_check import SyncReport

        return SyncReport
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


from interpreter.compare import Report, compare, scratch_arguments  # noqa: E402 (compare runs `run`)

__all__ = [
    "GmWrites", "Profiler", "Report", "SyncReport", "compare", "declared_dtype", "draw_inputs", "entry_function",
    "lower_for", "run", "run_with_results", "scratch_arguments",
]
