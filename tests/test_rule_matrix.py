"""
Which (op form, element type, target) combinations `pto-verify-target` accepts.

Every case builds a small module in-process, parses it with `pto_dialect.parse`
(which must succeed: the op is structurally valid everywhere) and runs
`passes.verify_target.verify_target(module, target)`. The expectation is the
literal `ACCEPTED` table below, written from the documents, not from
the rule tables (`targets/`):

  mgather     spec/mgather.md "Constraints"; semantics.md §1.6 (the code wins
              over the spec: float on A2/A3, §5); fp8/hif8 only in AI Core builds.
  tgather     semantics.md §2.1 (index: cpu any type with 4-byte indices, a2a3
              b16/b32, a5 b8/b16/b32/b64 with u16 indices for b8 data), §2.2
              (mask: cpu any same-size pair, a2a3 2/4 bytes, a5 1/2/4/8 bytes),
              §2.3 (compare: no cpu form; a2a3 f16/f32, i32 with EQ; a5
              i8/u8/i16/u16/i32/u32/f16/f32).
  trowargmin  pto-isa's TROWARGMIN.md (a2a3 half/float/int16/int32, a5 any 2/4-byte) and the
              simulator's CheckArgTiles (any integer, half, bfloat16, float; both forms).
  mscatter    pto-isa's MSCATTER.md "Supported data types" (cpu and a2a3 the 1/2/4-byte list, a5 also
              fp8/hif8).
  tscatter    pto-isa's TSCATTER.md (index and mask forms: the 1/2/4-byte list; 16-bit indexes
              for 1/2-byte data), the simulator's TScatter.hpp (mask form 2/4-byte only).
  tcolargmin  semantics.md §3 (cpu any integer/f16/bf16/f32, a2a3 f16/u16/f32/u32,
              a5 any 1/2/4-byte; value+index: no 1-byte src, 2-byte src takes
              16-bit indices on the NPUs and 32-bit ones on cpu); spec/tcolargmin.md.

Where the documents and the rule tables disagree the case is marked
`xfail(strict=True)` with the quote (`DISAGREEMENTS`), so it stays visible
until one side changes. `RULE_CASES` adds a few single-rule cases outside the
element-type matrix, for the same purpose.
"""

from __future__ import annotations

import pytest

import targets

from passes.verify_target import verify_target
from pto_dialect import PtoError, parse

TARGETS = targets.names()
TYPES = ("i8", "ui8", "i16", "ui16", "i32", "ui32", "f16", "bf16", "f32", "f8E4M3FN", "f8E5M2", "!pto.hif8")
WIDTHS = {1: "i8 ui8 f8E4M3FN f8E5M2 !pto.hif8", 2: "i16 ui16 f16 bf16", 4: "i32 ui32 f32"}
BYTES = {t: width for width, names in WIDTHS.items() for t in names.split()}

STD = "i8 ui8 i16 ui16 i32 ui32 f16 bf16 f32"
ALL = STD + " f8E4M3FN f8E5M2 !pto.hif8"
B16_B32 = "i16 ui16 i32 ui32 f16 bf16 f32"


def by_target(forms: tuple[str, ...], cpu: str, a2a3: str, a5: str) -> dict[tuple[str, str], str]:
    """(form, target) -> the types that target accepts, the same for each of `forms`."""
    return {(form, target): types for form in forms for target, types in (("cpu", cpu), ("a2a3", a2a3), ("a5", a5))}


