"""Interpretation of `pto_a5` (Ascend 950), including its register-level gather."""

from __future__ import annotations

from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls

from pto_dialect.dtypes import element_info

from interpreter import kernels, lowered
from interpreter.state import fault_at
from lowering import a5


def _lane_dtype(op_result_type) -> object:  # noqa: ANN001
    assert isinstance(op_result_type, a5.VRegType)
    info = element_info(op_result_type.element_type)
    assert info is not None
    return info.numpy


@register_impls
class A5Functions(InterpreterFunctions):
    @impl(a5.MGatherRowSimtOp)
    def run_mgather_row_simt(self, interpreter: Interpreter, op: a5.MGatherRowSimtOp, args: PythonValues):
        return lowered.run_mgather(interpreter, op, args)

    @impl(a5.MGatherElemSimtOp)
    def run_mgather_elem_simt(self, interpreter: Interpreter, op: a5.MGatherElemSimtOp, args: PythonValues):
        return lowered.run_mgather(interpreter, op, args)

    @impl(a5.MGatherElemScalarOp)
    def run_mgather_elem_scalar(self, interpreter: Interpreter, op: a5.MGatherElemScalarOp, args: PythonValues):
        return lowered.run_mgather(interpreter, op, args)

    @impl(a5.MGatherRowL1Op)
    def run_mgather_row_l1(self, interpreter: Interpreter, op: a5.MGatherRowL1Op, args: PythonValues):
        return lowered.run_mgather(interpreter, op, args)

    @impl(a5.MGatherElemL1Op)
    def run_mgather_elem_l1(self, interpreter: Interpreter, op: a5.MGatherElemL1Op, args: PythonValues):
        return lowered.run_mgather(interpreter, op, args)

    @impl(a5.LoadIndexVectorOp)
    def run_load_index_vector(self, interpreter: Interpreter, op: a5.LoadIndexVectorOp, args: PythonValues):
        (indices,) = args
        return (kernels.load_index_vector(indices, _lane_dtype(op.result.type)),)

    @impl(a5.GatherOp)
    def run_gather(self, interpreter: Interpreter, op: a5.GatherOp, args: PythonValues):
        base, index, mask = args
        with fault_at(op, op.SOURCE):
            return (kernels.register_gather(base, index, mask.valid_shape, _lane_dtype(op.result.type)),)

    @impl(a5.StoreOp)
    def run_store(self, interpreter: Interpreter, op: a5.StoreOp, args: PythonValues):
        value, dst = args
        kernels.register_store(value, dst)
        return ()

    @impl(a5.GatherB32OffsetsOp)
    def run_gather_b16_by_u32(self, interpreter: Interpreter, op: a5.GatherB32OffsetsOp, args: PythonValues):
        return lowered.run_tgather_index(interpreter, op, args)

    @impl(a5.TGatherMaskOp)
    def run_tgather_mask(self, interpreter: Interpreter, op: a5.TGatherMaskOp, args: PythonValues):
        return lowered.run_tgather_mask(interpreter, op, args)

    @impl(a5.TGatherCompareOp)
    def run_tgather_compare(self, interpreter: Interpreter, op: a5.TGatherCompareOp, args: PythonValues):
        return lowered.run_tgather_compare(interpreter, op, args)

    @impl(a5.TColArgMinOp)
    def run_tcolargmin(self, interpreter: Interpreter, op: a5.TColArgMinOp, args: PythonValues):
        return lowered.run_tcolargmin(interpreter, op, args)
