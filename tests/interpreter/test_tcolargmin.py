"""
TCOLARGMIN on every target, against NumPy / Python formulas written here from
pto-isa's TCOLARGMIN code per target (never from pto_dialect/instructions/tcolargmin.py).

    idx[0, j] = first i < vr with src[i, j] minimal;  val[0, j] = src[idx[0, j], j]

cpu / a5 compare natively (a NaN in row 0 sticks, later NaNs never win). a2a3
views 16/32-bit patterns as fp16/fp32 with denormals flushed to zero and runs
  cur = x[0]; idx = 0; for i >= 1: if not (cur <= x[i]): idx = i; cur = vmin(cur, x[i])
with vmin propagating NaN; its 2-byte index-only row counter goes through fp16
(exact up to 2048 rows, then round-to-nearest-even).
"""

from __future__ import annotations

import math
import operator
from functools import partial

import numpy as np
import pytest

from pto_dialect import PtoError
from tests.interpreter.harness import (column_arg_golden, column_kernel, through_f16, FP8, NP, NPU, SENTINEL, TARGETS, assert_bits_equal, bits, constants, filled, func, random_values, run, seed, tensor_view, tile, view)

COVERS = ('pto.tcolargmin',)
"""The instructions whose results these tests check against their own formulas, per target
(tests/test_registry.py: every instruction is covered on every target)."""


# semantics.md §3: cpu any integer, f16, bf16, f32; a2a3 f16/u16/f32/u32; a5 any 1/2/4-byte
SRC_TYPES = {
    "cpu": ("i8", "ui8", "i16", "ui16", "i32", "ui32", "f16", "bf16", "f32"),
    "a2a3": ("f16", "ui16", "f32", "ui32"),
    "a5": ("i8", "ui8", "i16", "ui16", "i32", "ui32", "f16", "bf16", "f32", *FP8),
}

# ---------------------------------------------------------------------------
# the independent golden model


golden_argmin = partial(column_arg_golden, operator.lt, operator.le, min)


# ---------------------------------------------------------------------------
# kernels


argmin_kernel = partial(column_kernel, "tcolargmin")


def column_kernel_run(target: str, dtype: str, columns: list[list], idx_type: str = "i32") -> np.ndarray:
    """Each inner list is one column; returns idx[0, :ncols]."""
    x = np.array(columns, dtype=np.float64).T.astype(NP[dtype])
    rows, n = x.shape
    cols = 32 // NP[dtype].itemsize
    src = np.zeros((rows, cols), NP[dtype])
    src[:, :n] = x
    src_t = tile((rows, cols), dtype, valid=(rows, n))
    dst_t = tile((1, 8), idx_type, valid=(1, n))
    out = run(argmin_kernel(src_t, [dst_t]), target, [src, filled((1, 8), idx_type)])[-1]
    assert (out[0, n:] == SENTINEL).all()
    return out[0, :n]


def from_bits(patterns: list[int], dtype: str) -> np.ndarray:
    width = NP[dtype].itemsize
    return np.array(patterns, dtype=f"u{width}").view(NP[dtype])


def bit_columns_run(target: str, dtype: str, columns: list[list[int]]) -> np.ndarray:
    """Columns given as raw bit patterns of `dtype`."""
    rows = len(columns[0])
    cols = 32 // NP[dtype].itemsize
    src = np.zeros((rows, cols), NP[dtype])
    for j, col in enumerate(columns):
        src[:, j] = from_bits(col, dtype)
    n = len(columns)
    src_t = tile((rows, cols), dtype, valid=(rows, n))
    dst_t = tile((1, 8), "i32", valid=(1, n))
    return run(argmin_kernel(src_t, [dst_t]), target, [src, filled((1, 8), "i32")])[-1][0, :n]


# ---------------------------------------------------------------------------
# semantics.md §3 literal examples


@pytest.mark.parametrize("target,dtype", [(t, d) for t in TARGETS for d in SRC_TYPES[t] if t != "a2a3" or d[0] == "f"])
def test_first_minimum_wins_literal(target, dtype):
    """columns {3,1,1,2} -> 1."""
    assert list(column_kernel_run(target, dtype, [[3, 1, 1, 2], [2, 2, 2, 2], [4, 3, 2, 1]])) == [1, 0, 3]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", ("f32", "f16"))