# (form, target) -> the element types that target accepts; every other type of TYPES is rejected.
ACCEPTED: dict[tuple[str, str], str] = {
    # spec CPU list; fp8 "on the AI Core destination" only
    # semantics §1.6 a2a3: "int8/uint8/int16/uint16/int32/uint32/half/bfloat16/float"
    # semantics §1.6 a5: "same list + /hifloat8/float8_e4m3/float8_e5m2"
    **by_target(("mgather_row", "mgather_elem"), cpu=STD, a2a3=STD, a5=ALL),
    # semantics §2.1: cpu "dst = src type", a2a3 "b16/b32", a5 "b8/b16/b32/b64"
    **by_target(("tgather_index",), cpu=STD, a2a3=B16_B32, a5=ALL),
    # semantics §2.2 "Data: cpu any same-size pair; a2a3 2 or 4 bytes; a5 1, 2, 4"
    **by_target(("tgather_mask_row",), cpu=STD, a2a3=B16_B32, a5=ALL),
    # semantics §2.3: "cpu has no implementation"; a2a3 "f16, f32; i32 only with EQ";
    # a5 "i8, u8, i16, u16, i32, u32, f16, f32"
    **by_target(("tgather_compare_eq",), cpu="", a2a3="i32 f16 f32", a5="i8 ui8 i16 ui16 i32 ui32 f16 f32"),
    # semantics §3 "src dtypes": cpu "any integer, f16, bf16, f32", a2a3 "f16, u16, f32, u32",
    # a5 "any 1/2/4-byte"; pto-isa TCOLARGMAX: every target's code is TCOLARGMIN's with the
    # comparison reversed (the simulator's CheckArgTiles, a2a3 TColReduceIdxCheck "f16/u16/f32/u32",
    # a5 "b8/b16/b32")
    **by_target(("tcolargmin_index", "tcolargmax_index"), cpu=STD, a2a3="ui16 ui32 f16 f32", a5=ALL),
    # semantics §3 "value form": no 1-byte src (spec: "8-bit source types are not supported")
    **by_target(("tcolargmin_value", "tcolargmax_value"), cpu=B16_B32, a2a3="ui16 ui32 f16 f32", a5=B16_B32),
    # TROWARGMIN.md: "half, float, int32_t, int16_t (A2A3). On A5 any 2-/4-byte source"; the
    # simulator's CheckArgTiles: "integral, half, bfloat16_t, or float" (no width rule in either form)
    **by_target(
        tuple(f"{name}_{form}" for name in ("trowargmin", "trowargmax") for form in ("index", "value")),
        cpu=STD, a2a3="i16 i32 f16 f32", a5=B16_B32,
    ),
    # TSCATTER.md "Implementation checks": index and mask forms "int32_t, int16_t, int8_t, half,
    # float32_t, uint32_t, uint16_t, uint8_t, bfloat16_t" (a5 also 64-bit); the simulator's mask
    # form "src element type must be 16 or 32-bit wide", its index form any type
    **by_target(("tscatter_index",), cpu=STD, a2a3=STD, a5=STD),
    # MSCATTER.md "Supported data types": CPU and A2/A3 "int8_t ... bfloat16_t, float"; A5 the same
    # "+ hifloat8_t, float8_e4m3_t, float8_e5m2_t"
    **by_target(("mscatter_row", "mscatter_elem"), cpu=STD, a2a3=STD, a5=ALL),
    **by_target(("tscatter_mask_row",), cpu=B16_B32, a2a3=STD, a5=STD),
}

DISAGREEMENTS: dict[tuple[str, str, str], str] = {
    (f"{name}_index", "a5", "!pto.hif8"): (
        'semantics.md §3 gives the a5 TCOLARGMIN src dtypes as "any 1/2/4-byte" (code check '
        '"TCOLREDUCEIDX data type must be b8/b16/b32"); the a5 table rejects hif8 '
        '("no numeric model here"), a choice not listed in semantics.md §6'
    )
    for name in ("tcolargmin", "tcolargmax")
}


# ---------------------------------------------------------------------------
# module text of each form, for element type t on a target


def tile(shape: str, t: str, extra: str = "") -> str:
    return f"!pto.tile_buf<vec, {shape}x{t}{extra}>"


def func(args: list[tuple[str, str]], op: str) -> str:
    params = ", ".join(f"%{n}: {ty}" for n, ty in args)
    return f"func.func @k({params}) {{\n  {op}\n  return\n}}\n"


def tgather_index_dtype(t: str, target: str) -> str:
    """i32 indices where legal; a5 b8 data takes 16-bit indices (semantics §2.1)."""
    return "i16" if target == "a5" and BYTES[t] == 1 else "i32"


def tcolargmin_value_index_dtype(t: str, target: str) -> str:
    """cpu: always i32 (semantics §3); NPU: 16-bit for a src of at most 2 bytes, else 32-bit."""
    return "i32" if target == "cpu" or BYTES[t] == 4 else "i16"


def mgather_row(t: str, target: str) -> str:
    m, i, d = f"!pto.partition_tensor_view<64x32x{t}>", tile("1x8", "i32"), tile("8x32", t)
    op = f"pto.mgather ins(%m, %i : {m}, {i}) outs(%d : {d}) {{coalesce = #pto<coalesce row>}}"
    return func([("m", m), ("i", i), ("d", d)], op)


