"""
xDSL's scf and arith interpreter functions, with the per-op costs that dominate
a kernel's loop taken out (bench/run.py: ~5 us of dispatch per op in the
generic region walk, ~15 us per `arith.muli` in xDSL's `isa`-based width
lookup, against ~9 us of NumPy work per loop iteration).

`scf.for` bodies without nested regions run from a plan prepared once per loop:
each op's implementation, looked up once, reads its operands from a flat slot
list instead of the scoped environment. The same implementations run, in the
same order, with the same listener calls; only the lookups are hoisted.
A body whose iterations are independent runs batched instead (interpreter/batch.py):
each op once, over all iterations.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr
from xdsl.interpreter import Interpreter, InterpreterFunctions, OpImplResult, PythonValues, impl, register_impls
from xdsl.interpreters.arith import ArithFunctions
from xdsl.interpreters.scf import ScfFunctions
from xdsl.ir import Block, Operation, SSAValue

from pto_dialect.diagnostics import PtoError
from pto_dialect.integer_arith import INTEGER_BINARY, compare
from pto_dialect.integer_casts import integer_cast
from pto_dialect.integer_arith import signed as _signed
from pto_dialect.mlir_arith import IndexCastUIOp

from interpreter import batch
from interpreter.batch import int_width as _width
from interpreter.batch import type_width
from interpreter.lowered import reads_site
from pto_dialect.machine import RuntimeFault
from interpreter.state import located_failure, run_state


class _Step(NamedTuple):
    run: Callable[[InterpreterFunctions, Interpreter, Operation, PythonValues], OpImplResult]
    functions: InterpreterFunctions
    op: Operation
    operands: tuple[int, ...]
    results: tuple[int, ...]


class _LoopPlan(NamedTuple):
    """A straight-line loop body: values from outside it, then the body's own, in slots."""

    outside: tuple[SSAValue, ...]
    """Slots 0..len-1: values defined outside the body (read once per loop)."""
    block_args: tuple[int, ...]
    steps: tuple[_Step, ...]
    terminator: scf.YieldOp
    yielded: tuple[int, ...]
    slot_count: int


def _prepare(interpreter: Interpreter, body: Block) -> _LoopPlan | None:
    """The plan of `body`, or None when an op has regions or reports where it runs (their
    walk needs the scoped environment) or has no registered implementation."""
    ops = list(body.ops)
    *straight, terminator = ops
    if not isinstance(terminator, scf.YieldOp) or any(op.regions or reads_site(op) for op in straight):
        return None
    impls = interpreter._impls._impl_dict  # pyright: ignore[reportPrivateUsage]
    if any(type(op) not in impls for op in straight):
        return None
    slots: dict[SSAValue, int] = {}
    outside: list[SSAValue] = []

    def slot_of(value: SSAValue) -> int:
        if value not in slots:
            slots[value] = len(slots)
            outside.append(value)
        return slots[value]

    inside = set(straight)
    for op in ops:
        for operand in op.operands:
            if operand.owner is not body and operand.owner not in inside:
                slot_of(operand)
    local_start = len(slots)
    for value in (*body.args, *(r for op in straight for r in op.results)):
        slots[value] = len(slots)
    steps = []
    for op in straight:
        functions, run = impls[type(op)]
        steps.append(
            _Step(run, functions, op, tuple(slots[v] for v in op.operands), tuple(slots[r] for r in op.results))
        )
    assert local_start == len(outside)
    return _LoopPlan(
        tuple(outside),
        tuple(slots[a] for a in body.args),
        tuple(steps),
        terminator,
        tuple(slots[v] for v in terminator.operands),
        len(slots),
    )


