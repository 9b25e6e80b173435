"""
pto_frontend.testing: assert_matches compares a kernel's outputs with expected arrays (bitwise,
or within rtol/atol) and assert_targets_agree runs it on every target; each failure is an
AssertionError holding the difference report.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pto_frontend.testing import assert_matches, assert_targets_agree
from tests.frontend.row_gather import row_gather


wrap_rows = row_gather("wrap_rows", 1000, 8, 8, coalesce="row", gather_oob="wrap")
"""Rows of a 1000-row table, ids wrapping around it (a negative id reads row 615 on cpu,
295 on the NPUs: examples/wrap_negative_index.pto)."""

TABLE = np.repeat(np.arange(1000, dtype=np.float32), 8)
IN_RANGE = np.array([0, 5, 999, 7, 1, 2, 3, 4], np.int32)
NEGATIVE = np.array([0, -1, 2, 3, 4, 5, 6, 7], np.int32)
OUT = np.zeros(64, np.float32)


def rows_read(ids: np.ndarray) -> np.ndarray:
    return np.repeat(ids.astype(np.float32), 8)


def test_assert_matches_accepts_names_positions_and_sequences() -> None:
    expected = rows_read(IN_RANGE)
    forms: tuple[Any, ...] = ({"out": expected}, {2: expected.reshape(8, 8)}, [None, IN_RANGE, expected])
    for form in forms:
        outputs = assert_matches(wrap_rows, TABLE, IN_RANGE, OUT, expected=form, target="a5")
        assert np.array_equal(outputs[2], expected)


def test_assert_matches_reports_what_differs() -> None:
    with pytest.raises(AssertionError) as e:
        assert_matches(wrap_rows, TABLE, NEGATIVE, OUT, expected={"out": rows_read(np.abs(NEGATIVE))}, target="cpu")
    assert str(e.value).splitlines() == [
        "wrap_rows.run(target=cpu): outputs differ from the expected ones",
        "argument 'out': 8 of 64 elements differ (bitwise)",
        "  [8]: got 615.0, expected 1.0",
        "  [9]: got 615.0, expected 1.0",
        "  [10]: got 615.0, expected 1.0",
        "  [11]: got 615.0, expected 1.0",
        "  [12]: got 615.0, expected 1.0",
    ]


def test_assert_matches_within_a_tolerance() -> None:
    near = rows_read(IN_RANGE) + 0.25
    assert_matches(wrap_rows, TABLE, IN_RANGE, OUT, expected={"out": near}, target="a2a3", atol=0.5)
    with pytest.raises(AssertionError, match=r"argument 'out': 64 of 64 elements differ \(rtol=0, atol=0.1\)"):
        assert_matches(wrap_rows, TABLE, IN_RANGE, OUT, expected={"out": near}, target="a2a3", atol=0.1)
    with pytest.raises(AssertionError, match="argument 'out': expected 8 elements, the kernel's output has 64"):
        assert_matches(wrap_rows, TABLE, IN_RANGE, OUT, expected={"out": IN_RANGE}, target="a2a3")


def test_assert_targets_agree() -> None:
    report = assert_targets_agree(wrap_rows, TABLE, IN_RANGE, OUT)
    assert report.agree
    with pytest.raises(AssertionError) as e:
        assert_targets_agree(wrap_rows, TABLE, NEGATIVE, OUT)
    text = str(e.value)
    assert text.startswith("wrap_rows: the targets do not agree\n")
    assert "  [8]: cpu=615.0, a2a3=295.0, a5=295.0" in text
    assert "first divergent op: " in text and "index sign-extended to 64 bits, then bounds-checked as unsigned (cpu) / read as 32-bit unsigned (a2a3, a5)" in text
