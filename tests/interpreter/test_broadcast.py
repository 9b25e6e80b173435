"""
The row broadcasts on every target, against formulas written here from pto-isa's code:
dst[i, j] = f(full[i, j], v[i, j % vc]) in operand order, v the per-row operand, in the element
type (cpu/TRowExpandOp.hpp with ElementOp.h; a2a3 and a5 TRowExpandBinOp.hpp). A row-major
per-row operand is read through its layout by the simulator and as packed 32-byte blocks (row
i at i * 32 bytes of storage) by a2a3 and a5. max/min: `(a < b) ? b : a` on cpu, NaN-propagating
on the NPUs; div: a zero divisor is a run-time error on cpu, IEEE elsewhere.
"""

from __future__ import annotations

import numpy as np
import pytest

from pto_dialect.diagnostics import PtoError
from tests.interpreter.harness import NP, TARGETS, assert_bits_equal, filled, func, random_values, run, seed, tile

COVERS = ("pto.trowexpandsub", "pto.trowexpanddiv", "pto.trowexpandadd", "pto.trowexpandmul", "pto.trowexpandmax",
          "pto.trowexpandmin", "pto.trowexpandexpdif", "pto.trowexpand", "pto.tcolexpandsub", "pto.tcolexpanddiv",
          "pto.tcolexpandadd", "pto.tcolexpandmul", "pto.tcolexpandmax", "pto.tcolexpandmin", "pto.tcolexpandexpdif",
          "pto.tcolexpand")
"""The instructions whose results these tests check against their own formulas, per target."""

FORMULAS = {
    "trowexpandsub": lambda a, b: a - b,
    "trowexpanddiv": lambda a, b: a / b,
    "trowexpandadd": lambda a, b: a + b,
    "trowexpandmul": lambda a, b: a * b,
    "trowexpandmax": lambda a, b: np.where(a < b, b, a),
    "trowexpandmin": lambda a, b: np.where(b < a, b, a),
    "trowexpandexpdif": lambda a, b: np.exp((a - b).astype(np.float64)).astype(a.dtype),
}

TYPES = {"cpu": ("i16", "i32", "f16", "f32"), "a2a3": ("i16", "i32", "f16", "f32"), "a5": ("i8", "i16", "i32", "f16", "bf16", "f32")}
FLOAT_ONLY = {"trowexpanddiv": ("f16", "f32"), "trowexpandexpdif": ("f16", "f32")}


def types_of(target: str, op: str) -> tuple[str, ...]:
    if op in FLOAT_ONLY and not (op == "trowexpanddiv" and target in ("cpu", "a5")):
        return tuple(t for t in TYPES[target] if t in FLOAT_ONLY[op])
    return tuple(t for t in TYPES[target] if op != "trowexpanddiv" or NP[t].kind not in "iu")


def kernel(op: str, full: str, vector: str, dst: str, vector_first: bool = False) -> str:
    ins = ("v", "f") if vector_first else ("f", "v")
    types = {"f": full, "v": vector}
    return func([("f", full), ("v", vector), ("d", dst)],
                f"pto.{op} ins(%{ins[0]}, %{ins[1]} : {types[ins[0]]}, {types[ins[1]]}) outs(%d : {dst})")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", sorted(FORMULAS))
@pytest.mark.parametrize("mode", ["column", "block", "block_first"])
def test_row_broadcast_over_the_valid_region(target: str, op: str, mode: str) -> None:
    for dtype in types_of(target, op):
        rng = np.random.default_rng(seed(target, op, dtype, mode))
        block = 32 // NP[dtype].itemsize
        shape, valid = (4, 2 * block + 16), (3, 2 * block + 5)
        full = random_values(rng, dtype, shape)
        if op == "trowexpandexpdif":
            full = (full.astype(np.float32) % 4).astype(NP[dtype])
        if mode == "column":
            vshape, vtype = (4, 1), tile((4, 1), dtype, valid=(3, 1), blayout="col_major")
        else:
            vshape, vtype = (4, 2 * block), tile((4, 2 * block), dtype, valid=(3, block))
        vector = random_values(rng, dtype, vshape)
        if op == "trowexpanddiv":
            vector = np.where(vector == 0, 1, vector).astype(NP[dtype])
            full = np.where(full == 0, 1, full).astype(NP[dtype])
        if op == "trowexpandexpdif":
            vector = (vector.astype(np.float32) % 4).astype(NP[dtype])
        if mode == "column":
            v = np.repeat(vector[:3, :1], valid[1], axis=1)
        elif target == "cpu":
            v = vector[:3, np.arange(valid[1]) % block]
        else:  # packed 32-byte blocks: row i at i * block elements of storage
            v = vector.reshape(-1)[(np.arange(3) * block)[:, None] + (np.arange(valid[1]) % block)[None, :]]
        a, b = (v, full[:3, : valid[1]]) if mode == "block_first" else (full[:3, : valid[1]], v)
        expected = filled(shape, dtype)
        with np.errstate(all="ignore"):
            expected[:3, : valid[1]] = FORMULAS[op](a, b).astype(NP[dtype])
        text = kernel(op, tile(shape, dtype, valid=valid), vtype, tile(shape, dtype, valid=valid), mode == "block_first")
        out = run(text, target, [full, vector, filled(shape, dtype)])[-1]
        assert_bits_equal(out, expected)


