"""
Every target's rules for the elementwise families (pto_dialect/instructions/elementwise.py: binary,
tile-scalar, fill, unary), as one table: a row per instruction naming the rule row (ElementwiseRules)
each target applies to it. Each target's rules.py takes its column (`column("a2a3")`; targets/rules/rows.py).

The cells are named once per target below (the rule several members share on that target), or
written in the row where only that member has them.
"""

from __future__ import annotations

from dataclasses import replace

from pto_dialect.instruction import Instruction
from pto_dialect.facts import INT8, INT16, INT32, INT64, INTEGERS, SIGNED32, types_named
from targets.rules.rows import Row, column as family_column
from pto_dialect.instructions.elementwise import (
    BINARY,
    ElementwiseRules,
    FILL,
    TILE_SCALAR,
    TMP_DST_TYPE,
    TMP_LIKE_DST,
    TMP_ONE_BLOCK,
    TMP_ONE_ROW,
    TMP_REMAINDER,
    UNARY,
)

HALF_FLOAT = types_named("f16", "f32")
FLOATS = types_named("f16", "bf16", "f32")
SIGNED = types_named("i8", "si8", "i16", "si16", "i32", "si32")
NPU_ARITHMETIC = types_named("i16", "si16", "i32", "si32", "f16", "f32")
"""a2a3's arithmetic types: int16, int32, half, float."""


# ---------------------------------------------------------------------------
# cpu: the pto-isa CPU simulator

CPU_ARITHMETIC = ElementwiseRules(
    INTEGERS | FLOATS, False, "cpu/TAdd.hpp and its siblings: a C++ loop over the valid elements in any layout, for "
    "every integer and float type the simulator's element types compute with.",
)
CPU_SCALAR_ROW_MAJOR = ElementwiseRules(
    INTEGERS | FLOATS, True, "cpu/TBinSOps.hpp CheckBinSOpTileData: TADDS, TMULS, TDIVS, TMAXS, TPOWS and TLRELU "
    "(CONSTRAINT_VEC_ROWMAJOR) static_assert row-major Vec tiles; TSUBS, TMINS, TFMODS, TREMS (CONSTRAINT_VEC) only "
    "Vec tiles.",
)
CPU_BITWISE = ElementwiseRules(
    INTEGERS, False, "cpu/ElementTileOp.h and TBinSOps.hpp (CONSTRAINT_VEC): C++ `&`, `|`, `<<`, `>>` on integers only, "
    "any layout.",
)
CPU_TRANSCENDENTAL = ElementwiseRules(
    FLOATS, False, "cpu/ElementOp.h (OP_EXP, OP_LOG), cpu/TSqrt.hpp: in double, half's exp through expf; any layout. "
    "The simulator would compile TEXP/TLOG on integers too (casting the double back, undefined beyond the type's "
    "range): floats only, as PTOAS and the ISA say.",
)

# ---------------------------------------------------------------------------
# a2a3: Atlas A2/A3 (npu/a2a3/)

A2A3_ARITHMETIC = ElementwiseRules(
    NPU_ARITHMETIC, True, "npu/a2a3/TAdd.hpp (TAddCheck) and its siblings: int16, int32, half, float; row-major tiles.",
)
A2A3_SCALAR_ARITHMETIC = ElementwiseRules(
    NPU_ARITHMETIC, True, "npu/a2a3/TAddS.hpp ... TDivS.hpp: int16, int32, half, float; the code walks valid rows at "
    "the tile's RowStride (TBinSOp.hpp), so row-major tiles (PTOAS checks no layout here).",
)
A2A3_BITWISE = ElementwiseRules(
    INT8 | INT16 | INT32, True, "npu/a2a3/TAnd.hpp, TOr.hpp, TShl.hpp, TShr.hpp, TBitwiseSOp.hpp (TANDS, TORS): 8- to "
    "32-bit integers (8-bit ones in 16-bit pairs, 32-bit ones as 16-bit halves for vand/vor); row-major tiles.",
)
A2A3_XOR = replace(A2A3_BITWISE, note="npu/a2a3/TXor.hpp, TBitwiseSOp.hpp: as TOR and TAND, through tmp (dst's valid "
                   "shape).", tmp=TMP_LIKE_DST)
