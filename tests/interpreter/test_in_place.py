"""
In-place instructions the hardware computes correctly (targets/rules/aliasing.py):
elem-mode MGATHER with its dst at the index tile's address, and index-form TGATHER
writing dst over its indices. Every output element comes from the input values
read before the op: out[r, c] = table[ids[r, c]] and dst[c] = src[idx[c]].
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interpreter.harness import TARGETS, assert_bits_equal, constants, func, gm_views, run, tile, view

IDX, DST = tile((8, 32), "i32"), tile((8, 32), "f32")
MGATHER = func(
    [("table", "!pto.ptr<f32>"), ("ids", "!pto.ptr<i32>"), ("out", "!pto.ptr<f32>")],
    constants(0, 1, 8, 32, 256)
    + f"""
%a0 = arith.constant 0 : i64
%tv = pto.make_tensor_view %table, shape = [%c256], strides = [%c1] : !pto.tensor_view<?xf32>
%tp = pto.partition_view %tv, offsets = [%c0], sizes = [%c256] : !pto.tensor_view<?xf32>
{gm_views([("ids", "i32", (8, 32)), ("out", "f32", (8, 32))])}
%idx = pto.alloc_tile addr = %a0 : {IDX}
%dst = pto.alloc_tile addr = %a0 : {DST}
pto.tload ins(%idsp : {view((8, 32), "i32")}) outs(%idx : {IDX})
pto.mgather ins(%tp, %idx : {view((256,), "f32")}, {IDX}) outs(%dst : {DST}) {{coalesce = #pto<coalesce elem>}}
pto.tstore ins(%dst : {DST}) outs(%outp : {view((8, 32), "f32")})
""",
)


@pytest.mark.parametrize("target", TARGETS)
def test_mgather_elem_dst_over_its_indices(target: str) -> None:
    rng = np.random.default_rng(11)
    table = rng.standard_normal(256).astype(np.float32)
    ids = rng.integers(0, 256, size=(8, 32)).astype(np.int32)
    out = run(MGATHER, target, [table, ids, np.zeros((8, 32), np.float32)])[2]
    assert_bits_equal(out, table[ids])


V64 = tile((1, 64), "i32")
TGATHER = func(
    [("src", "!pto.ptr<i32>"), ("ids", "!pto.ptr<i32>"), ("out", "!pto.ptr<i32>")],
    constants(0, 1, 64)
    + f"""
%a0 = arith.constant 0 : i64
%a256 = arith.constant 256 : i64
%a512 = arith.constant 512 : i64
{gm_views([(n, "i32", (1, 64)) for n in ("src", "ids", "out")])}
%s = pto.alloc_tile addr = %a256 : {V64}
%tmp = pto.alloc_tile addr = %a512 : {V64}
%idx = pto.alloc_tile addr = %a0 : {V64}
%dst = pto.alloc_tile addr = %a0 : {V64}
pto.tload ins(%srcp : {view((1, 64), "i32")}) outs(%s : {V64})
pto.tload ins(%idsp : {view((1, 64), "i32")}) outs(%idx : {V64})
pto.tgather ins(%s, %idx, %tmp : {V64}, {V64}, {V64}) outs(%dst : {V64})
pto.tstore ins(%dst : {V64}) outs(%outp : {view((1, 64), "i32")})
""",
)


@pytest.mark.parametrize("target", TARGETS)
def test_tgather_index_dst_over_its_indices(target: str) -> None:
    rng = np.random.default_rng(12)
    src = rng.integers(-1000, 1000, size=(1, 64)).astype(np.int32)
    ids = rng.integers(0, 64, size=(1, 64)).astype(np.int32)
    out = run(TGATHER, target, [src, ids, np.zeros((1, 64), np.int32)])[2]
    assert_bits_equal(out, src[0, ids])


def tcvt_in_place(src: str, dst: str, rmode: str) -> str:
    """TCVT of an 8x64 tile into a tile of `dst` elements at the same address."""
    s, d = tile((8, 64), src), tile((8, 64), dst)
    return func(
        [("x", f"!pto.ptr<{src}>"), ("y", f"!pto.ptr<{dst}>")],
        constants(0, 1, 8, 64)
        + f"""
%a0 = arith.constant 0 : i64
{gm_views([("x", src, (8, 64)), ("y", dst, (8, 64))])}
%s = pto.alloc_tile addr = %a0 : {s}
%d = pto.alloc_tile addr = %a0 : {d}
pto.tload ins(%xp : {view((8, 64), src)}) outs(%s : {s})
pto.tcvt ins(%s {{rmode = #pto<round_mode {rmode}>}} : {s}) outs(%d : {d})
pto.tstore ins(%d : {d}) outs(%yp : {view((8, 64), dst)})
""",
    )


@pytest.mark.parametrize("target", TARGETS)
def test_tcvt_exact_in_place(target: str) -> None:
    """i32 -> f32 with dst exactly over src (equal element sizes), as PyPTO converts index
    tables: each element converted at its own place."""
    x = np.random.default_rng(13).integers(-(2**20), 2**20, size=(8, 64)).astype(np.int32)
    out = run(tcvt_in_place("i32", "f32", "ROUND"), target, [x, np.zeros((8, 64), np.float32)])[1]
    assert_bits_equal(out, x.astype(np.float32))  # |x| < 2**24: exact in f32


@pytest.mark.parametrize("target", TARGETS)
def test_tcvt_narrowing_in_place(target: str) -> None:
    """f32 -> f16 with dst at src's address (forward): every dst element lies within src
    elements already read, as PyPTO's RMSNorm kernels narrow their result."""
    x = (np.arange(512, dtype=np.float32).reshape(8, 64) - 256) / 4  # exact in f16: no rounding to pick
    out = run(tcvt_in_place("f32", "f16", "RINT"), target, [x, np.zeros((8, 64), np.float16)])[1]
    assert_bits_equal(out, x.astype(np.float16))


S416, ROW16, ROW8 = tile((4, 16), "f32"), tile((1, 16), "f32"), tile((1, 8), "f32")
COLSUM_AND_EXTRACT = func(
    [("x", "!pto.ptr<f32>"), ("sums", "!pto.ptr<f32>"), ("head", "!pto.ptr<f32>")],
    constants(0, 1, 4, 8, 16)
    + f"""
%a0 = arith.constant 0 : i64
%a256 = arith.constant 256 : i64
{gm_views([("x", "f32", (4, 16)), ("sums", "f32", (1, 16)), ("head", "f32", (1, 8))])}
%x0 = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<?x?xf32>
%s = pto.alloc_tile addr = %a0 : {S416}
pto.tload ins(%xp : {view((4, 16), "f32")}) outs(%s : {S416})
%d = pto.alloc_tile addr = %a0 : {ROW16}
pto.tcolsum ins(%s : {S416}) outs(%d : {ROW16})
pto.tstore ins(%d : {ROW16}) outs(%sumsp : {view((1, 16), "f32")})
%r = pto.alloc_tile addr = %a256 : {ROW16}
pto.tload ins(%x0 : {view((1, 16), "f32")}) outs(%r : {ROW16})
%h = pto.alloc_tile addr = %a256 : {ROW8}
pto.textract ins(%r, %c0, %c0 : {ROW16}, index, index) outs(%h : {ROW8})
pto.tstore ins(%h : {ROW8}) outs(%headp : {view((1, 8), "f32")})
""",
)


@pytest.mark.parametrize("target", TARGETS)
def test_tcolsum_over_its_first_row_and_textract_at_origin_over_its_src(target: str) -> None:
    """PyPTO's placements: a column sum written over its source's first row, a row's first
    columns extracted into a tile at the row's address."""
    x = (np.arange(64, dtype=np.float32).reshape(4, 16) - 20) / 8  # sums exact in f32: no order to pick
    sums, head = run(COLSUM_AND_EXTRACT, target, [x, np.zeros((1, 16), np.float32), np.zeros((1, 8), np.float32)])[1:]
    assert_bits_equal(sums, x.sum(axis=0, keepdims=True))
    assert_bits_equal(head, x[:1, :8])
