"""
Every target's rules for the instructions that are no family (targets/rules/families.py and
elementwise.py hold the families'), as one table: a row per instruction naming the rule row each
target applies to it (targets/rules/rows.py). Each target's rules.py takes its column
(`column("a2a3")`).
"""

from __future__ import annotations

from pto_dialect.arg_reduce import TmpAdded
from pto_dialect.attributes import Coalesce, GmLayout, ScatterAtomicOp
from pto_dialect.choices import PadFill, PrintRegion
from pto_dialect.facts import FP8, HIF8, INT8, INT16, INT32, INT64, INTEGERS, SIGNED32, STANDARD, UNSIGNED16, UNSIGNED32, types_named
from pto_dialect.instruction import Instruction
from pto_dialect.instructions.fillpad import TFILLPAD, FillPadRules
from pto_dialect.instructions.mgather import MGATHER, MGatherRules
from pto_dialect.instructions.movement import TCONCAT, TMOV, WINDOW_COPIES, L0Load, TConcatRules, TMovRules, WindowRules
from pto_dialect.instructions.mscatter import MSCATTER, ConflictPolicy, MScatterRules
from pto_dialect.instructions.tcolargmax import TCOLARGMAX
from pto_dialect.instructions.tcolargmin import TCOLARGMIN, ColArgReduceRules
from pto_dialect.instructions.tci import TCI, TCIRules
from pto_dialect.instructions.tcvt import pairs, TCVT, TCvtRules
from pto_dialect.instructions.tgather import F16_F32, NO_TYPES, TGATHER, TGatherRules
from pto_dialect.instructions.tgatherb import TGATHERB, TGatherBRules
from pto_dialect.instructions.thistogram import THISTOGRAM, HistogramRules
from pto_dialect.instructions.trandom import TRANDOM, RandomRules
from pto_dialect.instructions.ttri import TTRI, TTriRules
from pto_dialect.instructions.tprint import TPRINT, TPrintRules
from pto_dialect.instructions.transfer import TLOAD, TSTORE, ShapeMatch, TransferRules
from pto_dialect.instructions.trowargmax import TROWARGMAX
from pto_dialect.instructions.trowargmin import TROWARGMIN, RowArgReduceRules
from pto_dialect.instructions.tscatter import TSCATTER, TScatterRules
from pto_dialect.instructions.ttrans import TTRANS, TmpNeed, TTransRules
from pto_dialect.types import TILE_LOCS
from targets.rules.rows import Row, column as family_column

A5_L0_TYPES = types_named("i8", "si8", "f8E4M3FN", "f8E5M2", "!pto.hif8", "f16", "bf16", "f32")
"""npu/a5/TExtract.hpp is_textract_supported_type, what TMovToLeft / TMovToRight static_assert (int8_t, the fp8s,
hifloat8_t, half, bfloat16_t, float; its packed fp4 and e8m0 types are not taken here)."""

CVT_TYPES = "i8 ui8 i16 ui16 i32 ui32 i64 ui64 f16 bf16 f32"
"""The element types cpu/TCvt.hpp converts between (every pair)."""

A2A3_PRINT = TPrintRules(
    tile_locs=frozenset({"vec"}),
    view_layouts=(GmLayout.ND, GmLayout.DN, GmLayout.NZ),
    element_types=INT8 | INT16 | INT32 | types_named("f16", "f32"),
    print_region=PrintRegion.WHOLE,
    reads_get_tile_offset=True,
    note="npu/a2a3/TPrint.hpp (a5's includes it): a Vec tile (other memories need a GM tmp, a form pto.tprint does "
    "not have) or an ND/DN/NZ GlobalTensor; the types TPRINT.md lists: float, half, 8/16/32-bit "
    "integers (bf16 fails PrintValue's static_assert, a 64-bit integer prints cast to int); the whole tile, `|` after the valid columns, dashes after the valid rows.",
)
"""TPRINT on a2a3, and on a5: a5's TPrint.hpp is a2a3's (it includes it), so is its row."""

