"""
TLOAD / TSTORE shape rules at run time (pto_dialect/instructions/transfer.py, checked again by
interpreter/pto.py on the actual valid shapes): a dynamic valid row count that
does not match the view is a located fault naming the shapes; a matching one loads
and stores the window (out = x).
"""

from __future__ import annotations

import numpy as np
import pytest

from pto_dialect import PtoError
from tests.interpreter.harness import TARGETS, assert_bits_equal, constants, func, run, tile, view

COVERS = ('pto.tload', 'pto.tstore')
"""The instructions whose results these tests check against their own formulas, per target
(tests/test_registry.py: every instruction is covered on every target)."""

T = tile((8, 8), "f32", valid=("?", "?"))
V = view((8, 8), "f32")
KERNEL = func(
    [("x", "!pto.ptr<f32>"), ("o", "!pto.ptr<f32>"), ("r", "index")],
    constants(0, 1, 8)
    + f"""
%xv = pto.make_tensor_view %x, shape = [%c8, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
%ov = pto.make_tensor_view %o, shape = [%c8, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
%xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c8, %c8] : !pto.tensor_view<?x?xf32>
%op = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [%c8, %c8] : !pto.tensor_view<?x?xf32>
%t = pto.alloc_tile valid_row = %r valid_col = %c8 : {T}
pto.tload ins(%xp : {V}) outs(%t : {T})
pto.tstore ins(%t : {T}) outs(%op : {V})
""",
)
TLOAD_LINE = 10  # k.pto line of the pto.tload


@pytest.mark.parametrize("target", TARGETS)
def test_matching_dynamic_shape_loads_and_stores(target: str) -> None:
    x = np.arange(64, dtype=np.float32).reshape(8, 8)
    out = run(KERNEL, target, [x, np.zeros((8, 8), np.float32), np.int64(8)])[1]
    assert_bits_equal(out, x)


@pytest.mark.parametrize("target", TARGETS)
def test_dynamic_valid_rows_below_the_view_are_a_located_fault(target: str) -> None:
    x = np.arange(64, dtype=np.float32).reshape(8, 8)
    with pytest.raises(PtoError) as err:
        run(KERNEL, target, [x, np.zeros((8, 8), np.float32), np.int64(4)])
    assert str(err.value).startswith(f"k.pto:{TLOAD_LINE}:3: error: 'pto.tload' op tload expects the src view "
                                     f"(nd shape [8, 8]: 8 rows x 8 cols) to equal the dst valid shape 4x8 (target {target}, run-time shapes)")



def nz_kernel(s1: int) -> str:
    """TLOAD of an NZ view [1, s1, 1, 16, 16] (f16: C0 = 16) into the 16 x 16*s1 NZ tile argument
    %t, then TSTORE of %t into a second NZ view."""
    t = tile((16, 16 * s1), "f16", blayout="col_major", slayout="row_major")
    v = view((1, s1, 1, 16, 16), "f16")
    tv = "!pto.tensor_view<?x?x?x?x?xf16>"
    body = constants(0, 1, 16, 256, s1, 256 * s1) + "\n" + "\n".join(
        f"%{n}v = pto.make_tensor_view %{n}, shape = [%c1, %c{s1}, %c1, %c16, %c16], strides = "
        f"[%c{256 * s1}, %c256, %c256, %c16, %c1] {{layout = #pto.layout<nz>}} : {tv}\n"
        f"%{n}p = pto.partition_view %{n}v, offsets = [%c0, %c0, %c0, %c0, %c0], sizes = [%c1, %c{s1}, %c1, %c16, %c16] : {tv}"
        for n in "xo"
    ) + f"""
pto.tload ins(%xp : {v}) outs(%t : {t})
pto.tstore ins(%t : {t}) outs(%op : {v})
"""
    return func([("x", "!pto.ptr<f16>"), ("o", "!pto.ptr<f16>"), ("t", t)], body)


@pytest.mark.parametrize("target", TARGETS)
def test_nz_views_with_several_column_blocks_load_the_logical_matrix(target: str) -> None:
    """pto-isa's NZ GM layout (semantics.md §1.4): logical (x, y) of an S2*16 x S1*C0 matrix at
    (y // C0)*rows*C0 + x*C0 + y % C0: the tile holds that logical matrix, the store puts it back."""
    s1 = 2
    logical = np.arange(16 * 16 * s1, dtype=np.float16).reshape(16, 16 * s1)
    gm = logical.reshape(16, s1, 16).transpose(1, 0, 2).ravel().copy()  # column blocks, each 16 rows x C0
    _, o, t = run(nz_kernel(s1), target, [gm, np.zeros_like(gm), np.zeros((16, 16 * s1), np.float16)])
    assert_bits_equal(t, logical)
    assert_bits_equal(o, gm)



COLUMN = tile((16, 1), "f32", blayout="col_major")
ONE_ELEMENT_ROWS = func(
    [("x", "!pto.ptr<f32>"), ("o", "!pto.ptr<f32>")],
    constants(0, 1, 2, 16)
    + f"""
%xv = pto.make_tensor_view %x, shape = [%c16, %c1], strides = [%c2, %c16] : !pto.tensor_view<?x?xf32>
%ov = pto.make_tensor_view %o, shape = [%c16, %c1], strides = [%c1, %c16] : !pto.tensor_view<?x?xf32>
%xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c16, %c1] : !pto.tensor_view<?x?xf32>
%op = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [%c16, %c1] : !pto.tensor_view<?x?xf32>
%t = pto.alloc_tile : {COLUMN}
pto.tload ins(%xp : {view((16, 1), "f32")}) outs(%t : {COLUMN})
pto.tstore ins(%t : {COLUMN}) outs(%op : {view((16, 1), "f32")})
""",
)


@pytest.mark.parametrize("target", TARGETS)
def test_rows_of_one_element_move_whatever_the_last_stride(target: str) -> None:
    # 16 rows of one element (PyPTO's 16x1 columns, last stride 16): row i of x at 2i, of o at i
    x = np.arange(32, dtype=np.float32)
    out = run(ONE_ELEMENT_ROWS, target, [x, np.zeros(16, np.float32)])[1]
    assert_bits_equal(out, x[::2])


@pytest.mark.parametrize("target", TARGETS)
def test_one_row_nz_tile_stores_its_row_to_an_nd_view(target: str) -> None:
    """A one-row NZ vec tile (1 x 48 f16, 16 x 16 boxes) to an ND 1 x 48 view: the one-row case a2a3's
    and a5's TSTORE take; their DMA reads the tile's storage as the row, which holds column c at
    element (c // 16) * 1 * 16 + c % 16 = c (cpu/tile_offsets.hpp Nz), so out = the logical row."""
    nz = tile((1, 48), "f16", blayout="col_major", slayout="row_major")
    text = func(
        [("t", nz), ("o", "!pto.ptr<f16>")],
        constants(0, 1, 48)
        + f"""
%ov = pto.make_tensor_view %o, shape = [%c1, %c48], strides = [%c48, %c1] : !pto.tensor_view<?x?xf16>
%op = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [%c1, %c48] : !pto.tensor_view<?x?xf16>
pto.tstore ins(%t : {nz}) outs(%op : {view((1, 48), "f16")})
""",
    )
    row = np.arange(48, dtype=np.float16).reshape(1, 48)
    out = run(text, target, [row, np.zeros(48, np.float16)])[1]
    assert_bits_equal(out, row.reshape(-1))
