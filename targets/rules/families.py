"""
Every target's rules for the reduction, broadcast, compare-and-select, partial and partial
arg-select families, as one table: a row per instruction naming the rule row each target applies to
it (targets/rules/rows.py). Each target's rules.py takes its column (`column("a2a3")`).
"""

from __future__ import annotations

from dataclasses import replace

from pto_dialect.arg_reduce import TmpAdded
from pto_dialect.choices import FullOperand
from pto_dialect.facts import INT8, INT16, INT32, INT64, INTEGERS, SIGNED32, STANDARD, types_named
from pto_dialect.instruction import Instruction
from pto_dialect.instructions.broadcast import BroadcastRules, COL_BROADCASTS, ROW_BROADCASTS
from pto_dialect.instructions.compare import COMPARE_SELECT, CompareSelectRules
from pto_dialect.instructions.partial import PARTIAL, PartialRules
from pto_dialect.instructions.partial_arg import PARTIAL_ARG, PartialArgRules
from pto_dialect.instructions.reduction import COL_REDUCTIONS, ColReduceRules, ROW_REDUCTIONS, RowReduceRules
from targets.rules.rows import Row, column as family_column

HALF_FLOAT = types_named("f16", "f32")
FLOATS = types_named("f16", "bf16", "f32")
NPU_ARITHMETIC = types_named("i16", "si16", "i32", "si32", "f16", "f32")
"""a2a3's arithmetic types: int16, int32, half, float."""

# ---------------------------------------------------------------------------
# Reductions

CPU_ROW_REDUCTION = RowReduceRules(
    STANDARD, vector_layouts=False, tmp_same_type=False, implicit_tmp=TmpAdded.SMALLEST,
    note="cpu/TRowMax.hpp, TRowMin.hpp, TRowProd.hpp: a C++ loop over the valid elements through any layout, "
    "tmp unused (PTOAS: src and dst of one element type).",
)
A2A3_ROW_REDUCTION = RowReduceRules(
    NPU_ARITHMETIC, vector_layouts=True, tmp_same_type=True, implicit_tmp=TmpAdded.LIKE_SRC,
    note="npu/a2a3/TRowReduceOps.hpp TRowReduceCheck: half, float, int32, int16; src row-major ND, dst ND or "
    "a one-column DN; tmp holds the partial sums (PTOAS: src's element type, at least 32 bytes).",
)
A5_ROW_REDUCTION = RowReduceRules(
    NPU_ARITHMETIC, vector_layouts=True, tmp_same_type=False, implicit_tmp=TmpAdded.SMALLEST,
    note="npu/a5/TRowReduce.hpp TRowReduceCheck, TRowProd.hpp: half, float, int32, int16 (TROWMAX and "
    "TROWMIN also int8, uint8); src row-major ND, dst ND or a one-column DN; tmp unused.",
)
A5_ROW_EXTREME = replace(A5_ROW_REDUCTION, types=NPU_ARITHMETIC | types_named("i8", "si8", "ui8"))
CPU_COL_REDUCTION = ColReduceRules(
    STANDARD, row_major=False, same_cols=False,
    note="cpu/TColMin.hpp, TColProd.hpp: a C++ loop down each column through any layout.",
)
A2A3_COL_REDUCTION = ColReduceRules(
    NPU_ARITHMETIC, row_major=True, same_cols=False,
    note="npu/a2a3/TColReduceOps.hpp TColReduceCheck, TColSum.hpp TColSumCheck: half, float, int16, int32; "
    "row-major ND tiles.",
)
A5_COL_REDUCTION = ColReduceRules(
    STANDARD | INT64, row_major=True, same_cols=False,
    note="npu/a5/TColReduceOps.hpp TColReduceCheck: 8- to 64-bit integers, half, bfloat16, float; row-major ND tiles.",
)

# ---------------------------------------------------------------------------
# Broadcasts

