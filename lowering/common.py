"""
Shapes shared by the target dialects: every lowered op is DPS
(`ins(...) outs(...) {attrs}`) and spells the target's semantic choices as
properties. A target module subclasses these bases with its own op names and
fills the properties from its semantics table.

Property vocabulary (read by the interpreter):
- `index_width`: bits an index is widened to before the bounds check (64: a
  signed index sign-extends; 32: reinterpreted as uint32).
- `capacity`: which table extent bounds an index: "S3", "S0*S1*S2*S3",
  "S0*S1*S2*S3*S4" (all elements), "LR" / "LR*LC" (logical rows / elements of an NZ table).
- `row_stride` / `col_stride`: element strides of a table row read: "T3", "T4",
  "valid_cols" (packed rows), "1".
- `oob`: the GatherOOB policy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import I64, IntegerAttr, StringAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    opt_prop_def,
    prop_def,
    var_operand_def,
)

from pto_dialect.attributes import CmpModeAttr, CoalesceAttr, GatherExecAttr, GatherOobAttr, MaskPatternAttr


class LoweredOp(IRDLOperation):
    """A target instruction: DPS operands, semantic choices as properties."""

    SOURCE: ClassVar[str]
    """The pto op it implements (for run-time rule checks and messages)."""

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


def i64(value: int) -> IntegerAttr:
    return IntegerAttr(value, 64)


class MGatherBase(LoweredOp):
    """MGATHER: ins(table, idx[, scratch]) outs(dst)."""

    SOURCE: ClassVar[str] = "pto.mgather"
    coalesce = prop_def(CoalesceAttr)
    oob = prop_def(GatherOobAttr)
    index_width = prop_def(IntegerAttr[I64])
    capacity = prop_def(StringAttr)


class MGatherRowBase(MGatherBase):
    """dst[r, j] = table[base + remap(idx_r) * row_stride + j * col_stride]"""

    row_stride = prop_def(StringAttr)
    col_stride = prop_def(StringAttr)


class MGatherElemBase(MGatherBase):
    """dst[r, c] = table_flat[base + remap(idx[r, c])]"""


class MGatherL1Base(MGatherBase):
    """GM -> L1 (NZ mat tile); idx is a GM view. Elem mode stages through GM scratch."""

    row_stride = opt_prop_def(StringAttr)
    executor = opt_prop_def(GatherExecAttr)


class TGatherIndexBase(LoweredOp):
    """dst[r, c] = src.flat[idx[r, c]] (element offsets into src's padded storage)."""

    SOURCE: ClassVar[str] = "pto.tgather"
    out_of_range = prop_def(StringAttr)
    """"zero": an out-of-range offset reads 0; "fault": a run-time error."""
    tmp_use = prop_def(StringAttr)
    """"none", or "b16_byte_offsets": tmp receives index * 2 for 2-byte data (a2a3 vgather)."""


class TGatherMaskBase(LoweredOp):
    """Keep the elements `pattern` selects along `axis`, densely packed."""

    SOURCE: ClassVar[str] = "pto.tgather"
    pattern = prop_def(MaskPatternAttr)
    axis = prop_def(StringAttr)
    packing = prop_def(StringAttr)
    """"dense": one packed stream (row axis); "per_row": a5 b64, dst row r at r*(Cols/t)."""


class TGatherCompareBase(LoweredOp):
    """dst[i, n] = index(i, j) of the n-th j with cmp(src[i, j], k_i); cdst[i] = count."""

    SOURCE: ClassVar[str] = "pto.tgather"
    cmp_mode = prop_def(CmpModeAttr)
    offset = prop_def(IntegerAttr[I64])
    index_numbering = prop_def(StringAttr)
    compare = prop_def(StringAttr)


class TColArgMinBase(LoweredOp):
    """idx[0, j] = first i < vr with src[i, j] minimal; val[0, j] = that minimum."""

    SOURCE: ClassVar[str] = "pto.tcolargmin"
    compare = prop_def(StringAttr)
    """"native": typed `<`; "fp_bits": bits read as fp16/fp32 with denormals flushed."""
    nan = prop_def(StringAttr)
    """"first_sticks": a NaN in row 0 sticks, later NaNs never win; "propagates": a NaN
    replaces the index and every later row replaces it again."""
    row_counter = prop_def(StringAttr)
    """"exact", or "f16": the index goes through fp16 (rounds beyond 2048 rows)."""
    src_read = prop_def(StringAttr)
    """"layout": through the tile's layout; "row_major_storage": a DN src read as row-major (a2a3)."""
