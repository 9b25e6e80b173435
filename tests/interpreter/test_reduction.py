"""
The row reductions on every target, against formulas written here from pto-isa's code, one row
at a time in the target's own order:
- cpu (cpu/TRowSum.hpp, TRowMax.hpp, TRowMin.hpp, TRowProd.hpp): one accumulator from column 0,
  a sum in float for half and bfloat16; max/min by `(acc < x) ? x : acc`.
- a2a3 (npu/a2a3/TRowSum.hpp with TRowReduceOps.hpp, TRowProd.hpp): repeats of 256 bytes summed
  lane-wise into tmp in the header's order, then vcadd (its tree assumed as adjacent pairs); the
  product by 32-byte blocks, then the lanes left to right (in float for half).
- a5 (npu/a5/TRowReduce.hpp, TRowProd.hpp): vcadd per 256-byte chunk, chunk results added from
  +0; the product by chunks, then folded by halves.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interpreter.harness import NP, TARGETS, assert_bits_equal, constants, filled, func, random_values, run, seed, tensor_view, tile, view

COVERS = ("pto.trowsum", "pto.trowmax", "pto.trowmin", "pto.trowprod")
"""The instructions whose results these tests check against their own formulas, per target."""

TYPES = {
    "cpu": ("i16", "i32", "f16", "bf16", "f32"),
    "a2a3": ("i16", "i32", "f16", "f32"),
    "a5": ("i16", "i32", "f16", "f32"),
}
"""Element types every target's row reductions take (their rule rows'; the lit tests check them)."""


def tree(lanes: list[np.float32]) -> np.float32:
    """vcadd's tree as the interpreter assumes it: adjacent pairs, then pairs of those, ..."""
    while len(lanes) > 1:
        lanes = [lanes[i] + lanes[i + 1] for i in range(0, len(lanes), 2)]
    return lanes[0]


def cpu_row(op: str, row: np.ndarray) -> object:
    t = row.dtype.type
    if op == "trowsum":
        acc = np.float32(0) if row.dtype.itemsize == 2 and row.dtype.kind != "i" else t(0)
        for v in row:
            acc = type(acc)(acc + type(acc)(v))
        return acc
    if op == "trowprod":
        acc = t(1)
        for v in row:
            acc = t(acc * v)
        return acc
    acc = row[0]
    for v in row[1:]:
        if (acc < v) if op == "trowmax" else (v < acc):
            acc = v
    return acc


