"""What the cpu target (the pto-isa CPU simulator) accepts: its row of each instruction's rules."""

from __future__ import annotations

from dataclasses import replace

from pto_dialect.choices import PadFill, PrintRegion
from pto_dialect.attributes import Coalesce, GmLayout, ScatterAtomicOp
from pto_dialect.facts import INT16, INT32, INT64, INT8, INTEGERS, STANDARD, types_named
from pto_dialect.instructions.compare import COMPARE_SELECT, CompareSelectRules
from pto_dialect.instructions.partial import PARTIAL, PartialRules
from pto_dialect.instructions.partial_arg import PARTIAL_ARG, PartialArgRules
from pto_dialect.instructions.tcvt import pairs, TCVT, TCvtRules
from pto_dialect.instructions.reduction import COL_REDUCTIONS, ColReduceRules, ROW_REDUCTIONS, RowReduceRules
from pto_dialect.instructions.broadcast import BroadcastRules, COL_BROADCASTS, ROW_BROADCASTS
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
from pto_dialect.instructions.tgather import NO_TYPES, TGATHER, TGatherRules
from pto_dialect.instructions.tprint import TPRINT, TPrintRules
from pto_dialect.instructions.transfer import TLOAD, TSTORE, ShapeMatch, TransferRules
from pto_dialect.types import TILE_LOCS
from pto_dialect.instructions.trowargmax import TROWARGMAX
from pto_dialect.instructions.trowargmin import TROWARGMIN, RowArgReduceRules
from targets.rules.elementwise import column
from pto_dialect.instructions.tscatter import TSCATTER, TScatterRules

TRANSFER = TransferRules(
    tload=ShapeMatch.EQUAL,
    tstore=ShapeMatch.COVERS,
    pad_fill=PadFill.WHOLE_TILE,
    pad_fill_mat=PadFill.WHOLE_TILE,
    zero_pad_types=frozenset(),
    contiguous_rows=False,
    note="CPU simulator: TLOAD asserts the ND/DN/NZ shape equalities (CheckTileData); TSTORE "
    "only asserts that the view holds as many elements and writes the valid region at its "
    "top-left, which is kept as long as the view covers the valid shape.",
)

COLUMN_ARG_REDUCE = ColArgReduceRules(
    src_types=STANDARD | INT64,
    index_types=INT32,
    value_index_types_by_src_bytes={2: INT32, 4: INT32, 8: INT32},
    value_form_src_blayouts=("row_major",),
    tmp_same_type=False,
    implicit_tmp=TmpAdded.NONE,
    note="CPU simulator: any integer (64-bit too), f16, bf16, f32. dstIdx is always "
    "i32/ui32, so a 2-byte value+index kernel cannot satisfy cpu and the NPUs at once.",
)
"""TCOLARGMIN's and TCOLARGMAX's rules: one code path with the comparison reversed."""

PRINT = TPrintRules(
    tile_locs=frozenset(TILE_LOCS),
    view_layouts=(),
    element_types=INTEGERS | types_named("f32"),
    print_region=PrintRegion.VALID,
    note="CPU simulator (cpu/TPrint.hpp): the valid region of a tile of any memory, after a "
    "`TPRINT RxC` header; a GlobalTensor has no valid shape to print; half and bfloat16 do not "
    "compile (ambiguous operator<< for _Float16 with g++ 12 and clang 19).",
)
ROW_ARG_REDUCE = RowArgReduceRules(
    src_types=STANDARD | INT64,
    index_types=INT32,
    value_index_types_by_src_bytes={1: INT32, 2: INT32, 4: INT32, 8: INT32},
    column_dst=False,
    tmp_workspace=False,
    implicit_tmp=TmpAdded.SMALLEST,
    note="CPU simulator (cpu/TReduceIdx.hpp, CheckRowArgTiles): any integer, f16, bf16, f32 in both "
    "forms, dstIdx i32/ui32; an output may be any non-boxed tile (element (i, 0) is written through "
    "its layout). tmp is unused, but the C++ call takes one: an omitted tmp becomes the smallest tile.",
)
"""TROWARGMIN's and TROWARGMAX's rules: one code path with the comparison reversed."""

MEMORY_SCATTER = MScatterRules(
    data_types=STANDARD,
    index_types=INTEGERS,
    atomic_types={ScatterAtomicOp.ADD: STANDARD, ScatterAtomicOp.MAX: STANDARD, ScatterAtomicOp.MIN: STANDARD},
    table_layouts=(GmLayout.ND,),
    src_blayouts=("row_major", "col_major"),
    index_blayouts=("row_major", "col_major"),
    row_index_shapes=("1xR", "Rx1"),
    packed_table_rows=False,
    nonempty_src=False,
    conflict=ConflictPolicy.IGNORED,
    default_coalesce=Coalesce.ELEM,
    note="CPU simulator (cpu/MScatter.hpp): any integer index, tiles read through their layouts, one "
    "row-major loop (the last write wins). It applies the atomic add/max/min, on any type (MSCATTER.md "
    "says it runs a plain store: the code wins); row-mode max/min compare src with table[idx], the "
    "element at the row index (reproduced). Row mode: index bounded by Shape[3], writes at the view's "
    "strides. Without coalesce its untemplated MSCATTER is elem mode.",
)
"""MSCATTER's rules (its lowering reads the mode an MSCATTER without coalesce takes)."""

