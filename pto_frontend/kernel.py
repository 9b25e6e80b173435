"""
`@pto.kernel`: a Python function that builds a PTO kernel, and what users do with it.

    @pto.kernel                     # or @pto.kernel(target="a5", name="embed")
    def embed(table: pto.ptr(pto.f16), ids: pto.ptr(pto.i32), out: pto.ptr(pto.f16)): ...

    embed.to_pto(target="a5")                   # the .pto text, pto.target_arch set
    embed.run(table, ids, out, target="a5")     # every argument's array after the run
    embed.run_all(table, ids, out)              # {target: that list}
    embed.compare(table, ids, out)              # interpreter.compare's report

The function runs once, when the kernel is first needed, with builder values for its
arguments: each builder call appends an op located at the call (pto_frontend/trace.py).
Everything the verifier rejects, for the target asked for, is a PtoError starting with that
`FILE:LINE:COL`, then pto-opt's message. `run` checks each argument against its annotation
(dtype; size and shape against the tensor views made of a pointer) and names the parameter;
it never writes into the caller's arrays unless `inplace=True`.
"""

from __future__ import annotations

import ast
import functools
import inspect
import textwrap
from io import StringIO
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast, overload

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import FileLineColLoc, IndexType, IntAttr, IntegerAttr, IntegerType, ModuleOp, StringAttr, i64
from xdsl.ir import Attribute, BlockArgument
from xdsl.printer import Printer
from pto_dialect.walk import walk

import targets
from passes.memory_plan import DYN_UBUF_ATTR
from passes.verify_target import verify_target
from pto_dialect import load
from pto_dialect.diagnostics import PtoError, op_location
from pto_dialect.ops.memory import MakeTensorViewOp, constant_index
from pto_dialect.parser import RECURSION_LIMIT, recursion_limit, verify_located

from pto_frontend.trace import Trace, bind, checked_call, located, tracing
from pto_frontend.values import DType, Ptr, wrap

if TYPE_CHECKING:
    from interpreter.compare import Report

# The interpreter is imported by what runs a kernel (run, compare), not at import: building and
# printing a kernel do not use it, and it is half of `import pto_frontend`.


@dataclass(frozen=True)
class _ViewOfArgument:
    """A tensor view made of a pointer argument, with static dims and strides."""

    shape: tuple[int, ...]
    strides: tuple[int, ...]
    where: str

    @property
    def extent(self) -> int:
        """Elements from the pointer to the view's last element, inclusive."""
        return 1 + sum((d - 1) * s for d, s in zip(self.shape, self.strides))


