"""
The interpreter functions of every target dialect: each lowered-op base
(lowering/ops.py) has one runner here, which reads the op's choices and calls
a kernel; `target_functions(dialect)` registers them for the ops of a target's
dialect. Run-time faults are located at the op and named after the pto
instruction it came from. Ops whose operand types leave a dimension dynamic
re-run the target's rule table on the actual shapes first (the same functions
the verifier uses).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple, TypeVar
from weakref import WeakKeyDictionary

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Dialect, Operation, SSAValue

from pto_dialect.attributes import Coalesce
from pto_dialect.dtypes import element_info
from pto_dialect.roles import WORKSPACE_ROLES
from pto_dialect.types import ShapedViewBase, TileTypeBase

from lowering.ops import (
    LoadIndexVectorBase,
    LoweredOp,
    MGatherBase,
    MGatherElemBase,
    MGatherL1Base,
    MGatherNzBase,
    MGatherRowBase,
    RegisterGatherBase,
    RegisterStoreBase,
    TColArgMinBase,
    TGatherCompareBase,
    TGatherIndexBase,
    TGatherMaskBase,
    VRegType,
)
from targets.rules import Options, check_instruction, static_facts
from targets.rules.common import UNKNOWN, RuleViolation, TileFacts, ViewFacts, inferred_layout, inferred_strides

from interpreter import kernels
from interpreter.memory import GmView, RuntimeFault, Tile
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


@_per_op
def roles_of(op: LoweredOp) -> tuple[str, ...]:
    """The op's operand roles, worked out once (reading the operand groups costs ~10 us)."""
    return op.roles


@_per_op
def _has_dynamic_dims(op: LoweredOp) -> bool:
    for v in (*op.ins, *op.outs):
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


@_per_op
def _rule_options(op: LoweredOp) -> Options:
    """The attributes of a lowered op that its pto instruction's rules read."""
    if isinstance(op, MGatherBase):
        executor = op.executor if isinstance(op, MGatherL1Base) else None
        return Options(coalesce=op.coalesce.data, gather_exec=executor.data if executor is not None else None)
    if isinstance(op, TGatherMaskBase):
        return Options(mask_pattern=op.pattern.data, mask_axis=op.axis.data)
    if isinstance(op, TGatherCompareBase):
        return Options(cmp_mode=op.cmp_mode.data)
    return Options()


def recheck_rules(interpreter: Interpreter, op: LoweredOp, args: PythonValues) -> None:
    """Re-run the op's target rules on the actual valid shapes, if any was dynamic."""
    if not _has_dynamic_dims(op):
        return
    target = run_state(interpreter).target
    operands = {r: _facts(r, v, a) for r, v, a in zip(roles_of(op), op.operands, args)}
    try:
        check_instruction(op.SOURCE, target, operands, _rule_options(op))
    except RuleViolation as e:
        raise RuntimeFault(f"{e} (target {target}, run-time valid shapes)") from e


def reads_only(op: LoweredOp, index: int) -> bool:
    """Whether the op's operand `index` is an input it only reads (not a workspace or an out)."""
    return index < len(op.ins) and roles_of(op)[index] not in WORKSPACE_ROLES


class KernelCall(NamedTuple):
    """What a lowered op runs: a kernel of interpreter/kernels.py, its operands, and the
    target's choices read from the op (the same call serves a batched loop, interpreter/batch.py)."""

    kernel: Callable[..., None]
    operands: tuple[object, ...]
    params: dict[str, object]


@_per_op
def _kernel_params(op: LoweredOp) -> tuple[Callable[..., None], dict[str, object]] | None:
    """The kernel an op runs and its keyword arguments, read once from its choices (None: the
    op runs its own code)."""
    if isinstance(op, MGatherBase):
        common: dict[str, object] = dict(index_read=op.index_read.data, bound_by=op.capacity.data, oob=op.oob.data)
        if isinstance(op, MGatherRowBase):
            return kernels.mgather_row, {**common, "row_stride": op.row_stride.data, "col_stride": op.col_stride.data}
        if isinstance(op, MGatherElemBase):
            return kernels.mgather_elem, common
        if isinstance(op, MGatherL1Base):
            if op.row_stride is not None:
                return kernels.mgather_l1_row, {**common, "row_stride": op.row_stride.data}
            return kernels.mgather_l1_elem, common
        assert isinstance(op, MGatherNzBase)
        return kernels.mgather_nz, {**common, "row_mode": op.coalesce.data == Coalesce.ROW}
    if isinstance(op, TGatherIndexBase):
        return kernels.tgather_index, dict(out_of_range=op.out_of_range.data, tmp_use=op.tmp_use.data)
    if isinstance(op, TGatherMaskBase):
        return kernels.tgather_mask, dict(pattern=op.pattern.data, axis=op.axis.data, packing=op.packing.data)
    if isinstance(op, TColArgMinBase):
        return kernels.colargmin, dict(
            compare=op.compare.data, nan=op.nan.data, row_counter=op.row_counter.data, src_read=op.src_read.data
        )
    return None


