"""What Atlas A2/A3 accepts: its row of each instruction's rules."""

from __future__ import annotations

from dataclasses import replace

from pto_dialect.choices import PadFill, PrintRegion
from pto_dialect.attributes import Coalesce, GmLayout, ScatterAtomicOp
from pto_dialect.facts import INT8, INT16, INT32, INT64, SIGNED32, STANDARD, types_named
from pto_dialect.instructions.tcvt import pairs, TCVT, TCvtRules
from pto_dialect.instructions.reduction import COL_REDUCTIONS, ColReduceRules, ROW_REDUCTIONS, RowReduceRules
from pto_dialect.instructions.broadcast import BroadcastRules, COL_BROADCASTS, ROW_BROADCASTS
from pto_dialect.instructions.compare import COMPARE_SELECT, CompareSelectRules
from pto_dialect.instructions.partial import PARTIAL, PartialRules
from pto_dialect.instructions.partial_arg import PARTIAL_ARG, PartialArgRules
from pto_dialect.instructions.tci import TCI, TCIRules
from pto_dialect.instructions.thistogram import THISTOGRAM, HistogramRules
from pto_dialect.instructions.trandom import TRANDOM, RandomRules
from pto_dialect.instructions.ttri import TTRI, TTriRules
from pto_dialect.instructions.fillpad import TFILLPAD, FillPadRules
from pto_dialect.instructions.ttrans import TTRANS, TmpNeed, TTransRules
from pto_dialect.instructions.movement import TCONCAT, TMOV, WINDOW_COPIES, TConcatRules, TMovRules, WindowRules
from pto_dialect.instructions.mgather import MGATHER, MGatherRules
from pto_dialect.instructions.mscatter import MSCATTER, ConflictPolicy, MScatterRules
from pto_dialect.instructions.tcolargmax import TCOLARGMAX
from pto_dialect.arg_reduce import TmpAdded
from pto_dialect.instructions.tcolargmin import TCOLARGMIN, ColArgReduceRules
from pto_dialect.instructions.tgatherb import TGATHERB, TGatherBRules
from pto_dialect.instructions.tgather import F16_F32, TGATHER, TGatherRules
from pto_dialect.instructions.tprint import TPRINT, TPrintRules
from pto_dialect.instructions.transfer import TLOAD, TSTORE, ShapeMatch, TransferRules
from pto_dialect.instructions.trowargmax import TROWARGMAX
from pto_dialect.instructions.trowargmin import TROWARGMIN, RowArgReduceRules
from targets.rules.elementwise import column
from pto_dialect.instructions.tscatter import TSCATTER, TScatterRules

TRANSFER = TransferRules(
    tload=ShapeMatch.EQUAL,
    tstore=ShapeMatch.EQUAL,
    pad_fill=PadFill.BLOCK_TAIL,
    pad_fill_mat=PadFill.NOTHING,
    zero_pad_types=INT64,
    contiguous_rows=True,
    note="PTO_ASSERTs of TLoadGm2ub*/TStore* (ND, DN, NZ) in include/pto/common/arch/memory. "
    "Padding: docs/tload-padding.md (L1: TLoadInstrGm2L1 has no pad). TLOAD into a Vec tile: "
    "ND2ND / DN2DN / NZ2NZ only (a static_assert).",
    vec_load_same_layout=True,
)

COLUMN_ARG_REDUCE = ColArgReduceRules(
    src_types=types_named("f16", "ui16", "f32", "ui32"),
    index_types=INT32,
    value_index_types_by_src_bytes={2: INT16, 4: INT32},
    value_form_src_blayouts=("row_major", "col_major"),
    tmp_same_type=True,
    implicit_tmp=TmpAdded.LIKE_SRC,
    note="Only f16/u16/f32/u32 (compared as fp16/fp32 bit patterns); PTOAS accepts any "
    "1/2/4-byte type, the A2/A3 code does not. A tmp with src's valid shape is always "
    "legal; otherwise its width follows PTOAS's formula (the spec's own f32 example, "
    "255 valid cols with a [1, 32] tmp, needs no more).",
)
"""TCOLARGMIN's and TCOLARGMAX's rules: one code path with the comparison reversed."""