def mgather_elem(t: str, target: str) -> str:
    m, i, d = f"!pto.partition_tensor_view<1x2048x{t}>", tile("8x32", "i32"), tile("8x32", t)
    op = f"pto.mgather ins(%m, %i : {m}, {i}) outs(%d : {d}) {{coalesce = #pto<coalesce elem>}}"
    return func([("m", m), ("i", i), ("d", d)], op)


def tgather_index(t: str, target: str) -> str:
    it = tgather_index_dtype(t, target)
    s, i, tmp, d = tile("16x64", t), tile("8x32", it), tile("8x32", it), tile("8x32", t)
    op = f"pto.tgather ins(%s, %i, %t : {s}, {i}, {tmp}) outs(%d : {d})"
    return func([("s", s), ("i", i), ("t", tmp), ("d", d)], op)


def tgather_mask_row(t: str, target: str) -> str:
    s, d = tile("8x64", t), tile("8x32", t)
    op = f'pto.tgather ins(%s, {{maskPattern = #pto.mask_pattern<P0101>}} : {s}, "row") outs(%d : {d})'
    return func([("s", s), ("d", d)], op)


def tgather_compare_eq(t: str, target: str) -> str:
    s, tmp, d, c = tile("8x64", t), tile("8x128", "i32"), tile("8x64", "i32"), tile("8x8", "i32")
    op = f"pto.tgather ins(%s, %k, %t : {s}, {t}, {tmp}) outs(%d, %c : {d}, {c}) {{cmpMode = #pto<cmp eq>}}"
    return func([("s", s), ("k", t), ("t", tmp), ("d", d), ("c", c)], op)


def col_arg_index(name: str):
    def form(t: str, target: str) -> str:
        s, tmp, i = tile("16x32", t), tile("16x32", t), tile("1x32", "i32")
        return func([("s", s), ("t", tmp), ("i", i)], f"pto.{name} ins(%s, %t : {s}, {tmp}) outs(%i : {i})")

    return form


def col_arg_value(name: str):
    def form(t: str, target: str) -> str:
        it = tcolargmin_value_index_dtype(t, target)
        s, tmp, v, i = tile("16x32", t), tile("16x32", t), tile("1x32", t), tile("1x32", it)
        op = f"pto.{name} ins(%s, %t : {s}, {tmp}) outs(%v, %i : {v}, {i})"
        return func([("s", s), ("t", tmp), ("v", v), ("i", i)], op)

    return form


def row_arg_index(name: str):
    def form(t: str, target: str) -> str:
        s, i = tile("16x32", t), tile("16x1", "i32", ", blayout=col_major")
        return func([("s", s), ("i", i)], f"pto.{name} ins(%s : {s}) outs(%i : {i})")

    return form


def row_arg_value(name: str):
    def form(t: str, target: str) -> str:
        it = tcolargmin_value_index_dtype(t, target) if BYTES[t] != 1 else "i32"
        s, v, i = tile("16x32", t), tile("16x1", t, ", blayout=col_major"), tile("16x1", it, ", blayout=col_major")
        return func([("s", s), ("v", v), ("i", i)], f"pto.{name} ins(%s : {s}) outs(%v, %i : {v}, {i})")

    return form


def mscatter(mode: str):
    def form(t: str, target: str) -> str:
        s, i = tile("8x32", t), tile("1x8", "i32") if mode == "row" else tile("8x32", "i32")
        m = f"!pto.partition_tensor_view<64x32x{t}>" if mode == "row" else f"!pto.partition_tensor_view<1x2048x{t}>"
        op = f"pto.mscatter ins(%s, %i : {s}, {i}) outs(%m : {m}) {{coalesce = #pto<coalesce {mode}>}}"
        return func([("s", s), ("i", i), ("m", m)], op)

    return form


def tscatter_index(t: str, target: str) -> str:
    """16-bit indexes for 1/2-byte data, 32-bit for 4-byte (TSCATTER.md)."""
    it = "i16" if BYTES[t] <= 2 else "i32"
    s, i, d = tile("8x32", t), tile("8x32", it), tile("8x32", t)
    return func([("s", s), ("i", i), ("d", d)], f"pto.tscatter ins(%s, %i : {s}, {i}) outs(%d : {d})")


