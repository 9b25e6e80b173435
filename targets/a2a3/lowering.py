"""
`pto_a2a3`: Atlas A2/A3. Indices are reinterpreted as uint32; MGATHER row mode is one
DMA burst per row, bounded by the product of Shape[0..3] and addressed with the view's
row stride; elem mode is a scalar loop; an NZ table has its own path; TGATHER faults on
out-of-range offsets (our choice), numbers compare-form matches by src.Cols and converts
a threshold tile to src's type; TCOLARGMIN compares 16/32-bit sources as fp16/fp32 bit
patterns; TROWARGMIN reduces with vcmin (the first NaN wins).
"""

from __future__ import annotations

from pto_dialect.choices import ArgCompare, Choice, Capacity, CompareKind, CompareSpan, DstFill, ExtremeRead, IndexNumbering, IndexRead, MaskSource, NanPolicy, OutOfRange, Packing, RowCounter, ScatterWinner, SrcRead, Stride, ThresholdRead, TmpUse, WriteOrder
from lowering.convert import Lowered, TargetOps
from targets.lowering_table import arithmetic, broadcasts, GM_INDEX_U32, lowering_table, mgather_to_l1, reductions
from pto_dialect.attributes import Coalesce, GmLayout
from pto_dialect.facts import inferred_layout
from pto_dialect.instructions.mgather import (
    MGatherElemBase,
    MGatherElemL1Base,
    MGatherNzBase,
    MGatherOp,
    MGatherRowBase,
    MGatherRowL1Base,
)
from pto_dialect.instructions.mscatter import (
    MScatterElemBase,
    MScatterNzBase,
    MScatterOp,
    MScatterRowBase,
    coalesce_of,
)
from pto_dialect.instructions.tcolargmax import TCOLARGMAX
from pto_dialect.instructions.tcolargmin import TCOLARGMIN, ColArgReduceOp
from pto_dialect.instructions.tgather import (
    TGatherCompareBase,
    TGatherForm,
    TGatherIndexBase,
    TGatherMaskBase,
    TGatherOp,
)
from pto_dialect.instructions.trowargmax import TROWARGMAX
from pto_dialect.instructions.trowargmin import TROWARGMIN
from pto_dialect.instructions.tscatter import TScatterForm, TScatterIndexBase, TScatterMaskBase
from pto_dialect.choices import AbsSign, BothNan, BroadcastDivisor, ByteLanes, CvtArithmetic, Division, ExpArithmetic, ExtremeNan, Numerics, ReduceOrder, ShiftRange, Unordered, VectorRead, ZeroDivisor, ZeroReciprocal
from pto_dialect.instructions.tci import TCI
from pto_dialect.instructions.thistogram import THISTOGRAM, lowering_choices
from pto_dialect.instructions.trandom import TRANDOM, lowering_choices as random_choices
from pto_dialect.instructions.ttri import TTRI, lowering_choices as tri_choices
from pto_dialect.choices import RandomStream, TriRun
from pto_dialect.choices import HistogramRows
from pto_dialect.choices import ConcatCopy, MoveCopy, WindowBounds
from pto_dialect.choices import BlockRead, TransWrite
from pto_dialect.instructions.tgatherb import TGATHERB, whole_repeats
from pto_dialect.instructions.ttrans import TTRANS, vnchwconv_tail
from pto_dialect.instructions.fillpad import TFILLPAD, FillPadWrite, fillpad_choices
from pto_dialect.instructions.movement import TCONCAT, TMOV, WINDOW_COPIES, TMovBase
from pto_dialect.instructions.tcvt import TCVT
from pto_dialect.instructions.elementwise import choosing, on_vector_unit, UNARY, VECTOR_UNIT_REFERENCES
from pto_dialect.instructions.broadcast import VECTOR_UNIT_REFERENCES as BROADCAST_REFERENCES
from pto_dialect.instructions.partial import ON_VECTOR_UNIT
from pto_dialect.choices import ArgLanes, ArgPick, CompareRead, MaskWalk, MaskWrite, PartFill, SelectTmp
from pto_dialect.lowered import Launch
from pto_dialect.phases import InternalFlag, Phase
from pto_dialect.instruction import Pipe
from pto_dialect.types import TileTypeBase
from targets.a2a3.rules import MEMORY_SCATTER, PRINT, RULES, TRANSFER


