"""
pto.tgetval / pto.tsetval on every target against a formula written here from pto-isa's
Tile::GetValue / SetValue (`*(ptr + offset)`): the offset counts elements of the tile's storage,
row-major tiles row after row, col-major ones column after column, valid region or not.
"""

from __future__ import annotations

import numpy as np
import pytest

from pto_dialect import PtoError
from tests.interpreter.harness import TARGETS, assert_bits_equal, filled, func, run, tile

COVERS = ("pto.tgetval", "pto.tsetval")


def copy_element(src: str, dst: str, dtype: str) -> str:
    """dst's storage element %to set to src's storage element %at."""
    return func([("s", src), ("d", dst), ("at", "index"), ("to", "index")], f"""
%v = pto.tgetval ins(%s, %at : {src}, index) outs : {dtype}
pto.tsetval ins(%to, %v : index, {dtype}) outs(%d : {dst})""")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", ["i32", "f16", "bf16", "ui8"])
def test_element_moves_between_storage_offsets(target: str, dtype: str) -> None:
    s, d = tile((4, 32), dtype, valid=(2, 5)), tile((16, 2), dtype, blayout="col_major")
    src = np.arange(128).reshape(4, 32).astype(filled((1,), dtype).dtype)
    out = run(copy_element(s, d, dtype), target, [src, filled((16, 2), dtype), np.int64(70), np.int64(17)])[1]
    expected = filled((16, 2), dtype)
    expected[17 % 16, 17 // 16] = src.reshape(-1)[70]  # storage 70 of a row-major 4x32, 17 of a col-major 16x2
    assert_bits_equal(out, expected)


@pytest.mark.parametrize("target", TARGETS)
def test_offset_outside_the_storage_is_a_run_time_error(target: str) -> None:
    t = tile((2, 8), "f32")
    text = copy_element(t, t, "f32")
    with pytest.raises(PtoError, match="offset 16 reads outside the tile's 16 elements of storage"):
        run(text, target, [np.zeros((2, 8), np.float32), np.zeros((2, 8), np.float32), np.int64(16), np.int64(0)])
    with pytest.raises(PtoError, match="offset -1 writes outside the tile's 16 elements of storage"):
        run(text, target, [np.zeros((2, 8), np.float32), np.zeros((2, 8), np.float32), np.int64(0), np.int64(-1)])
