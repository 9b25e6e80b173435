"""pto.set_validshape on every target: the instructions after it see the new valid shape
(TADD over the first n rows, TSTORE of n rows), against NumPy; a computed shape beyond the
tile is a located run-time fault."""

from __future__ import annotations

import numpy as np
import pytest

import interpreter
from pto_dialect.diagnostics import PtoError
from tests.interpreter.harness import TARGETS
from tests.kernel_text import index_constants, kernel_file

TAIL = f"""\
func.func @tail(%src: !pto.ptr<f32>, %dst: !pto.ptr<f32>, %n: index) {{
{index_constants(0, 1, 8, 16)}
  %sv = pto.make_tensor_view %src, shape = [%c8, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %dv = pto.make_tensor_view %dst, shape = [%c8, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %a = pto.alloc_tile valid_row = %c8 valid_col = %c16 : !pto.tile_buf<vec, 8x16xf32, valid=?x?>
  %b = pto.alloc_tile valid_row = %c8 valid_col = %c16 : !pto.tile_buf<vec, 8x16xf32, valid=?x?>
  %sp = pto.partition_view %sv, offsets = [%c0, %c0], sizes = [%c8, %c16] : !pto.tensor_view<?x?xf32>
  pto.tload ins(%sp : !pto.partition_tensor_view<8x16xf32>) outs(%a : !pto.tile_buf<vec, 8x16xf32, valid=?x?>)
  pto.set_validshape %a, %n, %c16 : !pto.tile_buf<vec, 8x16xf32, valid=?x?>
  pto.set_validshape %b, %n, %c16 : !pto.tile_buf<vec, 8x16xf32, valid=?x?>
  pto.tadd ins(%a, %a : !pto.tile_buf<vec, 8x16xf32, valid=?x?>, !pto.tile_buf<vec, 8x16xf32, valid=?x?>) outs(%b : !pto.tile_buf<vec, 8x16xf32, valid=?x?>)
  %dp = pto.partition_view %dv, offsets = [%c0, %c0], sizes = [%n, %c16] : !pto.tensor_view<?x?xf32>
  pto.tstore ins(%b : !pto.tile_buf<vec, 8x16xf32, valid=?x?>) outs(%dp : !pto.partition_tensor_view<?x16xf32>)
  return
}}
"""


@pytest.fixture
def kernel(tmp_path):
    return kernel_file(tmp_path, TAIL, "tail.pto")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("n", [1, 3, 8])
def test_instructions_see_the_valid_shape_set(kernel, target, n):
    rng = np.random.default_rng(n)
    src = rng.standard_normal(128).astype(np.float32)
    dst = np.full(128, -7.0, np.float32)
    out = interpreter.run(kernel, target, [src, dst, np.array(n)])[1].reshape(8, 16)
    expected = dst.reshape(8, 16).copy()
    expected[:n] = src.reshape(8, 16)[:n] * 2  # the rows past n: not stored
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("target", TARGETS)
def test_a_valid_shape_beyond_the_tile_is_a_located_fault(kernel, target):
    with pytest.raises(PtoError, match=r"tail.pto:12:3: error: 'pto.set_validshape' op valid_row 9 is outside \[0, 8\] for a 8x16 tile"):
        interpreter.run(kernel, target, [np.zeros(128, np.float32), np.zeros(128, np.float32), np.array(9)])
