"""
The vocabulary of the target dialects. Every lowered op is DPS
(`ins(...) outs(...) {attrs}`, the pto instruction's operand order and roles,
pto_dialect/roles.py) and records each choice its target makes as a typed
`#pto_choice<...>` enum attribute, which the op verifier checks. A target's
dialect (targets/<name>/dialect.py) subclasses these bases with its own op
names; the planner, the interpreter and the cross-target report read the
choices from here instead of deriving them again.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import I64, IntegerAttr
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import (
    Attribute,
    Dialect,
    Operation,
    ParametrizedAttribute,
    SpacedOpaqueSyntaxAttribute,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.utils.str_enum import StrEnum

from pto_dialect.attributes import (
    CmpModeAttr,
    CoalesceAttr,
    GatherExecAttr,
    GatherOobAttr,
    MaskPatternAttr,
)
from pto_dialect.roles import operand_roles
from pto_dialect.types import TileBufType

# ---------------------------------------------------------------------------
# The choices. Each case says, in words, what the target does (for reports).


class Choice(StrEnum):
    """A target choice; `phrase` describes it for the cross-target report."""

    @property
    def phrase(self) -> str:
        return PHRASES[self]


class IndexRead(Choice):
    """How an MGATHER index is widened before the bounds check, which compares it as an
    unsigned number: `signed_64` sign-extends an i32 to 64 bits (-1 becomes 2^64 - 1),
    `unsigned_32` reads its 32 bits (-1 becomes 2^32 - 1)."""

    SIGNED_64 = "signed_64"
    UNSIGNED_32 = "unsigned_32"


class Capacity(Choice):
    """Which table extent bounds an MGATHER index (Shape<S0..S4> of the GM view)."""

    S3 = "s3"
    S0_TO_S3 = "s0_to_s3"
    ALL_ELEMENTS = "all_elements"
    NZ_ROWS = "nz_rows"
    NZ_ELEMENTS = "nz_elements"


class Stride(Choice):
    """An element stride of a table row read."""

    T3 = "t3"
    T4 = "t4"
    VALID_COLS = "valid_cols"
    ONE = "one"


class OutOfRange(Choice):
    """An index-form TGATHER offset past src's storage."""

    ZERO = "zero"
    FAULT = "fault"


class TmpUse(Choice):
    """What index-form TGATHER writes into its tmp tile."""

    NONE = "none"
    B16_BYTE_OFFSETS = "b16_byte_offsets"


class MaskAxis(Choice):
    ROW = "row"
    COL = "col"


class Packing(Choice):
    """How mask-form TGATHER packs what it keeps."""

    DENSE = "dense"
    PER_ROW = "per_row"


class IndexNumbering(Choice):
    """How compare-form TGATHER numbers the columns it reports."""

    SRC_COLS = "src_cols"
    LANE_CHUNKS = "lane_chunks"


class CompareKind(Choice):
    """How compare-form TGATHER compares src with its threshold."""

    NUMERIC = "numeric"
    UNSIGNED_AFTER_ROUND = "unsigned_after_round"


class ArgMinCompare(Choice):
    NATIVE = "native"
    FP_BITS = "fp_bits"


class NanPolicy(Choice):
    FIRST_STICKS = "first_sticks"
    PROPAGATES = "propagates"


class RowCounter(Choice):
    EXACT = "exact"
    F16 = "f16"


class SrcRead(Choice):
    LAYOUT = "layout"
    ROW_MAJOR_STORAGE = "row_major_storage"


class PadFill(Choice):
    """What a TLOAD writes beyond the tile's valid region (docs/tload-padding.md)."""

    WHOLE_TILE = "whole_tile"
    BLOCK_TAIL = "block_tail"
    NOTHING = "nothing"


class PadValue(Choice):
    """The value a TLOAD pads with."""

    TILE_PAD = "tile_pad"
    ALWAYS_ZERO = "always_zero"


class Launch(Choice):
    """How the target runs an MGATHER (class-level: the op name says it)."""

    SIMULATOR = "simulator"
    DMA = "dma"
    SCALAR = "scalar"
    SIMT = "simt"


