"""What the cpu target (the pto-isa CPU simulator) accepts: its row of each instruction's rules."""

from __future__ import annotations


from pto_dialect.choices import PadFill, PrintRegion
from pto_dialect.attributes import Coalesce, GmLayout, ScatterAtomicOp
from pto_dialect.facts import INT16, INT32, INT64, INTEGERS, STANDARD, types_named
from pto_dialect.instructions.tcvt import pairs, TCVT, TCvtRules
from pto_dialect.instructions.tci import TCI, TCIRules
from pto_dialect.instructions.thistogram import THISTOGRAM, HistogramRules
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
from targets.rules import families
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

CVT_TYPES = "i8 ui8 i16 ui16 i32 ui32 i64 ui64 f16 bf16 f32"
"""The element types cpu/TCvt.hpp converts between (every pair)."""

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
    **column("cpu"),
    **families.column("cpu"),
    TCVT: TCvtRules(
        pairs({s: CVT_TYPES for s in CVT_TYPES.split()}), vec_only=False, row_major_only=False, takes_tmp=False,
        note="cpu/TCvt.hpp: any pair of the simulator's integer and float types, any tile and layout "
        "(GetElement/SetElement), no tmp (pto_instr.hpp declares TCVT with one; cpu/ has no definition); fp8, "
        "fp4 and int4 are not taken here.",
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
