"""The register level's target rules: only a target with a register level (targets/info.py
`RegisterLevel`) takes its ops, and a UB pointer made from a constant address lies inside that
target's UB."""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation

from pto_dialect import register_level_declared
from pto_dialect.diagnostics import not_implemented
from pto_dialect.dialect import register_level
from pto_dialect.facts import RuleViolation
from pto_dialect.types import PtrType
from targets.info import MEMORY_NAMES, TargetInfo

if TYPE_CHECKING:
    from pto_dialect.vpto.pointers import CastPtrOp

_OFF_REGISTER_LEVEL = "pointer and GM-UB copy ops on a target without the register level"


def is_register_level(op: Operation) -> bool:
    """A register-level op, or one whose operands or results are registers (an scf.for carrying a mask)."""
    if not register_level_declared():
        return False
    ops, types = register_level()
    return isinstance(op, ops) or any(isinstance(v.type, types) for v in (*op.operands, *op.results))


def check_register_level(op: Operation, target: TargetInfo) -> None:
    """Raise RuleViolation for a register-level op on a target without one, or a UB pointer past UB."""
    if not is_register_level(op):
        return
    level = target.register_level
    from pto_dialect.vpto.pointers import CastPtrOp

    if level is None:
        from targets import REGISTRY  # the registry imports this module's package

        from pto_dialect.vpto.config import CopyGmToUbufOp, CopyUbufToGmOp
        from pto_dialect.vpto.pointers import AddPtrOp

        owners = ", ".join(t.name for t in REGISTRY if t.register_level is not None)
        # pointer arithmetic and GM <-> UB copies are a2a3's work too (PTOAS takes them there);
        # this project has them with the register level only
        if isinstance(op, AddPtrOp | CastPtrOp | CopyGmToUbufOp | CopyUbufToGmOp):
            raise RuleViolation(not_implemented(f"is a register-level op here, taken on {owners} only", _OFF_REGISTER_LEVEL))
        raise RuleViolation(f"is a register-level op; the register level is {owners}'s")
    if isinstance(op, CastPtrOp) and isinstance(op.result.type, PtrType) and op.result.type.space.data == "ub":
        address = _constant(op)
        size = target.on_chip_bytes[level.ub_loc]
        width = op.result.type.element.bytes
        if address is not None and not 0 <= address <= size - width:
            raise RuleViolation(
                f"makes a UB pointer at byte {address}, outside the {size} bytes of {MEMORY_NAMES[level.ub_loc]}"
            )


def _constant(op: CastPtrOp) -> int | None:
    owner = op.input.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None
