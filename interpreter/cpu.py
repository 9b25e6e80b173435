"""Interpretation of `pto_cpu` (the pto-isa CPU simulator's execution)."""

from __future__ import annotations

from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls

from lowering import cpu

from interpreter import lowered


@register_impls
class CpuFunctions(InterpreterFunctions):
    @impl(cpu.MGatherRowOp)
    def run_mgather_row(self, interpreter: Interpreter, op: cpu.MGatherRowOp, args: PythonValues):
        return lowered.run_mgather(interpreter, op, args)

    @impl(cpu.MGatherElemOp)
    def run_mgather_elem(self, interpreter: Interpreter, op: cpu.MGatherElemOp, args: PythonValues):
        return lowered.run_mgather(interpreter, op, args)

    @impl(cpu.TGatherIndexOp)
    def run_tgather_index(self, interpreter: Interpreter, op: cpu.TGatherIndexOp, args: PythonValues):
        return lowered.run_tgather_index(interpreter, op, args)

    @impl(cpu.TGatherMaskOp)
    def run_tgather_mask(self, interpreter: Interpreter, op: cpu.TGatherMaskOp, args: PythonValues):
        return lowered.run_tgather_mask(interpreter, op, args)

    @impl(cpu.TColArgMinOp)
    def run_tcolargmin(self, interpreter: Interpreter, op: cpu.TColArgMinOp, args: PythonValues):
        return lowered.run_tcolargmin(interpreter, op, args)
