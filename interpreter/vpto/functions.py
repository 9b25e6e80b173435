"""
The register-level ops at run time (pto_dialect/vpto/), whole-array NumPy over a register's lanes.

Values: a `!pto.ptr` is a `Pointer` (interpreter/vpto/memory.py; a GM argument arrives as its flat
array), a `!pto.vreg<NxT>` an array of N lanes of T, a `!pto.mask<G>` 256 booleans
(interpreter/vpto/predicates.py). A run is in program order: the vector scope runs its body once.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.irdl import IRDLOperation
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls

from pto_dialect.machine import RuntimeFault
from pto_dialect.types import PtrType
from pto_dialect.vpto import dma, load_store, pointers, predicates, scope
from pto_dialect.vpto.dma import UB_ROW_ALIGN_BYTES
from pto_dialect.vpto.types import MaskType

from interpreter.state import fault_at, run_state
from interpreter.vpto.memory import Pointer, as_pointer, mark_stored, ub_memory
from interpreter.vpto import predicates as masks


def pointer_arg(interpreter: Interpreter, value: object, op_value) -> Pointer:  # noqa: ANN001
    """An operand's run-time pointer (`op_value` is the SSA value, for its type)."""
    assert isinstance(op_value.type, PtrType)
    return as_pointer(interpreter, value, op_value.type)


