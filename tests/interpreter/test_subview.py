"""pto.subview on every target: windows of whole rows and windows of columns of a tile (the tile's
row stride), read and written by the instructions in place of the tile (against NumPy slicing);
a window outside the tile is a located run-time error."""

from __future__ import annotations

import numpy as np
import pytest

import interpreter
import targets
from pto_dialect.diagnostics import PtoError
from tests.interpreter.harness import TARGETS, gm_views
from tests.kernel_text import index_constants, kernel_file

# out[0:8] = src[r:r+8] + src[8:16] (two windows of one 16x16 tile), then the window at r of a
# second tile receives the sum: its other rows stay as loaded
HALVES = f"""\
func.func @halves(%src: !pto.ptr<f32>, %dst: !pto.ptr<f32>, %r: index, %c: index) {{
{index_constants(0, 1, 8, 16)}
  %sv = pto.make_tensor_view %src, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %dv = pto.make_tensor_view %dst, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %t = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>
  %u = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>
  %sp = pto.partition_view %sv, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf32>
  pto.tload ins(%sp : !pto.partition_tensor_view<16x16xf32>) outs(%t : !pto.tile_buf<vec, 16x16xf32>)
  pto.tload ins(%sp : !pto.partition_tensor_view<16x16xf32>) outs(%u : !pto.tile_buf<vec, 16x16xf32>)
  %a = pto.subview %t[%r, %c] sizes [8, 16] : !pto.tile_buf<vec, 16x16xf32> -> !pto.tile_buf<vec, 8x16xf32>
  %b = pto.subview %t[%c8, %c0] sizes [8, 16] : !pto.tile_buf<vec, 16x16xf32> -> !pto.tile_buf<vec, 8x16xf32>
  %o = pto.subview %u[%r, %c0] sizes [8, 16] : !pto.tile_buf<vec, 16x16xf32> -> !pto.tile_buf<vec, 8x16xf32>
  pto.tadd ins(%a, %b : !pto.tile_buf<vec, 8x16xf32>, !pto.tile_buf<vec, 8x16xf32>) outs(%o : !pto.tile_buf<vec, 8x16xf32>)
  %dp = pto.partition_view %dv, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf32>
  pto.tstore ins(%u : !pto.tile_buf<vec, 16x16xf32>) outs(%dp : !pto.partition_tensor_view<16x16xf32>)
  return
}}
"""


@pytest.fixture
def kernel(tmp_path):
    return kernel_file(tmp_path, HALVES, "halves.pto")


def _run(kernel: str, target: str, r: int, c: int = 0) -> tuple[np.ndarray, np.ndarray]:
    src = np.random.default_rng(r).standard_normal(256).astype(np.float32)
    out = interpreter.run(kernel, target, [src, np.zeros(256, np.float32), np.array(r), np.array(c)])[1]
    return src.reshape(16, 16), out.reshape(16, 16)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("r", [0, 3, 8])
def test_windows_read_and_write_the_tile_rows(kernel, target, r):
    src, out = _run(kernel, target, r)
    expected = src.copy()
    expected[r : r + 8] = src[r : r + 8] + src[8:16]
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("target", TARGETS)
def test_a_window_outside_the_tile_is_a_located_fault(kernel, target):
    with pytest.raises(PtoError, match=r"halves.pto:13:3: error: 'pto.subview' op the window \[9, 17\) of dim 0 is outside the 16x16 tile"):
        _run(kernel, target, 9)


