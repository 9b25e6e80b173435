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

from typing import TYPE_CHECKING, ClassVar

from xdsl.dialects.builtin import I16, I32, IndexType, StringAttr
from xdsl.irdl import (
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    opt_result_def,
    prop_def,
    result_def,
)
from xdsl.ir import SSAValue
from xdsl.utils.exceptions import VerifyException

from pto_dialect.instruction import Pipe
from pto_dialect.phases import Phase, SpanValue, ValueOf
from pto_dialect.types import PtrType
from pto_dialect.vpto.common import DIST_LOAD_FORMAT, NO_RESULTS_FORMAT, PureRegisterOp, UbAccessOp, UbReadOp, UbWriteOp, require_mask_for, require_same, require_token, row_op
from pto_dialect.vpto.types import VECTOR_BYTES, AlignType, MaskType, VRegType


@dataclass(frozen=True)
class Dist:
    """One distribution token: the element widths (bytes) it takes (None: any), and for a store the mask
    granularity it reads the predicate at when that is not the element width's."""

    widths: frozenset[int] | None = None
    mask: str | None = None
    summary: str = ""
    ub_bytes: int | None = None
    """The UB bytes one access touches from its address (the sync checker's footprint); None: a register's."""


def _w(*widths: int) -> frozenset[int]:
    return frozenset(widths)


