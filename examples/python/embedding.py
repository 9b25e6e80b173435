# pyright: reportInvalidTypeForm=false
# (a kernel's parameters are annotated with calls, `x: pto.ptr(pto.f16)`: the builder's syntax)
"""
An embedding lookup written in Python with pto_frontend: 16 tiles of 64 ids, each gathering
64 rows of a 1000 x 128 f16 table (ids past the table's end clamp to its last row).

    python examples/python/embedding.py

prints the kernel's `.pto` for a5, runs it on every target, checks the rows against NumPy
and compares the targets.
"""

import numpy as np

import pto_frontend as pto

ROWS, DIM, TILES, IDS = 1000, 128, 16, 64


@pto.kernel
def embed(table: pto.ptr(pto.f16), ids: pto.ptr(pto.i32), out: pto.ptr(pto.f16)):
    tv = pto.make_tensor_view(table, shape=[ROWS, DIM], strides=[DIM, 1])
    iv = pto.make_tensor_view(ids, shape=[TILES, IDS], strides=[IDS, 1])
    ov = pto.make_tensor_view(out, shape=[TILES * IDS, DIM], strides=[DIM, 1])
    tp = pto.partition_view(tv, offsets=[0, 0], sizes=[ROWS, DIM])
    idx = pto.alloc_tile(shape=[1, IDS], dtype=pto.i32)
    rows = pto.alloc_tile(shape=[IDS, DIM], dtype=pto.f16)
    for t in pto.range(TILES):
        ip = pto.partition_view(iv, offsets=[t, 0], sizes=[1, IDS])
        op = pto.partition_view(ov, offsets=[t * IDS, 0], sizes=[IDS, DIM])
        pto.tload(ip, idx)
        pto.mgather(tp, idx, rows, coalesce="row", gather_oob="clamp")
        pto.tstore(rows, op)


def inputs(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A random table, ids mostly in range (some past its end), a zeroed output."""
    rng = np.random.default_rng(seed)
    table = rng.standard_normal((ROWS, DIM)).astype(np.float16)
    ids = rng.integers(0, ROWS + 50, (TILES, IDS)).astype(np.int32)
    return table, ids, np.zeros((TILES * IDS, DIM), np.float16)


def expected(table: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """The rows clamp reads: an id past the end reads the last row."""
    return table[np.minimum(ids.reshape(-1), ROWS - 1)]


if __name__ == "__main__":
    print(embed.to_pto(target="a5"))
    table, ids, out = inputs()
    for target, (_, _, rows) in embed.run_all(table, ids, out).items():
        print(f"{target}: {rows.shape[0]} rows gathered, as NumPy's table[min(ids, {ROWS - 1})]: {np.array_equal(rows, expected(table, ids))}")
    print(embed.compare(table, ids, out).text(), end="")
