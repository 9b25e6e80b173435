# pyright: reportInvalidTypeForm=false
"""The builder's pto.tgetval / pto.tsetval spell what PTOAS reads and run on every target
(against NumPy on the tile's storage order)."""

import numpy as np
import pytest

import pto_frontend as pto
from tests.frontend.views import whole_views


@pto.kernel
def swap_ends(src: pto.ptr(pto.f32), dst: pto.ptr(pto.f32)):
    sp, dp = whole_views([(src, (2, 16)), (dst, (2, 16))])
    t = pto.alloc_tile(shape=[2, 16], dtype=pto.f32)
    pto.tload(sp, t)
    first, last = pto.tgetval(t, 0), pto.tgetval(t, 31)
    pto.tsetval(t, 0, last)
    pto.tsetval(t, 31, first)
    pto.tsetval(t, 16, 2.5)
    pto.tstore(t, dp)


def test_the_kernel_spells_ptoas_tgetval_and_tsetval():
    text = swap_ends.to_pto(target="a5")
    assert "pto.tgetval ins(%" in text and "index) outs : f32" in text
    assert "pto.tsetval ins(%c16, %cst : index, f32) outs(%" in text


@pytest.mark.parametrize("target", pto.TARGETS)
def test_the_kernel_moves_the_elements(target):
    src = np.arange(32, dtype=np.float32)
    out = swap_ends.run(src, np.zeros(32, np.float32), target=target)[1]
    expected = src.copy()
    expected[0], expected[31], expected[16] = src[31], src[0], 2.5
    np.testing.assert_array_equal(out, expected)


def test_a_tile_is_required():
    @pto.kernel
    def bad(x: pto.ptr(pto.f32)):
        pto.tgetval(x, 0)

    with pytest.raises(pto.PtoError, match=r"test_tile_value_builder.py:\d+:\d+: error: pto.tgetval\(\) takes a tile"):
        bad.to_pto()


@pto.kernel
def transpose_view(src: pto.ptr(pto.f32), dst: pto.ptr(pto.f32)):
    sp, dp = whole_views([(src, (1, 32)), (dst, (4, 8))])
    t = pto.alloc_tile(shape=[1, 32], dtype=pto.f32)
    d = pto.alloc_tile(shape=[4, 8], dtype=pto.f32)
    pto.tload(sp, t)
    pto.tmov(pto.treshape(t, [4, 8]), d)
    pto.tstore(d, dp)


def test_treshape_spells_ptoas_and_runs():
    assert "= pto.treshape %" in transpose_view.to_pto(target="cpu")
    for target in pto.TARGETS:
        src = np.arange(32, dtype=np.float32)
        np.testing.assert_array_equal(transpose_view.run(src, np.zeros(32, np.float32), target=target)[1], src)