TRANSFER = Row(
    cpu=TransferRules(
        tload=ShapeMatch.EQUAL,
        tstore=ShapeMatch.COVERS,
        pad_fill=PadFill.WHOLE_TILE,
        pad_fill_mat=PadFill.WHOLE_TILE,
        zero_pad_types=frozenset(),
        contiguous_rows=False,
        note="CPU simulator: TLOAD asserts the ND/DN/NZ shape equalities (CheckTileData); TSTORE "
        "only asserts that the view holds as many elements and writes the valid region at its "
        "top-left, which is kept as long as the view covers the valid shape.",
    ),
    a2a3=TransferRules(
        tload=ShapeMatch.EQUAL,
        tstore=ShapeMatch.EQUAL,
        pad_fill=PadFill.BLOCK_TAIL,
        pad_fill_mat=PadFill.NOTHING,
        zero_pad_types=INT64,
        contiguous_rows=True,
        note="PTO_ASSERTs of TLoadGm2ub*/TStore* (ND, DN, NZ) in include/pto/common/arch/memory. "
        "Padding: docs/tload-padding.md (L1: TLoadInstrGm2L1 has no pad). TLOAD into a Vec tile: "
        "ND2ND / DN2DN / NZ2NZ only (a static_assert). TSTORE from a Vec or Mat tile "
        "(tstore_common.hpp CheckStaticForVecAndMat): ND2ND / DN2DN / NZ2NZ or a tile of one row or "
        "column; 8-byte elements ND2ND / DN2DN only. From an Acc tile (CheckAcc2gm): ND or NZ views.",
        vec_load_same_layout=True,
        store_same_layout=frozenset({"vec", "mat"}),
        store_b64_nd_dn=True,
        acc_store_layouts=frozenset({GmLayout.ND, GmLayout.NZ}),
    ),
    a5=TransferRules(
        tload=ShapeMatch.EQUAL,
        tstore=ShapeMatch.EQUAL,
        pad_fill=PadFill.BLOCK_TAIL,
        pad_fill_mat=PadFill.BLOCK_TAIL,
        zero_pad_types=INT64 | FP8 | HIF8,
        contiguous_rows=True,
        note="TLOAD: static_assert on static shapes; dynamic ones run the DMA with the view's row "
        "count and the tile's valid cols, so any mismatch is refused at run time. TSTORE: "
        "PTO_ASSERTs of the ND/DN/NZ stores. Padding: docs/tload-padding.md (L1: TLoadCubeND2ND's "
        "padCount with the data select bit always on; pad null/zero leave the pad register, 0). "
        "TSTORE_IMPL static_asserts a Vec or Acc src; TLOAD into a Vec tile (StaticCheck): ND2ND / DN2DN / NZ2NZ only; "
        "TSTORE from a Vec tile (CheckStaticVec): ND2ND / DN2DN / NZ2NZ or a tile of one row or column; "
        "from an Acc tile (CheckStaticAcc): ND or NZ views.",
        store_locs=frozenset({"vec", "acc"}),
        vec_load_same_layout=True,
        store_same_layout=frozenset({"vec"}),
        acc_store_layouts=frozenset({GmLayout.ND, GmLayout.NZ}),
    ),
)
"""TLOAD's and TSTORE's rules."""

COLUMN_ARG_REDUCE = Row(
    cpu=ColArgReduceRules(
        src_types=STANDARD | INT64,
        index_types=INT32,
        value_index_types_by_src_bytes={2: INT32, 4: INT32, 8: INT32},
        value_form_src_blayouts=("row_major",),
        tmp_same_type=False,
        implicit_tmp=TmpAdded.NONE,
        note="CPU simulator: any integer (64-bit too), f16, bf16, f32. dstIdx is always "
        "i32/ui32, so a 2-byte value+index kernel cannot satisfy cpu and the NPUs at once.",
    ),
    a2a3=ColArgReduceRules(
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
    ),
    a5=ColArgReduceRules(
        src_types=INT8 | INT16 | INT32 | types_named("f16", "bf16", "f32") | FP8,
        index_types=INT32,
        value_index_types_by_src_bytes={2: INT16, 4: INT32},
        value_form_src_blayouts=("row_major", "col_major"),
        tmp_same_type=False,
        implicit_tmp=TmpAdded.SMALLEST,
        note="Any 1/2/4-byte type the interpreter can compare (hif8 has no numeric model here "
        "and is rejected); tmp is accepted but unused.",
    ),
)
"""TCOLARGMIN's and TCOLARGMAX's rules: one code path with the comparison reversed."""