def test_nan_literal_examples(target, dtype):
    """{NaN,2,0,0} -> 0 on cpu / a5, 3 on a2a3; {5,NaN,1,7} -> 2 vs 3."""
    out = column_kernel_run(target, dtype, [[math.nan, 2, 0, 0], [5, math.nan, 1, 7]])
    assert list(out) == ([3, 3] if target == "a2a3" else [0, 2])


@pytest.mark.parametrize("target,dtype", [
    pytest.param("cpu", "bf16"),
    pytest.param("a5", "bf16"),
    pytest.param("a5", "f8E4M3FN"),
    pytest.param("a5", "f8E5M2"),
])
def test_nan_low_precision_native(target, dtype):
    """The §3 NaN examples for the narrow float types the native compare handles."""
    out = column_kernel_run(target, dtype, [[math.nan, 2, 0, 0], [5, math.nan, 1, 7], [1, 2, math.nan, math.nan]])
    assert list(out) == [0, 2, 0]


@pytest.mark.parametrize("target", TARGETS)
def test_u16_bit_patterns(target):
    """u16 {0x0400, 0x8400, 0x7C00}: cpu / a5 -> 0; a2a3 reads 6.1e-5, -6.1e-5, +inf -> 1."""
    assert list(bit_columns_run(target, "ui16", [[0x0400, 0x8400, 0x7C00]])) == [1 if target == "a2a3" else 0]


@pytest.mark.parametrize("target", TARGETS)
def test_u32_bit_patterns(target):
    """The fp32 analogue: 0x00800000 (min normal), 0x80800000 (its negative), 0x7F800000 (+inf)."""
    assert list(bit_columns_run(target, "ui32", [[0x00800000, 0x80800000, 0x7F800000]])) == [1 if target == "a2a3" else 0]


@pytest.mark.parametrize("target", TARGETS)
def test_u16_large_patterns_misorder_on_a2a3(target):
    """Patterns >= 0x7C00 read as inf / NaN / negatives on a2a3 (a NaN replaces the index)."""
    columns = [[0x7000, 0x7E00, 0x0400], [0x5000, 0xC000, 0x4000], [0x7C00, 0x7BFF, 0x7C01]]
    want = {"a2a3": [2, 1, 2]}.get(target, [2, 2, 1])
    # a2a3: col0 8192, NaN, 6.1e-5: the NaN replaces (1), then row 2 replaces again (cur = NaN): 2;
    #       col1 32, -2, 2: -2.0 wins: 1; col2 +inf, 65504, NaN: 1, then the NaN replaces: 2
    # cpu / a5: unsigned 16-bit order
    assert list(bit_columns_run(target, "ui16", columns)) == want


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype,pair", (("f16", (0x0001, 0x8001)), ("f32", (0x00000001, 0x80000001)),
                                        ("f16", (0x0002, 0x0001)), ("f32", (0x00000300, 0x00000002))))
def test_denormals_flush_on_a2a3(target, dtype, pair):
    """a2a3 flushes denormals to +-0: both compare equal and the first row is kept;
    cpu / a5 compare the denormals natively (the second is smaller)."""
    assert list(bit_columns_run(target, dtype, [list(pair)])) == [0 if target == "a2a3" else 1]


@pytest.mark.parametrize("dtype,pair", (("ui16", (0x0002, 0x0001)), ("ui32", (0x00000300, 0x00000002))))
def test_a2a3_unsigned_denormal_patterns_flush(dtype, pair):
    """Small u16 / u32 values are denormal patterns on a2a3: flushed, equal, first row kept."""
    assert list(bit_columns_run("a2a3", dtype, [list(pair)])) == [0]
    assert list(bit_columns_run("a5", dtype, [list(pair)])) == [1]


# ---------------------------------------------------------------------------
# random data against the golden model, every dtype, index-only and value+index

SHAPES = [(1, 1, 256, 255), (16, 16, 128, 127), (16, 15, 256, 255), (8, 5, 64, 10)]


def random_src(rng: np.random.Generator, target: str, dtype: str, shape) -> np.ndarray:
    dt = NP[dtype]
    if target == "a2a3" and dtype == "ui16":  # normal fp16 patterns, with ties
        return rng.integers(0x3C00, 0x3C10, size=shape).astype(dt)
    if target == "a2a3" and dtype == "ui32":
        return rng.integers(0x3F800000, 0x3F800010, size=shape).astype(dt)
    if dt.kind == "i":
        return rng.integers(-100, 100, size=shape).astype(dt)
    if dt.kind == "u":
        return rng.integers(0, 10, size=shape).astype(dt)
    return random_values(rng, dtype, shape)


