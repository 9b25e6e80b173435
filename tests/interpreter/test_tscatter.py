"""
TSCATTER on every target, against Python loops written here from pto-isa's code per target
(never from pto_dialect/instructions/tscatter.py). Tiles here are row-major unless a test says
otherwise, so a tile's storage is its logical array flattened.

Index form, over the indexes' valid shape (i, j) in row-major order:
  cpu (cpu/TScatter.hpp): dst.flat[uint32(idx[i, j])] = src[i, j], nothing else written;
  a2a3 (a2a3/TScatter.hpp): the whole dst zeroed, then the same loop, the index read as its type
    (signed types signed), src and indexes addressed as row-major storage;
  a5 (a5/TScatter.hpp): the whole dst zeroed; per row, one vscatter per register of indices
    (128 lanes of 16-bit, 64 of 32-bit), read unsigned; within one the lowest lane wins.
An index outside dst's storage faults.
Mask form: row axis dst[i, t*j + k] = src[i, j] with zeros between in dst's valid columns (col
axis: along rows); a2a3 / a5 zero the whole dst first; the simulator writes the valid region only
and walks src in storage order (its column counter wraps at src's Cols). P1111 copies (TMOV).
"""

from __future__ import annotations

import numpy as np
import pytest

from pto_dialect import PtoError
from tests.interpreter.harness import NP, TARGETS, assert_bits_equal, filled, func, random_values, run, seed, tile

COVERS = ("pto.tscatter",)
"""The instructions whose results these tests check against their own formulas, per target
(tests/test_registry.py: every instruction is covered on every target)."""

SENTINEL = 55

# index form data types and index types per data width (cpu: any integer index)
INDEX_TYPES = {
    "cpu": {1: ("i8", "ui16", "i32", "i64"), 2: ("i16", "ui32"), 4: ("i32", "ui32", "ui8"), 8: ("i32", "i64")},
    "a2a3": {1: ("i16", "ui16"), 2: ("i16", "ui16"), 4: ("i32", "ui32")},
    "a5": {1: ("i16", "ui16"), 2: ("i16", "ui16"), 4: ("i32", "ui32"), 8: ("i32", "ui32")},
}
DATA_TYPES = {
    "cpu": ("i8", "ui8", "i16", "f16", "bf16", "i32", "f32", "i64"),
    "a2a3": ("i8", "ui8", "i16", "ui16", "f16", "bf16", "i32", "ui32", "f32"),
    "a5": ("i8", "ui8", "i16", "f16", "bf16", "i32", "f32", "i64"),
}
MASK_TYPES = {"cpu": ("i16", "f16", "bf16", "i32", "f32"), "a2a3": ("i8", "f16", "i32", "f32"),
              "a5": ("i8", "f16", "i32", "f32", "i64")}


# ---------------------------------------------------------------------------
# the independent golden model: the targets' loops, element by element


def index_golden(target: str, src: np.ndarray, idx: np.ndarray, valid: tuple[int, int], dst: np.ndarray) -> np.ndarray:
    """dst's storage after the scatter (src, idx, dst: row-major logical arrays)."""
    out = dst.reshape(-1).copy()
    if target != "cpu":
        out[:] = 0
    vr, vc = valid
    width = idx.dtype.itemsize
    for i in range(vr):
        lanes = 256 // width if target == "a5" else vc
        for start in range(0, vc, lanes):
            # a5: the lowest lane of a vscatter wins: apply its lanes from the highest down
            order = range(min(start + lanes, vc) - 1, start - 1, -1) if target == "a5" else range(start, min(start + lanes, vc))
            for j in order:
                raw = int(idx[i, j])
                if target == "cpu":
                    offset = raw & 0xFFFFFFFF
                elif target == "a5":
                    offset = raw % (1 << (8 * width))
                else:
                    offset = raw
                assert 0 <= offset < out.size, "a test kernel scatters inside dst"
                out[offset] = src[i, j]
    return out.reshape(dst.shape)


