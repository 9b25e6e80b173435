"""
Interpreter speed on an embedding backward pass (issue 21): an scf.for over 1024 tiles, each:
tload 64 ids and a 64 x 128 f16 gradient tile, row-mode MSCATTER with atomic add into a
100,000-row table (rows repeat across and within tiles; each f16 add rounds). Reports, side by
side in one process, the time of interpreter.run on an already parsed module (lowering
included) with the loop batched (interpreter/batch.py: the scatter's table is touched by
nothing else in the loop) and iteration by iteration, against a bare NumPy loop doing the same
per-tile `np.add.at` (the baseline; aim: batched within 1.5x of it) and one `np.add.at` over all
tiles; each with the copy of the table that interpreter.run also makes.

    .venv/bin/python bench/scatter.py [--target a2a3]
"""

from __future__ import annotations

import numpy as np

import interpreter
import pto_dialect
from run import COLS, IDS, ROWS, TILES, best_of, embedding_kernel, options

KERNEL = embedding_kernel("embedding_backward", "grads", f"""\
    pto.tload ins(%rp : !pto.partition_tensor_view<{IDS}x{COLS}xf16>) outs(%rows : !pto.tile_buf<vec, {IDS}x{COLS}xf16>)
    pto.mscatter ins(%rows, %idx : !pto.tile_buf<vec, {IDS}x{COLS}xf16>, !pto.tile_buf<vec, 1x{IDS}xi32>)
                 outs(%tp : !pto.partition_tensor_view<{ROWS}x{COLS}xf16>)
                 {{coalesce = #pto<coalesce row>, scatterAtomicOp = #pto<scatter_atomic_op add>}}""")


def bare_numpy(table: np.ndarray, ids: np.ndarray, grads: np.ndarray) -> np.ndarray:
    out = table.copy()
    t2, g2 = out.reshape(ROWS, COLS), grads.reshape(-1, COLS)
    for t in range(TILES):
        np.add.at(t2, ids[t * IDS : (t + 1) * IDS], g2[t * IDS : (t + 1) * IDS])
    return out


def add_at_all(table: np.ndarray, ids: np.ndarray, grads: np.ndarray) -> np.ndarray:
    """The same sums as one np.add.at over all tiles (same order: tile after tile)."""
    out = table.copy()
    np.add.at(out.reshape(ROWS, COLS), ids, grads.reshape(-1, COLS))
    return out


def main() -> None:
    args = options()
    rng = np.random.default_rng(0)
    table = rng.standard_normal(ROWS * COLS).astype(np.float16)
    ids = rng.integers(0, ROWS, TILES * IDS).astype(np.int32)
    frequent = rng.random(ids.size) < 0.2
    ids[frequent] = rng.integers(0, 64, int(frequent.sum()))  # frequent tokens: rows hit many times
    grads = rng.standard_normal(TILES * IDS * COLS).astype(np.float16)
    module = pto_dialect.parse(KERNEL, "embedding_backward.pto")

    expected = bare_numpy(table, ids, grads)
    assert np.array_equal(add_at_all(table, ids, grads).view(np.uint16), expected.view(np.uint16))
    for batch_loops in (True, False):
        result = interpreter.run(module, args.target, [table, ids, grads], batch_loops=batch_loops)[0]
        assert np.array_equal(result.view(np.uint16), expected.view(np.uint16)), "interpreter differs from NumPy"

    t_batched = best_of(args.repeat, lambda: interpreter.run(module, args.target, [table, ids, grads]))
    t_serial = best_of(
        args.repeat, lambda: interpreter.run(module, args.target, [table, ids, grads], batch_loops=False)
    )
    t_bare = best_of(args.repeat, lambda: bare_numpy(table, ids, grads))
    t_all = best_of(args.repeat, lambda: add_at_all(table, ids, grads))
    print("| target | batched | iteration by iteration | np.add.at per tile | one np.add.at | batched / per tile "
          "| iteration by iteration / per tile |")
    print("|---|---|---|---|---|---|---|")
    print(
        f"| {args.target} | {t_batched * 1e3:.1f} ms | {t_serial * 1e3:.1f} ms | {t_bare * 1e3:.1f} ms "
        f"| {t_all * 1e3:.1f} ms | {t_batched / t_bare:.2f}x | {t_serial / t_bare:.2f}x |"
    )


if __name__ == "__main__":
    main()