VLDS_DISTS: dict[str, Dist] = {
    "NORM": Dist(None, summary="dst[i] = UB[base + i]"),
    "BRC_B8": Dist(_w(1), ub_bytes=1, summary="dst[i] = UB[base] (one element to every lane)"),
    "BRC_B16": Dist(_w(2), ub_bytes=2, summary="dst[i] = UB[base]"),
    "BRC_B32": Dist(_w(4), ub_bytes=4, summary="dst[i] = UB[base]"),
    "US_B8": Dist(_w(1), ub_bytes=VECTOR_BYTES // 2, summary="dst[2i] = dst[2i+1] = UB[base + i]"),
    "US_B16": Dist(_w(2), ub_bytes=VECTOR_BYTES // 2, summary="dst[2i] = dst[2i+1] = UB[base + i]"),
    "DS_B8": Dist(_w(1), ub_bytes=2 * VECTOR_BYTES, summary="dst[i] = UB[base + 2i]"),
    "DS_B16": Dist(_w(2), ub_bytes=2 * VECTOR_BYTES, summary="dst[i] = UB[base + 2i]"),
    "UNPK_B8": Dist(_w(1, 2), ub_bytes=VECTOR_BYTES // 2, summary="half a register's bytes, each element into the low half of a lane twice its width"),
    "UNPK_B16": Dist(_w(2, 4), ub_bytes=VECTOR_BYTES // 2, summary="as UNPK_B8 for 16-bit elements"),
    "UNPK_B32": Dist(_w(4, 8), ub_bytes=VECTOR_BYTES // 2, summary="as UNPK_B8 for 32-bit elements"),
    "BRC_BLK": Dist(None, ub_bytes=32, summary="one 32-byte block to every block of the register"),
    "E2B_B16": Dist(_w(2), ub_bytes=16, summary="block b = UB element b in every lane (8 elements, each to 32 bytes)"),
    "E2B_B32": Dist(_w(4), ub_bytes=32, summary="block b = UB element b in every lane (8 elements, each to 32 bytes)"),
    "UNPK4": Dist(_w(1), ub_bytes=VECTOR_BYTES // 4, summary="a quarter register's bytes, each into the lowest byte of a 32-bit lane"),
    "SPLT4CHN": Dist(_w(1)),
    "SPLT2CHN_B8": Dist(_w(1)),
    "SPLT2CHN_B16": Dist(_w(2)),
}
"""`pto.vlds` distributions (VPTO.cpp isSupportedVldsDistToken; widths from 03-vector-load-store.md)."""

VSTS_DISTS: dict[str, Dist] = {
    "NORM_B8": Dist(_w(1), summary="UB[base + i] = src[i] for active lanes"),
    "NORM_B16": Dist(_w(2), summary="UB[base + i] = src[i] for active lanes"),
    "NORM_B32": Dist(_w(4), summary="UB[base + i] = src[i] for active lanes"),
    "1PT_B8": Dist(_w(1), ub_bytes=1, summary="element 0 only; the predicate is ignored"),
    "1PT_B16": Dist(_w(2), ub_bytes=2, summary="element 0 only; the predicate is ignored"),
    "1PT_B32": Dist(_w(4), ub_bytes=4, summary="element 0 only; the predicate is ignored"),
    "PK_B16": Dist(_w(2), "b16", ub_bytes=VECTOR_BYTES // 2, summary= "the low byte of each active lane, packed"),
    "PK_B32": Dist(_w(4), "b32", ub_bytes=VECTOR_BYTES // 2, summary= "the low half of each active lane, packed"),
    "PK_B64": Dist(_w(8), "b32", ub_bytes=VECTOR_BYTES // 2, summary= "the low half of each active lane, packed"),
    "PK4_B32": Dist(_w(4), "b32", ub_bytes=VECTOR_BYTES // 4, summary= "the low byte of each active lane, packed"),
    "MRG4CHN_B8": Dist(_w(1), "b32"),
    "MRG2CHN_B8": Dist(_w(1), "b16"),
    "MRG2CHN_B16": Dist(_w(2), "b32"),
}
"""`pto.vsts` distributions (VPTO.cpp isSupportedVstsDistToken, getVstsMaskGranularityOverride)."""


def check_dist(token: str, table: dict[str, Dist], what: str) -> Dist:
    """A distribution token of `table` (PTOAS checks the token, not the element width: a packed store of a
    ui8 register reads it as the token's lanes)."""
    require_token(token, table, f"the {what} distribution")
    return table[token]


class VectorTransferOpBase(UbAccessOp):
    """A vector register loaded from or stored to UB at `pointer[offset]` elements, in one of `DISTS`
    (post-update: at the base, returning the base advanced)."""

    DISTS: ClassVar[dict[str, Dist]]
    if TYPE_CHECKING:  # each op defines it, in PTOAS's operand order
        offset: SSAValue

    irdl_options = (ParsePropInAttrDict(),)
    dist = opt_prop_def(StringAttr)
    updated_base = opt_result_def(PtrType)

    @property
    def default_dist(self) -> str:
        """The distribution of the op without `dist`."""
        raise NotImplementedError

    @property
    def dist_token(self) -> str:
        return self.dist.data if self.dist is not None else self.default_dist

    def byte_span(self, pointer: SSAValue, value_of: ValueOf) -> tuple[SpanValue, SpanValue]:
        """Its UB bytes from `pointer` on: its element offset, its distribution's footprint."""
        assert isinstance(pointer.type, PtrType)
        dist = self.DISTS.get(self.dist_token)
        footprint = dist.ub_bytes if dist is not None and dist.ub_bytes is not None else VECTOR_BYTES
        return value_of(self.offset) * pointer.type.element.bytes, footprint

    def verify_(self) -> None:
        super().verify_()
        check_dist(self.dist_token, self.DISTS, self.DIRECTION)


@irdl_op_definition
class VldsOp(VectorTransferOpBase, UbReadOp):
    """A vector load from UB in one of the load distributions (default NORM)."""

    name = "pto.vlds"

    source = operand_def(PtrType)
    offset = operand_def(IndexType)
    result = result_def(VRegType)
    assembly_format = (
        "$source `[` $offset `]` attr-dict `:` type($source) `->` type($result) (`,` type($updated_base)^)?"
    )

    DISTS: ClassVar[dict[str, Dist]] = VLDS_DISTS
    PHASES: ClassVar = (Phase(Pipe.VECTOR, reads=("source",)),)

    @property
    def default_dist(self) -> str:
        return "NORM"


@irdl_op_definition
class VstsOp(VectorTransferOpBase, UbWriteOp):
    """A vector store to UB of the lanes its mask selects, in one of the store distributions."""

    name = "pto.vsts"

    value = operand_def(VRegType)
    destination = operand_def(PtrType)
    offset = operand_def(IndexType)
    mask = operand_def(MaskType)
    assembly_format = (
        "$value `,` $destination `[` $offset `]` `,` $mask attr-dict `:` type($value) `,` type($destination) "
        "`,` type($mask) (`->` type($updated_base)^)?"
    )

    DISTS: ClassVar[dict[str, Dist]] = VSTS_DISTS
    PHASES: ClassVar = (Phase(Pipe.VECTOR, writes=("destination",)),)

    @property
    def vreg(self) -> VRegType:
        assert isinstance(self.value.type, VRegType)
        return self.value.type

    @property
    def default_dist(self) -> str:
        return f"NORM_B{8 * self.vreg.element.bytes}"

    def verify_(self) -> None:
        super().verify_()
        require_mask_for(self.vreg, self.mask.type, granularity=VSTS_DISTS[self.dist_token].mask)


VLDSX2_DISTS = ("BDINTLV", "DINTLV_B8", "DINTLV_B16", "DINTLV_B32")
"""vldsx2: BDINTLV deinterleaves 32-byte blocks, DINTLV_Bn elements of n bits, into (low, high)."""
VSTSX2_DISTS = ("INTLV_B8", "INTLV_B16", "INTLV_B32")
"""vstsx2: interleave (low, high) elements of n bits; the mask is ignored."""


@irdl_op_definition
class Vldsx2Op(UbReadOp):
    """Two registers from 512 bytes, deinterleaved: low the even elements (or 32-byte blocks), high the odd."""

    name = "pto.vldsx2"

    source = operand_def(PtrType)
    offset = operand_def(IndexType)
    dist = prop_def(StringAttr)
    low = result_def(VRegType)
    high = result_def(VRegType)
    updated_base = opt_result_def(PtrType)
    assembly_format = DIST_LOAD_FORMAT

    def verify_(self) -> None:
        super().verify_()
        require_token(self.dist.data, VLDSX2_DISTS, "the x2 load distribution")
        require_same(self.low.type, self.high.type, "low/high results")


@irdl_op_definition
class Vstsx2Op(UbWriteOp):
    """512 bytes from two registers, interleaved: low[i] then high[i]."""

    name = "pto.vstsx2"

    low = operand_def(VRegType)
    high = operand_def(VRegType)
    destination = operand_def(PtrType)
    offset = operand_def(IndexType)
    dist = prop_def(StringAttr)
    mask = operand_def(MaskType)
    assembly_format = (
        "$low `,` $high `,` $destination `[` $offset `]` `,` $dist `,` $mask attr-dict `:` type($low) `,` type($high) `,` "
        "type($destination) `,` type($offset) `,` type($mask)"
    )


    def verify_(self) -> None:
        super().verify_()
        require_token(self.dist.data, VSTSX2_DISTS, "the x2 store distribution")
        require_same(self.low.type, self.high.type, "low/high values")


BLOCK_BYTES = 32
"""One UB block: what vsldb / vsstb move per mask-selected block, and the unit of their strides."""


class BlockStridedOpBase(UbAccessOp):
    """A block-strided access: the register's 32-byte blocks `block_stride` blocks apart in UB."""

    block_stride = operand_def(I16)
    repeat_stride = operand_def(I16)
    mask = operand_def(MaskType)
    updated_base = opt_result_def(PtrType)

    def byte_span(self, pointer: SSAValue, value_of: ValueOf) -> tuple[SpanValue, SpanValue]:
        """Its UB bytes from its base: the register's blocks `block_stride` blocks apart."""
        blocks = VECTOR_BYTES // BLOCK_BYTES
        return 0, ((blocks - 1) * value_of(self.block_stride) + 1) * BLOCK_BYTES


@irdl_op_definition
class VsldbOp(BlockStridedOpBase, UbReadOp):
    """A block-strided load: block b of the register from UB block `b * block_stride` (blocks the mask
    leaves off read nothing and are zero); post-update advances the base by `repeat_stride` blocks."""

    name = "pto.vsldb"

    source = operand_def(PtrType)
    result = result_def(VRegType)

    PHASES: ClassVar = (Phase(Pipe.VECTOR, reads=("source",)),)


@irdl_op_definition
class VsstbOp(BlockStridedOpBase, UbWriteOp):
    """A block-strided store: block b of the register to UB block `b * block_stride`, for the blocks the
    mask selects; post-update advances the base by `repeat_stride` blocks."""

    name = "pto.vsstb"

    value = operand_def(VRegType)
    destination = operand_def(PtrType)
    PHASES: ClassVar = (Phase(Pipe.VECTOR, writes=("destination",)),)


@irdl_op_definition
class VldasOp(UbReadOp):
    """Prime an unaligned load stream at `source`."""

    name = "pto.vldas"

    source = operand_def(PtrType)
    result = result_def(AlignType)


@irdl_op_definition
class VldusOp(UbReadOp):
    """An unaligned load: the register of bytes at `source` (post-update: and `source + increment`)."""

    name = "pto.vldus"

    source = operand_def(PtrType)
    align = operand_def(AlignType)
    increment = opt_operand_def(IndexType)
    result = result_def(VRegType)
    updated_align = result_def(AlignType)
    updated_base = opt_result_def(PtrType)

    def verify_(self) -> None:
        super().verify_()
        if (self.increment is None) != (self.updated_base is None):
            raise VerifyException("requires the increment operand and the updated base result together (the post-update form)")


@irdl_op_definition
class InitAlignOp(PureRegisterOp):
    """A fresh (empty) store-alignment state."""

    name = "pto.init_align"

    result = result_def(AlignType)
    assembly_format = "attr-dict `:` type($result)"


@irdl_op_definition
class VstusOp(UbWriteOp):
    """Append the first `offset` elements of `value` to the unaligned store stream at `base`: whole 32-byte
    blocks reach UB, the tail waits in the state (post-update: and `base + offset`)."""

    name = "pto.vstus"

    align_in = operand_def(AlignType)
    offset = operand_def(I32)
    value = operand_def(VRegType)
    base = operand_def(PtrType)
    align_out = result_def(AlignType)
    base_out = opt_result_def(PtrType)

    POINTER: ClassVar[str] = "base"
    UPDATED: ClassVar[str] = "base_out"


VSTUR_MODES = ("POST_UPDATE", "NO_POST_UPDATE")


@irdl_op_definition
class VsturOp(UbWriteOp):
    """Append the squeezed bytes (SPR SQZN of them, set by vsqz) of `value` to the stream at `base + AR`;
    POST_UPDATE advances AR by them."""

    name = "pto.vstur"

    align_in = operand_def(AlignType)
    value = operand_def(VRegType)
    base = operand_def(PtrType)
    mode = prop_def(StringAttr)
    align_out = result_def(AlignType)
    assembly_format = (
        "$align_in `,` $value `,` $base `,` $mode attr-dict `:` type($align_in) `,` type($value) `,` type($base) `->` type($align_out)"
    )

    POINTER: ClassVar[str] = "base"

    def verify_(self) -> None:
        super().verify_()
        require_token(self.mode.data, VSTUR_MODES, "mode")


@irdl_op_definition
class VstasOp(UbWriteOp):
    """Flush a store stream's waiting tail so that it ends at `destination + offset` elements."""

    name = "pto.vstas"

    value = operand_def(AlignType)
    destination = operand_def(PtrType)
    offset = operand_def(I32)
    updated_base = opt_result_def(PtrType)


@irdl_op_definition
class VstarOp(UbWriteOp):
    """Flush a store stream's waiting tail so that it ends at `destination + AR` bytes."""

    name = "pto.vstar"

    value = operand_def(AlignType)
    destination = operand_def(PtrType)
    assembly_format = NO_RESULTS_FORMAT


class SprStoreOpBase(UbWriteOp):
    """Store the AR special register (a 32-bit word) to UB."""

    BYTES_PER_OFFSET: ClassVar[int] = 1
    spr = prop_def(StringAttr)
    destination = operand_def(PtrType)
    offset = operand_def(I32)
    updated_base = opt_result_def(PtrType)
    assembly_format = (
        "$spr `,` $destination `[` $offset `]` attr-dict `:` type($destination) `,` type($offset) (`->` type($updated_base)^)?"
    )

    def verify_(self) -> None:
        require_token(self.spr.data, ("AR",), "spr")
        super().verify_()
        pointer = self.pointer_type
        if pointer.element.bytes != 4 or pointer.element.family == "float":
            raise VerifyException(f"requires a ui32 or i32 UB destination, got {pointer}")


SprstiOp = row_op(SprStoreOpBase, "SprstiOp", "sprsti", "... at `destination + 4 * offset` bytes (an immediate count of words).",
                  BYTES_PER_OFFSET=4)
SprstsOp = row_op(SprStoreOpBase, "SprstsOp", "sprsts", "... at `destination + offset` bytes.")


LOAD_STORE_OPS = [VldsOp, VstsOp, Vldsx2Op, Vstsx2Op, VsldbOp, VsstbOp, VldasOp, VldusOp, InitAlignOp, VstusOp,
                  VsturOp, VstasOp, VstarOp, SprstiOp, SprstsOp]
