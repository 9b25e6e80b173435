"""
TGATHER's three forms on every target, against NumPy formulas written here
from pto-isa's TGATHER code per target (never from pto_dialect/instructions/tgather.py).

index:   dst[r, c] = src storage element idx[r, c] (bound src.Rows*src.Cols, padding
         readable); cpu: out of range -> 0; a2a3 / a5: a run-time error; a5 reads
         indices unsigned.
mask:    row axis: x[:vr, off:vc:t] packed densely from dst storage offset 0;
         col axis: dst[n, :] = x[off + n*t, :vc].
compare: per src row i, the index numbers of the columns j with cmp(src[i, j], k_i),
         packed left in dst row i; cdst.flat[i] = how many (a2a3 / a5 only).
"""

from __future__ import annotations

import re
from math import ceil

import numpy as np
import pytest

from pto_dialect import PtoError
from tests.interpreter.harness import (FP8, NP, NPU, SENTINEL, STANDARD, TARGETS, assert_bits_equal, bits, constants, filled, func, gm_views, random_values, run, seed, tensor_view, tile, view)

COVERS = ('pto.tgather',)
"""The instructions whose results these tests check against their own formulas, per target
(tests/test_registry.py: every instruction is covered on every target)."""



# ---------------------------------------------------------------------------
# index form


INDEX_FAULT = {"a2a3": "'pto.tgather' op", "a5": r"'pto.vgather2(_bc)?' op lane \d+ \(offset \d+\)"}
"""Where an out-of-range index stops the index form: a5 lowers it to the register gathers, whose fault
names the lane (at the tgather's location)."""


def index_kernel(src: str, idx: str, dst: str, tmp: str | None) -> str:
    args = [("s", src), ("i", idx)] + ([("t", tmp)] if tmp else []) + [("d", dst)]
    ins = "%s, %i" + (", %t" if tmp else "")
    types = f"{src}, {idx}" + (f", {tmp}" if tmp else "")
    return func(args, f"pto.tgather ins({ins} : {types}) outs(%d : {dst})")


def index_args(target: str, src: np.ndarray, idx: np.ndarray, dst: np.ndarray) -> list[np.ndarray]:
    """a2a3 also takes tmp (the indices' type and valid shape); the others run without it."""
    if target == "a2a3":
        return [src, idx, np.zeros_like(idx), dst]
    return [src, idx, dst]


def index_text(target: str, src: str, idx: str, dst: str, idx_t: tuple[tuple[int, int], str]) -> str:
    return index_kernel(src, idx, dst, tile(*idx_t) if target == "a2a3" else None)


def golden_index(storage: np.ndarray, idx: np.ndarray, dst: np.ndarray, unsigned: bool) -> np.ndarray:
    """dst[r, c] = storage[i] for i = idx[r, c] inside [0, storage.size), else 0."""
    out = dst.copy()
    ids = bits(idx) if unsigned else idx
    for (r, c), i in np.ndenumerate(ids):
        i = int(i)
        out[r, c] = storage[i] if 0 <= i < storage.size else 0
    return out


@pytest.mark.parametrize("target", TARGETS)
def test_index_literal_example(target):
    """semantics.md §2.1: src 3x8 physical (valid 3x6), value 10*offset; idx {0,6,7,9,23,24,-3}
    -> cpu 0 60 70 90 230 0 0 (6, 7 are padding but in bounds); a2a3 / a5 fault on 24 and -3."""
    src_t, idx_t, dst_t = tile((3, 8), "i32", valid=(3, 6)), tile((1, 8), "i32"), tile((1, 8), "i32")
    text = index_text(target, src_t, idx_t, dst_t, ((1, 8), "i32"))
    src = (10 * np.arange(24, dtype=np.int32)).reshape(3, 8)
    ids = np.array([[0, 6, 7, 9, 23, 24, -3, 1]], np.int32)
    args = index_args(target, src, ids, filled((1, 8), "i32"))
    if target == "cpu":
        out = run(text, target, args)[-1]
        assert_bits_equal(out, np.array([[0, 60, 70, 90, 230, 0, 0, 10]], np.int32))
        return
    with pytest.raises(PtoError) as err:
        run(text, target, args)
    assert re.search(INDEX_FAULT[target], str(err.value)) and str(err.value).startswith("k.pto:2:3: error:")
    ids[0, 5:7] = [2, 17]
    out = run(text, target, index_args(target, src, ids, filled((1, 8), "i32")))[-1]
    assert_bits_equal(out, np.array([[0, 60, 70, 90, 230, 20, 170, 10]], np.int32))


@pytest.mark.parametrize("target", NPU)
@pytest.mark.parametrize("bad", (-1, 64, 2**31 - 1, -(2**31)))
def test_index_out_of_range_faults_on_npu(target, bad):
    src_t, idx_t, dst_t = tile((4, 16), "f32"), tile((2, 8), "i32"), tile((2, 8), "f32")
    text = index_text(target, src_t, idx_t, dst_t, ((2, 8), "i32"))
    ids = np.arange(16, dtype=np.int32).reshape(2, 8)
    ids[1, 2] = bad
    with pytest.raises(PtoError, match=INDEX_FAULT[target]):
        run(text, target, index_args(target, np.zeros((4, 16), np.float32), ids, np.zeros((2, 8), np.float32)))


