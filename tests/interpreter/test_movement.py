"""
TMOV and TEXTRACT (Vec to Vec) on every target against formulas written here from pto-isa's
code: cpu/TMov.hpp and cpu/TExtract.hpp copy element by element (a dst of another type gets
C++'s conversion); npu/a2a3/TMov.hpp copies storage by 32-byte blocks (whole rows when dst's
valid columns are all its columns), npu/a5/TMov.hpp copies each row's valid columns; TEXTRACT
copies dst's valid region from src at the position on every target, whose bounds each checks.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np
import pytest

from pto_dialect import PtoError
from tests.interpreter.harness import NP, TARGETS, assert_bits_equal, constants, filled, func, random_values, run, seed, tile

COVERS = ("pto.tmov", "pto.textract", "pto.tinsert", "pto.tconcat")


def tmov(src: str, dst: str) -> str:
    return func([("s", src), ("d", dst)], f"pto.tmov ins(%s : {src}) outs(%d : {dst})")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", ["i8", "i16", "ui32", "f16", "bf16", "f32"])
def test_tmov_copies_a_whole_tile(target: str, dtype: str) -> None:
    cols = 64 // NP[dtype].itemsize
    t = tile((4, cols), dtype)
    src = random_values(np.random.default_rng(seed(target, dtype)), dtype, (4, cols))
    out = run(tmov(t, t), target, [src, filled((4, cols), dtype)])[-1]
    assert_bits_equal(out, src)


@pytest.mark.parametrize("target", TARGETS)
def test_tmov_partial_valid_columns(target: str) -> None:
    """8x20 valid of 16x32 f32: cpu and a5 copy the 20 columns, a2a3 each row's 80 bytes
    rounded up to 96 (24 columns)."""
    t = tile((16, 32), "f32", valid=(8, 20))
    src = np.arange(16 * 32, dtype=np.float32).reshape(16, 32)
    out = run(tmov(t, t), target, [src, filled((16, 32), "f32")])[-1]
    expected = filled((16, 32), "f32")
    copied = 24 if target == "a2a3" else 20
    expected[:8, :copied] = src[:8, :copied]
    assert_bits_equal(out, expected)


@pytest.mark.parametrize("target", TARGETS)
def test_tmov_smaller_valid_shape(target: str) -> None:
    """src valid 4x8, dst valid 6x16 (16x16 f16): cpu asserts the shapes are equal; a2a3 copies the
    smaller rows whole (dst's valid columns are all its columns), a5 the smaller rows and columns."""
    s, d = tile((16, 16), "f16", valid=(4, 8)), tile((16, 16), "f16", valid=(6, 16))
    src = random_values(np.random.default_rng(3), "f16", (16, 16))
    args = [src, filled((16, 16), "f16")]
    if target == "cpu":
        with pytest.raises(PtoError, match="expects src and dst to have the same valid shape, got 4x8 and 6x16"):
            run(tmov(s, d), target, args)
        return
    out = run(tmov(s, d), target, args)[-1]
    expected = filled((16, 16), "f16")
    cols = 16 if target == "a2a3" else 8
    expected[:4, :cols] = src[:4, :cols]
    assert_bits_equal(out, expected)


def test_tmov_cpu_unequal_valid_shapes_at_run_time() -> None:
    t = tile((8, 16), "f32", valid=("?", "?"))
    text = func([("n", "index")], constants(8, 16) + f"""
%s = pto.alloc_tile valid_row = %n valid_col = %c16 : {t}
%d = pto.alloc_tile valid_row = %c8 valid_col = %c16 : {t}
pto.tmov ins(%s : {t}) outs(%d : {t})""")
    with pytest.raises(PtoError, match=r"same valid shape, got 3x16 and 8x16 \(target cpu, run-time shapes\)"):
        run(text, "cpu", [np.int64(3)])


@pytest.mark.parametrize("target", TARGETS)
def test_tmov_column_major_storage(target: str) -> None:
    """A 16x2 col_major f32 tile of valid 5x2: cpu copies the 10 valid elements; a2a3's valid
    columns are all its columns: one burst of 2 * 5 elements rounded up to 32 bytes, the first 16
    of storage; a5 copies rows i at storage i .. i+1 (RowStride 1), storage 0 .. 5."""
    t = tile((16, 2), "f32", valid=(5, 2), blayout="col_major")
    src = np.arange(32, dtype=np.float32).reshape(2, 16).T.copy()  # storage k holds k
    out = run(tmov(t, t), target, [src, filled((16, 2), "f32")])[-1]
    storage = filled(32, "f32")
    if target == "cpu":
        expected = filled((16, 2), "f32")
        expected[:5] = src[:5]
    else:
        copied = 16 if target == "a2a3" else 6
        storage[:copied] = np.arange(copied, dtype=np.float32)
        expected = storage.reshape(2, 16).T
    assert_bits_equal(out, expected)


@pytest.mark.parametrize("target", TARGETS)
def test_tmov_layout_change(target: str) -> None:
    s, d = tile((8, 8), "f32"), tile((8, 8), "f32", blayout="col_major")
    src = np.arange(64, dtype=np.float32).reshape(8, 8)
    if target == "cpu":
        assert_bits_equal(run(tmov(s, d), target, [src, filled((8, 8), "f32")])[-1], src)
        return
    with pytest.raises(PtoError, match=f"same layout, which cannot convert .* \\(target {target}\\)"):
        run(tmov(s, d), target, [src, filled((8, 8), "f32")])


@pytest.mark.parametrize("target", TARGETS)
def test_tmov_element_type_change(target: str) -> None:
    """f32 -> i32: cpu converts (truncating; out of range the integer indefinite), the NPUs keep
    the bits; f32 -> f16: cpu rounds to nearest even, the NPUs refuse (another size)."""
    s, d = tile((1, 8), "f32"), tile((1, 8), "i32")
    src = np.array([[1.75, -1.75, 0.5, -0.0, 3e9, -3e9, np.nan, 7.0]], np.float32)
    out = run(tmov(s, d), target, [src, filled((1, 8), "i32")])[-1]
    if target == "cpu":
        expected = np.array([[1, -1, 0, 0, -(2**31), -(2**31), -(2**31), 7]], np.int32)
    else:
        expected = src.view(np.int32)
    assert_bits_equal(out, expected)
    h = tile((1, 16), "f16")
    s16 = tile((1, 16), "f32")
    wide = np.linspace(-3, 3, 16, dtype=np.float32).reshape(1, 16) / 3
    if target == "cpu":
        assert_bits_equal(run(tmov(s16, h), target, [wide, filled((1, 16), "f16")])[-1], wide.astype(np.float16))
    else:
        with pytest.raises(PtoError, match="element types of one size"):
            run(tmov(s16, h), target, [wide, filled((1, 16), "f16")])


def window(op: str, src: str, dst: str, at: tuple[int, int] | None = None) -> str:
    """`op` (textract, tinsert) at a constant position, or at %r, %c arguments when None."""
    args = [("s", src), ("d", dst)] + ([("r", "index"), ("c", "index")] if at is None else [])
    position = "%r, %c" if at is None else f"%c{at[0]}, %c{at[1]}"
    body = ("" if at is None else constants(*at) + "\n") + (
        f"pto.{op} ins(%s, {position} : {src}, index, index) outs(%d : {dst})")
    return func(args, body)


textract = partial(window, "textract")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", ["i8", "f16", "f32"])
def test_textract_copies_the_window(target: str, dtype: str) -> None:
    per_block = 32 // NP[dtype].itemsize
    cols = 4 * per_block
    s, d = tile((16, cols), dtype), tile((8, 2 * per_block), dtype, valid=(5, per_block + 2))
    src = random_values(np.random.default_rng(seed(target, dtype, "x")), dtype, (16, cols))
    out = run(textract(s, d, (3, per_block)), target, [src, filled((8, 2 * per_block), dtype)])[-1]
    expected = filled((8, 2 * per_block), dtype)
    expected[:5, : per_block + 2] = src[3:8, per_block : 2 * per_block + 2]
    assert_bits_equal(out, expected)


def check_window_positions(
    text: str, target: str, src: np.ndarray, dst_shape: tuple[int, int], expected: Callable[[int, int], np.ndarray], late: str
) -> None:
    """A 4x8 f32 window op taking (src, dst, row, col) run at (2, 16), inside; at (8, 0), past the
    valid rows (cpu asserts, with the message `late`); at (0, 4), not on a 32-byte block (a2a3's
    ND copy asserts). Where it runs, dst is `expected(row, col)`."""
    for (row, col), refusing, message in (
        ((2, 16), None, None), ((8, 0), "cpu", late), ((0, 4), "a2a3", "indexCol 4 is not a whole number of 32-byte blocks")
    ):
        args = [src, filled(dst_shape, "f32"), np.int64(row), np.int64(col)]
        if target == refusing:
            with pytest.raises(PtoError, match=message):
                run(text, target, args)
        else:
            assert_bits_equal(run(text, target, args)[1], expected(row, col))


@pytest.mark.parametrize("target", TARGETS)
def test_textract_dynamic_position_and_bounds(target: str) -> None:
    """Positions given at run time: a window inside; one past src's valid rows (cpu asserts, the
    NPUs check src's rows); one not on a 32-byte block (a2a3's ND copy asserts)."""
    s, d = tile((16, 32), "f32", valid=(10, 32)), tile((4, 8), "f32")
    src = np.arange(16 * 32, dtype=np.float32).reshape(16, 32)
    check_window_positions(
        textract(s, d), target, src, (4, 8), lambda row, col: src[row : row + 4, col : col + 8],
        "the 4x8 window at \\(8, 0\\) reaches past src's valid shape 10x32",
    )


@pytest.mark.parametrize("target", TARGETS)
def test_textract_one_element(target: str) -> None:
    """A 1x1 dst (a2a3 and a5: the scalar path, any column)."""
    s, d = tile((4, 16), "f32"), tile((1, 8), "f32", valid=(1, 1))
    src = np.arange(64, dtype=np.float32).reshape(4, 16)
    out = run(textract(s, d, (2, 5)), target, [src, filled((1, 8), "f32")])[-1]
    expected = filled((1, 8), "f32")
    expected[0, 0] = src[2, 5]
    assert_bits_equal(out, expected)


@pytest.mark.parametrize("target", TARGETS)
def test_textract_static_position_outside_src(target: str) -> None:
    s, d = tile((8, 16), "f32"), tile((4, 8), "f32")
    with pytest.raises(PtoError, match=r"expects indexRow \+ dst valid rows to be at most src rows, got 6 \+ 4 > 8"):
        run(textract(s, d, (6, 0)), target, [np.zeros((8, 16), np.float32), filled((4, 8), "f32")])


def tconcat(src0: str, src1: str, dst: str) -> str:
    return func([("a", src0), ("b", src1), ("d", dst)], f"pto.tconcat ins(%a, %b : {src0}, {src1}) outs(%d : {dst})")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", ["i8", "f16", "f32"])
def test_tconcat_places_src1_after_src0(target: str, dtype: str) -> None:
    """src0's 5 valid columns (not a whole block), src1's 7: cpu and a5 copy exactly those;
    a2a3 copies src0's rows in whole 32-byte blocks, then src1's element by element over them."""
    block = 32 // NP[dtype].itemsize
    a, b = tile((3, block), dtype, valid=(2, 5)), tile((3, block), dtype, valid=(2, 7))
    d = tile((3, 2 * block), dtype, valid=(2, 12))
    rng = np.random.default_rng(seed(target, dtype, "concat"))
    x, y = random_values(rng, dtype, (3, block)), random_values(rng, dtype, (3, block))
    out = run(tconcat(a, b, d), target, [x, y, filled((3, 2 * block), dtype)])[-1]
    expected = filled((3, 2 * block), dtype)
    if target == "a2a3":
        expected[:2, :block] = x[:2]
    expected[:2, :5] = x[:2, :5]
    expected[:2, 5:12] = y[:2, :7]
    assert_bits_equal(out, expected)


@pytest.mark.parametrize("target", TARGETS)
def test_tconcat_block_aligned_src0(target: str) -> None:
    """src0's valid columns a whole block (8 f32): a2a3 copies src1's rows in whole blocks too,
    the last running past dst's row into the next row's start (dst 2x16: row 0's blocks of src1
    reach columns 8..15, with 3 valid only)."""
    a, b = tile((2, 8), "f32"), tile((2, 8), "f32", valid=(2, 3))
    d = tile((2, 16), "f32", valid=(2, 11))
    x = np.arange(16, dtype=np.float32).reshape(2, 8)
    y = 100 + np.arange(16, dtype=np.float32).reshape(2, 8)
    out = run(tconcat(a, b, d), target, [x, y, filled((2, 16), "f32")])[-1]
    expected = filled((2, 16), "f32")
    expected[:, :8] = x
    expected[:, 8:11] = y[:, :3]
    if target == "a2a3":
        expected[:, 11:16] = y[:, 3:8]
    assert_bits_equal(out, expected)


@pytest.mark.parametrize("target", TARGETS)
def test_tconcat_valid_cols_rules(target: str) -> None:
    """dst's valid cols other than src0's plus src1's: cpu and a5 refuse; a2a3 does not read
    them (only that the sum fits in dst's cols)."""
    a, b, d = tile((2, 8), "f32", valid=(2, 4)), tile((2, 8), "f32", valid=(2, 4)), tile((2, 16), "f32", valid=(2, 12))
    args = [np.ones((2, 8), np.float32), np.full((2, 8), 2, np.float32), filled((2, 16), "f32")]
    if target == "a2a3":
        out = run(tconcat(a, b, d), target, args)[-1]
        assert (out[:, :4] == 1).all() and (out[:, 4:8] == 2).all()
        return
    with pytest.raises(PtoError, match=r"expects dst valid cols to be src0's plus src1's, got 12 and 4 \+ 4"):
        run(tconcat(a, b, d), target, args)


tinsert = partial(window, "tinsert")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", ["i8", "f16", "f32"])
def test_tinsert_places_the_window(target: str, dtype: str) -> None:
    per_block = 32 // NP[dtype].itemsize
    s, d = tile((8, 2 * per_block), dtype, valid=(5, per_block + 2)), tile((16, 4 * per_block), dtype)
    rng = np.random.default_rng(seed(target, dtype, "insert"))
    src = random_values(rng, dtype, (8, 2 * per_block))
    out = run(tinsert(s, d, (3, per_block)), target, [src, filled((16, 4 * per_block), dtype)])[-1]
    expected = filled((16, 4 * per_block), dtype)
    expected[3:8, per_block : 2 * per_block + 2] = src[:5, : per_block + 2]
    assert_bits_equal(out, expected)


@pytest.mark.parametrize("target", TARGETS)
def test_tinsert_dynamic_position_and_bounds(target: str) -> None:
    """A window inside dst; one past dst's valid rows (cpu asserts; the NPUs check dst's rows); one
    not on a 32-byte block (a2a3's ND copy asserts)."""
    s, d = tile((4, 8), "f32"), tile((16, 32), "f32", valid=(10, 32))
    text = tinsert(s, d)
    src = np.arange(32, dtype=np.float32).reshape(4, 8)

    def expected(row: int, col: int) -> np.ndarray:
        out = filled((16, 32), "f32")
        out[row : row + 4, col : col + 8] = src
        return out

    check_window_positions(text, target, src, (16, 32), expected, "the 4x8 window at \\(8, 0\\) reaches past dst's valid shape 10x32")


@pytest.mark.parametrize("target", TARGETS)
def test_tinsert_into_an_nz_tile(target: str) -> None:
    """Both NZ (col_major blocks of 16 x C0 row-major boxes): the window at a box corner."""
    s = tile((16, 8), "f32", blayout="col_major", slayout="row_major")
    d = tile((32, 16), "f32", blayout="col_major", slayout="row_major")
    src = np.arange(128, dtype=np.float32).reshape(16, 8)
    out = run(tinsert(s, d, (16, 8)), target, [src, filled((32, 16), "f32")])[-1]
    expected = filled((32, 16), "f32")
    expected[16:, 8:] = src
    assert_bits_equal(out, expected)


@pytest.mark.parametrize("dtype", ["!pto.hif8", "!pto.f4E2M1x2", "f8E4M3FN"])
def test_a5_tmov_copies_low_precision_bytes(dtype: str) -> None:
    """a5's TMovVecToVec has no element type assert: hif8, fp8 and packed fp4 bytes copy as they are."""
    t = tile((4, 32), dtype)
    storage = NP.get(dtype, np.dtype(np.uint8))  # hif8 and packed fp4 travel as their bytes
    src = np.random.default_rng(seed("a5", dtype)).integers(0, 256, (4, 32), dtype=np.uint8).view(storage)
    out = run(tmov(t, t), "a5", [src, np.zeros((4, 32), np.uint8).view(storage)])[-1]
    assert_bits_equal(out, src)
