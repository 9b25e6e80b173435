"""
The elementwise families on every target, against formulas written here from pto-isa's code:
- cpu (the simulator's C++): ElementOp.h, TAdd.hpp, TSub.hpp, TMul.hpp, TDiv.hpp, TMax.hpp,
  TBinSOps.hpp, TExpands.hpp: each element in the element type (integers wrap, f16/bf16 round
  once), std::max(a, b) = (a < b) ? b : a, std::min(a, b) = (b < a) ? b : a, integer division
  truncating (a zero divisor traps);
- a2a3/a5: vadd, vsub, vmul (exact), vdiv/vmax/vmin (approximate: the reference, NaN
  propagating), a2a3's integer TDIVS through f32/f16 (TDivS.hpp), a5's integer division in C.
A scalar is converted to the element type as C++ converts it, from its SSA type's value.
Padding keeps its old contents.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from pto_dialect import PtoError
from tests.interpreter.harness import NP, TARGETS, assert_bits_equal, filled, func, random_values, run, seed, tile

COVERS = ("pto.tadd", "pto.tsub", "pto.tmul", "pto.tdiv", "pto.tmax", "pto.tmin", "pto.tand", "pto.tor", "pto.tshl",
          "pto.tshr", "pto.tfmod", "pto.tadds", "pto.tsubs", "pto.tmuls", "pto.tdivs", "pto.tmaxs", "pto.tmins",
          "pto.tands", "pto.tors", "pto.tshls", "pto.tshrs", "pto.tfmods", "pto.tlrelu", "pto.texpands",
          "pto.trem", "pto.txor", "pto.tpow", "pto.trems", "pto.txors", "pto.tpows", "pto.tsubrelu")
"""The instructions whose results these tests check against their own formulas, per target."""

EVERY = ("i8", "ui8", "i16", "ui16", "i32", "ui32", "i64", "f16", "bf16", "f32")
A2A3 = ("i16", "i32", "f16", "f32")
NO_INT8 = ("i16", "ui16", "i32", "ui32", "i64", "f16", "bf16", "f32")
A5_DIVISION = ("i16", "ui16", "i32", "ui32", "i64", "f16", "f32")
TYPES = {
    "arithmetic": {"cpu": EVERY, "a2a3": A2A3, "a5": EVERY},
    "tmul": {"cpu": EVERY, "a2a3": A2A3, "a5": NO_INT8},
    "tdiv": {"cpu": EVERY, "a2a3": ("f16", "f32"), "a5": A5_DIVISION},
    "tdivs": {"cpu": EVERY, "a2a3": A2A3, "a5": A5_DIVISION},
}
"""Element types each target takes (its rule rows'; checked independently by the lit tests)."""


def truncated(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C integer division: the quotient of the magnitudes, with the operands' sign."""
    mag = np.abs(a.astype(object)) // np.abs(b.astype(object))
    return np.where((a < 0) != (b < 0), -mag, mag).astype(np.int64).astype(a.dtype)


def cpu_max(a, b):  # noqa: ANN001, ANN201
    return np.where(a < b, b, a)


def cpu_min(a, b):  # noqa: ANN001, ANN201
    return np.where(b < a, b, a)


def quotient(target: str, a: np.ndarray, b: np.ndarray, scalar: bool) -> np.ndarray:
    if a.dtype.kind not in "iu":
        return a / b
    if target == "a2a3" and scalar:  # TDivS.hpp: through f32 (int32) / f16 (int16), truncated
        f = np.float32 if a.dtype.itemsize == 4 else np.float16
        return np.trunc(a.astype(f) / np.asarray(b).astype(f)).astype(a.dtype)
    return truncated(a, np.broadcast_to(b, a.shape))


def formula(op: str, target: str):  # noqa: ANN201
    """Each member's formula in the element type (b: src1, or the scalar as the element type)."""
    npu = target != "cpu"
    return {
        "tadd": lambda a, b: a + b,
        "tsub": lambda a, b: a - b,
        "tmul": lambda a, b: a * b,
        "tdiv": lambda a, b: quotient(target, a, b, False),
        "tmax": np.maximum if npu else cpu_max,
        "tmin": np.minimum if npu else cpu_min,
    }[op.removesuffix("s") if op.endswith("s") and op != "tdivs" else op.removesuffix("s")]


def types_of(op: str, target: str) -> tuple[str, ...]:
    if op in ("tmul", "tmuls"):
        return TYPES["tmul"][target]
    if op == "tdiv":
        return TYPES["tdiv"][target]
    if op == "tdivs":
        return TYPES["tdivs"][target]
    return TYPES["arithmetic"][target]


def nonzero(rng: np.random.Generator, dtype: str, shape) -> np.ndarray:  # noqa: ANN001
    """Random values without zeros (divisors), nor -1 (no least-integer-by-minus-one traps)."""
    v = random_values(rng, dtype, shape)
    bad = (v == 0) | ((v == -1) if NP[dtype].kind == "i" else False)
    return np.where(bad, np.array(3, NP[dtype]), v)


def binary_kernel(op: str, shape: tuple[int, int], dtype: str, valid: tuple[int, int], in_place: bool = False) -> str:
    t = tile(shape, dtype, valid=valid)
    if in_place:
        return func([("a", t), ("b", t)], f"pto.{op} ins(%a, %b : {t}, {t}) outs(%a : {t})")
    return func([("a", t), ("b", t), ("d", t)], f"pto.{op} ins(%a, %b : {t}, {t}) outs(%d : {t})")


def scalar_kernel(op: str, shape: tuple[int, int], dtype: str, valid: tuple[int, int], value: str, ssa: str,
                  in_place: bool = False) -> str:
    t = tile(shape, dtype, valid=valid)
    out = "a" if in_place else "d"
    args = [("a", t)] if in_place else [("a", t), ("d", t)]
    return func(args, f"%s = arith.constant {value} : {ssa}\npto.{op} ins(%a, %s : {t}, {ssa}) outs(%{out} : {t})")


def draws(types: tuple[str, ...], target: str, op: str, rows: int = 2) -> Iterator[tuple[str, np.random.Generator, tuple[int, int]]]:
    """(dtype, its generator seeded by the test's target and op, a rows x (64 bytes) shape) for each of `types`."""
    for dtype in types:
        yield dtype, np.random.default_rng(seed(target, op, dtype)), (rows, 64 // NP[dtype].itemsize)


def region(dtype: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """A 4 x (64 bytes) tile with a 3 x (cols - 3) valid region."""
    cols = 64 // NP[dtype].itemsize
    return (4, cols), (3, cols - 3)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", ["tadd", "tsub", "tmul", "tdiv", "tmax", "tmin"])
def test_binary_over_the_valid_region(target: str, op: str) -> None:
    for dtype in types_of(op, target):
        rng = np.random.default_rng(seed(target, op, dtype))
        shape, (vr, vc) = region(dtype)
        a = random_values(rng, dtype, shape)
        b = nonzero(rng, dtype, shape) if op == "tdiv" else random_values(rng, dtype, shape)
        with np.errstate(all="ignore"):
            expected = filled(shape, dtype)
            expected[:vr, :vc] = np.asarray(formula(op, target)(a[:vr, :vc], b[:vr, :vc])).astype(NP[dtype])
        out = run(binary_kernel(op, shape, dtype, (vr, vc)), target, [a, b, filled(shape, dtype)])[-1]
        assert_bits_equal(out, expected)


SCALARS = {"f": ("2.5", "-0.75"), "i": ("3", "-7"), "u": ("3", "200")}
"""Scalar values per element kind (as the constant's text)."""


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", ["tadds", "tsubs", "tmuls", "tdivs", "tmaxs", "tmins"])
def test_tile_scalar_over_the_valid_region(target: str, op: str) -> None:
    for dtype in types_of(op, target):
        dt = NP[dtype]
        rng = np.random.default_rng(seed(target, op, dtype))
        shape, (vr, vc) = region(dtype)
        a = random_values(rng, dtype, shape)
        if op == "tdivs" and target == "a2a3" and dt.kind in "iu":  # exactly representable in the float it goes through
            a = (a % (2**10)).astype(dt)
        for text in SCALARS["f" if dt.kind not in "iu" else dt.kind]:
            ssa = "f32" if dt.kind not in "iu" else f"i{8 * dt.itemsize}"  # arith.constant is signless
            s = np.asarray(float(text) if ssa == "f32" else int(text)).astype(np.float32 if ssa == "f32" else dt).astype(dt)
            with np.errstate(all="ignore"):
                expected = filled(shape, dtype)
                body = quotient(target, a[:vr, :vc], s, True) if op == "tdivs" else formula(op, target)(a[:vr, :vc], s)
                expected[:vr, :vc] = np.asarray(body).astype(dt)
            out = run(scalar_kernel(op, shape, dtype, (vr, vc), text, ssa), target, [a, filled(shape, dtype)])[-1]
            assert_bits_equal(out, expected)


@pytest.mark.parametrize("target", TARGETS)
def test_texpands_fills_the_valid_region(target: str) -> None:
    for dtype, text in (("f32", "-1.5"), ("f16", "0.333"), ("i32", "-5"), ("i16", "1234")):
        shape, (vr, vc) = region(dtype)
        t = tile(shape, dtype, valid=(vr, vc))
        expected = filled(shape, dtype)
        expected[:vr, :vc] = np.asarray(float(text) if "." in text else int(text)).astype(NP[dtype])
        out = run(func([("d", t)], f"%s = arith.constant {text} : {dtype}\npto.texpands ins(%s : {dtype}) outs(%d : {t})"),
                  target, [filled(shape, dtype)])[-1]
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


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", ["tmax", "tmin"])
def test_max_min_nan_and_signed_zero(target: str, op: str) -> None:
    """cpu: std::max/std::min keep src0 where the comparison is false (a NaN in src1 is
    dropped, one in src0 kept; -0 vs +0 gives src0); NPUs: the reference, NaN propagating."""
    x = np.array([[np.nan, 1.0, -0.0, 0.0, 2.0, -3.0, np.nan, 5.0]], np.float32)
    y = np.array([[1.0, np.nan, 0.0, -0.0, 3.0, -4.0, np.nan, 5.0]], np.float32)
    out = run(binary_kernel(op, (1, 8), "f32", (1, 8)), target, [x, y, filled((1, 8), "f32")])[-1]
    if target == "cpu":
        expected = np.where(x < y, y, x) if op == "tmax" else np.where(y < x, y, x)
        assert np.isnan(out[0, 0]) and out[0, 1] == 1.0 and np.signbit(out[0, 2]) and not np.signbit(out[0, 3])
    else:
        expected = np.maximum(x, y) if op == "tmax" else np.minimum(x, y)
        assert np.isnan(out[0, 1])
    assert_bits_equal(out, expected)


@pytest.mark.parametrize("target", TARGETS)
def test_tdiv_float_zero_divisor_is_ieee(target: str) -> None:
    x = np.array([[1.0, -1.0, 0.0, 6.0] * 4], np.float32)
    y = np.array([[0.0, 0.0, 0.0, -0.0] * 4], np.float32)
    out = run(binary_kernel("tdiv", (1, 16), "f32", (1, 16)), target, [x, y, filled((1, 16), "f32")])[-1]
    with np.errstate(all="ignore"):
        assert_bits_equal(out, x / y)


@pytest.mark.parametrize("target", ["cpu", "a5"])
def test_integer_tdiv_zero_divisor_is_a_located_error(target: str) -> None:
    x = np.full((1, 16), 7, np.int32)
    y = np.ones((1, 16), np.int32)
    y[0, 5] = 0
    with pytest.raises(PtoError, match=r"k.pto:2:3: error: 'pto.tdiv' op divides by zero: src1 element \(0, 5\) is 0"):
        run(binary_kernel("tdiv", (1, 16), "i32", (1, 16)), target, [x, y, filled((1, 16), "i32")])
    y[0, 5] = -1
    x[0, 5] = -(2**31)
    with pytest.raises(PtoError, match=r"divides -2147483648 \(src element \(0, 5\)\) by -1"):
        run(binary_kernel("tdiv", (1, 16), "i32", (1, 16)), target, [x, y, filled((1, 16), "i32")])


@pytest.mark.parametrize("target", ["cpu", "a5"])
def test_tdivs_zero_scalar(target: str) -> None:
    """Floats: the IEEE infinity (cpu/TBinSOps.hpp's PTO_ASSERT on a zero scalar is compiled only
    with _DEBUG, which pto-isa's CPU tests do not define); integers: division traps."""
    a = np.array([[1.0, -2.0, 0.0, 3.0] * 4], np.float32)
    out = run(scalar_kernel("tdivs", (1, 16), "f32", (1, 16), "0.0", "f32"), target, [a, filled((1, 16), "f32")])[-1]
    with np.errstate(all="ignore"):
        assert_bits_equal(out, a / np.float32(0))
    with pytest.raises(PtoError, match=r"k.pto:3:3: error: 'pto.tdivs' op divides by zero: the scalar divisor is 0"):
        run(scalar_kernel("tdivs", (1, 16), "i32", (1, 16), "0", "i32"), target, [np.ones((1, 16), np.int32),
                                                                                filled((1, 16), "i32")])


def test_a2a3_integer_tdivs_goes_through_float_and_leaves_src_converted() -> None:
    """TDivS.hpp: src converted to f32 in place, vdiv, truncated back; src keeps the float bits."""
    a = np.array([[7, -7, 100, 16777217] * 4], np.int32)
    out = run(scalar_kernel("tdivs", (1, 16), "i32", (1, 16), "2", "i32"), "a2a3", [a.copy(), filled((1, 16), "i32")])
    assert_bits_equal(out[1], np.trunc(a.astype(np.float32) / np.float32(2)).astype(np.int32))
    assert out[1][0, 3] == 8388608  # 16777217 reaches vdiv as 16777216.0
    assert_bits_equal(out[0], a.astype(np.float32).view(np.int32))


def test_a2a3_float_tdivs_in_place_multiplies_by_the_reciprocal() -> None:
    a = np.array([[1.0, 2.0, 3.0, 10.0] * 4], np.float32)
    out = run(scalar_kernel("tdivs", (1, 16), "f32", (1, 16), "3.0", "f32", in_place=True), "a2a3", [a])[0]
    assert_bits_equal(out, a * (np.float32(1) / np.float32(3)))


@pytest.mark.parametrize("target", TARGETS)
def test_the_scalar_is_its_ssa_type_then_the_element_type(target: str) -> None:
    """An f32 constant is an f32 before it is rounded to f16 (a double rounded straight to f16
    could differ); an integer wraps to the element width; a float truncates into integers."""
    halfway = "1.0004882821813226"  # 1 + 2^-11 + 2^-30: f32 drops 2^-30, f16 then ties to even (1.0)
    zeros = np.zeros((1, 16), np.float16)
    out = run(scalar_kernel("tadds", (1, 16), "f16", (1, 16), halfway, "f32"), target, [zeros, filled((1, 16), "f16")])[-1]
    assert_bits_equal(out, np.full((1, 16), 1.0, np.float16))
    assert np.float16(float(halfway)) != 1.0  # what skipping the f32 rounding would give
    zeros = np.zeros((1, 16), np.int16)
    out = run(scalar_kernel("tadds", (1, 16), "i16", (1, 16), "70000", "i32"), target, [zeros, filled((1, 16), "i16")])[-1]
    assert_bits_equal(out, np.full((1, 16), 70000 - 65536, np.int16))
    out = run(scalar_kernel("tadds", (1, 16), "i16", (1, 16), "-2.9", "f32"), target, [zeros, filled((1, 16), "i16")])[-1]
    assert_bits_equal(out, np.full((1, 16), -2, np.int16))
    with pytest.raises(PtoError, match=r"the scalar 10000000000.0 \(f32\) does not fit int16"):
        run(scalar_kernel("tadds", (1, 16), "i16", (1, 16), "1.0e10", "f32"), target, [zeros, filled((1, 16), "i16")])


@pytest.mark.parametrize("target", TARGETS)
def test_tile_scalar_in_place_over_src(target: str) -> None:
    a = np.arange(32, dtype=np.float32).reshape(2, 16)
    out = run(scalar_kernel("tmuls", (2, 16), "f32", (2, 16), "0.5", "f32", in_place=True), target, [a])[0]
    assert_bits_equal(out, a * np.float32(0.5))


# -- bitwise, shifts, remainders, leaky ReLU --------------------------------------------------

INTS = ("i8", "ui8", "i16", "ui16", "i32", "ui32", "i64")
BITWISE_TYPES = {"cpu": INTS, "a2a3": ("i8", "ui8", "i16", "ui16", "i32", "ui32"), "a5": ("i8", "ui8", "i16", "ui16", "i32", "ui32")}
SHIFT_TYPES = {"cpu": INTS, "a2a3": ("i8", "ui8", "i16", "ui16", "i32", "ui32"), "a5": INTS}
SCALAR_SHIFT_TYPES = {"cpu": INTS, "a2a3": ("i16", "ui16", "i32", "ui32"), "a5": INTS}
FMOD_TYPES = {"cpu": ("i8", "i16", "i32", "i64", "f16", "bf16", "f32"), "a2a3": ("f32",), "a5": ("i16", "ui16", "i32", "f16", "f32")}


def c_shift_left(a: np.ndarray, n: np.ndarray) -> np.ndarray:
    """a * 2**n modulo the element's range (C++20 shifts of the promoted value, then truncated)."""
    return (a.astype(object) * (2 ** n.astype(object)) % (2 ** (8 * a.dtype.itemsize))).astype(np.uint64).astype(
        f"u{a.dtype.itemsize}").view(a.dtype)


def c_shift_right(a: np.ndarray, n: np.ndarray) -> np.ndarray:
    """floor(a / 2**n): arithmetic for signed, logical for unsigned."""
    return (a.astype(object) // (2 ** n.astype(object))).astype(np.int64 if a.dtype.kind == "i" else np.uint64).astype(a.dtype)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", ["tand", "tor"])
def test_bitwise_over_the_valid_region(target: str, op: str) -> None:
    for dtype, rng, shape in draws(BITWISE_TYPES[target], target, op, rows=3):
        vr, vc = 2, shape[1] - 4  # an even column count: no 8-bit pair reaches past it
        a, b = random_values(rng, dtype, shape), random_values(rng, dtype, shape)
        expected = filled(shape, dtype)
        expected[:vr, :vc] = (a & b if op == "tand" else a | b)[:vr, :vc]
        out = run(binary_kernel(op, shape, dtype, (vr, vc)), target, [a, b, filled(shape, dtype)])[-1]
        assert_bits_equal(out, expected)


@pytest.mark.parametrize("target", TARGETS)
def test_8bit_bitwise_with_an_odd_valid_width(target: str) -> None:
    """a2a3 pairs 8-bit elements into 16-bit lanes (B82B16Trait): with 5 valid columns, the
    sixth is computed too; the others touch the valid region only."""
    a = np.arange(32, dtype=np.uint8).reshape(1, 32) * 3
    b = np.full((1, 32), 0x0F, np.uint8)
    out = run(binary_kernel("tand", (1, 32), "ui8", (1, 5)), target, [a, b, filled((1, 32), "ui8")])[-1]
    expected = filled((1, 32), "ui8")
    width = 6 if target == "a2a3" else 5
    expected[:, :width] = (a & b)[:, :width]
    assert_bits_equal(out, expected)


def test_a2a3_tands_in_place_is_refused() -> None:
    with pytest.raises(PtoError, match=r"'pto.tands' op in place: a2a3 TBitwiseSOp.hpp fills dst with the scalar"):
        run(scalar_kernel("tands", (1, 16), "i16", (1, 16), "3", "i16", in_place=True), "a2a3", [np.ones((1, 16), np.int16)])


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", ["tshl", "tshr"])
def test_shifts_by_counts_below_the_element_width(target: str, op: str) -> None:
    for dtype, rng, shape in draws(SHIFT_TYPES[target], target, op):
        a = random_values(rng, dtype, shape)
        n = rng.integers(0, 8 * NP[dtype].itemsize, size=shape).astype(NP[dtype])
        expected = (c_shift_left if op == "tshl" else c_shift_right)(a, n)
        out = run(binary_kernel(op, shape, dtype, shape), target, [a, n, filled(shape, dtype)])[-1]
        assert_bits_equal(out, expected)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", ["tshls", "tshrs"])
def test_scalar_shifts(target: str, op: str) -> None:
    for dtype, rng, shape in draws(SCALAR_SHIFT_TYPES[target], target, op):
        a = random_values(rng, dtype, shape)
        count = 5
        expected = (c_shift_left if op == "tshls" else c_shift_right)(a, np.full(shape, count, NP[dtype]))
        ssa = f"i{8 * NP[dtype].itemsize}"
        out = run(scalar_kernel(op, shape, dtype, shape, str(count), ssa), target, [a, filled(shape, dtype)])[-1]
        assert_bits_equal(out, expected)


@pytest.mark.parametrize("target", TARGETS)
def test_shift_counts_past_the_width(target: str) -> None:
    """An i16 shifted by 20: C++ shifts the promoted int (cpu, a2a3's TSHL loop: the bits leave
    the element, 0); a5's vector shift leaves it undefined (a run-time error). 40 is past int."""
    a = np.full((1, 16), 3, np.int16)
    n = np.full((1, 16), 20, np.int16)
    if target == "a5":
        with pytest.raises(PtoError, match=r"'pto.tshl' op shifts by 20 \(src1 element \(0, 0\)\): counts from 0 to 15"):
            run(binary_kernel("tshl", (1, 16), "i16", (1, 16)), target, [a, n, filled((1, 16), "i16")])
    else:
        out = run(binary_kernel("tshl", (1, 16), "i16", (1, 16)), target, [a, n, filled((1, 16), "i16")])[-1]
        assert_bits_equal(out, np.zeros((1, 16), np.int16))
    n[...] = 3
    n[0, 7] = 40
    with pytest.raises(PtoError, match=r"shifts by 40 \(src1 element \(0, "):
        run(binary_kernel("tshl", (1, 16), "i16", (1, 16)), target, [a, n, filled((1, 16), "i16")])


@pytest.mark.parametrize("target", TARGETS)
def test_tfmod_keeps_the_sign_of_src0(target: str) -> None:
    for dtype, rng, shape in draws(FMOD_TYPES[target], target, "tfmod"):
        a = random_values(rng, dtype, shape)
        b = nonzero(rng, dtype, shape)
        if NP[dtype].kind in "iu":
            expected = (np.sign(a.astype(object)) * (np.abs(a.astype(object)) % np.abs(b.astype(object)))).astype(np.int64).astype(NP[dtype])
        else:
            expected = np.fmod(a.astype(np.float64), b.astype(np.float64)).astype(NP[dtype])
        out = run(binary_kernel("tfmod", shape, dtype, shape), target, [a, b, filled(shape, dtype)])[-1]
        assert_bits_equal(out, expected)


@pytest.mark.parametrize("target", TARGETS)
def test_tfmod_zero_divisor(target: str) -> None:
    """cpu/ElementOp.h asserts src1 != 0 (floats too); the NPUs' reference: fmod's NaN."""
    a = np.full((1, 16), 5.0, np.float32)
    b = np.ones((1, 16), np.float32)
    b[0, 3] = 0.0
    kernel = binary_kernel("tfmod", (1, 16), "f32", (1, 16))
    if target == "cpu":
        with pytest.raises(PtoError, match=r"'pto.tfmod' op divides by zero: src1 element \(0, 3\) is 0 \(the simulator asserts"):
            run(kernel, target, [a, b, filled((1, 16), "f32")])
    else:
        out = run(kernel, target, [a, b, filled((1, 16), "f32")])[-1]
        assert np.isnan(out[0, 3]) and (out[0, :3] == 0).all()


@pytest.mark.parametrize("target", TARGETS)
def test_tfmods_and_tlrelu(target: str) -> None:
    x = np.array([[7.5, -7.5, 0.0, -0.0, np.nan, 1e30, -3.25, 2.0] * 2], np.float32)
    out = run(scalar_kernel("tfmods", (1, 16), "f32", (1, 16), "2.0", "f32"), target, [x, filled((1, 16), "f32")])[-1]
    with np.errstate(invalid="ignore"):
        assert_bits_equal(out, np.fmod(x, np.float32(2.0)))
    out = run(scalar_kernel("tlrelu", (1, 16), "f32", (1, 16), "0.125", "f32"), target, [x, filled((1, 16), "f32")])[-1]
    with np.errstate(invalid="ignore"):
        assert_bits_equal(out, np.where(x > 0, x, x * np.float32(0.125)))


# -- the members with a tmp -------------------------------------------------------------------

REM_TYPES = {"cpu": ("i8", "i16", "i32", "i64", "f16", "f32"), "a2a3": ("i32", "f32"), "a5": ("i16", "i32", "i64", "f16", "f32")}
POW_TYPES = {"cpu": ("i8", "ui8", "i16", "i32", "ui32", "f16", "f32"), "a2a3": ("i8", "i16", "i32", "f32"),
             "a5": ("i8", "i16", "i32", "f16", "f32")}


def tmp_kernel(op: str, shape: tuple[int, int], dtype: str, scalar: tuple[str, str] | None = None) -> str:
    """With a tmp of dst's tile type (every target's rule takes it: the simulator's TXORS and
    TREMS want that type, a2a3's TREM room for a row and its compare mask)."""
    t = tile(shape, dtype)
    tmp = t
    if scalar is None:
        return func([("a", t), ("b", t), ("tm", tmp), ("d", t)], f"pto.{op} ins(%a, %b, %tm : {t}, {t}, {tmp}) outs(%d : {t})")
    value, ssa = scalar
    return func([("a", t), ("tm", tmp), ("d", t)],
                f"%s = arith.constant {value} : {ssa}\npto.{op} ins(%a, %s, %tm : {t}, {ssa}, {tmp}) outs(%d : {t})")


def floor_mod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind in "iu":
        return (a.astype(object) % b.astype(object)).astype(np.int64).astype(a.dtype)
    r = np.fmod(a.astype(np.float64), b.astype(np.float64)).astype(a.dtype)
    return np.where(((a >= 0) != (b >= 0)) & (r != 0), r + b, r)


def int_pow(a: np.ndarray, e: np.ndarray) -> np.ndarray:
    bits = 8 * a.dtype.itemsize
    out = []
    for x, n in zip(a.ravel().tolist(), e.ravel().tolist()):
        if n == 0 or x == 1:
            out.append(1)
        elif n < 0:
            out.append((1 if n % 2 == 0 else -1) if x == -1 else 0)
        else:
            out.append(pow(x, n, 2**bits))
    return np.array(out, dtype=object).astype(np.int64).astype(np.uint64).astype(f"u{a.dtype.itemsize}").view(a.dtype).reshape(a.shape)


@pytest.mark.parametrize("target", TARGETS)
def test_trem_takes_the_sign_of_src1(target: str) -> None:
    for dtype, rng, shape in draws(REM_TYPES[target], target, "trem"):
        a, b = random_values(rng, dtype, shape), nonzero(rng, dtype, shape)
        out = run(tmp_kernel("trem", shape, dtype), target, [a, b, filled(shape, dtype), filled(shape, dtype)])[-1]
        assert_bits_equal(out, floor_mod(a, b))


@pytest.mark.parametrize("target", TARGETS)
def test_txor_and_txors(target: str) -> None:
    for dtype, rng, shape in draws(("i8", "ui16", "i32"), target, "txor"):
        a, b = random_values(rng, dtype, shape), random_values(rng, dtype, shape)
        out = run(tmp_kernel("txor", shape, dtype), target, [a, b, filled(shape, dtype), filled(shape, dtype)])[-1]
        assert_bits_equal(out, a ^ b)
        out = run(tmp_kernel("txors", shape, dtype, ("5", f"i{8 * NP[dtype].itemsize}")), target,
                  [a, filled(shape, dtype), filled(shape, dtype)])[-1]
        assert_bits_equal(out, a ^ np.array(5).astype(NP[dtype]))


@pytest.mark.parametrize("target", TARGETS)
def test_tpow(target: str) -> None:
    for dtype, rng, shape in draws(POW_TYPES[target], target, "tpow"):
        if NP[dtype].kind in "iu":
            a = rng.integers(-3 if NP[dtype].kind == "i" else 0, 4, shape).astype(NP[dtype])
            e = rng.integers(-2 if NP[dtype].kind == "i" else 0, 40, shape).astype(NP[dtype])
            expected = int_pow(a, e)
        else:
            a = np.abs(random_values(rng, dtype, shape)) / 64
            e = (rng.integers(-8, 9, shape) / 4).astype(NP[dtype])
            wide = np.power(a.astype(np.float64), e.astype(np.float64))
            expected = wide.astype(np.float32).astype(NP[dtype]) if dtype == "f16" else wide.astype(NP[dtype])
        out = run(tmp_kernel("tpow", shape, dtype), target, [a, e, filled(shape, dtype), filled(shape, dtype)])[-1]
        assert_bits_equal(out, expected)


@pytest.mark.parametrize("target", TARGETS)
def test_tpows(target: str) -> None:
    """Straight from double for every type (cpu ElementOp.h OP_POWS), integers truncated."""
    a = np.array([[0.5, 2.0, 3.0, 10.0] * 4], np.float32)
    out = run(tmp_kernel("tpows", (1, 16), "f32", ("1.5", "f32")), target, [a, filled((1, 16), "f32"), filled((1, 16), "f32")])[-1]
    assert_bits_equal(out, np.power(a.astype(np.float64), 1.5).astype(np.float32))
    i = np.array([[2, 3, -2, 5] * 8], np.int32)
    out = run(tmp_kernel("tpows", (1, 32), "i32", ("3", "i32")), target, [i, filled((1, 32), "i32"), filled((1, 32), "i32")])[-1]
    assert_bits_equal(out, i**3)


def test_cpu_tpow_nan_signs_are_glibcs() -> None:
    """cpu/TPow.hpp calls glibc's pow on doubles (the operands converted by x86, so quiet): a NaN
    base to an odd integer power comes out with its sign flipped (glibc squares it and negates
    the square), to an even or negative even power keeps it; pow(NaN, 0) = pow(1, NaN) = 1, even
    for a signalling NaN; a negative base to a fraction is x86's default NaN (0/0)."""
    bits = [0xFFC01234, 0xFFC01234, 0xFFC01234, 0x7FC05678, 0x7F800001, 0x3F800000, 0xC0000000, 0xFFC01234]
    powers = [0x40400000, 0x40000000, 0xC0400000, 0x40400000, 0x00000000, 0x7F800001, 0x3F000000, 0xC0000000]
    expected = [0x7FC01234, 0xFFC01234, 0x7FC01234, 0x7FC05678, 0x3F800000, 0x3F800000, 0xFFC00000, 0xFFC01234]
    a, e = (np.array([v], np.uint32).view(np.float32) for v in (bits, powers))
    out = run(tmp_kernel("tpow", (1, 8), "f32"), "cpu", [a, e, filled((1, 8), "f32"), filled((1, 8), "f32")])[-1]
    assert_bits_equal(out, np.array([expected], np.uint32).view(np.float32))
    scalar = run(tmp_kernel("tpows", (1, 8), "f32", ("3.0", "f32")), "cpu", [a, filled((1, 8), "f32"), filled((1, 8), "f32")])[-1]
    assert scalar.view(np.uint32)[0, 0] == 0x7FC01234  # -NaN ** 3


def test_cpu_bf16_keeps_a_lone_nan_operands_payload() -> None:
    """The simulator's bf16 arithmetic runs in float (x86: a lone NaN operand comes back quieted,
    its payload kept) and converts back keeping the payload's top 7 bits: 0x7F81 (signalling)
    + 1 is 0x7FC1, 1 - 0xFFC5 is 0xFFC5; a scalar f32 NaN 0x7FA12345 becomes bf16 0x7FE1."""
    bf16 = NP["bf16"]
    a = np.array([[0x7F81, 0x3F80, 0xFFC5, 0x4000] * 4], np.uint16).view(bf16)
    b = np.array([[0x3F80, 0xFFC5, 0x3F80, 0x3F80] * 4], np.uint16).view(bf16)
    out = run(binary_kernel("tsub", (1, 16), "bf16", (1, 16)), "cpu", [a, b, filled((1, 16), "bf16")])[-1]
    assert_bits_equal(out, np.array([[0x7FC1, 0xFFC5, 0xFFC5, 0x3F80] * 4], np.uint16).view(bf16))
    nan = float(np.array([0x7FA12345], np.uint32).view(np.float32)[0])
    kernel = scalar_kernel("tadds", (1, 16), "bf16", (1, 16), "0x7FA12345", "f32")
    out = run(kernel, "cpu", [b, filled((1, 16), "bf16")])[-1]
    assert np.isnan(nan)
    assert_bits_equal(out, np.array([[0x7FE1, 0xFFC5, 0x7FE1, 0x7FE1] * 4], np.uint16).view(bf16))


def test_cpu_trems_and_tfmods_skip_a_zero_scalar() -> None:
    """cpu/TBinSOps.hpp runs their loop only for a nonzero scalar (PTO_ASSERT is off): dst keeps its values."""
    a = np.arange(16, dtype=np.float32).reshape(1, 16)
    out = run(tmp_kernel("trems", (1, 16), "f32", ("0.0", "f32")), "cpu", [a, filled((1, 16), "f32"), filled((1, 16), "f32")])[-1]
    assert_bits_equal(out, filled((1, 16), "f32"))
    out = run(scalar_kernel("tfmods", (1, 16), "f32", (1, 16), "0.0", "f32"), "cpu", [a, filled((1, 16), "f32")])[-1]
    assert_bits_equal(out, filled((1, 16), "f32"))


@pytest.mark.parametrize("target", TARGETS)
def test_an_omitted_tmp_is_added(target: str) -> None:
    """pto-materialize-implicit-tmp (run by pto-run's pipeline) gives TREM the tmp its target wants."""
    t = tile((2, 16), "f32")
    a = np.array([[7.0, -7.0, 7.5, -0.5] * 8], np.float32).reshape(2, 16)
    b = np.array([[2.0, 2.0, -2.0, 3.0] * 8], np.float32).reshape(2, 16)
    out = run(func([("a", t), ("b", t), ("d", t)], f"pto.trem ins(%a, %b : {t}, {t}) outs(%d : {t})"), target,
              [a, b, filled((2, 16), "f32")])[-1]
    assert_bits_equal(out, floor_mod(a, b))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("op", "dtype"), [("tadd", "f32"), ("tmul", "f32"), ("tadd", "f16"), ("tsub", "f32"), ("tsub", "f16"),
                                           ("tdiv", "f32")])
def test_both_nan_payload(target: str, op: str, dtype: str) -> None:
    """Both operands NaN: x86 keeps the first operand's payload, quieted; the simulator's g++
    build issues src0 + src1 and src0 * src1 with src1 first (bench/simdiff showed it), src0 - src1
    with src0 first. The NPUs: the reference's (NumPy's: src0)."""
    bits = f"u{NP[dtype].itemsize}"
    quiet, nan = (0x0200, 0x7C00) if dtype == "f16" else (0x00400000, 0x7F800000)
    a = np.full((1, 32 // NP[dtype].itemsize * 2), nan | quiet | 1, bits).view(NP[dtype])
    b = np.full(a.shape, nan | 5, bits).view(NP[dtype])  # signalling
    out = run(binary_kernel(op, a.shape, dtype, a.shape), target, [a, b, filled(a.shape, dtype)])[-1]
    second = target == "cpu" and op in ("tadd", "tmul")
    expected = (nan | quiet | 5) if second else (nan | quiet | 1)
    assert (out.view(bits) == expected).all(), hex(int(out.view(bits)[0, 0]))


@pytest.mark.parametrize("target", TARGETS)
def test_tdivs_scalar_first_divides_the_scalar(target: str) -> None:
    """`ins(%s, %src : S, T)`: dst = scalar / src (pto-isa's TDIVS(dst, scalar, src)); a2a3's
    integers through f32 (src left converted), the simulator asserting nonzero src elements."""
    t, ti = tile((1, 16), "f32"), tile((1, 16), "i32")
    a = np.arange(1, 17, dtype=np.float32).reshape(1, 16)
    text = func([("a", t), ("d", t)], f"%s = arith.constant 3.0 : f32\npto.tdivs ins(%s, %a : f32, {t}) outs(%d : {t})")
    assert_bits_equal(run(text, target, [a, filled((1, 16), "f32")])[-1], np.float32(3) / a)
    x = np.arange(-8, 8, dtype=np.int32).reshape(1, 16)
    x[0, 8] = 7  # no zero
    text = func([("a", ti), ("d", ti)], f"%s = arith.constant 100 : i32\npto.tdivs ins(%s, %a : i32, {ti}) outs(%d : {ti})")
    src, out = run(text, target, [x.copy(), filled((1, 16), "i32")])
    assert_bits_equal(out, truncated(np.full((1, 16), 100, np.int32), x))
    assert_bits_equal(src, x.astype(np.float32).view(np.int32) if target == "a2a3" else x)
    a[0, 3] = 0
    text = func([("a", t), ("d", t)], f"%s = arith.constant 3.0 : f32\npto.tdivs ins(%s, %a : f32, {t}) outs(%d : {t})")
    if target == "cpu":
        with pytest.raises(PtoError, match=r"'pto.tdivs' op divides the scalar by zero: src element \(0, 3\) is 0"):
            run(text, target, [a, filled((1, 16), "f32")])
    else:
        assert np.isinf(run(text, target, [a, filled((1, 16), "f32")])[-1][0, 3])


def test_trem_in_place_over_src1_is_refused() -> None:
    """The simulator's OP_REM reads src1 again after writing dst (`if (... (src1 >= 0) ...) dst += src1`)."""
    t = tile((1, 16), "f32")
    with pytest.raises(PtoError, match=r"'pto.trem' op .*dst over src1: the simulator's C\+\+ reads that element again"):
        run(func([("a", t), ("b", t), ("m", t)], f"pto.trem ins(%a, %b, %m : {t}, {t}, {t}) outs(%b : {t})"), "cpu",
            [np.ones((1, 16), np.float32)] * 3)


def test_cpu_txors_tmp_has_dst_type() -> None:
    t, small = tile((2, 16), "i16"), tile((1, 16), "i16")
    kernel = func([("a", t), ("m", small), ("d", t)],
                  f"%s = arith.constant 3 : i16\npto.txors ins(%a, %s, %m : {t}, i16, {small}) outs(%d : {t})")
    with pytest.raises(PtoError, match=r"expects tmp to have dst's tile type \(the simulator's C\+\+ takes it as a TileDst&\)"):
        run(kernel, "cpu", [np.ones((2, 16), np.int16), np.ones((1, 16), np.int16), np.ones((2, 16), np.int16)])


SUBRELU_TYPES = {"cpu": EVERY, "a2a3": ("f16", "f32"), "a5": ("f16", "f32")}
"""cpu: BINARY_OP_DEF(SUBRELU), any type; npu/a2a3 and npu/a5 TSubRelu.hpp: half and float."""


def subrelu(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """cpu OP_SUBRELU, (d > 0) ? d : 0: integers as exact Python integers (8/16-bit ones promoted
    to int, so the ReLU sees the true difference and the store wraps it; 32/64-bit unsigned ones wrap
    first), floats through float64 rounded once to the element type."""
    if a.dtype.kind in "iu":
        d = a.astype(object) - b.astype(object)
        if a.dtype.kind == "u" and a.dtype.itemsize >= 4:
            d = d % (1 << (8 * a.dtype.itemsize))
        wrapped = np.where(d > 0, d, 0) % (1 << (8 * a.dtype.itemsize))
        return wrapped.astype(np.uint64).astype(f"u{a.dtype.itemsize}").view(a.dtype)
    d = (a.astype(np.float64) - b.astype(np.float64)).astype(a.dtype)
    return np.where(d > 0, d, np.zeros((), a.dtype))


@pytest.mark.parametrize("target", TARGETS)
def test_tsubrelu_over_the_valid_region(target: str) -> None:
    for dtype in SUBRELU_TYPES[target]:
        rng = np.random.default_rng(seed(target, "tsubrelu", dtype))
        shape, (vr, vc) = region(dtype)
        a, b = random_values(rng, dtype, shape), random_values(rng, dtype, shape)
        if dtype == "i32":  # no signed overflow (its own test below)
            a, b = a // 2, b // 2
        expected = filled(shape, dtype)
        expected[:vr, :vc] = subrelu(a[:vr, :vc], b[:vr, :vc])
        out = run(binary_kernel("tsubrelu", shape, dtype, (vr, vc)), target, [a, b, filled(shape, dtype)])[-1]
        assert_bits_equal(out, expected)


@pytest.mark.parametrize("target", TARGETS)
def test_tsubrelu_nan_and_signed_zero_give_plus_zero(target: str) -> None:
    """(d > 0) ? d : 0: a NaN difference and -0.0 give +0.0 (on the NPUs the reference: approximate)."""
    x = np.array([[np.nan, 1.0, -0.0, 0.0, 2.0, np.inf, np.inf, -1.0]], np.float32)
    y = np.array([[1.0, np.nan, 0.0, -0.0, 2.0, np.inf, -np.inf, -3.0]], np.float32)
    out = run(binary_kernel("tsubrelu", (1, 8), "f32", (1, 8)), target, [x, y, filled((1, 8), "f32")])[-1]
    assert_bits_equal(out, np.array([[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, np.inf, 2.0]], np.float32))


def test_cpu_tsubrelu_promotes_narrow_integers() -> None:
    """8-bit operands subtract in int: 100 - (-100) = 200 passes the ReLU, then wraps to -56; -128 - 1 = -129
    is cut to 0 (in int8 it would have wrapped to 127 first); uint8 3 - 5 is 0."""
    a = np.array([[100, -128, 5, -5] * 4], np.int8)
    b = np.array([[-100, 1, 3, -5] * 4], np.int8)
    out = run(binary_kernel("tsubrelu", (1, 32), "i8", (1, 16)), "cpu", [np.resize(a, (1, 32)), np.resize(b, (1, 32)),
                                                                       filled((1, 32), "i8")])[-1]
    assert_bits_equal(out[:, :16], np.array([[-56, 0, 2, 0] * 4], np.int8))
    u = run(binary_kernel("tsubrelu", (1, 32), "ui8", (1, 32)), "cpu",
            [np.full((1, 32), 3, np.uint8), np.full((1, 32), 5, np.uint8), filled((1, 32), "ui8")])[-1]
    assert_bits_equal(u, np.zeros((1, 32), np.uint8))


def test_cpu_tsubrelu_signed_overflow_is_a_located_error() -> None:
    a = np.zeros((1, 16), np.int32)
    b = np.ones((1, 16), np.int32)
    a[0, 9], b[0, 9] = 2**31 - 1, -1
    with pytest.raises(PtoError, match=r"k.pto:2:3: error: 'pto.tsubrelu' op src0 - src1 overflows int32 at element \(0, 9\)"):
        run(binary_kernel("tsubrelu", (1, 16), "i32", (1, 16)), "cpu", [a, b, filled((1, 16), "i32")])