def tscatter_mask_row(t: str, target: str) -> str:
    s, d = tile("8x32", t), tile("8x64", t)
    op = f'pto.tscatter ins(%s, {{maskPattern = #pto.mask_pattern<P0101>}} : {s}, "row") outs(%d : {d})'
    return func([("s", s), ("d", d)], op)


FORMS = {
    "mgather_row": mgather_row,
    "mgather_elem": mgather_elem,
    "tgather_index": tgather_index,
    "tgather_mask_row": tgather_mask_row,
    "tgather_compare_eq": tgather_compare_eq,
    "tcolargmin_index": col_arg_index("tcolargmin"),
    "tcolargmin_value": col_arg_value("tcolargmin"),
    "tcolargmax_index": col_arg_index("tcolargmax"),
    "tcolargmax_value": col_arg_value("tcolargmax"),
    "trowargmin_index": row_arg_index("trowargmin"),
    "trowargmin_value": row_arg_value("trowargmin"),
    "trowargmax_index": row_arg_index("trowargmax"),
    "trowargmax_value": row_arg_value("trowargmax"),
    "mscatter_row": mscatter("row"),
    "mscatter_elem": mscatter("elem"),
    "tscatter_index": tscatter_index,
    "tscatter_mask_row": tscatter_mask_row,
}


def target_accepts(text: str, target: str) -> bool:
    module = parse(text, "matrix.pto")  # structural verification must pass on every target
    try:
        verify_target(module, target)
    except PtoError as e:
        assert str(e).endswith(f"(target {target})"), str(e)
        return False
    return True


def _matrix():
    for form in FORMS:
        for target in TARGETS:
            accepted = set(ACCEPTED[(form, target)].split())
            assert accepted <= set(TYPES), (form, target)
            for t in TYPES:
                marks = []
                if (reason := DISAGREEMENTS.get((form, target, t))) is not None:
                    marks.append(pytest.mark.xfail(strict=True, raises=AssertionError, reason=reason))
                yield pytest.param(form, target, t, t in accepted, id=f"{form}-{target}-{t}", marks=marks)


@pytest.mark.parametrize("form, target, elem, expected", list(_matrix()))
def test_rule_matrix(form: str, target: str, elem: str, expected: bool):
    text = FORMS[form](elem, target)
    assert target_accepts(text, target) == expected, text


def test_matrix_covers_every_form_and_target():
    assert set(ACCEPTED) == {(f, t) for f in FORMS for t in TARGETS}
    assert {k[:2] for k in DISAGREEMENTS} <= set(ACCEPTED)


# ---------------------------------------------------------------------------
# single-rule cases outside the element-type matrix: rules the documents state
# outside the dtype lists (strict xfails where the tables still disagree)

MGATHER_EMPTY_DST_A2A3 = """
func.func @k(%m: !pto.partition_tensor_view<64x32xf16>, %i: !pto.tile_buf<vec, 1x8xi32, valid=1x0>,
             %d: !pto.tile_buf<vec, 8x32xf16, valid=0x32>) {
  pto.mgather ins(%m, %i : !pto.partition_tensor_view<64x32xf16>, !pto.tile_buf<vec, 1x8xi32, valid=1x0>)
              outs(%d : !pto.tile_buf<vec, 8x32xf16, valid=0x32>) {coalesce = #pto<coalesce row>}
  return
}
"""

MGATHER_ROW_IDX_ROW_MAJOR_COLUMN = """
func.func @k(%m: !pto.partition_tensor_view<64x32xf16>, %i: !pto.tile_buf<vec, 8x8xi32, valid=8x1>,
             %d: !pto.tile_buf<vec, 8x32xf16>) {
  pto.mgather ins(%m, %i : !pto.partition_tensor_view<64x32xf16>, !pto.tile_buf<vec, 8x8xi32, valid=8x1>)
              outs(%d : !pto.tile_buf<vec, 8x32xf16>) {coalesce = #pto<coalesce row>}
  return
}
"""

TCOLARGMIN_SPEC_EXAMPLE_TMP = """
func.func @k(%s: !pto.tile_buf<vec, 16x256xf32, valid=16x255>, %t: !pto.tile_buf<vec, 1x32xf32>,
             %i: !pto.tile_buf<vec, 1x256xui32, valid=1x255>) {
  pto.tcolargmin ins(%s, %t : !pto.tile_buf<vec, 16x256xf32, valid=16x255>, !pto.tile_buf<vec, 1x32xf32>)
                 outs(%i : !pto.tile_buf<vec, 1x256xui32, valid=1x255>)
  return
}
"""

