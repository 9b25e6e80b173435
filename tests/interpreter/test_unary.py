"""
The unary elementwise family on every target, against formulas written here from pto-isa's code:
cpu/ElementOp.h (OP_EXP: half through expf, other types `static_cast<T>(std::exp(double))`; OP_LOG,
OP_NEG, OP_NOT, OP_RELU = std::max(src, 0)), cpu/TAbs.hpp (`src < 0 ? -src : src`), cpu/TSqrt.hpp
and cpu/TRSqrt.hpp (double), and TRECIP = TDIVS(dst, 1, src) (cpu/TBinSOps.hpp OP_RDIVS, which
asserts on a zero element). On a2a3 and a5 the transcendentals, TABS and TRELU are approximate
(a hardware intrinsic no public code fixes): the interpreter gives the reference written here (IEEE
abs, division by zero giving inf, NumPy's float32 exp for f32) and the lowered op records `numerics =
approximate`.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import interpreter
from pto_dialect import PtoError, parse
from tests.interpreter.harness import NP, TARGETS, assert_bits_equal, filled, func, seed, tile

COVERS = ("pto.tabs", "pto.tneg", "pto.tnot", "pto.texp", "pto.tlog", "pto.tsqrt", "pto.trsqrt", "pto.trecip", "pto.trelu")
"""The instructions whose results these tests check against their own formulas, per target."""

SIGNED = ("i8", "i16", "i32")
TYPES = {
    "cpu": {"tabs": SIGNED + ("f16", "bf16", "f32"), "tneg": ("i8", "ui16", "i32", "i64", "f16", "bf16", "f32"),
            "tnot": ("i8", "ui8", "i16", "i32", "i64"), "trelu": ("i16", "i32", "f16", "bf16", "f32"),
            "texp": ("f16", "bf16", "f32"), "tlog": ("f16", "bf16", "f32"), "tsqrt": ("f16", "bf16", "f32"),
            "trsqrt": ("f16", "f32"), "trecip": ("i16", "i32", "ui64", "f16", "bf16", "f32")},
    "a2a3": {"tabs": ("f16", "f32"), "tneg": ("i16", "i32", "f16", "f32"), "tnot": ("i16", "i32"),
             "trelu": ("i32", "f16", "f32"), **{m: ("f16", "f32") for m in ("texp", "tlog", "tsqrt", "trsqrt", "trecip")}},
    "a5": {"tabs": SIGNED + ("f16", "f32"), "tneg": SIGNED + ("f16", "bf16", "f32"), "tnot": ("i8", "ui16", "i32"),
           "trelu": ("i32", "f16", "f32"), **{m: ("f16", "f32") for m in ("texp", "tlog", "tsqrt", "trsqrt", "trecip")}},
}
"""Element types each target takes per member (its rule rows'; checked independently by the lit tests)."""


def to_type(exact: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """float64 values rounded once, to nearest even, to `dtype`: for bf16 the nearer of the two
    bf16 neighbours of ml_dtypes' (possibly twice rounded) result, ties to an even mantissa; a
    NaN keeps its sign and its payload's top 7 bits, quieted (C++'s double -> bf16 cast)."""
    if dtype != NP["bf16"]:
        return exact.astype(dtype)
    bits = np.asarray(exact, np.float64).view(np.uint64)
    sign, payload = (bits >> np.uint64(63)) << np.uint64(15), (bits >> np.uint64(45)) & np.uint64(0x7F)
    nan_bits = (sign | payload | np.uint64(0x7FC0)).astype(np.uint16).view(dtype)
    return np.where(np.isnan(exact), nan_bits, rounded_bf16(exact, dtype))


def rounded_bf16(exact: np.ndarray, dtype: np.dtype) -> np.ndarray:
    first = exact.astype(dtype)
    bits = first.view(np.uint16).astype(np.int32)
    down, up = (bits - 1).astype(np.uint16).view(dtype), (bits + 1).astype(np.uint16).view(dtype)
    best = first.copy()
    for other in (down, up):
        d_best = np.abs(best.astype(np.float64) - exact)
        d_other = np.abs(other.astype(np.float64) - exact)
        even = (other.view(np.uint16) & 1) == 0
        better = np.isfinite(exact) & np.isfinite(other.astype(np.float64)) & (
            (d_other < d_best) | ((d_other == d_best) & even)
        )
        best = np.where(better, other, best)
    return best


def quieted(result, x):
    """A 2-byte float's NaN with its quiet bit set (arithmetic through float quiets it)."""
    quiet = 0x0200 if x.dtype == np.float16 else 0x0040
    return np.where(np.isnan(x), result.view(np.uint16) | quiet, result.view(np.uint16)).view(x.dtype)


def in_double(f):
    return lambda x: to_type(f(x.astype(np.float64)), x.dtype)


def cpu_exp(x):
    if x.dtype == np.float16:  # expf: exp rounded to float, then to half
        return np.exp(x.astype(np.float64)).astype(np.float32).astype(np.float16)
    return to_type(np.exp(x.astype(np.float64)), x.dtype)


def c_reciprocal(x):
    if x.dtype.kind in "iu":  # C's 1 / x: 1 and (signed) -1 give themselves, every other non-zero 0
        return np.array([int(1 / v) if v in (1, -1) and (v == 1 or x.dtype.kind == "i") else 0 for v in x.ravel().tolist()],
                        x.dtype).reshape(x.shape)
    quotient = (np.float64(1) / x.astype(np.float64)).astype(x.dtype)  # exact in double, rounded once
    if x.dtype == NP["bf16"]:  # a NaN divisor comes back quieted, its payload kept (ml_dtypes drops it)
        return quieted(np.where(np.isnan(x), x, quotient), x)
    return quotient


CPU = {
    "tabs": lambda x: np.where(x < 0, -x, x),
    "tneg": lambda x: -x if x.dtype.kind in "iu" or x.dtype.itemsize != 2 else quieted(-x, x),
    "tnot": lambda x: ~x,
    "trelu": lambda x: np.where(x < 0, np.zeros_like(x), x),
    "texp": cpu_exp,
    "tlog": in_double(np.log),
    "tsqrt": in_double(np.sqrt),
    "trsqrt": in_double(lambda d: 1 / np.sqrt(d)),
    "trecip": c_reciprocal,
}
def sign_cleared(x):
    bits = x.view(f"u{x.dtype.itemsize}")
    return (bits & ~np.array(1 << (8 * x.dtype.itemsize - 1), bits.dtype)).view(x.dtype)


def npu_exp(x):
    """The NPUs' reference for vexp (approximate): NumPy's float32 exp for f32, cpu's formula else."""
    return np.exp(x) if x.dtype == np.float32 else cpu_exp(x)


NPU = {**CPU, "tabs": lambda x: np.abs(x) if x.dtype.kind in "iu" else sign_cleared(x), "texp": npu_exp}
FORMULAS = {"cpu": CPU, "a2a3": NPU, "a5": NPU}


def unary_kernel(op: str, shape: tuple[int, int], dtype: str, valid: tuple[int, int], in_place: bool = False) -> str:
    t = tile(shape, dtype, valid=valid)
    if in_place:
        return func([("a", t)], f"pto.{op} ins(%a : {t}) outs(%a : {t})")
    return func([("a", t), ("d", t)], f"pto.{op} ins(%a : {t}) outs(%d : {t})")


def inputs(rng: np.random.Generator, op: str, dtype: str, shape: tuple[int, int]) -> np.ndarray:
    """Values each member is defined on, and its edges: signed zeros, infinities, NaN, the integer
    extremes (no zero for TRECIP, which the simulator refuses: see the fault test)."""
    dt = NP[dtype]
    if dt.kind in "iu":
        info = np.iinfo(dt)
        x = rng.integers(0, 2**63, size=shape, dtype=np.uint64) if dt == np.uint64 else \
            rng.integers(info.min, int(info.max) + 1, size=shape, dtype=np.int64)
        x.flat[:4] = [info.min, info.max, 0, 1]
        if op == "trecip":
            x[x == 0] = 3 if dt.kind == "u" else -1
        return x.astype(dt)
    x = rng.standard_normal(shape) * (4 if op == "texp" else 100)
    if op in ("tlog", "tsqrt", "trsqrt"):
        x = np.abs(x)
    x = x.astype(dt)
    edges = [np.inf, -np.inf, np.nan, -0.0, 0.0, -1.0, 1e-30] if op != "trecip" else [np.inf, -np.inf, np.nan, -1.0]
    x.flat[: len(edges)] = np.array(edges, np.float64).astype(dt)
    signalling = {2: 0x7C01 if dtype == "f16" else 0x7F81, 4: 0x7F800001}[dt.itemsize]  # a NaN with the quiet bit clear
    x.view(f"u{dt.itemsize}").flat[len(edges)] = signalling
    return x


CASES = [(t, op, dtype) for t in TARGETS for op, types in TYPES[t].items() for dtype in types]


@pytest.mark.parametrize(("target", "op", "dtype"), CASES, ids=["-".join(c) for c in CASES])
def test_unary_over_the_valid_region(target: str, op: str, dtype: str) -> None:
    rng = np.random.default_rng(seed(target, op, dtype))
    cols = 64 // NP[dtype].itemsize
    shape, valid = (4, cols), (3, cols - 3)
    a = inputs(rng, op, dtype, shape)
    expected = filled(shape, dtype)
    with np.errstate(all="ignore"):
        expected[:3, : cols - 3] = FORMULAS[target][op](a[:3, : cols - 3])
    out = interpreter.run(parse(unary_kernel(op, shape, dtype, valid), "k.pto"), target, [a, filled(shape, dtype)])[-1]
    assert_bits_equal(out, expected)


@pytest.mark.parametrize("target", TARGETS)
def test_unary_in_place(target: str) -> None:
    a = np.linspace(-3, 3, 32, dtype=np.float32).reshape(2, 16)
    out = interpreter.run(parse(unary_kernel("texp", (2, 16), "f32", (2, 16), in_place=True), "k.pto"), target, [a.copy()])[0]
    assert_bits_equal(out, FORMULAS[target]["texp"](a))


def test_tabs_of_negative_zero_keeps_its_sign_on_cpu_only() -> None:
    a = np.array([[-0.0, 0.0, -np.inf, -2.5] * 4], np.float32)
    kernel = parse(unary_kernel("tabs", (1, 16), "f32", (1, 16)), "k.pto")
    cpu = interpreter.run(kernel, "cpu", [a, filled((1, 16), "f32")])[-1]
    assert np.signbit(cpu[0, 0]) and not np.signbit(cpu[0, 1])
    for target in ("a2a3", "a5"):
        npu = interpreter.run(kernel, target, [a, filled((1, 16), "f32")])[-1]
        assert not np.signbit(npu).any()


def test_trecip_of_zero_is_a_located_fault_on_cpu_and_inf_on_the_npus() -> None:
    a = np.ones((2, 16), np.float32)
    a[1, 5] = -0.0
    text = unary_kernel("trecip", (2, 16), "f32", (2, 16))
    with pytest.raises(PtoError, match=r"k\.pto:2:3: .*divides 1 by zero .* at element \(1, 5\)"):
        interpreter.run(parse(text, "k.pto"), "cpu", [a, filled((2, 16), "f32")])
    for target in ("a2a3", "a5"):
        out = interpreter.run(parse(text, "k.pto"), target, [a, filled((2, 16), "f32")])[-1]
        assert out[1, 5] == -np.inf and out[0, 0] == 1


def test_bf16_rounds_once_from_double() -> None:
    """exp/log/sqrt of bf16 round the double result once (ml_dtypes' cast would round twice)."""
    x = np.array([[0.5 * i for i in range(1, 17)]], ml_dtypes.bfloat16)
    for op in ("texp", "tlog", "tsqrt"):
        out = interpreter.run(parse(unary_kernel(op, (1, 16), "bf16", (1, 16)), "k.pto"), "cpu", [x, filled((1, 16), "bf16")])[-1]
        assert_bits_equal(out, CPU[op](x))


def test_compare_reports_an_approximate_op_as_approximate_not_as_exact_agreement_or_a_bug() -> None:
    """cpu's TABS keeps -0.0; the NPUs' vabs is approximate (the reference clears the sign)."""
    text = unary_kernel("tabs", (1, 16), "f32", (1, 16))
    module = parse(text, "k.pto")
    a = np.array([[-0.0] + [-1.5] * 15], np.float32)
    report = interpreter.compare(module, "all", [a, filled((1, 16), "f32")])
    op = report.first_divergent_op
    assert op is not None and op.name == "pto.tabs" and op.approximate_on == ["a2a3", "a5"]
    assert "k.pto:2:3 pto.tabs (approximate on a2a3, a5: a hardware intrinsic no public code fixes" in report.text()
    assert "not a bug" in report.text()
    positive = interpreter.compare(module, "all", [np.abs(a) + 1, filled((1, 16), "f32")])
    assert positive.agree and positive.approximate == {"k.pto:2:3 pto.tabs": ["a2a3", "a5"]}
    assert "bit for bit" in positive.text() and "agree bit for bit" not in positive.text()
    exact = interpreter.compare(parse(unary_kernel("tneg", (1, 16), "f32", (1, 16)), "k.pto"), "all", [a, filled((1, 16), "f32")])
    assert exact.agree and not exact.approximate and "agree bit for bit (cpu, a2a3, a5)" in exact.text()


@pytest.mark.parametrize("target", TARGETS)
def test_high_precision_and_trsqrt_tmp_compute_the_same_reference(target: str) -> None:
    """cpu ignores precisionType (its template argument is unused) and TRSQRT's tmp; the NPUs'
    high-precision code is as approximate as the default: the reference is the same."""
    t, tm = tile((1, 16), "f32"), tile((1, 8), "f32")
    a = np.linspace(0.25, 9, 16, dtype=np.float32).reshape(1, 16)
    for op, kind in (("texp", "exp"), ("tlog", "log"), ("tsqrt", "sqrt"), ("trecip", "recip")):
        text = func([("a", t), ("d", t)], f"pto.{op} ins(%a : {t}) outs(%d : {t}) {{precisionType = #pto<{kind}_precision high_precision>}}")
        out = interpreter.run(parse(text, "k.pto"), target, [a, filled((1, 16), "f32")])[-1]
        with np.errstate(all="ignore"):
            assert_bits_equal(out, FORMULAS[target][op](a))
    text = func([("a", t), ("tm", tm), ("d", t)],
                f"pto.trsqrt ins(%a, %tm : {t}, {tm}) outs(%d : {t}) {{precisionType = #pto<rsqrt_precision high_precision>}}")
    out = interpreter.run(parse(text, "k.pto"), target, [a, np.zeros((1, 8), np.float32), filled((1, 16), "f32")])[-1]
    assert_bits_equal(out, FORMULAS[target]["trsqrt"](a))
