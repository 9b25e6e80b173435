"""
Predicate (mask) registers: making them, combining them, and moving them to and from UB (PTOAS
docs/isa/micro-isa/05-materialization-predicate.md and 04-predicate-load-store.md):

    %m = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>                        a named pattern
    %m, %rest = pto.plt_b32 %n : i32 -> !pto.mask<b32>, i32              the first n lanes; n - 64 (or 0) left
    %r = pto.pand %a, %b, %g : !pto.mask<G>, !pto.mask<G>, !pto.mask<G> -> !pto.mask<G>    (por, pxor alike)
    %r = pto.pnot %a, %g : !pto.mask<G>, !pto.mask<G> -> !pto.mask<G>
    %r = pto.psel %a, %b, %s : ... -> !pto.mask<G>                       s ? a : b
    pto.psts %m, %ub[%bytes], "NORM" : !pto.mask<G>, !pto.ptr<T, ub>, index

A predicate register holds 256 bits, one per byte of a vector register; lane i of a `!pto.mask<bN>`
view is bit i * N/8. The logic ops work on all 256 bits, zero where the governing mask is off.
"""

from __future__ import annotations

import re
from typing import ClassVar

from xdsl.dialects.builtin import I32, IndexType, StringAttr
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_result_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from pto_dialect.types import PtrType
from pto_dialect.vpto.common import DIST_LOAD_FORMAT, UB, PureRegisterOp, RegisterOp, UbAccessOp, UbReadOp, UbWriteOp, require_space, require_token, require_updated_base, row_op
from pto_dialect.vpto.types import GRANULARITY_BYTES, AlignType, MaskType

PATTERNS = ("PAT_ALL", "PAT_ALLF", "PAT_H", "PAT_Q", *(f"PAT_VL{n}" for n in (1, 2, 3, 4, 8, 16, 32, 64, 128)), "PAT_M3", "PAT_M4")
"""The pset / pge pattern tokens (05-materialization-predicate.md)."""


def pattern_lanes(pattern: str, lanes: int) -> tuple[str, int]:
    """A pattern as (kind, n): ("prefix", n) for the first n lanes, ("every", k) for lanes i % k == 0."""
    if pattern == "PAT_ALL":
        return "prefix", lanes
    if pattern == "PAT_ALLF":
        return "prefix", 0
    if pattern == "PAT_H":
        return "prefix", lanes // 2
    if pattern == "PAT_Q":
        return "prefix", lanes // 4
    if (vl := re.fullmatch(r"PAT_VL(\d+)", pattern)) is not None:
        return "prefix", min(int(vl.group(1)), lanes)
    return "every", int(pattern.removeprefix("PAT_M"))


def _mask_result(op: IRDLOperation, value_type: object, granularity: str, what: str = "result") -> None:
    if not isinstance(value_type, MaskType) or value_type.granularity.data != granularity:
        raise VerifyException(f"requires {what} type !pto.mask<{granularity}>, got {value_type}")


class PsetOpBase(PureRegisterOp):
    """A predicate from a named pattern."""

    GRANULARITY: ClassVar[str] = "b32"
    pattern = prop_def(StringAttr)
    result = result_def(MaskType)
    assembly_format = "$pattern attr-dict `:` type($result)"

    def verify_(self) -> None:
        require_token(self.pattern.data, PATTERNS, "the pattern")
        _mask_result(self, self.result.type, self.GRANULARITY)


class PltOpBase(PureRegisterOp):
    """The first `scalar` lanes (all when it is at least the lane count), and what is left of it."""

    GRANULARITY: ClassVar[str] = "b32"
    scalar = operand_def(I32)
    mask = result_def(MaskType)
    scalar_out = result_def(I32)

    def verify_(self) -> None:
        _mask_result(self, self.mask.type, self.GRANULARITY)