def burst_offsets(length: int, groups: list[tuple[int, int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """Byte offsets (source, destination) of every byte a grouped DMA moves, in the order it moves
    them: `groups` innermost first as (count, source stride, destination stride); rows x length."""
    source = np.zeros((), dtype=np.int64)
    destination = np.zeros((), dtype=np.int64)
    for count, src_stride, dst_stride in reversed(groups):  # outermost first: the innermost varies fastest
        if count < 0:
            raise RuntimeFault(f"a DMA repeat count is negative ({count})")
        step = np.arange(count, dtype=np.int64)
        source = (source[..., None] + step * src_stride)
        destination = (destination[..., None] + step * dst_stride)
    row = np.arange(length, dtype=np.int64)
    return (source.reshape(-1, 1) + row).reshape(-1), (destination.reshape(-1, 1) + row).reshape(-1)


def _run_pset(self: InterpreterFunctions, interpreter: Interpreter, op: IRDLOperation, args: PythonValues):
    assert isinstance(op, predicates.PsetOpBase)
    assert isinstance(op.result.type, MaskType)
    return (masks.pattern_mask(op.pattern.data, op.result.type),)


def _run_plt(self: InterpreterFunctions, interpreter: Interpreter, op: IRDLOperation, args: PythonValues):
    """The first `count` lanes; what is left of the count after this register's lanes (0 at the end)."""
    assert isinstance(op, predicates.PltOpBase)
    (count,) = args
    mask_type = op.mask.type
    assert isinstance(mask_type, MaskType)
    lanes = mask_type.lanes
    active = np.arange(lanes) < count
    return masks.from_lanes(active, mask_type.lane_bytes), (0 if count < lanes else count - lanes)


@register_impls
class VptoFunctions(InterpreterFunctions):
    # pointers

    @impl(pointers.CastPtrOp)
    def run_castptr(self, interpreter: Interpreter, op: pointers.CastPtrOp, args: PythonValues):
        (value,) = args
        target = op.result.type
        with fault_at(op):
            if isinstance(target, PtrType):
                if isinstance(op.input.type, PtrType):
                    return (pointer_arg(interpreter, value, op.input).as_type(target.element.numpy),)
                if target.space.data != "ub":
                    raise RuntimeFault(f"an integer address names no GM array: cast {op.input.type} -> {target}")
                return (Pointer(ub_memory(interpreter), int(value), target.element.numpy, "ub"),)
            return (pointer_arg(interpreter, value, op.input).byte,)

    @impl(pointers.AddPtrOp)
    def run_addptr(self, interpreter: Interpreter, op: pointers.AddPtrOp, args: PythonValues):
        base, offset = args
        return (pointer_arg(interpreter, base, op.ptr).advanced(offset),)

    # scope and ordering

    @impl(scope.VecScopeOp)
    def run_vecscope(self, interpreter: Interpreter, op: scope.VecScopeOp, args: PythonValues):
        return interpreter.run_ssacfg_region(op.body, (), "vecscope")

    @impl(scope.MemBarOp)
    def run_mem_bar(self, interpreter: Interpreter, op: scope.MemBarOp, args: PythonValues):
        return ()  # a run is in program order

    @impl(scope.SprClrOp)
    def run_sprclr(self, interpreter: Interpreter, op: scope.SprClrOp, args: PythonValues):
        run_state(interpreter).special_registers[op.spr.data] = 0
        return ()

    # DMA

    def _dma(self, interpreter: Interpreter, op: dma.MteGmUbOp | dma.MteUbGmOp, values: dict[str, Any]) -> None:
        source = pointer_arg(interpreter, values["source"], op.source)
        destination = pointer_arg(interpreter, values["destination"], op.destination)
        counts = [values["n_burst"], *values["loop_counts"]]
        source_strides = [values["nburst_src_stride"], *values["loop_src_strides"]]
        destination_strides = [values["nburst_dst_stride"], *values["loop_dst_strides"]]
        length = int(values["len_burst"])
        src, dst = burst_offsets(length, [(int(c), int(s), int(d)) for c, s, d in zip(counts, source_strides, destination_strides)])
        data = source.gather_bytes(src)
        destination.scatter_bytes(dst, data)
        if isinstance(op, dma.MteGmUbOp) and values.get("pad_value") is not None:
            self._pad_rows(op, destination, dst, length, values["pad_value"])
        mark_stored(interpreter, destination, dst)

    def _pad_rows(self, op: dma.MteGmUbOp, destination: Pointer, dst: np.ndarray, length: int, value: object) -> None:
        """Each UB row from `length` bytes up to its 32-byte boundary, filled with the pad value."""
        if op.left_padding_count is not None:
            raise RuntimeFault("pto-run does not run pad(value, left, right) yet: only pad(value)")
        padded = -(-length // UB_ROW_ALIGN_BYTES) * UB_ROW_ALIGN_BYTES
        if padded == length or dst.size == 0:
            return
        element = destination.element
        fill = np.array([value], dtype=element).view(np.uint8)
        row_starts = dst.reshape(-1, length)[:, 0]
        tail = np.arange(length, padded, dtype=np.int64)
        offsets = (row_starts[:, None] + tail).reshape(-1)
        destination.scatter_bytes(offsets, np.resize(fill, tail.size * row_starts.size))

    @impl(dma.MteGmUbOp)
    def run_mte_gm_ub(self, interpreter: Interpreter, op: dma.MteGmUbOp, args: PythonValues):
        with fault_at(op):
            self._dma(interpreter, op, _by_name(op, args))
        return ()

    @impl(dma.MteUbGmOp)
    def run_mte_ub_gm(self, interpreter: Interpreter, op: dma.MteUbGmOp, args: PythonValues):
        with fault_at(op):
            self._dma(interpreter, op, _by_name(op, args))
        return ()

    # vector loads and stores

    @impl(load_store.VldsOp)
    def run_vlds(self, interpreter: Interpreter, op: load_store.VldsOp, args: PythonValues):
        base, offset = args
        pointer = pointer_arg(interpreter, base, op.source)
        here, after = _post_update(pointer, offset, op.updated_base is not None)
        with fault_at(op):
            result = load_store_kernels.load(here, op.dist_token, op.result.type)
        return (result,) if after is None else (result, after)

    @impl(load_store.VstsOp)
    def run_vsts(self, interpreter: Interpreter, op: load_store.VstsOp, args: PythonValues):
        value, base, offset, mask = args
        pointer = pointer_arg(interpreter, base, op.destination)
        here, after = _post_update(pointer, offset, op.updated_base is not None)
        with fault_at(op):
            written = load_store_kernels.store(here, op.dist_token, op.vreg, value, mask)
        mark_stored(interpreter, here, written)
        return () if after is None else (after,)

    # predicates

    run_pset_b8, run_pset_b16, run_pset_b32 = (impl(c)(_run_pset) for c in predicates.PSET_OPS)
    run_plt_b8, run_plt_b16, run_plt_b32 = (impl(c)(_run_plt) for c in predicates.PLT_OPS)

    @impl(predicates.PandOp)
    def run_pand(self, interpreter: Interpreter, op: predicates.PandOp, args: PythonValues):
        a, b, governing = args
        return (governing & a & b,)

    @impl(predicates.PorOp)
    def run_por(self, interpreter: Interpreter, op: predicates.PorOp, args: PythonValues):
        a, b, governing = args
        return (governing & (a | b),)

    @impl(predicates.PxorOp)
    def run_pxor(self, interpreter: Interpreter, op: predicates.PxorOp, args: PythonValues):
        a, b, governing = args
        return (governing & (a ^ b),)

    @impl(predicates.PselOp)
    def run_psel(self, interpreter: Interpreter, op: predicates.PselOp, args: PythonValues):
        a, b, select = args
        return (np.where(select, a, b),)

    @impl(predicates.PnotOp)
    def run_pnot(self, interpreter: Interpreter, op: predicates.PnotOp, args: PythonValues):
        a, governing = args
        return (governing & ~a,)

    @impl(predicates.PstsOp)
    def run_psts(self, interpreter: Interpreter, op: predicates.PstsOp, args: PythonValues):
        value, base, offset = args
        pointer = pointer_arg(interpreter, base, op.destination)
        here, after = _post_update_bytes(pointer, offset, op.updated_base is not None)
        data = masks.packed(value if op.dist.data == "NORM" else value[::2])
        with fault_at(op):
            here.write(data)
        mark_stored(interpreter, here, np.arange(data.size))
        return () if after is None else (after,)


def _by_name(op, args: PythonValues) -> dict[str, Any]:  # noqa: ANN001
    """An op's run-time operands by their definition's names (variadic ones as lists)."""
    named: dict[str, Any] = {}
    values = iter(args)
    for name, _ in type(op).get_irdl_definition().operands:
        operand = getattr(op, name)
        if operand is None:
            named[name] = None
        elif isinstance(operand, tuple | list) or type(operand).__name__ == "VarOperand":
            named[name] = [next(values) for _ in operand]
        else:
            named[name] = next(values)
    return named


def _post_update(pointer: Pointer, offset: int, post: bool) -> tuple[Pointer, Pointer | None]:
    """Where an element-offset access happens and, in the post-update form, the pointer it returns:
    without it at base + offset; with it at base, returning base + offset (VPTOAddressSemantics.cpp)."""
    moved = pointer.advanced(offset)
    return (pointer, moved) if post else (moved, None)


def _post_update_bytes(pointer: Pointer, offset: int, post: bool) -> tuple[Pointer, Pointer | None]:
    moved = pointer.advanced_bytes(offset)
    return (pointer, moved) if post else (moved, None)


from interpreter.vpto import load_store as load_store_kernels  # noqa: E402

