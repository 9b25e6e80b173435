"""
The compare-and-select family on every target, against formulas written here from pto-isa's
code: cpu/TCmp.h (dst zeroed, packed words of the valid columns), cpu/TCmps.hpp (eq/ne with a
1e-9 tolerance in double; the bits of src's whole rows streamed into dst's valid region),
npu/a2a3/TCmp.hpp and TCmps.hpp (whole 256-byte repeats; int32 compared for eq whatever the mode;
ne as eq then vnot over dst's valid rows; TCMPS reads 16-bit integers as half), npu/a5/TCmp.hpp
and TCmps.hpp (predicated registers, whole stores), cpu/TSel.hpp (one bit stream across rows),
npu/a5/TSel.hpp (1-byte data: the mask of repeat r read from byte 16 r) and TSels.hpp.
The formulas below loop over rows and bytes on purpose: they restate the C++ loops, not the
interpreter's NumPy.
"""

from __future__ import annotations

import operator

import numpy as np
import pytest

from tests.interpreter.harness import NP, TARGETS, assert_bits_equal, func, run, seed, tile

COVERS = ("pto.tcmp", "pto.tcmps", "pto.tsel", "pto.tsels")
"""The instructions whose results these tests check against their own formulas, per target."""

MODES = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "gt": operator.gt, "ge": operator.ge, "le": operator.le}
OLD = 0xA5
"""What dst holds before: bytes a target leaves alone keep it."""

TCMP_TYPES = {"cpu": ("i32", "f16", "f32"), "a2a3": ("i32", "f16", "f32"), "a5": ("i8", "i16", "i32", "f16", "bf16", "f32")}
MASK = {"cpu": "ui8", "a2a3": "i8", "a5": "i8"}
"""The 8-bit mask type each target's TCMP takes (the simulator wants uint8_t)."""


def small_values(rng: np.random.Generator, dtype: str, shape: tuple[int, int]) -> np.ndarray:
    """Values from a small range, so that equal pairs are common."""
    return rng.integers(-3, 4, size=shape).astype(NP[dtype])