CPU_ROW_BROADCAST = BroadcastRules(
    types_named("i16", "si16", "ui16", "i32", "si32", "ui32", "f16", "f32"), vector_layouts=False,
    tmp_mode1_capacity=False,
    note="cpu/TRowExpandOp.hpp IsRowExpandAllowedType: half, float, int16/32 and uint16/32 (TROWEXPANDMUL also "
    "uint8, TROWEXPANDEXPDIF only half and float); dst row-major; tmp unused.",
)
A2A3_ROW_BROADCAST = BroadcastRules(
    NPU_ARITHMETIC, vector_layouts=True, tmp_mode1_capacity=True, full_operand=FullOperand.LARGER_ROW_STRIDE,
    note="npu/a2a3/TRowExpandSub.hpp, Add, Mul, Max, Min: int16, int32, half, float (TROWEXPANDDIV and "
    "TROWEXPANDEXPDIF half and float); dst row-major; a tmp holds vbrcb's per-row blocks (mode 1).",
)
A5_ROW_BROADCAST = BroadcastRules(
    STANDARD, vector_layouts=True, tmp_mode1_capacity=False,
    note="npu/a5/TRowExpandSub.hpp, Add, Mul, Div, Max, Min: int8/16/32, uint8/16/32, half, bfloat16, float "
    "(TROWEXPANDEXPDIF half and float); dst row-major; tmp unused.",
)
CPU_COL_BROADCAST = replace(CPU_ROW_BROADCAST, note="cpu/TColExpandOp.hpp IsColExpandAllowedType (as the row "
                            "broadcasts'); every tile row-major.")
CPU_BROADCAST_MUL = replace(CPU_ROW_BROADCAST, types=CPU_ROW_BROADCAST.types | types_named("ui8"))
CPU_BROADCAST_EXPDIF = replace(CPU_ROW_BROADCAST, types=HALF_FLOAT)
A2A3_ROW_HALF_FLOAT = replace(A2A3_ROW_BROADCAST, types=HALF_FLOAT)
A2A3_COL_BROADCAST = replace(A2A3_ROW_BROADCAST, tmp_mode1_capacity=False, note="npu/a2a3/TColExpandBinOp.hpp "
                             "TCOLEXPANDOP_IMPL: int16, int32, half, float; every tile row-major.")
A2A3_COL_HALF_FLOAT = replace(A2A3_ROW_BROADCAST, tmp_mode1_capacity=False, types=HALF_FLOAT)
A5_COL_BROADCAST = replace(A5_ROW_BROADCAST, note="npu/a5/TColExpandBinOp.hpp TCOLEXPANDOP_IMPL: int8/16/32, "
                           "uint8/16/32, half, bfloat16, float; every tile row-major.")
A5_BROADCAST_EXPDIF = replace(A5_ROW_BROADCAST, types=HALF_FLOAT)
BROADCAST_ROWS = {
    "trowexpandsub": Row(CPU_ROW_BROADCAST, A2A3_ROW_BROADCAST, A5_ROW_BROADCAST),
    "trowexpanddiv": Row(CPU_ROW_BROADCAST, A2A3_ROW_HALF_FLOAT, A5_ROW_BROADCAST),
    "trowexpandadd": Row(CPU_ROW_BROADCAST, A2A3_ROW_BROADCAST, A5_ROW_BROADCAST),
    "trowexpandmul": Row(CPU_BROADCAST_MUL, A2A3_ROW_BROADCAST, A5_ROW_BROADCAST),
    "trowexpandmax": Row(CPU_ROW_BROADCAST, A2A3_ROW_BROADCAST, A5_ROW_BROADCAST),
    "trowexpandmin": Row(CPU_ROW_BROADCAST, A2A3_ROW_BROADCAST, A5_ROW_BROADCAST),
    "trowexpandexpdif": Row(CPU_BROADCAST_EXPDIF, A2A3_ROW_HALF_FLOAT, A5_BROADCAST_EXPDIF),
    "tcolexpandsub": Row(CPU_COL_BROADCAST, A2A3_COL_BROADCAST, A5_COL_BROADCAST),
    "tcolexpanddiv": Row(CPU_COL_BROADCAST, A2A3_COL_HALF_FLOAT, A5_COL_BROADCAST),
    "tcolexpandadd": Row(CPU_COL_BROADCAST, A2A3_COL_BROADCAST, A5_COL_BROADCAST),
    "tcolexpandmul": Row(CPU_BROADCAST_MUL, A2A3_COL_BROADCAST, A5_COL_BROADCAST),
    "tcolexpandmax": Row(CPU_COL_BROADCAST, A2A3_COL_BROADCAST, A5_COL_BROADCAST),
    "tcolexpandmin": Row(CPU_COL_BROADCAST, A2A3_COL_BROADCAST, A5_COL_BROADCAST),
    "tcolexpandexpdif": Row(CPU_BROADCAST_EXPDIF, A2A3_COL_HALF_FLOAT, A5_BROADCAST_EXPDIF),
    "trowexpand": Row(
        replace(CPU_ROW_BROADCAST, types=STANDARD, note="cpu/TRowExpand.hpp: src[i, 0] copied through any layout."),
        replace(A2A3_ROW_BROADCAST, types=STANDARD, note="npu/a2a3/TRowExpand.hpp: b8/b16/b32 data; src none_box "
                "(ND or DN), dst row-major ND, src's valid rows dst's."),
        replace(A5_ROW_BROADCAST, note="npu/a5/TRowExpand.hpp: b8/b16/b32 data; src none_box (ND or DN), dst "
                "row-major ND, src's valid rows dst's."),
    ),
    "tcolexpand": Row(
        replace(CPU_ROW_BROADCAST, types=STANDARD, note="cpu/TColExpand.hpp: src[0, j] copied down each column."),
        replace(A2A3_COL_HALF_FLOAT, types=STANDARD, note="npu/a2a3/TColExpand.hpp: row 0 of src down each column."),
        replace(A5_ROW_BROADCAST, note="npu/a5/TColExpand.hpp: row 0 of src down each column."),
    ),
}

