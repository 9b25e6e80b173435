"""
The interpreter functions of every op that runs a kernel: the lowered ops of each target
dialect and the pto instructions that stay when lowered (tload, tstore). Each op class
names its kernel (`KERNEL`, in its instruction's module under pto_dialect/instructions/);
one runner calls it with the operands by role and the op's properties (each target
choice as its enum member), located at the op and named after its pto instruction.
Ops whose operand types leave a dimension dynamic first re-run the target's rules on the
actual shapes (the verifier's functions).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import NamedTuple, TypeVar, cast
from weakref import WeakKeyDictionary

from xdsl.dialects import scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, IntegerAttr, StringAttr
from xdsl.dialects.utils import EnumAttribute
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation

from pto_dialect.facts import UNKNOWN, RuleViolation, TileFacts, ViewFacts, inferred_layout, inferred_strides, static_facts
from pto_dialect.instructions import REGISTRY, instruction_of
from pto_dialect.lowered import LoweredOp, operand_roles
from pto_dialect.diagnostics import op_location
from pto_dialect.machine import GmView, RuntimeFault, Site, Tile
from pto_dialect.ops.common import PtoInstructionOp, writes, written_operands as operand_writes
from pto_dialect.types import ShapedViewBase, TileTypeBase
from targets.rules import check_instruction

from interpreter.state import fault_at, run_state

T = TypeVar("T")
_MISSING = object()


def _per_op(compute: Callable[[Operation], T]) -> Callable[[Operation], T]:
    """Memoise compute(op) while the op lives (each run lowers a fresh copy of the module,
    which an lru_cache would keep alive)."""
    cache: WeakKeyDictionary[Operation, T] = WeakKeyDictionary()

    def cached(op: Operation) -> T:
        value = cache.get(op, _MISSING)
        if value is _MISSING:
            value = cache[op] = compute(op)
        return value  # type: ignore[return-value]

    return cached


def runs_kernel(op: Operation | type[Operation]) -> bool:
    return getattr(op, "KERNEL", None) is not None


roles_of = _per_op(operand_roles)
"""operand_roles, worked out once per op (reading the operand groups costs ~10 us)."""


def _value(attr: Attribute) -> object:
    """A property as its kernel parameter: an enum member (a choice, a mode), an int, a str."""
    if isinstance(attr, EnumAttribute):
        return attr.data
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, DenseArrayBase):
        return tuple(attr.get_values())
    return attr


SITE = "site"
"""The keyword parameter of a kernel that reports where it runs (pto_dialect/machine.py Site):
given at each run, not read from the op."""


@_per_op
def kernel_params(op: Operation) -> dict[str, object]:
    """The kernel's keyword arguments, read once from the op: each keyword-only parameter of
    KERNEL is the op's property (or attribute) of that name, but `site` (None here, given at
    each run); a class may add its own (`kernel_params`)."""
    kernel = type(op).KERNEL  # pyright: ignore[reportAttributeAccessIssue]
    own = getattr(type(op), "kernel_params", None)
    params: dict[str, object] = {} if own is None else dict(own(op))
    accessors = cast(IRDLOperation, op).get_irdl_definition().accessor_names
    for name, parameter in _keyword_parameters(kernel).items():
        if name == SITE:
            params[SITE] = None  # given at each run (run_kernel)
            continue
        if name in params:
            continue
        ir_name = accessors.get(name, (name,))[0]
        attr = op.properties.get(ir_name, op.attributes.get(ir_name))
        if attr is not None:
            params[name] = _value(attr)
        elif parameter.default is inspect.Parameter.empty:
            raise RuntimeFault(f"has no {name} choice: lower the kernel for a target first (pto-lower)")
    return params


_SIGNATURES: dict[Callable, dict[str, inspect.Parameter]] = {}


def _keyword_parameters(kernel: Callable) -> dict[str, inspect.Parameter]:
    if kernel not in _SIGNATURES:
        _SIGNATURES[kernel] = {
            name: p for name, p in inspect.signature(kernel).parameters.items() if p.kind == p.KEYWORD_ONLY
        }
    return _SIGNATURES[kernel]


@_per_op
def _has_dynamic_dims(op: Operation) -> bool:
    for v in op.operands:
        t = v.type
        if isinstance(t, TileTypeBase) and DYNAMIC_INDEX in t.valid_shape:
            return True
        if isinstance(t, ShapedViewBase) and DYNAMIC_INDEX in t.shape:
            return True
        if isinstance(t, ShapedViewBase) and UNKNOWN in (inferred_strides(v) or (UNKNOWN,)):
            return True  # rules on strides (a5's packed table rows) wait for the actual ones
    return False


def _facts(role: str, value: SSAValue, runtime: object) -> TileFacts | ViewFacts | str:
    """Rule facts of an operand with its actual valid shape or GM shape."""
    if isinstance(runtime, Tile):
        assert isinstance(value.type, TileTypeBase)
        return TileFacts.of(role, value.type).with_valid(runtime.valid_row, runtime.valid_col)
    if isinstance(runtime, GmView):
        assert isinstance(value.type, ShapedViewBase)
        return ViewFacts(role, value.type.element, runtime.shape, inferred_layout(value), runtime.strides)
    return static_facts(role, value)


def instruction_facts(op: Operation, args: PythonValues) -> dict[str, TileFacts | ViewFacts | str]:
    """The rule facts of each operand of a running op, by role, with its actual shapes."""
    return {r: _facts(r, v, a) for r, v, a in zip(roles_of(op), op.operands, args)}


def actual_shapes(args: PythonValues) -> tuple:
    """What the rules read of the actual operands: valid shapes, view shapes and strides."""
    return tuple(
        a.valid_shape if isinstance(a, Tile) else (a.shape, a.strides) if isinstance(a, GmView) else None for a in args
    )


_CHECKED: WeakKeyDictionary[Operation, set[tuple]] = WeakKeyDictionary()
"""The actual shapes each op's rules were already checked with (a loop repeats them)."""