TCOLARGMIN_F16_VALUE_TMP_ONE_REGION = """
func.func @k(%s: !pto.tile_buf<vec, 16x128xf16>, %t: !pto.tile_buf<vec, 1x128xf16>,
             %v: !pto.tile_buf<vec, 1x128xf16>, %i: !pto.tile_buf<vec, 1x128xi16>) {
  pto.tcolargmin ins(%s, %t : !pto.tile_buf<vec, 16x128xf16>, !pto.tile_buf<vec, 1x128xf16>)
                 outs(%v, %i : !pto.tile_buf<vec, 1x128xf16>, !pto.tile_buf<vec, 1x128xi16>)
  return
}
"""

TGATHER_INDEX_I64_CPU = """
func.func @k(%s: !pto.tile_buf<vec, 4x16xi64>, %i: !pto.tile_buf<vec, 4x16xi32>, %d: !pto.tile_buf<vec, 4x16xi64>) {
  pto.tgather ins(%s, %i : !pto.tile_buf<vec, 4x16xi64>, !pto.tile_buf<vec, 4x16xi32>)
              outs(%d : !pto.tile_buf<vec, 4x16xi64>)
  return
}
"""

TGATHER_MASK_I64_CPU = """
func.func @k(%s: !pto.tile_buf<vec, 4x16xi64>, %d: !pto.tile_buf<vec, 4x8xi64>) {
  pto.tgather ins(%s, {maskPattern = #pto.mask_pattern<P0101>} : !pto.tile_buf<vec, 4x16xi64>, "row")
              outs(%d : !pto.tile_buf<vec, 4x8xi64>)
  return
}
"""

TCOLARGMIN_I64_CPU = """
func.func @k(%s: !pto.tile_buf<vec, 16x32xi64>, %i: !pto.tile_buf<vec, 1x32xi32>) {
  pto.tcolargmin ins(%s : !pto.tile_buf<vec, 16x32xi64>) outs(%i : !pto.tile_buf<vec, 1x32xi32>)
  return
}
"""

CPU_64BIT = "cpu tables use the common 1/2/4-byte list, but semantics.md says the CPU simulator takes "

RULE_CASES = [
    pytest.param(
        MGATHER_EMPTY_DST_A2A3,
        "a2a3",
        True,
        id="mgather-a2a3-empty-dst",
    ),
    pytest.param(
        MGATHER_ROW_IDX_ROW_MAJOR_COLUMN,
        "cpu",
        False,
        id="mgather-cpu-row-idx-row-major-Rx1",
    ),
    pytest.param(
        MGATHER_ROW_IDX_ROW_MAJOR_COLUMN,
        "a5",
        False,
        id="mgather-a5-row-idx-row-major-Rx1",
    ),
    pytest.param(
        TCOLARGMIN_SPEC_EXAMPLE_TMP,
        "a2a3",
        True,
        id="tcolargmin-a2a3-spec-example-tmp-1x32",
    ),
    pytest.param(
        TCOLARGMIN_F16_VALUE_TMP_ONE_REGION,
        "a2a3",
        False,
        id="tcolargmin-a2a3-f16-value-tmp-one-region",
        marks=pytest.mark.xfail(
            strict=True,
            raises=AssertionError,
            reason=(
                'spec/tcolargmin.md tmp table: "half | Value+index | Region 0 tmp | Region 1 tmp", '
                'and "Region 1 ([tmpGapEles, 2 * tmpGapEles)) ... For the half type, it is stored in tmp": '
                "2 * tmpGapEles = 256 elements; min_tmp_cols gives tmpGapEles = 128 (following the "
                'spec\'s contrary sentence "For other type/mode combinations, only region 0 is needed")'
            ),
        ),
    ),
    pytest.param(
        TGATHER_INDEX_I64_CPU,
        "cpu",
        True,
        id="tgather-cpu-index-i64",
    ),
    pytest.param(
        TGATHER_MASK_I64_CPU,
        "cpu",
        True,
        id="tgather-cpu-mask-i64",
    ),
    pytest.param(
        TCOLARGMIN_I64_CPU,
        "cpu",
        True,
        id="tcolargmin-cpu-i64",
    ),
]


@pytest.mark.parametrize("text, target, expected", RULE_CASES)
def test_rule_case(text: str, target: str, expected: bool):
    assert target_accepts(text, target) == expected, text
