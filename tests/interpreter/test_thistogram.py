"""
THISTOGRAM on every target against a formula written here from pto-isa's code (cpu/THistogram.hpp,
npu/a5/THistogram.hpp and the a5 ST golden's ascending cumulative histogram): per valid row r of
src and each bin b, how many valid elements have the selected byte <= b and pass the filter (ui16
byte 0: the high byte equals idx[r, 0]; ui32 byte k < 3: the bytes above k equal idx rows 0, 1, 2
in turn, column 0). cpu stores row r's bins at dst's (r, b); a5 at storage element 256 * r + b;
a2a3 has no THISTOGRAM. Elements of dst beyond what is written keep their contents.
"""

from __future__ import annotations

import numpy as np
import pytest

from pto_dialect import PtoError
from tests.interpreter.harness import TARGETS, assert_bits_equal, constants, filled, func, gm_views, run, tensor_view, tile, view

COVERS = ("pto.thistogram",)

IMPLEMENTING = ("cpu", "a5")


def cumulative_counts(src: np.ndarray, idx: np.ndarray, byte: int, rows: int, cols: int) -> np.ndarray:
    """rows x 256: per row, for each bin b, the filtered valid elements whose byte is <= b."""
    values = src[:rows, :cols].astype(np.int64)
    selected = (values >> (8 * byte)) & 0xFF
    keep = np.ones_like(values, dtype=bool)
    if src.dtype == np.uint16 and byte == 0:
        keep = (values >> 8) == idx[:rows, 0:1].astype(np.int64)
    if src.dtype == np.uint32:
        for shift, row in zip(range(24, 8 * byte, -8), range(3)):
            keep &= ((values >> shift) & 0xFF) == int(idx[row, 0])
    bins = np.arange(256)
    return ((selected[:, None, :] <= bins[None, :, None]) & keep[:, None, :]).sum(axis=-1).astype(np.uint32)


def placed(counts: np.ndarray, dst_shape: tuple[int, int], target: str) -> np.ndarray:
    out = filled(dst_shape, "ui32")
    rows = counts.shape[0]
    if target == "cpu":
        out[:rows, :256] = counts
    else:
        flat = out.reshape(-1)
        flat[: rows * 256] = counts.reshape(-1)
    return out


def draw(shape: tuple[int, int], dtype: type, seed: int) -> np.ndarray:
    """Values whose bytes come from a few choices, so that filters match often."""
    rng = np.random.default_rng(seed)
    size = np.dtype(dtype).itemsize
    parts = rng.choice(np.array([0, 1, 7, 128, 255]), size=(*shape, size))
    weights = np.uint64(1) << (np.uint64(8) * np.arange(size, dtype=np.uint64))
    return (parts.astype(np.uint64) * weights).sum(axis=-1).astype(dtype)


def histogram_text(src_t: str, idx_t: str, dst_t: str, attrs: str) -> str:
    return func(
        [("s", src_t), ("i", idx_t), ("d", dst_t)],
        f"pto.thistogram ins(%s, %i : {src_t}, {idx_t}) outs(%d : {dst_t}){attrs}",
    )


@pytest.mark.parametrize("target", IMPLEMENTING)
@pytest.mark.parametrize("byte", [0, 1])
def test_ui16_rows_with_match_byte(target: str, byte: int) -> None:
    rows, cols, valid = 8, 64, (6, 50)
    src = draw((rows, cols), np.uint16, byte)
    idx = np.array([[0], [1], [7], [128], [255], [7], [0], [1]], np.uint8)
    src_t = tile((rows, cols), "ui16", valid=valid)
    idx_t = tile((rows, 1), "ui8", valid=(valid[0], 1), blayout="col_major")
    dst_t = tile((rows, 256), "ui32", valid=(valid[0], 256))
    out = run(histogram_text(src_t, idx_t, dst_t, f" {{byte = {byte} : i32}}"), target, [src, idx, filled((rows, 256), "ui32")])[2]
    assert_bits_equal(out, placed(cumulative_counts(src, idx, byte, *valid), (rows, 256), target))


@pytest.mark.parametrize("target", IMPLEMENTING)
@pytest.mark.parametrize("byte", [0, 1, 2, 3])
def test_ui32_cascaded_filter(target: str, byte: int) -> None:
    rows, cols, valid = 4, 300, (3, 290)
    src = draw((rows, cols), np.uint32, 10 + byte)
    filters = max(1, 3 - byte)
    idx = np.tile(np.array([[7], [255], [1]], np.uint8)[:filters], (1, cols))
    src[0, :5] = np.array([0x07FF0100, 0x07FF01FF, 0x07FF0180, 0x07000000, 0xFFFF01FF], np.uint32)
    src_t = tile((rows, cols), "ui32", valid=valid)
    idx_t = tile((filters, cols), "ui8")
    dst_t = tile((rows, 256), "ui32", valid=(valid[0], 256))
    out = run(histogram_text(src_t, idx_t, dst_t, f" {{byte = {byte} : i32}}"), target, [src, idx, filled((rows, 256), "ui32")])[2]
    assert_bits_equal(out, placed(cumulative_counts(src, idx, byte, *valid), (rows, 256), target))


