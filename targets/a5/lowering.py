"""
`pto_a5`: the Ascend 950. MGATHER is a SIMT launch over a {32, 32} grid (the (1, 1)
elem case runs the scalar fallback); indices are reinterpreted as uint32; row mode
bounds an index by Shape[3] and reads packed rows (stride = dst valid cols). TGATHER's
index form is the register gather (load the index vector, gather by index under a mask,
store). Compare-form matches are numbered per 64-lane chunk (128 for 1-byte data).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, i64
from xdsl.irdl import prop_def
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from pto_dialect.choices import ArgCompare, Capacity, CompareKind, CompareSpan, DstFill, ExtremeRead, IndexNumbering, IndexRead, MaskSource, NanPolicy, Packing, ScatterWinner, SrcRead, Stride, ThresholdRead
from lowering.convert import Lowered, TargetLowering, TargetOps
from pto_dialect.attributes import Coalesce, ScatterAtomicOp, ScatterConflict
from pto_dialect.instructions.mgather import (
    MGATHER,
    MGatherElemBase,
    MGatherElemL1Base,
    MGatherOp,
    MGatherRowBase,
    MGatherRowL1Base,
)
from pto_dialect.instructions.mscatter import MSCATTER, MScatterElemBase, MScatterOp, MScatterRowBase, coalesce_of
from pto_dialect.instructions.tcolargmax import TCOLARGMAX
from pto_dialect.instructions.tcolargmin import TCOLARGMIN, TYPED_COMPARISON
from pto_dialect.instructions.tgather import (
    TGATHER,
    TGatherCompareBase,
    TGatherForm,
    TGatherMaskBase,
    TGatherOp,
)
from pto_dialect.instructions.tprint import print_lowering
from pto_dialect.instructions.transfer import transfer_lowering
from pto_dialect.instructions.trowargmax import TROWARGMAX
from pto_dialect.instructions.trowargmin import TROWARGMIN
from pto_dialect.instructions.tscatter import TSCATTER, TScatterForm, TScatterIndexBase, TScatterMaskBase
from pto_dialect.choices import AbsSign, BothNan, BroadcastDivisor, ByteLanes, CvtArithmetic, Division, ExpArithmetic, ExtremeNan, Numerics, ReduceOrder, ShiftRange, Unordered, VectorRead, ZeroDivisor, ZeroReciprocal
from pto_dialect.instructions.tci import TCI
from pto_dialect.choices import ConcatCopy, MoveCopy, WindowBounds
from pto_dialect.choices import TransWrite
from pto_dialect.instructions.ttrans import TTRANS
from pto_dialect.instructions.fillpad import TFILLPAD, FillPadWrite, fillpad_choices
from pto_dialect.instructions.movement import TCONCAT, TMOV, WINDOW_COPIES
from pto_dialect.instructions.tcvt import TCVT
from pto_dialect.instructions.elementwise import BINARY, choosing, FILL, on_vector_unit, TILE_SCALAR, UNARY
from pto_dialect.instructions.reduction import COL_REDUCTIONS, reduction_choices, ROW_REDUCTIONS
from pto_dialect.instructions.broadcast import broadcast_choices, COL_BROADCASTS, ROW_BROADCASTS, VECTOR_UNIT_REFERENCES as BROADCAST_REFERENCES
from pto_dialect.instructions.compare import COMPARE_SELECT
from pto_dialect.instructions.partial import filling, ON_VECTOR_UNIT, PARTIAL
from pto_dialect.instructions.partial_arg import PARTIAL_ARG
from pto_dialect.choices import ArgLanes, ArgPick, CompareRead, MaskWalk, MaskWrite, PartFill, SelectTmp
from pto_dialect.lowered import Launch
from pto_dialect.instruction import Pipe
from pto_dialect.phases import InternalFlag, Phase
from pto_dialect.types import TileTypeBase
from pto_dialect.vpto.gather_kernels import VSCATTER_WINNER
from targets.a5.register_gather import register_index_gather
from targets.a5.rules import MEMORY_SCATTER, PRINT, TRANSFER


OPS = TargetOps("pto_a5", "A5")
"""Every op of the pto_a5 dialect, each declared once."""


@OPS.declare
class A5MGatherRowSimtOp(MGatherRowBase):
    """SIMT launch over `grid`, warp-parallel channels per row."""

    name = "pto_a5.mgather_row_simt"
    LAUNCH: ClassVar[Launch] = Launch.SIMT
    grid = prop_def(DenseArrayBase)


@OPS.declare
class A5MGatherElemSimtOp(MGatherElemBase):
    """SIMT launch over `grid`, one channel per element."""

    name = "pto_a5.mgather_elem_simt"
    LAUNCH: ClassVar[Launch] = Launch.SIMT
    grid = prop_def(DenseArrayBase)


@OPS.declare
class A5MGatherElemScalarOp(MGatherElemBase):
    """MGatherScalarImpl on the AIV core: the degenerate (1, 1) elem gather."""

    name = "pto_a5.mgather_elem_scalar"
    LAUNCH: ClassVar[Launch] = Launch.SCALAR
    # SyncMacroModel.cpp (A5, 1x1 elem): the index read on V, the GM load and dst write on S
    PHASES: ClassVar[tuple[Phase, ...]] = (Phase(Pipe.VECTOR, reads=("idx",)), Phase(Pipe.SCALAR, reads=("mem",), writes=("dst",)))
    INTERNAL_FLAGS: ClassVar[tuple[InternalFlag, ...]] = (InternalFlag(Pipe.VECTOR, Pipe.SCALAR), InternalFlag(Pipe.SCALAR, Pipe.VECTOR))


@OPS.declare
class A5MGatherRowL1Op(MGatherRowL1Base):
    """GM -> L1 NZ tile, row mode (GM index tensor)."""

    name = "pto_a5.mgather_row_l1"
    LAUNCH: ClassVar[Launch] = Launch.DMA


@OPS.declare
class A5MGatherElemL1Op(MGatherElemL1Base):
    """Elem GM -> L1 through GM scratch; `gatherExec`: cube scalar loop or AIV SIMT kernel."""

    name = "pto_a5.mgather_elem_l1"
    LAUNCH: ClassVar[Launch] = Launch.SCALAR


@OPS.declare
class A5MScatterRowSimtOp(MScatterRowBase):
    """SIMT launch: warps own rows (non-`last`), or lanes own table rows and scan back (`last`)."""

    name = "pto_a5.mscatter_row_simt"
    LAUNCH: ClassVar[Launch] = Launch.SIMT
    grid = prop_def(DenseArrayBase)


@OPS.declare
class A5MScatterElemSimtOp(MScatterElemBase):
    """SIMT launch: a lane per element (non-`last`), or per table element scanning back (`last`)."""

    name = "pto_a5.mscatter_elem_simt"
    LAUNCH: ClassVar[Launch] = Launch.SIMT
    grid = prop_def(DenseArrayBase)


@OPS.declare
class A5MScatterElemScalarOp(MScatterElemBase):
    """MScatterScalarImpl on the AIV core: the degenerate (1, 1) elem scatter."""

    name = "pto_a5.mscatter_elem_scalar"
    LAUNCH: ClassVar[Launch] = Launch.SCALAR


@OPS.declare
class A5TGatherMaskOp(TGatherMaskBase):
    name = "pto_a5.tgather_mask"


@OPS.declare
class A5TGatherCompareOp(TGatherCompareBase):
    name = "pto_a5.tgather_compare"










@OPS.declare
class A5TScatterIndexOp(TScatterIndexBase):
    """vscatter per register of indices after zeroing dst (8-byte data: two 32-bit halves)."""

    name = "pto_a5.tscatter_index"


@OPS.declare
class A5TScatterMaskOp(TScatterMaskBase):
    name = "pto_a5.tscatter_mask"



SIMT_GRID = (32, 32)
CHUNK_SEARCH = {"compare": ArgCompare.NATIVE, "nan": NanPolicy.NAN_CHUNK_SKIPPED}
"""The row arg-reductions' search: typed vcmax/vcmin per 256-byte chunk, then a strict compare."""
U32 = {"index_read": IndexRead.UNSIGNED_32}


