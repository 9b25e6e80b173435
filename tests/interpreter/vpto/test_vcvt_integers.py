"""vcvt to integer lanes against a formula written element by element in Python: the value rounded once by
`rnd` (R nearest-even, A away from zero, F floor, C ceil, Z toward zero), NaN to 0, then clamped to the
target's range (SAT) or reduced to its low bits (NOSAT); without a `sat` an out-of-range active lane is a
run-time error naming it (PTOAS 09-conversion-ops.md; the a5 conversion model TCVT uses)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pto_dialect import PtoError
from tests.interpreter.vpto.kernels import run_body

ROUND = {
    "R": lambda v: float(round(v)),  # Python rounds halves to even
    "A": lambda v: float(math.floor(abs(v) + 0.5) * (1 if v >= 0 else -1)),
    "F": lambda v: float(math.floor(v)),
    "C": lambda v: float(math.ceil(v)),
    "Z": lambda v: float(math.trunc(v)),
}


def expected(values: np.ndarray, target: np.dtype, rnd: str, sat: str) -> np.ndarray:
    info = np.iinfo(target)
    out = []
    for v in values.astype(np.float64):
        if math.isnan(v):
            n = 0
        elif sat == "SAT":
            n = int(min(max(ROUND[rnd](v) if math.isfinite(v) else v, info.min), info.max))
        else:
            n = int(ROUND[rnd](v)) if abs(v) < 2.0**63 else 0
        out.append(n % (1 << info.bits))  # the target's low bits
    return np.array(out, dtype=np.uint64).astype(f"u{target.itemsize}").view(target)


SPECIAL = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4999, -7.75, 3e9, -3e9, np.nan, np.inf, -np.inf], np.float32)


@pytest.mark.parametrize("rnd", ROUND)
@pytest.mark.parametrize("sat", ["SAT", "NOSAT"])
def test_f32_to_si32(rnd: str, sat: str):
    x = np.concatenate([SPECIAL, (np.random.default_rng(3).standard_normal(64 - SPECIAL.size) * 50).astype(np.float32)])
    if sat == "NOSAT":
        x[np.isinf(x)] = 1.0  # infinities without saturation: no defined low bits
    body = f"""
      %all = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      %n = arith.constant 60 : i32
      %m, %rest = pto.plt_b32 %n : i32 -> !pto.mask<b32>, i32
      %v = pto.vlds %in[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
      %w = pto.vcvt %v, %m {{rnd = "{rnd}", sat = "{sat}"}} : !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xsi32>
      pto.vsts %w, %out[%c0], %all : !pto.vreg<64xsi32>, !pto.ptr<si32, ub>, !pto.mask<b32>"""
    got = run_body(body, x, np.full(64, 7, np.int32), out_type="si32")
    want = expected(x, np.dtype(np.int32), rnd, sat)
    want[60:] = 0  # masked-off lanes
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("part,index", [("EVEN", 0), ("ODD", 1)])
def test_f16_to_ui8_saturates_into_its_part(part: str, index: int):
    x = (np.random.default_rng(5).standard_normal(128) * 200).astype(np.float16)
    body = f"""
      %all16 = pto.pset_b16 "PAT_ALL" : !pto.mask<b16>
      %all8 = pto.pset_b8 "PAT_ALL" : !pto.mask<b8>
      %v = pto.vlds %in[%c0] : !pto.ptr<f16, ub> -> !pto.vreg<128xf16>
      %w = pto.vcvt %v, %all16 {{rnd = "Z", sat = "SAT", part = "{part}"}} : !pto.vreg<128xf16>, !pto.mask<b16> -> !pto.vreg<256xui8>
      pto.vsts %w, %out[%c0], %all8 : !pto.vreg<256xui8>, !pto.ptr<ui8, ub>, !pto.mask<b8>"""
    got = run_body(body, x, np.full(256, 9, np.uint8))
    want = np.zeros(256, np.uint8)
    want[index::2] = expected(x, np.dtype(np.uint8), "Z", "SAT")
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("sat", ["SAT", "NOSAT"])
def test_si32_to_si16_narrows_by_part(sat: str):
    x = np.array([5, -5, 40000, -40000, 70000, 32767, -32768, 1 << 20] * 8, np.int32)
    body = f"""
      %all32 = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      %all16 = pto.pset_b16 "PAT_ALL" : !pto.mask<b16>
      %v = pto.vlds %in[%c0] : !pto.ptr<si32, ub> -> !pto.vreg<64xsi32>
      %w = pto.vcvt %v, %all32 {{sat = "{sat}", part = "ODD"}} : !pto.vreg<64xsi32>, !pto.mask<b32> -> !pto.vreg<128xsi16>
      pto.vsts %w, %out[%c0], %all16 : !pto.vreg<128xsi16>, !pto.ptr<si16, ub>, !pto.mask<b16>"""
    got = run_body(body, x, np.zeros(128, np.int16), in_type="si32", out_type="si16")
    want = np.zeros(128, np.int16)
    want[1::2] = expected(x, np.dtype(np.int16), "Z", sat)
    np.testing.assert_array_equal(got, want)


def test_an_out_of_range_lane_without_sat_is_a_located_error():
    x = np.zeros(64, np.float32)
    x[13] = 3e9
    body = """
      %all = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      %v = pto.vlds %in[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
      %w = pto.vcvt %v, %all {rnd = "R"} : !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xsi32>
      pto.vsts %w, %out[%c0], %all : !pto.vreg<64xsi32>, !pto.ptr<si32, ub>, !pto.mask<b32>"""
    with pytest.raises(PtoError, match=r"'pto.vcvt' .*lane 13 \(3000000000.0\) is outside int32's range and the conversion names no sat"):
        run_body(body, x, np.zeros(64, np.int32), out_type="si32")