class Kernel:
    """A PTO kernel built by a Python function (`@pto.kernel`)."""

    def __init__(
        self, function: Callable[..., Any], target: str | None = None, name: str | None = None, dyn_ubuf_size: int | None = None
    ):
        self.function = function
        self.name = name or function.__name__
        self.target = target
        """The target `to_pto` and `run` use when not told (None: targets.DEFAULT)."""
        self.dyn_ubuf_size = dyn_ubuf_size
        """The kernel's `pto.dyn_ubuf_size`: bytes of UB it declares for a SIMT launch (None: the target's default)."""
        self._module: ModuleOp | None = None
        functools.update_wrapper(cast(Any, self), function)  # a Kernel is not called: typeshed wants a callable

    def __repr__(self) -> str:
        return f"<pto kernel {self.name}>"

    def __call__(self, *_: object, **__: object) -> None:
        """A kernel runs on the interpreter (or becomes text), not as a Python call."""
        raise located(
            f"{self.name}() is a PTO kernel, not a Python function: run it with "
            f"{self.name}.run(*arrays, target=...), or print it with {self.name}.to_pto()"
        )

    # -- building ---------------------------------------------------------------------

    @functools.cached_property
    def parameters(self) -> dict[str, Ptr | DType]:
        """Each argument's annotation, by name."""
        annotations = {name: self._annotation(name, a) for name, a in inspect.get_annotations(self.function).items()}
        out: dict[str, Ptr | DType] = {}
        for name in inspect.signature(self.function).parameters:
            annotation = annotations.get(name)
            if not isinstance(annotation, Ptr) and not (isinstance(annotation, DType)):
                raise PtoError(
                    f"{self._where()}: error: kernel {self.name}: argument '{name}' needs a type: "
                    f"pto.ptr(dtype), pto.index or a scalar type (pto.i32, ...), got {annotation!r}"
                )
            out[name] = annotation
        return out

    def _annotation(self, name: str, annotation: object) -> object:
        """An argument's annotation; text (`from __future__ import annotations`) is evaluated
        in the kernel's module, and a failure located at the annotation, not in `<string>`."""
        if not isinstance(annotation, str):
            return annotation
        try:
            return eval(annotation, self.function.__globals__)  # noqa: S307 (the user's own annotation)
        except NameError as e:
            raise PtoError(
                f"{self._annotation_site(name)}: error: kernel {self.name}: its argument types name {e.name!r}, which is "
                "not a module-level name (with `from __future__ import annotations`, they are evaluated there)"
            ) from None
        except PtoError as e:
            raise PtoError(f"{self._annotation_site(name)}: error: {e.text.partition(': error: ')[2]}") from None
        except Exception as e:
            raise PtoError(
                f"{self._annotation_site(name)}: error: kernel {self.name}: the type of argument '{name}' ({annotation}) "
                f"failed: {type(e).__name__}: {e}"
            ) from None

    def _annotation_site(self, name: str) -> str:
        """`FILE:LINE:COL` of argument `name`'s annotation (else of the kernel's definition)."""
        try:
            lines, first = inspect.getsourcelines(self.function)
            indent = len(lines[0]) - len(lines[0].lstrip())
            tree = ast.parse(textwrap.dedent("".join(lines)))
        except (OSError, TypeError, SyntaxError):
            return self._where()
        definition = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)), None)
        arguments = [] if definition is None else [*definition.args.posonlyargs, *definition.args.args, *definition.args.kwonlyargs]
        for arg in arguments:
            if arg.arg == name and arg.annotation is not None:
                return f"{self.function.__code__.co_filename}:{first + arg.annotation.lineno - 1}:{indent + arg.annotation.col_offset + 1}"
        return self._where()

    @property
    def module(self) -> ModuleOp:
        """The kernel, built once and verified (structure; the target's rules come with a target)."""
        if self._module is None:
            self._module = self._build()
        return self._module

    def _location(self) -> FileLineColLoc:
        """Where the kernel's function is defined (its first decorator's line)."""
        code = self.function.__code__
        return FileLineColLoc(StringAttr(code.co_filename), IntAttr(code.co_firstlineno), IntAttr(1))

    def _where(self) -> str:
        loc = self._location()
        return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"

    def _build(self) -> ModuleOp:
        types: list[Attribute] = [p.attr for p in self.parameters.values()]
        function = func.FuncOp(self.name, (types, []))
        function.location = self._location()
        if self.dyn_ubuf_size is not None:
            function.attributes[DYN_UBUF_ATTR] = IntegerAttr(self.dyn_ubuf_size, i64)
        for arg, name in zip(function.args, self.parameters):
            arg.name_hint = name
        module = ModuleOp([function])
        module.location = self._location()
        with tracing(Trace(function.body.block, self.function.__code__)):
            result = self.function(*(wrap(a) for a in function.args))
        if result is not None:
            raise PtoError(f"{self._where()}: error: kernel {self.name} returns {result!r}: a kernel writes its results into its arguments")
        ret = func.ReturnOp()
        ret.location = self._location()
        function.body.block.add_op(ret)
        verify_located(module)
        return module

    @functools.cached_property
    def _views(self) -> dict[str, list[_ViewOfArgument]]:
        """The tensor views with static dims and strides made of each pointer argument, by its
        name (builds the kernel)."""
        function = self.module.body.block.first_op
        assert isinstance(function, func.FuncOp)
        names = list(self.parameters)
        views: dict[str, list[_ViewOfArgument]] = {}
        for op in walk(function):
            if isinstance(op, MakeTensorViewOp) and isinstance(op.ptr, BlockArgument) and op.ptr.block is function.body.block:
                dims = [constant_index(v) for v in (*op.shape, *op.strides)]
                if None not in dims:
                    rank = len(op.shape)
                    view = _ViewOfArgument(tuple(dims[:rank]), tuple(dims[rank:]), op_location(op) or "?")  # pyright: ignore[reportArgumentType]
                    views.setdefault(names[op.ptr.index], []).append(view)
        return views

    # -- using ------------------------------------------------------------------------

    def _target(self, target: str | None, call: str) -> targets.TargetInfo:
        try:
            return targets.get(_target_name(target, call) or self.target or targets.DEFAULT)
        except targets.UnknownTarget as e:  # the kernel's own (pto.kernel(target=...))
            raise located(f"{call}: {e}") from e

    @checked_call("kernel.to_pto()")
    def to_pto(self, target: str | None = None) -> str:
        """The kernel's `.pto` text, verified for `target`, with `pto.target_arch` set to it."""
        chosen = self._target(target, f"{self.name}.to_pto()")
        module = self.module.clone()
        module.attributes["pto.target_arch"] = StringAttr(chosen.name)
        verify_target(module, chosen)
        text = StringIO()
        Printer(stream=text).print_op(module)
        return text.getvalue() + "\n"

    @checked_call("kernel.run()")
    def run(self, *arrays: object, target: str | None = None, inplace: bool = False) -> list[np.ndarray]:
        """Run on `target`: every argument's contents after the run, as pto-run writes them
        (an argument the kernel only reads comes back as a read-only view of the one given).
        With `inplace=True` the results are also written into the arrays given."""
        import interpreter

        chosen = self._target(target, f"{self.name}.run()")
        given = self._arguments(arrays, "run")
        outputs = interpreter.run(self.module, chosen.name, given)
        if not inplace:
            return outputs
        return [self._write_back(name, a, out) for name, a, out in zip(self.parameters, arrays, outputs)]

    @checked_call("kernel.run_all()")
    def run_all(self, *arrays: object, targets: str | Sequence[str] = "all") -> dict[str, list[np.ndarray]]:
        """`run` on each target (`"all"`, `"cpu,a5"` or a list of names)."""
        return {t.name: self.run(*arrays, target=t.name) for t in _targets(targets, f"{self.name}.run_all()")}

    @checked_call("kernel.compare()")
    def compare(self, *arrays: object, targets: str | Sequence[str] = "all", profile: bool = False) -> Report:
        """interpreter.compare's report: verdicts, outputs and differences per target, and the
        first op whose writes differ (`report.text()` prints it); with `profile`, also what
        ran on each target (`report.profiles`)."""
        import interpreter

        names = [t.name for t in _targets(targets, f"{self.name}.compare()")]
        return interpreter.compare(self.module, names, self._arguments(arrays, "compare"), profile=profile)

    # -- arguments ----------------------------------------------------------------------

    def _arguments(self, arrays: Sequence[object], method: str) -> list[np.ndarray]:
        names = list(self.parameters)
        views = self._views  # the kernel built first, then its arguments checked against its views
        if len(arrays) != len(names):
            raise located(f"{self.name}.{method}() takes {len(names)} arrays ({', '.join(names)}), got {len(arrays)}")
        return [self._argument(f"{self.name}.{method}()", n, a, views.get(n, [])) for n, a in zip(names, arrays)]

    def _argument(self, call: str, name: str, value: object, views: list[_ViewOfArgument]) -> np.ndarray:
        annotation = self.parameters[name]
        what = f"{call}: argument '{name}' ({annotation!r})"
        if isinstance(annotation, DType):
            return _scalar(what, annotation, value)
        if not isinstance(value, np.ndarray) and not hasattr(value, "__array__"):
            raise located(f"{what}: expected a NumPy array (or an object with __array__), got {type(value).__name__}")
        from interpreter import declared_dtype

        array = declared_dtype(np.asarray(value), annotation.attr)  # raw data of the element's size: viewed as it
        want = annotation.attr.element.numpy
        if array.dtype != want:
            raise located(f"{what}: expected dtype {want}, got {array.dtype}")
        if views and array.ndim > 1 and tuple(array.shape) not in {v.shape for v in views}:
            shapes = " or ".join(str(list(v.shape)) for v in views)
            raise located(f"{what}: expected shape {shapes} (its tensor view) or a flat array, got {list(array.shape)}")
        if views and array.size < (widest := max(views, key=lambda v: v.extent)).extent:
            raise located(
                f"{what}: expected at least {widest.extent} elements (the tensor view of shape {list(widest.shape)} "
                f"and strides {list(widest.strides)} at {widest.where}), got {array.size}"
            )
        return array

    def _write_back(self, name: str, given: object, output: np.ndarray) -> np.ndarray:
        if not output.flags.writeable or isinstance(self.parameters[name], DType):  # only read
            return output
        if not isinstance(given, np.ndarray) or not given.flags.writeable:
            raise located(f"{self.name}.run(inplace=True): argument '{name}' is written by the kernel but is not a writable NumPy array")
        given.view(output.dtype)[...] = output.reshape(given.shape)
        return given


