"""The register gathers' target rule: vgatherb's source, where its address is a constant, is 32-byte
aligned (PTOAS 03-vector-load-store.md: it moves 32-byte blocks from a 32-byte aligned base)."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation, SSAValue

from pto_dialect import register_level_declared
from pto_dialect.facts import RuleViolation


def constant_address(pointer: SSAValue) -> int | None:
    """The byte address of a pointer cast from an integer constant (None: not known before the run)."""
    from pto_dialect.vpto.pointers import CastPtrOp

    cast = pointer.owner
    if not isinstance(cast, CastPtrOp):
        return None
    constant = cast.input.owner
    if isinstance(constant, arith.ConstantOp) and isinstance(constant.value, IntegerAttr):
        return constant.value.value.data
    return None


def check_register_gather(op: Operation) -> None:
    if not register_level_declared():
        return
    from pto_dialect.vpto.gather import VGatherBOp
    from pto_dialect.vpto.gather_kernels import BLOCK_BYTES

    if isinstance(op, VGatherBOp) and (address := constant_address(op.source)) is not None and address % BLOCK_BYTES:
        raise RuleViolation(f"expects a {BLOCK_BYTES}-byte aligned source (it gathers {BLOCK_BYTES}-byte blocks), got UB byte {address}")
