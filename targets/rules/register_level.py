"""The register level's target rules: only a target with a register level (targets/info.py
`RegisterLevel`) takes its ops, and a UB pointer made from a constant address lies inside that
target's UB."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation

from pto_dialect.facts import RuleViolation
from pto_dialect.types import PtrType
from pto_dialect.vpto import VPTO_OPS
from pto_dialect.diagnostics import not_implemented
from pto_dialect.vpto.config import CopyGmToUbufOp, CopyUbufToGmOp
from pto_dialect.vpto.pointers import AddPtrOp, CastPtrOp
from pto_dialect.vpto.types import VPTO_TYPES
from targets.info import MEMORY_NAMES, TargetInfo

_REGISTER_OPS = tuple(VPTO_OPS)
_ON_EVERY_NPU = (AddPtrOp, CastPtrOp, CopyGmToUbufOp, CopyUbufToGmOp)
"""Register-level ops whose work a2a3's code does too (pointer arithmetic, GM <-> UB copies), which
PTOAS takes on a2a3: this project has them with the register level only."""
_OFF_REGISTER_LEVEL = "pointer and GM-UB copy ops on a target without the register level"
_REGISTER_TYPES = tuple(VPTO_TYPES)


def is_register_level(op: Operation) -> bool:
    """A register-level op, or one whose operands or results are registers (an scf.for carrying a mask)."""
    return isinstance(op, _REGISTER_OPS) or any(
        isinstance(v.type, _REGISTER_TYPES) for v in (*op.operands, *op.results)
    )


def check_register_level(op: Operation, target: TargetInfo) -> None:
    """Raise RuleViolation for a register-level op on a target without one, or a UB pointer past UB."""
    if not is_register_level(op):
        return
    level = target.register_level
    if level is None:
        from targets import REGISTRY  # the registry imports this module's package

        owners = ", ".join(t.name for t in REGISTRY if t.register_level is not None)
        if isinstance(op, _ON_EVERY_NPU):
            raise RuleViolation(not_implemented(f"is a register-level op here, taken on {owners} only", _OFF_REGISTER_LEVEL))
        raise RuleViolation(f"is a register-level op; the register level is {owners}'s, not {target}'s")
    if isinstance(op, CastPtrOp) and isinstance(op.result.type, PtrType) and op.result.type.space.data == "ub":
        address = _constant(op)
        size = target.on_chip_bytes[level.ub_loc]
        width = op.result.type.element.bytes
        if address is not None and not 0 <= address <= size - width:
            raise RuleViolation(
                f"makes a UB pointer at byte {address}, outside the {size} bytes of {MEMORY_NAMES[level.ub_loc]} on target {target}"
            )


def _constant(op: CastPtrOp) -> int | None:
    owner = op.input.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None