@pytest.mark.parametrize("target", TARGETS)
def test_trowexpand_spreads_column_zero(target: str) -> None:
    src = np.arange(8, dtype=np.float32).reshape(4, 2)
    dn = tile((4, 1), "f32", valid=(3, 1), blayout="col_major")
    d = tile((4, 16), "f32", valid=(3, 13))
    out = run(func([("s", dn), ("d", d)], f"pto.trowexpand ins(%s : {dn}) outs(%d : {d})"), target,
              [src.reshape(-1)[:4].reshape(4, 1), filled((4, 16), "f32")])[-1]
    expected = filled((4, 16), "f32")
    expected[:3, :13] = np.arange(3, dtype=np.float32)[:, None]
    assert_bits_equal(out, expected)


def test_cpu_zero_divisor_is_a_run_time_error_naming_the_element() -> None:
    full = tile((2, 16), "f32")
    col = tile((2, 1), "f32", blayout="col_major")
    values = np.ones((2, 16), np.float32)
    with pytest.raises(PtoError, match=r"element \(1, 0\) divides by zero"):
        run(kernel("trowexpanddiv", full, col, full), "cpu", [values, np.array([[2.0], [0.0]], np.float32), values])


@pytest.mark.parametrize("target", TARGETS)
def test_both_inputs_of_dst_valid_shape_pick_the_full_operand_per_target(target: str) -> None:
    """src0 col-major and src1 row-major, both of dst's valid shape 5x1: the simulator and a5 take
    src0 as the full operand whatever its layout, then assert on src1's shape (a row-major per-row
    operand has 32 bytes of valid columns); a2a3 takes the larger row stride, src1, as the full
    operand and src0 as a per-row column: dst = src0 - src1."""
    col = tile((8, 1), "i32", valid=(5, 1), blayout="col_major")
    row = tile((5, 8), "i32", valid=(5, 1))
    text = kernel("trowexpandsub", row, col, row, vector_first=True)
    line = text.splitlines().index(next(ln for ln in text.splitlines() if "pto.trowexpandsub" in ln)) + 1
    src0 = np.arange(8, dtype=np.int32).reshape(8, 1) * 7
    src1 = np.arange(40, dtype=np.int32).reshape(5, 8) - 20
    args = [src1, src0, np.zeros((5, 8), np.int32)]
    if target == "a2a3":
        out = run(text, target, args)[-1]
        assert_bits_equal(out[:5, :1], src0[:5] - src1[:, :1])
        return
    with pytest.raises(PtoError) as e:
        run(text, target, args)
    assert str(e.value).startswith(
        f"k.pto:{line}:3: error: 'pto.trowexpandsub' op expects a row-major src1 to have 8 valid columns (32 bytes), "
        f"got 1 (src0 has dst's valid shape) (target {target})"
    )


@pytest.mark.parametrize("target", ["a2a3", "a5"])
def test_npu_zero_divisor_gives_infinity(target: str) -> None:
    full = tile((2, 16), "f32")
    col = tile((2, 1), "f32", blayout="col_major")
    out = run(kernel("trowexpanddiv", full, col, full), target,
              [np.ones((2, 16), np.float32), np.array([[2.0], [0.0]], np.float32), filled((2, 16), "f32")])[-1]
    assert (out[0] == 0.5).all() and np.isposinf(out[1]).all()


@pytest.mark.parametrize("target", TARGETS)
def test_max_nan_per_target(target: str) -> None:
    full = tile((1, 16), "f32")
    col = tile((1, 1), "f32", blayout="col_major")
    a = np.array([[np.nan, 1.0, 3.0, 0.0] * 4], np.float32)
    out = run(kernel("trowexpandmax", full, col, full), target, [a, np.array([[np.nan]], np.float32), filled((1, 16), "f32")])[-1]
    if target == "cpu":  # (src0 < NaN) is false: src0 kept, a NaN of src0 kept too
        assert_bits_equal(out, a)
    else:
        assert np.isnan(out).all()


