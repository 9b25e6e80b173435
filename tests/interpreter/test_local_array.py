"""The scalar unit's scaffolding on every target: local arrays (pto_dialect/ops/local_array.py)
against NumPy, with run-time faults for a computed index outside a dim and a read of an element
never set; cmo.cacheinvalid / fence.barrier_all leave a single core's values as program order
gives them (pto_dialect/ops/coherence.py); reserved buffers give their base address."""

from __future__ import annotations


import numpy as np
import pytest

import interpreter
from pto_dialect.diagnostics import PtoError
from tests.interpreter.harness import NP, TARGETS, gm_views
from tests.kernel_text import index_constants, kernel_file


def _transpose(dtype: str, rows: int, cols: int, read_cols: int) -> str:
    """dst = src (rows x cols) transposed through a cols x rows local array; reads read_cols columns."""
    return f"""
func.func @transpose(%src: !pto.ptr<{dtype}>, %dst: !pto.ptr<{dtype}>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = arith.constant {rows} : index
  %cols = arith.constant {cols} : index
  %read = arith.constant {read_cols} : index
  %a = pto.declare_local_array -> !pto.local_array<{cols}x{rows}x{dtype}>
  scf.for %i = %c0 to %rows step %c1 {{
    scf.for %j = %c0 to %cols step %c1 {{
      %k = arith.muli %i, %cols : index
      %f = arith.addi %k, %j : index
      %v = pto.load_scalar %src[%f] : !pto.ptr<{dtype}> -> {dtype}
      pto.local_array_set %a[%j, %i], %v : !pto.local_array<{cols}x{rows}x{dtype}>, {dtype}
    }}
  }}
  scf.for %j = %c0 to %read step %c1 {{
    scf.for %i = %c0 to %rows step %c1 {{
      %v = pto.local_array_get %a[%j, %i] : !pto.local_array<{cols}x{rows}x{dtype}> -> {dtype}
      %k = arith.muli %j, %rows : index
      %f = arith.addi %k, %i : index
      pto.store_scalar %v, %dst[%f] : !pto.ptr<{dtype}>, {dtype}
    }}
  }}
  return
}}
"""


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", ["i32", "f16", "bf16", "f32", "i8"])
def test_a_local_array_holds_what_was_set(tmp_path, target, dtype):
    src = np.random.default_rng(5).integers(-100, 100, (3, 4)).astype(NP[dtype])
    out = interpreter.run(kernel_file(tmp_path, _transpose(dtype, 3, 4, 4)), target, [src.reshape(-1), np.zeros(12, NP[dtype])])
    np.testing.assert_array_equal(out[1].reshape(4, 3), src.T, strict=True)


@pytest.mark.parametrize("target", TARGETS)
def test_a_computed_index_outside_its_dim_is_a_located_fault(tmp_path, target):
    path = kernel_file(tmp_path, _transpose("i32", 3, 4, 5))  # reads a fifth row of a 4-row array
    with pytest.raises(PtoError, match=r"kernel.pto:19:7: error: 'pto.local_array_get' op index 4 of dim 0 is outside \[0, 3\] for %a"):
        interpreter.run(path, target, [np.zeros(12, np.int32), np.zeros(15, np.int32)])


@pytest.mark.parametrize("target", TARGETS)
def test_reading_an_element_never_set_is_a_located_fault(tmp_path, target):
    text = """
func.func @unset(%dst: !pto.ptr<i32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = arith.constant 7 : i32
  %a = pto.declare_local_array -> !pto.local_array<2xi32>
  pto.local_array_set %a[%c0], %x : !pto.local_array<2xi32>, i32
  %v = pto.local_array_get %a[%c1] : !pto.local_array<2xi32> -> i32
  pto.store_scalar %v, %dst[%c0] : !pto.ptr<i32>, i32
  return
}
"""
    with pytest.raises(PtoError, match=r"kernel.pto:8:3: error: 'pto.local_array_get' op reads %a\[1\] before any pto.local_array_set wrote it"):
        interpreter.run(kernel_file(tmp_path, text), target, [np.zeros(1, np.int32)])


@pytest.mark.parametrize("target", TARGETS)
def test_a_scalar_read_after_invalidation_sees_what_the_dma_stored(tmp_path, target):
    """TSTORE writes GM, the scalar unit reads it back after dcci and a GM fence: on one core
    in program order the value is the stored one (the hardware's data cache is what the two
    ops keep coherent; the run models none)."""
    text = f"""
func.func @publish(%x: !pto.ptr<f32>, %out: !pto.ptr<f32>) attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
{index_constants(0, 1, 8)}
  %two = arith.constant 2.0 : f32
{gm_views([("x", "f32", (1, 8)), ("out", "f32", (1, 8))])}
  %t = pto.alloc_tile : !pto.tile_buf<vec, 1x8xf32>
  pto.tload ins(%xp : !pto.partition_tensor_view<1x8xf32>) outs(%t : !pto.tile_buf<vec, 1x8xf32>)
  pto.tmuls ins(%t, %two : !pto.tile_buf<vec, 1x8xf32>, f32) outs(%t : !pto.tile_buf<vec, 1x8xf32>)
  pto.tstore ins(%t : !pto.tile_buf<vec, 1x8xf32>) outs(%outp : !pto.partition_tensor_view<1x8xf32>)
  pto.fence.barrier_all #pto.fence_scope<gm>
  pto.cmo.cacheinvalid %out single_cache_line : !pto.ptr<f32>
  %v = pto.load_scalar %out[%c1] : !pto.ptr<f32> -> f32
  pto.store_scalar %v, %out[%c0] : !pto.ptr<f32>, f32
  return
}}
"""
    x = np.arange(8, dtype=np.float32)
    out = interpreter.run(kernel_file(tmp_path, text), target, [x, np.zeros(8, np.float32)])
    np.testing.assert_array_equal(out[1], np.array([2, 2, 4, 6, 8, 10, 12, 14], np.float32))


RESERVED = """
module {{
  func.func @consumer(%out: !pto.ptr<i32>) {{
    %c0 = arith.constant 0 : index
    %b = pto.reserve_buffer {{name = "fifo", size = 1024, location = #pto.address_space<vec>, {where}}} -> i32
    pto.store_scalar %b, %out[%c0] : !pto.ptr<i32>, i32
    return
  }}
  func.func @producer(%out: !pto.ptr<i32>) {{
    %c0 = arith.constant 0 : index
    %i = pto.import_reserved_buffer {{name = "fifo", peer_func = @consumer}} -> i32
    pto.store_scalar %i, %out[%c0] : !pto.ptr<i32>, i32
    return
  }}
}}
"""


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("entry", ["consumer", "producer"])
def test_a_reserved_buffer_is_its_base_address(tmp_path, target, entry):
    path = kernel_file(tmp_path, RESERVED.format(where="auto = false, base = 8192"))
    out = interpreter.run(path, target, [np.zeros(1, np.int32)], entry)
    assert int(out[0][0]) == 8192


@pytest.mark.parametrize("entry, line", [("consumer", 5), ("producer", 11)])
def test_an_auto_reserved_address_is_a_located_run_error(tmp_path, entry, line):
    path = kernel_file(tmp_path, RESERVED.format(where="auto = true"))
    with pytest.raises(PtoError, match=rf"kernel.pto:{line}:\d+: error: .* the address of reserve_buffer \"fifo\" \(auto = true\) is chosen by PTOAS's memory planning"):
        interpreter.run(path, "a5", [np.zeros(1, np.int32)], entry)