def pack_row(bits: list[int]) -> list[int]:
    """Bit k of the list in bit k % 8 of byte k // 8."""
    out = [0] * ((len(bits) + 7) // 8)
    for k, b in enumerate(bits):
        out[k // 8] |= int(b) << (k % 8)
    return out


def expected_tcmp(target: str, a: np.ndarray, b, mode: str, valid: tuple[int, int], dst_shape: tuple[int, int],
                  dst_valid: tuple[int, int], scalar: bool = False) -> np.ndarray:
    """The mask each target's TCMP / TCMPS writes, restated from its C++ loops."""
    vr, vc = valid
    dst_valid_rows, dst_valid_cols = dst_valid
    rows, cols = a.shape
    dst = np.full(dst_shape, OLD, np.uint8)
    op = MODES[mode]
    flat_a = a.reshape(-1)
    flat_b = None if scalar else np.asarray(b).reshape(-1)
    if target == "cpu" and not scalar:
        dst[:] = 0
        for i in range(vr):
            row = pack_row([op(a[i, j], b[i, j]) for j in range(vc)])
            keep = min(len(row), dst_valid_cols)
            dst[i, :keep] = row[:keep]
    elif target == "cpu":
        def cpu_cmp(x, y):
            d = abs(float(x) - float(y))
            if mode == "eq":
                return d < 1e-9
            if mode == "ne":
                return np.isnan(float(x)) or np.isnan(float(y)) or d > 1e-9
            return op(x, y)

        golden = [[cpu_cmp(a[i, j], b) if i < vr and j < vc else 0 for j in range(cols)] for i in range(rows)]
        stream = [byte for i in range(rows) for byte in pack_row(golden[i][: cols // 8 * 8])]
        dst[:] = 0
        for c, byte in enumerate(stream[: dst.size]):
            i, j = divmod(c, dst_valid_cols)
            if i < dst_valid_rows:
                dst[i, j] = byte
    elif target == "a2a3":
        per_repeat = 256 // a.itemsize
        span = -(-vc // per_repeat) * per_repeat
        eq_only = mode == "ne" or (a.dtype.kind == "i" and a.itemsize == 4)
        compare = MODES["eq"] if eq_only else op
        for i in range(vr):
            bits = []
            for k in range(span):
                at = i * cols + k
                if at >= flat_a.size:
                    bits.append(0)
                    continue
                x = flat_a[at]
                y = b if scalar else flat_b[at]
                if scalar and a.dtype.kind == "i" and a.itemsize == 2:  # read as half
                    x, y = np.array(x).view(np.float16), np.array(y, a.dtype).view(np.float16)
                bits.append(compare(x, y))
            row = pack_row(bits)
            dst[i, : len(row)] = row
        if mode == "ne":
            flat = dst.reshape(-1)
            n = vr * dst_shape[1] // 2 * 2
            flat[:n] = ~flat[:n]
    else:  # a5
        unit = 256 if a.itemsize == 1 else 128
        for i in range(vr):
            bits = [op(a[i, j], b if scalar else b[i, j]) if j < vc else 0 for j in range(-(-vc // unit) * unit)]
            row = pack_row(bits)
            dst[i, : len(row)] = row
    return dst


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", sorted(MODES))
def test_tcmp(target: str, mode: str) -> None:
    for dtype in TCMP_TYPES[target]:
        rng = np.random.default_rng(seed(target, mode, dtype))
        cols = 256 // NP[dtype].itemsize
        shape, valid = (3, cols), (2, cols - 5)
        a, b = small_values(rng, dtype, shape), small_values(rng, dtype, shape)
        t = tile(shape, dtype, valid=valid)
        mv = tile(shape, MASK[target], valid=(valid[0], shape[1]))
        text = func([("a", t), ("b", t), ("d", mv)],
                    f"pto.tcmp ins(%a, %b {{cmpMode = #pto<cmp {mode}>}} : {t}, {t}) outs(%d : {mv})")
        out = run(text, target, [a, b, np.full(shape, OLD, np.uint8).view(NP[MASK[target]])])[-1]
        assert_bits_equal(out.view(np.uint8), expected_tcmp(target, a, b, mode, valid, shape, (valid[0], shape[1])))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", ["eq", "ne", "lt", "ge"])
def test_tcmps(target: str, mode: str) -> None:
    types = {"cpu": ("i16", "i32", "f16", "f32"), "a2a3": ("i16", "i32", "f16", "f32"), "a5": ("i8", "i16", "i32", "f32")}
    for dtype in types[target]:
        rng = np.random.default_rng(seed("tcmps", target, mode, dtype))
        cols = 128 // NP[dtype].itemsize
        shape, valid = (4, cols), (3, cols - 3)
        a = small_values(rng, dtype, shape)
        if dtype == "i16":
            a[0, :4] = [-1, -32768, 0x7C00, 1]  # as half: NaN, -0, +inf, a denormal
        scalar_type = {"i8": "i8", "i16": "i16", "i32": "i32", "f16": "f16", "f32": "f32"}[dtype]
        t = tile(shape, dtype, valid=valid)
        mv = tile(shape, "i8", valid=(valid[0], shape[1]))
        text = func([("a", t), ("s", scalar_type), ("d", mv)],
                    f"pto.tcmps ins(%a, %s {{cmpMode = #pto<cmp {mode}>}} : {t}, {scalar_type}) outs(%d : {mv})")
        s = np.array(0, NP[dtype])
        out = run(text, target, [a, s, np.full(shape, OLD, np.uint8).view(np.int8)])[-1]
        assert_bits_equal(out.view(np.uint8), expected_tcmp(target, a, s[()], mode, valid, shape, (valid[0], shape[1]), scalar=True))


@pytest.mark.parametrize("target", TARGETS)
def test_tcmps_infinities_and_nan(target: str) -> None:
    """cpu's eq is |a - b| < 1e-9 in double: inf is not equal to inf, nor unequal; NaN is unequal."""
    a = np.array([[np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-10, 1.0, np.inf] * 8], np.float32)
    t, mv = tile((1, 64), "f32"), tile((1, 64), "i8")
    for mode in ("eq", "ne"):
        text = func([("a", t), ("s", "f32"), ("d", mv)],
                    f"pto.tcmps ins(%a, %s {{cmpMode = #pto<cmp {mode}>}} : {t}, f32) outs(%d : {mv})")
        out = run(text, target, [a, np.array(np.inf, np.float32), np.zeros((1, 64), np.int8)])[-1].view(np.uint8)
        with np.errstate(invalid="ignore"):
            if target == "cpu":
                d = np.abs(a.astype(np.float64) - np.inf)
                bits = d < 1e-9 if mode == "eq" else np.isnan(a) | (d > 1e-9)
            else:
                bits = (a == np.inf) if mode == "eq" else (a != np.inf)
        assert_bits_equal(out[0, :8], np.packbits(bits[0], bitorder="little"))


@pytest.mark.parametrize("target", TARGETS)
def test_tcmps_cpu_streams_whole_rows_into_a_narrower_dst(target: str) -> None:
    """src 4 x 32 f32: 4 mask bytes a row; dst's valid columns 2: the simulator lays the stream
    two bytes a row; the NPUs write each row's bytes from its row's start."""
    a = np.arange(128, dtype=np.float32).reshape(4, 32)
    t, mv = tile((4, 32), "f32"), tile((8, 32), "i8", valid=(4, 2))
    text = func([("a", t), ("s", "f32"), ("d", mv)], f"pto.tcmps ins(%a, %s {{cmpMode = #pto<cmp ge>}} : {t}, f32) outs(%d : {mv})")
    if target == "cpu":
        out = run(text, target, [a, np.array(20.0, np.float32), np.full((8, 32), OLD, np.uint8).view(np.int8)])[-1].view(np.uint8)
        stream = [b for i in range(4) for b in pack_row([a[i, j] >= 20 for j in range(32)])]
        want = np.zeros((8, 32), np.uint8)
        for c in range(8):  # dst's valid region: 4 rows x 2 bytes
            want[c // 2, c % 2] = stream[c]
        assert_bits_equal(out, want)
    else:
        out = run(text, target, [a, np.array(20.0, np.float32), np.full((8, 32), OLD, np.uint8).view(np.int8)])[-1].view(np.uint8)
        for i in range(4):
            assert list(out[i, :4]) == pack_row([a[i, j] >= 20 for j in range(32)])


def select_kernel(op: str, shape: tuple[int, int], dtype: str, mask_shape: tuple[int, int], valid: tuple[int, int],
                  scalar: bool, tmp: str | None = None) -> str:
    t, m = tile(shape, dtype, valid=valid), tile(mask_shape, "i8")
    if scalar:
        args = [("m", m), ("a", t), ("s", dtype), ("d", t)]
        return func(args, f"pto.{op} ins(%m, %a, %s : {m}, {t}, {dtype}) outs(%d : {t})")
    args = [("m", m), ("a", t), ("b", t), ("d", t)]
    return func(args, f"pto.{op} ins(%m, %a, %b : {m}, {t}, {t}) outs(%d : {t})")


def mask_bit_rows(mask: np.ndarray, i: int, j: int) -> int:
    return (int(mask[i, j // 8]) >> (j % 8)) & 1


def select_inputs(
    op: str, target: str, dtype: str, shape: tuple[int, int], mask_shape: tuple[int, int]
) -> tuple[np.random.Generator, np.ndarray, np.ndarray]:
    """A generator seeded by the test, random mask bytes and a dst of 99s (the elements outside
    the valid region keep them)."""
    rng = np.random.default_rng(seed(op, target, dtype))
    mask = rng.integers(0, 256, size=mask_shape).astype(np.uint8).view(np.int8)
    return rng, mask, np.full(shape, 99, NP[dtype])


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", ["i16", "f16", "f32", "i32"])
def test_tsel(target: str, dtype: str) -> None:
    shape, valid, mask_shape = (3, 48), (3, 45), (3, 32)
    rng, mask, old = select_inputs("tsel", target, dtype, shape, mask_shape)
    a, b = small_values(rng, dtype, shape), small_values(rng, dtype, shape) + np.array(10, NP[dtype])
    out = run(select_kernel("tsel", shape, dtype, mask_shape, valid, False), target, [mask, a, b, old])[-1]
    want = old.copy()
    u = mask.view(np.uint8)
    for i in range(valid[0]):
        for j in range(valid[1]):
            if target == "cpu":  # one stream over the valid elements, mask bytes along its 32 valid columns
                k = i * valid[1] + j
                bit = (int(u[(k // 8) // 32, (k // 8) % 32]) >> (k % 8)) & 1
            else:
                bit = mask_bit_rows(u, i, j)
            want[i, j] = a[i, j] if bit else b[i, j]
    assert_bits_equal(out, want)


@pytest.mark.parametrize("target", TARGETS)
def test_tsel_one_byte_data_past_a_repeat(target: str) -> None:
    """a5's TSel_b16_8 reads the mask of each 256-column repeat of 1-byte data from byte 16 r:
    column j reads bit j - 128 (j // 256) of its row."""
    if target == "a2a3":
        pytest.skip("a2a3's TSEL takes 2- and 4-byte data only (the lit tests check the message)")
    rng = np.random.default_rng(seed("tsel-b8", target))
    shape, mask_shape = (2, 320), (2, 64)
    mask = rng.integers(0, 256, size=mask_shape).astype(np.uint8).view(np.int8)
    a, b = np.full(shape, 1, np.int8), np.full(shape, 2, np.int8)
    out = run(select_kernel("tsel", shape, "i8", mask_shape, shape, False), target, [mask, a, b, np.zeros(shape, np.int8)])[-1]
    u = mask.view(np.uint8)
    want = np.zeros(shape, np.int8)
    for i in range(2):
        for j in range(320):
            if target == "cpu":
                k = i * 320 + j
                bit = (int(u[(k // 8) // 64, (k // 8) % 64]) >> (k % 8)) & 1
            else:
                bit = mask_bit_rows(u, i, j - 128 * (j // 256))
            want[i, j] = 1 if bit else 2
    assert_bits_equal(out, want)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", ["i16", "i32", "f16", "f32"])
def test_tsels(target: str, dtype: str) -> None:
    shape, valid, mask_shape = (4, 40), (3, 37), (4, 32)
    rng, mask, old = select_inputs("tsels", target, dtype, shape, mask_shape)
    a = small_values(rng, dtype, shape)
    s = np.array(-7, NP[dtype])
    out = run(select_kernel("tsels", shape, dtype, mask_shape, valid, True), target, [mask, a, s, old])[-1]
    want = old.copy()
    for i in range(valid[0]):
        for j in range(valid[1]):
            want[i, j] = a[i, j] if mask_bit_rows(mask.view(np.uint8), i, j) else s
    assert_bits_equal(out, want)


@pytest.mark.parametrize("target", TARGETS)
def test_tsels_writes_the_scalar_into_tmp_on_a2a3(target: str) -> None:
    t, m, tt = tile((2, 16), "f32"), tile((2, 32), "i8"), tile((1, 8), "f32")
    text = func([("m", m), ("a", t), ("t", tt), ("s", "f32"), ("d", t)],
                f"pto.tsels ins(%m, %a, %t, %s : {m}, {t}, {tt}, f32) outs(%d : {t})")
    tmp = np.full((1, 8), 5.0, np.float32)
    out = run(text, target, [np.zeros((2, 32), np.int8), np.ones((2, 16), np.float32), tmp, np.array(3.0, np.float32),
                              np.zeros((2, 16), np.float32)])
    assert_bits_equal(out[-1], np.full((2, 16), 3.0, np.float32))
    want_tmp = tmp.copy()
    if target == "a2a3":  # TSels.hpp: *scalarPtr = scalar
        want_tmp[0, 0] = 3.0
    assert_bits_equal(out[2], want_tmp)


@pytest.mark.parametrize("target", TARGETS)
def test_tsel_in_place_over_src0(target: str) -> None:
    t, m = tile((2, 32), "f32"), tile((2, 32), "i8")
    text = func([("m", m), ("a", t), ("b", t)], f"pto.tsel ins(%m, %a, %b : {m}, {t}, {t}) outs(%a : {t})")
    mask = np.zeros((2, 32), np.uint8)
    mask[:, :4] = 0x0F  # row i: columns 0-3, 8-11, 16-19, 24-27 from src0
    a, b = np.arange(64, dtype=np.float32).reshape(2, 32), np.full((2, 32), -1.0, np.float32)
    out = run(text, target, [mask.view(np.int8), a, b])[1]
    if target == "cpu":  # the bit stream walks the mask's 32 valid bytes of row 0 for both rows
        bits = np.array([[(int(mask.reshape(-1)[(i * 32 + j) // 8]) >> (j % 8)) & 1 for j in range(32)] for i in range(2)])
    else:
        bits = np.array([[mask_bit_rows(mask, i, j) for j in range(32)] for i in range(2)])
    assert_bits_equal(out, np.where(bits == 1, a, b))


@pytest.mark.parametrize("target", TARGETS)
def test_tsels_reads_a_wider_mask_as_its_rows_bytes(target: str) -> None:
    """cpu/TSelS.hpp: bit c % 32 of the 32-bit element c / 32 of the row; a2a3/a5 read the row's
    bytes: the same bits, little-endian."""
    t, m = tile((2, 64), "f32"), tile((2, 8), "i32")
    text = func([("m", m), ("a", t), ("s", "f32"), ("d", t)], f"pto.tsels ins(%m, %a, %s : {m}, {t}, f32) outs(%d : {t})")
    words = np.array([[0x80000001, 0x0000FF00] + [0] * 6, [0xFFFFFFFF, 0x12345678] + [0] * 6], np.uint32)
    a = np.arange(128, dtype=np.float32).reshape(2, 64)
    out = run(text, target, [words.view(np.int32), a, np.array(-1.0, np.float32), np.zeros((2, 64), np.float32)])[-1]
    want = np.array([[a[i, c] if (int(words[i, c // 32]) >> (c % 32)) & 1 else -1.0 for c in range(64)] for i in range(2)],
                    np.float32)
    assert_bits_equal(out, want)