def _granular(base: type[IRDLOperation], stem: str) -> list[type[IRDLOperation]]:
    """One op per granularity: `pto.<stem>_b8`, `_b16`, `_b32`."""
    return [row_op(base, f"{stem.capitalize()}{granularity.upper()}Op", f"{stem}_{granularity}", GRANULARITY=granularity)
            for granularity in GRANULARITY_BYTES]


PSET_OPS = _granular(PsetOpBase, "pset")
PGE_OPS = _granular(PsetOpBase, "pge")
"""pge_bN: the same patterns as pset_bN (PTOAS's lane-count patterns)."""
PLT_OPS = _granular(PltOpBase, "plt")


class MaskLogicOpBase(PureRegisterOp):
    """A pure op on predicates whose last operand is the governing `mask`, all of one granularity."""

    mask = operand_def(MaskType)
    result = result_def(MaskType)

    def verify_(self) -> None:
        types = {v.type for v in (*self.operands, *self.results)}
        if len(types) != 1:
            raise VerifyException(
                f"requires every mask to have one granularity, got {', '.join(sorted(str(t) for t in types))}"
            )


class MaskBinaryOpBase(MaskLogicOpBase):
    """`mask ? (src0 OP src1) : 0`, bit by bit."""

    OPERATION: ClassVar[str] = ""
    """OP (a row of MASK_LOGIC); psel selects instead."""
    src0 = operand_def(MaskType)
    src1 = operand_def(MaskType)


MASK_LOGIC = {"pand": "and", "por": "or", "pxor": "xor"}
"""The bitwise operation of each mask logic op (the interpreter's NumPy function for each: interpreter/vpto/functions.py)."""
PandOp, PorOp, PxorOp = MASK_LOGIC_OPS = [row_op(MaskBinaryOpBase, f"{name.capitalize()}Op", name, OPERATION=operation)
                                          for name, operation in MASK_LOGIC.items()]
PselOp = row_op(MaskBinaryOpBase, "PselOp", "psel", "`mask ? src0 : src1`, bit by bit (the third operand selects).")


@irdl_op_definition
class PnotOp(MaskLogicOpBase):
    """`mask ? ~input : 0`, bit by bit."""

    name = "pto.pnot"

    input = operand_def(MaskType)


PSTS_DISTS = ("NORM", "PK")
"""psts / psti: NORM stores the 256 bits (32 bytes); PK every other bit (16 bytes)."""
PLDS_DISTS = ("NORM", "US", "DS")
"""plds / pldi: NORM loads 32 bytes; US 16 bytes, each bit twice; DS 64 bytes, every other bit."""

ALIGNMENT_UNIT_BYTES = {"NORM": 32, "US": 16, "DS": 32, "PK": 16}
"""pldi / psti: the bytes one immediate offset counts, by distribution (04-predicate-load-store.md, A5)."""


class PredicateTransferOpBase(UbAccessOp):
    """A predicate register stored to or loaded from UB at `pointer[offset]`, in one of `DISTS`
    (post-update: at the base, returning the base advanced)."""

    DISTS: ClassVar[tuple[str, ...]] = ()
    IMMEDIATE: ClassVar[bool] = False
    """The offset: bytes, or (an immediate) the distribution's alignment units."""
    offset = operand_def(IndexType)
    dist = prop_def(StringAttr)
    updated_base = opt_result_def(PtrType)

    @property
    def offset_unit(self) -> int:
        """The bytes one offset counts."""
        return ALIGNMENT_UNIT_BYTES[self.dist.data] if self.IMMEDIATE else 1

    def verify_(self) -> None:
        super().verify_()
        require_token(self.dist.data, self.DISTS, f"the predicate {self.DIRECTION} distribution")


class PredicateStoreOpBase(PredicateTransferOpBase, UbWriteOp):
    """Store a predicate register's bits to UB."""

    DISTS: ClassVar[tuple[str, ...]] = PSTS_DISTS
    value = operand_def(MaskType)
    destination = operand_def(PtrType)
    assembly_format = (
        "$value `,` $destination `[` $offset `]` `,` $dist attr-dict `:` type($value) `,` type($destination) "
        "`,` type($offset) (`->` type($updated_base)^)?"
    )


