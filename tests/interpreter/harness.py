"""
Scaffolding for the interpreter tests: spell small kernels and run them.

Nothing here computes an expected value; every test writes its own NumPy
formula, written from pto-isa's per-target code.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence

import ml_dtypes
import numpy as np

import interpreter
import targets
from pto_dialect import parse

TARGETS = targets.names()
"""Every target of the registry: a new one runs every interpreter test, whose per-target
oracle tables then need its row."""
NPU = ("a2a3", "a5")

NP = {
    "i8": np.dtype(np.int8),
    "ui8": np.dtype(np.uint8),
    "i16": np.dtype(np.int16),
    "ui16": np.dtype(np.uint16),
    "i32": np.dtype(np.int32),
    "ui32": np.dtype(np.uint32),
    "i64": np.dtype(np.int64),
    "ui64": np.dtype(np.uint64),
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f32": np.dtype(np.float32),
    "f8E4M3FN": np.dtype(ml_dtypes.float8_e4m3fn),
    "f8E5M2": np.dtype(ml_dtypes.float8_e5m2),
}
"""PTO element spelling -> NumPy dtype (syntax.md §2)."""

SENTINEL = -77
"""What output arrays hold before a run (`filled`), so that elements an op leaves alone show."""

STANDARD = ("i8", "ui8", "i16", "ui16", "i32", "ui32", "f16", "bf16", "f32")
FP8 = ("f8E4M3FN", "f8E5M2")


def filled(shape, dtype: str, value=SENTINEL) -> np.ndarray:
    """`value` in every element, of PTO element type `dtype`."""
    return np.full(shape, value, dtype=np.float32 if NP[dtype].kind == "f" else np.int64).astype(NP[dtype])


def nz_image(logical: np.ndarray, c0: int) -> np.ndarray:
    """A logical R x C table laid out NZ: reshaped to [C/C0, R/16, 16, C0] (semantics.md §1.4), flat."""
    r, c = logical.shape
    return logical.reshape(r // 16, 16, c // c0, c0).transpose(2, 0, 1, 3).ravel().copy()


def tile(shape: tuple[int, int], dtype: str, loc: str = "vec", valid: tuple | None = None, **keys: str) -> str:
    """`!pto.tile_buf<loc, RxCxT[, valid=..][, key=value]*>`; a valid dim may be '?'."""
    text = f"!pto.tile_buf<{loc}, {shape[0]}x{shape[1]}x{dtype}"
    if valid is not None and tuple(valid) != tuple(shape):
        text += f", valid={valid[0]}x{valid[1]}"
    for k, v in keys.items():
        text += f", {k}={v}"
    return text + ">"


def view(shape: Sequence[int | str], dtype: str) -> str:
    return "!pto.partition_tensor_view<" + "x".join(str(d) for d in shape) + f"x{dtype}>"


def tensor_view(rank: int, dtype: str) -> str:
    return "!pto.tensor_view<" + "?x" * rank + f"{dtype}>"


def func(args: Sequence[tuple[str, str]], body: str, name: str = "k") -> str:
    """A one-function module: `args` are (name, type) pairs, `body` the ops (one per line)."""
    sig = ", ".join(f"%{n}: {t}" for n, t in args)
    lines = "\n".join("  " + line.strip() for line in body.strip().splitlines())
    return f"func.func @{name}({sig}) {{\n{lines}\n  return\n}}\n"


def constants(*values: int) -> str:
    """`%cN = arith.constant N : index` for each value."""
    return "\n".join(f"%c{v} = arith.constant {v} : index" for v in sorted(set(values)))


def gm_views(args: Sequence[tuple[str, str, tuple[int, int]]]) -> str:
    """For each (pointer argument, dtype, (rows, cols)): `%<arg>v`, its row-major rows x cols
    tensor view, and `%<arg>p`, the partition of all of it (the %cN constants are the kernel's)."""
    lines = []
    for name, dtype, (rows, cols) in args:
        lines += [
            f"%{name}v = pto.make_tensor_view %{name}, shape = [%c{rows}, %c{cols}], strides = [%c{cols}, %c1] : {tensor_view(2, dtype)}",
            f"%{name}p = pto.partition_view %{name}v, offsets = [%c0, %c0], sizes = [%c{rows}, %c{cols}] : {tensor_view(2, dtype)}",
        ]
    return "\n".join(lines)


def run(text: str, target: str, args: Sequence[np.ndarray | np.generic]) -> list[np.ndarray]:
    """Parse `text` (as file k.pto) and run it on `target`."""
    return interpreter.run(parse(text, "k.pto"), target, list(args))


def bits(a: np.ndarray) -> np.ndarray:
    """The raw bit patterns (exact comparison of floats, NaNs and fp8 included)."""
    a = np.asarray(a)
    return a.view(f"u{a.dtype.itemsize}")


def assert_bits_equal(actual: np.ndarray, expected: np.ndarray) -> None:
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if not np.array_equal(bits(actual), bits(expected)):
        raise AssertionError(f"values differ\nactual:\n{actual}\nexpected:\n{expected}")


def random_values(rng: np.random.Generator, dtype: str, shape) -> np.ndarray:
    """Distinct-ish values of `dtype` (floats exactly representable, no NaN)."""
    dt = NP[dtype]
    if dt.kind in "iu" and dt.itemsize == 8:
        return rng.integers(-(2**62), 2**62, size=shape, dtype=np.int64).astype(dt)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(info.min, int(info.max) + 1, size=shape, dtype=np.int64).astype(dt)
    if dtype in FP8:
        return (rng.integers(-16, 17, size=shape).astype(np.float32) / 4).astype(dt)
    return (rng.integers(-2000, 2000, size=shape).astype(np.float32) / 8).astype(dt)


def seed(*parts: object) -> int:
    """A stable RNG seed from a test's parameters (str hashes vary between runs)."""
    return zlib.crc32(repr(parts).encode())


def a2a3_float_keys(x: np.ndarray) -> np.ndarray:
    """16/32-bit patterns read as fp16 / fp32, denormals (exponent field 0) flushed to 0: how
    a2a3 compares column arg-reduction sources (float64 keys)."""
    b = bits(x).astype(np.int64)
    exp_mask, as_float = (0x7C00, bits(x).view(np.float16)) if x.dtype.itemsize == 2 else (
        0x7F800000, bits(x).view(np.float32))
    return np.where((b & exp_mask) == 0, 0.0, as_float.astype(np.float64))


def through_f16(i: int) -> int:
    """An integer through fp16: exact up to 2048, then rounded to nearest-even."""
    if i <= 2048:
        return i
    spacing = 2 ** (int(math.log2(i)) - 10)
    return spacing * round(i / spacing)


def first_extreme(column: list, better) -> int:
    """The first row whose value is `better` (`<`: minimum) than every earlier one's, in a
    typed scan: a NaN at row 0 sticks, later NaNs never win (no comparison with NaN holds)."""
    cur, idx = column[0], 0
    for i in range(1, len(column)):
        if better(column[i], cur):
            cur, idx = column[i], i
    return idx


def running_extreme(column: list, keeps, extreme) -> int:
    """a2a3's vector scan: cur = x[0]; for i >= 1: if not keeps(cur, x[i]): idx = i;
    cur = extreme(cur, x[i]), a NaN propagating through `extreme`."""
    cur, idx = column[0], 0
    for i in range(1, len(column)):
        v = column[i]
        if not keeps(cur, v):
            idx = i
        cur = math.nan if (math.isnan(cur) or math.isnan(v)) else extreme(cur, v)
    return idx


def column_golden(target: str, x: np.ndarray, vr: int, vc: int, value_form: bool, scan_native, scan_a2a3) -> np.ndarray:
    """A column arg-reduction's index per column j < vc over rows i < vr, from a test's own
    scans of one column: typed values on cpu / a5, a2a3's float keys and its fp16 row counter
    (2-byte index-only) on a2a3."""
    xv = x[:vr, :vc]
    if target == "a2a3":
        keys = a2a3_float_keys(xv)
        idx = [scan_a2a3([float(v) for v in keys[:, j]]) for j in range(vc)]
        if x.dtype.itemsize == 2 and not value_form:
            idx = [through_f16(i) for i in idx]
    else:
        conv = int if x.dtype.kind in "iu" else float
        idx = [scan_native([conv(v) for v in xv[:, j]]) for j in range(vc)]
    return np.array(idx, dtype=np.int64)


def column_arg_golden(beats, keeps, running, target: str, x: np.ndarray, vr: int, vc: int, value_form: bool) -> np.ndarray:
    """column_golden scanning natively for the first value that `beats` the best so far, and on
    a2a3 keeping the index while the running value (`running`: min, max) `keeps` its place."""
    return column_golden(
        target, x, vr, vc, value_form,
        lambda column: first_extreme(column, beats), lambda column: running_extreme(column, keeps, running),
    )


def column_kernel(op: str, src: str, outs: list[str], tmp: str | None = None) -> str:
    """`pto.<op> ins(%s[, %t]) outs(%o0[, %o1])` in a function of those tiles."""
    args = [("s", src)] + ([("t", tmp)] if tmp else []) + [(f"o{n}", t) for n, t in enumerate(outs)]
    ins, ins_types = "%s" + (", %t" if tmp else ""), src + (f", {tmp}" if tmp else "")
    out_names = ", ".join(f"%o{n}" for n in range(len(outs)))
    return func(args, f"pto.{op} ins({ins} : {ins_types}) outs({out_names} : {', '.join(outs)})")