PHRASES: dict[Choice, str] = {
    PadFill.WHOLE_TILE: "TLOAD fills the whole tile with the pad value first",
    PadFill.BLOCK_TAIL: "TLOAD pads each valid row to its 32-byte boundary (pad != null)",
    PadFill.NOTHING: "TLOAD writes nothing beyond the valid region",
    PadValue.TILE_PAD: "pad value from the tile's pad (null: 0)",
    PadValue.ALWAYS_ZERO: "pad value 0 for this element type",
    IndexRead.SIGNED_64: "index sign-extended to 64 bits, then bounds-checked as unsigned",
    IndexRead.UNSIGNED_32: "index read as 32-bit unsigned",
    Capacity.S3: "index bounded by Shape[3]",
    Capacity.S0_TO_S3: "index bounded by Shape[0]*...*Shape[3]",
    Capacity.ALL_ELEMENTS: "index bounded by all table elements",
    Capacity.NZ_ROWS: "index bounded by the NZ table's logical rows",
    Capacity.NZ_ELEMENTS: "index bounded by the NZ table's logical elements",
    Stride.T3: "the view's Stride[3]",
    Stride.T4: "the view's Stride[4]",
    Stride.VALID_COLS: "dst valid cols (packed rows)",
    Stride.ONE: "1",
    OutOfRange.ZERO: "out-of-range offset reads 0",
    OutOfRange.FAULT: "out-of-range offset faults",
    TmpUse.NONE: "tmp unused",
    TmpUse.B16_BYTE_OFFSETS: "tmp receives byte offsets (index * 2) for 2-byte data",
    MaskAxis.ROW: "along rows",
    MaskAxis.COL: "along columns",
    Packing.DENSE: "kept elements packed densely",
    Packing.PER_ROW: "dst row r starts at r * Cols / period (8-byte data)",
    IndexNumbering.SRC_COLS: "matches numbered by src column",
    IndexNumbering.LANE_CHUNKS: "matches numbered within 64-lane chunks",
    CompareKind.NUMERIC: "numeric comparison in src's type",
    CompareKind.UNSIGNED_AFTER_ROUND: "unsigned comparison after rounding",
    ArgMinCompare.NATIVE: "typed comparison",
    ArgMinCompare.FP_BITS: "bits compared as fp16/fp32, denormals flushed",
    NanPolicy.FIRST_STICKS: "a NaN in row 0 sticks, later NaNs never win",
    NanPolicy.PROPAGATES: "every NaN replaces the index",
    RowCounter.EXACT: "exact row index",
    RowCounter.F16: "row index counted in fp16 (rounds beyond 2048 rows)",
    SrcRead.LAYOUT: "src read through its layout",
    SrcRead.ROW_MAJOR_STORAGE: "a DN src read as row-major storage",
    Launch.SIMULATOR: "the simulator's loop",
    Launch.DMA: "DMA transfers",
    Launch.SCALAR: "a scalar loop",
    Launch.SIMT: "a SIMT launch",
}
"""What each choice means, in words (for the cross-target report)."""
assert len(PHRASES) == sum(len(e) for e in Choice.__subclasses__()), "one phrase per choice, values unique"


TYPED_COLUMN_ARGMIN: dict[str, Choice] = {
    "compare": ArgMinCompare.NATIVE,
    "nan": NanPolicy.FIRST_STICKS,
    "row_counter": RowCounter.EXACT,
    "src_read": SrcRead.LAYOUT,
}
"""TCOLARGMIN as a typed `<` over the layout: the choices of the CPU simulator and of a5."""


def _choice_attr(enum: type[Choice], kind: str) -> type[EnumAttribute]:
    @irdl_attr_definition
    class ChoiceAttr(EnumAttribute[enum], SpacedOpaqueSyntaxAttribute):  # pyright: ignore
        __doc__ = f"`#pto_choice<{kind} {'|'.join(enum)}>`"
        name = f"pto_choice.{kind}"

    ChoiceAttr.__name__ = ChoiceAttr.__qualname__ = f"{enum.__name__}Attr"
    return ChoiceAttr