def test_index_cpu_out_of_range_reads_zero():
    src_t, idx_t, dst_t = tile((4, 16), "f16"), tile((2, 8), "i32"), tile((2, 8), "f16")
    text = index_kernel(src_t, idx_t, dst_t, None)
    src = (np.arange(64) + 1).astype(np.float16).reshape(4, 16)
    ids = np.array([[0, 63, 64, -1, -64, 2**31 - 1, -(2**31), 5], [9, 8, 7, 6, 100, 65, 62, 1]], np.int32)
    out = run(text, "cpu", [src, ids, filled((2, 8), "f16")])[-1]
    assert_bits_equal(out, golden_index(src.ravel(), ids, filled((2, 8), "f16"), unsigned=False))


def index_cases() -> list[tuple[str, str, str]]:
    """(target, data dtype, index dtype) triples each target accepts (semantics.md §2.1)."""
    cases = [("cpu", d, i) for d in STANDARD + ("i64", "ui64") for i in ("i32", "ui32")]
    cases += [("a2a3", d, i) for d in ("i16", "ui16", "f16", "bf16", "i32", "ui32", "f32") for i in ("i32", "ui32")]
    for d in STANDARD + FP8 + ("i64", "ui64"):
        width = NP[d].itemsize
        widths = {1: ("i16", "ui16"), 2: ("i16", "ui16", "i32", "ui32"), 4: ("i32", "ui32"), 8: ("i32", "ui32")}
        cases += [("a5", d, i) for i in widths[width]]
    return cases