PRINT = Row(
    cpu=TPrintRules(
        tile_locs=frozenset(TILE_LOCS),
        view_layouts=(),
        element_types=INTEGERS | types_named("f32"),
        print_region=PrintRegion.VALID,
        reads_get_tile_offset=False,
        note="CPU simulator (cpu/TPrint.hpp): the valid region of a tile of any memory, after a "
        "`TPRINT RxC` header; a GlobalTensor has no valid shape to print; half and bfloat16 do not "
        "compile (ambiguous operator<< for _Float16 with g++ 12 and clang 19).",
    ),
    a2a3=A2A3_PRINT,
    a5=A2A3_PRINT,
)
"""TPRINT's rules."""

ROW_ARG_REDUCE = Row(
    cpu=RowArgReduceRules(
        src_types=STANDARD | INT64,
        index_types=INT32,
        value_index_types_by_src_bytes={1: INT32, 2: INT32, 4: INT32, 8: INT32},
        column_dst=False,
        tmp_workspace=False,
        implicit_tmp=TmpAdded.SMALLEST,
        note="CPU simulator (cpu/TReduceIdx.hpp, CheckRowArgTiles): any integer, f16, bf16, f32 in both "
        "forms, dstIdx i32/ui32; an output may be any non-boxed tile (element (i, 0) is written through "
        "its layout). tmp is unused, but the C++ call takes one: an omitted tmp becomes the smallest tile.",
    ),
    a2a3=RowArgReduceRules(
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
    ),
    a5=RowArgReduceRules(
        src_types=INT16 | INT32 | types_named("f16", "bf16", "f32"),
        index_types=INT32,
        value_index_types_by_src_bytes={2: INT16 | INT32, 4: INT32},
        column_dst=True,
        tmp_workspace=False,
        implicit_tmp=TmpAdded.SMALLEST,
        note="TROWARGMIN.md: any 2/4-byte src (PTOAS lists only i16/i32/f16/f32; TRowReduceCheck checks "
        "no type). Per 256-byte chunk vcmax/vcmin, then a strict compare with the best so far, from "
        "-inf/+inf or the integer limit (a5/TRowReduceIdx.hpp): ties keep the first; a chunk holding a "
        "NaN is never taken (choice: vcmax propagates it) and a row with no chunk taken gives index 0 "
        "and -inf/+inf. tmp is accepted but unused.",
    ),
)
"""TROWARGMIN's and TROWARGMAX's rules: one code path with the comparison reversed."""

MEMORY_SCATTER = Row(
    cpu=MScatterRules(
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
    ),
    a2a3=MScatterRules(
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
    ),
    a5=MScatterRules(
        data_types=STANDARD | FP8 | HIF8,
        index_types=INT32,
        atomic_types={
            ScatterAtomicOp.ADD: INT32 | types_named("f16", "bf16", "f32"),
            ScatterAtomicOp.MAX: INT32 | types_named("f32"),
            ScatterAtomicOp.MIN: INT32 | types_named("f32"),
        },
        table_layouts=(GmLayout.ND,),
        src_blayouts=("row_major", "col_major"),
        index_blayouts=("row_major", "col_major"),
        row_index_shapes=("1xR", "Rx1"),
        packed_table_rows=True,
        nonempty_src=True,
        conflict=ConflictPolicy.CHOSEN,
        default_coalesce=Coalesce.ROW,
        note="a5/MScatter.hpp: SIMT kernels addressing UB through tile_offset_2d (either src layout); row "
        "mode writes packed rows (stride = src valid cols) bounded by Shape[3]. SIMT atomics (add: "
        "i32/u32/f16/bf16/f32, max/min: i32/u32/f32) are applied in row-major order and max/min as "
        "std::max/min (choice: the code leaves the order open; it shows in f16/bf16/f32 rounding). "
        "scatterConflict = last (the default) keeps the largest flat index; default: colliding indices are a "
        "run-time error.",
    ),
)
"""MSCATTER's rules (its lowering reads the mode an MSCATTER without coalesce takes)."""

