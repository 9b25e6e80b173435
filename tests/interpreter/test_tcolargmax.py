"""
TCOLARGMAX on every target, against formulas written here from pto-isa's code (never from
pto_dialect/instructions/): the CPU simulator's TColReduceIdxImpl with `>`
(include/pto/cpu/TReduceIdx.hpp), a2a3's TColReduceIdx with vcmp_ge / vmax, a5's with
vcmp_gt.

    idx[0, j] = first i < vr with src[i, j] maximal;  val[0, j] = src[idx[0, j], j]

cpu / a5 compare natively (a NaN in row 0 sticks, later NaNs never win). a2a3 views
16/32-bit patterns as fp16/fp32 with denormals flushed to zero (the choice TCOLARGMIN
makes) and runs
  cur = x[0]; idx = 0; for i >= 1: if not (cur >= x[i]): idx = i; cur = vmax(cur, x[i])
with vmax propagating NaN; its 2-byte index-only row counter goes through fp16.
"""

from __future__ import annotations

import math
import operator
from functools import partial

import numpy as np
import pytest

from pto_dialect import PtoError
from tests.interpreter.test_tcolargmin import SRC_TYPES
from tests.interpreter.harness import (column_arg_golden, column_kernel, through_f16, NP, TARGETS, assert_bits_equal, filled, random_values, run, seed, tile)

COVERS = ("pto.tcolargmax",)
"""The instructions whose results these tests check against their own formulas, per target
(tests/test_registry.py: every instruction is covered on every target)."""

# the sources each target takes: TCOLARGMIN's (the same checks in every target's code)


golden_argmax = partial(column_arg_golden, operator.gt, operator.ge, max)


argmax_kernel = partial(column_kernel, "tcolargmax")


def run_columns(target: str, dtype: str, x: np.ndarray) -> np.ndarray:
    """x: rows x n (n <= one 32-byte row); returns idx[0, :n]."""
    rows, n = x.shape
    cols = 32 // NP[dtype].itemsize
    src = np.zeros((rows, cols), NP[dtype])
    src[:, :n] = x
    src_t, dst_t = tile((rows, cols), dtype, valid=(rows, n)), tile((1, 8), "i32", valid=(1, n))
    return run(argmax_kernel(src_t, [dst_t]), target, [src, filled((1, 8), "i32")])[-1][0, :n]


def from_bits(columns: list[list[int]], dtype: str) -> np.ndarray:
    return np.array(columns, dtype=f"u{NP[dtype].itemsize}").T.copy().view(NP[dtype])


# ---------------------------------------------------------------------------
# ties, NaN, signed zero, bit patterns


@pytest.mark.parametrize("target,dtype", [(t, d) for t in TARGETS for d in SRC_TYPES[t] if t != "a2a3" or d[0] == "f"])
def test_first_maximum_wins(target, dtype):
    columns = [[1, 3, 3, 2], [2, 2, 2, 2], [1, 2, 3, 4]]
    assert list(run_columns(target, dtype, np.array(columns, np.float64).T.astype(NP[dtype]))) == [1, 0, 3]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", ("f32", "f16"))
def test_nans(target, dtype):
    """{NaN,5,1,2} -> 0 on cpu / a5 (row 0 sticks), 3 on a2a3 (every row after the NaN
    replaces); {5,NaN,1,2} -> 0 vs 3; {5,NaN,1,7} -> 3 everywhere."""
    columns = [[math.nan, 5, 1, 2], [5, math.nan, 1, 2], [5, math.nan, 1, 7]]
    out = run_columns(target, dtype, np.array(columns, np.float64).T.astype(NP[dtype]))
    assert list(out) == ([3, 3, 3] if target == "a2a3" else [0, 0, 3])


@pytest.mark.parametrize("target", TARGETS)
def test_signed_zeros_tie(target):
    """-0 and +0 compare equal: the first row is kept, and its bits are the value."""
    x = np.array([[-0.0, 0.0], [0.0, -0.0]], np.float32)
    src_t = tile((2, 8), "f32", valid=(2, 2))
    val_t, idx_t = tile((1, 8), "f32", valid=(1, 2)), tile((1, 8), "i32", valid=(1, 2))
    src = np.zeros((2, 8), np.float32)
    src[:, :2] = x
    val, idx = run(argmax_kernel(src_t, [val_t, idx_t]), target, [src, filled((1, 8), "f32"), filled((1, 8), "i32")])[-2:]
    assert list(idx[0, :2]) == [0, 0]
    assert_bits_equal(val[0, :2], x[0])


@pytest.mark.parametrize("target", TARGETS)
def test_u16_sign_bit_patterns_lose_on_a2a3(target):
    """u16 {0x0400, 0x8400, 0x7C00}: cpu / a5 -> 1 (0x8400 is the largest u16); a2a3 reads
    6.1e-5, -6.1e-5, +inf -> 2. {0x0000, 0x8000}: 1 vs 0 (+0 and -0 tie on a2a3)."""
    x = from_bits([[0x0400, 0x8400, 0x7C00], [0x0000, 0x8000, 0x0000]], "ui16")
    want = [2, 0] if target == "a2a3" else [1, 1]
    assert list(run_columns(target, "ui16", x)) == want


