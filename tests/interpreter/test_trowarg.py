"""
TROWARGMIN and TROWARGMAX (the comparison reversed) on every target, against Python formulas written here from pto-isa's code per
target (never from pto_dialect/instructions/trowargmin.py).

    idx[i, 0] = the column of row i's minimum (maximum) as the target searches;  val[i, 0] = that value

cpu (cpu/TReduceIdx.hpp): best = x[0]; for j >= 1: if x[j] < best: best, idx = x[j], j
  (a NaN in column 0 sticks, later NaNs never win).
a2a3 (a2a3/TRowReduceIdxOps.hpp): vcmin per repeat, then over the repeats' results: the first
  minimum; fp16/fp32 with denormals flushed; a NaN propagates, so the first NaN wins (choice).
a5 (a5/TRowReduceIdx.hpp): vcmin per 256-byte chunk, then best = chunk where the chunk's
  minimum < best, from best = +inf (the integer maximum): a chunk holding a NaN reduces to NaN
  (choice) and is never taken; no chunk taken: index 0, value +inf (-inf).
"""

from __future__ import annotations

import math
import operator

import numpy as np
import pytest

from tests.interpreter.harness import NP, SENTINEL, TARGETS, a2a3_float_keys, assert_bits_equal, column_kernel, filled, first_extreme, random_values, run, seed, tile

COVERS = ("pto.trowargmin", "pto.trowargmax")
"""The instructions whose results these tests check against their own formulas, per target
(tests/test_registry.py: every instruction is covered on every target)."""

OPS = {"trowargmin": operator.lt, "trowargmax": operator.gt}
"""Each row arg-reduction and the comparison by which a later value replaces the best one."""


# cpu/TReduceIdx.hpp CheckArgTiles; a2a3 TRowReduceCheck; a5: TROWARGMIN.md "any 2-/4-byte source"
SRC_TYPES = {
    "cpu": ("i8", "ui8", "i16", "ui16", "i32", "ui32", "i64", "f16", "bf16", "f32"),
    "a2a3": ("i16", "i32", "f16", "f32"),
    "a5": ("i16", "ui16", "i32", "ui32", "f16", "bf16", "f32"),
}


# ---------------------------------------------------------------------------
# the independent golden model: one row at a time, in Python


def flushed(x: np.ndarray) -> list:
    """a2a3's keys: fp16/fp32 with denormals flushed; integers as they are."""
    return [float(v) for v in a2a3_float_keys(x)] if x.dtype.kind == "f" else [int(v) for v in x]


def typed(x: np.ndarray) -> list:
    return [float(v) for v in x.astype(np.float64)] if x.dtype.kind == "f" or x.dtype == NP["bf16"] else [int(v) for v in x]


def a2a3_search(row: list, better) -> int:
    nans = [j for j, v in enumerate(row) if isinstance(v, float) and math.isnan(v)]
    return nans[0] if nans else first_extreme(row, better)


def a5_search(row: list, better, chunk: int, start) -> int | None:
    """None: no chunk taken."""
    best, idx = start, None
    for c in range(0, len(row), chunk):
        part = row[c : c + chunk]
        if any(isinstance(v, float) and math.isnan(v) for v in part):
            continue
        j = first_extreme(part, better)
        if better(part[j], best):
            best, idx = part[j], c + j
    return idx