# ---------------------------------------------------------------------------
# Compare and select

BYTE_MASKS = INT8
ANY_DATA = INTEGERS | FLOATS
A5_COMPARED = INT8 | INT16 | INT32 | FLOATS
A2A3_MASK_REPEATS = {2: 128, 4: 64}
"""a2a3's compares: each row's repeats store 256 / 8 / sizeof(T) mask bytes whole."""
A5_COMPARE = CompareSelectRules(
    {m: A5_COMPARED for m in BYTE_MASKS}, row_major_only=True, mask_store_bits={1: 256, 2: 128, 4: 128},
    note="npu/a5/TCmp.hpp TcmpCheck, TCmps.hpp TcmpsCheck: 8- to 32-bit integers, half, bfloat16, float, "
    "row-major; 64-bit data (Int64Compare) is not modelled here, as PTOAS rejects it; each register's "
    "mask stored whole (32 bytes for 1-byte data, 16 otherwise).",
)
COMPARE_ROWS = {
    "tcmp": Row(
        CompareSelectRules(
            {"ui8": types_named("i32", "si32", "f16", "f32"), "ui32": STANDARD}, row_major_only=False,
            note="cpu/TCmp.h TCmpCheck: a uint8_t mask with int32_t/half/float data, a uint32_t mask with 8- to "
            "32-bit integers, half, bfloat16, float; src0 and src1 alike, src0 rows = dst rows (PTO_ASSERT).",
        ),
        CompareSelectRules(
            {m: SIGNED32 | HALF_FLOAT for m in BYTE_MASKS}, row_major_only=True, mask_store_bits=A2A3_MASK_REPEATS,
            note="npu/a2a3/TCmp.hpp TCMP_IMPL: int32_t/half/float data (PTOAS: an i8 dst), rows addressed by Cols; "
            "each row's repeats store 256 / 8 / sizeof(T) mask bytes whole.",
        ),
        A5_COMPARE,
    ),
    "tcmps": Row(
        CompareSelectRules(
            {m: ANY_DATA for m in BYTE_MASKS}, row_major_only=False, rows_match=False,
            note="cpu/TCmps.hpp: no checks (any type CmpCall compiles for); the mask an 8-bit tile as PTOAS writes it.",
        ),
        CompareSelectRules(
            {m: SIGNED32 | INT16 | HALF_FLOAT for m in BYTE_MASKS}, row_major_only=True,
            mask_store_bits=A2A3_MASK_REPEATS,
            note="npu/a2a3/TCmps.hpp TcmpsCheck: int32_t/float/half/uint16_t/int16_t data, a row-major dst; whole "
            "repeats stored.",
        ),
        A5_COMPARE,
    ),
    "tsel": Row(
        CompareSelectRules(
            {m: ANY_DATA for m in BYTE_MASKS}, row_major_only=False,
            note="cpu/TSel.hpp: any data type and layout; the mask an 8-bit row-major tile (the simulator reads 8 "
            "bits of each mask element).",
        ),
        CompareSelectRules(
            {m: INT16 | INT32 | FLOATS for m in BYTE_MASKS}, row_major_only=True, tmp_elem_bytes=4,
            tmp_min_bytes={2: 16, 4: 8},
            note="npu/a2a3/TSel.hpp: 2- or 4-byte data, row-major; tmp receives cmpmaskLen 32-bit words "
            "(4 for 2-byte data, 2 for 4-byte), as PTOAS checks.",
        ),
        CompareSelectRules(
            {m: A5_COMPARED for m in BYTE_MASKS}, row_major_only=True,
            note="npu/a5/TSel.hpp: 1- to 8-byte data, row-major (64-bit Int64Select not modelled, as PTOAS rejects it).",
        ),
    ),
    "tsels": Row(
        CompareSelectRules(
            {m: ANY_DATA for m in INT8 | INT16 | INT32}, row_major_only=False,
            note="cpu/TSelS.hpp: any data type and layout; a row-major mask of 8- to 32-bit elements, bit c % w of "
            "element c / w of its row (w its width: the row's bytes read little-endian); src's valid shape = dst's "
            "(assert).",
        ),
        CompareSelectRules(
            {m: INT16 | INT32 | FLOATS for m in INT8 | INT16 | INT32}, row_major_only=True, tmp_same_type=True,
            tmp_min_bytes={2: 2, 4: 4},
            note="npu/a2a3/TSels.hpp: 2- or 4-byte data (the code takes bfloat16, PTOAS does not: the code wins), "
            "row-major; the mask's rows read as bytes (any 8- to 32-bit element type); tmp's first element receives "
            "the scalar (PTOAS also wants Cols elements of it: not a code rule).",
        ),
        CompareSelectRules(
            {m: INT8 | INT16 | INT32 | HALF_FLOAT for m in INT8 | INT16 | INT32}, row_major_only=True,
            note="npu/a5/TSels.hpp: 8- to 32-bit integers, half, float (no bfloat16), row-major tiles and mask (its "
            "rows read as bytes: any 8- to 32-bit element type) (64-bit Int64SelectScalar not modelled, as PTOAS "
            "rejects it).",
        ),
    ),
}

