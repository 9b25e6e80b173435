"""
TGATHER index form with an index tile whose valid rows are fewer than dst's (issue 30,
`tgather_index_indices_partial_ok`): a5 loads dst's valid rows of indices from the index
tile's storage (`i * Cols + j`, npu/a5/TGather.hpp), its own valid shape notwithstanding.
"""

from __future__ import annotations

import numpy as np

from tests.interpreter.harness import func, run, tile

SRC, IDX, TMP, DST = tile((16, 64), "f32"), tile((8, 16), "i32", valid=(4, 16)), tile((8, 16), "i32"), tile((8, 16), "f32")
KERNEL = func(
    [("s", SRC), ("i", IDX), ("t", TMP), ("d", DST)],
    f"pto.tgather ins(%s, %i, %t : {SRC}, {IDX}, {TMP}) outs(%d : {DST})",
)


def test_a5_reads_every_dst_row_of_the_index_tile() -> None:
    rng = np.random.default_rng(30)
    src = rng.standard_normal((16, 64)).astype(np.float32)
    indices = rng.integers(0, 16 * 64, (8, 16)).astype(np.int32)
    out = run(KERNEL, "a5", [src, indices, np.zeros((8, 16), np.int32), np.zeros((8, 16), np.float32)])[3]
    assert np.array_equal(out, src.reshape(-1)[indices])
