"""The sync ops run as no-ops (a run is in program order); a dynamic event id outside the
target's range is a located fault."""

import numpy as np
import pytest

import interpreter
import pto_dialect
from pto_dialect.diagnostics import PtoError

KERNEL = """
func.func @copy(%ids: !pto.ptr<i32>, %out: !pto.ptr<i32>, %e: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a0 = arith.constant 0 : i64
  %iv = pto.make_tensor_view %ids, shape = [%c1, %c8], strides = [%c8, %c1] : !pto.tensor_view<1x8xi32>
  %ov = pto.make_tensor_view %out, shape = [%c1, %c8], strides = [%c8, %c1] : !pto.tensor_view<1x8xi32>
  %ip = pto.partition_view %iv, offsets = [%c0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<1x8xi32>
  %op = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<1x8xi32>
  %idx = pto.alloc_tile addr = %a0 : !pto.tile_buf<vec, 1x8xi32>
  pto.tload ins(%ip : !pto.partition_tensor_view<1x8xi32>) outs(%idx : !pto.tile_buf<vec, 1x8xi32>)
  pto.set_flag_dyn[<PIPE_MTE2>, <PIPE_MTE3>, %e]
  pto.wait_flag_dyn[<PIPE_MTE2>, <PIPE_MTE3>, %e]
  pto.tstore ins(%idx : !pto.tile_buf<vec, 1x8xi32>) outs(%op : !pto.partition_tensor_view<1x8xi32>)
  pto.barrier <PIPE_ALL>
  return
}
"""


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_sync_ops_change_nothing(target):
    ids = np.arange(8, dtype=np.int32) * 3 - 5
    out = interpreter.run(pto_dialect.parse(KERNEL), target, [ids, np.zeros(8, np.int32), np.array(7)])[1]
    assert out.tolist() == [-5, -2, 1, 4, 7, 10, 13, 16]


def test_dynamic_event_out_of_range_is_a_located_fault():
    with pytest.raises(PtoError, match=r"<string>:13:3: error: 'pto.set_flag_dyn' .*event id 8 is outside \[0, 7\] on target a2a3"):
        interpreter.run(pto_dialect.parse(KERNEL), "a2a3", [np.zeros(8, np.int32), np.zeros(8, np.int32), np.array(8)])
