"""pto.subview on every target: windows of whole rows of a tile, read and written by the
instructions in place of the tile (against NumPy slicing); a window outside the tile and a
window the interpreter cannot run yet are located run-time errors."""

from __future__ import annotations

import numpy as np
import pytest

import interpreter
from pto_dialect.diagnostics import PtoError
from tests.interpreter.harness import TARGETS
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


COLUMNS = """\
func.func @columns(%t: !pto.tile_buf<vec, 16x16xf32>, %d: !pto.tile_buf<vec, 8x8xf32>, %c: index) {
  %c0 = arith.constant 0 : index
  %a = pto.subview %t[%c0, %c] sizes [8, 8] : !pto.tile_buf<vec, 16x16xf32> -> !pto.tile_buf<vec, 8x8xf32>
  pto.tadd ins(%a, %a : !pto.tile_buf<vec, 8x8xf32>, !pto.tile_buf<vec, 8x8xf32>) outs(%d : !pto.tile_buf<vec, 8x8xf32>)
  return
}
"""


@pytest.mark.parametrize("target", TARGETS)
def test_a_column_window_is_a_located_error(tmp_path, target):
    path = tmp_path / "columns.pto"
    path.write_text(COLUMNS)
    with pytest.raises(PtoError, match=r"columns.pto:3:3: error: 'pto.subview' op pto-run runs a subview of whole rows "
                       r"of an ND tile only \(column offset 0, the tile's width\); got columns \[0, 8\) of 16"):
        interpreter.run(str(path), target, [np.zeros((16, 16), np.float32), np.zeros((8, 8), np.float32), np.array(0)])


@pytest.mark.parametrize("target", TARGETS)
def test_a_column_offset_past_the_tile_is_a_located_fault(kernel, target):
    with pytest.raises(PtoError, match=r"halves.pto:13:3: error: 'pto.subview' op the window \[8, 24\) of dim 1 is outside the 16x16 tile"):
        _run(kernel, target, 0, 8)