def a2a3_row(op: str, row: np.ndarray) -> object:
    t = row.dtype.type
    if op in ("trowmax", "trowmin"):
        return (np.max if op == "trowmax" else np.min)(row)
    if op == "trowprod":
        per_block = 32 // row.dtype.itemsize
        lanes = [t(1)] * per_block
        for start in range(0, len(row), per_block):
            for k, v in enumerate(row[start : start + per_block]):
                lanes[k] = t(lanes[k] * v)
        if row.dtype == np.float16:
            acc = np.float32(1)
            for v in lanes:
                acc = np.float32(acc * np.float32(v))
            return t(acc)
        acc = lanes[0]
        for v in lanes[1:]:
            acc = t(acc * v)
        return acc
    if row.dtype.kind == "i":
        return row.sum(dtype=row.dtype)
    e = 256 // row.dtype.itemsize
    n, tail = divmod(len(row), e)
    blocks = [list(row[i * e : (i + 1) * e]) for i in range(n)]
    if len(row) <= e:
        return tree(list(row) + [t(0)] * (e - len(row)))
    if n == 1:
        tmp = blocks[0]
        for k in range(tail):
            tmp[k] = tmp[k] + row[e + k]
        return tree(tmp)
    tmp = [[a + b for a, b in zip(blocks[2 * i], blocks[2 * i + 1])] for i in range(n // 2)]
    if n % 2:
        tmp[0] = [a + b for a, b in zip(tmp[0], blocks[n - 1])]
    for k in range(tail):
        tmp[0][k] = tmp[0][k] + row[n * e + k]
    length = n // 2
    while length > 1:
        for i in range(length // 2):
            tmp[i] = [a + b for a, b in zip(tmp[2 * i], tmp[2 * i + 1])]
        odd, length = length % 2, length // 2
        if odd:
            tmp[length - 1] = [a + b for a, b in zip(tmp[length - 1], tmp[length * 2])]
    return tree(tmp[0])


def a5_row(op: str, row: np.ndarray) -> object:
    t = row.dtype.type
    if op in ("trowmax", "trowmin"):
        return (np.max if op == "trowmax" else np.min)(row)
    e = 256 // row.dtype.itemsize
    chunks = [list(row[i : i + e]) for i in range(0, len(row), e)]
    if op == "trowprod":
        lanes = [t(1)] * e
        for chunk in chunks:
            lanes = [t(a * b) for a, b in zip(lanes, chunk + [t(1)] * (e - len(chunk)))]
        for _ in range(e.bit_length() - 1):
            folded = [t(1)] * e
            for i in range(e // 2):
                folded[2 * i] = t(lanes[i] * lanes[i + e // 2])
            lanes = folded
        return lanes[0]
    if row.dtype.kind == "i":
        return row.sum(dtype=row.dtype)
    acc = t(0)
    for chunk in chunks:
        acc = t(acc + tree(chunk + [t(0)] * (e - len(chunk))))
    return acc


GOLDEN = {"cpu": cpu_row, "a2a3": a2a3_row, "a5": a5_row}


def reduce_kernel(op: str, shape: tuple[int, int], dtype: str, valid: tuple[int, int], dst: str = "") -> str:
    s = tile(shape, dtype, valid=valid)
    tmp = tile(shape, dtype)
    d = dst or tile((shape[0], 1), dtype, valid=(valid[0], 1))
    return func([("s", s), ("t", tmp), ("d", d)], f"pto.{op} ins(%s, %t : {s}, {tmp}) outs(%d : {d})")


def expected_column(target: str, op: str, x: np.ndarray, valid: tuple[int, int], rows: int, dtype: str) -> np.ndarray:
    out = filled((rows, 1), dtype)
    with np.errstate(all="ignore"):
        for i in range(valid[0]):
            out[i, 0] = GOLDEN[target](op, x[i, : valid[1]])
    return out


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", COVERS)
@pytest.mark.parametrize("cols", [13, 100, 200, 520])
def test_row_reduction_in_the_targets_order(target: str, op: str, cols: int) -> None:
    mnemonic = op.removeprefix("pto.")
    for dtype in TYPES[target]:
        rng = np.random.default_rng(seed(target, op, dtype, cols))
        width = -(-cols // 16) * 16 + 16
        shape, valid = (4, width), (3, cols)
        x = random_values(rng, dtype, shape)
        if mnemonic == "trowprod" and NP[dtype].kind != "i":
            x = (1 + (x.astype(np.float32) % 1) / 64).astype(NP[dtype])  # products that stay finite
        if mnemonic == "trowsum" and dtype in ("f16", "bf16"):
            x = (x.astype(np.float32) / 64).astype(NP[dtype])
        out = run(reduce_kernel(mnemonic, shape, dtype, valid), target, [x, filled(shape, dtype), filled((4, 1), dtype)])[-1]
        assert_bits_equal(out, expected_column(target, mnemonic, x, valid, 4, dtype))


@pytest.mark.parametrize("target", TARGETS)
def test_integer_sums_and_products_wrap(target: str) -> None:
    x = np.array([[32767, 1, 2, 3] * 4, [-32768, -1, 1, 1] * 4], np.int16)
    out = run(reduce_kernel("trowsum", (2, 16), "i16", (2, 16)), target, [x, filled((2, 16), "i16"), filled((2, 1), "i16")])[-1]
    assert_bits_equal(out, x.sum(axis=1, dtype=np.int16)[:, None])
    out = run(reduce_kernel("trowprod", (2, 16), "i16", (2, 16)), target, [x, filled((2, 16), "i16"), filled((2, 1), "i16")])[-1]
    assert_bits_equal(out, np.prod(x, axis=1, dtype=np.int16)[:, None])


def test_cpu_max_keeps_a_first_nan_and_the_first_of_equal_zeros() -> None:
    x = np.array([[np.nan, 1.0, 2.0, 3.0], [1.0, np.nan, 3.0, 2.0], [-0.0, 0.0, -1.0, -2.0], [0.0, -0.0, -1.0, -2.0]], np.float32)
    out = run(reduce_kernel("trowmax", (4, 4), "f32", (4, 4)), "cpu", [x, filled((4, 4), "f32"), filled((4, 1), "f32")])[-1]
    assert np.isnan(out[0, 0]) and out[1, 0] == 3.0
    assert np.signbit(out[2, 0]) and not np.signbit(out[3, 0])


@pytest.mark.parametrize("dtype", ["f32", "f16"])
@pytest.mark.parametrize("rows", [1, 3])
def test_cpu_sum_starts_from_plus_zero(dtype: str, rows: int) -> None:
    """cpu/TRowSum.hpp's `sum = 0; sum += src[j]`: a row of -0.0 sums to +0.0 (bench/simdiff
    found x0 + x1 + ... giving -0.0); one valid row and several take different NumPy paths."""
    x = np.full((4, 16), -0.0, NP[dtype])
    x[1, 5] = 0.0
    out = run(reduce_kernel("trowsum", (4, 16), dtype, (rows, 16)), "cpu", [x, filled((4, 16), dtype), filled((4, 1), dtype)])[-1]
    assert_bits_equal(out, expected_column("cpu", "trowsum", x, (rows, 16), 4, dtype))
    assert not np.signbit(out[:rows, 0]).any()


@pytest.mark.parametrize("target", ["a2a3", "a5"])
def test_npu_max_and_min_propagate_nan(target: str) -> None:
    x = np.array([[1.0, np.nan, 3.0, 2.0] * 4, [1.0, 5.0, 3.0, 2.0] * 4], np.float32)
    for op, value in (("trowmax", 5.0), ("trowmin", 1.0)):
        out = run(reduce_kernel(op, (2, 16), "f32", (2, 16)), target, [x, filled((2, 16), "f32"), filled((2, 1), "f32")])[-1]
        assert np.isnan(out[0, 0]) and out[1, 0] == value


def test_a2a3_fp32_64x128_into_a_dn_column_goes_through_vcgadd() -> None:
    """TRowReduceOps.hpp ReduceOptFP32_64x128: 8-element groups (vcgadd), the two halves of each
    row's 16 group sums added (vadd), then the 8 left (vcgadd)."""
    rng = np.random.default_rng(seed("a2a3", "64x128"))
    x = rng.standard_normal((64, 128)).astype(np.float32)
    dn = tile((64, 1), "f32", blayout="col_major")
    out = run(reduce_kernel("trowsum", (64, 128), "f32", (64, 128), dst=dn), "a2a3", [x, filled((64, 128), "f32"), filled((64, 1), "f32")])[-1]
    groups = [[tree(list(r[g : g + 8])) for g in range(0, 128, 8)] for r in x]
    expected = np.array([[tree([g[j] + g[j + 8] for j in range(8)])] for g in groups], np.float32)
    assert_bits_equal(out, expected)


def test_cpu_row_sums_and_maxima_of_a_batched_loop() -> None:
    """A loop of 40 tiles of 64 x 128 f32 runs batched: TROWSUM's sum goes through more than one
    block of tiles (reduction.SUM_BLOCK_BYTES, the last one partial) and TROWMAX reduces from -inf;
    each row still as the simulator's loop: `sum = 0; sum += x[j]`, the first of equal maxima."""
    from tests.interpreter.test_batch import recording_batched

    tiles, rows, cols = 40, 64, 128
    a, d = tile((rows, cols), "f32"), tile((rows, 1), "f32", blayout="col_major")
    gm = tensor_view(2, "f32")
    rng = np.random.default_rng(seed("batched row reductions"))
    x = np.exp(rng.standard_normal((tiles * rows, cols)) * 4).astype(np.float32)
    x[5, :] = -0.0
    x[70, [3, 9]] = x[70].max() * 2  # equal maxima
    for op, expected in (
        ("trowsum", np.add.accumulate(np.concatenate([np.zeros((tiles * rows, 1), np.float32), x], axis=1), axis=1)[:, -1:]),
        ("trowmax", x.max(axis=1, keepdims=True)),
    ):
        body = f"""{constants(0, 1, rows, cols, tiles, tiles * rows)}
            %xv = pto.make_tensor_view %x, shape = [%c{tiles * rows}, %c{cols}], strides = [%c{cols}, %c1] : {gm}
            %ov = pto.make_tensor_view %o, shape = [%c{tiles * rows}, %c1], strides = [%c1, %c1] : {gm}
            %a = pto.alloc_tile : {a}
            %t = pto.alloc_tile : {a}
            %d = pto.alloc_tile : {d}
            scf.for %i = %c0 to %c{tiles} step %c1 {{
              %r = arith.muli %i, %c{rows} : index
              %xp = pto.partition_view %xv, offsets = [%r, %c0], sizes = [%c{rows}, %c{cols}] : {gm}
              %op = pto.partition_view %ov, offsets = [%r, %c0], sizes = [%c{rows}, %c1] : {gm}
              pto.tload ins(%xp : {view((rows, cols), "f32")}) outs(%a : {a})
              pto.{op} ins(%a, %t : {a}, {a}) outs(%d : {d})
              pto.tstore ins(%d : {d}) outs(%op : {view((rows, 1), "f32")})
            }}"""
        kernel = func([("x", "!pto.ptr<f32>"), ("o", "!pto.ptr<f32>")], body)
        with recording_batched() as outcomes:
            out = run(kernel, "cpu", [x, filled((tiles * rows, 1), "f32")])[1]
        assert outcomes == [True]
        assert_bits_equal(out, expected)
        assert np.signbit(out[5, 0]) == (op == "trowmax")  # -0.0 the first (and every) element; a sum from +0