@pytest.mark.parametrize("target", TARGETS)
def test_u32_sign_bit_patterns_lose_on_a2a3(target):
    x = from_bits([[0x00800000, 0x80800000, 0x7F800000], [0x00000000, 0x80000000, 0x00000000]], "ui32")
    assert list(run_columns(target, "ui32", x)) == ([2, 0] if target == "a2a3" else [1, 1])


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype,pair", (("f16", (0x0001, 0x0002)), ("f32", (0x00000002, 0x00000300))))
def test_denormals_flush_on_a2a3(target, dtype, pair):
    """a2a3 flushes denormals to zero: equal, first row kept; cpu / a5: the second is larger."""
    assert list(run_columns(target, dtype, from_bits([list(pair)], dtype))) == [0 if target == "a2a3" else 1]


# ---------------------------------------------------------------------------
# random data against the formulas, every source type, both forms

SHAPES = [(1, 1, 256, 255), (16, 16, 128, 127), (16, 15, 256, 255), (8, 5, 64, 10)]


def random_src(rng: np.random.Generator, target: str, dtype: str, shape) -> np.ndarray:
    dt = NP[dtype]
    if target == "a2a3" and dtype in ("ui16", "ui32"):  # normal fp16 / fp32 patterns, with ties
        base = 0x3C00 if dtype == "ui16" else 0x3F800000
        return rng.integers(base, base + 16, size=shape).astype(dt)
    if dt.kind == "i":
        return rng.integers(-100, 100, size=shape).astype(dt)
    if dt.kind == "u":
        return rng.integers(0, 10, size=shape).astype(dt)
    return random_values(rng, dtype, shape)


def index_type(target: str, dtype: str, value_form: bool) -> str:
    return "i16" if value_form and target != "cpu" and NP[dtype].itemsize == 2 else "i32"


@pytest.mark.parametrize("target,dtype", [(t, d) for t in TARGETS for d in SRC_TYPES[t]])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("value_form", (False, True))
def test_random(target, dtype, shape, value_form):
    if value_form and NP[dtype].itemsize == 1:
        pytest.skip("no 1-byte source in value+index form")
    rows, vr, cols, vc = shape
    rng = np.random.default_rng(seed("tcolargmax", target, dtype, shape, value_form))
    x = random_src(rng, target, dtype, (rows, cols))
    it = index_type(target, dtype, value_form)
    src_t, idx_t, val_t = tile((rows, cols), dtype, valid=(vr, vc)), tile((1, cols), it, valid=(1, vc)), \
        tile((1, cols), dtype, valid=(1, vc))
    outs, args = ([val_t, idx_t], [x, filled((1, cols), dtype), filled((1, cols), it)]) if value_form else \
        ([idx_t], [x, filled((1, cols), it)])
    res = run(argmax_kernel(src_t, outs), target, args)
    want = golden_argmax(target, x, vr, vc, value_form)
    expected = filled((1, cols), it)
    expected[0, :vc] = want
    assert_bits_equal(res[-1], expected)
    if value_form:
        expected_val = filled((1, cols), dtype)
        expected_val[0, :vc] = x[want, np.arange(vc)]
        assert_bits_equal(res[-2], expected_val)


@pytest.mark.parametrize("target", TARGETS)
def test_col_major_src(target):
    """cpu / a5 read a DN src through its layout; a2a3 addresses it row-major."""
    rows, cols = 8, 16
    x = np.random.default_rng(9).permutation(rows * cols).astype(np.float32).reshape(rows, cols)
    src_t, dst_t = tile((rows, cols), "f32", blayout="col_major"), tile((1, cols), "i32")
    out = run(argmax_kernel(src_t, [dst_t]), target, [x, filled((1, cols), "i32")])[-1]
    seen = x.T.ravel().reshape(rows, cols) if target == "a2a3" else x
    assert_bits_equal(out, golden_argmax(target, seen, rows, cols, False).astype(np.int32)[None, :])


@pytest.mark.parametrize("target", TARGETS)
def test_row_counter_beyond_2048_rows(target):
    """a2a3 2-byte index-only: the row index goes through fp16 (2049 -> 2048, 2051 -> 2052)."""
    rows, cols = 2056, 16
    dtype = "f16"
    maxima = [2049, 2051, 2050, 2048, 3, 2055, 2053, 0]
    x = np.full((rows, cols), 1.0, np.float16)
    for j, r in enumerate(maxima):
        x[r, j] = 2.0
    src_t, dst_t = tile((rows, cols), dtype, valid=(rows, 8)), tile((1, cols), "i32", valid=(1, 8))
    out = run(argmax_kernel(src_t, [dst_t]), target, [x, filled((1, cols), "i32")])[-1]
    assert list(out[0, :8]) == [through_f16(r) if target == "a2a3" else r for r in maxima]


@pytest.mark.parametrize("dtype", ("i32", "i16", "bf16"))
def test_a2a3_rejects_other_src_types(dtype):
    src_t, dst_t = tile((4, 32), dtype), tile((1, 32), "i32")
    with pytest.raises(PtoError, match="'pto.tcolargmax' op expects src element type to be ui16/ui32/f16/f32, got "):
        run(argmax_kernel(src_t, [dst_t]), "a2a3", [np.zeros((4, 32), NP[dtype]), np.zeros((1, 32), np.int32)])
