"""What the Ascend 950 accepts: its row of each instruction's rules."""

from __future__ import annotations

from pto_dialect.choices import PadFill
from pto_dialect.attributes import Coalesce, GmLayout, ScatterAtomicOp
from pto_dialect.facts import (
    FP8,
    HIF8,
    INT8,
    INT16,
    INT32,
    INT64,
    INTEGERS,
    STANDARD,
    UNSIGNED16,
    UNSIGNED32,
    types_named,
)
from pto_dialect.instructions.elementwise import BINARY, ElementwiseRules
from pto_dialect.instructions.compare import COMPARE_SELECT, CompareSelectRules
from pto_dialect.instructions.partial import PARTIAL, PartialRules
from pto_dialect.instructions.partial_arg import PARTIAL_ARG, PartialArgRules
from pto_dialect.instructions.mgather import MGATHER, MGatherRules
from pto_dialect.instructions.mscatter import MSCATTER, ConflictPolicy, MScatterRules
from pto_dialect.instructions.tcolargmax import TCOLARGMAX
from pto_dialect.arg_reduce import TmpAdded
from pto_dialect.instructions.tcolargmin import TCOLARGMIN, ColArgReduceRules
from pto_dialect.instructions.tgather import F16_F32, NO_TYPES, TGATHER, TGatherRules
from pto_dialect.instructions.tprint import TPRINT
from pto_dialect.instructions.transfer import TLOAD, TSTORE, ShapeMatch, TransferRules
from targets.a2a3.rules import PRINT as A2A3_PRINT
from pto_dialect.instructions.trowargmax import TROWARGMAX
from pto_dialect.instructions.trowargmin import TROWARGMIN, RowArgReduceRules
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
    "padCount with the data select bit always on; pad null/zero leave the pad register, 0).",
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

ARITHMETIC = ElementwiseRules(
    types=INTEGERS | types_named("f16", "bf16", "f32"),
    row_major_only=True,
    note="npu/a5/TAdd.hpp (TAddCheck) and its siblings: 8- to 64-bit integers, half, bfloat16, float "
    "(PTOAS lists no 64-bit or unsigned types: the code wins); row-major tiles.",
)
"""The binary elementwise instructions' rules."""

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
    **BINARY.rules(ARITHMETIC),
    **COMPARE_SELECT.rules(COMPARE_RULES, tsel=TSEL_RULES, tsels=TSELS_RULES),
    **PARTIAL.rules(PARTIAL_RULES),
    **PARTIAL_ARG.rules(PARTIAL_ARG_RULES),
}