def _mgather(op: MGatherOp) -> Lowered:
    assert op.coalesce is not None
    row = op.coalesce.data == Coalesce.ROW
    if op.is_gm_to_l1:
        if row:
            return A5MGatherRowL1Op, U32 | {"capacity": Capacity.S0_TO_S3, "row_stride": Stride.T3}
        return A5MGatherElemL1Op, U32 | {"capacity": Capacity.ALL_ELEMENTS}
    grid = DenseArrayBase.from_list(i64, SIMT_GRID)
    if row:
        return A5MGatherRowSimtOp, U32 | {
            "capacity": Capacity.S3, "row_stride": Stride.VALID_COLS, "col_stride": Stride.ONE, "grid": grid,
        }
    dst = op.dst.type
    assert isinstance(dst, TileTypeBase)
    if dst.valid_shape == (1, 1):
        return A5MGatherElemScalarOp, U32 | {"capacity": Capacity.ALL_ELEMENTS}
    return A5MGatherElemSimtOp, U32 | {"capacity": Capacity.ALL_ELEMENTS, "grid": grid}


def _mscatter(op: MScatterOp) -> Lowered:
    coalesce, recorded = coalesce_of(op, MEMORY_SCATTER)
    unordered = op.atomic == ScatterAtomicOp.NONE and op.scatter_conflict is not None and \
        op.scatter_conflict.data == ScatterConflict.DEFAULT  # without it: ScatterConflict::Last
    chosen = U32 | recorded | {"winner": ScatterWinner.UNORDERED if unordered else ScatterWinner.LAST_IN_ORDER}
    grid = DenseArrayBase.from_list(i64, SIMT_GRID)
    if coalesce == Coalesce.ROW:
        return A5MScatterRowSimtOp, chosen | {
            "capacity": Capacity.S3, "row_stride": Stride.VALID_COLS, "col_stride": Stride.ONE,
            "extreme_read": ExtremeRead.DESTINATION, "grid": grid,
        }
    src = op.src.type
    assert isinstance(src, TileTypeBase)
    if src.valid_shape == (1, 1):
        return A5MScatterElemScalarOp, chosen | {"capacity": Capacity.ALL_ELEMENTS}
    return A5MScatterElemSimtOp, chosen | {"capacity": Capacity.ALL_ELEMENTS, "grid": grid}


