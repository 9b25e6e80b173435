"""
`pto_a5`: the Ascend 950. MGATHER is a SIMT launch over a {32, 32} grid (the (1, 1)
elem case runs the scalar fallback); indices are reinterpreted as uint32; row mode
bounds an index by Shape[3] and reads packed rows (stride = dst valid cols). TGATHER's
index form is the register gather (load the index vector, gather by index under a mask,
store). Compare-form matches are numbered per 64-lane chunk (128 for 1-byte data).
"""

from __future__ import annotations


from collections.abc import Mapping

from xdsl.dialects.builtin import DenseArrayBase, i64
from xdsl.ir import Attribute
from xdsl.irdl import prop_def
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from pto_dialect.choices import ArgCompare, Capacity, Choice, CompareKind, CompareSpan, DstFill, ExtremeRead, IndexNumbering, IndexRead, MaskSource, NanPolicy, Packing, ScatterWinner, SrcRead, Stride, ThresholdRead
from lowering.convert import Lowered, TargetOps
from targets.lowering_table import arithmetic, broadcasts, GM_INDEX_U32, lowering_table, mgather_to_l1, reductions
from pto_dialect.attributes import Coalesce, ScatterAtomicOp, ScatterConflict
from pto_dialect.instructions.mgather import (
    MGatherElemBase,
    MGatherElemL1Base,
    MGatherOp,
    MGatherRowBase,
    MGatherRowL1Base,
)
from pto_dialect.instructions.mscatter import MScatterElemBase, MScatterOp, MScatterRowBase, coalesce_of
from pto_dialect.instructions.tcolargmax import TCOLARGMAX
from pto_dialect.instructions.tcolargmin import TCOLARGMIN, TYPED_COMPARISON
from pto_dialect.instructions.tgather import (
    TGatherCompareBase,
    TGatherForm,
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
from pto_dialect.instructions.tgatherb import TGATHERB
from pto_dialect.instructions.ttrans import TTRANS
from pto_dialect.instructions.fillpad import TFILLPAD, FillPadWrite, fillpad_choices
from pto_dialect.instructions.movement import TCONCAT, TMOV, WINDOW_COPIES, TMovBase, TMovL0Base, TMovOp, loads_l0
from pto_dialect.instructions.tcvt import TCVT
from pto_dialect.instructions.elementwise import choosing, on_vector_unit, UNARY, VECTOR_UNIT_REFERENCES
from pto_dialect.instructions.broadcast import VECTOR_UNIT_REFERENCES as BROADCAST_REFERENCES
from pto_dialect.instructions.partial import ON_VECTOR_UNIT
from pto_dialect.choices import ArgLanes, ArgPick, CompareRead, MaskWalk, MaskWrite, PartFill, SelectTmp
from pto_dialect.lowered import Launch, LoweredOp
from pto_dialect.instruction import Pipe
from pto_dialect.phases import InternalFlag, Phase
from pto_dialect.types import TileTypeBase
from pto_dialect.vpto.gather_kernels import VSCATTER_WINNER
from targets.a5.register_gather import register_index_gather
from targets.a5.rules import MEMORY_SCATTER, PRINT, RULES, TRANSFER


OPS = TargetOps("pto_a5", "A5")
"""Every op of the pto_a5 dialect, each declared once."""


A5MGatherRowSimtOp = OPS.op(MGatherRowBase, "mgather_row_simt", "SIMT launch over `grid`, warp-parallel channels per row.", LAUNCH=Launch.SIMT, grid=prop_def(DenseArrayBase))
A5MGatherElemSimtOp = OPS.op(MGatherElemBase, "mgather_elem_simt", "SIMT launch over `grid`, one channel per element.", LAUNCH=Launch.SIMT, grid=prop_def(DenseArrayBase))


A5MGatherElemScalarOp = OPS.op(
    MGatherElemBase, "mgather_elem_scalar", "MGatherScalarImpl on the AIV core: the degenerate (1, 1) elem gather.",
    LAUNCH=Launch.SCALAR,
    # SyncMacroModel.cpp (A5, 1x1 elem): the index read on V, the GM load and dst write on S
    PHASES=(Phase(Pipe.VECTOR, reads=("idx",)), Phase(Pipe.SCALAR, reads=("mem",), writes=("dst",))),
    INTERNAL_FLAGS=(InternalFlag(Pipe.VECTOR, Pipe.SCALAR), InternalFlag(Pipe.SCALAR, Pipe.VECTOR)),
)
A5MGatherRowL1Op = OPS.op(MGatherRowL1Base, "mgather_row_l1", "GM -> L1 NZ tile, row mode (GM index tensor).", LAUNCH=Launch.DMA)


A5MGatherElemL1Op = OPS.op(MGatherElemL1Base, "mgather_elem_l1", "Elem GM -> L1 through GM scratch; `gatherExec`: cube scalar loop or AIV SIMT kernel.", LAUNCH=Launch.SCALAR)
A5MScatterRowSimtOp = OPS.op(MScatterRowBase, "mscatter_row_simt", "SIMT launch: warps own rows (non-`last`), or lanes own table rows and scan back (`last`).", LAUNCH=Launch.SIMT, grid=prop_def(DenseArrayBase))


A5MScatterElemSimtOp = OPS.op(MScatterElemBase, "mscatter_elem_simt", "SIMT launch: a lane per element (non-`last`), or per table element scanning back (`last`).", LAUNCH=Launch.SIMT, grid=prop_def(DenseArrayBase))
A5MScatterElemScalarOp = OPS.op(MScatterElemBase, "mscatter_elem_scalar", "MScatterScalarImpl on the AIV core: the degenerate (1, 1) elem scatter.", LAUNCH=Launch.SCALAR)


A5TGatherMaskOp = OPS.op(TGatherMaskBase, "tgather_mask")
A5TGatherCompareOp = OPS.op(TGatherCompareBase, "tgather_compare")


A5TScatterIndexOp = OPS.op(TScatterIndexBase, "tscatter_index", "vscatter per register of indices after zeroing dst (8-byte data: two 32-bit halves).")
A5TScatterMaskOp = OPS.op(TScatterMaskBase, "tscatter_mask")


SIMT_GRID = (32, 32)
CHUNK_SEARCH = {"compare": ArgCompare.NATIVE, "nan": NanPolicy.NAN_CHUNK_SKIPPED}
"""The row arg-reductions' search: typed vcmax/vcmin per 256-byte chunk, then a strict compare."""


def _mgather(op: MGatherOp) -> Lowered:
    assert op.coalesce is not None
    row = op.coalesce.data == Coalesce.ROW
    if op.is_gm_to_l1:
        return mgather_to_l1(row, A5MGatherRowL1Op, A5MGatherElemL1Op)
    return _simt(row, op.dst.type, (A5MGatherRowSimtOp, A5MGatherElemScalarOp, A5MGatherElemSimtOp), GM_INDEX_U32)


def _mscatter(op: MScatterOp) -> Lowered:
    coalesce, recorded = coalesce_of(op, MEMORY_SCATTER)
    unordered = op.atomic == ScatterAtomicOp.NONE and op.scatter_conflict is not None and \
        op.scatter_conflict.data == ScatterConflict.DEFAULT  # without it: ScatterConflict::Last
    chosen = GM_INDEX_U32 | recorded | {"winner": ScatterWinner.UNORDERED if unordered else ScatterWinner.LAST_IN_ORDER}
    ops = (A5MScatterRowSimtOp, A5MScatterElemScalarOp, A5MScatterElemSimtOp)
    return _simt(coalesce == Coalesce.ROW, op.src.type, ops, chosen, {"extreme_read": ExtremeRead.DESTINATION})


def _simt(
    row: bool, tile: Attribute, ops: tuple[type[LoweredOp], type[LoweredOp], type[LoweredOp]],
    chosen: Mapping[str, Choice | Attribute], row_choices: Mapping[str, Choice] = {},
) -> Lowered:
    """An MGATHER's or MSCATTER's SIMT launch over SIMT_GRID (`ops`: its row-mode op, then its
    elem-mode scalar and SIMT ops): row mode reads packed rows (stride = the tile's valid cols),
    an elem-mode (1, 1) `tile` runs the scalar fallback."""
    row_op, scalar_op, simt_op = ops
    grid = DenseArrayBase.from_list(i64, SIMT_GRID)
    if row:
        packed = {"capacity": Capacity.S3, "row_stride": Stride.VALID_COLS, "col_stride": Stride.ONE}
        return row_op, {**chosen, **packed, **row_choices, "grid": grid}
    assert isinstance(tile, TileTypeBase)
    if tile.valid_shape == (1, 1):
        return scalar_op, {**chosen, "capacity": Capacity.ALL_ELEMENTS}
    return simt_op, {**chosen, "capacity": Capacity.ALL_ELEMENTS, "grid": grid}


def _src_width(op: TGatherOp) -> int:
    src = op.src.type
    assert isinstance(src, TileTypeBase)
    return src.element.bytes


def _tgather_compare(op: TGatherOp) -> Lowered:
    """b8/b16 compare whole chunks (an all-true mask), b32 the valid cols."""
    width = _src_width(op)
    return A5TGatherCompareOp, {
        "index_numbering": IndexNumbering.LANE_CHUNKS_128 if width == 1 else IndexNumbering.LANE_CHUNKS_64,
        "compare_span": CompareSpan.WHOLE_CHUNKS if width <= 2 else CompareSpan.VALID_COLS,
        "compare": CompareKind.UNSIGNED_AFTER_ROUND,
        "threshold_read": ThresholdRead.RAW,
    }


TGATHER_FORMS = {
    TGatherForm.MASK: lambda op: (A5TGatherMaskOp, {"packing": Packing.PER_ROW if _src_width(op) == 8 else Packing.DENSE}),
    TGatherForm.COMPARE: _tgather_compare,
    TGatherForm.INDEX: (None, {}),  # the register-level ops LowerIndexTGatherToRegisters writes: no op, no choice
}


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


COMPARE_SELECT = choosing(MaskWrite.PREDICATED, CompareRead.TYPED, MaskWalk.REPEAT_STEP_16, SelectTmp.UNUSED)
"""a5's compare and select (npu/a5/TCmp.hpp, TCmps.hpp, TSel.hpp, TSels.hpp)."""

PARTIAL_ARG = choosing(ArgPick.SRC0_UNLESS_SRC1_BETTER, PartFill.MERGE, ArgLanes.ALL)
"""a5's TPARTARGMAX / TPARTARGMIN (npu/a5/TPartArgBinOps.hpp)."""


A5TMovOp = OPS.op(TMovBase, "tmov")
A5TMovL0Op = OPS.op(
    TMovL0Base, "tmov_l0", "mat -> left / right: load_cbuf_to_ca / load_cbuf_to_cb of whole fractals (TMovToLeft / TMovToRight).",
    LAUNCH=Launch.DMA,
)


def _tmov(op: TMovOp) -> Lowered:
    """A Vec -> Vec copy as the target copies it; a mat -> left / right load (its rules admit one only where
    its code has it)."""
    if loads_l0(op):
        return A5TMovL0Op, {"numerics": Numerics.EXACT}
    return A5TMovOp, {"move_copy": MoveCopy.VECTOR_ROWS, "numerics": Numerics.EXACT}


LOWERING = lowering_table(
    "a5", OPS, TRANSFER, PRINT, (_mgather, _mscatter, TGATHER_FORMS, TSCATTER_FORMS), COMPARE_SELECT, PARTIAL_ARG,
    {
        **OPS.single(TCOLARGMIN, TYPED_COMPARISON),
        **OPS.single(TCOLARGMAX, TYPED_COMPARISON),
        **OPS.single(TROWARGMIN, CHUNK_SEARCH, "vcmin per 256-byte chunk, a chunk kept where strictly below the best so far."),
        **OPS.single(TROWARGMAX, CHUNK_SEARCH, "vcmax per 256-byte chunk, a chunk kept where strictly above the best so far."),
        **OPS.single(TCVT, {"cvt_arithmetic": CvtArithmetic.VCONV, "numerics": Numerics.APPROXIMATE}),
        **reductions(
            OPS, ReduceOrder.CHUNK_THEN_SEQUENTIAL, ReduceOrder.ROW_ZERO_THEN_PAIRS, ExtremeNan.PROPAGATES,
            {"trowsum": "float sums: vcadd's in-repeat tree as adjacent pairs"},
        ),
        **broadcasts(OPS, RULES, VectorRead.PACKED_BLOCKS, VectorRead.LAYOUT, ExtremeNan.PROPAGATES, BroadcastDivisor.IEEE, BROADCAST_REFERENCES),
        **OPS.single(THISTOGRAM, lowering_choices(HistogramRows.PACKED)),
        **OPS.single(TTRI, tri_choices(TriRun.REGISTERS)),
        **OPS.single(TRANDOM, random_choices(RandomStream.INTERLEAVED)),
        **OPS.single(TCI, {"numerics": Numerics.EXACT}),
        TMOV: _tmov,
        **OPS.family(WINDOW_COPIES, choose=WINDOW_COPIES.fixed(window_bounds=WindowBounds.TILE)),
        **OPS.single(TCONCAT, {"concat_copy": ConcatCopy.VECTOR, "numerics": Numerics.EXACT}),
        **OPS.single(TFILLPAD, lambda op: fillpad_choices(op, FillPadWrite.VECTOR, TRANSFER.zero_pad_types)),
        **OPS.single(TTRANS, {"trans_write": TransWrite.VECTOR, "numerics": Numerics.EXACT}),
        **OPS.single(TGATHERB, {"block_read": BlockRead.ALIGNED_IN_SRC, "numerics": Numerics.EXACT}),
        **OPS.family(
            UNARY, choose=UNARY.fixed(abs_sign=AbsSign.CLEAR, zero_reciprocal=ZeroReciprocal.INFINITY, exp_arithmetic=ExpArithmetic.SINGLE),
            approximate=on_vector_unit(UNARY) | {"trsqrt": "1 / sqrt in double rounded once (cpu's formula); vsqrt then vdiv, whose own rounding is not public"},
        ),
        **arithmetic(OPS, VECTOR_ARITHMETIC, PartFill.MERGE, VECTOR_UNIT_REFERENCES | ON_VECTOR_UNIT),
    },
    extra_patterns=(LowerIndexTGatherToRegisters(),),
)

DIALECT = OPS.dialect()