PRINT = TPrintRules(
    tile_locs=frozenset({"vec"}),
    view_layouts=(GmLayout.ND, GmLayout.DN, GmLayout.NZ),
    element_types=INT8 | INT16 | INT32 | types_named("f16", "f32"),
    print_region=PrintRegion.WHOLE,
    note="npu/a2a3/TPrint.hpp (a5's includes it): a Vec tile (other memories need a GM tmp, a form pto.tprint does "
    "not have) or an ND/DN/NZ GlobalTensor; the types TPRINT.md lists: float, half, 8/16/32-bit "
    "integers (bf16 fails PrintValue's static_assert, a 64-bit integer prints cast to int); the whole tile, `|` after the valid columns, dashes after the valid rows.",
)
ROW_ARG_REDUCE = RowArgReduceRules(
    src_types=types_named("i16", "si16", "i32", "si32", "f16", "f32"),
    index_types=INT32,
    value_index_types_by_src_bytes={2: INT16 | INT32, 4: INT32},
    column_dst=True,
    tmp_workspace=True,
    implicit_tmp=TmpAdded.LIKE_SRC,
    note="TRowReduceCheck (a2a3/TRowReduceOps.hpp): half, float, int16, int32; outputs row-major or a "
    "one-column DN tile. vcmax/vcmin keep the first extreme (fp16/fp32 with denormals flushed, "
    "TCOLARGMIN's a2a3 choice); a NaN propagates through every stage, so the first NaN wins (choice: "
    "the code does not say). tmp: what the code writes (TRowReduceIdxOps.hpp), which is less than "
    "PTOAS's one-repeat layouts ask for (an index-only row of one repeat does not use tmp).",
)
"""TROWARGMIN's and TROWARGMAX's rules: one code path with the comparison reversed."""

MEMORY_SCATTER = MScatterRules(
    data_types=STANDARD,
    index_types=INT32,
    atomic_types={ScatterAtomicOp.ADD: types_named("i8", "si8", "i16", "si16", "i32", "si32", "f16", "bf16", "f32")},
    table_layouts=(GmLayout.ND, GmLayout.NZ),
    src_blayouts=("row_major",),
    index_blayouts=("row_major",),
    row_index_shapes=("1xR",),
    packed_table_rows=False,
    nonempty_src=False,
    conflict=ConflictPolicy.ABSENT,
    default_coalesce=Coalesce.ROW,
    note="a2a3/MScatter.hpp (MScatterCheck): atomic add only, signed integers and floats (PTOAS lists "
    "i32/ui32/f16/f32: the code wins); ND table with an ND src or NZ table with an NZ src. Row mode: one "
    "DMA per row at the view's row stride, bounded by Shape[0..3] (MTE3's atomic add); elem mode: a "
    "scalar loop (an NZ table: column block by column block). One serial loop: the last write wins, "
    "adds round to the element type in that order.",
)
"""MSCATTER's rules (its lowering reads the mode an MSCATTER without coalesce takes)."""

ROW_REDUCTION = RowReduceRules(
    types=types_named("i16", "si16", "i32", "si32", "f16", "f32"),
    vector_layouts=True,
    tmp_same_type=True,
    implicit_tmp=TmpAdded.LIKE_SRC,
    note="npu/a2a3/TRowReduceOps.hpp TRowReduceCheck: half, float, int32, int16; src row-major ND, dst ND or "
    "a one-column DN; tmp holds the partial sums (PTOAS: src's element type, at least 32 bytes).",
)
"""The row reductions' rules."""