OPS = TargetOps("pto_a2a3", "A2A3")
"""Every op of the pto_a2a3 dialect, each declared once."""

# Multi-phase instructions (pto_dialect/phases.py), as PTOAS's SyncMacroModel.cpp describes the
# library code of pto-isa's npu/a2a3 headers: MGATHER reads its index tile on the scalar pipe to
# address each row, then moves the rows on MTE2 (row mode) or copies element by element on the
# scalar pipe (elem mode). (GM -> L1: pto_dialect/instructions/mgather.py, as on a5.)
ROW_GATHER_PHASES = (Phase(Pipe.SCALAR, reads=("idx",)), Phase(Pipe.MTE2, reads=("mem",), writes=("dst",)))
ELEM_GATHER_PHASES = (Phase(Pipe.SCALAR, reads=("idx", "mem"), writes=("dst",)),)
_S, _V, _MTE2, _MTE3 = Pipe.SCALAR, Pipe.VECTOR, Pipe.MTE2, Pipe.MTE3
ROW_GATHER_FLAGS = tuple(
    InternalFlag(src, dst) for src, dst in ((_V, _S), (_MTE3, _S), (_S, _MTE2), (_MTE2, _V), (_MTE2, _MTE3), (_S, _V), (_S, _MTE3))
)
ELEM_GATHER_FLAGS = tuple(
    InternalFlag(src, dst) for src, dst in ((_V, _S), (_MTE3, _S), (_MTE2, _S), (_S, _V), (_S, _MTE2), (_S, _MTE3))
)
A2A3MGatherRowDmaOp = OPS.op(MGatherRowBase, "mgather_row_dma", "One copy_gm_to_ubuf DMA burst per dst row (ND table).", PHASES=ROW_GATHER_PHASES, INTERNAL_FLAGS=ROW_GATHER_FLAGS, LAUNCH=Launch.DMA)


A2A3MGatherElemScalarOp = OPS.op(MGatherElemBase, "mgather_elem_scalar", "A scalar GM->UB copy per element, one thread (ND table).", PHASES=ELEM_GATHER_PHASES, INTERNAL_FLAGS=ELEM_GATHER_FLAGS, LAUNCH=Launch.SCALAR)
A2A3MGatherRowNzOp = OPS.op(MGatherNzBase, "mgather_row_nz", "NZ table into an NZ tile: logical rows, one multi-burst transfer per row.", PHASES=ROW_GATHER_PHASES, INTERNAL_FLAGS=ROW_GATHER_FLAGS, LAUNCH=Launch.DMA)


A2A3MGatherElemNzOp = OPS.op(MGatherNzBase, "mgather_elem_nz", "NZ table into an NZ tile, element by element through MGatherNZGmOffset.", PHASES=ELEM_GATHER_PHASES, INTERNAL_FLAGS=ELEM_GATHER_FLAGS, LAUNCH=Launch.SCALAR)
A2A3MGatherRowL1Op = OPS.op(MGatherRowL1Base, "mgather_row_l1", "GM -> L1 NZ tile, row mode (GM index tensor).", LAUNCH=Launch.DMA)


A2A3MGatherElemL1Op = OPS.op(MGatherElemL1Base, "mgather_elem_l1", "GM -> L1 NZ tile, elem mode: gathered into zeroed GM scratch, then copied whole.", LAUNCH=Launch.SCALAR)
A2A3MScatterRowDmaOp = OPS.op(MScatterRowBase, "mscatter_row_dma", "One copy_ubuf_to_gm DMA burst per src row (ND table), MTE3's atomic add for add.", LAUNCH=Launch.DMA)


A2A3MScatterElemScalarOp = OPS.op(MScatterElemBase, "mscatter_elem_scalar", "A scalar UB -> GM store (or read-add-write) per element, one thread (ND table).", LAUNCH=Launch.SCALAR)
A2A3MScatterRowNzOp = OPS.op(MScatterNzBase, "mscatter_row_nz", "An NZ tile into an NZ table: logical rows, one multi-burst transfer per row and outer block.", LAUNCH=Launch.DMA)


