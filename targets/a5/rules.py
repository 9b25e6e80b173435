"""What the Ascend 950 accepts: its row of each instruction's rules."""

from __future__ import annotations

from dataclasses import replace

from pto_dialect.choices import PadFill
from pto_dialect.attributes import Coalesce, GmLayout, ScatterAtomicOp
from pto_dialect.facts import (
    FP8,
    HIF8,
    INT8,
    INT16,
    INT32,
    INT64,
    STANDARD,
    UNSIGNED16,
    UNSIGNED32,
    types_named,
)
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
from pto_dialect.instructions.movement import TCONCAT, TMOV, WINDOW_COPIES, L0Load, TConcatRules, TMovRules, WindowRules
from pto_dialect.instructions.mgather import MGATHER, MGatherRules
from pto_dialect.instructions.mscatter import MSCATTER, ConflictPolicy, MScatterRules
from pto_dialect.instructions.tcolargmax import TCOLARGMAX
from pto_dialect.arg_reduce import TmpAdded
from pto_dialect.instructions.tcolargmin import TCOLARGMIN, ColArgReduceRules
from pto_dialect.instructions.tgatherb import TGATHERB, TGatherBRules
from pto_dialect.instructions.tgather import F16_F32, NO_TYPES, TGATHER, TGatherRules
from pto_dialect.instructions.tprint import TPRINT
from pto_dialect.instructions.transfer import TLOAD, TSTORE, ShapeMatch, TransferRules
from targets.a2a3.rules import PRINT as A2A3_PRINT
from pto_dialect.instructions.trowargmax import TROWARGMAX
from pto_dialect.instructions.trowargmin import TROWARGMIN, RowArgReduceRules
from targets.rules.elementwise import column
from pto_dialect.instructions.tscatter import TSCATTER, TScatterRules

TRANSFER = TransferRules(
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
    "TSTORE_IMPL static_asserts a Vec or Acc src; TLOAD into a Vec tile (StaticCheck): ND2ND / DN2DN / NZ2NZ only.",
    store_locs=frozenset({"vec", "acc"}),
    vec_load_same_layout=True,
)

COLUMN_ARG_REDUCE = ColArgReduceRules(
    src_types=INT8 | INT16 | INT32 | types_named("f16", "bf16", "f32") | FP8,
    index_types=INT32,
    value_index_types_by_src_bytes={2: INT16, 4: INT32},
    value_form_src_blayouts=("row_major", "col_major"),
    tmp_same_type=False,
    implicit_tmp=TmpAdded.SMALLEST,
    note="Any 1/2/4-byte type the interpreter can compare (hif8 has no numeric model here "
    "and is rejected); tmp is accepted but unused.",
)
"""TCOLARGMIN's and TCOLARGMAX's rules: one code path with the comparison reversed."""

PRINT = A2A3_PRINT
"""TPRINT: a5's TPrint.hpp is a2a3's (it includes it), so is its row."""
ROW_ARG_REDUCE = RowArgReduceRules(
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
)
"""TROWARGMIN's and TROWARGMAX's rules: one code path with the comparison reversed."""

MEMORY_SCATTER = MScatterRules(
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
)
"""MSCATTER's rules (its lowering reads the mode an MSCATTER without coalesce takes)."""

ROW_REDUCTION = RowReduceRules(
    types=types_named("i16", "si16", "i32", "si32", "f16", "f32"),
    vector_layouts=True,
    tmp_same_type=False,
    implicit_tmp=TmpAdded.SMALLEST,
    note="npu/a5/TRowReduce.hpp TRowReduceCheck, TRowProd.hpp: half, float, int32, int16 (TROWMAX and "
    "TROWMIN also int8, uint8); src row-major ND, dst ND or a one-column DN; tmp unused.",
)
"""The row reductions' rules."""