WINDOW = Row(
    cpu=WindowRules(
        STANDARD, layouts=frozenset(), part_within_whole=False, even_valid_bytes=False,
        note="cpu/TExtract.hpp, TInsert.hpp: GetElement / SetElement per element of the window, any layouts; an "
        "assert that the position plus the window's valid shape stays in the other tile's valid shape.",
    ),
    a2a3=WindowRules(
        STANDARD, layouts=frozenset({"nd", "nz"}), part_within_whole=True, even_valid_bytes=True,
        note="npu/a2a3/TExtract.hpp, TInsert.hpp (textract_common / tinsert_common CheckT*VecToVec*): one type, both ND or both NZ, "
        "dst within src, valid cols of whole 2-byte units (its vcopy tail moves 16-bit units).",
    ),
    a5=WindowRules(
        types_named("i8", "si8", "i32", "si32", "f16", "bf16", "f32"), layouts=frozenset({"nd", "nz"}),
        part_within_whole=True, even_valid_bytes=False,
        note="npu/a5/TExtract.hpp, TInsert.hpp TEXTRACT_IMPL / TINSERT_IMPL (Vec->Vec): int8_t, int32_t, half, bfloat16_t, float (fp8 and "
        "fp4 not taken here); both ND or both NZ; dst within src.",
    ),
)
"""TEXTRACT's and TINSERT's rules."""