# Windows of columns: each is a tile at the window's address that keeps the tile's row stride (16),
# with a valid region (given or the window's) smaller than its storage. %t's columns [c, c+8) of rows
# [0, 8) and [8, 16) (vr x 6 valid) are added into columns [8-c, 16-c) of %u's rows [2, 2+vr) (vr x 6 valid); TEXP
# of a 4x8 corner of %t at [12, c] goes into rows [0, 4), columns [0, 8) of %u.
COLUMNS = f"""\
func.func @columns(%t: !pto.tile_buf<vec, 16x16xf32>, %u: !pto.tile_buf<vec, 16x16xf32>, %c: index, %vr: index) {{
{index_constants(0, 2, 6, 8, 12, 16)}
  %d = arith.subi %c8, %c : index
  %a = pto.subview %t[%c0, %c] sizes [8, 8] valid [%vr, %c6] : !pto.tile_buf<vec, 16x16xf32> -> !pto.tile_buf<vec, 8x8xf32, valid=?x?>
  %b = pto.subview %t[%c8, %c] sizes [8, 8] valid [%vr, %c6] : !pto.tile_buf<vec, 16x16xf32> -> !pto.tile_buf<vec, 8x8xf32, valid=?x?>
  %o = pto.subview %u[%c2, %d] sizes [8, 8] valid [%vr, %c6] : !pto.tile_buf<vec, 16x16xf32> -> !pto.tile_buf<vec, 8x8xf32, valid=?x?>
  pto.tadd ins(%a, %b : !pto.tile_buf<vec, 8x8xf32, valid=?x?>, !pto.tile_buf<vec, 8x8xf32, valid=?x?>) outs(%o : !pto.tile_buf<vec, 8x8xf32, valid=?x?>)
  %e = pto.subview %t[%c12, %c] sizes [4, 8] : !pto.tile_buf<vec, 16x16xf32> -> !pto.tile_buf<vec, 4x8xf32>
  %f = pto.subview %u[%c0, %c0] sizes [4, 8] : !pto.tile_buf<vec, 16x16xf32> -> !pto.tile_buf<vec, 4x8xf32>
  pto.texp ins(%e : !pto.tile_buf<vec, 4x8xf32>) outs(%f : !pto.tile_buf<vec, 4x8xf32>)
  return
}}
"""


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("c", "vr"), [(0, 8), (3, 5), (8, 1)])
def test_column_windows_read_and_write_with_the_tile_row_stride(tmp_path, target, c, vr):
    rng = np.random.default_rng(c)
    t = rng.standard_normal((16, 16)).astype(np.float32)
    u = rng.standard_normal((16, 16)).astype(np.float32)
    path = kernel_file(tmp_path, COLUMNS, "columns.pto")
    out = interpreter.run(path, target, [t, u, np.array(c), np.array(vr)])[1]
    d = 8 - c
    expected = u.copy()
    expected[2 : 2 + vr, d : d + 6] = t[0:vr, c : c + 6] + t[8 : 8 + vr, c : c + 6]
    expected[0:4, 0:8] = np.exp(t[12:16, c : c + 8].astype(np.float64))
    untouched = np.ones((16, 16), bool)
    untouched[0:4, 0:8] = False
    np.testing.assert_array_equal(out[untouched], expected[untouched])
    np.testing.assert_allclose(out[0:4, 0:8], expected[0:4, 0:8], rtol=2e-6)


# A window of columns of a tile placed in UB gathers from a window of another UB tile: the index form
# reads the source window's storage from its address on (its row stride is the tile's, 32).
GATHER = f"""\
func.func @gather(%src: !pto.ptr<f32>, %ids: !pto.ptr<i32>, %out: !pto.ptr<f32>, %c: index) {{
{index_constants(0, 1, 4, 8, 32)}
  %a0 = arith.constant 0 : i64
  %a4096 = arith.constant 4096 : i64
  %a8192 = arith.constant 8192 : i64
  %a12288 = arith.constant 12288 : i64
{gm_views([("src", "f32", (8, 32)), ("ids", "i32", (4, 8)), ("out", "f32", (8, 32))])}
  %s = pto.alloc_tile addr = %a0 : !pto.tile_buf<vec, 8x32xf32>
  %d = pto.alloc_tile addr = %a4096 : !pto.tile_buf<vec, 8x32xf32>
  %i = pto.alloc_tile addr = %a8192 : !pto.tile_buf<vec, 4x8xi32>
  %tmp = pto.alloc_tile addr = %a12288 : !pto.tile_buf<vec, 4x8xi32>
  pto.tload ins(%srcp : !pto.partition_tensor_view<8x32xf32>) outs(%s : !pto.tile_buf<vec, 8x32xf32>)
  pto.tload ins(%srcp : !pto.partition_tensor_view<8x32xf32>) outs(%d : !pto.tile_buf<vec, 8x32xf32>)
  pto.tload ins(%idsp : !pto.partition_tensor_view<4x8xi32>) outs(%i : !pto.tile_buf<vec, 4x8xi32>)
  %sw = pto.subview %s[%c1, %c] sizes [4, 8] : !pto.tile_buf<vec, 8x32xf32> -> !pto.tile_buf<vec, 4x8xf32>
  %dw = pto.subview %d[%c4, %c] sizes [4, 8] : !pto.tile_buf<vec, 8x32xf32> -> !pto.tile_buf<vec, 4x8xf32>
  pto.tgather ins(%sw, %i, %tmp : !pto.tile_buf<vec, 4x8xf32>, !pto.tile_buf<vec, 4x8xi32>, !pto.tile_buf<vec, 4x8xi32>) outs(%dw : !pto.tile_buf<vec, 4x8xf32>)
  pto.tstore ins(%d : !pto.tile_buf<vec, 8x32xf32>) outs(%outp : !pto.partition_tensor_view<8x32xf32>)
  return
}}
"""


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("c", [0, 8, 24])
def test_tgather_into_a_column_window_from_one(tmp_path, target, c):
    rng = np.random.default_rng(c)
    src = rng.standard_normal((8, 32)).astype(np.float32)
    ids = rng.integers(0, 4 * 32, size=(4, 8)).astype(np.int32)  # inside the source window's 4 rows
    path = kernel_file(tmp_path, GATHER, "gather.pto")
    out = interpreter.run(path, target, [src, ids, np.zeros((8, 32), np.float32), np.array(c)])[2]
    expected = src.copy()
    expected[4:8, c : c + 8] = src.reshape(-1)[32 + c + ids]
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("target", TARGETS)
def test_a_column_offset_past_the_tile_is_a_located_fault(kernel, target):
    with pytest.raises(PtoError, match=r"halves.pto:13:3: error: 'pto.subview' op the window \[8, 24\) of dim 1 is outside the 16x16 tile"):
        _run(kernel, target, 0, 8)


