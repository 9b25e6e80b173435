"""
TCI on every target against a formula written here from pto-isa's code (cpu/TCI.hpp,
npu/a2a3/TCI.hpp's scalar loop, npu/a5/Tci.hpp: `dst[j] = start + j`, or `start - j`, in C++
integers stored to dst's type): each valid column j of the one row, wrapped to dst's width; the
columns beyond the valid ones keep their contents.
"""

from __future__ import annotations

import numpy as np
import pytest

import interpreter
from pto_dialect import PtoError, parse
from tests.interpreter.harness import NP, TARGETS, assert_bits_equal, filled, func, tile

COVERS = ("pto.tci",)


def expected(start: int, descending: bool, dtype: str, cols: int, valid: int) -> np.ndarray:
    bits = 8 * NP[dtype].itemsize
    out = filled((1, cols), dtype)
    for j in range(valid):
        value = (start - j if descending else start + j) % (1 << bits)
        if NP[dtype].kind == "i" and value >= 1 << (bits - 1):
            value -= 1 << bits
        out[0, j] = value
    return out


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", ["i16", "ui16", "i32", "ui32"])
@pytest.mark.parametrize("descending", [False, True])
def test_tci_counts_from_start_and_wraps(target: str, dtype: str, descending: bool) -> None:
    info = np.iinfo(NP[dtype])
    cols = 64 // NP[dtype].itemsize
    valid = cols - 3
    for start in (0, int(info.max) - 4, int(info.min) + 3, 7):
        t = tile((1, cols), dtype, valid=(1, valid))
        attr = " {descending = true}" if descending else ""
        text = func([("d", t), ("s", dtype)], f"pto.tci ins(%s : {dtype}) outs(%d : {t}){attr}")
        out = interpreter.run(parse(text, "k.pto"), target, [filled((1, cols), dtype), NP[dtype].type(start)])[0]
        assert_bits_equal(out, expected(start, descending, dtype, cols, valid))


@pytest.mark.parametrize("target", TARGETS)
def test_tci_with_tmp(target: str) -> None:
    t, tmp = tile((1, 64), "i32"), tile((1, 192), "f32")
    text = func([("d", t), ("tm", tmp)], f"%s = arith.constant 100 : i32\npto.tci ins(%s, %tm : i32, {tmp}) outs(%d : {t})")
    module = parse(text, "k.pto")
    if target == "cpu":
        with pytest.raises(PtoError, match=r"takes no tmp: cpu/TCI.hpp: .* \(target cpu\)"):
            interpreter.run(module, target, [filled((1, 64), "i32"), np.zeros((1, 192), np.float32)])
        return
    out = interpreter.run(module, target, [filled((1, 64), "i32"), np.zeros((1, 192), np.float32)])[0]
    assert_bits_equal(out, expected(100, False, "i32", 64, 64))