ROW_BROADCAST = BroadcastRules(
    types=STANDARD,
    vector_layouts=True,
    tmp_mode1_capacity=False,
    note="npu/a5/TRowExpandSub.hpp, Add, Mul, Div, Max, Min: int8/16/32, uint8/16/32, half, bfloat16, float "
    "(TROWEXPANDEXPDIF half and float); dst row-major; tmp unused.",
)
"""The row broadcasts' rules (TROWEXPANDEXPDIF's and TROWEXPAND's own rows below)."""
COL_REDUCTION = ColReduceRules(
    types=STANDARD | INT64,
    row_major=True,
    same_cols=False,
    note="npu/a5/TColReduceOps.hpp TColReduceCheck: 8- to 64-bit integers, half, bfloat16, float; row-major ND tiles.",
)
"""The column reductions' rules."""
# The compare-and-select family's rules.
FLOATS = types_named("f16", "bf16", "f32")
BYTE_MASKS = INT8
COMPARED = INT8 | INT16 | INT32 | FLOATS
COMPARE_RULES = CompareSelectRules(
    types_by_mask={m: COMPARED for m in BYTE_MASKS},
    row_major_only=True,
    mask_store_bits={1: 256, 2: 128, 4: 128},
    note="npu/a5/TCmp.hpp TcmpCheck, TCmps.hpp TcmpsCheck: 8- to 32-bit integers, half, bfloat16, float, "
    "row-major; 64-bit data (Int64Compare) is not modelled here, as PTOAS rejects it; each register's "
    "mask stored whole (32 bytes for 1-byte data, 16 otherwise).",
)
TSEL_RULES = CompareSelectRules(
    types_by_mask={m: COMPARED for m in BYTE_MASKS},
    row_major_only=True,
    note="npu/a5/TSel.hpp: 1- to 8-byte data, row-major (64-bit Int64Select not modelled, as PTOAS rejects it).",
)
TSELS_RULES = CompareSelectRules(
    types_by_mask={m: INT8 | INT16 | INT32 | types_named("f16", "f32") for m in INT8 | INT16 | INT32},
    row_major_only=True,
    note="npu/a5/TSels.hpp: 8- to 32-bit integers, half, float (no bfloat16), row-major tiles and mask (its "
    "rows read as bytes: any 8- to 32-bit element type) "
    "(64-bit Int64SelectScalar not modelled, as PTOAS rejects it).",
)

# The partial family's rules.
PARTIAL_RULES = PartialRules(
    types=INT8 | INT16 | INT32 | types_named("f16", "bf16", "f32"),
    row_major_only=True,
    one_source_is_dst=True,
    note="npu/a5/TPartAdd.hpp (and Mul, Max, Min): 8- to 32-bit integers, half, bfloat16, float (64-bit "
    "Int64Part not modelled, as PTOAS rejects it), row-major; TPartBinOps.hpp asserts one source has dst's "
    "valid shape and the other's lies within it.",
)

# The partial arg-select family's rules.
PARTIAL_ARG_RULES = PartialArgRules(
    index_types_by_value={"f32": INT32, "f16": INT16 | INT32},
    row_major_only=True,
    one_source_is_dst=True,
    note="npu/a5/TPartArgBinOps.hpp TPartArgCheck: float values with 32-bit indices, half values with 16- or "
    "32-bit ones (the code wins over PTOAS's list); one source with dst's valid shape (asserted).",
)

L0_TYPES = types_named("i8", "si8", "f8E4M3FN", "f8E5M2", "!pto.hif8", "f16", "bf16", "f32")
"""npu/a5/TExtract.hpp is_textract_supported_type, what TMovToLeft / TMovToRight static_assert (int8_t, the fp8s,
hifloat8_t, half, bfloat16_t, float; its packed fp4 and e8m0 types are not taken here)."""