@pytest.mark.parametrize("target", IMPLEMENTING)
@pytest.mark.parametrize(("legacy", "byte"), [("true", 1), ("false", 0)])
def test_legacy_is_msb_selects_the_byte(target: str, legacy: str, byte: int) -> None:
    src = draw((2, 32), np.uint16, 3)
    idx = np.array([[7], [255]], np.uint8)
    src_t, idx_t, dst_t = tile((2, 32), "ui16"), tile((2, 1), "ui8", blayout="col_major"), tile((2, 256), "ui32")
    out = run(histogram_text(src_t, idx_t, dst_t, f" {{isMSB = {legacy}}}"), target, [src, idx, filled((2, 256), "ui32")])[2]
    assert_bits_equal(out, placed(cumulative_counts(src, idx, byte, 2, 32), (2, 256), target))


@pytest.mark.parametrize("target", IMPLEMENTING)
def test_wide_dst_rows_as_each_target_stores_them(target: str) -> None:
    """dst of 512 cols: cpu writes row r at (r, b); a5 packs rows 256 elements apart."""
    src = draw((4, 32), np.uint32, 5)
    idx = np.zeros((1, 32), np.uint8)
    src_t, idx_t, dst_t = tile((4, 32), "ui32"), tile((1, 32), "ui8"), tile((4, 512), "ui32")
    out = run(histogram_text(src_t, idx_t, dst_t, " {byte = 3 : i32}"), target, [src, idx, filled((4, 512), "ui32")])[2]
    assert_bits_equal(out, placed(cumulative_counts(src, idx, 3, 4, 32), (4, 512), target))


@pytest.mark.parametrize("target", [t for t in TARGETS if t not in IMPLEMENTING])
def test_not_implemented_elsewhere(target: str) -> None:
    src_t, idx_t, dst_t = tile((2, 32), "ui16"), tile((2, 1), "ui8", blayout="col_major"), tile((2, 256), "ui32")
    with pytest.raises(PtoError, match=f"is not implemented: .* \\(target {target}\\)"):
        run(histogram_text(src_t, idx_t, dst_t, ""), target, [np.zeros((2, 32), np.uint16), np.zeros((2, 1), np.uint8), filled((2, 256), "ui32")])


@pytest.mark.parametrize("target", IMPLEMENTING)
def test_in_a_loop_each_iteration_counts_its_rows(target: str) -> None:
    """An scf.for over row blocks (the batcher may run its iterations as one array op)."""
    blocks, rows, cols = 4, 2, 32
    src_t, idx_t, dst_t = tile((rows, cols), "ui32"), tile((1, cols), "ui8"), tile((rows, 256), "ui32")
    body = constants(0, 1, rows, cols, 256, blocks, blocks * rows) + f"""
{gm_views([("x", "ui32", (blocks * rows, cols)), ("f", "ui8", (1, cols)), ("z", "ui32", (blocks * rows, 256))])}
%s = pto.alloc_tile : {src_t}
%i = pto.alloc_tile : {idx_t}
%d = pto.alloc_tile : {dst_t}
pto.tload ins(%fp : {view((1, cols), "ui8")}) outs(%i : {idx_t})
scf.for %k = %c0 to %c{blocks} step %c1 {{
  %r = arith.muli %k, %c{rows} : index
  %sp = pto.partition_view %xv, offsets = [%r, %c0], sizes = [%c{rows}, %c{cols}] : {tensor_view(2, "ui32")}
  %op = pto.partition_view %zv, offsets = [%r, %c0], sizes = [%c{rows}, %c256] : {tensor_view(2, "ui32")}
  pto.tload ins(%sp : {view((rows, cols), "ui32")}) outs(%s : {src_t})
  pto.thistogram ins(%s, %i : {src_t}, {idx_t}) outs(%d : {dst_t}) {{byte = 2 : i32}}
  pto.tstore ins(%d : {dst_t}) outs(%op : {view((rows, 256), "ui32")})
}}"""
    text = func([("x", "!pto.ptr<ui32>"), ("f", "!pto.ptr<ui8>"), ("z", "!pto.ptr<ui32>")], body)
    src = draw((blocks * rows, cols), np.uint32, 21)
    idx = np.full((1, cols), 7, np.uint8)
    out = run(text, target, [src.reshape(-1), idx.reshape(-1), np.zeros(blocks * rows * 256, np.uint32)])[2]
    expected = np.concatenate([cumulative_counts(src[b * rows : (b + 1) * rows], idx, 2, rows, cols) for b in range(blocks)])
    assert_bits_equal(out.reshape(blocks * rows, 256), expected)


@pytest.mark.parametrize("target", IMPLEMENTING)
def test_dst_valid_cols_given_at_run_time(target: str) -> None:
    """cpu asserts 256 valid bins, a5 (PTOAS) takes 0 or at least 256: checked when the valid
    shape is known, at run time here."""
    src_t, idx_t, dst_t = tile((2, 32), "ui16"), tile((2, 1), "ui8", blayout="col_major"), tile((2, 256), "ui32", valid=("?", "?"))
    text = func([("s", src_t), ("i", idx_t), ("n", "index")], f"""
%c2 = arith.constant 2 : index
%d = pto.alloc_tile valid_row = %c2 valid_col = %n : {dst_t}
pto.thistogram ins(%s, %i : {src_t}, {idx_t}) outs(%d : {dst_t})""")
    args = [draw((2, 32), np.uint16, 4), np.zeros((2, 1), np.uint8)]
    run(text, target, [*args, np.int64(256)])
    with pytest.raises(PtoError, match=f"expects dst valid cols to be {'at least 256' if target == 'cpu' else '0 or at least 256'} \\(.*\\), got 128 \\(target {target}, run-time shapes\\)"):
        run(text, target, [*args, np.int64(128)])