def random_cases(value_form: bool) -> list:
    cases = []
    for t in TARGETS:
        for d in SRC_TYPES[t]:
            if value_form and NP[d].itemsize == 1:
                continue
            for shape in SHAPES:
                cases.append(pytest.param(t, d, *shape))
    return cases


@pytest.mark.parametrize("target,dtype,rows,vr,cols,vc", random_cases(value_form=False))
@pytest.mark.parametrize("idx_type", ("i32", "ui32"))
def test_index_only_random(target, dtype, rows, vr, cols, vc, idx_type):
    rng = np.random.default_rng(seed(target, dtype, rows, vr, cols, vc))
    x = random_src(rng, target, dtype, (rows, cols))
    src_t = tile((rows, cols), dtype, valid=(vr, vc))
    dst_t = tile((1, cols), idx_type, valid=(1, vc))
    out = run(argmin_kernel(src_t, [dst_t]), target, [x, filled((1, cols), idx_type)])[-1]
    expected = filled((1, cols), idx_type)
    expected[0, :vc] = golden_argmin(target, x, vr, vc, value_form=False)
    assert_bits_equal(out, expected)


def value_index_type(target: str, dtype: str) -> str:
    return "i16" if target != "cpu" and NP[dtype].itemsize == 2 else "i32"


@pytest.mark.parametrize("target,dtype,rows,vr,cols,vc", random_cases(value_form=True))
def test_value_and_index_random(target, dtype, rows, vr, cols, vc):
    rng = np.random.default_rng(seed(target, dtype, rows, vr, cols, vc, "value"))
    x = random_src(rng, target, dtype, (rows, cols))
    it = value_index_type(target, dtype)
    src_t = tile((rows, cols), dtype, valid=(vr, vc))
    val_t, idx_t = tile((1, cols), dtype, valid=(1, vc)), tile((1, cols), it, valid=(1, vc))
    res = run(argmin_kernel(src_t, [val_t, idx_t]), target, [x, filled((1, cols), dtype), filled((1, cols), it)])
    val, idx = res[-2], res[-1]
    want_idx = golden_argmin(target, x, vr, vc, value_form=True)
    expected_idx, expected_val = filled((1, cols), it), filled((1, cols), dtype)
    expected_idx[0, :vc] = want_idx
    expected_val[0, :vc] = x[want_idx, np.arange(vc)]
    assert_bits_equal(idx, expected_idx)
    assert_bits_equal(val, expected_val)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", ("f32", "f16"))
def test_value_and_index_with_nans(target, dtype):
    columns = [[math.nan, 2, 0, 0], [5, math.nan, 1, 7], [4, 3, 2, 1], [1, 1, 1, 1]]
    x = np.array(columns, np.float64).T.astype(NP[dtype])
    cols = 32 // NP[dtype].itemsize
    src = np.zeros((4, cols), NP[dtype])
    src[:, :4] = x
    it = value_index_type(target, dtype)
    src_t = tile((4, cols), dtype, valid=(4, 4))
    val_t, idx_t = tile((1, cols), dtype, valid=(1, 4)), tile((1, cols), it, valid=(1, 4))
    res = run(argmin_kernel(src_t, [val_t, idx_t]), target, [src, filled((1, cols), dtype), filled((1, cols), it)])
    want = [3, 3, 3, 0] if target == "a2a3" else [0, 2, 3, 0]
    assert list(res[-1][0, :4]) == want
    assert_bits_equal(res[-2][0, :4], x[want, np.arange(4)])


# ---------------------------------------------------------------------------
# the a2a3 fp16 row counter beyond 2048 rows


