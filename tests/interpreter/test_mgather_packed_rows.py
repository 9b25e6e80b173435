"""
a5 row-mode MGATHER reads table rows packed at the valid-column stride, so a table
view with inter-row padding is refused (pto-isa's MGATHER.md: "cannot have any inter-row
padding"); with a dynamic row stride the check runs on the actual stride, located at
the op. cpu and a2a3 read the view's rows: rows[r, :] = table[ids[r], :32].
"""

from __future__ import annotations

import numpy as np
import pytest

from pto_dialect import PtoError
from tests.interpreter.harness import TARGETS, assert_bits_equal, constants, func, gm_views, run, tile, view

IDX, ROWS = tile((1, 8), "i32"), tile((8, 32), "f32")
KERNEL = func(
    [("table", "!pto.ptr<f32>"), ("ids", "!pto.ptr<i32>"), ("out", "!pto.ptr<f32>"), ("stride", "index")],
    constants(0, 1, 8, 16, 32)
    + f"""
%tv = pto.make_tensor_view %table, shape = [%c16, %c32], strides = [%stride, %c1] : !pto.tensor_view<?x?xf32>
%tp = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c16, %c32] : !pto.tensor_view<?x?xf32>
{gm_views([("ids", "i32", (1, 8)), ("out", "f32", (8, 32))])}
%idx = pto.alloc_tile : {IDX}
%rows = pto.alloc_tile : {ROWS}
pto.tload ins(%idsp : {view((1, 8), "i32")}) outs(%idx : {IDX})
pto.mgather ins(%tp, %idx : {view((16, 32), "f32")}, {IDX}) outs(%rows : {ROWS}) {{coalesce = #pto<coalesce row>}}
pto.tstore ins(%rows : {ROWS}) outs(%outp : {view((8, 32), "f32")})
""",
)
MGATHER_LINE = 16


def gather(target: str, stride: int) -> np.ndarray:
    table = np.arange(16 * 64, dtype=np.float32)
    ids = np.array([[3, 0, 15, 7, 7, 1, 2, 9]], np.int32)
    out = run(KERNEL, target, [table, ids, np.zeros((8, 32), np.float32), np.int64(stride)])[2]
    window = table.reshape(16, 64)[:, :32] if stride == 64 else table[: 16 * 32].reshape(16, 32)
    assert_bits_equal(out, window[ids[0]])
    return out


@pytest.mark.parametrize("target", TARGETS)
def test_packed_rows_gather_everywhere(target: str) -> None:
    gather(target, 32)


@pytest.mark.parametrize("target", ["cpu", "a2a3"])
def test_padded_rows_read_the_view_rows(target: str) -> None:
    gather(target, 64)


def test_padded_rows_are_refused_on_a5_at_run_time() -> None:
    with pytest.raises(PtoError) as err:
        gather("a5", 64)
    assert str(err.value).startswith(
        f"k.pto:{MGATHER_LINE}:3: error: 'pto.mgather' op expects the table's rows packed (row stride == its "
        "cols, no inter-row padding: the kernel reads rows at the valid-column stride), got row stride 64 for 32 cols"
    ), str(err.value)