def golden(op: str, target: str, x: np.ndarray) -> tuple[list[int], list]:
    """(index per row, value per row as bits of x's type or None for 'x[idx]')."""
    better = OPS[op]
    idx, start_value = [], []
    is_float = x.dtype.kind == "f" or x.dtype == NP["bf16"]
    for row in x:
        if target == "cpu":
            idx.append(first_extreme(typed(row), better))
            start_value.append(None)
        elif target == "a2a3":
            idx.append(a2a3_search(flushed(row), better))
            start_value.append(None)
        else:
            if is_float:
                start = math.inf if better is operator.lt else -math.inf
            else:
                info = np.iinfo(x.dtype)
                start = int(info.max) if better is operator.lt else int(info.min)
            j = a5_search(typed(row), better, 256 // x.dtype.itemsize, start)
            idx.append(0 if j is None else j)
            start_value.append(start if j is None else None)
    return idx, start_value


def expected_values(x: np.ndarray, idx: list[int], start_value: list) -> np.ndarray:
    return np.array([x[i, j] if s is None else x.dtype.type(s) for i, (j, s) in enumerate(zip(idx, start_value))],
                    dtype=x.dtype)


# ---------------------------------------------------------------------------
# kernels


def column_tile(rows: int, dtype: str, valid_rows: int, col_major: bool, cols: int = 8) -> tuple[str, tuple[int, int]]:
    """An output tile: [rows, 1] col-major, or [rows, cols] row-major with one valid column."""
    if col_major:
        return tile((rows, 1), dtype, valid=(valid_rows, 1), blayout="col_major"), (rows, 1)
    cols = 32 // NP[dtype].itemsize
    return tile((rows, cols), dtype, valid=(valid_rows, 1)), (rows, cols)


def run_rows(op: str, target: str, x: np.ndarray, valid: tuple[int, int] | None = None, value_form: bool = False,
             col_major: bool = True, idx_type: str = "i32") -> tuple[np.ndarray, np.ndarray | None]:
    """x: the src tile's storage (rows x cols, row-major); returns (idx column, val column)."""
    dtype = next(k for k, v in NP.items() if v == x.dtype and not k.startswith("s"))
    rows, cols = x.shape
    vr, vc = valid or x.shape
    src_t = tile((rows, cols), dtype, valid=(vr, vc))
    idx_t, idx_shape = column_tile(rows, idx_type, vr, col_major)
    outs, args = [idx_t], [x, filled(idx_shape, idx_type)]
    if value_form:
        val_t, val_shape = column_tile(rows, dtype, vr, col_major)
        outs, args = [val_t, idx_t], [x, filled(val_shape, dtype), filled(idx_shape, idx_type)]
    res = run(column_kernel(op, src_t, outs), target, args)
    untouched = res[-1].reshape(rows, -1)
    assert (untouched[vr:] == SENTINEL).all() and (untouched[:, 1:] == SENTINEL).all()
    idx = res[-1].reshape(rows, -1)[:vr, 0]
    val = res[-2].reshape(rows, -1)[:vr, 0] if value_form else None
    return idx, val


def padded(rows: list[list], dtype: str) -> np.ndarray:
    """Rows of equal length, padded with garbage to a 32-byte multiple."""
    n = len(rows[0])
    cols = -(-n // (32 // NP[dtype].itemsize)) * (32 // NP[dtype].itemsize)
    x = np.full((len(rows), cols), 99, dtype=np.float64)
    x[:, :n] = rows
    return x.astype(NP[dtype])


# ---------------------------------------------------------------------------
# ties, NaN, signed zero, denormals


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("target,dtype", [(t, d) for t in TARGETS for d in SRC_TYPES[t]])
def test_first_extreme_wins(op, target, dtype):
    rows = [[3, 1, 1, 2], [2, 2, 2, 2], [4, 3, 2, 1], [1, 5, 5, 1]]
    x = padded(rows, dtype)
    idx, _ = run_rows(op, target, x, valid=(4, 4))
    assert list(idx) == golden(op, target, x[:, :4])[0]
    assert list(idx) == ([1, 0, 3, 0] if op == "trowargmin" else [0, 0, 0, 1])


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", ("f32", "f16"))
def test_nans(op, target, dtype):
    """cpu: a NaN in column 0 sticks, later ones never win; a2a3: the first NaN wins; a5: the
    one chunk holds a NaN, so no chunk is taken: index 0, value +-inf."""
    rows = [[math.nan, 5, 1, 2], [5, math.nan, 1, 7], [1, 2, 3, math.nan], [4, 3, 2, 1]]
    x = padded(rows, dtype)
    idx, val = run_rows(op, target, x, valid=(4, 4), value_form=True)
    assert val is not None
    want = {
        "cpu": {"trowargmin": [0, 2, 0, 3], "trowargmax": [0, 3, 2, 0]},
        "a2a3": {"trowargmin": [0, 1, 3, 3], "trowargmax": [0, 1, 3, 0]},
        "a5": {"trowargmin": [0, 0, 0, 3], "trowargmax": [0, 0, 0, 0]},
    }[target][op]
    assert list(idx) == want == golden(op, target, x[:, :4])[0]
    assert_bits_equal(val, expected_values(x, *golden(op, target, x[:, :4])))


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("target", TARGETS)
def test_nan_chunk_on_a5(op, target):
    """f32 chunks hold 64 columns: a NaN in the first chunk keeps a5 from taking it."""
    x = np.full((1, 128), 5.0, np.float32)
    x[0, 3], x[0, 10], x[0, 70] = np.nan, -1.0 if op == "trowargmin" else 9.0, 0.0 if op == "trowargmin" else 8.0
    idx, _ = run_rows(op, target, x, value_form=True)
    assert list(idx) == {"cpu": [10], "a2a3": [3], "a5": [70]}[target] == golden(op, target, x)[0]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("target", TARGETS)
def test_signed_zeros_tie(op, target):
    x = padded([[-0.0, 0.0, 1.0 if op == "trowargmin" else -1.0], [0.0, -0.0, 1.0 if op == "trowargmin" else -1.0]], "f32")
    idx, val = run_rows(op, target, x, valid=(2, 3), value_form=True)
    assert val is not None
    assert list(idx) == [0, 0]
    assert_bits_equal(val, x[:, 0])


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype,pair", (("f16", (0x0002, 0x0001)), ("f32", (0x00000300, 0x00000002))))
def test_denormals_flush_on_a2a3(op, target, dtype, pair):
    """a2a3 flushes denormals to 0: both compare equal, the first is kept; cpu / a5 see them."""
    x = np.zeros((1, 32 // NP[dtype].itemsize), NP[dtype])
    x[0, :2] = np.array(pair, dtype=f"u{NP[dtype].itemsize}").view(NP[dtype])
    idx, _ = run_rows(op, target, x, valid=(1, 2))
    want = 0 if target == "a2a3" else (1 if op == "trowargmin" else 0)
    assert list(idx) == [want]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("target", ("a5",))
@pytest.mark.parametrize("dtype", ("ui16", "ui32", "i16"))
def test_a5_integer_start_value(op, target, dtype):
    """a5 starts from the integer limit: a row of only that limit keeps index 0."""
    info = np.iinfo(NP[dtype])
    limit = int(info.max) if op == "trowargmin" else int(info.min)
    x = np.full((2, 32 // NP[dtype].itemsize), limit, NP[dtype])
    x[1, 5] = limit - 1 if op == "trowargmin" else limit + 1
    idx, val = run_rows(op, target, x, value_form=True)
    assert val is not None
    assert list(idx) == [0, 5] == golden(op, target, x)[0]
    assert_bits_equal(val, np.array([limit, x[1, 5]], NP[dtype]))


# ---------------------------------------------------------------------------
# random data against the formulas: every source type, both forms, both output layouts


SHAPES = [(1, 8, 1, 1), (4, 64, 3, 50), (8, 160, 5, 129), (3, 512, 3, 300), (16, 32, 16, 32)]


def random_src(rng: np.random.Generator, dtype: str, shape) -> np.ndarray:
    dt = NP[dtype]
    if dt.kind in "iu":  # few distinct values: ties
        return rng.integers(0 if dt.kind == "u" else -3, 4, size=shape).astype(dt)
    x = random_values(rng, dtype, shape)
    x[rng.random(shape) < 0.3] = 0.5  # ties
    return x


def value_index_type(target: str, dtype: str) -> str:
    return "i16" if target != "cpu" and NP[dtype].itemsize == 2 else "i32"


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("target,dtype", [(t, d) for t in TARGETS for d in SRC_TYPES[t]])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("value_form,col_major", ((False, True), (True, False), (True, True)))
def test_random(op, target, dtype, shape, value_form, col_major):
    rows, cols, vr, vc = shape
    cols = max(cols, 32 // NP[dtype].itemsize)
    rng = np.random.default_rng(seed("trowarg", op, target, dtype, shape, value_form, col_major))
    x = random_src(rng, dtype, (rows, cols))
    idx_type = value_index_type(target, dtype) if value_form else "i32"
    idx, val = run_rows(op, target, x, valid=(vr, vc), value_form=value_form, col_major=col_major, idx_type=idx_type)
    want, start = golden(op, target, x[:vr, :vc])
    assert list(idx) == want
    if value_form:
        assert val is not None
        assert_bits_equal(val, expected_values(x[:vr, :vc], want, start))


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("target", TARGETS)
def test_a2a3_stages(op, target):
    """Rows longer than a repeat squared (f32: 64 x 64 columns) take a2a3's second stage; the
    extreme sits in the last repeat, tied with one in the first."""
    vc = 64 * 64 + 70
    x = np.zeros((2, vc + 2), np.float32)
    extreme = -5.0 if op == "trowargmin" else 5.0
    x[0, vc - 1] = extreme
    x[1, 3], x[1, vc - 2] = extreme, extreme
    src_t, tmp_t = tile((2, vc + 2), "f32", valid=(2, vc)), tile((2, vc + 2), "f32", valid=(2, vc))
    idx_t = tile((2, 1), "i32", blayout="col_major")
    out = run(column_kernel(op, src_t, [idx_t], tmp_t), target, [x, np.zeros_like(x), filled((2, 1), "i32")])[-1]
    assert list(out[:, 0]) == [vc - 1, 3]

