"""
TGATHER's index form on a5, over several vector registers per row and several rows: pins what
the a5 lowering computes (issue 29: the lowering moved to the register-level gathers, and must
give the same bits as before). Written from npu/a5/TGather.hpp, not from the lowering:

    for each dst valid row i, for each register j of its valid cols (256 bytes of indices):
        lanes = the index tile's storage at i * idx.Cols + j * lanes_per_register, read unsigned
        dst[i, c] = src storage element lanes[c]      for the dst valid cols only
    dst padding and rows past the valid rows keep their bytes; an index past src storage
    (Rows * Cols elements) is a run-time error naming the op.
"""

from __future__ import annotations

import numpy as np
import pytest

from pto_dialect import PtoError
from tests.interpreter.harness import NP, assert_bits_equal, bits, filled, func, random_values, run, seed, tile

CASES = (
    # data, indices, src shape, index tile shape, dst shape, dst valid shape (valid cols = cols on a5)
    ("f32", "i32", (8, 64), (3, 152), (3, 152), (3, 152)),
    ("i32", "ui32", (4, 96), (2, 128), (2, 128), (2, 128)),
    ("f16", "ui16", (8, 64), (3, 208), (3, 208), (2, 208)),
    ("bf16", "i16", (8, 64), (2, 144), (2, 144), (2, 144)),
    ("f16", "i32", (8, 64), (2, 96), (2, 96), (1, 96)),
    ("i16", "ui32", (4, 64), (2, 80), (2, 80), (2, 80)),
    ("i8", "i16", (16, 64), (2, 288), (2, 288), (2, 288)),
    ("ui8", "ui16", (16, 64), (3, 160), (3, 160), (2, 160)),
    ("f32", "ui32", (16, 64), (4, 64), (2, 64), (2, 64)),
)


B64_CASES = (  # b64 data: the lowering gathers each element's two 32-bit words
    ("i64", "ui32", (8, 32), (3, 160), (3, 160), (2, 160)),  # three registers of indices per row, the last partial
    ("ui64", "i32", (4, 64), (2, 64), (2, 64), (2, 64)),
    ("i64", "ui32", (4, 16), (4, 16), (4, 16), (4, 16)),  # pto-isa's case9_int64_u32_4x16_4x16
)


def golden(src: np.ndarray, ids: np.ndarray, dst: np.ndarray, valid: tuple[int, int]) -> np.ndarray:
    """dst with its valid rectangle replaced by src storage at the unsigned indices."""
    out = dst.copy()
    vr, vc = valid
    offsets = bits(ids[:vr, :vc]).astype(np.int64)
    out[:vr, :vc] = src.reshape(-1)[offsets]
    return out


def kernel(data: str, index: str, src: tuple, idx: tuple, dst: tuple, valid: tuple) -> str:
    s, i, d = tile(src, data), tile(idx, index), tile(dst, data, valid=valid)
    return func([("s", s), ("i", i), ("d", d)], f"pto.tgather ins(%s, %i : {s}, {i}) outs(%d : {d})")


@pytest.mark.parametrize("data,index,src_shape,idx_shape,dst_shape,valid", CASES + B64_CASES)
def test_a5_index_gather_over_registers(data, index, src_shape, idx_shape, dst_shape, valid):
    rng = np.random.default_rng(seed("a5-registers", data, index, valid))
    src = random_values(rng, data, src_shape)
    ids = rng.integers(0, src.size, size=idx_shape).astype(NP[index])
    dst = filled(dst_shape, data)
    out = run(kernel(data, index, src_shape, idx_shape, dst_shape, valid), "a5", [src, ids, dst])[-1]
    assert_bits_equal(out, golden(src, ids, dst, valid))


def test_a5_index_gather_ignores_index_rows_past_the_dst_valid_rows():
    """Index rows past dst's valid rows are never loaded: an out-of-range value there is harmless."""
    src_shape, shape, valid = (4, 64), (3, 128), (2, 128)
    rng = np.random.default_rng(29)
    src = random_values(rng, "f32", src_shape)
    ids = rng.integers(0, src.size, size=shape).astype(np.int32)
    ids[valid[0]:, :] = -1
    dst = filled(shape, "f32")
    out = run(kernel("f32", "i32", src_shape, shape, shape, valid), "a5", [src, ids, dst])[-1]
    assert_bits_equal(out, golden(src, ids, dst, valid))


@pytest.mark.parametrize("data,index,bad,lane", (("f32", "i32", 256, 13), ("f16", "ui16", 65535, 77), ("i8", "i16", -1, 77)))
def test_a5_index_gather_out_of_src_is_a_located_error(data, index, bad, lane):
    src_shape, shape = (4, 64), (2, 128)
    ids = np.zeros(shape, dtype=NP[index])
    ids[1, 77] = np.array(bad).astype(NP[index])  # column 77: lane 77 of 128 (16-bit indices), 13 of 64 (32-bit)
    with pytest.raises(PtoError) as err:
        run(kernel(data, index, src_shape, shape, shape, shape), "a5",
            [np.zeros(src_shape, NP[data]), ids, filled(shape, data)])
    message = str(err.value)  # at the tgather; the lowered gather's lane and offset named
    assert message.startswith("k.pto:2:3: error: 'pto.vgather2") and f"lane {lane} (offset {bits(ids)[1, 77]}) reads" in message, message
