"""Column arg-reductions: TCOLARGMIN (spec/tcolargmin.md)."""

from __future__ import annotations

from xdsl.ir import SSAValue
from xdsl.irdl import irdl_op_definition
from xdsl.utils.exceptions import VerifyException

from pto_dialect.ops.common import PtoInstructionOp, same_element_type


@irdl_op_definition
class TColArgMinOp(PtoInstructionOp):
    """
    Row index of each column's minimum (first minimum wins), optionally with the value.

      dstIdx[0, j] = argmin_{i < vr} src[i, j]        j < vc
      dstVal[0, j] = min_{i < vr} src[i, j]           (value+index form)

        pto.tcolargmin ins(%src[, %tmp] : Ts[, Tt]) outs(%dstIdx : Ti)
        pto.tcolargmin ins(%src[, %tmp] : Ts[, Tt]) outs(%dstVal, %dstIdx : Tv, Ti)
        %i = pto.tcolargmin %src[, %tmp] : (Ts[, Tt]) -> Ti
        %v, %i = pto.tcolargmin %src[, %tmp] : (Ts[, Tt]) -> (Tv, Ti)
    """

    name = "pto.tcolargmin"

    @property
    def src(self) -> SSAValue:
        return self.operand("src")

    @property
    def tmp(self) -> SSAValue | None:
        return self.role("tmp")

    @property
    def has_value_output(self) -> bool:
        return len(self.destinations) == 2

    @property
    def dst_idx(self) -> SSAValue:
        return self.destinations[-1]  # "dst" or "dstIdx" (pto_dialect/roles.py): always the last

    @property
    def dst_val(self) -> SSAValue | None:
        return self.role("dstVal")

    def verify_(self) -> None:
        self.verify_dps_or_ssa()
        if len(self.ins) not in (1, 2):
            raise VerifyException("expects tcolargmin ins(src[, tmp])")
        if len(self.destinations) not in (1, 2):
            raise VerifyException("expects tcolargmin outs(dstIdx) or outs(dstVal, dstIdx)")
        src = self.expect_tile_in("src", self.src)
        if self.tmp is not None:
            self.expect_tile_in("tmp", self.tmp)
        self.expect_tile("dstIdx" if self.has_value_output else "dst", self.dst_idx)
        if self.dst_val is not None:
            val = self.expect_tile("dstVal", self.dst_val)
            same_element_type("dstVal", val.element_type, "src", src.element_type)
