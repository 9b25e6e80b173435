"""
TPARTARGMAX / TPARTARGMIN on every target, against formulas written here from pto-isa's code:
cpu/TPartOp.hpp TPartInstr2 with TPartArgMax.hpp (src0 where src0 > src1: ties and NaN take
src1; one source valid: its value and index; neither: 0), npu/a2a3/TPartArgOp.hpp (vcmp_ge /
vcmp_le: ties take src0; the larger source copied in 32-byte blocks outside the overlap; half
values with 32-bit indices: only lanes 0-63 of each 128-lane repeat), npu/a5/TPartArgBinOps.hpp
(vcmp_gt(src1, src0): ties and NaN take src0; the larger source elsewhere in dst's valid region).
The formulas loop over elements: they restate the C++ loops.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interpreter.harness import NP, TARGETS, assert_bits_equal, func, run, seed, tile

COVERS = ("pto.tpartargmax", "pto.tpartargmin")
"""The instructions whose results these tests check against their own formulas, per target."""

PAIRS = {"cpu": [("f32", "i32"), ("f16", "i16"), ("i32", "ui32"), ("f16", "ui32")],
         "a2a3": [("f32", "i32"), ("f16", "i16"), ("f32", "ui32"), ("f16", "ui32")],
         "a5": [("f32", "i32"), ("f16", "i16"), ("f32", "ui32"), ("f16", "ui32")]}
"""(value, index) element types each target takes."""


def src0_wins(target: str, op: str, a, b) -> bool:
    better = (lambda x, y: x > y) if op == "tpartargmax" else (lambda x, y: x < y)
    if target == "cpu":
        return bool(better(a, b))
    if target == "a2a3":
        return bool(better(a, b) or a == b)  # vcmp_ge / vcmp_le
    return not better(b, a)


def expected(target: str, op: str, vals, idxs, valid, dst_val, dst_idx):
    (a, b), (ia, ib) = vals, idxs
    va, vb, vd = valid
    out_v, out_i = dst_val.copy(), dst_idx.copy()
    rows, cols = min(va[0], vb[0]), min(va[1], vb[1])
    if target == "cpu":
        for i in range(vd[0]):
            for j in range(vd[1]):
                in0, in1 = i < va[0] and j < va[1], i < vb[0] and j < vb[1]
                if in0 and in1:
                    w = src0_wins(target, op, a[i, j], b[i, j])
                    out_v[i, j], out_i[i, j] = (a[i, j], ia[i, j]) if w else (b[i, j], ib[i, j])
                elif in0 or in1:
                    out_v[i, j], out_i[i, j] = (a[i, j], ia[i, j]) if in0 else (b[i, j], ib[i, j])
                else:
                    out_v[i, j], out_i[i, j] = 0, 0
        return out_v, out_i
    big, big_i = (b, ib) if va[0] < vb[0] or va[1] < vb[1] else (a, ia)
    if target == "a2a3":
        if va != vb:  # the larger one copied: whole rows (dst and sources alike here)
            first = rows if va[1] == vb[1] else 0
            out_v[first:vd[0]] = big[first:vd[0]]
            out_i[first:vd[0]] = big_i[first:vd[0]]
    else:
        for i in range(vd[0]):
            for j in range(vd[1]):
                out_v[i, j], out_i[i, j] = big[i, j], big_i[i, j]
    half_wide = target == "a2a3" and a.itemsize == 2 and ia.itemsize == 4
    for i in range(rows):
        for j in range(cols):
            w = src0_wins(target, op, a[i, j], b[i, j])
            value_lane = not half_wide or j % 128 < 64 or j >= cols // 128 * 128
            index_lane = not half_wide or j % 128 < 64
            if value_lane:
                out_v[i, j] = a[i, j] if w else b[i, j]
            if index_lane:
                out_i[i, j] = ia[i, j] if w else ib[i, j]
    return out_v, out_i


def kernel(op: str, vt: str, it: str, shape, va, vb, vd) -> str:
    t0, t1, td = (tile(shape, vt, valid=v) for v in (va, vb, vd))
    i0, i1, idt = (tile(shape, it, valid=v) for v in (va, vb, vd))
    return func([("a", t0), ("b", t1), ("ia", i0), ("ib", i1), ("d", td), ("di", idt)],
                f"pto.{op} ins(%a, %b, %ia, %ib : {t0}, {t1}, {i0}, {i1}) outs(%d, %di : {td}, {idt})")


CASES = {
    "equal": ((3, 200), (3, 200), (3, 200)),
    "src1_short_of_rows": ((4, 150), (2, 150), (4, 150)),
    "src0_short_of_cols": ((4, 40), (4, 256), (4, 256)),
    "src1_short_of_both": ((4, 256), (1, 9), (4, 256)),
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", ["tpartargmax", "tpartargmin"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_partial_arg(target: str, op: str, case: str) -> None:
    va, vb, vd = CASES[case]
    shape = (4, 256)
    for vt, it in PAIRS[target]:
        rng = np.random.default_rng(seed(target, op, case, vt, it))
        a, b = (rng.integers(-3, 4, size=shape).astype(NP[vt]) for _ in range(2))
        if NP[vt].kind == "f":
            a[0, :3] = [np.nan, 1.0, np.nan]
            b[0, :3] = [1.0, np.nan, np.nan]
        ia, ib = (rng.integers(0, 1000, size=shape).astype(NP[it]) for _ in range(2))
        dv, di = np.full(shape, 9, NP[vt]), np.full(shape, 77, NP[it])
        got = run(kernel(op, vt, it, shape, va, vb, vd), target, [a, b, ia, ib, dv, di])
        want_v, want_i = expected(target, op, (a, b), (ia, ib), (va, vb, vd), dv, di)
        assert_bits_equal(got[4], want_v)
        assert_bits_equal(got[5], want_i)
