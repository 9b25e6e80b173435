"""
Vector registers, for targets whose lowering goes down to register steps (a5): the
`!pto_reg.vreg<T>` type, its dialect, the effects of a register step on the tiles it names,
and the lane type a step's kernel takes.
"""

from __future__ import annotations

from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.traits import EffectInstance, MemoryEffect, MemoryEffectKind

from pto_dialect.dtypes import element_info


@irdl_attr_definition
class VRegType(ParametrizedAttribute, TypeAttribute):
    """`!pto_reg.vreg<T>`: a vector register of T lanes (one whole tile's worth here)."""

    name = "pto_reg.vreg"
    element_type: Attribute


PTO_REG = Dialect("pto_reg", [], [VRegType])
"""Vector registers, for targets whose lowering goes down to register steps."""


class OperandEffectsByName(MemoryEffect):
    """An op reads or writes what its named operands hold (a register step its tiles, a scalar access its
    pointer, array or tile)."""

    def __init__(self, reads: tuple[str, ...] = (), writes: tuple[str, ...] = ()):
        super().__init__()
        self.reads, self.writes = reads, writes

    def get_effects(self, op: Operation) -> set[EffectInstance]:  # pyright: ignore[reportIncompatibleMethodOverride]
        return {EffectInstance(MemoryEffectKind.READ, getattr(op, n)) for n in self.reads} | {
            EffectInstance(MemoryEffectKind.WRITE, getattr(op, n)) for n in self.writes
        }


def result_lane(op: Operation) -> dict[str, object]:
    """A register step's kernel parameter: its result register's lane type."""
    info = element_info(op.results[0].type.element_type)  # pyright: ignore[reportAttributeAccessIssue]
    assert info is not None
    return {"lane": info.numpy}