@pytest.mark.parametrize("target", TARGETS)
def test_in_place_over_the_full_operand(target: str) -> None:
    full = tile((2, 16), "f32")
    col = tile((2, 1), "f32", blayout="col_major")
    a = np.arange(32, dtype=np.float32).reshape(2, 16)
    text = func([("f", full), ("v", col)], f"pto.trowexpandsub ins(%f, %v : {full}, {col}) outs(%f : {full})")
    out = run(text, target, [a, np.array([[1.0], [2.0]], np.float32)])[0]
    assert_bits_equal(out, a - np.array([[1.0], [2.0]], np.float32))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", sorted(FORMULAS))
def test_column_broadcast_takes_row_zero_of_src1(target: str, op: str) -> None:
    """dst[i, j] = f(src0[i, j], src1[0, j]) (cpu/TColExpandOp.hpp; a2a3, a5 TColExpandBinOp.hpp)."""
    column_op = op.replace("trow", "tcol")
    for dtype in types_of(target, op):
        rng = np.random.default_rng(seed(target, column_op, dtype))
        shape, valid = (4, 48), (3, 37)
        full = random_values(rng, dtype, shape)
        vector = random_values(rng, dtype, (2, 48))
        if op == "trowexpanddiv":
            vector = np.where(vector == 0, 1, vector).astype(NP[dtype])
        if op == "trowexpandexpdif":
            full, vector = ((v.astype(np.float32) % 4).astype(NP[dtype]) for v in (full, vector))
        expected = filled(shape, dtype)
        with np.errstate(all="ignore"):
            expected[:3, :37] = FORMULAS[op](full[:3, :37], np.repeat(vector[:1, :37], 3, axis=0)).astype(NP[dtype])
        t, v = tile(shape, dtype, valid=valid), tile((2, 48), dtype, valid=(1, 37))
        text = func([("f", t), ("v", v), ("d", t)], f"pto.{column_op} ins(%f, %v : {t}, {v}) outs(%d : {t})")
        out = run(text, target, [full, vector, filled(shape, dtype)])[-1]
        assert_bits_equal(out, expected)


@pytest.mark.parametrize("target", TARGETS)
def test_tcolexpand_spreads_row_zero(target: str) -> None:
    src = np.arange(32, dtype=np.float32).reshape(2, 16)
    s, d = tile((2, 16), "f32", valid=(1, 13)), tile((4, 16), "f32", valid=(3, 13))
    out = run(func([("s", s), ("d", d)], f"pto.tcolexpand ins(%s : {s}) outs(%d : {d})"), target, [src, filled((4, 16), "f32")])[-1]
    expected = filled((4, 16), "f32")
    expected[:3, :13] = src[0, :13]
    assert_bits_equal(out, expected)



@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", ["trowexpandsub", "trowexpanddiv", "trowexpandmax"])
@pytest.mark.parametrize("src1_cols", [8, 16])
def test_both_row_major_of_dst_valid_shape_32_bytes_wide(target: str, op: str, src1_cols: int) -> None:
    """src0 (8 columns) and src1 (`src1_cols` columns), both row-major with dst's valid shape 3x8
    f32, 32 bytes wide: either can be the per-row operand. The simulator reads both through their
    layouts at column j % 8: dst = f(src0, src1). a5 takes src0 as the full operand and reads src1
    as packed 32-byte blocks (row i at storage element 8 * i). a2a3 takes the larger row stride
    (src0 on a tie): src1 when it has 16 columns, then reading src0 as packed blocks (its own rows,
    8 columns wide), else src0 as a5 does (a2a3 TRowExpandSub.hpp, Div, Max; TRowExpandBinOp.hpp)."""
    rng = np.random.default_rng(seed(target, op, src1_cols))
    src0 = rng.uniform(1, 9, (4, 8)).astype(np.float32)
    src1 = rng.uniform(1, 9, (4, src1_cols)).astype(np.float32)
    t0, t1 = tile((4, 8), "f32", valid=(3, 8)), tile((4, src1_cols), "f32", valid=(3, 8))
    text = func([("a", t0), ("b", t1), ("d", t0)], f"pto.{op} ins(%a, %b : {t0}, {t1}) outs(%d : {t0})")
    packed_src1 = src1.reshape(-1)[(np.arange(3) * 8)[:, None] + np.arange(8)[None, :]]
    src1_read_as_blocks = target == "a5" or (target == "a2a3" and src1_cols == 8)
    expected = filled((4, 8), "f32")
    expected[:3] = FORMULAS[op](src0[:3], packed_src1 if src1_read_as_blocks else src1[:3, :8])
    out = run(text, target, [src0, src1, filled((4, 8), "f32")])[-1]
    assert_bits_equal(out, expected)