A2A3MScatterElemNzOp = OPS.op(MScatterNzBase, "mscatter_elem_nz", "An NZ tile into an NZ table, element by element, column block by column block.", LAUNCH=Launch.SCALAR)
A2A3TGatherIndexOp = OPS.op(TGatherIndexBase, "tgather_index", "vgather; b16 data goes through tmp as byte offsets.")


A2A3TGatherMaskOp = OPS.op(TGatherMaskBase, "tgather_mask")
A2A3TGatherCompareOp = OPS.op(
    TGatherCompareBase, "tgather_compare",
    PHASES=(
        Phase(Pipe.VECTOR, reads=("src", "threshold"), writes=("tmp",)),
        Phase(Pipe.SCALAR, writes=("tmp",)),
        Phase(Pipe.VECTOR, reads=("tmp",), writes=("dst",)),
        Phase(Pipe.SCALAR, writes=("cdst",)),
    ),
    INTERNAL_FLAGS=(InternalFlag(Pipe.SCALAR, Pipe.VECTOR),),
)
A2A3TScatterIndexOp = OPS.op(
    TScatterIndexBase, "tscatter_index", "A scalar loop after zeroing dst.",
    PHASES=(Phase(Pipe.VECTOR, writes=("dst",)), Phase(Pipe.SCALAR, reads=("src", "indexes"), writes=("dst",))),
    INTERNAL_FLAGS=(InternalFlag(Pipe.VECTOR, Pipe.SCALAR),),
)
A2A3TScatterMaskOp = OPS.op(TScatterMaskBase, "tscatter_mask")




def _mgather(op: MGatherOp) -> Lowered:
    assert op.coalesce is not None
    row = op.coalesce.data == Coalesce.ROW
    if op.is_gm_to_l1:
        return mgather_to_l1(row, A2A3MGatherRowL1Op, A2A3MGatherElemL1Op)
    if inferred_layout(op.mem) == GmLayout.NZ:
        if row:
            return A2A3MGatherRowNzOp, GM_INDEX_U32 | {"capacity": Capacity.NZ_ROWS}
        return A2A3MGatherElemNzOp, GM_INDEX_U32 | {"capacity": Capacity.NZ_ELEMENTS}
    if row:
        return A2A3MGatherRowDmaOp, GM_INDEX_U32 | {"capacity": Capacity.S0_TO_S3, "row_stride": Stride.T3, "col_stride": Stride.ONE}
    return A2A3MGatherElemScalarOp, GM_INDEX_U32 | {"capacity": Capacity.ALL_ELEMENTS}


def _mscatter(op: MScatterOp) -> Lowered:
    coalesce, recorded = coalesce_of(op, MEMORY_SCATTER)
    row = coalesce == Coalesce.ROW
    chosen = GM_INDEX_U32 | recorded
    if inferred_layout(op.mem) == GmLayout.NZ:
        if row:
            return A2A3MScatterRowNzOp, chosen | {"capacity": Capacity.NZ_ROWS, "write_order": WriteOrder.ROW_MAJOR}
        return A2A3MScatterElemNzOp, chosen | {"capacity": Capacity.NZ_ELEMENTS, "write_order": WriteOrder.BLOCK_COLUMNS}
    chosen |= {"winner": ScatterWinner.LAST_IN_ORDER}
    if row:
        return A2A3MScatterRowDmaOp, chosen | {
            "capacity": Capacity.S0_TO_S3, "row_stride": Stride.T3, "col_stride": Stride.ONE,
            "extreme_read": ExtremeRead.DESTINATION,
        }
    return A2A3MScatterElemScalarOp, chosen | {"capacity": Capacity.ALL_ELEMENTS}


def _tgather_compare(op: TGatherOp) -> Lowered:
    src = op.src.type
    assert isinstance(src, TileTypeBase)
    return A2A3TGatherCompareOp, {
        "index_numbering": IndexNumbering.SRC_COLS,
        "compare_span": CompareSpan.VALID_COLS,
        "compare": CompareKind.NUMERIC,
        # half reads each 32-bit threshold as a 16-bit integer (u16 -> i16) before converting it
        "threshold_read": ThresholdRead.LOW_16_BITS_SIGNED if src.element.mlir == "f16" else ThresholdRead.CONVERTED,
    }


