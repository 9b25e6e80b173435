"""
The register-level ops at run time (pto_dialect/vpto/), whole-array NumPy over a register's lanes.

Values: a `!pto.ptr` is a `Pointer` (interpreter/vpto/memory.py; a GM argument arrives as its flat
array), a `!pto.vreg<NxT>` an array of N lanes of T, a `!pto.mask<G>` 256 booleans
(interpreter/vpto/predicates.py). A run is in program order: the vector scope runs its body once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls

from pto_dialect.attributes import SaturationMode
from pto_dialect.instructions.tcvt import vconv
from pto_dialect.machine import RuntimeFault
from pto_dialect.types import PtrType
from pto_dialect.vpto import arithmetic, config, dma, load_store, pointers, predicates, scope, vector
from pto_dialect.vpto.dma import UB_ROW_ALIGN_BYTES
from pto_dialect.vpto.types import MaskType, VRegType

from interpreter.state import fault_at, run_state
from interpreter.vpto import load_store as load_store_kernels
from interpreter.vpto.memory import Pointer, as_pointer, mark_stored, ub_memory
from interpreter.vpto import predicates as masks
from interpreter.vpto import unaligned


ATOMIC_COMBINE = {"add": np.add, "max": np.maximum, "min": np.minimum}
"""How each atomic mode (config.ATOMIC_MODES) combines what GM holds with what is stored (integers wrap)."""
COMPARE = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal}
"""Each comparison mode of vector.COMPARISONS."""
MASK_LOGIC = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}
"""Each operation of predicates.MASK_LOGIC, on a predicate's 256 bits."""
LANE_ARITHMETIC = {"add": np.add, "sub": np.subtract, "mul": np.multiply}
"""Each `operation` of pto_dialect/vpto/arithmetic.py's rows (integers wrap; floats round to nearest even)."""
assert set(MASK_LOGIC) == set(predicates.MASK_LOGIC.values())
assert set(COMPARE) == set(vector.COMPARISONS) and set(ATOMIC_COMBINE) == {m for m in config.ATOMIC_MODES.values() if m}
assert {r.operation for r in (*arithmetic.BINARY.values(), *arithmetic.VEC_SCALAR.values())} <= set(LANE_ARITHMETIC)


def priced(op_type: type[IRDLOperation]) -> Callable[[Callable[..., Any]], Any]:
    """`impl(op_type)`, telling the run's profiler (pto-run --profile) about each execution first."""

    def annotate(function: Callable[..., Any]) -> Any:
        def run(self: InterpreterFunctions, interpreter: Interpreter, op: IRDLOperation, args: PythonValues) -> Any:
            profiler = run_state(interpreter).profiler
            if profiler is not None:
                profiler.record(op, args)
            return function(self, interpreter, op, args)

        return impl(op_type)(run)

    return annotate


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


def move(interpreter: Interpreter, source: Pointer, destination: Pointer, length: int,
         groups: list[tuple[int, int, int]]) -> np.ndarray:
    """A grouped DMA: the bytes `burst_offsets` names, from source to destination; into GM combined with
    what it holds when an atomic mode is set (set_atomic_add ...). The destination byte offsets."""
    src, dst = burst_offsets(length, groups)
    data = source.gather_bytes(src)
    registers = run_state(interpreter).special_registers
    mode = registers.get("atomic")
    if mode is not None and destination.space == "gm":
        element = registers.get("atomic_type") or destination.element
        if length % element.itemsize:
            raise RuntimeFault(f"an atomic {mode} of {element} needs whole elements per burst, got {length} bytes")
        held = destination.gather_bytes(dst).view(element)
        data = ATOMIC_COMBINE[mode](held, data.view(element)).astype(element).view(np.uint8)
    destination.scatter_bytes(dst, data)
    mark_stored(interpreter, destination, dst)
    return dst


def _copy(interpreter: Interpreter, op: config.CopyGmToUbufOp | config.CopyUbufToGmOp | config.MteUbUbOp,
          source: object, destination: object, length: int, groups: list[tuple[int, int, int]]) -> None:
    """`move` from a register-configured copy's source operand to its destination operand."""
    move(interpreter, pointer_arg(interpreter, source, op.source), pointer_arg(interpreter, destination, op.destination), length, groups)