@register_impls
class LoopFunctions(ScfFunctions):
    def __init__(self) -> None:
        super().__init__()
        self._plans: dict[scf.ForOp, _LoopPlan | None] = {}
        """Each loop's plan, prepared once per run (an inner loop runs once per outer iteration)."""
        self._batchable: dict[scf.ForOp, bool] = {}
        """Whether each planned loop's shape allows batching (interpreter/batch.py)."""

    @impl(scf.ForOp)
    def run_for(self, interpreter: Interpreter, op: scf.ForOp, args: PythonValues) -> PythonValues:
        lb, ub, step, *carried = args
        if step <= 0:
            raise RuntimeFault(f"step must be positive, got {step}")
        if op not in self._plans:
            self._plans[op] = _prepare(interpreter, op.body.block)
        plan = self._plans[op]
        if plan is None:
            return super().run_for(interpreter, op, args).values
        slots: list[Any] = [interpreter._ctx[v] for v in plan.outside]  # pyright: ignore[reportPrivateUsage]
        slots.extend([None] * (plan.slot_count - len(slots)))
        bounds = range(lb, ub, step)
        # a batchable loop names the iteration of a fault, whether it ran batched or not
        batchable = (
            not any(getattr(listener, "SEES_EVERY_OP", True) for listener in interpreter.listeners)
            and run_state(interpreter).batch_loops
            and self._is_batchable(interpreter, op, plan)
        )
        if not (batchable and len(bounds) > 1):
            return self._run_serially(interpreter, op, plan, bounds, slots, tuple(carried), 0, batchable)
        # slice after slice, in order: what one slice writes is there for the next, as iteration
        # by iteration; a slice whose iterations are not independent runs iteration by iteration
        for first in range(0, len(bounds), batch.SLICE_TRIPS):
            part = bounds[first : first + batch.SLICE_TRIPS]
            if len(part) < 2 or not batch.run_batched(interpreter, op, plan, part, list(slots), first):
                self._run_serially(interpreter, op, plan, part, slots, (), first, batchable)
        return ()

    def _run_serially(self, interpreter: Interpreter, op: scf.ForOp, plan: _LoopPlan, bounds: range,
                      slots: list[Any], loop_args: tuple[Any, ...], first: int, batchable: bool) -> tuple[Any, ...]:
        """Iterations `bounds` (the loop's from iteration `first` on) one by one."""
        run_body = _run_body_listened if interpreter.listeners else _run_body
        for k, i in enumerate(bounds, first):
            for s, v in zip(plan.block_args, (i, *loop_args)):
                slots[s] = v
            try:
                loop_args = run_body(interpreter, plan, slots)
            except PtoError as e:
                if batchable:
                    raise batch.in_iteration(e, op, k, i) from e
                raise
        return loop_args

    def _is_batchable(self, interpreter: Interpreter, op: scf.ForOp, plan: _LoopPlan) -> bool:
        if op not in self._batchable:
            self._batchable[op] = batch.eligible(interpreter, plan)
        return self._batchable[op]


def _run_body(interpreter: Interpreter, plan: _LoopPlan, slots: list[Any]) -> tuple[Any, ...]:
    for run, functions, op, operands, results in plan.steps:
        try:
            values = run(functions, interpreter, op, tuple([slots[s] for s in operands])).values
        except Exception as e:  # as interpreter.LocatingInterpreter reports it
            raise located_failure(op, e) from e
        for s, v in zip(results, values):
            slots[s] = v
    return tuple([slots[s] for s in plan.yielded])


def _run_body_listened(interpreter: Interpreter, plan: _LoopPlan, slots: list[Any]) -> tuple[Any, ...]:
    """_run_body, telling the interpreter's listeners about every op (the yield included)."""
    listeners = interpreter.listeners
    for run, functions, op, operands, results in plan.steps:
        inputs = tuple([slots[s] for s in operands])
        for listener in listeners:
            listener.will_interpret_op(op, inputs)
        try:
            values = run(functions, interpreter, op, inputs).values
        except Exception as e:
            raise located_failure(op, e) from e
        for listener in listeners:
            listener.did_interpret_op(op, values)
        for s, v in zip(results, values):
            slots[s] = v
    yielded = tuple([slots[s] for s in plan.yielded])
    for listener in listeners:
        listener.will_interpret_op(plan.terminator, yielded)
        listener.did_interpret_op(plan.terminator, ())
    return yielded


