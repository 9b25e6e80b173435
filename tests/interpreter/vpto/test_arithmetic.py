"""Lane-wise arithmetic (vadd, vsub, vmul, vadds, vmuls) against NumPy formulas: active lanes wrap (integers)
or round to nearest even (floats), masked-off lanes are zero (PTOAS 07-binary-vector-ops.md,
08-vec-scalar-ops.md; vpto-spec.md: predication zeroes)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from pto_dialect import PtoError
from tests.interpreter.vpto.kernels import run_body

RNG = np.random.default_rng(11)
TYPES = {"i8": np.int8, "ui16": np.uint16, "i32": np.int32, "ui32": np.uint32, "f16": np.float16,
         "bf16": ml_dtypes.bfloat16, "f32": np.float32}
FORMULAS = {"vadd": lambda a, b: a + b, "vsub": lambda a, b: a - b, "vmul": lambda a, b: a * b}


def _operands(dtype: type, count: int) -> np.ndarray:
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        return RNG.integers(info.min, info.max, count, endpoint=True).astype(dtype)
    return (RNG.standard_normal(count) * 1000).astype(dtype)


def _exact(dtype: type, formula, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The formula in a wider type, then wrapped (integers: modulo 2^bits) or rounded once (floats)."""
    if np.dtype(dtype).kind in "iu":
        wide = formula(a.astype(object), b.astype(object))
        bits = 8 * np.dtype(dtype).itemsize
        return np.array([int(v) % (1 << bits) for v in wide], np.uint64).astype(f"u{np.dtype(dtype).itemsize}").view(dtype)
    with np.errstate(over="ignore"):  # a product past the type's range is inf, as in the lane
        return formula(a.astype(np.float64), b.astype(np.float64)).astype(dtype)


def _body(op: str, t: str, lanes: int, active: int, scalar: str | None, scalar_type: str = "") -> str:
    g = f"b{8 * 256 // lanes}"
    vreg = f"!pto.vreg<{lanes}x{t}>"
    second = (f"""%b = pto.vlds %in[%second] : !pto.ptr<{t}, ub> -> {vreg}
      %r = pto.{op} %a, %b, %m : {vreg}, {vreg}, !pto.mask<{g}> -> {vreg}""" if scalar is None else
              f"""%s = arith.constant {scalar} : {scalar_type}
      %r = pto.{op} %a, %s, %m : {vreg}, {scalar_type}, !pto.mask<{g}> -> {vreg}""")
    return f"""
      %second = arith.constant {lanes} : index
      %n = arith.constant {active} : i32
      %m, %rest = pto.plt_{g} %n : i32 -> !pto.mask<{g}>, i32
      %all = pto.pset_{g} "PAT_ALL" : !pto.mask<{g}>
      %a = pto.vlds %in[%c0] : !pto.ptr<{t}, ub> -> {vreg}
      {second}
      pto.vsts %r, %out[%c0], %all : {vreg}, !pto.ptr<{t}, ub>, !pto.mask<{g}>"""


@pytest.mark.parametrize("op,t", [(op, t) for op in FORMULAS for t in TYPES if (op, t) != ("vmul", "i8")])  # vmul: no b8
def test_binary_active_lanes_compute_masked_lanes_are_zero(op: str, t: str):
    dtype = TYPES[t]
    lanes = 256 // np.dtype(dtype).itemsize
    x = _operands(dtype, 2 * lanes)
    active = lanes - 5
    got = run_body(_body(op, t, lanes, active, None), x, np.full(lanes, 1, dtype), in_type=t, out_type=t)
    want = _exact(dtype, FORMULAS[op], x[:lanes], x[lanes:])
    want[active:] = 0
    np.testing.assert_array_equal(got.view(f"u{np.dtype(dtype).itemsize}"), want.view(f"u{np.dtype(dtype).itemsize}"))


@pytest.mark.parametrize("op,t,scalar_type,scalar,lane", [
    ("vadds", "ui32", "i32", "-1", 0xFFFFFFFF),  # a signless scalar for an unsigned lane: its bits
    ("vadds", "i8", "i8", "100", 100), ("vadds", "f32", "f32", "0.1", np.float32(0.1)),
    ("vmuls", "i32", "i32", "-3", -3), ("vmuls", "bf16", "bf16", "3.0", 3.0), ("vmuls", "ui16", "i16", "-1", 65535),
])
def test_vec_scalar_broadcasts_the_scalar(op: str, t: str, scalar_type: str, scalar: str, lane: object):
    dtype = TYPES[t]
    lanes = 256 // np.dtype(dtype).itemsize
    x = _operands(dtype, 2 * lanes)
    got = run_body(_body(op, t, lanes, 7, scalar, scalar_type), x, np.full(lanes, 1, dtype), in_type=t, out_type=t)
    want = _exact(dtype, FORMULAS["vadd" if op == "vadds" else "vmul"], x[:lanes], np.full(lanes, lane).astype(dtype))
    want[7:] = 0
    width = f"u{np.dtype(dtype).itemsize}"
    np.testing.assert_array_equal(got.view(width), want.view(width))


def test_vmul_of_b8_lanes_is_a_located_error():
    with pytest.raises(PtoError, match=r"'pto.vmul' op expects element type i16/si16/ui16/i32/si32/ui32/f16/bf16/f32, got i8"):
        run_body(_body("vmul", "i8", 256, 3, None), np.zeros(512, np.int8), np.zeros(256, np.int8))


@pytest.mark.parametrize("op", ["vintlv", "vdintlv"])
def test_lane_pairs(op: str):
    """vintlv: a0 b0 a1 b1 ... cut in two registers; vdintlv: the lanes of a then b, even ones then odd ones."""
    x = np.arange(256, dtype=np.uint16) * 3
    body = f"""
      %second = arith.constant 128 : index
      %all = pto.pset_b16 "PAT_ALL" : !pto.mask<b16>
      %a = pto.vlds %in[%c0] : !pto.ptr<ui16, ub> -> !pto.vreg<128xui16>
      %b = pto.vlds %in[%second] : !pto.ptr<ui16, ub> -> !pto.vreg<128xui16>
      %lo, %hi = pto.{op} %a, %b : !pto.vreg<128xui16>, !pto.vreg<128xui16> -> !pto.vreg<128xui16>, !pto.vreg<128xui16>
      pto.vsts %lo, %out[%c0], %all : !pto.vreg<128xui16>, !pto.ptr<ui16, ub>, !pto.mask<b16>
      pto.vsts %hi, %out[%second], %all : !pto.vreg<128xui16>, !pto.ptr<ui16, ub>, !pto.mask<b16>"""
    got = run_body(body, x, np.zeros(256, np.uint16))
    a, b = x[:128], x[128:]
    if op == "vintlv":
        want = np.array([v for pair in zip(a, b) for v in pair], np.uint16)
    else:
        want = np.concatenate([x[0::2], x[1::2]])
    np.testing.assert_array_equal(got, want)