# A column-major tile's window of rows keeps the tile's column stride (16): rows [r, r+8) of %t
# moved into rows [8-r, 16-r) of %u, the rest of %u as given. On cpu, whose TMOV copies elements
# (a2a3 and a5 copy storage in 32-byte blocks from the window's address, and their elementwise ops
# take row-major tiles only).
ROWS_OF_DN = """\
func.func @rows_of_dn(%t: !pto.tile_buf<vec, 16x16xf32, blayout=col_major>, %u: !pto.tile_buf<vec, 16x16xf32, blayout=col_major>, %r: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %d = arith.subi %c8, %r : index
  %a = pto.subview %t[%r, %c0] sizes [8, 16] : !pto.tile_buf<vec, 16x16xf32, blayout=col_major> -> !pto.tile_buf<vec, 8x16xf32, blayout=col_major>
  %o = pto.subview %u[%d, %c0] sizes [8, 16] : !pto.tile_buf<vec, 16x16xf32, blayout=col_major> -> !pto.tile_buf<vec, 8x16xf32, blayout=col_major>
  pto.tmov ins(%a : !pto.tile_buf<vec, 8x16xf32, blayout=col_major>) outs(%o : !pto.tile_buf<vec, 8x16xf32, blayout=col_major>)
  return
}
"""


@pytest.mark.parametrize("r", [0, 5, 8])
def test_row_windows_of_a_column_major_tile(tmp_path, r):
    rng = np.random.default_rng(r)
    t = rng.standard_normal((16, 16)).astype(np.float32)
    u = rng.standard_normal((16, 16)).astype(np.float32)
    out = interpreter.run(kernel_file(tmp_path, ROWS_OF_DN, "dn.pto"), "cpu", [t, u, np.array(r)])[1]
    expected = u.copy()
    expected[8 - r : 16 - r] = t[r : r + 8]
    np.testing.assert_array_equal(out, expected)


# A window of an NZ tile (16x8 boxes for f32) at a computed column offset: off a box, a located
# fault; on one, TMOV moves its boxes to rows [16, 32) of the same columns (on cpu, as above).
BOXED = """\
func.func @boxed(%t: !pto.tile_buf<vec, 32x32xf32, blayout=col_major, slayout=row_major>, %c: index) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %a = pto.subview %t[%c0, %c] sizes [16, 8] : !pto.tile_buf<vec, 32x32xf32, blayout=col_major, slayout=row_major> -> !pto.tile_buf<vec, 16x8xf32, blayout=col_major, slayout=row_major>
  %b = pto.subview %t[%c16, %c] sizes [16, 8] : !pto.tile_buf<vec, 32x32xf32, blayout=col_major, slayout=row_major> -> !pto.tile_buf<vec, 16x8xf32, blayout=col_major, slayout=row_major>
  pto.tmov ins(%a : !pto.tile_buf<vec, 16x8xf32, blayout=col_major, slayout=row_major>) outs(%b : !pto.tile_buf<vec, 16x8xf32, blayout=col_major, slayout=row_major>)
  return
}
"""


@pytest.mark.parametrize("target", TARGETS)
def test_a_boxed_window_off_its_boxes_is_a_located_fault(tmp_path, target):
    with pytest.raises(PtoError, match=r"boxed.pto:4:3: error: 'pto.subview' op the window's offset 4 in dim 1 is not on a 16x8 box of the tile"):
        interpreter.run(kernel_file(tmp_path, BOXED, "boxed.pto"), target, [np.zeros((32, 32), np.float32), np.array(4)])


def test_a_boxed_window_of_whole_boxes(tmp_path):
    t = np.random.default_rng(1).standard_normal((32, 32)).astype(np.float32)
    out = interpreter.run(kernel_file(tmp_path, BOXED, "boxed.pto"), "cpu", [t, np.array(8)])[0]
    expected = t.copy()
    expected[16:32, 8:16] = t[0:16, 8:16]
    np.testing.assert_array_equal(out, expected)


