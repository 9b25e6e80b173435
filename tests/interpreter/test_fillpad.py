"""
TFILLPAD (Vec) on every target against formulas written here from pto-isa's code: cpu/TFillPad.hpp
writes all of dst (src's valid region converted, the pad value elsewhere); npu/a2a3/TFillPad.hpp
copies src's valid rows whole, pads each from its valid columns rounded up to a 32-byte block
(the block's tail only when the pads differ; row 0 always) and dst's further valid rows;
npu/a5/TFillPad.hpp copies src's valid region and pads the rest of its rows and dst's further
valid rows. Rows past dst's valid rows keep their contents on the NPUs.
"""

from __future__ import annotations

import numpy as np
import pytest

from pto_dialect import PtoError
from tests.interpreter.harness import NP, TARGETS, assert_bits_equal, constants, filled, func, random_values, run, seed, tile

COVERS = ("pto.tfillpad",)


def pad_of(dtype: str, pad: int) -> float | int:
    """pto-isa's pad values: 1 zero, 2 max, 3 min (+-inf for floats, the integer limits)."""
    if pad == 1:
        return 0
    if dtype[0] in "fb":
        return np.inf if pad == 2 else -np.inf
    limits = np.iinfo(NP[dtype])
    return int(limits.max if pad == 2 else limits.min)


def expected(
    target: str, src: np.ndarray, dst: np.ndarray, src_valid: tuple[int, int], dst_valid: tuple[int, int],
    dst_pad: int, src_pad: int = 0,
) -> np.ndarray:  # fmt: skip
    """dst after TFILLPAD, element by element from each target's code (row-major tiles)."""
    dtype = dst.dtype
    value = np.asarray(pad_of(next(k for k, v in NP.items() if v == dtype), dst_pad)).astype(dtype)
    (vr, vc), (dvr, dvc) = src_valid, dst_valid
    i, j = np.indices(dst.shape)
    inside = (i < vr) & (j < vc)
    padded = np.zeros_like(dst)  # src at dst's positions
    padded[: src.shape[0], : src.shape[1]] = src
    if target == "cpu":
        if dvr == 0 or dvc == 0:
            return dst
        return np.where(inside, padded, value)
    out = dst.copy()
    if target == "a5":
        out[inside] = padded[inside]
        out[(i < vr) & (j >= vc)] = value
        out[(i >= vr) & (i < dvr)] = value
        return out
    if dvr == 0 or dvc == 0:
        return dst
    block = 32 // dtype.itemsize
    aligned = (vc + block - 1) // block * block
    copied = (i < vr) & (j < src.shape[1])
    out[copied] = padded[copied]
    if dst_pad != src_pad:
        out[(i < vr) & (j >= vc) & (j < aligned)] = value
    out[((i < vr) | (i == 0)) & (j >= aligned)] = value
    out[(i >= vr) & (i < dvr)] = value
    return out


def fillpad(src: str, dst: str) -> str:
    return func([("s", src), ("d", dst)], f"pto.tfillpad ins(%s : {src}) outs(%d : {dst})")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", ["i8", "ui8", "i16", "ui16", "i32", "ui32", "f16", "bf16", "f32"])
def test_tfillpad_pads_around_the_valid_region(target: str, dtype: str) -> None:
    """src valid 3x5 of 6x(2 blocks), dst the same shape, all valid, each pad."""
    cols = 64 // NP[dtype].itemsize
    s = tile((6, cols), dtype, valid=(3, 5))
    src = random_values(np.random.default_rng(seed(target, dtype)), dtype, (6, cols))
    for pad in (1, 2, 3):
        d = tile((6, cols), dtype, pad=str(pad))
        out = run(fillpad(s, d), target, [src, filled((6, cols), dtype)])[-1]
        assert_bits_equal(out, expected(target, src, filled((6, cols), dtype), (3, 5), (6, cols), pad))


@pytest.mark.parametrize("target", TARGETS)
def test_tfillpad_same_pads_keep_the_block_tail(target: str) -> None:
    """src and dst both pad=2: a2a3 leaves columns 5..7 (the rest of the 32-byte block) as the
    copy brought them; cpu and a5 pad them."""
    s, d = tile((4, 16), "f32", valid=(2, 5), pad="2"), tile((4, 16), "f32", pad="2")
    src = np.arange(64, dtype=np.float32).reshape(4, 16)
    out = run(fillpad(s, d), target, [src, filled((4, 16), "f32")])[-1]
    assert_bits_equal(out, expected(target, src, filled((4, 16), "f32"), (2, 5), (4, 16), 2, src_pad=2))
    if target == "a2a3":
        assert_bits_equal(out[:2, 5:8], src[:2, 5:8])


@pytest.mark.parametrize("target", TARGETS)
def test_tfillpad_expand(target: str) -> None:
    """src 4x8 (valid 3x5) into dst 8x32 (valid 6x20): the rows past dst's valid rows are kept by
    the NPUs, padded by cpu."""
    s, d = tile((4, 8), "f32", valid=(3, 5)), tile((8, 32), "f32", valid=(6, 20), pad="3")
    src = np.arange(32, dtype=np.float32).reshape(4, 8) + 1
    out = run(fillpad(s, d), target, [src, filled((8, 32), "f32")])[-1]
    assert_bits_equal(out, expected(target, src, filled((8, 32), "f32"), (3, 5), (6, 20), 3))