ROW_BROADCAST = BroadcastRules(
    types=types_named("i16", "si16", "i32", "si32", "f16", "f32"),
    vector_layouts=True,
    tmp_mode1_capacity=True,
    note="npu/a2a3/TRowExpandSub.hpp, Add, Mul, Max, Min: int16, int32, half, float (TROWEXPANDDIV and "
    "TROWEXPANDEXPDIF half and float); dst row-major; a tmp holds vbrcb's per-row blocks (mode 1).",
)
"""The row broadcasts' rules (TROWEXPANDDIV's, TROWEXPANDEXPDIF's and TROWEXPAND's own rows below)."""
COL_REDUCTION = ColReduceRules(
    types=types_named("i16", "si16", "i32", "si32", "f16", "f32"),
    row_major=True,
    same_cols=False,
    note="npu/a2a3/TColReduceOps.hpp TColReduceCheck, TColSum.hpp TColSumCheck: half, float, int16, int32; "
    "row-major ND tiles.",
)
"""The column reductions' rules."""
# The compare-and-select family's rules.
FLOATS = types_named("f16", "bf16", "f32")
BYTE_MASKS = INT8
TCMP_RULES = CompareSelectRules(
    types_by_mask={m: SIGNED32 | types_named("f16", "f32") for m in BYTE_MASKS},
    row_major_only=True,
    mask_store_bits={2: 128, 4: 64},
    note="npu/a2a3/TCmp.hpp TCMP_IMPL: int32_t/half/float data (PTOAS: an i8 dst), rows addressed by Cols; "
    "each row's repeats store 256 / 8 / sizeof(T) mask bytes whole.",
)
TCMPS_RULES = CompareSelectRules(
    types_by_mask={m: SIGNED32 | INT16 | types_named("f16", "f32") for m in BYTE_MASKS},
    row_major_only=True,
    mask_store_bits={2: 128, 4: 64},
    note="npu/a2a3/TCmps.hpp TcmpsCheck: int32_t/float/half/uint16_t/int16_t data, a row-major dst; whole repeats stored.",
)
TSEL_RULES = CompareSelectRules(
    types_by_mask={m: INT16 | INT32 | FLOATS for m in BYTE_MASKS},
    row_major_only=True,
    tmp_elem_bytes=4,
    tmp_min_bytes={2: 16, 4: 8},
    note="npu/a2a3/TSel.hpp: 2- or 4-byte data, row-major; tmp receives cmpmaskLen 32-bit words "
    "(4 for 2-byte data, 2 for 4-byte), as PTOAS checks.",
)
TSELS_RULES = CompareSelectRules(
    types_by_mask={m: INT16 | INT32 | FLOATS for m in INT8 | INT16 | INT32},
    row_major_only=True,
    tmp_same_type=True,
    tmp_min_bytes={2: 2, 4: 4},
    note="npu/a2a3/TSels.hpp: 2- or 4-byte data (the code takes bfloat16, PTOAS does not: the code wins), "
    "row-major; the mask's rows read as bytes (any 8- to 32-bit element type); tmp's first element receives the scalar (PTOAS also wants Cols elements of it: not a code rule).",
)

# The partial family's rules.
PARTIAL_RULES = PartialRules(
    types=types_named("i16", "si16", "i32", "si32", "f16", "f32"),
    row_major_only=True,
    one_source_is_dst=True,
    note="npu/a2a3/TPartAdd.hpp (and Mul, Max, Min): int16_t/int32_t/half/float, row-major; TPartOp.hpp "
    "asserts one source has dst's valid shape and the other lies within it (PTOAS checks the same).",
)

# The partial arg-select family's rules.
PARTIAL_ARG_RULES = PartialArgRules(
    index_types_by_value={"f32": INT32, "f16": INT16 | INT32},
    row_major_only=True,
    one_source_is_dst=True,
    note="npu/a2a3/TPartArgOp.hpp checkTiles: float values with 32-bit indices, half values with 16- or 32-bit "
    "ones (PTOAS also takes integer values and wants 32-bit indices: the code wins); one source with dst's valid "
    "shape (asserted).",
)