# ---------------------------------------------------------------------------
# Partial and partial arg-select

PARTIAL_RULES = Row(
    PartialRules(
        types_named("i8", "si8", "ui8", "i16", "si16", "i32", "si32", "f16", "bf16", "f32"), row_major_only=False,
        one_source_is_dst=False,
        note="cpu/TPartOp.hpp TPartCheck: int8_t/uint8_t/int16_t/int32_t/half/bfloat16_t/float, any layout; "
        "any valid shapes (dst's valid region walked, 0 where neither source is valid).",
    ),
    PartialRules(
        NPU_ARITHMETIC, row_major_only=True, one_source_is_dst=True,
        note="npu/a2a3/TPartAdd.hpp (and Mul, Max, Min): int16_t/int32_t/half/float, row-major; TPartOp.hpp "
        "asserts one source has dst's valid shape and the other lies within it (PTOAS checks the same).",
    ),
    PartialRules(
        INT8 | INT16 | INT32 | FLOATS, row_major_only=True, one_source_is_dst=True,
        note="npu/a5/TPartAdd.hpp (and Mul, Max, Min): 8- to 32-bit integers, half, bfloat16, float (64-bit "
        "Int64Part not modelled, as PTOAS rejects it), row-major; TPartBinOps.hpp asserts one source has dst's "
        "valid shape and the other's lies within it.",
    ),
)
"""Every partial member's rules."""
PARTIAL_ARG_RULES = Row(
    PartialArgRules(
        {v: INTEGERS for v in types_named("i8", "si8", "ui8", "i16", "si16", "i32", "si32", "f16", "bf16", "f32")},
        row_major_only=False, one_source_is_dst=False,
        note="cpu/TPartArgMax.hpp, TPartArgMin.hpp (TPartCheck on the values: int8_t/uint8_t/int16_t/int32_t/half/"
        "bfloat16_t/float; any integer index), any layout, any valid shapes; each index tile addressed by its value "
        "tile's offsets, so shaped as it (PTOAS checks the same).",
    ),
    PartialArgRules(
        {"f32": INT32, "f16": INT16 | INT32}, row_major_only=True, one_source_is_dst=True,
        note="npu/a2a3/TPartArgOp.hpp checkTiles: float values with 32-bit indices, half values with 16- or 32-bit "
        "ones (PTOAS also takes integer values and wants 32-bit indices: the code wins); one source with dst's valid "
        "shape (asserted).",
    ),
    PartialArgRules(
        {"f32": INT32, "f16": INT16 | INT32}, row_major_only=True, one_source_is_dst=True,
        note="npu/a5/TPartArgBinOps.hpp TPartArgCheck: float values with 32-bit indices, half values with 16- or "
        "32-bit ones (the code wins over PTOAS's list); one source with dst's valid shape (asserted).",
    ),
)
"""Both partial arg-select members' rules."""