RULES = {
    TLOAD: TRANSFER,
    TSTORE: TRANSFER,
    MSCATTER: MEMORY_SCATTER,
    MGATHER: MGatherRules(
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
    TGATHER: TGatherRules(
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
    TCOLARGMIN: COLUMN_ARG_REDUCE,
    TCOLARGMAX: COLUMN_ARG_REDUCE,
    TPRINT: PRINT,
    TROWARGMIN: ROW_ARG_REDUCE,
    TROWARGMAX: ROW_ARG_REDUCE,
    TSCATTER: TScatterRules(
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
    **ROW_REDUCTIONS.rules(
        ROW_REDUCTION,
        trowmax=replace(ROW_REDUCTION, types=ROW_REDUCTION.types | types_named("i8", "si8", "ui8")),
        trowmin=replace(ROW_REDUCTION, types=ROW_REDUCTION.types | types_named("i8", "si8", "ui8")),
    ),
    **ROW_BROADCASTS.rules(
        ROW_BROADCAST,
        trowexpandexpdif=replace(ROW_BROADCAST, types=types_named("f16", "f32")),
        trowexpand=replace(ROW_BROADCAST, note="npu/a5/TRowExpand.hpp: b8/b16/b32 data; src none_box (ND or DN), "
                           "dst row-major ND, src's valid rows dst's."),
    ),
    **column("a5"),
    TCVT: TCvtRules(
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
        vec_only=True, row_major_only=True, takes_tmp=True,
        note="npu/a5/TCvt.hpp: the pairs it has a castData for (fp8, hif8 and fp4 not taken here); Vec, "
        "row-major tiles.",
    ),
    **COL_BROADCASTS.rules(
        replace(ROW_BROADCAST, note="npu/a5/TColExpandBinOp.hpp TCOLEXPANDOP_IMPL: int8/16/32, uint8/16/32, half, "
                "bfloat16, float; every tile row-major."),
        tcolexpandexpdif=replace(ROW_BROADCAST, types=types_named("f16", "f32")),
        tcolexpand=replace(ROW_BROADCAST, note="npu/a5/TColExpand.hpp: row 0 of src down each column."),
    ),
    **COL_REDUCTIONS.rules(COL_REDUCTION),
    **COMPARE_SELECT.rules(COMPARE_RULES, tsel=TSEL_RULES, tsels=TSELS_RULES),
    **PARTIAL.rules(PARTIAL_RULES),
    **PARTIAL_ARG.rules(PARTIAL_ARG_RULES),
    TTRI: TTriRules(INT8 | INT16 | INT32 | types_named("f16", "bf16", "f32"), note="npu/a5/TTri.hpp TTRI_IMPL (static_assert): 8-, 16- and 32-bit integers, half/bfloat16_t/float (PTOAS's A5 list; its 64-bit Int64Tri path is not taken here)"),
    TRANDOM: RandomRules(
        INT32, rounds=frozenset({7, 10}),
        note="npu/a5/TRandom.hpp TRANDOM_IMPL (static_asserts) and PTOAS's A5 verifier: int32_t/uint32_t, row-major, 7 or 10 rounds",
    ),
    THISTOGRAM: HistogramRules(
        types_named("ui16", "ui32"), layouts=True, ptoas_shapes=True, dst_valid_bins=False,
        note="npu/a5/THistogram.hpp THISTOGRAM_IMPL (static_asserts) and PTOAS's A5 verifier (dst's rows, valid cols)",
    ),
    TCI: TCIRules(
        INT16 | INT32, tmp_types=STANDARD, tmp_bytes={},
        note="npu/a5/Tci.hpp (static_assert): int16/uint16/int32/uint32; a tmp it does not use.",
    ),
    TMOV: TMovRules(
        STANDARD | FP8 | HIF8 | types_named("!pto.f4E2M1x2", "!pto.f4E1M2x2"), converts=False, same_shape=False,
        same_layout=True, equal_valid=False,
        note="npu/a5/TMov.hpp TMovVecToVec: vlds / vsts of dst's type along each tile's rows, any element type "
        "(no static_assert: fp8, hif8 and packed fp4 bytes copy as they are; its ND->NZ and ND->ZN repacks are "
        "not taken here)",
        l0_loads={
            "left": L0Load(("col_major", "row_major"), L0_TYPES, "npu/a5/TMov.hpp TMovToLeft: an NZ L0A tile, a static_assert"),
            "right": L0Load(("row_major", "col_major"), L0_TYPES, "npu/a5/TMov.hpp TMovToRight: a ZN L0B tile, a static_assert"),
        },
    ),
    **WINDOW_COPIES.rules(WindowRules(
        types_named("i8", "si8", "i32", "si32", "f16", "bf16", "f32"), layouts=frozenset({"nd", "nz"}),
        part_within_whole=True, even_valid_bytes=False,
        note="npu/a5/TExtract.hpp, TInsert.hpp TEXTRACT_IMPL / TINSERT_IMPL (Vec->Vec): int8_t, int32_t, half, bfloat16_t, float (fp8 and "
        "fp4 not taken here); both ND or both NZ; dst within src.",
    )),
    TCONCAT: TConcatRules(
        STANDARD, row_major=True, exact_cols=True,
        note="npu/a5/TConcat.hpp TConcatCheck: one type of its list, row-major tiles; PTO_ASSERTs of the valid rows "
        "and of dst's valid cols.",
    ),
    TFILLPAD: FillPadRules(
        STANDARD | FP8 | HIF8, row_major=True, dst_rows_cover_src=True,
        note="npu/a5/TFillPad.hpp: static_asserts of a non-null dst pad and one element size of 1, 2 or 4 bytes "
        "(fp8 pads with 0: PadValueMap); vlds / vsts at row strides of Cols (no layout check); padRows = dst's "
        "valid rows - src's, unsigned.",
    ),
    TTRANS: TTransRules(
        STANDARD, one_type=True, row_major=True, mirrored_valid=False, tmp_need=TmpNeed.BLOCK, index_16_bits=True,
        implicit_tmp=TmpAdded.SMALLEST,
        note="npu/a5/TTrans.hpp TTRANS_IMPL / TTransTile: static_asserts of 1, 2 or 4 bytes, one size, a row-major src, "
        "rows of whole 32-byte blocks, gather / scatter indexes in 16 bits for 1- and 2-byte types; tmp unused "
        "(PTOAS: one element type, tmp of 32 bytes).",
    ),
    TGATHERB: TGatherBRules(
        STANDARD, INT32,
        note='npu/a5/TGatherB.hpp TGATHERB_IMPL: a static_assert of 1-, 2- or 4-byte elements (docs: these nine types); offsets read as uint32 by vlds at RowStride, dst rows at RowStride (row-major ND here); its element predicate on the last repeat, which vgatherb reads as b32 lanes, is not modelled: whole blocks are required here.',
    ),
}