TGATHER_FORMS = {
    TGatherForm.MASK: (A2A3TGatherMaskOp, {"packing": Packing.DENSE}),
    TGatherForm.INDEX: (A2A3TGatherIndexOp, {"out_of_range": OutOfRange.FAULT, "tmp_use": TmpUse.B16_BYTE_OFFSETS}),
    TGatherForm.COMPARE: _tgather_compare,
}


def _col_arg_reduce(op: ColArgReduceOp) -> dict[str, Choice]:
    src = op.src.type
    assert isinstance(src, TileTypeBase)
    two_byte_index_only = src.element.bytes == 2 and op.dst_val is None
    return {
        "compare": ArgCompare.FP_BITS,
        "nan": NanPolicy.PROPAGATES,
        "row_counter": RowCounter.F16 if two_byte_index_only else RowCounter.EXACT,
        "src_read": SrcRead.ROW_MAJOR_STORAGE,
    }


def _row_arg_reduce(op: ColArgReduceOp) -> dict[str, Choice]:
    src = op.src.type
    assert isinstance(src, TileTypeBase)
    # vcmax / vcmin: fp16/fp32 with denormals flushed (TCOLARGMIN's choice), integers typed
    floats = src.element.mlir in ("f16", "f32")
    return {"compare": ArgCompare.FP_BITS if floats else ArgCompare.NATIVE, "nan": NanPolicy.FIRST_NAN_WINS}


ZEROED = {"dst_fill": DstFill.WHOLE_TILE_ZERO}
SCALAR_LOOP = {"src_read": SrcRead.ROW_MAJOR_STORAGE, "index_read": IndexRead.SIGNED_64, "winner": ScatterWinner.LAST_IN_ORDER}
TSCATTER_FORMS = {
    TScatterForm.INDEX: (A2A3TScatterIndexOp, ZEROED | SCALAR_LOOP),
    TScatterForm.MASK: (A2A3TScatterMaskOp, ZEROED | {"mask_source": MaskSource.ROW}),
}


OPS.approximate[TCVT] = (
    "the value rounded once by the mode, saturated (ON) or wrapped (OFF), NaN to 0: the vector conversion's "
    "results out of range and for NaN are not public; i32 -> f16 goes through vconv_deq (deqscale 1.0), which "
    "takes no round mode: exact up to 2048 in magnitude, rounded by the op's mode beyond"
)
VECTOR_ARITHMETIC = choosing(
    Unordered.NAN, Division.NATIVE, BothNan.SRC0, ShiftRange.ELEMENT, ByteLanes.PAIRED, ZeroDivisor.IEEE,
    tdivs=(Division.A2A3_VECTOR,), tshl=(ShiftRange.PROMOTED,), tshr=(ShiftRange.PROMOTED,),
)
"""The elementwise families on the vector unit: vmax/vmin (NaN reference), vdiv; TDIVS's integer and in-place paths
of TDivS.hpp; TSHL/TSHR as a scalar C loop (TShl.hpp), the scalar shifts as vshl/vshr; 8-bit bitwise in 16-bit pairs."""


COMPARE_SELECT = choosing(MaskWrite.REPEATS, CompareRead.VCMPV, MaskWalk.ROWS, SelectTmp.MASK_ADDRESS, tsels=(SelectTmp.SCALAR,))
"""a2a3's compare and select (npu/a2a3/TCmp.hpp, TCmps.hpp, TSel.hpp, TSels.hpp)."""

PARTIAL_ARG = choosing(ArgPick.SRC0_IF_NOT_WORSE, PartFill.COPY_THEN_OP, ArgLanes.HALF_MASK_FOR_WIDE_INDEX)
"""a2a3's TPARTARGMAX / TPARTARGMIN (npu/a2a3/TPartArgOp.hpp)."""