def kernel_of(op: Operation) -> Callable[..., None] | None:
    """The kernel a lowered op runs through kernel_call (None for any other op)."""
    found = _kernel_params(op) if isinstance(op, LoweredOp) else None
    return found[0] if found is not None else None


def kernel_call(op: LoweredOp, args: PythonValues) -> KernelCall:
    """The kernel call of an op that has one (kernel_of), its operands taken by role."""
    kernel, params = _kernel_params(op)  # type: ignore[misc]
    by_role = dict(zip(roles_of(op), args))
    if isinstance(op, MGatherBase):
        # mgather_l1_elem also takes the scratch view
        scratch = (by_role["scratch"],) if kernel is kernels.mgather_l1_elem else ()
        operands = (by_role["mem"], by_role["idx"], *scratch, by_role["dst"])
    elif isinstance(op, TGatherIndexBase):
        operands = (by_role["src"], by_role["indices"], by_role["dst"], by_role.get("tmp"))
    elif isinstance(op, TColArgMinBase):
        operands = (by_role["src"], by_role.get("dstIdx", by_role.get("dst")), by_role.get("dstVal"))
    else:
        operands = (by_role["src"], by_role["dst"])
    return KernelCall(kernel, operands, params)


def run_kernel(interpreter: Interpreter, op: LoweredOp, args: PythonValues) -> PythonValues:
    """Run a lowered op through its kernel call; faults are located at the op, named after its pto op."""
    call = kernel_call(op, args)
    with fault_at(op, op.SOURCE):
        recheck_rules(interpreter, op, args)
        call.kernel(*call.operands, **call.params)
    return ()


def run_tgather_compare(interpreter: Interpreter, op: TGatherCompareBase, args: PythonValues) -> PythonValues:
    by_role = dict(zip(roles_of(op), args))
    src, k, dst, cdst = by_role["src"], by_role["threshold"], by_role["dst"], by_role["cdst"]

    def kernel() -> None:
        vr = src.valid_row
        if isinstance(k, Tile):
            per_row = k.read_valid().reshape(-1)[:vr]
            if op.compare.data == "numeric":  # a2a3 converts the integer thresholds to src's type
                if src.flat.dtype == np.float16:  # half reads them as 16-bit (u16 -> i16)
                    per_row = (per_row.astype(np.int64) & 0xFFFF).astype(np.uint16).view(np.int16)
                per_row = per_row.astype(src.flat.dtype)
        else:
            per_row = np.full(vr, k, dtype=src.flat.dtype)
        kernels.tgather_compare(
            src, dst, cdst,
            cmp_mode=op.cmp_mode.data, offset=op.offset.value.data,
            index_numbering=op.index_numbering.data, compare=op.compare.data, k_per_row=per_row,
        )

    with fault_at(op, op.SOURCE):
        recheck_rules(interpreter, op, args)
        kernel()
    return ()


def _lane_dtype(register: VRegType) -> np.dtype:
    info = element_info(register.element_type)
    assert info is not None
    return info.numpy


def run_load_index_vector(interpreter: Interpreter, op: LoadIndexVectorBase, args: PythonValues) -> PythonValues:
    (indices,) = args
    assert isinstance(op.result.type, VRegType)
    return (kernels.load_index_vector(indices, _lane_dtype(op.result.type)),)


def run_register_gather(interpreter: Interpreter, op: RegisterGatherBase, args: PythonValues) -> PythonValues:
    base, index, mask = args
    assert isinstance(op.result.type, VRegType)
    with fault_at(op, op.SOURCE):
        return (kernels.register_gather(base, index, mask.valid_shape, _lane_dtype(op.result.type)),)


def run_register_store(interpreter: Interpreter, op: RegisterStoreBase, args: PythonValues) -> PythonValues:
    value, dst = args
    kernels.register_store(value, dst)
    return ()


RUNNERS: dict[type[Operation], Callable[[Interpreter, Operation, PythonValues], PythonValues]] = {
    MGatherBase: run_kernel,
    TGatherIndexBase: run_kernel,
    TGatherMaskBase: run_kernel,
    TGatherCompareBase: run_tgather_compare,
    TColArgMinBase: run_kernel,
    LoadIndexVectorBase: run_load_index_vector,
    RegisterGatherBase: run_register_gather,
    RegisterStoreBase: run_register_store,
}
"""The runner of each lowered-op base; a target op runs its nearest base's runner."""


def target_functions(dialect: Dialect) -> type[InterpreterFunctions]:
    """The interpreter functions of a target dialect: each op runs its base's runner."""
    if (known := _FUNCTIONS.get(dialect.name)) is not None:
        return known
    namespace = {}
    for op_class in dialect.operations:
        runner = next((RUNNERS[base] for base in op_class.__mro__ if base in RUNNERS), None)
        if runner is None:
            raise TypeError(f"{op_class.name} derives from no lowered-op base with a runner")
        namespace[f"run_{op_class.name}"] = impl(op_class)(
            lambda self, interpreter, op, args, run=runner: run(interpreter, op, args)
        )
    functions = register_impls(type(f"{dialect.name}_functions", (InterpreterFunctions,), namespace))
    _FUNCTIONS[dialect.name] = functions
    return functions


_FUNCTIONS: dict[str, type[InterpreterFunctions]] = {}