def loop_groups(interpreter: Interpreter, direction: str) -> list[tuple[int, int, int]]:
    """The loop1 and loop2 groups a register-configured copy of `direction` repeats its bursts in."""
    registers = run_state(interpreter).special_registers
    loop1, loop2 = registers.get(f"loop_size_{direction}", (1, 1))
    stride1 = registers.get(f"loop1_stride_{direction}", (0, 0))
    stride2 = registers.get(f"loop2_stride_{direction}", (0, 0))
    return [(loop1, *stride1), (loop2, *stride2)]


def _run_pintlv(self: InterpreterFunctions, interpreter: Interpreter, op: IRDLOperation, args: PythonValues):
    """The lanes of lhs and rhs interleaved (lhs[0], rhs[0], lhs[1], ...): the first half low, the rest high."""
    assert isinstance(op, predicates.MaskPairOpBase)
    lane_bytes = _mask_type(op.low.type).lane_bytes
    lhs, rhs = (masks.lanes_of(m, lane_bytes) for m in args)
    both = np.stack([lhs, rhs], axis=1).reshape(-1)
    return masks.from_lanes(both[: lhs.size], lane_bytes), masks.from_lanes(both[lhs.size :], lane_bytes)


def _run_pdintlv(self: InterpreterFunctions, interpreter: Interpreter, op: IRDLOperation, args: PythonValues):
    """The lanes of lhs then rhs, deinterleaved: the even ones low, the odd ones high."""
    assert isinstance(op, predicates.MaskPairOpBase)
    lane_bytes = _mask_type(op.low.type).lane_bytes
    both = np.concatenate([masks.lanes_of(m, lane_bytes) for m in args])
    return masks.from_lanes(both[0::2], lane_bytes), masks.from_lanes(both[1::2], lane_bytes)


def _run_mask_logic(self: InterpreterFunctions, interpreter: Interpreter, op: IRDLOperation, args: PythonValues):
    """`mask ? (a OP b) : 0`, bit by bit."""
    assert isinstance(op, predicates.MaskBinaryOpBase)
    a, b, governing = args
    return (governing & MASK_LOGIC[op.OPERATION](a, b),)


def _run_predicate_store(self: InterpreterFunctions, interpreter: Interpreter, op: IRDLOperation, args: PythonValues):
    """NORM: the 256 bits; PK: every other one (16 bytes)."""
    assert isinstance(op, predicates.PredicateStoreOpBase)
    value, base, offset = args
    pointer = pointer_arg(interpreter, base, op.destination)
    here, after = _post_update_bytes(pointer, offset * op.offset_unit, op.updated_base is not None)
    return _store_bytes(interpreter, op, here, after, masks.packed(value if op.dist.data == "NORM" else value[::2]))