def recheck_rules(interpreter: Interpreter, op: Operation, args: PythonValues) -> None:
    """Re-run the op's target rules on the actual shapes, if any was dynamic (once per
    distinct shapes)."""
    instruction = instruction_of(op)
    if instruction is None or not _has_dynamic_dims(op) or not isinstance(op, LoweredOp | PtoInstructionOp):
        return
    key = actual_shapes(args)
    checked = _CHECKED.setdefault(op, set())
    if key in checked:
        return
    target = run_state(interpreter).target
    try:
        check_instruction(instruction, target, instruction_facts(op, args), op.properties)
    except RuleViolation as e:
        raise RuntimeFault(f"{e} (target {target}, run-time shapes)") from e
    checked.add(key)


def reads_only(op: Operation, index: int) -> bool:
    """Whether the op's operand `index` is an input it only reads (not a workspace or an out)."""
    return runs_kernel(op) and index < len(getattr(op, "ins", op.operands)) and not writes(op, op.operands[index])


class KernelCall(NamedTuple):
    """What an op runs: its kernel, its operands by role, and its parameters (the same call
    serves a batched loop, interpreter/batch.py)."""

    kernel: Callable[..., object]
    operands: dict[str, object]
    params: dict[str, object]

    def run(self) -> object:
        return self.kernel(self.operands, **self.params)


def kernel_call(op: Operation, args: PythonValues) -> KernelCall:
    return KernelCall(type(op).KERNEL, dict(zip(roles_of(op), args)), kernel_params(op))  # pyright: ignore


def source_name(op: Operation) -> str:
    """The pto instruction an op came from, for messages."""
    source = getattr(op, "SOURCE", None)
    return source.name if source is not None else op.name


written_operands = _per_op(operand_writes)
"""The operands the op declares it writes (its memory effects)."""


def reads_site(op: Operation) -> bool:
    """Whether the op's kernel reports where it runs (its loops then run through xDSL's
    region walk, which keeps each induction variable in the interpreter's environment)."""
    return runs_kernel(op) and SITE in _keyword_parameters(type(op).KERNEL)  # pyright: ignore[reportAttributeAccessIssue]


def site_of(interpreter: Interpreter, op: Operation) -> Site:
    """The op's location and the current value of each enclosing scf.for's induction variable."""
    loops = []
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, scf.ForOp):
            variable = parent.body.block.args[0]
            name = f"%{variable.name_hint}" if variable.name_hint else f"loop {op_location(parent) or '?'}"
            loops.append((name, interpreter._ctx[variable]))  # pyright: ignore[reportPrivateUsage]
        parent = parent.parent_op()
    return Site(op_location(op) or "?", tuple(reversed(loops)))


def run_kernel(interpreter: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
    """Run an op through its kernel; faults are located at the op, named after its pto op.
    A run that records what it stores to GM (pto-run's preview) marks each GM window the op
    writes."""
    state = run_state(interpreter)
    with fault_at(op, source_name(op)):
        recheck_rules(interpreter, op, args)
        if state.profiler is not None:
            state.profiler.record(op, args)
        call = kernel_call(op, args)
        if SITE in call.params:
            call = call._replace(params={**call.params, SITE: site_of(interpreter, op)})
        results = call.run()
    if (stored := state.gm_writes) is not None:
        for i in written_operands(op):
            if isinstance(args[i], GmView):
                stored.mark(args[i])
    return results if results is not None else ()  # pyright: ignore[reportReturnType]


def kernel_functions(ops: list[type[Operation]], name: str) -> type[InterpreterFunctions]:
    """The interpreter functions running `ops` through their kernels."""
    if (known := _FUNCTIONS.get(name)) is not None:
        return known
    namespace = {}
    for op_class in ops:
        if getattr(op_class, "KERNEL", None) is None:
            raise TypeError(f"{op_class.name} names no kernel")
        namespace[f"run_{op_class.name}"] = impl(op_class)(
            lambda self, interpreter, op, args: run_kernel(interpreter, op, args)
        )
    functions = register_impls(type(f"{name}_functions", (InterpreterFunctions,), namespace))
    _FUNCTIONS[name] = functions
    return functions


def instruction_functions() -> type[InterpreterFunctions]:
    """The pto instructions that run as they are (tload, tstore)."""
    if (known := _FUNCTIONS.get("pto_instructions")) is not None:  # without listing the registry at each run
        return known
    return kernel_functions([i.op for i in REGISTRY if runs_kernel(i.op)], "pto_instructions")


_FUNCTIONS: dict[str, type[InterpreterFunctions]] = {}