# ---------------------------------------------------------------------------
# The table: a row per instruction, a column per target

ROWS: dict[str, Row] = {
    "trowsum": Row(
        replace(CPU_ROW_REDUCTION, types=INT16 - types_named("ui16") | types_named("i32", "si32", "f16", "bf16", "f32"),
                same_rows=True, note="cpu/TRowSum.hpp CheckRSValid: half, bfloat16, float, int16, int32 (same type in "
                "and out, as PTOAS asks), src's Rows dst's (static_assert); any layout; tmp unused."),
        A2A3_ROW_REDUCTION, A5_ROW_REDUCTION,
    ),
    "trowmax": Row(CPU_ROW_REDUCTION, A2A3_ROW_REDUCTION, A5_ROW_EXTREME),
    "trowmin": Row(CPU_ROW_REDUCTION, A2A3_ROW_REDUCTION, A5_ROW_EXTREME),
    "trowprod": Row(CPU_ROW_REDUCTION, A2A3_ROW_REDUCTION, A5_ROW_REDUCTION),
    "tcolsum": Row(
        replace(CPU_COL_REDUCTION, types=FLOATS, same_cols=True, note="cpu/TColSum.hpp CheckCSValid: half, bfloat16, "
                "float (same type in and out), src's Cols dst's."),
        A2A3_COL_REDUCTION, A5_COL_REDUCTION,
    ),
    "tcolmax": Row(
        replace(CPU_COL_REDUCTION, types=types_named("i8", "si8", "ui8") | FLOATS, same_cols=True,
                note="cpu/TColMax.hpp CheckCMValid: int8, uint8, half, bfloat16, float, src's Cols dst's."),
        A2A3_COL_REDUCTION, A5_COL_REDUCTION,
    ),
    "tcolmin": Row(CPU_COL_REDUCTION, A2A3_COL_REDUCTION, A5_COL_REDUCTION),
    "tcolprod": Row(CPU_COL_REDUCTION, A2A3_COL_REDUCTION, A5_COL_REDUCTION),
    **BROADCAST_ROWS,
    **COMPARE_ROWS,
    **{row.mnemonic: PARTIAL_RULES for row in PARTIAL.rows},
    **{row.mnemonic: PARTIAL_ARG_RULES for row in PARTIAL_ARG.rows},
}
"""Each instruction's rule row on each target, by mnemonic."""


def column(target: str) -> dict[Instruction, object]:
    """A target's rule row of every instruction of these families (its rules.py adds them to RULES)."""
    return family_column(
        (ROW_REDUCTIONS, COL_REDUCTIONS, ROW_BROADCASTS, COL_BROADCASTS, COMPARE_SELECT, PARTIAL, PARTIAL_ARG), ROWS, target
    )