def _run_predicate_load(self: InterpreterFunctions, interpreter: Interpreter, op: IRDLOperation, args: PythonValues):
    assert isinstance(op, predicates.PredicateLoadOpBase)
    base, offset = args
    here, after = _post_update_bytes(pointer_arg(interpreter, base, op.source), offset * op.offset_unit, op.updated_base is not None)
    dist = op.dist.data
    with fault_at(op):
        if dist == "NORM":
            bits = masks.unpacked(here.read(masks.PREDICATE_BYTES, np.dtype(np.uint8)))
        elif dist == "US":  # half the bits, each twice
            bits = np.repeat(masks.unpacked(here.read(masks.PREDICATE_BYTES // 2, np.dtype(np.uint8))), 2)
        else:  # DS: twice the bits, every other one
            bits = masks.unpacked(here.read(2 * masks.PREDICATE_BYTES, np.dtype(np.uint8)))[::2]
    return (bits,) if after is None else (bits, after)


def _run_spr_store(self: InterpreterFunctions, interpreter: Interpreter, op: IRDLOperation, args: PythonValues):
    assert isinstance(op, load_store.SprStoreOpBase)
    base, offset = args
    pointer = pointer_arg(interpreter, base, op.destination)
    here, after = _post_update_bytes(pointer, offset * op.BYTES_PER_OFFSET, op.updated_base is not None)
    word = np.array([run_state(interpreter).special_registers.get(op.spr.data, 0)], dtype=np.uint32)
    return _store_bytes(interpreter, op, here, after, word)


def _run_loop_config(self: InterpreterFunctions, interpreter: Interpreter, op: IRDLOperation, args: PythonValues):
    assert isinstance(op, config.LoopConfigOpBase)
    first, second = args
    run_state(interpreter).special_registers[f"{op.REGISTER}_{op.DIRECTION}"] = (int(first), int(second))
    return ()


def _run_set_atomic(self: InterpreterFunctions, interpreter: Interpreter, op: IRDLOperation, args: PythonValues):
    assert isinstance(op, config.SetAtomicOpBase)
    registers = run_state(interpreter).special_registers
    if op.SETTING in config.ATOMIC_MODES:
        registers["atomic"] = config.ATOMIC_MODES[op.SETTING]
    else:
        registers["atomic_type"] = config.atomic_dtype(op.SETTING)
    return ()


def _run_arithmetic(self: InterpreterFunctions, interpreter: Interpreter, op: IRDLOperation, args: PythonValues):
    """`mask ? a OP b : 0` per lane (b: a register, or a scalar in every lane)."""
    assert isinstance(op, arithmetic.BinaryArithmeticOp | arithmetic.VecScalarArithmeticOp)
    a, b, mask = args
    if isinstance(op, arithmetic.VecScalarArithmeticOp):
        b = np.full(a.shape, lane_scalar(b, a.dtype))
    with np.errstate(over="ignore"):  # integers wrap, floats overflow to inf, as the lanes do
        result = LANE_ARITHMETIC[op.ROW.operation](a, b).astype(a.dtype)
    return (np.where(masks.lanes_of(mask, a.dtype.itemsize), result, np.zeros((), a.dtype)),)


def _family_functions() -> type[InterpreterFunctions]:
    """One implementation for each member of the op families made per granularity or per register."""
    families = [
        (predicates.PSET_OPS, _run_pset), (predicates.PGE_OPS, _run_pset), (predicates.PLT_OPS, _run_plt),
        (predicates.PINTLV_OPS, _run_pintlv), (predicates.PDINTLV_OPS, _run_pdintlv),
        (predicates.MASK_LOGIC_OPS, _run_mask_logic),
        ((predicates.PstsOp, predicates.PstiOp), _run_predicate_store), ((predicates.PldsOp, predicates.PldiOp), _run_predicate_load),
        ((load_store.SprstiOp, load_store.SprstsOp), _run_spr_store),
        (config.LOOP_CONFIG_OPS, _run_loop_config), (config.ATOMIC_OPS, _run_set_atomic),
        (arithmetic.ARITHMETIC_OPS, _run_arithmetic),
    ]
    namespace = {f"run_{op.name}": priced(op)(function) for ops, function in families for op in ops}
    return type("FamilyFunctions", (InterpreterFunctions,), namespace)


@register_impls
class VptoFunctions(_family_functions()):
    # pointers

    @priced(pointers.CastPtrOp)
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

    @priced(pointers.AddPtrOp)
    def run_addptr(self, interpreter: Interpreter, op: pointers.AddPtrOp, args: PythonValues):
        base, offset = args
        return (pointer_arg(interpreter, base, op.ptr).advanced(offset),)

    # scope and ordering

    @priced(scope.VecScopeOp)
    def run_vecscope(self, interpreter: Interpreter, op: scope.VecScopeOp, args: PythonValues):
        return interpreter.run_ssacfg_region(op.body, (), "vecscope")

    @priced(scope.MemBarOp)
    def run_mem_bar(self, interpreter: Interpreter, op: scope.MemBarOp, args: PythonValues):
        return ()  # a run is in program order

    @priced(scope.SprClrOp)
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
        groups = [(int(c), int(s), int(d)) for c, s, d in zip(counts, source_strides, destination_strides)]
        dst = move(interpreter, source, destination, length, groups)
        if isinstance(op, dma.MteGmUbOp) and values.get("pad_value") is not None:
            self._pad_rows(op, destination, dst, length, values["pad_value"])

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

    @priced(dma.MteGmUbOp)
    def run_mte_gm_ub(self, interpreter: Interpreter, op: dma.MteGmUbOp, args: PythonValues):
        with fault_at(op):
            self._dma(interpreter, op, operands_by_name(op, args))
        return ()

    @priced(dma.MteUbGmOp)
    def run_mte_ub_gm(self, interpreter: Interpreter, op: dma.MteUbGmOp, args: PythonValues):
        with fault_at(op):
            self._dma(interpreter, op, operands_by_name(op, args))
        return ()

    # vector loads and stores

    @priced(load_store.VldsOp)
    def run_vlds(self, interpreter: Interpreter, op: load_store.VldsOp, args: PythonValues):
        base, offset = args
        pointer = pointer_arg(interpreter, base, op.source)
        here, after = _post_update(pointer, offset, op.updated_base is not None)
        with fault_at(op):
            result = load_store_kernels.load(here, op.dist_token, op.result.type)
        return (result,) if after is None else (result, after)

    @priced(load_store.VstsOp)
    def run_vsts(self, interpreter: Interpreter, op: load_store.VstsOp, args: PythonValues):
        value, base, offset, mask = args
        pointer = pointer_arg(interpreter, base, op.destination)
        here, after = _post_update(pointer, offset, op.updated_base is not None)
        with fault_at(op):
            written = load_store_kernels.store(here, op.dist_token, op.vreg, value, mask)
        mark_stored(interpreter, here, written)
        return () if after is None else (after,)

    # predicates

    @priced(predicates.PselOp)
    def run_psel(self, interpreter: Interpreter, op: predicates.MaskBinaryOpBase, args: PythonValues):
        a, b, select = args
        return (np.where(select, a, b),)

    @priced(predicates.PnotOp)
    def run_pnot(self, interpreter: Interpreter, op: predicates.PnotOp, args: PythonValues):
        a, governing = args
        return (governing & ~a,)


    # register-configured DMA

    @priced(config.CopyGmToUbufOp)
    def run_copy_gm_to_ubuf(self, interpreter: Interpreter, op: config.CopyGmToUbufOp, args: PythonValues):
        source, destination, _sid, n_burst, length, left, right, data_select, _l2, gm_stride, ub_stride = args
        with fault_at(op):
            if data_select or left or right:
                raise RuntimeFault("pto-run does not run copy_gm_to_ubuf's padding (data_select_bit, padding counts) yet")
            groups = [(int(n_burst), int(gm_stride), int(ub_stride)), *loop_groups(interpreter, "outtoub")]
            _copy(interpreter, op, source, destination, int(length), groups)
        return ()

    @priced(config.CopyUbufToGmOp)
    def run_copy_ubuf_to_gm(self, interpreter: Interpreter, op: config.CopyUbufToGmOp, args: PythonValues):
        source, destination, _sid, n_burst, length, _reserved, gm_stride, ub_stride = args
        with fault_at(op):
            groups = [(int(n_burst), int(ub_stride), int(gm_stride)), *loop_groups(interpreter, "ubtoout")]
            _copy(interpreter, op, source, destination, int(length), groups)
        return ()

    @priced(config.MteUbUbOp)
    def run_mte_ub_ub(self, interpreter: Interpreter, op: config.MteUbUbOp, args: PythonValues):
        source, destination, n_burst, length, src_gap, dst_gap = args
        block = config.MTE_UB_UB_BLOCK_BYTES
        with fault_at(op):
            groups = [(int(n_burst), (int(length) + int(src_gap)) * block, (int(length) + int(dst_gap)) * block)]
            _copy(interpreter, op, source, destination, int(length) * block, groups)
        return ()

    # dual, block-strided and unaligned loads and stores

    @priced(load_store.Vldsx2Op)
    def run_vldsx2(self, interpreter: Interpreter, op: load_store.Vldsx2Op, args: PythonValues):
        base, offset = args
        here, after = _post_update(pointer_arg(interpreter, base, op.source), offset, op.updated_base is not None)
        with fault_at(op):
            low, high = load_store_kernels.load_x2(here, op.dist.data, _vreg(op.low.type))
        return (low, high) if after is None else (low, high, after)

    @priced(load_store.Vstsx2Op)
    def run_vstsx2(self, interpreter: Interpreter, op: load_store.Vstsx2Op, args: PythonValues):
        low, high, base, offset, _mask = args
        here, _ = _post_update(pointer_arg(interpreter, base, op.destination), offset, False)
        with fault_at(op):
            written = load_store_kernels.store_x2(here, op.dist.data, low, high)
        mark_stored(interpreter, here, written)
        return ()

    @priced(load_store.VsldbOp)
    def run_vsldb(self, interpreter: Interpreter, op: load_store.VsldbOp, args: PythonValues):
        base, block_stride, repeat_stride, mask = args
        pointer = pointer_arg(interpreter, base, op.source)
        here, after = _post_update_bytes(pointer, repeat_stride * load_store.BLOCK_BYTES, op.updated_base is not None)
        with fault_at(op):
            result = load_store_kernels.load_blocks(here, block_stride, mask, _mask_type(op.mask.type).lane_bytes, _vreg(op.result.type))
        return (result,) if after is None else (result, after)

    @priced(load_store.VsstbOp)
    def run_vsstb(self, interpreter: Interpreter, op: load_store.VsstbOp, args: PythonValues):
        value, base, block_stride, repeat_stride, mask = args
        pointer = pointer_arg(interpreter, base, op.destination)
        here, after = _post_update_bytes(pointer, repeat_stride * load_store.BLOCK_BYTES, op.updated_base is not None)
        with fault_at(op):
            written = load_store_kernels.store_blocks(here, block_stride, mask, _mask_type(op.mask.type).lane_bytes, value)
        mark_stored(interpreter, here, written)
        return () if after is None else (after,)

    @priced(load_store.VldasOp)
    def run_vldas(self, interpreter: Interpreter, op: load_store.VldasOp, args: PythonValues):
        pointer = pointer_arg(interpreter, args[0], op.source)
        with fault_at(op):  # the priming load reads the aligned block holding the address
            pointer.advanced_bytes(-(pointer.byte % load_store.BLOCK_BYTES)).read(load_store.BLOCK_BYTES, np.dtype(np.uint8))
        return (unaligned.Align(),)

    @priced(load_store.VldusOp)
    def run_vldus(self, interpreter: Interpreter, op: load_store.VldusOp, args: PythonValues):
        base, align, *increment = args
        pointer = pointer_arg(interpreter, base, op.source)
        vreg = _vreg(op.result.type)
        with fault_at(op):
            result = pointer.read(vreg.lanes, vreg.element.numpy)
        if not increment:
            return result, align
        return result, align, pointer.advanced(increment[0])

    @priced(load_store.InitAlignOp)
    def run_init_align(self, interpreter: Interpreter, op: load_store.InitAlignOp, args: PythonValues):
        return (unaligned.Align(),)

    @priced(load_store.VstusOp)
    def run_vstus(self, interpreter: Interpreter, op: load_store.VstusOp, args: PythonValues):
        state, count, value, base = args
        pointer = pointer_arg(interpreter, base, op.base)
        with fault_at(op):
            if not 0 <= count <= value.size:
                raise RuntimeFault(f"offset {count} is outside [0, {value.size}]: the register's elements")
            state, written = unaligned.append(state, pointer, value[:count])
        mark_stored(interpreter, pointer, written)
        return (state,) if op.base_out is None else (state, pointer.advanced(count))

    @priced(load_store.VsturOp)
    def run_vstur(self, interpreter: Interpreter, op: load_store.VsturOp, args: PythonValues):
        state, value, base = args
        registers = run_state(interpreter).special_registers
        squeezed = int(registers.get("SQZN", 0))
        position = pointer_arg(interpreter, base, op.base).advanced_bytes(int(registers.get("AR", 0)))
        with fault_at(op):
            state, written = unaligned.append(state, position, np.ascontiguousarray(value).view(np.uint8)[:squeezed])
        mark_stored(interpreter, position, written)
        if op.mode.data == "POST_UPDATE":
            registers["AR"] = int(registers.get("AR", 0)) + squeezed
        return (state,)

    @priced(load_store.VstasOp)
    def run_vstas(self, interpreter: Interpreter, op: load_store.VstasOp, args: PythonValues):
        state, base, offset = args
        here, after = _post_update(pointer_arg(interpreter, base, op.destination), offset, op.updated_base is not None)
        with fault_at(op):
            written = unaligned.flush(state, here)
        mark_stored(interpreter, here, written)
        return () if after is None else (after,)

    @priced(load_store.VstarOp)
    def run_vstar(self, interpreter: Interpreter, op: load_store.VstarOp, args: PythonValues):
        state, base = args
        at = pointer_arg(interpreter, base, op.destination).advanced_bytes(int(run_state(interpreter).special_registers.get("AR", 0)))
        with fault_at(op):
            written = unaligned.flush(state, at)
        mark_stored(interpreter, at, written)
        return ()

    # unaligned predicate stores

    @priced(predicates.PstuOp)
    def run_pstu(self, interpreter: Interpreter, op: predicates.PstuOp, args: PythonValues):
        state, value, base = args
        pointer = pointer_arg(interpreter, base, op.base)
        data = masks.packed(masks.lanes_of(value, _mask_type(op.value.type).lane_bytes))
        with fault_at(op):
            state, written = unaligned.append(state, pointer, data)
        mark_stored(interpreter, pointer, written)
        return state, pointer.advanced_bytes(data.size)

    # predicate shuffles

    @priced(predicates.PpackOp)
    def run_ppack(self, interpreter: Interpreter, op: predicates.MaskPartOpBase, args: PythonValues):
        lane_bytes = _mask_type(op.result.type).lane_bytes
        lanes = masks.lanes_of(args[0], lane_bytes)
        half = lanes.size // 2
        result = np.zeros_like(lanes)
        start = 0 if op.part.data == "LOWER" else half
        result[start : start + half] = lanes[0::2]
        return (masks.from_lanes(result, lane_bytes),)

    @priced(predicates.PunpackOp)
    def run_punpack(self, interpreter: Interpreter, op: predicates.MaskPartOpBase, args: PythonValues):
        lane_bytes = _mask_type(op.result.type).lane_bytes
        lanes = masks.lanes_of(args[0], lane_bytes)
        half = lanes.size // 2
        source = lanes[:half] if op.part.data == "LOWER" else lanes[half:]
        result = np.zeros_like(lanes)
        result[0::2] = source
        return (masks.from_lanes(result, lane_bytes),)

    # vector materialization, select, compare, squeeze

    @priced(vector.VbrOp)
    def run_vbr(self, interpreter: Interpreter, op: vector.VbrOp, args: PythonValues):
        vreg = _vreg(op.result.type)
        return (np.full(vreg.lanes, lane_scalar(args[0], vreg.element.numpy)),)

    @priced(vector.VdupOp)
    def run_vdup(self, interpreter: Interpreter, op: vector.VdupOp, args: PythonValues):
        source, mask = args
        vreg = _vreg(op.result.type)
        if isinstance(op.input.type, VRegType):
            value = source[-1] if op.position is not None and op.position.data == "HIGHEST" else source[0]
        else:
            value = lane_scalar(source, vreg.element.numpy)
        active = masks.lanes_of(mask, vreg.element.bytes)
        return (np.where(active, value, np.zeros((), vreg.element.numpy)).astype(vreg.element.numpy),)

    @priced(vector.VselOp)
    def run_vsel(self, interpreter: Interpreter, op: vector.VselOp, args: PythonValues):
        a, b, mask = args
        return (np.where(masks.lanes_of(mask, a.dtype.itemsize), a, b),)

    @priced(vector.VcmpsOp)
    def run_vcmps(self, interpreter: Interpreter, op: vector.VcmpsOp, args: PythonValues):
        source, scalar, mask = args
        width = source.dtype.itemsize
        compared = COMPARE[op.cmp_mode.data](source, lane_scalar(scalar, source.dtype))
        return (masks.from_lanes(masks.lanes_of(mask, width) & compared, width),)

    @priced(vector.VsqzOp)
    def run_vsqz(self, interpreter: Interpreter, op: vector.VsqzOp, args: PythonValues):
        source, mask = args
        kept = source[masks.lanes_of(mask, source.dtype.itemsize)]
        result = np.zeros_like(source)
        result[: kept.size] = kept
        run_state(interpreter).special_registers["SQZN"] = kept.size * source.dtype.itemsize
        return (result,)

    @priced(vector.VintlvOp)
    def run_vintlv(self, interpreter: Interpreter, op: vector.LanePairOp, args: PythonValues):
        lhs, rhs = args
        pairs = np.stack([lhs, rhs], axis=1).reshape(-1)
        return pairs[: lhs.size], pairs[lhs.size :]

    @priced(vector.VdintlvOp)
    def run_vdintlv(self, interpreter: Interpreter, op: vector.LanePairOp, args: PythonValues):
        both = np.concatenate(args)
        return both[0::2].copy(), both[1::2].copy()

    @priced(vector.VcvtOp)
    def run_vcvt(self, interpreter: Interpreter, op: vector.VcvtOp, args: PythonValues):
        source, mask = args
        target = _vreg(op.result.type).element.numpy
        active = masks.lanes_of(mask, source.dtype.itemsize)[: source.size]
        with fault_at(op):
            converted = convert(source, target, op.rnd.data if op.rnd is not None else "R",
                                op.sat.data if op.sat is not None else None, active)
        converted = np.where(active, converted, np.zeros((), target))
        part = vector.PARTS[op.part.data] if op.part is not None else 0
        result = np.zeros(_vreg(op.result.type).lanes, target)
        if source.size <= result.size:  # each source lane into sub-lane `part` of its group
            result[part :: op.factor] = converted
        else:  # sub-lane `part` of each source group into one result lane
            result[:] = converted[part :: op.factor]
        return (result,)


def convert(values: np.ndarray, target: np.dtype, rounding: str, saturation: str | None, active: np.ndarray) -> np.ndarray:
    """Lanes converted to `target`. To a float type: nearest-even (R, NumPy's own rounding, IEEE's default);
    other roundings are not run yet. To an integer: TCVT's a5 conversion (tcvt.py `vconv`: rounded once by
    the mode, NaN to 0, saturated (SAT) or keeping the low bits (NOSAT)); without a `sat`, an active lane
    out of the target's range is a run-time error naming it (PTOAS lowers such a conversion only with one)."""
    if target.kind == "f" or target.name == "bfloat16":
        exact = values.dtype.kind == "f" and values.dtype.itemsize < target.itemsize  # a float widened
        if rounding != "R" and not exact:
            raise RuntimeFault(f"pto-run converts to {target} with rnd \"R\" only yet, got \"{rounding}\"")
        return values.astype(target)
    if rounding == "O":
        raise RuntimeFault(f"rnd \"O\" rounds to odd float mantissas; a conversion to {target} takes R, A, F, C or Z")
    mode = vector.ROUNDINGS[rounding]
    with np.errstate(all="ignore"):  # NaN and out-of-range lanes are values here
        saturated = vconv(values, target, mode, SaturationMode.ON)
        if saturation is not None:
            return saturated if vector.SATURATIONS[saturation] is SaturationMode.ON else vconv(values, target, mode, SaturationMode.OFF)
        outside = active & (saturated != vconv(values, target, mode, SaturationMode.OFF))
    if outside.any():
        lane = int(np.argmax(outside))
        raise RuntimeFault(f"lane {lane} ({values[lane]}) is outside {target}'s range and the conversion names no sat")
    return saturated


def lane_scalar(value: Any, dtype: np.dtype) -> Any:
    """A scalar operand as one lane of `dtype` (an integer wraps to the lane's width: b8 takes its low 8 bits)."""
    if dtype.kind in "iu":
        return np.array(int(value), dtype=np.int64).astype(dtype)[()]
    return np.array(value, dtype=dtype)[()]


def _vreg(value_type: object) -> VRegType:
    assert isinstance(value_type, VRegType)
    return value_type


def _mask_type(value_type: object) -> MaskType:
    assert isinstance(value_type, MaskType)
    return value_type


def operands_by_name(op: Operation, args: PythonValues) -> dict[str, Any]:
    """An op's run-time operands by their definition's names (variadic ones as lists)."""
    assert isinstance(op, IRDLOperation)
    named: dict[str, Any] = {}
    values = iter(args)
    for name, _ in type(op).get_irdl_definition().operands:
        operand = getattr(op, name)
        if operand is None:
            named[name] = None
        elif isinstance(operand, SSAValue):
            named[name] = next(values)
        else:  # a variadic operand
            named[name] = [next(values) for _ in operand]
    return named


def _post_update(pointer: Pointer, offset: int, post: bool) -> tuple[Pointer, Pointer | None]:
    """Where an element-offset access happens and, in the post-update form, the pointer it returns:
    without it at base + offset; with it at base, returning base + offset (VPTOAddressSemantics.cpp)."""
    moved = pointer.advanced(offset)
    return (pointer, moved) if post else (moved, None)


def _post_update_bytes(pointer: Pointer, offset: int, post: bool) -> tuple[Pointer, Pointer | None]:
    moved = pointer.advanced_bytes(offset)
    return (pointer, moved) if post else (moved, None)


def _store_bytes(interpreter: Interpreter, op: Operation, here: Pointer, after: Pointer | None, data: np.ndarray) -> PythonValues:
    """`data` written at `here` (its bytes marked stored); the op's post-update result, if it has one."""
    with fault_at(op):
        here.write(data)
    mark_stored(interpreter, here, np.arange(data.nbytes))
    return () if after is None else (after,)



