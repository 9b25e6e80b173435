"""
The column reductions on every target, against formulas written here from pto-isa's code, one
column at a time in the target's own order:
- cpu (cpu/TColSum.hpp, TColMax.hpp, TColMin.hpp, TColProd.hpp): one accumulator from 0 (1; row 0
  for max and min) down the rows, in the element type.
- a2a3 (npu/a2a3/TColReduceOps.hpp, TColSum.hpp): row 0, then each later row, lane-wise; row 0
  copied by whole 32-byte blocks, so dst's row 0 past the valid columns takes src's.
- a5 (npu/a5/TColReduceOps.hpp, post-update variant): row 0, then rows 1+2, 3+4, ... into it.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interpreter.harness import NP, TARGETS, assert_bits_equal, filled, func, random_values, run, seed, tile

COVERS = ("pto.tcolsum", "pto.tcolmax", "pto.tcolmin", "pto.tcolprod")
"""The instructions whose results these tests check against their own formulas, per target."""

TYPES = {
    "cpu": {"tcolsum": ("f16", "f32"), "tcolmax": ("i8", "f16", "f32"), "tcolmin": ("i16", "i32", "f16", "f32"),
            "tcolprod": ("i16", "i32", "f16", "f32")},
    "a2a3": {op: ("i16", "i32", "f16", "f32") for op in ("tcolsum", "tcolmax", "tcolmin", "tcolprod")},
    "a5": {op: ("i16", "i32", "f16", "f32") for op in ("tcolsum", "tcolmax", "tcolmin", "tcolprod")},
}
STEP = {"tcolsum": lambda a, b: a + b, "tcolprod": lambda a, b: a * b,
        "tcolmax": lambda a, b: b if a < b else a, "tcolmin": lambda a, b: b if b < a else a}


def column(target: str, op: str, col: np.ndarray) -> object:
    t, step = col.dtype.type, STEP[op]
    if target == "cpu":
        acc = col[0] if op in ("tcolmax", "tcolmin") else t(0 if op == "tcolsum" else 1)
        for v in col[1:] if op in ("tcolmax", "tcolmin") else col:
            acc = t(step(acc, v))
        return acc
    if op in ("tcolmax", "tcolmin"):
        return (np.max if op == "tcolmax" else np.min)(col)
    acc = col[0]
    if target == "a2a3":
        for v in col[1:]:
            acc = t(step(acc, v))
        return acc
    rest = col[1:]
    for i in range(0, len(rest) - 1, 2):
        acc = t(step(acc, t(step(rest[i], rest[i + 1]))))
    if len(rest) % 2:
        acc = t(step(acc, rest[-1]))
    return acc


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", [c.removeprefix("pto.") for c in COVERS])
@pytest.mark.parametrize("rows", [1, 6, 9])
def test_column_reduction_in_the_targets_order(target: str, op: str, rows: int) -> None:
    for dtype in TYPES[target][op]:
        rng = np.random.default_rng(seed(target, op, dtype, rows))
        cols = 64 // NP[dtype].itemsize
        shape, valid = (rows + 2, cols), (rows, cols - 3)
        x = random_values(rng, dtype, shape)
        if op == "tcolprod" and NP[dtype].kind == "f":
            x = (1 + (x.astype(np.float32) % 1) / 8).astype(NP[dtype])
        if op == "tcolsum" and dtype == "f16":
            x = (x.astype(np.float32) / 64).astype(NP[dtype])
        s, d = tile(shape, dtype, valid=valid), tile((1, cols), dtype, valid=(1, valid[1]))
        text = func([("s", s), ("d", d)], f"pto.{op} ins(%s : {s}) outs(%d : {d})")
        out = run(text, target, [x, filled((1, cols), dtype)])[-1]
        expected = filled((1, cols), dtype)
        with np.errstate(all="ignore"):
            for j in range(valid[1]):
                expected[0, j] = column(target, op, x[:rows, j])
        if target == "a2a3":  # row 0 copied by whole 32-byte blocks
            block = 32 // NP[dtype].itemsize
            end = -(-valid[1] // block) * block
            expected[0, valid[1] : end] = x[0, valid[1] : end]
        assert_bits_equal(out, expected)
