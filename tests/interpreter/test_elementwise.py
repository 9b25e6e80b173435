"""
The binary elementwise family on every target, against formulas written here from pto-isa's
code (cpu/TAdd.hpp: `dst[idx] = src0[idx] + src1[idx]` in the element type; a2a3/a5 TAdd.hpp:
vadd over the valid region): each element of dst's valid region from the inputs' elements at
its place, computed in the element type (integers wrap, f16/bf16 round once); padding keeps
its old contents.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interpreter.harness import NP, TARGETS, assert_bits_equal, filled, func, random_values, run, seed, tile

COVERS = ("pto.tadd",)
"""The instructions whose results these tests check against their own formulas, per target."""

TYPES = {"cpu": ("i8", "i16", "i32", "i64", "f16", "bf16", "f32"), "a2a3": ("i16", "i32", "f16", "f32"),
         "a5": ("i8", "i16", "i32", "i64", "f16", "bf16", "f32")}
"""Element types each target's TADD takes (its rule row's; checked independently by the lit tests)."""

FORMULAS = {"tadd": lambda a, b: a + b}
"""Each member's formula in the element type."""


def binary_kernel(op: str, shape: tuple[int, int], dtype: str, valid: tuple[int, int], in_place: bool = False) -> str:
    t = tile(shape, dtype, valid=valid)
    if in_place:
        return func([("a", t), ("b", t)], f"pto.{op} ins(%a, %b : {t}, {t}) outs(%a : {t})")
    return func([("a", t), ("b", t), ("d", t)], f"pto.{op} ins(%a, %b : {t}, {t}) outs(%d : {t})")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", sorted(FORMULAS))
def test_binary_over_the_valid_region(target: str, op: str) -> None:
    for dtype in TYPES[target]:
        rng = np.random.default_rng(seed(target, op, dtype))
        cols = 64 // NP[dtype].itemsize
        shape, valid = (4, cols), (3, cols - 3)
        a, b = random_values(rng, dtype, shape), random_values(rng, dtype, shape)
        with np.errstate(over="ignore"):
            expected = filled(shape, dtype)
            expected[:3, : cols - 3] = FORMULAS[op](a[:3, : cols - 3], b[:3, : cols - 3]).astype(NP[dtype])
        out = run(binary_kernel(op, shape, dtype, valid), target, [a, b, filled(shape, dtype)])[-1]
        assert_bits_equal(out, expected)


@pytest.mark.parametrize("target", TARGETS)
def test_tadd_integers_wrap_and_floats_keep_nan_and_signed_zero(target: str) -> None:
    a = np.array([[32767, -32768, 1, -1] * 4], np.int16)
    b = np.array([[1, -1, -1, 1] * 4], np.int16)
    out = run(binary_kernel("tadd", (1, 16), "i16", (1, 16)), target, [a, b, filled((1, 16), "i16")])[-1]
    assert_bits_equal(out, np.array([[-32768, 32767, 0, 0] * 4], np.int16))
    x = np.array([[np.nan, -0.0, np.inf, 1e-45, 3e38, -0.0, 1.0, np.inf]], np.float32)
    y = np.array([[1.0, -0.0, -np.inf, 1e-45, 3e38, 0.0, -1.0, 1.0]], np.float32)
    out = run(binary_kernel("tadd", (1, 8), "f32", (1, 8)), target, [x, y, filled((1, 8), "f32")])[-1]
    with np.errstate(invalid="ignore", over="ignore"):
        assert_bits_equal(out, x + y)
    assert np.signbit(out[0, 1]) and not np.signbit(out[0, 5])


@pytest.mark.parametrize("target", TARGETS)
def test_tadd_in_place_over_src0(target: str) -> None:
    a = np.arange(32, dtype=np.float32).reshape(2, 16)
    b = np.full((2, 16), 0.25, np.float32)
    out = run(binary_kernel("tadd", (2, 16), "f32", (2, 16), in_place=True), target, [a, b])[0]
    assert_bits_equal(out, a + b)