OPS.approximate[TTRANS] = (
    "the valid region transposed; on the vnchwconv path the rest of each dst row's last 32-byte block (what UB "
    "address 0 holds) kept as dst had it"
)
OPS.approximate[TGATHERB] = (
    "dst's valid blocks exactly; where a valid row is not whole repeats of 8 blocks, npu/a2a3/TGatherB.hpp "
    "gathers its remaining blocks as one more whole repeat (it sets no mask for vgatherb), writing the rest of the "
    "256 bytes past the valid row (past dst's storage for the last row of a narrow tile) from the offsets "
    "that follow: not modelled, those bytes keep their contents"
)
OPS.approximate[TCI] = "S +- j wrapped to dst's type (the scalar loop's values): the tmp form's float sequence is not public"


A2A3TMovOp = OPS.op(TMovBase, "tmov")
"""Vec -> Vec only: the rules refuse a mat -> left / right move here (not implemented)."""


LOWERING = lowering_table(
    "a2a3", OPS, TRANSFER, PRINT, (_mgather, _mscatter, TGATHER_FORMS, TSCATTER_FORMS), COMPARE_SELECT, PARTIAL_ARG,
    {
        **OPS.single(TCOLARGMIN, _col_arg_reduce),
        **OPS.single(TCOLARGMAX, _col_arg_reduce),
        **OPS.single(TROWARGMIN, _row_arg_reduce, "vcmin per repeat, then over the repeats' minima (up to three stages through tmp)."),
        **OPS.single(TROWARGMAX, _row_arg_reduce, "vcmax per repeat, then over the repeats' maxima (up to three stages through tmp)."),
        **OPS.single(TCVT, {"cvt_arithmetic": CvtArithmetic.VCONV, "numerics": Numerics.APPROXIMATE}),
        **reductions(
            OPS, ReduceOrder.REPEAT_STAGES, ReduceOrder.ROW_ZERO_THEN_SEQUENTIAL, ExtremeNan.PROPAGATES,
            {"trowsum": "float sums: vcadd's in-repeat tree as adjacent pairs"},
        ),
        **broadcasts(OPS, RULES, VectorRead.PACKED_BLOCKS, VectorRead.LAYOUT, ExtremeNan.PROPAGATES, BroadcastDivisor.IEEE, BROADCAST_REFERENCES),
        **OPS.single(THISTOGRAM, lowering_choices(HistogramRows.PACKED)),
        **OPS.single(TTRI, tri_choices(TriRun.CLIPPED)),
        **OPS.single(TRANDOM, random_choices(RandomStream.INTERLEAVED)),
        **OPS.single(TCI, lambda op: {"numerics": Numerics.APPROXIMATE if len(op.ins) == 2 else Numerics.EXACT}),
        TMOV: lambda op: (A2A3TMovOp, {"move_copy": MoveCopy.UB_BLOCKS, "numerics": Numerics.EXACT}),
        **OPS.family(WINDOW_COPIES, choose=WINDOW_COPIES.fixed(window_bounds=WindowBounds.ALIGNED_TILE)),
        **OPS.single(TCONCAT, {"concat_copy": ConcatCopy.UB_BLOCKS, "numerics": Numerics.EXACT}),
        **OPS.single(TFILLPAD, lambda op: fillpad_choices(op, FillPadWrite.ROW_BLOCKS, TRANSFER.zero_pad_types)),
        **OPS.single(TTRANS, lambda op: {"trans_write": TransWrite.VNCHWCONV, "numerics": Numerics.APPROXIMATE if vnchwconv_tail(op) else Numerics.EXACT}),
        **OPS.single(TGATHERB, lambda op: {"block_read": BlockRead.ALIGNED_IN_SRC, "numerics": Numerics.EXACT if whole_repeats(op) else Numerics.APPROXIMATE}),
        **OPS.family(UNARY, choose=UNARY.fixed(abs_sign=AbsSign.CLEAR, zero_reciprocal=ZeroReciprocal.INFINITY, exp_arithmetic=ExpArithmetic.SINGLE), approximate=on_vector_unit(UNARY)),
        **arithmetic(OPS, VECTOR_ARITHMETIC, PartFill.COPY_THEN_OP, VECTOR_UNIT_REFERENCES | ON_VECTOR_UNIT),
    },
)

DIALECT = OPS.dialect()