# TMOV between a window of columns and a whole tile, both ways: each row from the window's row
# stride (the tile's, 32) to the other's (8), as pto-isa's TMOV copies rows of different strides.
MOVES = """\
func.func @moves(%t: !pto.tile_buf<vec, 4x32xf32>, %s: !pto.tile_buf<vec, 4x8xf32>, %c: index) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %a = pto.subview %t[%c0, %c] sizes [4, 8] : !pto.tile_buf<vec, 4x32xf32> -> !pto.tile_buf<vec, 4x8xf32>
  %b = pto.subview %t[%c0, %c16] sizes [4, 8] : !pto.tile_buf<vec, 4x32xf32> -> !pto.tile_buf<vec, 4x8xf32>
  pto.tmov ins(%a : !pto.tile_buf<vec, 4x8xf32>) outs(%s : !pto.tile_buf<vec, 4x8xf32>)
  pto.tmov ins(%s : !pto.tile_buf<vec, 4x8xf32>) outs(%b : !pto.tile_buf<vec, 4x8xf32>)
  return
}
"""


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("c", [0, 8, 24])
def test_tmov_out_of_and_into_column_windows(tmp_path, target, c):
    t = np.random.default_rng(c).standard_normal((4, 32)).astype(np.float32)
    t_out, s_out = interpreter.run(kernel_file(tmp_path, MOVES, "moves.pto"), target, [t, np.zeros((4, 8), np.float32), np.array(c)])[:2]
    np.testing.assert_array_equal(s_out, t[:, c : c + 8])
    expected = t.copy()
    expected[:, 16:24] = t[:, c : c + 8]
    np.testing.assert_array_equal(t_out, expected)


RETURNED = """\
func.func @corner(%t: !pto.tile_buf<vec, 16x16xf32>) -> !pto.tile_buf<vec, 4x8xf32> {
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %a = pto.subview %t[%c2, %c5] sizes [4, 8] : !pto.tile_buf<vec, 16x16xf32> -> !pto.tile_buf<vec, 4x8xf32>
  return %a : !pto.tile_buf<vec, 4x8xf32>
}
"""


@pytest.mark.parametrize("target", TARGETS)
def test_a_returned_column_window_is_its_rows_and_columns(tmp_path, target):
    t = np.arange(256, dtype=np.float32).reshape(16, 16)
    (result,) = interpreter.run_with_results(kernel_file(tmp_path, RETURNED, "corner.pto"), target, [t])[1]
    np.testing.assert_array_equal(result, t[2:6, 5:13])


# TRESHAPE of a window of columns reinterprets the storage from the window's address on (the tile's
# rows run on past the window's columns).
RESHAPED = """\
func.func @reshaped(%t: !pto.tile_buf<vec, 16x16xf32>) -> !pto.tile_buf<vec, 64x1xf32, blayout=col_major> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %a = pto.subview %t[%c0, %c8] sizes [8, 8] : !pto.tile_buf<vec, 16x16xf32> -> !pto.tile_buf<vec, 8x8xf32>
  %b = pto.treshape %a : !pto.tile_buf<vec, 8x8xf32> -> !pto.tile_buf<vec, 64x1xf32, blayout=col_major>
  return %b : !pto.tile_buf<vec, 64x1xf32, blayout=col_major>
}
"""


@pytest.mark.parametrize("target", TARGETS)
def test_treshape_of_a_column_window_is_the_storage_from_its_address(tmp_path, target):
    t = np.arange(256, dtype=np.float32).reshape(16, 16)
    (result,) = interpreter.run_with_results(kernel_file(tmp_path, RESHAPED, "reshaped.pto"), target, [t])[1]
    np.testing.assert_array_equal(result.ravel(), t.ravel()[8:72])


# A tile at the end of UB: its window of columns is a tile of the tile's shape at the window's
# address (PTOAS's lowering), which would end past UB: a located fault naming the bytes.
AT_THE_END = """\
func.func @at_the_end(%addr: i64) {
  %c8 = arith.constant 8 : index
  %t = pto.alloc_tile addr = %addr : !pto.tile_buf<vec, 16x16xf32>
  %a = pto.subview %t[%c8, %c8] sizes [8, 8] : !pto.tile_buf<vec, 16x16xf32> -> !pto.tile_buf<vec, 8x8xf32>
  return
}
"""


@pytest.mark.parametrize("target", TARGETS)
def test_a_window_tile_past_the_end_of_ub_is_a_located_fault(tmp_path, target):
    size = targets.get(target).on_chip_bytes["vec"]
    path = kernel_file(tmp_path, AT_THE_END, "end.pto")
    with pytest.raises(PtoError, match=rf"end.pto:4:3: error: 'pto.subview' op the window's 16x16 tile at element 136 of "
                       rf"the 16x16 tile runs past the end of its memory \(1024 bytes from byte {size - 1024 + 544} of {size}\)"):
        interpreter.run(path, target, [np.int64(size - 1024)])
