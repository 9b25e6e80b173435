"""
Vector loads and stores between UB and vector registers (PTOAS docs/isa/micro-isa/03-vector-load-store.md):

    %v = pto.vlds %ub[%offset] {dist = "NORM"} : !pto.ptr<T, ub> -> !pto.vreg<NxT>
    %v, %next = pto.vlds %ub[%offset] : !pto.ptr<T, ub> -> !pto.vreg<NxT>, !pto.ptr<T, ub>
    pto.vsts %v, %ub[%offset], %mask {dist = "NORM_B32"} : !pto.vreg<NxT>, !pto.ptr<T, ub>, !pto.mask<G>
    %next = pto.vsts %v, %ub[%offset], %mask : ... -> !pto.ptr<T, ub>

The offset counts elements of the pointer's type. Without the post-update result the access is at
`base + offset`; with it, at `base`, and the result is `base + offset` (PTOAS's post-update form).
Each distribution token and the element widths it takes are rows of the tables below.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import IndexType, StringAttr
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    opt_result_def,
    result_def,
    traits_def,
)
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from pto_dialect.types import PtrType
from pto_dialect.vpto.common import UB, require_mask_for, require_space, require_token, require_updated_base
from pto_dialect.vpto.types import MaskType, VRegType


@dataclass(frozen=True)
class Dist:
    """One distribution token: the element widths (bytes) it takes (None: any), and for a store the mask
    granularity it reads the predicate at when that is not the element width's."""

    widths: frozenset[int] | None = None
    mask: str | None = None
    summary: str = ""


def _w(*widths: int) -> frozenset[int]:
    return frozenset(widths)


VLDS_DISTS: dict[str, Dist] = {
    "NORM": Dist(None, summary="dst[i] = UB[base + i]"),
    "BRC_B8": Dist(_w(1), summary="dst[i] = UB[base] (one element to every lane)"),
    "BRC_B16": Dist(_w(2), summary="dst[i] = UB[base]"),
    "BRC_B32": Dist(_w(4), summary="dst[i] = UB[base]"),
    "US_B8": Dist(_w(1), summary="dst[2i] = dst[2i+1] = UB[base + i]"),
    "US_B16": Dist(_w(2), summary="dst[2i] = dst[2i+1] = UB[base + i]"),
    "DS_B8": Dist(_w(1), summary="dst[i] = UB[base + 2i]"),
    "DS_B16": Dist(_w(2), summary="dst[i] = UB[base + 2i]"),
    "UNPK_B8": Dist(_w(1, 2), summary="half a register's bytes, each element into the low half of a lane twice its width"),
    "UNPK_B16": Dist(_w(2, 4), summary="as UNPK_B8 for 16-bit elements"),
    "UNPK_B32": Dist(_w(4, 8), summary="as UNPK_B8 for 32-bit elements"),
    "BRC_BLK": Dist(None, summary="one 32-byte block to every block of the register"),
    "E2B_B16": Dist(_w(2)),
    "E2B_B32": Dist(_w(4)),
    "UNPK4": Dist(_w(1)),
    "SPLT4CHN": Dist(_w(1)),
    "SPLT2CHN_B8": Dist(_w(1)),
    "SPLT2CHN_B16": Dist(_w(2)),
}
"""`pto.vlds` distributions (VPTO.cpp isSupportedVldsDistToken; widths from 03-vector-load-store.md)."""

VSTS_DISTS: dict[str, Dist] = {
    "NORM_B8": Dist(_w(1), summary="UB[base + i] = src[i] for active lanes"),
    "NORM_B16": Dist(_w(2), summary="UB[base + i] = src[i] for active lanes"),
    "NORM_B32": Dist(_w(4), summary="UB[base + i] = src[i] for active lanes"),
    "1PT_B8": Dist(_w(1), summary="element 0 only; the predicate is ignored"),
    "1PT_B16": Dist(_w(2), summary="element 0 only; the predicate is ignored"),
    "1PT_B32": Dist(_w(4), summary="element 0 only; the predicate is ignored"),
    "PK_B16": Dist(_w(2), "b16", "the low byte of each active lane, packed"),
    "PK_B32": Dist(_w(4), "b32", "the low half of each active lane, packed"),
    "PK_B64": Dist(_w(8), "b32", "the low half of each active lane, packed"),
    "PK4_B32": Dist(_w(4), "b32", "the low byte of each active lane, packed"),
    "MRG4CHN_B8": Dist(_w(1), "b32"),
    "MRG2CHN_B8": Dist(_w(1), "b16"),
    "MRG2CHN_B16": Dist(_w(2), "b32"),
}
"""`pto.vsts` distributions (VPTO.cpp isSupportedVstsDistToken, getVstsMaskGranularityOverride)."""


def check_dist(token: str, table: dict[str, Dist], vreg: VRegType, what: str) -> Dist:
    require_token(token, table, f"the {what} distribution")
    dist = table[token]
    width = vreg.element.bytes
    if dist.widths is not None and width not in dist.widths:
        widths = "/".join(f"b{8 * w}" for w in sorted(dist.widths))
        raise VerifyException(f"distribution \"{token}\" takes {widths} elements, got {vreg}")
    return dist


def default_store_dist(vreg: VRegType) -> str:
    """A store without `dist`: the contiguous store of its element width."""
    return f"NORM_B{8 * vreg.element.bytes}"


@irdl_op_definition
class VldsOp(IRDLOperation):
    """A vector load from UB in one of the load distributions (default NORM)."""

    name = "pto.vlds"
    irdl_options = (ParsePropInAttrDict(),)

    source = operand_def(PtrType)
    offset = operand_def(IndexType)
    dist = opt_prop_def(StringAttr)
    result = result_def(VRegType)
    updated_base = opt_result_def(PtrType)
    traits = traits_def(MemoryReadEffect())
    assembly_format = (
        "$source `[` $offset `]` attr-dict `:` type($source) `->` type($result) (`,` type($updated_base)^)?"
    )

    @property
    def dist_token(self) -> str:
        return self.dist.data if self.dist is not None else "NORM"

    def verify_(self) -> None:
        require_space(self.source, UB, "source")
        check_dist(self.dist_token, VLDS_DISTS, self.result.type, "load")
        require_updated_base(self, self.source, self.updated_base)


@irdl_op_definition
class VstsOp(IRDLOperation):
    """A vector store to UB of the lanes its mask selects, in one of the store distributions."""

    name = "pto.vsts"
    irdl_options = (ParsePropInAttrDict(),)

    value = operand_def(VRegType)
    destination = operand_def(PtrType)
    offset = operand_def(IndexType)
    mask = operand_def(MaskType)
    dist = opt_prop_def(StringAttr)
    updated_base = opt_result_def(PtrType)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = (
        "$value `,` $destination `[` $offset `]` `,` $mask attr-dict `:` type($value) `,` type($destination) "
        "`,` type($mask) (`->` type($updated_base)^)?"
    )

    @property
    def vreg(self) -> VRegType:
        assert isinstance(self.value.type, VRegType)
        return self.value.type

    @property
    def dist_token(self) -> str:
        return self.dist.data if self.dist is not None else default_store_dist(self.vreg)

    def verify_(self) -> None:
        require_space(self.destination, UB, "destination")
        dist = check_dist(self.dist_token, VSTS_DISTS, self.vreg, "store")
        require_mask_for(self.vreg, self.mask.type, granularity=dist.mask)
        require_updated_base(self, self.destination, self.updated_base)


LOAD_STORE_OPS = [VldsOp, VstsOp]