def _tgather(op: TGatherOp) -> Lowered:
    src = op.src.type
    assert isinstance(src, TileTypeBase)
    width = src.element.bytes
    match op.form:
        case TGatherForm.MASK:
            return A5TGatherMaskOp, {"packing": Packing.PER_ROW if width == 8 else Packing.DENSE}
        case TGatherForm.COMPARE:  # b8/b16 compare whole chunks (an all-true mask), b32 the valid cols
            return A5TGatherCompareOp, {
                "index_numbering": IndexNumbering.LANE_CHUNKS_128 if width == 1 else IndexNumbering.LANE_CHUNKS_64,
                "compare_span": CompareSpan.WHOLE_CHUNKS if width <= 2 else CompareSpan.VALID_COLS,
                "compare": CompareKind.UNSIGNED_AFTER_ROUND,
                "threshold_read": ThresholdRead.RAW,
            }
        case TGatherForm.INDEX:  # the register-level ops LowerIndexTGatherToRegisters writes: no op, no choice
            return None, {}


VSCATTER = {"dst_fill": DstFill.WHOLE_TILE_ZERO, "src_read": SrcRead.ROW_MAJOR_STORAGE,
            "index_read": IndexRead.UNSIGNED_OWN_WIDTH, "winner": VSCATTER_WINNER}
"""TSCATTER's index form: zero dst, then per row a vscatter per register of indices."""
TSCATTER_FORMS = {
    TScatterForm.INDEX: (A5TScatterIndexOp, VSCATTER),
    TScatterForm.MASK: (A5TScatterMaskOp, {"dst_fill": DstFill.WHOLE_TILE_ZERO, "mask_source": MaskSource.ROW}),
}


class LowerIndexTGatherToRegisters(RewritePattern):
    """Index-form TGATHER -> the register-level gather a user writes (targets/a5/register_gather.py)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TGatherOp, rewriter: PatternRewriter) -> None:
        if op.form != TGatherForm.INDEX or op.results:
            return
        rewriter.replace(op, register_index_gather(op, op.src, op.ins[1], op.dst), [])




OPS.approximate[TCVT] = (
    "the value rounded once by the mode, saturated (ON) or wrapped (OFF), NaN to 0: the vector conversion's "
    "results out of range and for NaN are not public"
)
VECTOR_ARITHMETIC = choosing(Unordered.NAN, Division.NATIVE, BothNan.SRC0, ShiftRange.ELEMENT, ByteLanes.ELEMENT, ZeroDivisor.IEEE)
"""The elementwise families on the vector unit: vmax/vmin (NaN reference), vdiv, the scalar C loop of TDivS.hpp for integers."""


COMPARE_SELECT_CHOICES = {
    "tcmp": {"mask_write": MaskWrite.PREDICATED, "compare_read": CompareRead.TYPED},
    "tcmps": {"mask_write": MaskWrite.PREDICATED, "compare_read": CompareRead.TYPED},
    "tsel": {"mask_walk": MaskWalk.REPEAT_STEP_16, "select_tmp": SelectTmp.UNUSED},
    "tsels": {"select_tmp": SelectTmp.UNUSED},
}
"""a5's compare and select (npu/a5/TCmp.hpp, TCmps.hpp, TSel.hpp, TSels.hpp)."""


