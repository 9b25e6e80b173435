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


def nz_offset(rows: int, c0: int, r: int, c: int) -> int:
    """Storage element of logical (r, c) in an NZ tile of `rows` rows and 16 x c0 boxes: a column
    of boxes holds rows x c0 elements (cpu/tile_offsets.hpp Nz; a2a3 TLoad.hpp's NZ copies), also
    where rows is not a multiple of 16."""
    return (c // c0) * rows * c0 + r * c0 + c % c0


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("rows", [1, 8, 16])
def test_nz_tile_with_a_partial_box_of_rows_keeps_every_element(target: str, rows: int) -> None:
    """A vec NZ tile of 1, 8 or 16 rows x 48 f16 (16 x 16 boxes; pto-isa lets a vec tile's rows be
    a partial box): each storage element read back holds the logical element the formula places
    there; every element has its own (with one box row counted per 16 rows, a one-row tile put all
    three columns of boxes on the first)."""
    nz = tile((rows, 48), "f16", blayout="col_major", slayout="row_major")
    scalar = tile((1, 16), "f16")
    logical = np.arange(rows * 48).reshape(rows, 48).astype(np.float16)
    places = {nz_offset(rows, 16, r, c): (r, c) for r in range(rows) for c in range(48)}
    assert sorted(places) == list(range(rows * 48))
    for at in (0, 15, 16, 17, rows * 16 + 3, rows * 48 - 1):
        out = run(copy_element(nz, scalar, "f16"), target, [logical, filled((1, 16), "f16"), np.int64(at), np.int64(0)])[1]
        assert out[0, 0] == logical[places[at]], (at, places[at])
