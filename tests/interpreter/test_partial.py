"""
The partial family on every target, against formulas written here from pto-isa's code:
cpu/TPartOp.hpp (over dst's valid region: f where both sources are valid, the valid one's
element where one is, 0 where neither; std::max / std::min), npu/a2a3/TPartOp.hpp (the source
with dst's valid shape is the larger; short of rows: f over the smaller one's rows, the larger
one's other rows copied in 32-byte blocks; short of columns: the larger one copied, then
f(smaller, dst)), npu/a5/TPartBinOps.hpp (f(src0, src1) over the overlap, the larger source
elsewhere in dst's valid region). The formulas loop over elements: they restate the C++ loops.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interpreter.harness import NP, TARGETS, assert_bits_equal, func, run, seed, tile

COVERS = ("pto.tpartadd", "pto.tpartmul", "pto.tpartmax", "pto.tpartmin")
"""The instructions whose results these tests check against their own formulas, per target."""

TYPES = {"cpu": ("i8", "i16", "i32", "f16", "bf16", "f32"), "a2a3": ("i16", "i32", "f16", "f32"),
         "a5": ("i8", "i16", "i32", "f16", "bf16", "f32")}


def std_max(a, b):
    return b if a < b else a


def std_min(a, b):
    return b if b < a else a


FORMULAS = {
    "tpartadd": lambda a, b: a + b,
    "tpartmul": lambda a, b: a * b,
    "tpartmax": std_max,
    "tpartmin": std_min,
}
"""Each member's operation on two elements (for NaN-free values every target's)."""

OLD = 7


def expected(target: str, op: str, a: np.ndarray, b: np.ndarray, va: tuple[int, int], vb: tuple[int, int],
             vd: tuple[int, int], old: np.ndarray) -> np.ndarray:
    f = FORMULAS[op]
    out = old.copy()
    dvr, dvc = vd
    with np.errstate(over="ignore"):
        if target == "cpu":
            for i in range(dvr):
                for j in range(dvc):
                    in0, in1 = i < va[0] and j < va[1], i < vb[0] and j < vb[1]
                    out[i, j] = f(a[i, j], b[i, j]) if in0 and in1 else a[i, j] if in0 else b[i, j] if in1 else 0
        elif target == "a2a3":
            big, small, vs = (a, b, vb) if va == vd else (b, a, va)
            size = a.itemsize
            copy_cols = a.shape[1] if old.shape[1] == big.shape[1] else -(-dvc * size // 32) * 32 // size
            if vs[1] == dvc and vs[0] < dvr:
                for i in range(vs[0]):
                    for j in range(dvc):
                        out[i, j] = f(big[i, j], small[i, j])
                for i in range(vs[0], dvr):
                    out[i, :copy_cols] = big[i, :copy_cols]
            elif vs[1] < dvc:
                for i in range(dvr):
                    out[i, :copy_cols] = big[i, :copy_cols]
                for i in range(vs[0]):
                    for j in range(vs[1]):
                        out[i, j] = f(small[i, j], out[i, j])
            else:
                for i in range(dvr):
                    for j in range(dvc):
                        out[i, j] = f(big[i, j], small[i, j])
        else:
            big = b if va[0] < vb[0] or va[1] < vb[1] else a
            for i in range(dvr):
                for j in range(dvc):
                    both = i < min(va[0], vb[0]) and j < min(va[1], vb[1])
                    out[i, j] = f(a[i, j], b[i, j]) if both else big[i, j]
    return out


def part_kernel(op: str, dtype: str, shape: tuple[int, int], va, vb, vd, in_place: bool = False) -> str:
    t0, t1, td = tile(shape, dtype, valid=va), tile(shape, dtype, valid=vb), tile(shape, dtype, valid=vd)
    if in_place:
        return func([("a", t0), ("b", t1)], f"pto.{op} ins(%a, %b : {t0}, {t1}) outs(%a : {t0})")
    return func([("a", t0), ("b", t1), ("d", td)], f"pto.{op} ins(%a, %b : {t0}, {t1}) outs(%d : {td})")


CASES = {
    "src1_short_of_rows": ((4, 24), (2, 24), (4, 24)),
    "src0_short_of_rows": ((1, 24), (4, 24), (4, 24)),
    "src1_short_of_cols": ((4, 24), (4, 5), (4, 24)),
    "src0_short_of_both": ((2, 9), (4, 24), (4, 24)),
    "equal": ((3, 20), (3, 20), (3, 20)),
}
"""(src0 valid, src1 valid, dst valid) in 4 x 32 tiles: shapes every target takes."""


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", sorted(FORMULAS))
@pytest.mark.parametrize("case", sorted(CASES))
def test_partial(target: str, op: str, case: str) -> None:
    va, vb, vd = CASES[case]
    for dtype in TYPES[target]:
        rng = np.random.default_rng(seed(target, op, case, dtype))
        shape = (4, 32)
        a = rng.integers(-50, 50, size=shape).astype(NP[dtype])
        b = rng.integers(-50, 50, size=shape).astype(NP[dtype])
        old = np.full(shape, OLD, NP[dtype])
        out = run(part_kernel(op, dtype, shape, va, vb, vd), target, [a, b, old])[-1]
        assert_bits_equal(out, expected(target, op, a, b, va, vb, vd, old))


@pytest.mark.parametrize("target", TARGETS)
def test_partial_copies_in_blocks_on_a2a3(target: str) -> None:
    """dst 4 x 40 f32 (30 valid columns) over a 4 x 48 src0 and a src1 of one row: a2a3 copies
    src0's other rows 30 columns rounded up to 32-byte blocks (32 columns, dst's and src0's
    Cols differing); cpu and a5 write dst's valid region only."""
    t0, t1 = tile((4, 48), "f32", valid=(4, 30)), tile((4, 48), "f32", valid=(1, 30))
    td = tile((4, 40), "f32", valid=(4, 30))
    text = func([("a", t0), ("b", t1), ("d", td)], f"pto.tpartadd ins(%a, %b : {t0}, {t1}) outs(%d : {td})")
    a = np.arange(192, dtype=np.float32).reshape(4, 48)
    old = np.full((4, 40), -1.0, np.float32)
    out = run(text, target, [a, np.ones((4, 48), np.float32), old])[-1]
    want = old.copy()
    want[0, :30] = a[0, :30] + 1
    copied = 32 if target == "a2a3" else 30
    want[1:, :copied] = a[1:, :copied]
    assert_bits_equal(out, want)