IndexReadAttr = _choice_attr(IndexRead, "index_read")
CapacityAttr = _choice_attr(Capacity, "capacity")
StrideAttr = _choice_attr(Stride, "stride")
OutOfRangeAttr = _choice_attr(OutOfRange, "out_of_range")
TmpUseAttr = _choice_attr(TmpUse, "tmp_use")
MaskAxisAttr = _choice_attr(MaskAxis, "axis")
PackingAttr = _choice_attr(Packing, "packing")
IndexNumberingAttr = _choice_attr(IndexNumbering, "index_numbering")
CompareKindAttr = _choice_attr(CompareKind, "compare")
ArgMinCompareAttr = _choice_attr(ArgMinCompare, "argmin_compare")
NanPolicyAttr = _choice_attr(NanPolicy, "nan")
RowCounterAttr = _choice_attr(RowCounter, "row_counter")
SrcReadAttr = _choice_attr(SrcRead, "src_read")
PadFillAttr = _choice_attr(PadFill, "pad_fill")
PadValueAttr = _choice_attr(PadValue, "pad_value")

CHOICE_ATTRS: dict[type[Choice], type[EnumAttribute]] = {
    IndexRead: IndexReadAttr,
    Capacity: CapacityAttr,
    Stride: StrideAttr,
    OutOfRange: OutOfRangeAttr,
    TmpUse: TmpUseAttr,
    MaskAxis: MaskAxisAttr,
    Packing: PackingAttr,
    IndexNumbering: IndexNumberingAttr,
    CompareKind: CompareKindAttr,
    ArgMinCompare: ArgMinCompareAttr,
    NanPolicy: NanPolicyAttr,
    RowCounter: RowCounterAttr,
    SrcRead: SrcReadAttr,
    PadFill: PadFillAttr,
    PadValue: PadValueAttr,
}

PTO_CHOICE = Dialect("pto_choice", [], list(CHOICE_ATTRS.values()))
"""The choice attributes, shared by every target dialect."""


def choice(value: Choice) -> Attribute:
    """The attribute holding a choice."""
    return CHOICE_ATTRS[type(value)](value)


def choices_of(op: Operation) -> dict[str, Choice]:
    """Every target choice an op records, by property or attribute name."""
    return {
        name: value.data
        for name, value in (*op.properties.items(), *op.attributes.items())
        if isinstance(value, EnumAttribute) and isinstance(value.data, Choice)
    }


# ---------------------------------------------------------------------------
# The ops


class LoweredOp(IRDLOperation):
    """A target instruction: DPS operands, semantic choices as typed properties."""

    SOURCE: ClassVar[str]
    """The pto instruction it implements (its operand roles, run-time rules and messages)."""

    ins = var_operand_def()
    outs = var_operand_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    assembly_format = (
        "`ins` `(` $ins `:` type($ins) `)` `outs` `(` $outs `:` type($outs) `)` attr-dict"
    )

    @classmethod
    def create_from(
        cls,
        source: Operation,
        ins: Sequence[SSAValue],
        outs: Sequence[SSAValue],
        **props: Attribute,
    ):
        op = cls.build(operands=[ins, outs], properties=props)
        op.location = source.location
        return op

    @property
    def roles(self) -> tuple[str, ...]:
        """The role of each operand, ins then outs (pto_dialect/roles.py)."""
        ins_roles, out_roles = operand_roles(self.SOURCE, len(self.ins), len(self.outs))
        return (*ins_roles, *out_roles)

    def role(self, name: str) -> SSAValue | None:
        roles = self.roles
        return self.operands[roles.index(name)] if name in roles else None



class MGatherBase(LoweredOp):
    """MGATHER: ins(table, idx[, scratch]) outs(dst)."""

    SOURCE: ClassVar[str] = "pto.mgather"
    LAUNCH: ClassVar[Launch]
    coalesce = prop_def(CoalesceAttr)
    oob = prop_def(GatherOobAttr)
    index_read = prop_def(IndexReadAttr)
    capacity = prop_def(CapacityAttr)


class MGatherRowBase(MGatherBase):
    """dst[r, j] = table[base + remap(idx_r) * row_stride + j * col_stride]"""

    row_stride = prop_def(StrideAttr)
    col_stride = prop_def(StrideAttr)


class MGatherElemBase(MGatherBase):
    """dst[r, c] = table_flat[base + remap(idx[r, c])]"""


class MGatherNzBase(MGatherBase):
    """An NZ table into an NZ tile, by logical rows (row mode) or elements."""


class MGatherL1Base(MGatherBase):
    """GM -> L1 (NZ mat tile); idx is a GM view. Elem mode stages through GM scratch."""

    row_stride = opt_prop_def(StrideAttr)
    executor = opt_prop_def(GatherExecAttr)