def _scalar(what: str, annotation: DType, value: object) -> np.ndarray:
    """A scalar argument as the 0-d array interpreter.run binds."""
    array = np.asarray(value) if isinstance(value, int | float | np.generic | np.ndarray) else None
    integral = isinstance(annotation.attr, IndexType | IntegerType)
    if array is None or array.shape != () or array.dtype.kind not in ("iu" if integral else "iuf"):
        kind = "a Python int or a 0-d integer array" if integral else "a Python number or a 0-d array"
        raise located(f"{what}: expected {kind}, got {value!r}")
    return array


def _targets(chosen: str | Sequence[str], call: str) -> tuple[targets.TargetInfo, ...]:
    if not isinstance(chosen, str) and not (isinstance(chosen, Sequence) and all(isinstance(t, str) for t in chosen)):
        raise located(f"{call}: targets takes \"all\", a comma-separated str or a list of target names, got {chosen!r}")
    try:
        return targets.parse_list(chosen)
    except targets.UnknownTarget as e:
        raise located(f"{call}: {e}") from e


def _target_name(target: object, call: str) -> str | None:
    """`target` as `call` was given it: None, or a known target's name; anything else is a
    PtoError at the caller's line."""
    if target is None:
        return None
    if not isinstance(target, str):
        raise located(f"{call}: target takes a target name (a str: {', '.join(targets.names())}), got {target!r}")
    try:
        return targets.get(target).name
    except targets.UnknownTarget as e:
        raise located(f"{call}: {e}") from e