def _integer_binary(self: ArithFunctions, interpreter: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
    """A binary integer op at its result's width, as MLIR defines it (pto_dialect/integer_arith.py)."""
    return (INTEGER_BINARY[type(op)](args[0], args[1], _width(interpreter, op)),)


def _integer_cast(self: ArithFunctions, interpreter: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
    """trunci, extsi, extui, index_castui, as MLIR defines them (pto_dialect/integer_casts.py)."""
    cast = integer_cast(op, interpreter.index_bitwidth)
    assert cast is not None
    return (cast(int(args[0])),)


@register_impls
class IndexArithFunctions(ArithFunctions):
    """xDSL's arith functions; index constants read their type with a plain isinstance (same
    values), every binary integer op runs MLIR's semantics from pto_dialect/integer_arith.py
    (the definition the sync checker shares: min/max, ceildiv, unsigned div/rem, shifts and
    cmpi included; a zero divisor or an over-wide shift is a fault rather than xDSL's bare
    assertion), and the casts xDSL lacks (trunci, extsi, extui, fptosi, and MLIR's
    index_castui: pto_dialect/mlir_arith.py) are added with MLIR's semantics."""

    @impl(arith.ConstantOp)
    def run_constant(self, interpreter: Interpreter, op: arith.ConstantOp, args: PythonValues):
        value = op.value
        if isinstance(value, IntegerAttr) and isinstance(value.type, IndexType):  # xDSL's isa: ~50 us
            return (_signed(value.value.data, interpreter.index_bitwidth),)
        if isinstance(value, IntegerAttr | FloatAttr):  # what xDSL returns for them, without its isa
            return (value.value.data,)
        return super().run_constant(interpreter, op, args).values

    run_addi = impl(arith.AddiOp)(_integer_binary)
    run_subi = impl(arith.SubiOp)(_integer_binary)
    run_muli = impl(arith.MuliOp)(_integer_binary)
    run_minsi = impl(arith.MinSIOp)(_integer_binary)
    run_maxsi = impl(arith.MaxSIOp)(_integer_binary)
    run_minui = impl(arith.MinUIOp)(_integer_binary)
    run_maxui = impl(arith.MaxUIOp)(_integer_binary)
    run_ceildivsi = impl(arith.CeilDivSIOp)(_integer_binary)
    run_ceildivui = impl(arith.CeilDivUIOp)(_integer_binary)
    run_divui = impl(arith.DivUIOp)(_integer_binary)
    run_remui = impl(arith.RemUIOp)(_integer_binary)
    run_divsi = impl(arith.DivSIOp)(_integer_binary)
    run_remsi = impl(arith.RemSIOp)(_integer_binary)
    run_floordivsi = impl(arith.FloorDivSIOp)(_integer_binary)
    run_andi = impl(arith.AndIOp)(_integer_binary)
    run_ori = impl(arith.OrIOp)(_integer_binary)
    run_xori = impl(arith.XOrIOp)(_integer_binary)
    run_shli = impl(arith.ShLIOp)(_integer_binary)
    run_shrsi = impl(arith.ShRSIOp)(_integer_binary)
    run_shrui = impl(arith.ShRUIOp)(_integer_binary)

    @impl(arith.CmpiOp)
    def run_cmpi(self, interpreter: Interpreter, op: arith.CmpiOp, args: PythonValues):
        return (compare(op.predicate.value.data, args[0], args[1], _operand_width(interpreter, op)),)

    run_trunci = impl(arith.TruncIOp)(_integer_cast)
    run_extsi = impl(arith.ExtSIOp)(_integer_cast)
    run_extui = impl(arith.ExtUIOp)(_integer_cast)
    run_index_castui = impl(IndexCastUIOp)(_integer_cast)

    @impl(arith.FPToSIOp)
    def run_fptosi(self, interpreter: Interpreter, op: arith.FPToSIOp, args: PythonValues):
        # MLIR gives poison for NaN, infinities and values whose integer part does not fit;
        # the targets' scalar conversions differ there, so such a value is a fault, never a guess.
        w = _width(interpreter, op)
        value = float(args[0])
        whole = math.trunc(value) if math.isfinite(value) else None
        if whole is None or not -(1 << (w - 1)) <= whole < 1 << (w - 1):
            raise RuntimeFault(f"{value!r} has no integer part that fits i{w} (MLIR: poison)")
        return (whole,)


def _operand_width(interpreter: Interpreter, op: Operation) -> int:
    return type_width(interpreter, op.operands[0].type)