class TGatherIndexBase(LoweredOp):
    """dst[r, c] = src.flat[idx[r, c]] (element offsets into src's padded storage)."""

    SOURCE: ClassVar[str] = "pto.tgather"
    out_of_range = prop_def(OutOfRangeAttr)
    tmp_use = prop_def(TmpUseAttr)


class TGatherMaskBase(LoweredOp):
    """Keep the elements `pattern` selects along `axis`, densely packed."""

    SOURCE: ClassVar[str] = "pto.tgather"
    pattern = prop_def(MaskPatternAttr)
    axis = prop_def(MaskAxisAttr)
    packing = prop_def(PackingAttr)


class TGatherCompareBase(LoweredOp):
    """dst[i, n] = index(i, j) of the n-th j with cmp(src[i, j], k_i); cdst[i] = count."""

    SOURCE: ClassVar[str] = "pto.tgather"
    cmp_mode = prop_def(CmpModeAttr)
    offset = prop_def(IntegerAttr[I64])
    index_numbering = prop_def(IndexNumberingAttr)
    compare = prop_def(CompareKindAttr)


class TColArgMinBase(LoweredOp):
    """idx[0, j] = first i < vr with src[i, j] minimal; val[0, j] = that minimum."""

    SOURCE: ClassVar[str] = "pto.tcolargmin"
    compare = prop_def(ArgMinCompareAttr)
    nan = prop_def(NanPolicyAttr)
    row_counter = prop_def(RowCounterAttr)
    src_read = prop_def(SrcReadAttr)


def target_op(base: type[IRDLOperation], name: str, doc: str | None = None, launch: Launch | None = None, **defs: object):
    """A target dialect's op: `base` under the target's name, with its own docstring, its
    MGATHER launch, and any extra property definitions (`defs`)."""
    mnemonic = name.partition(".")[2]
    module = sys._getframe(1).f_globals["__name__"]  # the target dialect's module, for reprs
    namespace: dict[str, object] = {"name": name, "__doc__": doc or base.__doc__, "__module__": module, **defs}
    if launch is not None:
        namespace |= {"LAUNCH": launch, "__annotations__": {"LAUNCH": ClassVar[Launch]}}
    class_name = "".join(part.title() for part in mnemonic.split("_")) + "Op"
    return irdl_op_definition(type(class_name, (base,), namespace))


# Register-level steps of a lowered index-form TGATHER (spec/reg-gather.md)


@irdl_attr_definition
class VRegType(ParametrizedAttribute, TypeAttribute):
    """`!pto_reg.vreg<T>`: a vector register of T lanes (one whole tile's worth here)."""

    name = "pto_reg.vreg"
    element_type: Attribute


class LoadIndexVectorBase(IRDLOperation):
    """`LoadAlign` of the index tile's valid elements into a register, as the result's lanes."""

    SOURCE: ClassVar[str] = "pto.tgather"
    indices = operand_def(TileBufType)
    result = result_def(VRegType)
    assembly_format = "$indices attr-dict `:` type($indices) `->` type($result)"


class RegisterGatherBase(IRDLOperation):
    """Register gather from UB: lane i = base[index[i]] for the lanes under the mask (the
    dst tile's valid elements)."""

    SOURCE: ClassVar[str] = "pto.tgather"
    base = operand_def(TileBufType)
    index = operand_def(VRegType)
    mask = operand_def(TileBufType)
    result = result_def(VRegType)
    assembly_format = (
        "$base `[` $index `]` `mask` `(` $mask `)` attr-dict `:` type($base) `,` type($index) "
        "`,` type($mask) `->` type($result)"
    )


class RegisterStoreBase(IRDLOperation):
    """`StoreAlign` of the register into the dst tile's valid elements."""

    SOURCE: ClassVar[str] = "pto.tgather"
    value = operand_def(VRegType)
    dst = operand_def(TileBufType)
    assembly_format = "$value `,` $dst attr-dict `:` type($value) `,` type($dst)"


PTO_REG = Dialect("pto_reg", [], [VRegType])
"""Vector registers, for targets whose lowering goes down to register steps."""

LOWERING_DIALECTS = (PTO_CHOICE, PTO_REG)
