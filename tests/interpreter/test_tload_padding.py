"""
What TLOAD writes beyond a tile's valid region, per target (pto_dialect/instructions/transfer.py
PadFill, docs/tload-padding.md), seen through an index-form TGATHER that reads every
column of the tile:

- cpu fills the whole tile with the pad value (pad null/zero: 0, max: +inf / the
  type's maximum, min: -inf / minimum) before copying the valid region;
- a2a3 and a5 (UB tiles) complete each valid row up to its next 32-byte boundary
  with the pad value when pad is not null; further blocks keep what they held.

A first tile at the same address, loaded with `before` and stored (dead before the
padded tile is written), leaves known bytes behind. Expected values are written here
from that description (the issue's two reproducers are the first cases).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interpreter.harness import NP, TARGETS, assert_bits_equal, constants, func, run, tile, view

COVERS = ('pto.tload',)
"""The instructions whose results these tests check against their own formulas, per target
(tests/test_registry.py: every instruction is covered on every target)."""

MAX, MIN = 2, 3


def kernel(cols: int, valid: int, dtype: str, pad: int, target: str) -> str:
    full, padded = tile((1, cols), dtype), tile((1, cols), dtype, valid=(1, valid), pad=str(pad))
    idx_t = tile((1, cols), "i32")
    gather_ins = f"%p, %idx, %tmp : {padded}, {idx_t}, {idx_t}" if target == "a2a3" else f"%p, %idx : {padded}, {idx_t}"
    names = ("before", "vals", "ids", "out", "first")
    body = constants(0, 1, valid, cols) + "\n%a0 = arith.constant 0 : i64\n%a1024 = arith.constant 1024 : i64\n"
    for n, ty, w in (("before", dtype, cols), ("vals", dtype, valid), ("ids", "i32", cols), ("out", dtype, cols), ("first", dtype, cols)):
        body += (
            f"%{n}v = pto.make_tensor_view %{n}, shape = [%c1, %c{w}], strides = [%c{w}, %c1] : !pto.tensor_view<?x?x{ty}>\n"
            f"%{n}p = pto.partition_view %{n}v, offsets = [%c0, %c0], sizes = [%c1, %c{w}] : !pto.tensor_view<?x?x{ty}>\n"
        )
    body += f"""
%f = pto.alloc_tile addr = %a0 : {full}
%p = pto.alloc_tile addr = %a0 : {padded}
%idx = pto.alloc_tile addr = %a1024 : {idx_t}
%tmp = pto.alloc_tile : {idx_t}
%d = pto.alloc_tile : {full}
pto.tload ins(%beforep : {view((1, cols), dtype)}) outs(%f : {full})
pto.tstore ins(%f : {full}) outs(%firstp : {view((1, cols), dtype)})
pto.tload ins(%valsp : {view((1, valid), dtype)}) outs(%p : {padded})
pto.tload ins(%idsp : {view((1, cols), "i32")}) outs(%idx : {idx_t})
pto.tgather ins({gather_ins}) outs(%d : {full})
pto.tstore ins(%d : {full}) outs(%outp : {view((1, cols), dtype)})
"""
    ptr = lambda t: f"!pto.ptr<{t}>"  # noqa: E731
    return func([(n, ptr("i32" if n == "ids" else dtype)) for n in names], body)


def gathered(target: str, cols: int, valid: int, dtype: str, pad: int, before: np.ndarray, vals: np.ndarray) -> np.ndarray:
    ids = np.arange(cols, dtype=np.int32).reshape(1, cols)
    args = [before, vals, ids, np.zeros((1, cols), NP[dtype]), np.zeros((1, cols), NP[dtype])]
    return run(kernel(cols, valid, dtype, pad, target), target, args)[3]


@pytest.mark.parametrize("target", TARGETS)
def test_pad_max_f32_reads_inf_beyond_the_valid_columns(target: str) -> None:
    before = np.arange(11, 19, dtype=np.float32).reshape(1, 8)
    out = gathered(target, 8, 4, "f32", MAX, before, np.array([[1, 2, 3, 4]], np.float32))
    # 4 valid f32 = 16 bytes: the NPU DMA pads up to byte 32, the end of this 8-column row
    assert_bits_equal(out, np.array([[1, 2, 3, 4, np.inf, np.inf, np.inf, np.inf]], np.float32))


@pytest.mark.parametrize("target", TARGETS)
def test_pad_min_i32_reads_int_min(target: str) -> None:
    before = np.arange(11, 19, dtype=np.int32).reshape(1, 8)
    out = gathered(target, 8, 4, "i32", MIN, before, np.array([[1, 2, 3, 4]], np.int32))
    assert_bits_equal(out, np.array([[1, 2, 3, 4] + [np.iinfo(np.int32).min] * 4], np.int32))


@pytest.mark.parametrize("target", TARGETS)
def test_pad_null_over_an_earlier_tile(target: str) -> None:
    before = np.arange(11, 19, dtype=np.float32).reshape(1, 8)
    out = gathered(target, 8, 4, "f32", 0, before, np.array([[1, 2, 3, 4]], np.float32))
    tail = [0, 0, 0, 0] if target == "cpu" else [15, 16, 17, 18]  # cpu zero-fills; the DMA writes no pad
    assert_bits_equal(out, np.array([[1, 2, 3, 4] + tail], np.float32))


@pytest.mark.parametrize("target", TARGETS)
def test_pad_min_f16_fills_only_the_partial_block_on_npus(target: str) -> None:
    before = (np.arange(32, dtype=np.float16) + 100).reshape(1, 32)
    vals = np.array([[1, 2, 3, 4, 5]], np.float16)
    out = gathered(target, 32, 5, "f16", MIN, before, vals)
    expected = before.copy()
    expected[0, :5] = vals[0]
    if target == "cpu":
        expected[0, 5:] = -np.inf
    else:  # 5 f16 = 10 bytes: -inf up to byte 32 (column 16); columns 16..31 keep `before`
        expected[0, 5:16] = -np.inf
    assert_bits_equal(out, expected)
