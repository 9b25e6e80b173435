"""
GM windows (pto_dialect/machine.py GmView.array): element [i, j, ...] of a window is
buffer[offset + sum(index * stride)], the window is a view (writes reach the
buffer), and a window reaching outside the buffer, or an empty one, is a fault.
Checked against that formula on random offsets, shapes and strides, 2-D (the fast
path) and 1-D / 3-D.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pto_dialect.machine import GmView, RuntimeFault
from tests.budgets import examples


@st.composite
def windows(draw: st.DrawFn) -> tuple[int, int, tuple[int, ...], tuple[int, ...]]:
    rank = draw(st.sampled_from([1, 2, 2, 2, 3]))
    size = draw(st.integers(1, 48))
    offset = draw(st.integers(-3, 48))
    shape = tuple(draw(st.integers(-1, 7)) for _ in range(rank))
    strides = tuple(draw(st.integers(-3, 12)) for _ in range(rank))
    return size, offset, shape, strides


@settings(max_examples=examples(3000), deadline=None)
@given(windows())
def test_window_is_the_strided_view_or_a_fault(window) -> None:
    size, offset, shape, strides = window
    buffer = np.arange(size, dtype=np.float32) * 2 + 1
    view = GmView(buffer, offset, shape, strides)
    if min(shape) <= 0:
        with pytest.raises(RuntimeFault):
            view.array()
        return
    grid = np.indices(shape)
    where = offset + sum(g * s for g, s in zip(grid, strides))
    if where.min() < 0 or where.max() >= size:
        with pytest.raises(RuntimeFault):
            view.array()
        return
    window_values = view.array()
    assert window_values is not None
    assert window_values.shape == shape
    assert np.array_equal(window_values, buffer[where])
    window_values[(0,) * len(shape)] = -5  # a view: the write reaches the buffer
    assert buffer[where[(0,) * len(shape)]] == -5