def _kernel_options(call: str, options: dict[str, Any], accepted: tuple[str, ...]) -> dict[str, Any]:
    """The options of `pto.run` or `pto.compare` that the kernel's own method takes; any other
    (`entry`: a kernel has one function) is refused by name."""
    for name in options:
        if name not in accepted:
            raise located(f"pto.{call}() of a kernel takes no option '{name}' (a kernel's: {', '.join(accepted)})")
    return options


@overload
def kernel(
    function: Callable[..., Any], *, target: str | None = None, name: str | None = None, dyn_ubuf_size: int | None = None
) -> Kernel: ...
@overload
def kernel(
    function: None = None, *, target: str | None = None, name: str | None = None, dyn_ubuf_size: int | None = None
) -> Callable[[Callable[..., Any]], Kernel]: ...
@checked_call("pto.kernel()")
def kernel(
    function: Callable[..., Any] | None = None, *, target: str | None = None, name: str | None = None,
    dyn_ubuf_size: int | None = None,
) -> Kernel | Callable[[Callable[..., Any]], Kernel]:
    """`@pto.kernel` or `@pto.kernel(target="a5", name="k", dyn_ubuf_size=...)`: the function
    builds a PTO kernel; `dyn_ubuf_size` is its `pto.dyn_ubuf_size`, the bytes of UB a kernel
    with a SIMT launch declares (a5)."""
    if function is not None and not callable(function):
        raise located(f"pto.kernel() decorates a function, got {function!r}")
    if target is not None and not isinstance(target, str):
        raise located(f"pto.kernel(): target takes a target name (a str: {', '.join(targets.names())}), got {target!r}")
    if name is not None and not isinstance(name, str):
        raise located(f"pto.kernel(): name takes a str, got {name!r}")
    if dyn_ubuf_size is not None and (isinstance(dyn_ubuf_size, bool) or not isinstance(dyn_ubuf_size, int) or dyn_ubuf_size < 0):
        raise located(f"pto.kernel(): dyn_ubuf_size takes a non-negative int (bytes), got {dyn_ubuf_size!r}")
    if function is None:
        return lambda f: Kernel(f, target, name, dyn_ubuf_size)
    return Kernel(function, target, name, dyn_ubuf_size)


COST_MODELS = targets.COST_MODELS
"""The cost models `estimate` takes: pto-isa's own, or the target's calibrated one (docs/cost.md)."""


@checked_call("pto.estimate()")
def estimate(
    kernel_or_module: Kernel | ModuleOp | str | Path, target: str | None = None, cost_model: str = "pto-isa",
    cores: int | None = None,
) -> dict[str, Any]:
    """The cost estimate of a kernel (or a `.pto` file or module) on `target`: what
    `pto-opt --estimate=json [--cost-model M] [--cores N]` prints, as a dict (ops with their pipe,
    bytes, cycles and count; serial and bound cycles; the calibrated model's cores)."""
    with recursion_limit(RECURSION_LIMIT):  # xDSL clones and verifies nested regions recursively
        return _estimate(kernel_or_module, target, cost_model, cores)


