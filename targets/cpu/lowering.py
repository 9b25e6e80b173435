"""
`pto_cpu`: the pto-isa CPU simulator's execution of each instruction. The simulator
loops over valid elements in C++: indices are widened to 64 bits (an i32 sign-extends),
row mode bounds an index by Shape[3] and reads rows at the view's strides, TGATHER's
out-of-range offsets read 0, TCOLARGMIN and TROWARGMIN compare natively.
"""

from __future__ import annotations

from pto_dialect.choices import ArgCompare, Capacity, DstFill, ExtremeRead, IndexRead, MaskSource, NanPolicy, OutOfRange, Packing, ScatterWinner, SrcRead, Stride, TmpUse
from lowering.convert import Lowered, TargetOps
from targets.lowering_table import arithmetic, broadcasts, lowering_table, reductions
from pto_dialect.attributes import Coalesce
from pto_dialect.instructions.mgather import MGatherElemBase, MGatherOp, MGatherRowBase
from pto_dialect.instructions.mscatter import MScatterElemBase, MScatterOp, MScatterRowBase, coalesce_of
from pto_dialect.instructions.tcolargmax import TCOLARGMAX
from pto_dialect.instructions.tcolargmin import TCOLARGMIN, TYPED_COMPARISON
from pto_dialect.instructions.tgather import TGatherForm, TGatherIndexBase, TGatherMaskBase
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
from pto_dialect.instructions.movement import TCONCAT, TMOV, WINDOW_COPIES, TMovBase
from pto_dialect.instructions.tcvt import TCVT
from pto_dialect.instructions.elementwise import choosing, UNARY
from pto_dialect.choices import ArgLanes, ArgPick, CompareRead, MaskWalk, MaskWrite, PartFill, SelectTmp
from pto_dialect.lowered import Launch
from targets.cpu.rules import MEMORY_SCATTER, PRINT, RULES, TRANSFER


OPS = TargetOps("pto_cpu", "Cpu")
"""Every op of the pto_cpu dialect, each declared once."""


CpuMGatherRowOp = OPS.op(MGatherRowBase, "mgather_row", "Row gather in the simulator's row loop (also its GM->L1 form, scratch ignored).", LAUNCH=Launch.SIMULATOR)
CpuMGatherElemOp = OPS.op(MGatherElemBase, "mgather_elem", "Element gather in the simulator's loop over validRow * validCol.", LAUNCH=Launch.SIMULATOR)


CpuMScatterRowOp = OPS.op(MScatterRowBase, "mscatter_row", "Row scatter in the simulator's row loop; max/min read table[idx] (its base[idx]).", LAUNCH=Launch.SIMULATOR)
CpuMScatterElemOp = OPS.op(MScatterElemBase, "mscatter_elem", "Element scatter in the simulator's loop over validRow * validCol.", LAUNCH=Launch.SIMULATOR)


CpuTGatherIndexOp = OPS.op(TGatherIndexBase, "tgather_index")
CpuTGatherMaskOp = OPS.op(TGatherMaskBase, "tgather_mask")


CpuTScatterIndexOp = OPS.op(TScatterIndexBase, "tscatter_index")
CpuTScatterMaskOp = OPS.op(TScatterMaskBase, "tscatter_mask")


SIMULATOR_ARITHMETIC = choosing(
    Unordered.FIRST, Division.NATIVE, ShiftRange.PROMOTED, ByteLanes.ELEMENT, ZeroDivisor.IEEE, BothNan.SRC1,
    tfmod=(ZeroDivisor.ASSERTED,), tsub=(BothNan.SRC0,), tdivs=(Division.SIMULATOR,),
    trem=(ZeroDivisor.ASSERTED,), tfmods=(ZeroDivisor.SKIPPED,), trems=(ZeroDivisor.SKIPPED,),
)
"""The simulator's elementwise C++: std::max / std::min, C++ division and shifts; TFMOD and TREM assert a nonzero
divisor, TFMODS and TREMS skip a zero scalar."""

ROW_SCAN = {"compare": ArgCompare.NATIVE, "nan": NanPolicy.FIRST_STICKS}
"""The simulator's row scan: a typed strict comparison from column 0."""


def _mgather(op: MGatherOp) -> Lowered:
    assert op.coalesce is not None
    if op.coalesce.data == Coalesce.ROW:
        return CpuMGatherRowOp, {
            "index_read": IndexRead.SIGNED_64,
            "capacity": Capacity.S3,
            "row_stride": Stride.T3,
            "col_stride": Stride.T4,
        }
    return CpuMGatherElemOp, {"index_read": IndexRead.SIGNED_64, "capacity": Capacity.ALL_ELEMENTS}