ROWS: dict[Instruction, Row] = {
    TLOAD: TRANSFER,
    TSTORE: TRANSFER,
    MSCATTER: MEMORY_SCATTER,
    MGATHER: Row(
        cpu=MGatherRules(
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
        a2a3=MGatherRules(
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
        a5=MGatherRules(
            data_types=STANDARD | FP8 | HIF8,
            index_types=INT32,
            table_layouts=(GmLayout.ND,),
            dst_blayouts=("row_major", "col_major"),
            index_blayouts=("row_major", "col_major"),
            row_index_shapes=("1xR", "Rx1"),
            alignment_dim="major",
            packed_table_rows=True,
            nonempty_dst=True,
            gather_exec=True,
            note="The SIMT kernel addresses UB tiles through tile_offset_2d, so a col-major dst "
            "is accepted (PTOAS rejects it); the GM table must be packed ND. A row-mode [R, 1] "
            "index must be col-major (as PTOAS and the spec pair them; the a5 code checks the "
            "shape only): in a row-major tile its storage element r is not row r.",
        ),
    ),
    TGATHER: Row(
        cpu=TGatherRules(
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
        a2a3=TGatherRules(
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
        a5=TGatherRules(
            index_data_types=STANDARD | FP8 | HIF8 | INT64,
            index_types_by_data_bytes={1: INT16, 2: INT16 | INT32, 4: INT32, 8: INT32},
            index_needs_tmp=False,
            implicit_index_tmp=True,
            mask_types=STANDARD | FP8 | HIF8 | INT64,
            mask_col_axis_types=STANDARD | FP8 | HIF8,
            mask_col_axis_dst_full=False,
            compare=True,
            compare_src_types=INT8 | INT16 | INT32 | F16_F32,
            compare_src_types_eq_only=NO_TYPES,
            threshold_tile_types=UNSIGNED16 | UNSIGNED32,
            compare_tmp_layout=False,
            note="Index widths follow the register gather: b8 data takes 16-bit indices, b16 16- or "
            "32-bit, b32/b64 32-bit. tmp is accepted but unused.",
        ),
    ),
    TCOLARGMIN: COLUMN_ARG_REDUCE,
    TCOLARGMAX: COLUMN_ARG_REDUCE,
    TPRINT: PRINT,
    TROWARGMIN: ROW_ARG_REDUCE,
    TROWARGMAX: ROW_ARG_REDUCE,
    TSCATTER: Row(
        cpu=TScatterRules(
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
        a2a3=TScatterRules(
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
        a5=TScatterRules(
            index_data_types=STANDARD | INT64,
            index_types_by_data_bytes={1: INT16, 2: INT16, 4: INT32, 8: INT32},
            mask_types=STANDARD | INT64,
            b64_max_cols=64,
            copy_same_shape=False,
            note="a5/TScatter.hpp: the whole dst tile zeroed, then per row one vscatter per register of "
            "indices (128 lanes of 16-bit, 64 of 32-bit ones, read unsigned), src and indexes read as "
            "row-major storage; within a vscatter the lowest lane wins (pto-isa's vscatter.md), later ones "
            "overwrite. 8-byte data (Int64Rearrange.hpp) takes one register per row: at most 64 columns.",
        ),
    ),
    TCVT: Row(
        cpu=TCvtRules(
            pairs({s: CVT_TYPES for s in CVT_TYPES.split()}), vec_only=False, row_major_only=False, takes_tmp=False,
            tmp_used=False,
            note="cpu/TCvt.hpp: any pair of the simulator's integer and float types, any tile and layout "
            "(GetElement/SetElement), no tmp (pto_instr.hpp declares TCVT with one; cpu/ has no definition); fp8, "
            "fp4 and int4 are not taken here.",
        ),
        a2a3=TCvtRules(
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
            vec_only=True, row_major_only=True, takes_tmp=True, tmp_used=True,
            note="npu/a2a3/TCvt.hpp: the pairs it has a vconv_* sequence for (fp8 and int4 not taken here; i32 -> f16 "
            "through vconv_deq with deqscale 1.0); Vec, row-major tiles.",
        ),
        a5=TCvtRules(
            pairs({
                "f32": "f32 f16 bf16 i16 i32 i64",
                "f16": "f32 i32 i16 i8 ui8",
                "bf16": "f32 i32 f16",
                "ui8": "f16 ui16",
                "i8": "f16 i16 i32",
                "i16": "ui8 f16 f32 ui32 i32",
                "i32": "f32 i16 ui16 i64 ui8",
                "ui32": "ui8 ui16 i16",
                "i64": "f32 i32",
            }),
            vec_only=True, row_major_only=True, takes_tmp=True, tmp_used=False,
            note="npu/a5/TCvt.hpp: the pairs it has a castData for (fp8, hif8 and fp4 not taken here); Vec, "
            "row-major tiles.",
        ),
    ),
    TTRI: Row(
        cpu=TTriRules(
            INT16 | INT32 | types_named("f16", "bf16", "f32"),
            note="cpu/TTRI.hpp TTriCheck (static_asserts): int16_t/int32_t/uint16_t/uint32_t/half/bfloat16_t/float, row-major",
        ),
        a2a3=TTriRules(
            INT16 | INT32 | types_named("f16", "f32"),
            note="npu/a2a3/TTri.hpp TTriCheck (static_asserts): int16_t/int32_t/uint16_t/uint32_t/half/float, row-major "
            "(PTOAS: f16/f32/i16/i32/u16/u32)",
        ),
        a5=TTriRules(
            INT8 | INT16 | INT32 | types_named("f16", "bf16", "f32"),
            note="npu/a5/TTri.hpp TTRI_IMPL (static_assert): 8-, 16- and 32-bit integers, half/bfloat16_t/float (PTOAS's "
            "A5 list; its 64-bit Int64Tri path is not taken here)",
        ),
    ),
    TRANDOM: Row(
        cpu=RandomRules(
            INT32, rounds=frozenset({7, 10}),
            note="cpu/TRandom.hpp TRANDOM_IMPL (static_asserts): int32_t/uint32_t, row-major, 7 or 10 rounds",
        ),
        a2a3=RandomRules(
            frozenset(), rounds=frozenset(),
            note="npu/a2a3 has no TRandom.hpp (pto_instr_impl.hpp includes it for a5 and cpu only; PTOAS: only supported for A5 targets)",
        ),
        a5=RandomRules(
            INT32, rounds=frozenset({7, 10}),
            note="npu/a5/TRandom.hpp TRANDOM_IMPL (static_asserts) and PTOAS's A5 verifier: int32_t/uint32_t, row-major, 7 or 10 rounds",
        ),
    ),
    THISTOGRAM: Row(
        cpu=HistogramRules(
            types_named("ui16", "ui32"), layouts=False, ptoas_shapes=False, dst_valid_bins=True,
            note="cpu/THistogram.hpp: overloads for uint16_t and uint32_t sources, each tile read and written through its "
            "layout, dst valid cols asserted at least 256",
        ),
        a2a3=HistogramRules(
            frozenset(), layouts=False, ptoas_shapes=False, dst_valid_bins=False,
            note="npu/a2a3 has no THistogram.hpp (arch_capability.hpp: SupportsTHistogram false; PTOAS: only supported on A5)",
        ),
        a5=HistogramRules(
            types_named("ui16", "ui32"), layouts=True, ptoas_shapes=True, dst_valid_bins=False,
            note="npu/a5/THistogram.hpp THISTOGRAM_IMPL (static_asserts) and PTOAS's A5 verifier (dst's rows, valid cols)",
        ),
    ),
    TCI: Row(
        cpu=TCIRules(
            INT16 | INT32, tmp_types=None, tmp_bytes={}, tmp_used=False,
            note="cpu/TCI.hpp: any type equal to S's (PTOAS: 16- and 32-bit integers, taken here); no tmp form (pto_instr.hpp declares it, cpu/ does not define it).",
        ),
        a2a3=TCIRules(
            INT16 | INT32, tmp_types=types_named("f32", "i32", "si32", "ui32"), tmp_bytes={4: 768, 2: 1792}, tmp_used=True,
            note="npu/a2a3/TCI.hpp (CheckValid): 2- or 4-byte, integers as PTOAS says; a tmp of a 4-byte type, row-major, of PTOAS's least size.",
        ),
        a5=TCIRules(
            INT16 | INT32, tmp_types=STANDARD, tmp_bytes={}, tmp_used=False,
            note="npu/a5/Tci.hpp (static_assert): int16/uint16/int32/uint32; a tmp it does not use.",
        ),
    ),
    TMOV: Row(
        cpu=TMovRules(
            STANDARD, converts=True, same_shape=False, same_layout=False, equal_valid=True,
            note="cpu/TMov.hpp: GetElement / SetElement per valid element, each tile by its own layout, the value "
            "converted to dst's type; an assert that the valid shapes are equal.",
        ),
        a2a3=TMovRules(
            STANDARD, converts=False, same_shape=True, same_layout=True, equal_valid=False,
            note="npu/a2a3/TMov.hpp TMovToVec: copy_ubuf_to_ubuf of storage (static_asserts one shape and one "
            "element size)",
        ),
        a5=TMovRules(
            STANDARD | FP8 | HIF8 | types_named("!pto.f4E2M1x2", "!pto.f4E1M2x2"), converts=False, same_shape=False,
            same_layout=True, equal_valid=False,
            note="npu/a5/TMov.hpp TMovVecToVec: vlds / vsts of dst's type along each tile's rows, any element type "
            "(no static_assert: fp8, hif8 and packed fp4 bytes copy as they are; its ND->NZ and ND->ZN repacks are "
            "not taken here)",
            l0_loads={
                "left": L0Load(("col_major", "row_major"), A5_L0_TYPES, "npu/a5/TMov.hpp TMovToLeft: an NZ L0A tile, a static_assert"),
                "right": L0Load(("row_major", "col_major"), A5_L0_TYPES, "npu/a5/TMov.hpp TMovToRight: a ZN L0B tile, a static_assert"),
            },
        ),
    ),
    TCONCAT: Row(
        cpu=TConcatRules(
            STANDARD, row_major=False, exact_cols=True,
            note="cpu/TConcat.hpp TConcatTileCheck: one type of its list, Vec tiles; asserts of the valid rows and cols; "
            "any layouts (GetTileElementOffset).",
        ),
        a2a3=TConcatRules(
            STANDARD, row_major=True, exact_cols=False,
            note="npu/a2a3/TConcat.hpp: one type of its list; row strides (ND tiles); PTO_ASSERTs of the valid rows and of "
            "src0's plus src1's valid cols within dst's cols.",
        ),
        a5=TConcatRules(
            STANDARD, row_major=True, exact_cols=True,
            note="npu/a5/TConcat.hpp TConcatCheck: one type of its list, row-major tiles; PTO_ASSERTs of the valid rows "
            "and of dst's valid cols.",
        ),
    ),
    TFILLPAD: Row(
        cpu=FillPadRules(
            STANDARD, row_major=False, dst_rows_cover_src=False,
            note="cpu/TFillPad.hpp: static_asserts of a non-null dst pad and one element size of 1, 2 or 4 bytes; "
            "GetElement / SetElement over dst's Rows x Cols, each tile by its own layout, src's value converted.",
        ),
        a2a3=FillPadRules(
            STANDARD, row_major=True, dst_rows_cover_src=False,
            note="npu/a2a3/TFillPad.hpp: static_asserts of a non-null dst pad and one element size of 1, 2 or 4 bytes; "
            "vcopy / vector_dup at row strides of Cols (no layout check: another layout's rows are elsewhere).",
        ),
        a5=FillPadRules(
            STANDARD | FP8 | HIF8, row_major=True, dst_rows_cover_src=True,
            note="npu/a5/TFillPad.hpp: static_asserts of a non-null dst pad and one element size of 1, 2 or 4 bytes "
            "(fp8 pads with 0: PadValueMap); vlds / vsts at row strides of Cols (no layout check); padRows = dst's "
            "valid rows - src's, unsigned.",
        ),
    ),
    TTRANS: Row(
        cpu=TTransRules(
            STANDARD, one_type=False, row_major=False, mirrored_valid=True, tmp_need=TmpNeed.UNUSED, tmp_used=False, index_16_bits=False,
            implicit_tmp=TmpAdded.SMALLEST,
            note="cpu/TTrans.hpp TTRANS_IMPL: static_asserts of one element size and of dst's valid shape mirroring src's (the "
            "template parameters: both dynamic pass, then checked here at run time too); GetElement / SetElement through any layouts, converted; tmp unused (the C++ call takes one).",
        ),
        a2a3=TTransRules(
            STANDARD, one_type=True, row_major=True, mirrored_valid=False, tmp_need=TmpNeed.SRC_ON_VNCHWCONV,
            tmp_used=True, index_16_bits=False, implicit_tmp=TmpAdded.LIKE_SRC,
            note="npu/a2a3/TTrans.hpp TTRANS_IMPL: static_asserts of 1, 2 or 4 bytes, one size, a row-major src; the size "
            "from src's valid shape; PTOAS: one element type, tmp of src's bytes where vnchwconv runs.",
        ),
        a5=TTransRules(
            STANDARD, one_type=True, row_major=True, mirrored_valid=False, tmp_need=TmpNeed.BLOCK, tmp_used=False, index_16_bits=True,
            implicit_tmp=TmpAdded.SMALLEST,
            note="npu/a5/TTrans.hpp TTRANS_IMPL / TTransTile: static_asserts of 1, 2 or 4 bytes, one size, a row-major src, "
            "rows of whole 32-byte blocks, gather / scatter indexes in 16 bits for 1- and 2-byte types; tmp unused "
            "(PTOAS: one element type, tmp of 32 bytes).",
        ),
    ),
    TGATHERB: Row(
        cpu=TGatherBRules(
            STANDARD, INTEGERS,
            note='cpu/TGatherB.hpp TGATHERB_IMPL: a static_assert of a row-major dst; offsets read at r * Cols, each converted to uint32; any element size (STANDARD here, as the NPUs); its assert of the valid row (validCol * sizeof(TileDType), a pointer: 8 bytes) admits a partial last block that its loop then skips: whole blocks are required here.',
        ),
        a2a3=TGatherBRules(
            STANDARD, INT32,
            note="npu/a2a3/TGatherB.hpp TGATHERB_IMPL: a static_assert of a row-major dst and of 1-, 2- or 4-byte elements (docs: these nine types); offsets read as uint32 at RowStride; a row's remaining blocks gathered as one more whole repeat of 8 blocks (past the valid row: approximate, docs/instructions.md); a partial last block would be gathered whole: whole blocks are required here.",
        ),
        a5=TGatherBRules(
            STANDARD, INT32,
            note='npu/a5/TGatherB.hpp TGATHERB_IMPL: a static_assert of 1-, 2- or 4-byte elements (docs: these nine types); offsets read as uint32 by vlds at RowStride, dst rows at RowStride (row-major ND here); its element predicate on the last repeat, which vgatherb reads as b32 lanes, is not modelled: whole blocks are required here.',
        ),
    ),
}
"""Each instruction's rule row on each target."""


def column(target: str) -> dict[Instruction, object]:
    """A target's rule row of every instruction of this table (its rules.py adds them to RULES)."""
    windows = family_column((WINDOW_COPIES,), {row.mnemonic: WINDOW for row in WINDOW_COPIES.rows}, target)
    return {instruction: getattr(row, target) for instruction, row in ROWS.items()} | windows