def mask_golden(target: str, pattern: str, axis: str, src: np.ndarray, svalid, dst: np.ndarray, dvalid) -> np.ndarray:
    out = dst.copy()
    t = {"P0101": 2, "P1010": 2, "P0001": 4, "P0010": 4, "P0100": 4, "P1000": 4, "P1111": 1}[pattern]
    k = pattern[1:][::-1].index("1") if t > 1 else 0  # the rightmost character is element 0
    svr, svc = svalid
    dvr, dvc = dvalid
    if t == 1:
        out[:dvr, :dvc] = src[:dvr, :dvc]
        return out
    if target != "cpu":
        out[...] = 0
    if axis == "row":
        stream = iter(src.reshape(-1)) if target == "cpu" else None
        for r in range(svr):
            for c in range(dvc):
                if c % t == k:
                    out[r, c] = next(stream) if stream is not None else src[r, c // t]
                else:
                    out[r, c] = 0
    else:
        source_row = 0
        for r in range(dvr):
            for c in range(dvc):
                out[r, c] = src[source_row, c] if r % t == k else 0
            source_row += r % t == k
    return out


# ---------------------------------------------------------------------------
# kernels


def index_kernel(src_t: str, idx_t: str, dst_t: str) -> str:
    return func([("s", src_t), ("i", idx_t), ("d", dst_t)],
                f"pto.tscatter ins(%s, %i : {src_t}, {idx_t}) outs(%d : {dst_t})")


def mask_kernel(src_t: str, dst_t: str, pattern: str, axis: str) -> str:
    return func([("s", src_t), ("d", dst_t)],
                f'pto.tscatter ins(%s, {{maskPattern = #pto.mask_pattern<{pattern}>}} : {src_t}, "{axis}") outs(%d : {dst_t})')


def cols_for(dtype: str, n: int) -> int:
    per = 32 // NP[dtype].itemsize
    return -(-n // per) * per


# ---------------------------------------------------------------------------
# index form


@pytest.mark.parametrize("target,dtype,idx_type", [
    (t, d, i) for t in TARGETS for d in DATA_TYPES[t] for i in INDEX_TYPES[t][NP[d].itemsize]])
def test_index_random(target, dtype, idx_type):
    """Random indices over a dst larger than the scattered count: collisions, untouched elements."""
    rng = np.random.default_rng(seed("tscatter-index", target, dtype, idx_type))
    vr, vc = 3, 37
    rows, cols = 4, cols_for(dtype, 40)
    dst_shape = (6, cols_for(dtype, 24))
    src = random_values(rng, dtype, (rows, cols))
    top = min(dst_shape[0] * dst_shape[1], int(np.iinfo(NP[idx_type]).max))
    idx = rng.integers(0, top, size=(rows, cols_for(idx_type, 40))).astype(NP[idx_type])
    idx[0, :3] = idx[2, 5]  # a collision across rows (and within one)
    src_t, idx_t = tile((rows, cols), dtype, valid=(vr, vc)), tile(idx.shape, idx_type, valid=(vr, vc))
    dst_t = tile(dst_shape, dtype)
    out = run(index_kernel(src_t, idx_t, dst_t), target, [src, idx, filled(dst_shape, dtype, SENTINEL)])[-1]
    assert_bits_equal(out, index_golden(target, src, idx, (vr, vc), filled(dst_shape, dtype, SENTINEL)))


@pytest.mark.parametrize("target", TARGETS)
def test_index_collisions_within_one_register(target):
    """idx row [5, 5, 5, 9, 5]: cpu / a2a3 keep the last write (column 4), a5 the lowest lane (0);
    a later row overwrites on every target."""
    src = np.arange(16, dtype=np.float32).reshape(2, 8) + 1
    idx = np.array([[5, 5, 5, 9, 5, 1, 2, 3], [7, 7, 0, 0, 0, 0, 0, 0]], np.int32)
    out = run(index_kernel(tile((2, 8), "f32", valid=(1, 5)), tile((2, 8), "i32", valid=(1, 5)), tile((2, 8), "f32")),
              target, [src, idx, filled((2, 8), "f32", SENTINEL)])[-1].reshape(-1)
    assert out[5] == (1.0 if target == "a5" else 5.0)
    assert out[9] == 4.0
    out = run(index_kernel(tile((2, 8), "f32"), tile((2, 8), "i32"), tile((2, 8), "f32")), target,
              [src, np.array([[7] * 8, [7] * 8], np.int32), filled((2, 8), "f32", SENTINEL)])[-1].reshape(-1)
    assert out[7] == (9.0 if target == "a5" else 16.0)


@pytest.mark.parametrize("target", TARGETS)
def test_index_out_of_range_faults(target):
    src = np.ones((1, 8), np.float32)
    idx = np.array([[1, 2, 16, 3, 4, 5, 6, 7]], np.int32)
    with pytest.raises(PtoError, match=r"k\.pto:2:3: error: 'pto\.tscatter' op index 16 at indexes\[0, 2\] is outside "
                                       r"dst's storage of 16 elements"):
        run(index_kernel(tile((1, 8), "f32"), tile((1, 8), "i32"), tile((2, 8), "f32")), target,
            [src, idx, filled((2, 8), "f32", SENTINEL)])


@pytest.mark.parametrize("target", TARGETS)
def test_negative_index(target):
    """An i16 -1: a2a3 reads it signed (before dst: a fault); cpu reads 0xFFFFFFFF and a5 65535
    (past a 512-element dst: a fault too)."""
    src = np.ones((1, 16), np.float16)
    idx = np.array([[0, -1] + [1] * 14], np.int16)
    with pytest.raises(PtoError, match=r"index -1 at indexes\[0, 1\] is outside dst's storage of 512 elements"):
        run(index_kernel(tile((1, 16), "f16"), tile((1, 16), "i16"), tile((16, 32), "f16")), target,
            [src, idx, filled((16, 32), "f16", SENTINEL)])


@pytest.mark.parametrize("target", TARGETS)
def test_index_col_major_src(target):
    """cpu reads src through its layout; a2a3 and a5 address its storage as row-major."""
    logical = np.arange(16, dtype=np.float32).reshape(8, 2)  # an 8x2 col-major tile: storage is logical.T
    idx = np.arange(16, dtype=np.int32).reshape(2, 8)
    src_t = tile((8, 2), "f32", valid=(2, 2), blayout="col_major")
    out = run(index_kernel(src_t, tile((2, 8), "i32", valid=(2, 2)), tile((2, 8), "f32")), target,
              [logical, idx, filled((2, 8), "f32", SENTINEL)])[-1].reshape(-1)
    seen = logical if target == "cpu" else logical.T.reshape(-1).reshape(8, 2)
    want = index_golden(target, seen, idx, (2, 2), filled((2, 8), "f32", SENTINEL))
    assert_bits_equal(out, want.reshape(-1))


# ---------------------------------------------------------------------------
# mask form


PATTERNS = ("P0101", "P1010", "P0001", "P0010", "P0100", "P1000", "P1111")


@pytest.mark.parametrize("target,dtype", [(t, d) for t in TARGETS for d in MASK_TYPES[t]])
@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("axis", ("row", "col"))
def test_mask(target, dtype, pattern, axis):
    t = 1 if pattern == "P1111" else (2 if pattern in ("P0101", "P1010") else 4)
    rng = np.random.default_rng(seed("tscatter-mask", target, dtype, pattern, axis))
    svr, svc = 3, 8
    if axis == "row":
        src_shape, dst_shape, dvalid = (4, cols_for(dtype, svc)), (5, cols_for(dtype, svc * t)), (svr, svc * t)
    else:
        src_shape, dst_shape, dvalid = (4, cols_for(dtype, svc)), (svr * t + 2, cols_for(dtype, svc)), (svr * t, svc)
    if pattern == "P1111" and target == "a2a3":
        dst_shape = src_shape  # a2a3's TMOV takes tiles of one shape (a rule)
    src = random_values(rng, dtype, src_shape)
    dst = filled(dst_shape, dtype, SENTINEL)
    out = run(mask_kernel(tile(src_shape, dtype, valid=(svr, svc)), tile(dst_shape, dtype, valid=dvalid), pattern, axis),
              target, [src, dst])[-1]
    assert_bits_equal(out, mask_golden(target, pattern, axis, src, (svr, svc), dst, dvalid))


@pytest.mark.parametrize("target", TARGETS)
def test_mask_row_src_padding_columns(target):
    """src with 4 valid of 8 columns, P0101: the simulator's second dst row takes src's padding
    columns 4..7 of row 0 (its counter wraps at Cols); a2a3 / a5 take src row 1."""
    src = np.arange(16, dtype=np.float32).reshape(2, 8) + 1
    dst = filled((2, 8), "f32", SENTINEL)
    out = run(mask_kernel(tile((2, 8), "f32", valid=(2, 4)), tile((2, 8), "f32"), "P0101", "row"), target,
              [src, dst])[-1]
    want = [[1, 0, 2, 0, 3, 0, 4, 0], [5, 0, 6, 0, 7, 0, 8, 0]] if target == "cpu" else \
        [[1, 0, 2, 0, 3, 0, 4, 0], [9, 0, 10, 0, 11, 0, 12, 0]]
    assert out.tolist() == want


@pytest.mark.parametrize("target", TARGETS)
def test_mask_zeroes_the_whole_dst_on_npus(target):
    src = np.ones((1, 8), np.float32)
    out = run(mask_kernel(tile((1, 8), "f32"), tile((4, 16), "f32", valid=(1, 16)), "P1010", "row"), target,
              [src, filled((4, 16), "f32", SENTINEL)])[-1]
    assert (out[1:] == (SENTINEL if target == "cpu" else 0)).all()
    assert out[0].tolist() == [0, 1] * 8


@pytest.mark.parametrize("target", ("a5",))
def test_a5_b64_columns(target):
    """a5 scatters a row of 8-byte data in one register: at most 64 valid columns."""
    with pytest.raises(PtoError, match="expects at most 64 valid indexes columns for 8-byte data"):
        run(index_kernel(tile((1, 72), "i64"), tile((1, 72), "i32"), tile((1, 72), "i64")), target,
            [np.zeros((1, 72), np.int64), np.zeros((1, 72), np.int32), np.zeros((1, 72), np.int64)])