def _mscatter(op: MScatterOp) -> Lowered:
    coalesce, recorded = coalesce_of(op, MEMORY_SCATTER)
    serial = {"index_read": IndexRead.SIGNED_64, "winner": ScatterWinner.LAST_IN_ORDER, **recorded}
    if coalesce == Coalesce.ROW:
        return CpuMScatterRowOp, serial | {
            "capacity": Capacity.S3, "row_stride": Stride.T3, "col_stride": Stride.T4,
            "extreme_read": ExtremeRead.ROW_INDEX_ELEMENT,
        }
    return CpuMScatterElemOp, serial | {"capacity": Capacity.ALL_ELEMENTS}


TGATHER_FORMS = {
    TGatherForm.MASK: (CpuTGatherMaskOp, {"packing": Packing.DENSE}),
    TGatherForm.INDEX: (CpuTGatherIndexOp, {"out_of_range": OutOfRange.ZERO, "tmp_use": TmpUse.NONE}),
}
"""The simulator's TGATHER forms (it has no compare form)."""


TSCATTER_FORMS = {
    TScatterForm.INDEX: (CpuTScatterIndexOp, {"dst_fill": DstFill.NONE, "src_read": SrcRead.LAYOUT,
                                              "index_read": IndexRead.UNSIGNED_32, "winner": ScatterWinner.LAST_IN_ORDER}),
    TScatterForm.MASK: (CpuTScatterMaskOp, {"dst_fill": DstFill.NONE, "mask_source": MaskSource.STORAGE_STREAM}),
}
"""The simulator's element loops: nothing else written, tiles read through their layouts."""


COMPARE_SELECT = choosing(
    MaskWrite.WORDS, CompareRead.TYPED, MaskWalk.BIT_STREAM, SelectTmp.UNUSED,
    tcmps=(MaskWrite.BYTE_STREAM, CompareRead.DOUBLE_TOLERANCE),
)
"""The simulator's compare and select (cpu/TCmp.h, TCmps.hpp, TSel.hpp, TSelS.hpp)."""

PARTIAL_ARG = choosing(ArgPick.SRC0_IF_BETTER, PartFill.REGIONS, ArgLanes.ALL)
"""The simulator's TPARTARGMAX / TPARTARGMIN (cpu/TPartOp.hpp TPartInstr2)."""


CpuTMovOp = OPS.op(TMovBase, "tmov")
"""Vec -> Vec only: the rules refuse a mat -> left / right move here (not implemented)."""


LOWERING = lowering_table(
    "cpu", OPS, TRANSFER, PRINT, (_mgather, _mscatter, TGATHER_FORMS, TSCATTER_FORMS), COMPARE_SELECT, PARTIAL_ARG,
    {
        **OPS.single(TCOLARGMIN, TYPED_COMPARISON),
        **OPS.single(TCOLARGMAX, TYPED_COMPARISON),
        **OPS.single(TROWARGMIN, ROW_SCAN),
        **OPS.single(TROWARGMAX, ROW_SCAN),
        **OPS.single(TCVT, {"cvt_arithmetic": CvtArithmetic.SIMULATOR, "numerics": Numerics.EXACT}),
        **reductions(OPS, ReduceOrder.SEQUENTIAL, ReduceOrder.SEQUENTIAL, ExtremeNan.FIRST_STICKS),
        **broadcasts(
            OPS, RULES, VectorRead.LAYOUT, VectorRead.LAYOUT, ExtremeNan.FIRST_STICKS, BroadcastDivisor.FAULT,
            dict.fromkeys(("trowexpandexpdif", "tcolexpandexpdif"), "exp in double (libm's exp in the simulator, NumPy's here: a rare last-bit tie may differ)"),
        ),
        **OPS.single(THISTOGRAM, lowering_choices(HistogramRows.TILE)),
        **OPS.single(TTRI, tri_choices(TriRun.CLIPPED)),
        **OPS.single(TRANDOM, random_choices(RandomStream.LANE_BLOCKS)),
        **OPS.single(TCI, {"numerics": Numerics.EXACT}),
        TMOV: lambda op: (CpuTMovOp, {"move_copy": MoveCopy.ELEMENTS, "numerics": Numerics.EXACT}),
        **OPS.family(WINDOW_COPIES, choose=WINDOW_COPIES.fixed(window_bounds=WindowBounds.WHOLE_VALID)),
        **OPS.single(TCONCAT, {"concat_copy": ConcatCopy.ELEMENTS, "numerics": Numerics.EXACT}),
        **OPS.single(TFILLPAD, lambda op: fillpad_choices(op, FillPadWrite.ELEMENTS, TRANSFER.zero_pad_types)),
        **OPS.single(TTRANS, {"trans_write": TransWrite.ELEMENTS, "numerics": Numerics.EXACT}),
        **OPS.single(TGATHERB, {"block_read": BlockRead.BYTES_IN_SRC, "numerics": Numerics.EXACT}),
        **OPS.family(UNARY, choose=UNARY.fixed(abs_sign=AbsSign.COMPARE, zero_reciprocal=ZeroReciprocal.FAULT, exp_arithmetic=ExpArithmetic.DOUBLE)),
        **arithmetic(OPS, SIMULATOR_ARITHMETIC, PartFill.REGIONS),
    },
)

DIALECT = OPS.dialect()