@pytest.mark.parametrize("target", TARGETS)
def test_partial_cpu_writes_zero_where_neither_source_is_valid(target: str) -> None:
    if target != "cpu":
        pytest.skip("a2a3 and a5 assert one source has dst's valid shape (the lit tests check the message)")
    out = run(part_kernel("tpartmul", "f32", (4, 16), (2, 16), (4, 8), (4, 16)), target,
              [np.full((4, 16), 2.0, np.float32), np.full((4, 16), 3.0, np.float32), np.full((4, 16), 9.0, np.float32)])[-1]
    want = np.zeros((4, 16), np.float32)
    want[:2, :8] = 6.0
    want[:2, 8:] = 2.0
    want[2:, :8] = 3.0
    assert_bits_equal(out, want)


@pytest.mark.parametrize("target", TARGETS)
def test_tpartmax_nan_and_signed_zero(target: str) -> None:
    """cpu: std::max(a, b) = (a < b) ? b : a keeps a NaN in src0, drops one in src1, keeps -0
    against +0; a2a3/a5 (approximate there): NaN propagates."""
    a = np.array([[np.nan, 1.0, -0.0, 0.0, 2.0, np.nan, 3.0, -1.0] * 2], np.float32)
    b = np.array([[1.0, np.nan, 0.0, -0.0, 1.0, np.nan, 4.0, -2.0] * 2], np.float32)
    out = run(part_kernel("tpartmax", "f32", (1, 16), (1, 16), (1, 16), (1, 16)), target,
              [a, b, np.zeros((1, 16), np.float32)])[-1]
    if target == "cpu":
        want = np.array([[std_max(x, y) for x, y in zip(a[0], b[0])]], np.float32)
    else:
        want = np.maximum(a, b)
    assert_bits_equal(out, want)


@pytest.mark.parametrize("target", TARGETS)
def test_tpartadd_in_place_over_the_larger_source(target: str) -> None:
    a = np.arange(64, dtype=np.float32).reshape(4, 16)
    b = np.full((4, 16), 0.5, np.float32)
    out = run(part_kernel("tpartadd", "f32", (4, 16), (4, 16), (2, 16), (4, 16), in_place=True), target, [a, b])[0]
    want = a.copy()
    want[:2] += 0.5
    assert_bits_equal(out, want)