MIN_ROWS = [2049, 2051, 2050, 2048, 3, 2055, 2053, 0]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", ("f16", "ui16", "f32"))
@pytest.mark.parametrize("value_form", (False, True))
def test_row_counter_beyond_2048_rows(target, dtype, value_form):
    """a2a3 2-byte index-only: 2049 -> 2048, 2051 -> 2052, 2055 -> 2056; exact otherwise."""
    if dtype not in SRC_TYPES[target]:
        pytest.skip(f"{dtype} is not a {target} tcolargmin source")
    rows, vr, cols = 2056, 2056, 32 // NP[dtype].itemsize
    big = np.array(0x4000 if dtype == "ui16" else 2.0).astype(NP[dtype])  # ui16 0x4000 = fp16 2.0
    small = np.array(0x3C00 if dtype == "ui16" else 1.0).astype(NP[dtype])
    x = np.full((rows, cols), big, NP[dtype])
    for j, r in enumerate(MIN_ROWS):
        x[r, j] = small
    it = value_index_type(target, dtype) if value_form else "i32"
    dst_t = tile((1, cols), it, valid=(1, 8))
    src_t = tile((rows, cols), dtype, valid=(vr, 8))
    if value_form:
        val_t = tile((1, cols), dtype, valid=(1, 8))
        res = run(argmin_kernel(src_t, [val_t, dst_t]), target, [x, filled((1, cols), dtype), filled((1, cols), it)])
    else:
        res = run(argmin_kernel(src_t, [dst_t]), target, [x, filled((1, cols), it)])
    rounding = target == "a2a3" and NP[dtype].itemsize == 2 and not value_form
    want = [through_f16(r) if rounding else r for r in MIN_ROWS]
    if rounding:
        assert want[:3] == [2048, 2052, 2050] and want[5] == 2056
    assert list(res[-1][0, :8]) == want
    if value_form:
        assert (bits(res[-2][0, :8]) == bits(small)).all()


# ---------------------------------------------------------------------------
# padding, layouts, tmp, dynamic valid shapes


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("value_form", (False, True))
def test_padded_outputs_untouched(target, value_form):
    """Only row 0, columns < vc of the outputs are written."""
    x = np.array(np.random.default_rng(7).integers(-50, 50, (8, 16)), np.float32)
    src_t = tile((8, 16), "f32", valid=(5, 10))
    idx_t = tile((2, 16), "i32", valid=(1, 10))
    val_t = tile((2, 16), "f32", valid=(1, 10))
    outs = [val_t, idx_t] if value_form else [idx_t]
    args = [x] + ([filled((2, 16), "f32")] if value_form else []) + [filled((2, 16), "i32")]
    res = run(argmin_kernel(src_t, outs), target, args)
    idx = res[-1]
    want = golden_argmin(target, x, 5, 10, value_form)
    expected = filled((2, 16), "i32")
    expected[0, :10] = want
    assert_bits_equal(idx, expected)
    if value_form:
        expected_val = filled((2, 16), "f32")
        expected_val[0, :10] = x[want, np.arange(10)]
        assert_bits_equal(res[-2], expected_val)


@pytest.mark.parametrize("target", TARGETS)
def test_col_major_src(target):
    """cpu / a5 read a DN (col-major) src through its layout; a2a3 accepts it but addresses
    it row-major (semantics.md §3 table): element (i, j) is storage[i * Cols + j]."""
    rows, cols = 8, 16
    x = np.random.default_rng(8).permutation(rows * cols).astype(np.float32).reshape(rows, cols)  # logical
    src_t = tile((rows, cols), "f32", blayout="col_major")
    dst_t = tile((1, cols), "i32")
    out = run(argmin_kernel(src_t, [dst_t]), target, [x, filled((1, cols), "i32")])[-1]
    if target == "a2a3":
        storage = x.T.ravel()  # col-major storage order
        seen = storage.reshape(rows, cols)  # addressed row-major
    else:
        seen = x
    assert_bits_equal(out, golden_argmin(target, seen, rows, cols, False).astype(np.int32)[None, :])


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", ("f16", "f32"))
def test_with_tmp_operand(target, dtype):
    """tmp (same type and shape as src, which a2a3 always accepts) does not change the result."""
    rng = np.random.default_rng(seed(target, dtype, "tmp"))
    x = random_values(rng, dtype, (16, 64))
    src_t, dst_t = tile((16, 64), dtype, valid=(13, 60)), tile((1, 64), "i32", valid=(1, 60))
    tmp_t = tile((16, 64), dtype, valid=(13, 60))
    tmp = filled((16, 64), dtype, 3)
    res = run(argmin_kernel(src_t, [dst_t], tmp=tmp_t), target, [x, tmp, filled((1, 64), "i32")])
    expected = filled((1, 64), "i32")
    expected[0, :60] = golden_argmin(target, x, 13, 60, False)
    assert_bits_equal(res[-1], expected)


