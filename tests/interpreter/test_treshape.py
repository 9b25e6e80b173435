"""
pto.treshape on every target against a formula written here from pto-isa's TRESHAPE (the new
tile over the source's data: cpu/TReshape.hpp's pointer, npu/a2a3/TReshape.hpp's TASSIGN to its
address): the result's logical elements are the source's storage bytes read in the result's
element type and layout; a write through the result is a write of the source.
"""

from __future__ import annotations

import numpy as np
import pytest

from pto_dialect import PtoError
from tests.interpreter.harness import TARGETS, assert_bits_equal, filled, func, run, tile

COVERS = ("pto.treshape",)


@pytest.mark.parametrize("target", TARGETS)
def test_a_row_seen_as_a_table(target: str) -> None:
    """1x32 f32 seen as 4x8: logical (r, c) is storage r * 8 + c."""
    s, r = tile((1, 32), "f32"), tile((4, 8), "f32")
    text = func([("s", s), ("d", r)], f"""
%r = pto.treshape %s : {s} -> {r}
pto.tmov ins(%r : {r}) outs(%d : {r})""")
    src = np.arange(32, dtype=np.float32).reshape(1, 32)
    out = run(text, target, [src, filled((4, 8), "f32")])[-1]
    assert_bits_equal(out, src.reshape(4, 8))


def test_a_row_seen_column_major_on_cpu() -> None:
    """1x32 f32 seen as 16x2 col_major (cpu's TMOV converts the layout): logical (r, c) is
    storage c * 16 + r."""
    s, r, d = tile((1, 32), "f32"), tile((16, 2), "f32", blayout="col_major"), tile((16, 2), "f32")
    text = func([("s", s), ("d", d)], f"""
%r = pto.treshape %s : {s} -> {r}
pto.tmov ins(%r : {r}) outs(%d : {d})""")
    src = np.arange(32, dtype=np.float32).reshape(1, 32)
    assert_bits_equal(run(text, "cpu", [src, filled((16, 2), "f32")])[-1], src.reshape(2, 16).T)


@pytest.mark.parametrize("target", TARGETS)
def test_bytes_in_another_type_and_writes_through(target: str) -> None:
    """1x64 ui8 seen as 16x4 ui8 then 1x16 i32 (bytes little-endian); a tsetval through the
    i32 view changes the source's bytes."""
    s, r, w = tile((1, 64), "ui8"), tile((16, 4), "ui8"), tile((1, 16), "i32")
    text = func([("s", s), ("d", r)], f"""
%c1 = arith.constant 1 : index
%r = pto.treshape %s : {s} -> {r}
%w = pto.treshape %s : {s} -> {w}
%v = arith.constant -1 : i32
pto.tsetval ins(%c1, %v : index, i32) outs(%w : {w})
pto.tmov ins(%r : {r}) outs(%d : {r})""")
    src = np.arange(64, dtype=np.uint8).reshape(1, 64)
    out = run(text, target, [src, filled((16, 4), "ui8")])
    expected = src.reshape(16, 4).copy()
    expected[1] = 255
    assert_bits_equal(out[-1], expected)
    assert_bits_equal(out[0], expected.reshape(1, 64))


@pytest.mark.parametrize("target", TARGETS)
def test_a_dynamic_valid_shape_of_another_shape_is_a_run_time_error(target: str) -> None:
    s, r = tile((2, 16), "f32"), tile((4, 8), "f32", valid=("?", "?"))
    text = func([("s", s)], f"%r = pto.treshape %s : {s} -> {r}")
    with pytest.raises(PtoError, match="the result's valid shape is dynamic and its shape 4x8 is not the source's"):
        run(text, target, [np.zeros((2, 16), np.float32)])