class PredicateLoadOpBase(PredicateTransferOpBase, UbReadOp):
    """Load a predicate register from UB."""

    DISTS: ClassVar[tuple[str, ...]] = PLDS_DISTS
    source = operand_def(PtrType)
    result = result_def(MaskType)
    assembly_format = DIST_LOAD_FORMAT


PstsOp = row_op(PredicateStoreOpBase, "PstsOp", "psts", "... at a byte offset.")
PstiOp = row_op(PredicateStoreOpBase, "PstiOp", "psti", "... at an immediate offset counted in the distribution's alignment units.",
                IMMEDIATE=True)
PldsOp = row_op(PredicateLoadOpBase, "PldsOp", "plds", "... at a byte offset.")
PldiOp = row_op(PredicateLoadOpBase, "PldiOp", "pldi", "... at an immediate offset in the distribution's alignment units.",
                IMMEDIATE=True)


@irdl_op_definition
class PstuOp(RegisterOp):
    """Append a predicate's lane bits (one per lane: 16 bytes of b16, 8 of b32) to an unaligned store stream
    at `base`; returns the state and `base` advanced past them."""

    name = "pto.pstu"

    align_in = operand_def(AlignType)
    value = operand_def(MaskType)
    base = operand_def(PtrType)
    align_out = result_def(AlignType)
    base_out = result_def(PtrType)
    traits = traits_def(MemoryWriteEffect())

    def verify_(self) -> None:
        pointer = require_space(self.base, UB, "base")
        mask = self.value.type
        assert isinstance(mask, MaskType)
        if mask.granularity.data not in ("b16", "b32") or pointer.element.bytes != mask.lane_bytes or pointer.element.family != "uint":
            raise VerifyException(f"requires a b16 mask with a ui16 base or a b32 mask with a ui32 base, got {mask} and {pointer}")
        require_updated_base(self, self.base, self.base_out)


PART_TOKENS = ("LOWER", "HIGHER")


class MaskPartOpBase(PureRegisterOp):
    """ppack / punpack: a half of a predicate, narrowed or widened."""

    input = operand_def(MaskType)
    part = prop_def(StringAttr)
    result = result_def(MaskType)
    assembly_format = "$input `,` $part attr-dict `:` type($input) `->` type($result)"

    def verify_(self) -> None:
        require_token(self.part.data, PART_TOKENS, "part")


PpackOp = row_op(MaskPartOpBase, "PpackOp", "ppack",
                 "Every other bit of the input, packed into the LOWER or HIGHER half; the other half zero.")
PunpackOp = row_op(MaskPartOpBase, "PunpackOp", "punpack", "The LOWER or HIGHER half of the input, each bit followed by a zero bit.")


class MaskPairOpBase(PureRegisterOp):
    """pintlv / pdintlv: two predicates' lanes interleaved or deinterleaved into (low, high)."""

    GRANULARITY: ClassVar[str] = "b32"
    lhs = operand_def(MaskType)
    rhs = operand_def(MaskType)
    low = result_def(MaskType)
    high = result_def(MaskType)

    def verify_(self) -> None:
        for value, what in ((self.lhs, "lhs"), (self.rhs, "rhs"), (self.low, "low"), (self.high, "high")):
            _mask_result(self, value.type, self.GRANULARITY, what)


PINTLV_OPS = _granular(MaskPairOpBase, "pintlv")
PDINTLV_OPS = _granular(MaskPairOpBase, "pdintlv")

PREDICATE_OPS = [*PSET_OPS, *PGE_OPS, *PLT_OPS, *MASK_LOGIC_OPS, PselOp, PnotOp, PstsOp, PstiOp, PldsOp, PldiOp,
                 PstuOp, PpackOp, PunpackOp, *PINTLV_OPS, *PDINTLV_OPS]