@pytest.mark.parametrize("target,vr", [
    pytest.param(t, vr) for t in TARGETS for vr in (1, 7, 30)
])
def test_dynamic_valid_rows(target, vr):
    """Load vr (a run-time value) rows of a 30 x 64 f32 matrix into a 32 x 64 tile, argmin, store."""
    src_t = tile((32, 64), "f32", valid=("?", "?"))
    dst_t = tile((1, 64), "i32", valid=(1, "?"))
    body = f"""
{constants(0, 1, 30, 64)}
%xv = pto.make_tensor_view %x, shape = [%c30, %c64], strides = [%c64, %c1] : {tensor_view(2, "f32")}
%xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%vr, %vc] : {tensor_view(2, "f32")}
%iv = pto.make_tensor_view %idx, shape = [%c1, %c64], strides = [%c64, %c1] : {tensor_view(2, "i32")}
%ip = pto.partition_view %iv, offsets = [%c0, %c0], sizes = [%c1, %vc] : {tensor_view(2, "i32")}
%st = pto.alloc_tile valid_row = %vr valid_col = %vc : {src_t}
%dt = pto.alloc_tile valid_col = %vc : {dst_t}
pto.tload ins(%xp : {view(("?", "?"), "f32")}) outs(%st : {src_t})
pto.tcolargmin ins(%st : {src_t}) outs(%dt : {dst_t})
pto.tstore ins(%dt : {dst_t}) outs(%ip : {view((1, "?"), "i32")})
"""
    text = func([("x", "!pto.ptr<f32>"), ("idx", "!pto.ptr<i32>"), ("vr", "index"), ("vc", "index")], body)
    x = np.random.default_rng(vr).integers(-20, 20, (30, 64)).astype(np.float32)
    out = run(text, target, [x.ravel(), np.full(64, SENTINEL, np.int32), np.array(vr), np.array(50)])[1]
    expected = np.full(64, SENTINEL, np.int32)
    expected[:50] = golden_argmin(target, x, vr, 50, False)
    assert_bits_equal(out, expected)


# ---------------------------------------------------------------------------
# what each target rejects


@pytest.mark.parametrize("dtype", ("i32", "i16", "i8", "bf16"))
def test_a2a3_rejects_other_src_types(dtype):
    src_t, dst_t = tile((4, 32), dtype), tile((1, 32), "i32")
    with pytest.raises(PtoError, match="'pto.tcolargmin'"):
        run(argmin_kernel(src_t, [dst_t]), "a2a3", [np.zeros((4, 32), NP[dtype]), np.zeros((1, 32), np.int32)])


@pytest.mark.parametrize("target,idx_type", (("cpu", "i16"), ("a2a3", "i32"), ("a5", "i32")))
def test_value_form_2byte_index_type(target, idx_type):
    """A b16 value+index kernel: cpu wants an i32 / ui32 index, the NPUs i16 / ui16."""
    src_t, val_t, idx_t = tile((4, 16), "f16"), tile((1, 16), "f16"), tile((1, 16), idx_type)
    with pytest.raises(PtoError, match="'pto.tcolargmin'"):
        run(argmin_kernel(src_t, [val_t, idx_t]), target,
            [np.zeros((4, 16), np.float16), np.zeros((1, 16), np.float16), np.zeros((1, 16), NP[idx_type])])


@pytest.mark.parametrize("target", NPU)
def test_value_form_rejects_b8(target):
    src_t, val_t, idx_t = tile((4, 32), "i8"), tile((1, 32), "i8"), tile((1, 32), "i16")
    with pytest.raises(PtoError, match="'pto.tcolargmin'"):
        run(argmin_kernel(src_t, [val_t, idx_t]), target,
            [np.zeros((4, 32), np.int8), np.zeros((1, 32), np.int8), np.zeros((1, 32), np.int16)])


@pytest.mark.parametrize("target,dtype", [
    pytest.param(t, d) for t in TARGETS for d in ("f16", "f32")
])
def test_single_valid_row_is_index_zero(target, dtype):
    """vr = 1: every column's minimum is row 0 (a NaN included)."""
    assert list(column_kernel_run(target, dtype, [[5.0], [math.nan], [-1.0]])) == [0, 0, 0]