def _estimate(kernel_or_module: object, target: str | None, cost_model: str, cores: int | None) -> dict[str, Any]:
    if cost_model not in COST_MODELS:
        raise located(f"pto.estimate(): cost_model takes {', '.join(map(repr, COST_MODELS))}, got {cost_model!r}")
    if cores is not None and (isinstance(cores, bool) or not isinstance(cores, int)):
        raise located(f"pto.estimate(): cores takes an int (cores transferring at once) or None, got {cores!r}")
    if isinstance(kernel_or_module, Kernel):
        chosen = kernel_or_module._target(target, "pto.estimate()")  # pyright: ignore[reportPrivateUsage]
        module = kernel_or_module.module.clone()
        module.attributes["pto.target_arch"] = StringAttr(chosen.name)
        verify_target(module, chosen)
        return _priced(module, chosen, cost_model, cores)
    if isinstance(kernel_or_module, str | Path):
        module = load(kernel_or_module)
    elif isinstance(kernel_or_module, ModuleOp):
        module = kernel_or_module
    else:
        raise located(f"pto.estimate() takes a kernel, a .pto file's path or a module, got {kernel_or_module!r}")
    try:
        chosen = targets.resolve(_target_name(target, "pto.estimate()"), module)
    except targets.UnknownTarget as e:  # the module's own pto.target_arch
        raise located(f"pto.estimate(): {e}") from e
    verify_target(module, chosen)
    return _priced(module, chosen, cost_model, cores)


def _priced(module: ModuleOp, target: targets.TargetInfo, cost_model: str, cores: int | None) -> dict[str, Any]:
    """The estimate's JSON; the cost model's refusal (no calibrated model, cores without one) at the call."""
    from passes.estimate import cost_machine, estimate as estimate_module

    try:
        cost_machine(target, cost_model, cores)
    except PtoError as e:
        raise located(f"pto.estimate(): {e.message}") from None
    return estimate_module(module, target, cost_model, cores).json()


@checked_call("pto.run()")
def run(
    kernel_or_module: Kernel | ModuleOp | str | Path, target: str | None = None, args: Sequence[object] = (),
    inputs: str | None = None, scalars: Mapping[str, object] | None = None, **options: Any,  # noqa: ANN401
) -> list[np.ndarray]:
    """interpreter.run for a `.pto` file or module; `kernel.run(*args, target=...)` for a kernel.
    `inputs="random"` (or `"random:SEED"`) draws the arguments instead of `args` (interpreter/inputs.py;
    `scalars` gives integer scalar arguments by name): `run(..., inputs=...)[i]` is argument i after
    the run, `draw_inputs(...)` the arrays drawn."""
    if inputs is not None:
        if args:
            raise located("run() takes either args or inputs=, not both")
        args = _drawn(kernel_or_module, inputs, scalars, "pto.run()")
    if isinstance(kernel_or_module, Kernel):
        return kernel_or_module.run(*args, target=target, **_kernel_options("run", options, ("inplace",)))
    import interpreter

    chosen = _target_name(target, "pto.run()")
    bind("pto.run()", inspect.signature(interpreter.run), (kernel_or_module, chosen, args), options)
    return interpreter.run(kernel_or_module, chosen, args, **options)  # pyright: ignore[reportArgumentType]


@checked_call("pto.draw_inputs()")
def draw_inputs(
    kernel_or_module: Kernel | ModuleOp | str | Path, inputs: str = "random", scalars: Mapping[str, object] | None = None,
) -> list[np.ndarray]:
    """The arrays `run(..., inputs=inputs, scalars=scalars)` runs on (the same seed, the same arrays)."""
    return _drawn(kernel_or_module, inputs, scalars, "pto.draw_inputs()")


def _drawn(
    kernel_or_module: Kernel | ModuleOp | str | Path, inputs: str, scalars: Mapping[str, object] | None, call: str,
) -> list[np.ndarray]:
    import interpreter

    if scalars is not None and not isinstance(scalars, Mapping):
        raise located(f"{call}: scalars takes a dict of scalar argument names and values, got {scalars!r}")
    module = kernel_or_module.module if isinstance(kernel_or_module, Kernel) else kernel_or_module
    return interpreter.draw_inputs(module, inputs, scalars=scalars)


@checked_call("pto.compare()")
def compare(kernel_or_module: Kernel | ModuleOp | str | Path, targets: str | Sequence[str] = "all", args: Sequence[object] = (), **options: Any) -> Report:  # noqa: ANN401
    """interpreter.compare for a `.pto` file or module; `kernel.compare(...)` for a kernel."""
    if isinstance(kernel_or_module, Kernel):
        return kernel_or_module.compare(*args, targets=targets, **_kernel_options("compare", options, ("profile",)))
    import interpreter

    names = [t.name for t in _targets(targets, "pto.compare()")]
    bind("pto.compare()", inspect.signature(interpreter.compare), (kernel_or_module, names, args), options)
    return interpreter.compare(kernel_or_module, names, args, **options)  # pyright: ignore[reportArgumentType]


__all__ = ["COST_MODELS", "Kernel", "compare", "draw_inputs", "estimate", "kernel", "run"]