A2A3_SCALAR_SHIFT = ElementwiseRules(
    INT16 | INT32, True, "npu/a2a3/TBitwiseSOp.hpp TShiftCheck: int16, uint16, int32, uint32; rows walked at RowStride.",
)
A2A3_FLOAT_REMAINDER = ElementwiseRules(
    types_named("f32"), True, "npu/a2a3/TFmod.hpp, TFmodS.hpp: float only; row-major tiles.",
)
A2A3_REMAINDER = ElementwiseRules(
    types_named("f32", "i32", "si32"), True, "npu/a2a3/TRem.hpp, TRemS.hpp: float and int32; row-major tiles; TREM's "
    "tmp holds the quotients of a row and, at tmp + Cols, the compare mask (2 elements per 64 columns): its storage "
    "is what counts (PTOAS asks for 2 valid rows instead).", tmp=TMP_REMAINDER,
)
A2A3_POWER = ElementwiseRules(
    INT8 | INT16 | INT32 | types_named("f32"), True, "npu/a2a3/TPow.hpp PowCheckType: 8- to 32-bit integers and float; "
    "row-major Vec tiles; tmp of dst's valid shape (integers too: this pto-isa's TPOW/TPOWS take a tmp always, where "
    "PTOAS rejects one for integers); precisionType is ignored (PTOAS rejects high_precision here).", tmp=TMP_LIKE_DST,
)
A2A3_UNARY = ElementwiseRules(HALF_FLOAT, True, "npu/a2a3/TUnaryOp.hpp (TunaryCheck): half, float; row-major tiles.")

# ---------------------------------------------------------------------------
# a5: Ascend 950 (npu/a5/)

A5_ARITHMETIC = ElementwiseRules(
    INTEGERS | FLOATS, True, "npu/a5/TAdd.hpp (TAddCheck) and its siblings: 8- to 64-bit integers, half, bfloat16, "
    "float (PTOAS lists no 64-bit or unsigned types: the code wins); row-major tiles.",
)
A5_SCALAR_ARITHMETIC = ElementwiseRules(
    INTEGERS | FLOATS, True, "npu/a5/TAddS.hpp, TSubS.hpp, TMaxs.hpp, TMins.hpp: 8- to 64-bit integers, half, "
    "bfloat16, float; the code walks valid rows at the tile's RowStride (TBinSOp.hpp), so row-major tiles (PTOAS "
    "checks no layout here).",
)
A5_WIDE_MULTIPLY = ElementwiseRules(
    INT16 | INT32 | INT64 | FLOATS, True, "npu/a5/TMul.hpp, TMulS.hpp: 16- to 64-bit integers, half, bfloat16, float "
    "(no 8-bit); row-major tiles.",
)
A5_DIVISION = ElementwiseRules(
    INT16 | INT32 | INT64 | HALF_FLOAT, True, "npu/a5/TDiv.hpp, TDivS.hpp: 16- to 64-bit integers, half, float (no "
    "8-bit, no bfloat16); row-major tiles.",
)
A5_BITWISE = ElementwiseRules(
    INT8 | INT16 | INT32, True, "npu/a5/TAnd.hpp, TOr.hpp, TAndS.hpp, TOrS.hpp: 1-, 2- and 4-byte integers; row-major "
    "tiles.",
)
A5_SHIFT = ElementwiseRules(
    INTEGERS, True, "npu/a5/TShl.hpp, TShr.hpp, TShlS.hpp, TShrS.hpp: 8- to 64-bit integers; row-major tiles.",
)
A5_REMAINDER_WIDE = ElementwiseRules(
    INT16 | INT32 | INT64 | HALF_FLOAT, True, "npu/a5/TRem.hpp, TRemS.hpp: 16- to 64-bit integers, half, float; "
    "row-major tiles; tmp unused.",
)
A5_POWER = ElementwiseRules(
    INT8 | INT16 | INT32 | HALF_FLOAT, True, "npu/a5/TPow.hpp: 8- to 32-bit integers, half, float (high_precision: "
    "half, bfloat16, float only); row-major tiles; tmp unused.", high_precision_types=FLOATS,
)
A5_UNARY = ElementwiseRules(HALF_FLOAT, True, "npu/a5/TUnaryOp.hpp (TUnaryCheck), TRsqrt.hpp: half, float; row-major tiles.")
A5_LEAKY_RELU = ElementwiseRules(HALF_FLOAT, True, "npu/a5/TLRelu.hpp: half and float (vlrelu); rows walked at RowStride.")