@pytest.mark.parametrize("target,dtype,idx_type", index_cases())
def test_index_dtypes(target, dtype, idx_type):
    rng = np.random.default_rng(seed(target, dtype, idx_type))
    c = max(8, 32 // NP[dtype].itemsize)
    src_t, idx_t, dst_t = tile((6, c), dtype, valid=(5, c - 2)), tile((2, c), idx_type), tile((2, c), dtype)
    text = index_text(target, src_t, idx_t, dst_t, ((2, c), idx_type))
    src = random_values(rng, dtype, (6, c))
    ids = rng.integers(0, 6 * c, size=(2, c)).astype(NP[idx_type])  # padding rows / cols included
    dst = filled((2, c), dtype)
    out = run(text, target, index_args(target, src, ids, dst))[-1]
    assert_bits_equal(out, golden_index(src.ravel(), ids, dst, unsigned=target == "a5"))


def test_index_a5_b8_data_reads_16bit_indices_unsigned():
    """b8 data takes u16 indices: an i16 -1 is offset 65535, -32768 is 32768 (a 256 x 256 src)."""
    src_t, idx_t, dst_t = tile((256, 256), "i8"), tile((1, 32), "i16"), tile((1, 32), "i8")
    text = index_kernel(src_t, idx_t, dst_t, None)
    src = ((np.arange(65536) * 7) % 256 - 128).astype(np.int8).reshape(256, 256)
    ids = np.arange(32, dtype=np.int16).reshape(1, 32) * 1000
    ids[0, :4] = [-1, -32768, -2, 32767]
    out = run(text, "a5", [src, ids, filled((1, 32), "i8")])[-1]
    expected = src.ravel()[ids.view(np.uint16).astype(np.int64)]
    assert list(ids.view(np.uint16)[0, :4]) == [65535, 32768, 65534, 32767]
    assert_bits_equal(out, expected)


def test_index_a5_b8_zero_extension_does_not_leak():
    """reg-gather.md: b8 is gathered into b16 lanes zero-extended (-40 -> 216), stored back as its low byte."""
    src_t, idx_t, dst_t = tile((1, 32), "i8"), tile((1, 32), "ui16"), tile((1, 32), "i8")
    text = index_kernel(src_t, idx_t, dst_t, None)
    src = np.array([[40, -40, -1, -128, 127, 0] + [5] * 26], np.int8)
    ids = np.array([list(range(6)) + [0] * 26], np.uint16)
    out = run(text, "a5", [src, ids, filled((1, 32), "i8")])[-1]
    assert_bits_equal(out, src[0][ids.astype(np.int64)])


@pytest.mark.parametrize("idx_type,bad", (("i16", -1), ("i32", -1), ("ui32", 2**31)))
def test_index_a5_b16_unsigned_index_out_of_range(idx_type, bad):
    """b16 data with 16- or 32-bit indices (the latter: the vgather2_bc variant), read unsigned."""
    src_t, idx_t, dst_t = tile((16, 128), "f16"), tile((1, 16), idx_type), tile((1, 16), "f16")
    text = index_kernel(src_t, idx_t, dst_t, None)
    ids = np.arange(16, dtype=np.int64).astype(NP[idx_type]).reshape(1, 16)
    ids[0, 3] = np.array(bad).astype(NP[idx_type])
    with pytest.raises(PtoError, match=INDEX_FAULT["a5"]):
        run(text, "a5", [np.zeros((16, 128), np.float16), ids, np.zeros((1, 16), np.float16)])


@pytest.mark.parametrize("target", ("cpu", "a5"))
@pytest.mark.parametrize("with_tmp", (False, True))
def test_index_tmp_optional_off_a2a3(target, with_tmp):
    src_t, idx_t, dst_t = tile((2, 8), "f32"), tile((1, 8), "i32"), tile((1, 8), "f32")
    text = index_kernel(src_t, idx_t, dst_t, idx_t if with_tmp else None)
    src = np.arange(16, dtype=np.float32).reshape(2, 8) / 2
    ids = np.array([[15, 14, 0, 1, 8, 8, 3, 2]], np.int32)
    args = [src, ids] + ([np.zeros_like(ids)] if with_tmp else []) + [filled((1, 8), "f32")]
    assert_bits_equal(run(text, target, args)[-1], src.ravel()[ids])


def test_index_a2a3_requires_tmp():
    src_t, idx_t, dst_t = tile((2, 8), "f32"), tile((1, 8), "i32"), tile((1, 8), "f32")
    with pytest.raises(PtoError, match="'pto.tgather'"):
        run(index_kernel(src_t, idx_t, dst_t, None), "a2a3",
            [np.zeros((2, 8), np.float32), np.zeros((1, 8), np.int32), np.zeros((1, 8), np.float32)])


# ---------------------------------------------------------------------------
# mask form

PATTERNS = {  # name: (period t, selected residue off) -- semantics.md §2.2
    "P0101": (2, 0),
    "P1010": (2, 1),
    "P0001": (4, 0),
    "P0010": (4, 1),
    "P0100": (4, 2),
    "P1000": (4, 3),
    "P1111": (1, 0),
}


def mask_kernel(src: str, dst: str, pattern: str, axis: str) -> str:
    return func(
        [("s", src), ("d", dst)],
        f'pto.tgather ins(%s, {{maskPattern = #pto.mask_pattern<{pattern}>}} : {src}, "{axis}") outs(%d : {dst})',
    )


def selected(i: int, pattern: str) -> bool:
    t, off = PATTERNS[pattern]
    return i % t == off


def golden_mask_row(x: np.ndarray, vr: int, vc: int, dst: np.ndarray, pattern: str) -> np.ndarray:
    """One dense stream of the selected valid elements, row by row, from dst storage offset 0."""
    stream = [x[r, c] for r in range(vr) for c in range(vc) if selected(c, pattern)]
    out = dst.copy()
    flat = out.reshape(-1)  # row-major dst: storage order
    flat[: len(stream)] = np.array(stream, dtype=x.dtype).view(out.dtype) if stream else flat[:0]
    return out


def golden_mask_col(x: np.ndarray, vr: int, vc: int, dst: np.ndarray, pattern: str) -> np.ndarray:
    rows = [r for r in range(vr) if selected(r, pattern)]
    out = dst.copy()
    for n, r in enumerate(rows):
        out[n, :vc] = x[r, :vc].view(out.dtype)
    return out


ROW_LITERAL = {"P0101": [0, 2, 4, 6, 10, 12, 14, 16], "P0100": [2, 6, 12, 16], "P1000": [3, 7, 13, 17]}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("pattern", sorted(ROW_LITERAL))
def test_mask_row_literal_example(target, pattern):
    """src 2x8 with value 10r+c: P0101 -> 0 2 4 6 10 12 14 16; P0100 -> 2 6 12 16; P1000 -> 3 7 13 17."""
    t = PATTERNS[pattern][0]
    src_t, dst_t = tile((2, 8), "i32"), tile((2, 8 // t), "i32")
    x = (10 * np.arange(2)[:, None] + np.arange(8)).astype(np.int32)
    out = run(mask_kernel(src_t, dst_t, pattern, "row"), target, [x, filled((2, 8 // t), "i32")])[-1]
    assert list(out.ravel()) == ROW_LITERAL[pattern]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("pattern,rows", (("P0101", [0, 2, 4, 6]), ("P0100", [2, 6])))
def test_mask_col_literal_example(target, pattern, rows):
    t = PATTERNS[pattern][0]
    src_t, dst_t = tile((8, 8), "f32"), tile((8 // t, 8), "f32")
    x = (10 * np.arange(8)[:, None] + np.arange(8)).astype(np.float32)
    out = run(mask_kernel(src_t, dst_t, pattern, "col"), target, [x, filled((8 // t, 8), "f32")])[-1]
    assert_bits_equal(out, x[rows])


@pytest.mark.parametrize("target", TARGETS)
def test_mask_col_dst_valid_rows_below_rows(target):
    """dst 8x8 with valid 4x8 under P0101: the NPUs write the 4 selected rows and leave the
    rest; the CPU simulator asserts dst valid rows == selected rows == dst Rows."""
    src_t, dst_t = tile((8, 8), "f32"), tile((8, 8), "f32", valid=(4, 8))
    x = (10 * np.arange(8)[:, None] + np.arange(8)).astype(np.float32)
    dst = filled((8, 8), "f32")
    if target == "cpu":
        with pytest.raises(PtoError, match=r"expects dst valid_shape\[0\] \(the selected src rows\) to equal dst rows for col direction, got 4 and 8 \(target cpu\)"):
            run(mask_kernel(src_t, dst_t, "P0101", "col"), target, [x, dst])
        return
    out = run(mask_kernel(src_t, dst_t, "P0101", "col"), target, [x, dst])[-1]
    expected = dst.copy()
    expected[:4] = x[0::2]
    assert_bits_equal(out, expected)


@pytest.mark.parametrize("dst_rows", (4, 8))
def test_mask_col_cpu_checks_dst_valid_rows_at_run_time(dst_rows):
    """dst valid rows known at run time only (4, the rows P0101 selects of 8): cpu takes them
    in a 4-row dst and refuses them in an 8-row one."""
    src_t, dst_t = tile((8, 8), "f32"), tile((dst_rows, 8), "f32", valid=("?", 8))
    body = f"""
%d = pto.alloc_tile valid_row = %n : {dst_t}
pto.tgather ins(%s, {{maskPattern = #pto.mask_pattern<P0101>}} : {src_t}, "col") outs(%d : {dst_t})
"""
    text = func([("s", src_t), ("n", "index")], body)
    args = [np.arange(64, dtype=np.float32).reshape(8, 8), np.array(4)]
    if dst_rows == 4:
        run(text, "cpu", args)
        return
    with pytest.raises(PtoError, match=r"expects dst valid_shape\[0\] \(the selected src rows\) to equal dst rows "
                       r"for col direction, got 4 and 8 \(target cpu, run-time shapes\)"):
        run(text, "cpu", args)


def mask_types(target: str, axis: str) -> tuple[str, ...]:
    """§2.2 data: cpu any same-size pair; a2a3 2 or 4 bytes; a5 1, 2, 4 (8 row only, tested apart)."""
    if target == "a2a3":
        return ("i16", "ui16", "f16", "bf16", "i32", "ui32", "f32")
    if target == "a5":
        return STANDARD + FP8
    return STANDARD + ("i64", "ui64")


@pytest.mark.parametrize("target,dtype", [(t, d) for t in TARGETS for d in mask_types(t, "row")])
@pytest.mark.parametrize("pattern", sorted(PATTERNS))
def test_mask_row_all_patterns(target, dtype, pattern):
    """src 4 x (vc+16) valid 3 x vc, dst 4 x vc/t valid 3 x vc/t: src padding is never picked,
    dst row 3 (padding) is untouched."""
    t, off = PATTERNS[pattern]
    vc = 32
    src_t = tile((4, vc + 16), dtype, valid=(3, vc))
    dst_t = tile((4, vc // t), dtype, valid=(3, vc // t))
    rng = np.random.default_rng(seed(target, dtype, pattern))
    x = random_values(rng, dtype, (4, vc + 16))
    dst = filled((4, vc // t), dtype)
    out = run(mask_kernel(src_t, dst_t, pattern, "row"), target, [x, dst])[-1]
    assert_bits_equal(out, golden_mask_row(x, 3, vc, dst, pattern))
    # the golden, x[:, off::t].flatten(), on the valid region
    assert_bits_equal(out[:3].ravel(), x[:3, :vc][:, off::t].ravel())


@pytest.mark.parametrize("target,dtype", [(t, d) for t in TARGETS for d in mask_types(t, "col")])
@pytest.mark.parametrize("pattern", sorted(PATTERNS))
def test_mask_col_all_patterns(target, dtype, pattern):
    t, off = PATTERNS[pattern]
    vr = 16
    c = max(8, 32 // NP[dtype].itemsize)
    src_t = tile((vr + 4, c + 8), dtype, valid=(vr, c))
    dst_t = tile((vr // t, c), dtype)
    rng = np.random.default_rng(seed(target, dtype, pattern, "col"))
    x = random_values(rng, dtype, (vr + 4, c + 8))
    dst = filled((vr // t, c), dtype)
    out = run(mask_kernel(src_t, dst_t, pattern, "col"), target, [x, dst])[-1]
    assert_bits_equal(out, golden_mask_col(x, vr, c, dst, pattern))
    assert_bits_equal(out, x[:vr, :c][off::t, :])


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("src_type,dst_type", (("f32", "i32"), ("i32", "f32"), ("f16", "i16"), ("bf16", "f16"), ("ui16", "bf16")))
@pytest.mark.parametrize("axis", ("row", "col"))
def test_mask_copies_bits_between_same_size_types(target, src_type, dst_type, axis):
    x = np.array([[1.5, -2.25, np.inf, -0.0, 3e-5, 65504, 7, 8]] * 4, np.float32).astype(NP[src_type]) \
        if NP[src_type].kind == "f" else (np.arange(32) * 1001 + 7).astype(NP[src_type]).reshape(4, 8)
    if axis == "row":
        src_t, dst_t, dshape = tile((4, 8), src_type), tile((4, 4), dst_type), (4, 4)
    else:
        src_t, dst_t, dshape = tile((4, 8), src_type), tile((2, 8), dst_type), (2, 8)
    out = run(mask_kernel(src_t, dst_t, "P0101", axis), target, [x, filled(dshape, dst_type, 0)])[-1]
    picked = x[:, 0::2] if axis == "row" else x[0::2, :]
    assert out.dtype == NP[dst_type]
    assert_bits_equal(bits(out), bits(picked).reshape(dshape))


@pytest.mark.parametrize("pattern", sorted(PATTERNS))
def test_mask_b64_a5_per_row_packing(pattern):
    """a5 b64 exception (§2.2): dst.flat[r*(dst.Cols/t) + k] = src[r, k*t + off], k < floor(vc/t)."""
    t, off = PATTERNS[pattern]
    rows, vr, vc = 4, 3, 16
    dcols = vc // t
    src_t = tile((rows, vc), "i64", valid=(vr, vc))
    dst_t = tile((rows, dcols), "i64", valid=(vr, dcols))
    x = (np.arange(rows * vc, dtype=np.int64) * 1000003 - 2**40).reshape(rows, vc)
    dst = filled((rows, dcols), "i64")
    out = run(mask_kernel(src_t, dst_t, pattern, "row"), "a5", [x, dst])[-1]
    expected = dst.copy().reshape(-1)
    for r in range(vr):
        for k in range(vc // t):
            expected[r * (dcols // t) + k] = x[r, k * t + off]
    assert_bits_equal(out, expected.reshape(rows, dcols))


@pytest.mark.parametrize("target", NPU)
def test_mask_b64_col_axis_rejected(target):
    """On the NPUs b64 exists only on a5 and only along rows (cpu: any same-size pair)."""
    src_t, dst_t = tile((4, 8), "i64"), tile((2, 8), "i64")
    with pytest.raises(PtoError, match="'pto.tgather'"):
        run(mask_kernel(src_t, dst_t, "P0101", "col"), target, [np.zeros((4, 8), np.int64), np.zeros((2, 8), np.int64)])


@pytest.mark.parametrize("dtype", ("i8", "ui8"))
def test_mask_a2a3_rejects_b8(dtype):
    src_t, dst_t = tile((4, 32), dtype), tile((4, 16), dtype)
    with pytest.raises(PtoError, match="'pto.tgather'"):
        run(mask_kernel(src_t, dst_t, "P0101", "row"), "a2a3", [np.zeros((4, 32), NP[dtype]), np.zeros((4, 16), NP[dtype])])


# ---------------------------------------------------------------------------
# compare form (a2a3, a5; semantics.md §2.3)


def compare_kernel(src: str, k: str, tmp: str, dst: str, cdst: str, cmp: str, offset: int) -> str:
    args = [("s", src), ("k", k), ("t", tmp), ("d", dst), ("c", cdst)]
    return func(
        args,
        f"pto.tgather ins(%s, %k, %t : {src}, {k}, {tmp}) outs(%d, %c : {dst}, {cdst}) "
        f"{{cmpMode = #pto<cmp {cmp}>, offset = {offset} : i32}}",
    )


def a2a3_index(offset: int, i: int, j: int, src_cols: int, vc: int, itemsize: int) -> int:
    return offset + i * src_cols + j


def a5_index(offset: int, i: int, j: int, src_cols: int, vc: int, itemsize: int) -> int:
    lanes = 128 if itemsize == 1 else 64
    return offset + i * ceil(vc / lanes) * lanes + j


def a5_key(v) -> int:
    """What a5 compares: floats rounded to int (nearest even), then everything unsigned 32-bit."""
    a = np.asarray(v)
    if a.dtype.kind == "f":
        return int(np.rint(np.float64(np.float32(a)))) & 0xFFFFFFFF
    return int(a) & 0xFFFFFFFF


def golden_compare(target, x, vr, vc, k_rows, cmp, offset, dst, cdst, span=None):
    """dst[i, :n] = index(i, j) of the matching j (in order); cdst.flat[i] = n."""
    index = a2a3_index if target == "a2a3" else a5_index
    out, counts = dst.copy(), cdst.copy()
    span = vc if span is None else span
    for i in range(vr):
        hits = []
        for j in range(span):
            if target == "a2a3":
                a, b = x[i, j], k_rows[i]
            else:
                a, b = a5_key(x[i, j]), a5_key(k_rows[i])
            if (a == b) if cmp == "eq" else (a > b):
                hits.append(index(offset, i, j, x.shape[1], vc, x.dtype.itemsize))
        out[i, : len(hits)] = hits
        counts.reshape(-1)[i] = len(hits)
    return out, counts


def compare_tmp(src_shape: tuple[int, int]) -> tuple[str, np.ndarray]:
    """A tmp large enough for a2a3's [bitmap][index table][converted k] (unused on a5)."""
    shape = (2 * src_shape[0], src_shape[1])
    return tile(shape, "i32"), np.zeros(shape, np.int32)


def run_compare(target, x, src_t, k_t, k, cmp, offset, dst_shape, cdst_shape):
    tmp_t, tmp = compare_tmp(x.shape)
    text = compare_kernel(src_t, k_t, tmp_t, tile(dst_shape, "i32"), tile(cdst_shape, "i32"), cmp, offset)
    dst, cdst = filled(dst_shape, "i32"), filled(cdst_shape, "i32")
    res = run(text, target, [x, k, tmp, dst, cdst])
    return res[3], res[4], dst, cdst


COMPARE_CASES = [
    # (target, src dtype, cmp, R, C, k, K): semantics.md §2.4 shapes
    ("a2a3", "f32", "gt", 16, 64, 80, 32),
    ("a2a3", "f32", "eq", 4, 256, 30, 64),
    ("a2a3", "f16", "eq", 8, 128, 40, 32),
    ("a2a3", "f16", "gt", 2, 256, 70, 128),
    ("a2a3", "i32", "eq", 8, 128, 80, 64),
    ("a5", "f32", "gt", 16, 64, 80, 32),
    ("a5", "f32", "eq", 4, 256, 30, 64),
    ("a5", "f16", "eq", 8, 128, 40, 32),
    ("a5", "f16", "gt", 2, 256, 70, 128),
    ("a5", "ui32", "gt", 8, 128, 60, 128),
    ("a5", "i32", "eq", 8, 128, 80, 64),
    ("a5", "i16", "gt", 16, 128, 50, 128),
    ("a5", "i16", "eq", 4, 64, 7, 64),
    ("a5", "ui16", "gt", 4, 64, 90, 64),
    ("a5", "i8", "gt", 16, 128, 50, 128),
    ("a5", "ui8", "eq", 16, 128, 3, 128),
]


@pytest.mark.parametrize("target,dtype,cmp,R,C,k,K", COMPARE_CASES)
@pytest.mark.parametrize("offset", (0, 5))
def test_compare_scalar_threshold(target, dtype, cmp, R, C, k, K, offset):
    """src ints in [0, 100), golden index numbers of the matches packed left; cdst.flat[i] = count."""
    rng = np.random.default_rng(seed(target, dtype, cmp, R, C, offset))
    x = rng.integers(0, 100, size=(R, C)).astype(NP[dtype])
    if cmp == "eq":
        x[:, 3] = k  # at least one hit per row
    K = max(K, int(((x > k) if cmp == "gt" else (x == k)).sum(axis=1).max()))
    out, counts, dst, cdst = run_compare(target, x, tile((R, C), dtype), dtype, np.array(k, NP[dtype]), cmp, offset,
                                         (R, K), (R, 8))
    exp_out, exp_counts = golden_compare(target, x, R, C, [np.array(k, NP[dtype])] * R, cmp, offset, dst, cdst)
    assert_bits_equal(out, exp_out)
    assert_bits_equal(counts, exp_counts)


@pytest.mark.parametrize("target", NPU)
@pytest.mark.parametrize("vc,cols", ((40, 48), (70, 96), (64, 64), (100, 128)))
def test_compare_index_numbering(target, vc, cols):
    """a2a3 numbers match j of row i as offset + i*src.Cols + j; a5 as offset + i*ceil(vc/64)*64 + j."""
    R = 3
    x = np.zeros((R, cols), np.float32)
    x[:, :vc] = 1.0
    x[:, vc:] = 1.0  # padding columns of an f32 src are never compared
    out, counts, dst, _cdst = run_compare(target, x, tile((R, cols), "f32", valid=(R, vc)), "f32",
                                         np.array(1.0, np.float32), "eq", 2, (R, 128), (1, 8))
    row_base = cols if target == "a2a3" else ceil(vc / 64) * 64
    expected = dst.copy()
    for i in range(R):
        expected[i, :vc] = 2 + i * row_base + np.arange(vc)
    assert_bits_equal(out, expected)
    assert list(counts.ravel()[:R]) == [vc] * R and (counts.ravel()[R:] == SENTINEL).all()


def test_compare_a5_f32_rounds_then_compares_unsigned():
    """a5 f32: src rounded to i32 (nearest even) then compared as u32: negatives are huge
    (GT true); 80.4 GT 80 false; 80.5 rounds to 80; 81.5 to 82."""
    x = np.array([[80.4, 80.5, 81.5, -3.0, 80.0, 81.0, 79.6, -0.4] * 8], np.float32)
    args = (x, tile((1, 64), "f32"), "f32", np.array(80.0, np.float32), "gt", 0, (1, 64), (1, 8))
    out_a5, counts_a5, _dst, _ = run_compare("a5", *args)
    hits_a5 = [j for j in range(64) if j % 8 in (2, 3, 5)]  # 82, huge, 81
    assert list(out_a5[0, : len(hits_a5)]) == hits_a5 and counts_a5[0, 0] == len(hits_a5)
    # a2a3 compares the floats numerically
    out_a2, counts_a2, _, _ = run_compare("a2a3", *args)
    hits_a2 = [j for j in range(64) if j % 8 in (0, 1, 2, 5)]
    assert list(out_a2[0, : len(hits_a2)]) == hits_a2 and counts_a2[0, 0] == len(hits_a2)


def test_compare_a5_b16_padding_lanes_can_match():
    """a5 b8/b16 use an all-true lane mask: padding columns inside the last 64-lane chunk are compared."""
    R, C, vc = 2, 64, 40
    x = np.zeros((R, C), np.int16)
    x[:, 10] = 9
    x[:, 50] = 9  # padding column, inside the first 64-lane chunk
    out, counts, dst, cdst = run_compare("a5", x, tile((R, C), "i16", valid=(R, vc)), "i16", np.array(9, np.int16),
                                         "eq", 0, (R, 8), (1, 8))
    exp_out, exp_counts = golden_compare("a5", x, R, vc, [9] * R, "eq", 0, dst, cdst, span=64)
    assert_bits_equal(out, exp_out)
    assert_bits_equal(counts, exp_counts)
    assert list(out[1, :2]) == [64 + 10, 64 + 50]


def test_compare_a5_signed_ints_compare_unsigned():
    x = np.array([[-1, 5, 100, -100, 0, 50, 2**31 - 1, -(2**31)] * 8], np.int32)
    out, counts, _dst, _cdst = run_compare("a5", x, tile((1, 64), "i32"), "i32", np.array(50, np.int32), "gt", 0,
                                         (1, 64), (1, 8))
    hits = [j for j in range(64) if j % 8 in (0, 2, 3, 6, 7)]
    assert list(out[0, : len(hits)]) == hits and counts[0, 0] == len(hits)


def test_compare_a2a3_numeric_negative_floats():
    x = np.array([[-1.0, 5.0, 100.0, -100.0, 0.0, 50.0, 50.5, -0.0] * 8], np.float32)
    out, counts, _dst, _cdst = run_compare("a2a3", x, tile((1, 64), "f32"), "f32", np.array(0.0, np.float32), "gt", 1,
                                         (1, 64), (1, 8))
    hits = [1 + j for j in range(64) if j % 8 in (1, 2, 5, 6)]
    assert list(out[0, : len(hits)]) == hits and counts[0, 0] == len(hits)
    assert (out[0, len(hits):] == SENTINEL).all()


@pytest.mark.parametrize("target,dtype,k_type,layout", [
    ("a2a3", "f32", "i32", "row"),
    ("a2a3", "f32", "ui32", "col"),
    ("a2a3", "f16", "i32", "row"),
    ("a2a3", "f16", "ui32", "col"),
    ("a5", "f32", "ui32", "row"),
    ("a5", "f32", "ui32", "col"),
    ("a5", "i16", "ui16", "row"),
    ("a5", "ui8", "ui16", "col"),
    ("a5", "i32", "ui32", "row"),
])
@pytest.mark.parametrize("cmp", ("gt", "eq"))
def test_compare_per_row_threshold_tile(target, dtype, k_type, layout, cmp):
    """A threshold tile: row i compares against k[i] ([1, R] row-major or [R, 1] col-major)."""
    R, C = 6, 128 if NP[dtype].itemsize == 1 else 64
    rng = np.random.default_rng(seed(target, dtype, k_type, layout, cmp))
    x = rng.integers(0, 100, size=(R, C)).astype(NP[dtype])
    ks = np.array([10, 50, 99, 0, 73, 42])
    if cmp == "eq":
        x[np.arange(R), 7] = ks.astype(NP[dtype])
    if target == "a2a3" and dtype == "f32" and k_type == "i32":
        ks = np.array([-5, 50, 99, 0, 73, 42])  # i32 thresholds convert to the float value
        x[0, :10] = -7
    if layout == "row":
        k_t, k = tile((1, R), k_type), ks.astype(NP[k_type]).reshape(1, R)
    else:
        k_t, k = tile((R, 1), k_type, blayout="col_major"), ks.astype(NP[k_type]).reshape(R, 1)
    out, counts, dst, cdst = run_compare(target, x, tile((R, C), dtype), k_t, k, cmp, 3, (R, C), (R, 8))
    k_rows = [np.array(v).astype(NP[dtype]) if target == "a2a3" else np.array(v).astype(NP[k_type]) for v in ks]
    exp_out, exp_counts = golden_compare(target, x, R, C, k_rows, cmp, 3, dst, cdst)
    assert_bits_equal(out, exp_out)
    assert_bits_equal(counts, exp_counts)


def test_compare_a2a3_half_threshold_tile_reads_16_bits():
    """a2a3 half: the threshold tile is read as 16-bit (u16 -> i16) and converted to half:
    an i32 -3 is 0xFFFD -> -3.0. (Values outside int16 are left out: whether each 32-bit
    element keeps its low half or the tile is re-read as 16-bit elements is unspecified.)"""
    R, C = 2, 64
    x = np.zeros((R, C), np.float16)
    x[0, :4] = [-3, -2, -4, 40]
    x[1, :4] = [40, 41, 39, 0]
    k = np.array([[-3, 40]], np.int32)
    out, counts, _dst, _cdst = run_compare("a2a3", x, tile((R, C), "f16"), tile((1, R), "i32"), k, "eq", 0, (R, 8), (1, 8))
    assert list(out[0, :1]) == [0] and list(out[1, :1]) == [64]
    assert list(counts.ravel()[:2]) == [1, 1]


@pytest.mark.parametrize("dtype", ("f32", "f16"))
def test_compare_rejected_on_cpu(dtype):
    src_t = tile((2, 64), dtype)
    tmp_t, tmp = compare_tmp((2, 64))
    text = compare_kernel(src_t, dtype, tmp_t, tile((2, 64), "i32"), tile((2, 8), "i32"), "gt", 0)
    with pytest.raises(PtoError, match="'pto.tgather'"):
        run(text, "cpu", [np.zeros((2, 64), NP[dtype]), np.array(1, NP[dtype]), tmp,
                          np.zeros((2, 64), np.int32), np.zeros((2, 8), np.int32)])


def test_compare_a2a3_i32_only_with_eq():
    src_t = tile((2, 64), "i32")
    tmp_t, tmp = compare_tmp((2, 64))
    text = compare_kernel(src_t, "i32", tmp_t, tile((2, 64), "i32"), tile((2, 8), "i32"), "gt", 0)
    with pytest.raises(PtoError, match="'pto.tgather'"):
        run(text, "a2a3", [np.zeros((2, 64), np.int32), np.array(1, np.int32), tmp,
                           np.zeros((2, 64), np.int32), np.zeros((2, 8), np.int32)])




@pytest.mark.parametrize("target", NPU)
def test_compare_dynamic_valid_cols_scalar_threshold(target):
    src_t = tile((2, 64), "f32", valid=(2, "?"))
    body = f"""
{constants(0, 1, 2, 8, 64)}
%k = arith.constant 5.000000e+00 : f32
%xv = pto.make_tensor_view %x, shape = [%c2, %c64], strides = [%c64, %c1] : {tensor_view(2, "f32")}
%xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c2, %vc] : {tensor_view(2, "f32")}
{gm_views([("hits", "i32", (2, 64)), ("cnt", "i32", (1, 8))])}
%src = pto.alloc_tile valid_col = %vc : {src_t}
%tmp = pto.alloc_tile : {tile((4, 64), "i32")}
%dst = pto.alloc_tile : {tile((2, 64), "i32")}
%cdst = pto.alloc_tile : {tile((1, 8), "i32")}
pto.tload ins(%hitsp : {view((2, 64), "i32")}) outs(%dst : {tile((2, 64), "i32")})
pto.tload ins(%xp : {view((2, "?"), "f32")}) outs(%src : {src_t})
pto.tgather ins(%src, %k, %tmp : {src_t}, f32, {tile((4, 64), "i32")}) outs(%dst, %cdst : {tile((2, 64), "i32")}, {tile((1, 8), "i32")}) {{cmpMode = #pto<cmp gt>}}
pto.tstore ins(%dst : {tile((2, 64), "i32")}) outs(%hitsp : {view((2, 64), "i32")})
pto.tstore ins(%cdst : {tile((1, 8), "i32")}) outs(%cntp : {view((1, 8), "i32")})
"""
    text = func([("x", "!pto.ptr<f32>"), ("hits", "!pto.ptr<i32>"), ("cnt", "!pto.ptr<i32>"), ("vc", "index")], body)
    x = np.zeros((2, 64), np.float32)
    x[0, [1, 30, 39, 45]] = 9.0  # column 45 is beyond vc = 40
    x[1, [0, 2]] = 7.0
    res = run(text, target, [x.ravel(), np.full(128, SENTINEL, np.int32), np.full(8, SENTINEL, np.int32), np.array(40)])
    hits = res[1].reshape(2, 64)
    assert list(hits[0, :3]) == [1, 30, 39] and list(hits[1, :2]) == [64, 66]
    assert list(res[2][:2]) == [3, 2]




@pytest.mark.parametrize("dtype", ("f16", "i16"))
def test_index_a2a3_b16_tmp_holds_byte_offsets(dtype):
    src_t, idx_t, dst_t = tile((2, 16), dtype), tile((1, 16), "i32"), tile((1, 16), dtype)
    text = index_kernel(src_t, idx_t, dst_t, idx_t)
    ids = np.arange(16, dtype=np.int32)[::-1].reshape(1, 16).copy() + 3
    res = run(text, "a2a3", [np.arange(32).astype(NP[dtype]).reshape(2, 16), ids, filled((1, 16), "i32"), filled((1, 16), dtype)])
    assert_bits_equal(res[2], ids * 2)