RULES = {
    TLOAD: TRANSFER,
    TSTORE: TRANSFER,
    MSCATTER: MEMORY_SCATTER,
    MGATHER: MGatherRules(
        data_types=STANDARD,
        index_types=INT32,
        table_layouts=(GmLayout.ND, GmLayout.NZ),
        dst_blayouts=("row_major",),
        index_blayouts=("row_major",),
        row_index_shapes=("1xR",),
        alignment_dim="cols",
        packed_table_rows=False,
        nonempty_dst=False,
        gather_exec=False,
        note="f32 is accepted although the spec's A2/A3 list omits it (the code accepts it). "
        "A row-mode [R, 1] index, which PTOAS accepts, is rejected: the A2/A3 code requires "
        "[1, R]. An empty valid region is not checked by the code (the spec asks for >= 1).",
    ),
    TGATHER: TGatherRules(
        index_data_types=INT16 | INT32 | types_named("f16", "bf16", "f32"),
        index_types_by_data_bytes={2: INT32, 4: INT32},
        index_needs_tmp=True,
        implicit_index_tmp=False,
        mask_types=INT16 | INT32 | types_named("f16", "bf16", "f32"),
        mask_col_axis_types=INT16 | INT32 | types_named("f16", "bf16", "f32"),
        mask_col_axis_dst_full=False,
        compare=True,
        compare_src_types=F16_F32,
        compare_src_types_eq_only=SIGNED32,
        threshold_tile_types=INT32,
        compare_tmp_layout=True,
        note="Index form checks width (b16/b32), so bf16 and unsigned types are accepted "
        "where PTOAS lists only i16/i32/f16/f32.",
    ),
    TCOLARGMIN: COLUMN_ARG_REDUCE,
    TCOLARGMAX: COLUMN_ARG_REDUCE,
    TPRINT: PRINT,
    TROWARGMIN: ROW_ARG_REDUCE,
    TROWARGMAX: ROW_ARG_REDUCE,
    TSCATTER: TScatterRules(
        index_data_types=STANDARD,
        index_types_by_data_bytes={1: INT16, 2: INT16, 4: INT32},
        mask_types=STANDARD,
        b64_max_cols=None,
        copy_same_shape=True,
        note="a2a3/TScatter.hpp: the whole dst tile zeroed, then a scalar loop over the indexes' valid "
        "shape (the last write in row-major order wins) reading src and indexes as row-major storage, a "
        "signed index as signed. PTOAS's `dst valid >= src valid` is not a code rule (dst is addressed as "
        "storage) and is not applied; PTOAS lists 1-byte data but not its 2-byte index pairing rule.",
    ),
    **ROW_REDUCTIONS.rules(ROW_REDUCTION),
    **ROW_BROADCASTS.rules(
        ROW_BROADCAST,
        trowexpanddiv=replace(ROW_BROADCAST, types=types_named("f16", "f32")),
        trowexpandexpdif=replace(ROW_BROADCAST, types=types_named("f16", "f32")),
        trowexpand=replace(ROW_BROADCAST, types=STANDARD, note="npu/a2a3/TRowExpand.hpp: b8/b16/b32 data; src none_box "
                           "(ND or DN), dst row-major ND, src's valid rows dst's."),
    ),
    **column("a2a3"),
    TCVT: TCvtRules(
        pairs({
            "f16": "f32 i32 i16 i8 ui8",
            "f32": "f16 bf16 f32 i16 i32 i64",
            "bf16": "f32 i32",
            "i16": "f16 f32",
            "i32": "f32 i16 i64 f16",
            "i64": "f32 i32",
            "i8": "f16",
            "ui8": "f16",
        }),
        vec_only=True, row_major_only=True, takes_tmp=True,
        note="npu/a2a3/TCvt.hpp: the pairs it has a vconv_* sequence for (fp8 and int4 not taken here; i32 -> f16 "
        "through vconv_deq with deqscale 1.0); Vec, row-major tiles.",
    ),
    **COL_BROADCASTS.rules(
        replace(ROW_BROADCAST, tmp_mode1_capacity=False, note="npu/a2a3/TColExpandBinOp.hpp TCOLEXPANDOP_IMPL: int16, "
                "int32, half, float; every tile row-major."),
        tcolexpanddiv=replace(ROW_BROADCAST, tmp_mode1_capacity=False, types=types_named("f16", "f32")),
        tcolexpandexpdif=replace(ROW_BROADCAST, tmp_mode1_capacity=False, types=types_named("f16", "f32")),
        tcolexpand=replace(ROW_BROADCAST, tmp_mode1_capacity=False, types=STANDARD,
                           note="npu/a2a3/TColExpand.hpp: row 0 of src down each column."),
    ),
    **COL_REDUCTIONS.rules(COL_REDUCTION),
    **COMPARE_SELECT.rules(TCMP_RULES, tcmps=TCMPS_RULES, tsel=TSEL_RULES, tsels=TSELS_RULES),
    **PARTIAL.rules(PARTIAL_RULES),
    **PARTIAL_ARG.rules(PARTIAL_ARG_RULES),
    TTRI: TTriRules(INT16 | INT32 | types_named("f16", "f32"), note="npu/a2a3/TTri.hpp TTriCheck (static_asserts): int16_t/int32_t/uint16_t/uint32_t/half/float, row-major (PTOAS: f16/f32/i16/i32/u16/u32)"),
    TRANDOM: RandomRules(
        frozenset(), rounds=frozenset(),
        note="npu/a2a3 has no TRandom.hpp (pto_instr_impl.hpp includes it for a5 and cpu only; PTOAS: only supported for A5 targets)",
    ),
    THISTOGRAM: HistogramRules(
        frozenset(), layouts=False, ptoas_shapes=False, dst_valid_bins=False,
        note="npu/a2a3 has no THistogram.hpp (arch_capability.hpp: SupportsTHistogram false; PTOAS: only supported on A5)",
    ),
    TCI: TCIRules(
        INT16 | INT32, tmp_types=types_named("f32", "i32", "si32", "ui32"), tmp_bytes={4: 768, 2: 1792},
        note="npu/a2a3/TCI.hpp (CheckValid): 2- or 4-byte, integers as PTOAS says; a tmp of a 4-byte type, row-major, of PTOAS's least size.",
    ),
    TMOV: TMovRules(
        STANDARD, converts=False, same_shape=True, same_layout=True, equal_valid=False,
        note="npu/a2a3/TMov.hpp TMovToVec: copy_ubuf_to_ubuf of storage (static_asserts one shape and one "
        "element size)",
    ),
    **WINDOW_COPIES.rules(WindowRules(
        STANDARD, layouts=frozenset({"nd", "nz"}), part_within_whole=True, even_valid_bytes=True,
        note="npu/a2a3/TExtract.hpp, TInsert.hpp (textract_common / tinsert_common CheckT*VecToVec*): one type, both ND or both NZ, "
        "dst within src, valid cols of whole 2-byte units (its vcopy tail moves 16-bit units).",
    )),
    TCONCAT: TConcatRules(
        STANDARD, row_major=True, exact_cols=False,
        note="npu/a2a3/TConcat.hpp: one type of its list; row strides (ND tiles); PTO_ASSERTs of the valid rows and of "
        "src0's plus src1's valid cols within dst's cols.",
    ),
    TFILLPAD: FillPadRules(
        STANDARD, row_major=True, dst_rows_cover_src=False,
        note="npu/a2a3/TFillPad.hpp: static_asserts of a non-null dst pad and one element size of 1, 2 or 4 bytes; "
        "vcopy / vector_dup at row strides of Cols (no layout check: another layout's rows are elsewhere).",
    ),
    TTRANS: TTransRules(
        STANDARD, one_type=True, row_major=True, mirrored_valid=False, tmp_need=TmpNeed.SRC_ON_VNCHWCONV,
        index_16_bits=False, implicit_tmp=TmpAdded.LIKE_SRC,
        note="npu/a2a3/TTrans.hpp TTRANS_IMPL: static_asserts of 1, 2 or 4 bytes, one size, a row-major src; the size "
        "from src's valid shape; PTOAS: one element type, tmp of src's bytes where vnchwconv runs.",
    ),
    TGATHERB: TGatherBRules(
        STANDARD, INT32,
        note="npu/a2a3/TGatherB.hpp TGATHERB_IMPL: a static_assert of a row-major dst and of 1-, 2- or 4-byte elements (docs: these nine types); offsets read as uint32 at RowStride; a row's remaining blocks gathered as one more whole repeat of 8 blocks (past the valid row: approximate, docs/instructions.md); a partial last block would be gathered whole: whole blocks are required here.",
    ),
}
