"""
Run PTO kernels on NumPy arrays with a target's exact semantics.

    results = interpreter.run("kernel.pto", target="a5", args=[table, ids, out])

The module is verified for the target, lowered (`pto-lower{target=T}`) on a
copy, and interpreted with xDSL's interpreter: xDSL's own functions for func,
arith and scf (the last two with faster loops and index math, interpreter/loops.py),
ours for the pto scaffolding and for the target dialect.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.interpreter import Interpreter, InterpretationError
from xdsl.interpreters.func import FuncFunctions

import pto_dialect
from pto_dialect.diagnostics import PtoError
from pto_dialect.ops import MakeTensorViewOp, PartitionViewOp, TLoadOp
from pto_dialect.targets import Target, module_target, normalize_target
from pto_dialect.types import PartitionTensorViewType, PtrType, TileBufType

from interpreter.loops import IndexArithFunctions, LoopFunctions
from interpreter.lowered import reads_only
from interpreter.memory import GmView, Tile
from interpreter.pto import PtoFunctions
from interpreter.state import RunState, set_run_state
from lowering.common import LoweredOp

TARGET_FUNCTIONS = {
    "cpu": ("interpreter.cpu", "CpuFunctions"),
    "a2a3": ("interpreter.a2a3", "A2A3Functions"),
    "a5": ("interpreter.a5", "A5Functions"),
}


def lower_for(module: ModuleOp, target: Target) -> ModuleOp:
    """A copy of `module` through `pto-pipeline{target}` (verify, SSA -> DPS, implicit
    tmps, memory plan, lowering); the input is not changed."""
    from passes.pipeline import PipelinePass

    lowered = module.clone()
    PipelinePass(target).apply(Context(), lowered)
    return lowered


def entry_function(module: ModuleOp, entry: str | None) -> func.FuncOp:
    functions = [op for op in module.walk() if isinstance(op, func.FuncOp)]
    if entry is not None:
        for f in functions:
            if f.sym_name.data == entry:
                return f
        raise PtoError(f"error: no function named '{entry}' in the module")
    public = [f for f in functions if f.sym_visibility is None or f.sym_visibility.data == "public"]
    public = [f for f in public if f.body.blocks]
    if len(public) != 1:
        names = ", ".join(f.sym_name.data for f in public) or "none"
        raise PtoError(f"error: expected exactly one public function to run (found: {names}); use --entry")
    return public[0]


def bind_argument(function: func.FuncOp, index: int, arg_type, array: np.ndarray):  # noqa: ANN001
    """The runtime value for an argument, checking the array against the argument's type."""
    def fail(what: str) -> PtoError:
        return PtoError.at_op(function, f"argument {index} ({arg_type}): {what}")

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
            tile = Tile.over(arg_type, np.zeros(array.size, want), arg_type.valid_shape)
            tile.write(*arg_type.shape, array)
            return tile
        strides = tuple(int(np.prod(shape[i + 1 :])) for i in range(len(shape)))
        return GmView(array.reshape(-1), 0, tuple(shape), strides)
    if isinstance(array, np.ndarray) and array.shape == ():
        return array.item()
    raise fail("this argument type cannot be bound from an array")


def run(
    module_or_path: ModuleOp | str | Path,
    target: str | None = None,
    args: Sequence[np.ndarray] = (),
    entry: str | None = None,
    listeners: Sequence[Interpreter.Listener] = (),
) -> list[np.ndarray]:
    """Run the module's public function (or `entry`) on `args` for `target` (default: the
    module's pto.target_arch, else a2a3); return every argument's final contents.

    Raises PtoError (a located message) for a bad kernel, a bad argument or a run-time fault.
    The given module and arrays are not modified: an argument the kernel may write is copied,
    one it only reads (a gather's table) is returned as a read-only view of the input.
    """
    module = module_or_path if isinstance(module_or_path, ModuleOp) else pto_dialect.load(module_or_path)
    t = normalize_target(target) if target is not None else module_target(module)
    lowered = lower_for(module, t)
    function = entry_function(lowered, entry)
    arg_types = function.function_type.inputs.data
    if len(args) != len(arg_types):
        raise PtoError.at_op(function, f"takes {len(arg_types)} arguments, got {len(args)}")
    arrays = [
        _read_only_view(a) if _only_read(arg) and not isinstance(ty, TileBufType) else np.array(a, copy=True, order="C")
        for a, arg, ty in zip(args, function.args, arg_types)
    ]
    values = [bind_argument(function, i, ty, a) for i, (ty, a) in enumerate(zip(arg_types, arrays))]

    interpreter = Interpreter(lowered, listeners=tuple(listeners))
    for functions in (FuncFunctions(), IndexArithFunctions(), LoopFunctions(), PtoFunctions(), _target_functions(t)):
        interpreter.register_implementations(functions)
    set_run_state(interpreter, RunState(t))
    try:
        interpreter.call_op(function, tuple(values))
    except InterpretationError as e:
        raise PtoError(f"error: {e}") from e
    for i, value in enumerate(values):
        if isinstance(value, Tile):
            arrays[i][...] = value.values
    return arrays


def _only_read(value: SSAValue) -> bool:
    """No op can write through `value`: each use is a tload's source or an instruction's
    input (not its workspace), or makes a view that is itself only read."""
    for use in value.uses:
        user = use.operation
        if isinstance(user, MakeTensorViewOp | PartitionViewOp):
            if not _only_read(user.result):
                return False
        elif isinstance(user, TLoadOp):
            if use.index != 0:
                return False
        elif not (isinstance(user, LoweredOp) and reads_only(user, use.index)):
            return False
    return True


def _read_only_view(array: np.ndarray) -> np.ndarray:
    """The input itself (C-contiguous), through a view that refuses writes."""
    view = np.asarray(array, order="C").view()
    view.flags.writeable = False
    return view


def _target_functions(target: Target):  # noqa: ANN202
    from importlib import import_module

    module, name = TARGET_FUNCTIONS[target]
    return getattr(import_module(module), name)()


__all__ = ["run", "lower_for"]