ROW_REDUCTION = RowReduceRules(
    types=STANDARD,
    vector_layouts=False,
    tmp_same_type=False,
    implicit_tmp=TmpAdded.SMALLEST,
    note="cpu/TRowMax.hpp, TRowMin.hpp, TRowProd.hpp: a C++ loop over the valid elements through any layout, "
    "tmp unused (PTOAS: src and dst of one element type).",
)
"""The row reductions' rules (TROWSUM's own row below)."""

ROW_BROADCAST = BroadcastRules(
    types=types_named("i16", "si16", "ui16", "i32", "si32", "ui32", "f16", "f32"),
    vector_layouts=False,
    tmp_mode1_capacity=False,
    note="cpu/TRowExpandOp.hpp IsRowExpandAllowedType: half, float, int16/32 and uint16/32 (TROWEXPANDMUL also "
    "uint8, TROWEXPANDEXPDIF only half and float); dst row-major; tmp unused.",
)
"""The row broadcasts' rules (TROWEXPAND's, TROWEXPANDMUL's and TROWEXPANDEXPDIF's own rows below)."""
FLOATS, SIGNED = types_named("f16", "bf16", "f32"), types_named("i8", "si8", "i16", "si16", "i32", "si32")
CVT_TYPES = "i8 ui8 i16 ui16 i32 ui32 i64 ui64 f16 bf16 f32"
"""The element types cpu/TCvt.hpp converts between (every pair)."""
COL_REDUCTION = ColReduceRules(
    types=STANDARD,
    row_major=False,
    same_cols=False,
    note="cpu/TColMin.hpp, TColProd.hpp: a C++ loop down each column through any layout.",
)
"""The column reductions' rules (TCOLSUM's and TCOLMAX's own rows below)."""

# The compare-and-select family's rules.
ANY_DATA = INTEGERS | FLOATS
BYTE_MASKS = INT8
TCMP_RULES = CompareSelectRules(
    types_by_mask={"ui8": types_named("i32", "si32", "f16", "f32"), "ui32": STANDARD},
    row_major_only=False,
    note="cpu/TCmp.h TCmpCheck: a uint8_t mask with int32_t/half/float data, a uint32_t mask with 8- to "
    "32-bit integers, half, bfloat16, float; src0 and src1 alike, src0 rows = dst rows (PTO_ASSERT).",
)
TCMPS_RULES = CompareSelectRules(
    types_by_mask={m: ANY_DATA for m in BYTE_MASKS},
    row_major_only=False,
    rows_match=False,
    note="cpu/TCmps.hpp: no checks (any type CmpCall compiles for); the mask an 8-bit tile as PTOAS writes it.",
)
SELECT_RULES = CompareSelectRules(
    types_by_mask={m: ANY_DATA for m in BYTE_MASKS},
    row_major_only=False,
    note="cpu/TSel.hpp: any data type and layout; the mask an 8-bit row-major tile (the simulator reads 8 "
    "bits of each mask element).",
)
TSELS_RULES = CompareSelectRules(
    types_by_mask={m: ANY_DATA for m in INT8 | INT16 | INT32},
    row_major_only=False,
    note="cpu/TSelS.hpp: any data type and layout; a row-major mask of 8- to 32-bit elements, bit c % w of "
    "element c / w of its row (w its width: the row's bytes read little-endian); src's valid shape = dst's (assert).",
)

# The partial family's rules.
PARTIAL_RULES = PartialRules(
    types=types_named("i8", "si8", "ui8", "i16", "si16", "i32", "si32", "f16", "bf16", "f32"),
    row_major_only=False,
    one_source_is_dst=False,
    note="cpu/TPartOp.hpp TPartCheck: int8_t/uint8_t/int16_t/int32_t/half/bfloat16_t/float, any layout; "
    "any valid shapes (dst's valid region walked, 0 where neither source is valid).",
)