PARTIAL_ARG_CHOICES = {"arg_pick": ArgPick.SRC0_UNLESS_SRC1_BETTER, "part_fill": PartFill.MERGE, "arg_lanes": ArgLanes.ALL}
"""a5's TPARTARGMAX / TPARTARGMIN (npu/a5/TPartArgBinOps.hpp)."""









LOWERING = TargetLowering(
    "a5",
    {
        **transfer_lowering(TRANSFER),
        MGATHER: _mgather,
        MSCATTER: _mscatter,
        TGATHER: _tgather,
        **OPS.single(TCOLARGMIN, TYPED_COMPARISON),
        **OPS.single(TCOLARGMAX, TYPED_COMPARISON),
        **OPS.single(TROWARGMIN, CHUNK_SEARCH, "vcmin per 256-byte chunk, a chunk kept where strictly below the best so far."),
        **OPS.single(TROWARGMAX, CHUNK_SEARCH, "vcmax per 256-byte chunk, a chunk kept where strictly above the best so far."),
        TSCATTER: lambda op: TSCATTER_FORMS[op.form],
        **print_lowering(PRINT),
        **OPS.single(TCVT, {"cvt_arithmetic": CvtArithmetic.VCONV, "numerics": Numerics.APPROXIMATE}),
        **OPS.family(ROW_REDUCTIONS, choose=lambda row, op: reduction_choices(row, ReduceOrder.CHUNK_THEN_SEQUENTIAL, ExtremeNan.PROPAGATES), approximate={"trowsum": "float sums: vcadd's in-repeat tree as adjacent pairs"}),
        **OPS.family(COL_REDUCTIONS, choose=lambda row, op: reduction_choices(row, ReduceOrder.ROW_ZERO_THEN_PAIRS, ExtremeNan.PROPAGATES)),
        **OPS.family(
            ROW_BROADCASTS,
            choose=lambda row, op: broadcast_choices(row, VectorRead.PACKED_BLOCKS, ExtremeNan.PROPAGATES, BroadcastDivisor.IEEE),
            approximate=on_vector_unit(ROW_BROADCASTS, BROADCAST_REFERENCES),
        ),
        **OPS.family(
            COL_BROADCASTS,
            choose=lambda row, op: broadcast_choices(row, VectorRead.LAYOUT, ExtremeNan.PROPAGATES, BroadcastDivisor.IEEE),
            approximate=on_vector_unit(COL_BROADCASTS, BROADCAST_REFERENCES),
        ),
        **OPS.single(TCI, {"numerics": Numerics.EXACT}),
        **OPS.single(TMOV, {"move_copy": MoveCopy.VECTOR_ROWS, "numerics": Numerics.EXACT}),
        **OPS.family(WINDOW_COPIES, choose=WINDOW_COPIES.fixed(window_bounds=WindowBounds.TILE)),
        **OPS.single(TCONCAT, {"concat_copy": ConcatCopy.VECTOR, "numerics": Numerics.EXACT}),
        **OPS.single(TFILLPAD, lambda op: fillpad_choices(op, FillPadWrite.VECTOR, TRANSFER.zero_pad_types)),
        **OPS.single(TTRANS, {"trans_write": TransWrite.VECTOR, "numerics": Numerics.EXACT}),
        **OPS.family(
            UNARY, choose=UNARY.fixed(abs_sign=AbsSign.CLEAR, zero_reciprocal=ZeroReciprocal.INFINITY, exp_arithmetic=ExpArithmetic.SINGLE),
            approximate=on_vector_unit(UNARY) | {"trsqrt": "1 / sqrt in double rounded once (cpu's formula); vsqrt then vdiv, whose own rounding is not public"},
        ),
        **OPS.family(BINARY, choose=VECTOR_ARITHMETIC, approximate=on_vector_unit(BINARY)),
        **OPS.family(TILE_SCALAR, choose=VECTOR_ARITHMETIC, approximate=on_vector_unit(TILE_SCALAR)),
        **OPS.family(FILL),
        **OPS.family(COMPARE_SELECT, choose=lambda row, op: COMPARE_SELECT_CHOICES[row.mnemonic]),
        **OPS.family(PARTIAL, choose=filling(PartFill.MERGE, VECTOR_ARITHMETIC), approximate=ON_VECTOR_UNIT),
        **OPS.family(PARTIAL_ARG, choose=lambda row, op: PARTIAL_ARG_CHOICES),
    },
    extra_patterns=(LowerIndexTGatherToRegisters(),),
    approximate=OPS.approximate,
)

DIALECT = OPS.dialect()
