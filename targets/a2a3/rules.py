"""What Atlas A2/A3 accepts: its row of each instruction's rules."""

from __future__ import annotations


from pto_dialect.choices import PadFill, PrintRegion
from pto_dialect.attributes import Coalesce, GmLayout, ScatterAtomicOp
from pto_dialect.facts import INT8, INT16, INT32, INT64, SIGNED32, STANDARD, types_named
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
from pto_dialect.instructions.tgather import F16_F32, TGATHER, TGatherRules
from pto_dialect.instructions.tprint import TPRINT, TPrintRules
from pto_dialect.instructions.transfer import TLOAD, TSTORE, ShapeMatch, TransferRules
from pto_dialect.instructions.trowargmax import TROWARGMAX
from pto_dialect.instructions.trowargmin import TROWARGMIN, RowArgReduceRules
from targets.rules import families
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
    **column("a2a3"),
    **families.column("a2a3"),
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
