"""
TCVT on every target against formulas written here: cpu element by element in Python from
cpu/TCvt.hpp (the saturation clamp in double, the mode's rounding to an integral double, the C++
cast as g++ compiles it on x86-64), the NPUs against the reference the record calls approximate
(the mode's rounding, saturation or wrapping, NaN to 0).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import interpreter
from pto_dialect import parse
from tests.interpreter.harness import NP, assert_bits_equal, filled, func, tile

COVERS = ("pto.tcvt",)

MODES = ("NONE", "RINT", "ROUND", "FLOOR", "CEIL", "TRUNC", "ODD", "CAST_RINT")
FLOATS = [0.5, 1.5, 2.5, -0.5, -2.5, 0.49999997, -1.25, 3.75, 127.5, 128.0, -129.0, 255.5, 300.0, -3.0, 65519.0,
          70000.0, 3e9, -3e9, 2.0**31, 1e20, math.inf, -math.inf, math.nan, -0.0, 1e-40, 7.0]


def kernel(src: str, dst: str, mode: str, saturation: str, shape=(2, 16)) -> str:
    s, d = tile(shape, src), tile(shape, dst)
    attrs = f"{{rmode = #pto<round_mode {mode}>, satmode = #pto<saturation_mode {saturation}>}}"
    return func([("a", s), ("d", d)], f"pto.tcvt ins(%a {attrs} : {s}) outs(%d : {d})")


def run(text: str, target: str, a: np.ndarray, dst: str) -> np.ndarray:
    return interpreter.run(parse(text, "k.pto"), target, [a, filled(a.shape, dst)])[-1]


# -- cpu, one element at a time ------------------------------------------------------------


def integral(v: float, mode: str) -> float:
    if math.isnan(v) or math.isinf(v):
        return v if mode != "ODD" else v + 1
    if mode in ("RINT", "CAST_RINT"):
        return float(round(v))  # Python rounds halves to even
    if mode == "ROUND":
        return float(math.copysign(math.floor(abs(v) + 0.5) if abs(v) % 1 != 0.5 else math.floor(abs(v)) + 1, v))
    if mode == "FLOOR":
        return float(math.floor(v))
    if mode == "CEIL":
        return float(math.ceil(v))
    if mode == "TRUNC":
        return float(math.trunc(v))
    if mode == "ODD":
        f = math.floor(v)
        frac = v - f
        return float(f + 1 if frac > 0.5 else f if frac < 0.5 else (f if f % 2 else f + 1))
    return v


def cvttsd2si(v: float, bits: int) -> int:
    if not math.isfinite(v) or not -(2 ** (bits - 1)) <= math.trunc(v) < 2 ** (bits - 1):
        return -(2 ** (bits - 1))
    return math.trunc(v)


def x86(v: float, dst: str, via64: bool = False) -> int:
    """static_cast<D>(double) with g++ on x86-64, as the low bits of D."""
    dt = NP[dst]
    wide = via64 or dt.itemsize == 8 or dst == "ui32"
    return cvttsd2si(v, 64 if wide else 32) % (1 << (8 * dt.itemsize))


def limits(dtype: str) -> tuple[float, float]:
    if NP[dtype].kind in "iu":
        i = np.iinfo(NP[dtype])
        return float(i.min), float(i.max)
    return (-65504.0, 65504.0) if dtype == "f16" else (-float(np.finfo(np.float32).max), float(np.finfo(np.float32).max))


def cpu_one(v, src: str, dst: str, mode: str, saturation: str):
    s_float, d_float = NP[src].kind == "f", NP[dst].kind == "f"
    if saturation == "ON":
        lo, hi = max(limits(src)[0], limits(dst)[0]), min(limits(src)[1], limits(dst)[1])
        d = float(v)
        d = hi if math.isnan(d) else min(max(d, lo), hi)
        v = NP[src].type(d) if s_float else np.array(x86(d, src)).astype(NP[src])[()]
    if s_float and not d_float:
        bits = x86(integral(float(v), mode), dst, via64=dst == "ui8")
        return np.array([bits], np.uint64).astype(f"u{NP[dst].itemsize}").view(NP[dst])[0]
    if d_float and not s_float:
        return NP[dst].type(float(int(v)))
    return np.array([v]).astype(NP[src]).astype(NP[dst])[0]


CPU_CASES = [("f32", "i32"), ("f32", "i16"), ("f32", "i8"), ("f16", "ui8"), ("f32", "ui32"), ("f32", "i64"), ("f32", "f16"),
             ("f16", "f32"), ("i32", "f16"), ("i32", "i8"), ("i16", "ui8"), ("i32", "f32")]


@pytest.mark.parametrize("saturation", ["OFF", "ON"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("src", "dst"), CPU_CASES, ids=[f"{s}-{d}" for s, d in CPU_CASES])
def test_cpu_converts_as_the_simulator(src: str, dst: str, mode: str, saturation: str) -> None:
    if NP[src].kind == "f":
        with np.errstate(all="ignore"):
            data = np.array((FLOATS * 2)[:32], np.float64).astype(NP[src])
    else:
        info = np.iinfo(NP[src])
        data = np.array([info.min, info.max, 0, 1, -1, 300, -300, 70000, 65504, 255, 256, -129] * 3)[:32]
        data = data.clip(info.min, info.max).astype(NP[src])
    data = data.reshape(2, 16)
    with np.errstate(all="ignore"):
        expected = np.array([cpu_one(v, src, dst, mode, saturation) for v in data.ravel()], NP[dst]).reshape(2, 16)
    assert_bits_equal(run(kernel(src, dst, mode, saturation), "cpu", data, dst), expected)


# -- a2a3 and a5: the reference ------------------------------------------------------------------


@pytest.mark.parametrize("target", ["a2a3", "a5"])
def test_npus_round_by_the_mode_and_saturate(target: str) -> None:
    x = np.array([[2.5, -2.5, 0.5, 1.5, 3e9, -3e9, np.nan, 7.7, -7.7, 1e-3, 100.25, -0.0, 65504.0, 1e6, -1e6, np.inf]], np.float32)
    expect = {
        "RINT": [2, -2, 0, 2], "ROUND": [3, -3, 1, 2], "FLOOR": [2, -3, 0, 1], "CEIL": [3, -2, 1, 2], "TRUNC": [2, -2, 0, 1],
        "NONE": [2, -2, 0, 1],  # float to integer truncates
    }
    for mode, first in expect.items():
        out = run(kernel("f32", "i32", mode, "ON", (1, 16)), target, x, "i32")
        assert list(out[0, :4]) == first, mode
        assert out[0, 4] == 2**31 - 1 and out[0, 5] == -(2**31) and out[0, 6] == 0
    halves = run(kernel("f32", "f16", "FLOOR", "OFF", (1, 16)), target, x, "f16")
    assert halves[0, 7] == np.float16(7.69921875) and halves[0, 8] == np.float16(-7.703125)
    assert halves[0, 13] == 65504 and halves[0, 14] == -np.inf  # toward -inf: IEEE overflow to max / -inf
    saturated = run(kernel("f32", "f16", "RINT", "ON", (1, 16)), target, x, "f16")
    assert saturated[0, 13] == 65504 and saturated[0, 15] == 65504 and np.isnan(saturated[0, 6])
    odd = run(kernel("f32", "f16", "ODD", "OFF", (1, 16)), target, np.full((1, 16), 1 + 2.0**-12, np.float32), "f16")
    assert (odd.view(np.uint16) == np.float16(1).view(np.uint16) | 1).all()  # inexact: the odd neighbour


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_default_modes_are_rint_and_no_saturation(target: str) -> None:
    s, d = tile((1, 16), "f32"), tile((1, 16), "f16")
    text = func([("a", s), ("d", d)], f"pto.tcvt ins(%a : {s}) outs(%d : {d})")
    x = np.linspace(-3, 3, 16, dtype=np.float32).reshape(1, 16) + np.float32(2.0**-13)
    assert_bits_equal(run(text, target, x, "f16"), x.astype(np.float16))


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_every_target_prices_tcvt_and_the_unary_family(target: str, tmp_path, capsys) -> None:
    from pto_tools import pto_opt

    s, d = tile((8, 16), "f32"), tile((8, 16), "f16")
    ops = [f"pto.tcvt ins(%a : {s}) outs(%d : {d})"] + [
        f"pto.{op} ins(%a : {s}) outs(%e : {s})" for op in ("tabs", "tneg", "texp", "tlog", "tsqrt", "trsqrt", "trecip", "trelu")
    ]
    path = tmp_path / "k.pto"
    path.write_text(func([("a", s), ("d", d), ("e", s)], "\n".join(ops)))
    try:
        pto_opt.main([str(path), "--target", target, "--estimate"])
    except SystemExit as e:
        assert not e.code
    out = capsys.readouterr().out
    assert out.count(" pto.t") == len(ops), out


def test_a2a3_converts_i32_to_f16_through_vconv_deq() -> None:
    """npu/a2a3/TCvt.hpp: i32 -> f16 by vconv_deq with deqscale 1.0 (PyPTO's quantization
    kernels use it): integers up to 2048 in magnitude are exact; beyond, the reference rounds by
    the op's mode (approximate: vconv_deq's rounding is not public)."""
    x = np.array([[0, 1, -1, 7, -300, 2047, 2048, -2048, 2049, 2051, 4097, -4099, 65504, 70000, 100, -5]], np.int32)
    out = run(kernel("i32", "f16", "RINT", "OFF", (1, 16)), "a2a3", x, "f16")
    with np.errstate(over="ignore"):
        assert_bits_equal(out, x.astype(np.float64).astype(np.float16))  # nearest even, once