# ---------------------------------------------------------------------------
# The table: a row per instruction, a column per target

ROWS: dict[str, Row[ElementwiseRules]] = {
    # binary tile-tile
    "tadd": Row(CPU_ARITHMETIC, A2A3_ARITHMETIC, A5_ARITHMETIC),
    "tsub": Row(CPU_ARITHMETIC, A2A3_ARITHMETIC, A5_ARITHMETIC),
    "tmul": Row(CPU_ARITHMETIC, A2A3_ARITHMETIC, A5_WIDE_MULTIPLY),
    "tdiv": Row(CPU_ARITHMETIC, ElementwiseRules(
        HALF_FLOAT, True, "npu/a2a3/TDiv.hpp (TDivCheck): half and float only; row-major tiles."), A5_DIVISION),
    "tmax": Row(CPU_ARITHMETIC, A2A3_ARITHMETIC, A5_ARITHMETIC),
    "tmin": Row(CPU_ARITHMETIC, A2A3_ARITHMETIC, A5_ARITHMETIC),
    "tand": Row(CPU_BITWISE, A2A3_BITWISE, A5_BITWISE),
    "tor": Row(CPU_BITWISE, A2A3_BITWISE, A5_BITWISE),
    "tshl": Row(CPU_BITWISE, A2A3_BITWISE, A5_SHIFT),
    "tshr": Row(CPU_BITWISE, A2A3_BITWISE, A5_SHIFT),
    "tfmod": Row(CPU_ARITHMETIC, A2A3_FLOAT_REMAINDER, ElementwiseRules(
        types_named("i16", "si16", "ui16", "i32", "si32", "ui32", "f16", "f32"), True,
        "npu/a5/TFMod.hpp: half, float, 16- and 32-bit integers; row-major tiles.")),
    "trem": Row(CPU_ARITHMETIC, A2A3_REMAINDER, A5_REMAINDER_WIDE),
    "txor": Row(CPU_BITWISE, A2A3_XOR, A5_BITWISE),
    "tpow": Row(CPU_ARITHMETIC, A2A3_POWER, A5_POWER),
    "tsubrelu": Row(
        replace(CPU_ARITHMETIC, note="cpu/ElementTileOp.h BINARY_OP_DEF(SUBRELU): ReLU(src0 - src1) in any type and layout."),
        ElementwiseRules(HALF_FLOAT, True, "npu/a2a3/TSubRelu.hpp (TSubReluCheck): half, float (vsubrelu); row-major tiles."),
        ElementwiseRules(HALF_FLOAT, True, "npu/a5/TSubRelu.hpp (TSubReluCheck): half, float (vsub, then vrelu); row-major "
                         "tiles."),
    ),
    # tile-scalar
    "tadds": Row(CPU_SCALAR_ROW_MAJOR, A2A3_SCALAR_ARITHMETIC, A5_SCALAR_ARITHMETIC),
    "tsubs": Row(CPU_ARITHMETIC, A2A3_SCALAR_ARITHMETIC, A5_SCALAR_ARITHMETIC),
    "tmuls": Row(CPU_SCALAR_ROW_MAJOR, A2A3_SCALAR_ARITHMETIC, A5_WIDE_MULTIPLY),
    "tdivs": Row(CPU_SCALAR_ROW_MAJOR, A2A3_SCALAR_ARITHMETIC, A5_DIVISION),
    "tmaxs": Row(CPU_SCALAR_ROW_MAJOR, A2A3_SCALAR_ARITHMETIC, A5_SCALAR_ARITHMETIC),
    "tmins": Row(CPU_ARITHMETIC, A2A3_SCALAR_ARITHMETIC, A5_SCALAR_ARITHMETIC),
    "tands": Row(CPU_BITWISE, A2A3_BITWISE, A5_BITWISE),
    "tors": Row(CPU_BITWISE, A2A3_BITWISE, A5_BITWISE),
    "tshls": Row(CPU_BITWISE, A2A3_SCALAR_SHIFT, A5_SHIFT),
    "tshrs": Row(CPU_BITWISE, A2A3_SCALAR_SHIFT, A5_SHIFT),
    "tfmods": Row(CPU_ARITHMETIC, A2A3_FLOAT_REMAINDER, ElementwiseRules(
        HALF_FLOAT, True, "npu/a5/TFModS.hpp: half and float; rows walked at RowStride.")),
    "tlrelu": Row(CPU_SCALAR_ROW_MAJOR, ElementwiseRules(
        HALF_FLOAT, True, "npu/a2a3/TLRelu.hpp: half and float (vlrelu); rows walked at RowStride."), A5_LEAKY_RELU),
    "trems": Row(
        replace(CPU_ARITHMETIC, note="cpu/TBinSOps.hpp TREMS_IMPL (CONSTRAINT_VEC): any layout; tmp of dst's tile type "
                "(`TileDst& tmp`).", tmp=TMP_DST_TYPE),
        replace(A2A3_REMAINDER, note="npu/a2a3/TRemS.hpp: float and int32; row-major tiles; each row's quotients and "
                "compare mask go through tmp's first row (PTO_ASSERTs: tmp has at least 1 valid row and dst's valid "
                "columns).", tmp=TMP_ONE_ROW),
        A5_REMAINDER_WIDE,
    ),
    "txors": Row(
        replace(CPU_BITWISE, note="cpu/TBinSOps.hpp TXORS_IMPL (NO_CONSTRAINT): integers, any layout; tmp of dst's tile "
                "type (`TileDst& tmp`).", tmp=TMP_DST_TYPE),
        A2A3_XOR, A5_BITWISE,
    ),
    "tpows": Row(CPU_SCALAR_ROW_MAJOR, A2A3_POWER, A5_POWER),
    # fill
    "texpands": Row(
        ElementwiseRules(INTEGERS | FLOATS, False, "cpu/TExpands.hpp: a loop over dst's valid elements in any layout."),
        ElementwiseRules(INT8 | INT16 | INT32 | FLOATS, True, "npu/a2a3/TExpandS.hpp: 8- to 32-bit integers, half, "
                         "bfloat16, float; a Vec dst row-major."),
        ElementwiseRules(INTEGERS | FLOATS, True, "npu/a5/TExpandS.hpp: 8- to 64-bit integers, half, bfloat16, float; a "
                         "Vec dst row-major."),
    ),
    # unary
    "tabs": Row(
        ElementwiseRules(SIGNED | FLOATS, False, "cpu/TAbs.hpp (static_assert): int8/16/32, half, bfloat16, float."),
        A2A3_UNARY,
        ElementwiseRules(SIGNED | HALF_FLOAT, True, "npu/a5/TUnaryOp.hpp TABS (static_assert): int8/16/32, half, float "
                         "(PTOAS says f16/f32 only: the code wins)."),
    ),
    "tneg": Row(
        ElementwiseRules(INTEGERS | FLOATS, False, "cpu/ElementTileOp.h UNARY_OP_DEF(NEG): -src in any type."),
        ElementwiseRules(types_named("i16", "si16") | SIGNED32 | HALF_FLOAT, True, "npu/a2a3/TUnaryOp.hpp TNEG = "
                         "TMULS(src, -1): npu/a2a3/TMulS.hpp int16, int32, half, float."),
        ElementwiseRules(SIGNED | FLOATS, True, "npu/a5/TUnaryOp.hpp TNEG = TMULS(src, -1); the types PTOAS lists."),
    ),
    "tnot": Row(
        ElementwiseRules(INTEGERS, False, "cpu/ElementTileOp.h UNARY_OP_DEF(NOT): ~src, integers only."),
        ElementwiseRules(INT16 | INT32, True, "npu/a2a3/TUnaryOp.hpp TNOT: vnot on 16-bit lanes (32-bit halved); PTOAS "
                         "takes i16 only; 8-bit pairs bytes into 16-bit lanes, not taken here."),
        ElementwiseRules(INT8 | INT16 | INT32, True, "npu/a5/TUnaryOp.hpp TNOT (static_assert): 8-, 16-, 32-bit."),
    ),
    "texp": Row(CPU_TRANSCENDENTAL, A2A3_UNARY, A5_UNARY),
    "tlog": Row(CPU_TRANSCENDENTAL, A2A3_UNARY, A5_UNARY),
    "tsqrt": Row(CPU_TRANSCENDENTAL, A2A3_UNARY, A5_UNARY),
    "trsqrt": Row(
        ElementwiseRules(HALF_FLOAT, False, "cpu/TRSqrt.hpp (static_assert): half, float."),
        replace(A2A3_UNARY, note=A2A3_UNARY.note + " With a tmp, TRsqrtHighPrecision: 1.0 into tmp's first block, "
                "vsqrt, then vdiv by it.", tmp=TMP_ONE_BLOCK),
        A5_UNARY,
    ),
    "trecip": Row(
        ElementwiseRules(INTEGERS | FLOATS, True, "pto_instr.hpp TRECIP = TDIVS(dst, 1, src): cpu/TBinSOps.hpp OP_RDIVS, "
                         "row-major tiles (static_assert)."),
        ElementwiseRules(HALF_FLOAT, True, "pto_instr.hpp TRECIP = TDIVS(dst, 1, src): npu/a2a3/TDivS.hpp vector_dup "
                         "and vdiv; half, float as PTOAS says.", not_in_place="pto_instr.hpp: A3's TRECIP does not take "
                         "src and dst at the same memory (TDIVS writes the 1s into dst first)"),
        ElementwiseRules(HALF_FLOAT, True, "pto_instr.hpp TRECIP = TDIVS(dst, 1, src): npu/a5/TDivS.hpp vdiv; half, "
                         "float as PTOAS says."),
    ),
    "trelu": Row(
        ElementwiseRules(INTEGERS | FLOATS, False, "cpu/ElementTileOp.h UNARY_OP_DEF(RELU): std::max(src, 0)."),
        ElementwiseRules(SIGNED32 | HALF_FLOAT, True, "npu/a2a3/TUnaryOp.hpp TRELU (static_assert): half, float, int32."),
        ElementwiseRules(SIGNED32 | HALF_FLOAT, True, "npu/a5/TUnaryOp.hpp TRELU (static_assert): half, float, int32."),
    ),
}
"""Each elementwise instruction's rule row on each target, by mnemonic."""


def column(target: str) -> dict[Instruction, object]:
    """A target's rule row of every elementwise instruction (its rules.py adds them to RULES)."""
    return family_column((BINARY, TILE_SCALAR, FILL, UNARY), ROWS, target)
