"""Interpretation of `pto_a2a3` (Atlas A2/A3)."""

from __future__ import annotations

from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls

from lowering import a2a3

from interpreter import lowered


@register_impls
class A2A3Functions(InterpreterFunctions):
    @impl(a2a3.MGatherRowDmaOp)
    def run_mgather_row_dma(self, interpreter: Interpreter, op: a2a3.MGatherRowDmaOp, args: PythonValues):
        return lowered.run_mgather(interpreter, op, args)

    @impl(a2a3.MGatherElemScalarOp)
    def run_mgather_elem_scalar(self, interpreter: Interpreter, op: a2a3.MGatherElemScalarOp, args: PythonValues):
        return lowered.run_mgather(interpreter, op, args)

    @impl(a2a3.MGatherRowNzOp)
    def run_mgather_row_nz(self, interpreter: Interpreter, op: a2a3.MGatherRowNzOp, args: PythonValues):
        return lowered.run_mgather(interpreter, op, args)

    @impl(a2a3.MGatherElemNzOp)
    def run_mgather_elem_nz(self, interpreter: Interpreter, op: a2a3.MGatherElemNzOp, args: PythonValues):
        return lowered.run_mgather(interpreter, op, args)

    @impl(a2a3.MGatherRowL1Op)
    def run_mgather_row_l1(self, interpreter: Interpreter, op: a2a3.MGatherRowL1Op, args: PythonValues):
        return lowered.run_mgather(interpreter, op, args)

    @impl(a2a3.MGatherElemL1Op)
    def run_mgather_elem_l1(self, interpreter: Interpreter, op: a2a3.MGatherElemL1Op, args: PythonValues):
        return lowered.run_mgather(interpreter, op, args)

    @impl(a2a3.TGatherIndexOp)
    def run_tgather_index(self, interpreter: Interpreter, op: a2a3.TGatherIndexOp, args: PythonValues):
        return lowered.run_tgather_index(interpreter, op, args)

    @impl(a2a3.TGatherMaskOp)
    def run_tgather_mask(self, interpreter: Interpreter, op: a2a3.TGatherMaskOp, args: PythonValues):
        return lowered.run_tgather_mask(interpreter, op, args)

    @impl(a2a3.TGatherCompareOp)
    def run_tgather_compare(self, interpreter: Interpreter, op: a2a3.TGatherCompareOp, args: PythonValues):
        return lowered.run_tgather_compare(interpreter, op, args)

    @impl(a2a3.TColArgMinOp)
    def run_tcolargmin(self, interpreter: Interpreter, op: a2a3.TColArgMinOp, args: PythonValues):
        return lowered.run_tcolargmin(interpreter, op, args)
