"""
The vector scope and the ops that only order or configure (PTOAS include/PTO/IR/VPTOOps.td):

    pto.vecscope { ... }          one vector interval; sync ops (set_flag, barrier, ...) delimit scopes and
                                  stay outside it
    pto.mem_bar "VST_VLD"         orders the vector unit's own memory accesses inside a scope
    pto.sprclr "AR"               clears the AR special register the AR-driven unaligned stores advance

A run is in program order, so mem_bar changes no value; sprclr sets the run's AR to 0.
"""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Region
from xdsl.irdl import IRDLOperation, irdl_op_definition, prop_def, region_def, traits_def
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, NoTerminator, RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from pto_dialect.ops import sync
from pto_dialect.vpto.common import require_token

MEM_BAR_KINDS = (
    "VV_ALL", "VST_VLD", "VLD_VST", "VST_VST", "VS_ALL", "VST_LD", "VLD_ST", "VST_ST",
    "SV_ALL", "ST_VLD", "LD_VST", "ST_VST", "SS_ALL", "ST_LD", "LD_ST", "ST_ST",
)
"""PTOAS's MemBarKind (include/PTO/IR/PTOAttrs.td): which accesses before wait for which after."""

SPECIAL_REGISTERS = ("AR",)
"""The special registers sprclr / sprsti / sprsts name."""


@irdl_op_definition
class VecScopeOp(IRDLOperation):
    """One vector-scope interval: its body runs on the vector unit, once, in order."""

    name = "pto.vecscope"

    body = region_def("single_block")
    traits = traits_def(NoTerminator(), RecursiveMemoryEffect())
    assembly_format = "$body attr-dict"

    def __init__(self, body: Region):
        super().__init__(regions=[body])

    def verify_(self) -> None:
        for op in self.body.walk():
            if isinstance(op, tuple(sync.SYNC_OPS)):
                raise VerifyException(
                    f"holds {op.name}, which must be outside 'pto.vecscope': synchronization operations delimit vector scopes"
                )


@irdl_op_definition
class MemBarOp(IRDLOperation):
    """A barrier between the vector unit's memory accesses of the kinds it names."""

    name = "pto.mem_bar"

    kind = prop_def(StringAttr)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "$kind attr-dict"

    def verify_(self) -> None:
        require_token(self.kind.data, MEM_BAR_KINDS, "the barrier kind")


@irdl_op_definition
class SprClrOp(IRDLOperation):
    """Clear a special register (AR only)."""

    name = "pto.sprclr"

    spr = prop_def(StringAttr)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$spr attr-dict"

    def verify_(self) -> None:
        require_token(self.spr.data, SPECIAL_REGISTERS, "spr")


SCOPE_OPS = [VecScopeOp, MemBarOp, SprClrOp]