# The partial arg-select family's rules.
PARTIAL_ARG_RULES = PartialArgRules(
    index_types_by_value={v: INTEGERS for v in types_named("i8", "si8", "ui8", "i16", "si16", "i32", "si32", "f16", "bf16", "f32")},
    row_major_only=False,
    one_source_is_dst=False,
    note="cpu/TPartArgMax.hpp, TPartArgMin.hpp (TPartCheck on the values: int8_t/uint8_t/int16_t/int32_t/half/"
    "bfloat16_t/float; any integer index), any layout, any valid shapes; each index tile addressed by its value "
    "tile's offsets, so shaped as it (PTOAS checks the same).",
)

RULES = {
    TLOAD: TRANSFER,
    TSTORE: TRANSFER,
    MSCATTER: MEMORY_SCATTER,
    MGATHER: MGatherRules(
        data_types=STANDARD,
        index_types=INTEGERS,
        table_layouts=(GmLayout.ND,),
        dst_blayouts=("row_major",),
        index_blayouts=("row_major", "col_major"),
        row_index_shapes=("1xR", "Rx1"),
        alignment_dim="cols",
        packed_table_rows=False,
        nonempty_dst=False,
        gather_exec=False,
        note="CPU simulator: its code checks only an integral index type and equal element "
        "sizes; the spec's CPU-only rules (index shape, row-major index) are not enforced; "
        "fp8/hif8 exist only in AI Core builds. GM->L1 runs the UB algorithm and ignores scratch.",
    ),
    TGATHER: TGatherRules(
        index_data_types=STANDARD | INT64,
        index_types_by_data_bytes={1: INT32, 2: INT32, 4: INT32, 8: INT32},
        index_needs_tmp=False,
        implicit_index_tmp=False,
        mask_types=STANDARD | INT64,
        mask_col_axis_types=STANDARD | INT64,
        mask_col_axis_dst_full=True,
        compare=False,
        compare_src_types=NO_TYPES,
        compare_src_types_eq_only=NO_TYPES,
        threshold_tile_types=NO_TYPES,
        compare_tmp_layout=False,
        note="CPU simulator: any data type of the common list or 64-bit (dst = src type, mask "
        "form any same-size pair), 4-byte indices whatever the data width; out-of-range "
        "indices read 0; mask form, col axis: it asserts dst valid rows == selected src rows == dst "
        "Rows. It has no compare form (it does not compile), so that form is rejected.",
    ),
    TCOLARGMIN: COLUMN_ARG_REDUCE,
    TCOLARGMAX: COLUMN_ARG_REDUCE,
    TPRINT: PRINT,
    TROWARGMIN: ROW_ARG_REDUCE,
    TROWARGMAX: ROW_ARG_REDUCE,
    TSCATTER: TScatterRules(
        index_data_types=STANDARD | INT64,
        index_types_by_data_bytes={1: INTEGERS, 2: INTEGERS, 4: INTEGERS, 8: INTEGERS},
        mask_types=INT16 | INT32 | types_named("f16", "bf16", "f32"),
        b64_max_cols=None,
        copy_same_shape=False,
        note="CPU simulator (cpu/TScatter.hpp): any integer index, read as 32-bit unsigned, into dst's "
        "storage; tiles read through their layouts; nothing but the scattered elements is written. Mask "
        "form: 2- or 4-byte row-major tiles (static_assert), dst's valid region only, and src walked in "
        "storage order across its padding columns (its column counter wraps at Cols, not the valid cols).",
    ),
    **ROW_REDUCTIONS.rules(
        ROW_REDUCTION,
        trowsum=replace(
            ROW_REDUCTION,
            types=INT16 - types_named("ui16") | types_named("i32", "si32", "f16", "bf16", "f32"),
            same_rows=True,
            note="cpu/TRowSum.hpp CheckRSValid: half, bfloat16, float, int16, int32 (same type in and out, "
            "as PTOAS asks), src's Rows dst's (static_assert); any layout; tmp unused.",
        ),
    ),
    **ROW_BROADCASTS.rules(
        ROW_BROADCAST,
        trowexpandmul=replace(ROW_BROADCAST, types=ROW_BROADCAST.types | types_named("ui8")),
        trowexpandexpdif=replace(ROW_BROADCAST, types=types_named("f16", "f32")),
        trowexpand=replace(ROW_BROADCAST, types=STANDARD, note="cpu/TRowExpand.hpp: src[i, 0] copied through any layout."),
    ),
    **column("cpu"),
    TCVT: TCvtRules(
        pairs({s: CVT_TYPES for s in CVT_TYPES.split()}), vec_only=False, row_major_only=False, takes_tmp=False,
        note="cpu/TCvt.hpp: any pair of the simulator's integer and float types, any tile and layout "
        "(GetElement/SetElement), no tmp (pto_instr.hpp declares TCVT with one; cpu/ has no definition); fp8, "
        "fp4 and int4 are not taken here.",
    ),
    **COL_BROADCASTS.rules(
        replace(ROW_BROADCAST, note="cpu/TColExpandOp.hpp IsColExpandAllowedType (as the row broadcasts'); every tile row-major."),
        tcolexpandmul=replace(ROW_BROADCAST, types=ROW_BROADCAST.types | types_named("ui8")),
        tcolexpandexpdif=replace(ROW_BROADCAST, types=types_named("f16", "f32")),
        tcolexpand=replace(ROW_BROADCAST, types=STANDARD, note="cpu/TColExpand.hpp: src[0, j] copied down each column."),
    ),
    **COL_REDUCTIONS.rules(
        COL_REDUCTION,
        tcolsum=replace(COL_REDUCTION, types=types_named("f16", "bf16", "f32"), same_cols=True,
                        note="cpu/TColSum.hpp CheckCSValid: half, bfloat16, float (same type in and out), src's Cols dst's."),
        tcolmax=replace(COL_REDUCTION, types=types_named("i8", "si8", "ui8", "f16", "bf16", "f32"), same_cols=True,
                        note="cpu/TColMax.hpp CheckCMValid: int8, uint8, half, bfloat16, float, src's Cols dst's."),
    ),
    **COMPARE_SELECT.rules(SELECT_RULES, tcmp=TCMP_RULES, tcmps=TCMPS_RULES, tsels=TSELS_RULES),
    **PARTIAL.rules(PARTIAL_RULES),
    **PARTIAL_ARG.rules(PARTIAL_ARG_RULES),
    TTRI: TTriRules(INT16 | INT32 | types_named("f16", "bf16", "f32"), note="cpu/TTRI.hpp TTriCheck (static_asserts): int16_t/int32_t/uint16_t/uint32_t/half/bfloat16_t/float, row-major"),
    TRANDOM: RandomRules(
        INT32, rounds=frozenset({7, 10}),
        note="cpu/TRandom.hpp TRANDOM_IMPL (static_asserts): int32_t/uint32_t, row-major, 7 or 10 rounds",
    ),
    THISTOGRAM: HistogramRules(
        types_named("ui16", "ui32"), layouts=False, ptoas_shapes=False, dst_valid_bins=True,
        note="cpu/THistogram.hpp: overloads for uint16_t and uint32_t sources, each tile read and written through its "
        "layout, dst valid cols asserted at least 256",
    ),
    TCI: TCIRules(
        INT16 | INT32, tmp_types=None, tmp_bytes={},
        note="cpu/TCI.hpp: any type equal to S's (PTOAS: 16- and 32-bit integers, taken here); no tmp form (pto_instr.hpp declares it, cpu/ does not define it).",
    ),
    TMOV: TMovRules(
        STANDARD, converts=True, same_shape=False, same_layout=False, equal_valid=True,
        note="cpu/TMov.hpp: GetElement / SetElement per valid element, each tile by its own layout, the value "
        "converted to dst's type; an assert that the valid shapes are equal.",
    ),
    **WINDOW_COPIES.rules(WindowRules(
        STANDARD, layouts=frozenset(), part_within_whole=False, even_valid_bytes=False,
        note="cpu/TExtract.hpp, TInsert.hpp: GetElement / SetElement per element of the window, any layouts; an "
        "assert that the position plus the window's valid shape stays in the other tile's valid shape.",
    )),
    TCONCAT: TConcatRules(
        STANDARD, row_major=False, exact_cols=True,
        note="cpu/TConcat.hpp TConcatTileCheck: one type of its list, Vec tiles; asserts of the valid rows and cols; "
        "any layouts (GetTileElementOffset).",
    ),
    TFILLPAD: FillPadRules(
        STANDARD, row_major=False, dst_rows_cover_src=False,
        note="cpu/TFillPad.hpp: static_asserts of a non-null dst pad and one element size of 1, 2 or 4 bytes; "
        "GetElement / SetElement over dst's Rows x Cols, each tile by its own layout, src's value converted.",
    ),
    TTRANS: TTransRules(
        STANDARD, one_type=False, row_major=False, mirrored_valid=True, tmp_need=TmpNeed.UNUSED, index_16_bits=False,
        implicit_tmp=TmpAdded.SMALLEST,
        note="cpu/TTrans.hpp TTRANS_IMPL: static_asserts of one element size and of dst's valid shape mirroring src's (the "
        "template parameters: both dynamic pass, then checked here at run time too); GetElement / SetElement through any layouts, converted; tmp unused (the C++ call takes one).",
    ),
    TGATHERB: TGatherBRules(
        STANDARD, INTEGERS,
        note='cpu/TGatherB.hpp TGATHERB_IMPL: a static_assert of a row-major dst; offsets read at r * Cols, each converted to uint32; any element size (STANDARD here, as the NPUs); its assert of the valid row (validCol * sizeof(TileDType), a pointer: 8 bytes) admits a partial last block that its loop then skips: whole blocks are required here.',
    ),
}