@pytest.mark.parametrize("target", TARGETS)
def test_tfillpad_in_place(target: str) -> None:
    """One tile as src and dst (the in-place form): its valid region stays, the rest is padded."""
    t = tile((4, 32), "i16", valid=(2, 7), pad="2")
    data = random_values(np.random.default_rng(seed(target, "in place")), "i16", (4, 32))
    out = run(func([("t", t)], f"pto.tfillpad ins(%t : {t}) outs(%t : {t})"), target, [data])[-1]
    assert_bits_equal(out, expected(target, data, data.copy(), (2, 7), (2, 7), 2, src_pad=2))


@pytest.mark.parametrize("target", TARGETS)
def test_tfillpad_element_type_change(target: str) -> None:
    """i32 src, f32 dst: cpu converts each value (C++'s int -> float), the NPUs copy the bits."""
    s, d = tile((2, 8), "i32", valid=(2, 3)), tile((2, 8), "f32", pad="1")
    src = np.array([[1, -2, 16777217, 9, 9, 9, 9, 9], [7, 0, -(2**31), 9, 9, 9, 9, 9]], np.int32)
    out = run(fillpad(s, d), target, [src, filled((2, 8), "f32")])[-1]
    copied = src.astype(np.float32) if target == "cpu" else src.view(np.float32)
    assert_bits_equal(out, expected(target, copied, filled((2, 8), "f32"), (2, 3), (2, 8), 1, src_pad=0))


def test_tfillpad_a5_dst_valid_rows_fewer_than_src_at_run_time() -> None:
    s, d = tile((8, 8), "f32", valid=("?", "?")), tile((8, 8), "f32", valid=("?", "?"), pad="1")
    text = func([("r", "index")], constants(4, 8) + f"""
%s = pto.alloc_tile valid_row = %c4 valid_col = %c8 : {s}
%d = pto.alloc_tile valid_row = %r valid_col = %c8 : {d}
pto.tfillpad ins(%s : {s}) outs(%d : {d})""")
    run(text, "a5", [np.int64(4)])
    with pytest.raises(PtoError, match=r"expects dst valid rows to be at least src's \(its bottom padding counts their difference unsigned\), got 3 and 4 \(target a5, run-time shapes\)"):
        run(text, "a5", [np.int64(3)])
    for target in ("cpu", "a2a3"):
        run(text, target, [np.int64(3)])


@pytest.mark.parametrize("target", TARGETS)
def test_tfillpad_col_major(target: str) -> None:
    """cpu reads and writes through the layout; the NPUs refuse it (their rows are at Cols)."""
    s, d = tile((8, 4), "f32", valid=(5, 3), blayout="col_major"), tile((8, 4), "f32", blayout="col_major", pad="1")
    src = np.arange(32, dtype=np.float32).reshape(8, 4)
    if target != "cpu":
        with pytest.raises(PtoError, match=f"expects src to be row-major ND \\(its code addresses row i at i \\* Cols\\), got .* \\(target {target}\\)"):
            run(fillpad(s, d), target, [src, filled((8, 4), "f32")])
        return
    out = run(fillpad(s, d), target, [src, filled((8, 4), "f32")])[-1]
    assert_bits_equal(out, expected(target, src, filled((8, 4), "f32"), (5, 3), (8, 4), 1))


@pytest.mark.parametrize("target", TARGETS)
def test_tfillpad_no_valid_src_rows(target: str) -> None:
    """src with 0 valid rows (given at run time): the NPUs pad dst's valid rows, cpu all of dst."""
    s, d = tile((4, 16), "f32", valid=("?", "?")), tile((4, 16), "f32", valid=(2, 16), pad="1")
    text = func([("d", d)], constants(0, 3) + f"""
%s = pto.alloc_tile valid_row = %c0 valid_col = %c3 : {s}
pto.tfillpad ins(%s : {s}) outs(%d : {d})""")
    out = run(text, target, [filled((4, 16), "f32")])[-1]
    want = filled((4, 16), "f32")
    if target == "cpu":
        want[:] = 0
    else:
        want[:2] = 0
    assert_bits_equal(out, want)


@pytest.mark.parametrize("dtype", ["f8E4M3FN", "f8E5M2"])
def test_tfillpad_a5_fp8_pads_with_zero(dtype: str) -> None:
    """a5's PadValueMap pads fp8 with 0 whatever the tile's pad says (pad=2, max)."""
    s, d = tile((2, 32), dtype, valid=(1, 3)), tile((2, 32), dtype, pad="2")
    src = np.arange(64, dtype=np.uint8).reshape(2, 32).view(NP[dtype])
    out = run(fillpad(s, d), "a5", [src, filled((2, 32), dtype)])[-1]
    want = np.zeros((2, 32), np.uint8).view(NP[dtype])
    want[0, :3] = src[0, :3]
    assert_bits_equal(out, want)
