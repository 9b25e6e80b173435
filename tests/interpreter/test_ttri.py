"""
TTRI on every target against pto-isa docs/isa/TTRI.md's formula, written here: lower
dst[i, j] = 1 where j <= i + d else 0, upper 0 where j < i + d else 1, over dst's valid region; the
rest of dst kept. a5 (npu/a5/TTri.hpp) stores a row's run (lower: ones; upper: zeros) over whole
256-byte registers, so a run longer than the valid columns also lands past them, at the storage
elements after the row (i * Cols + j, j below the run's end and the row's registers' width).
"""

from __future__ import annotations

import numpy as np
import pytest

from pto_dialect import PtoError
from tests.interpreter.harness import TARGETS, assert_bits_equal, filled, func, run, tile

COVERS = ("pto.ttri",)


def tri_text(dst_t: str, upper: bool) -> str:
    attr = " {upperOrLower = 1 : i32}" if upper else ""
    return func([("d", dst_t), ("g", "i32")], f"pto.ttri ins(%g{attr} : i32) outs(%d : {dst_t})")


def expected(target: str, shape, valid, dtype: str, diagonal: int, upper: bool) -> np.ndarray:
    out = filled(shape, dtype)
    rows, cols = valid
    i, j = np.arange(rows)[:, None], np.arange(cols)[None, :]
    out[:rows, :cols] = np.where(j < i + diagonal, 0, 1) if upper else np.where(j <= i + diagonal, 1, 0)
    if target == "a5":
        width = -(-cols * out.itemsize // 256) * 256 // out.itemsize
        flat = out.reshape(-1)
        for r in range(rows):
            end = min(r + diagonal + (0 if upper else 1), width)
            flat[r * shape[1] + cols : r * shape[1] + max(end, cols)] = 0 if upper else 1
    return out


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize(("shape", "valid", "dtype", "diagonal"), [
    ((16, 32), (16, 32), "f32", 0), ((16, 32), (12, 20), "i16", -3), ((8, 64), (8, 40), "f16", 5), ((8, 16), (6, 9), "i32", 2),
    ((8, 64), (4, 10), "f32", 12),  # runs past the valid columns: a5 stores them on (row 3's to column 15 or 14)
    ((6, 16), (4, 16), "i32", 14),  # and into the next row's storage (row 3's run into row 4, past the valid rows)
])
def test_triangular_mask(target: str, upper: bool, shape, valid, dtype: str, diagonal: int) -> None:
    dst_t = tile(shape, dtype, valid=valid)
    out = run(tri_text(dst_t, upper), target, [filled(shape, dtype), np.int32(diagonal)])[0]
    assert_bits_equal(out, expected(target, shape, valid, dtype, diagonal, upper))


def test_a5_run_past_the_tile_is_a_fault() -> None:
    """PTOAS's ttri_arg shape (32x32xi32, upper) with diagonal 40: the last row's zeros reach element 1055."""
    dst_t = tile((32, 32), "i32")
    with pytest.raises(PtoError, match="the run of row 31 reaches storage element 1055, outside dst's 1024"):
        run(tri_text(dst_t, True), "a5", [filled((32, 32), "i32"), np.int32(40)])
