"""
Interpreter speed on an embedding lookup: an scf.for over 1024 tiles, each: tload 64 ids,
row-mode MGATHER of 64 rows x 128 f16 from a 100,000-row table with clamp, tstore. Two
spellings of the kernel: tiles allocated before the loop without addresses (KERNEL), and as
PTOAS writes it, the tiles allocated with `addr =` inside `pto.section.vector` (PTOAS_KERNEL).

Reports, side by side in one process: interpreter.run on an already parsed module (pipeline,
lowering and its copy of the written output included) for each spelling, with the loop batched
(its iterations are independent: interpreter/batch.py), and the plain one iteration by
iteration; against a bare NumPy loop doing the same per-tile np.take into a given output
array, the same loop into a copy of it (the copy interpreter.run makes of a written
argument), and one np.take over all tiles; the interpreter's overhead per executed op
(iteration by iteration); and the peak memory (tracemalloc) of a batched run against the size
of its arrays.

    .venv/bin/python bench/run.py [--target a2a3] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
import tracemalloc

import numpy as np
from xdsl.interpreter import Interpreter

import interpreter
import pto_dialect

TILES, IDS, COLS, ROWS = 1024, 64, 128, 100_000


def index_constants(**values: int) -> str:
    """`%NAME = arith.constant VALUE : index` for each NAME=VALUE, one line each, indented as a
    function body's (no newline after the last)."""
    return "\n".join(f"  %{name} = arith.constant {value} : index" for name, value in values.items())


def embedding_kernel(name: str, rows: str, body: str, ptoas: bool = False) -> str:
    """A loop over TILES tiles of a table, ids and a GM buffer `rows` of TILES * IDS rows: each
    iteration loads its IDS ids into %idx, then runs `body` on them, its rows window %rp and
    the tile %rows. `ptoas`: as PTOAS writes it, the tiles allocated with `addr =` inside
    `pto.section.vector`; else before the loop, without addresses."""
    idx, tile = f"!pto.tile_buf<vec, 1x{IDS}xi32>", f"!pto.tile_buf<vec, {IDS}x{COLS}xf16>"
    allocs = (
        f"  %a0 = arith.constant 0 : i64\n  %a256 = arith.constant 256 : i64\n"
        f"  %idx = pto.alloc_tile addr = %a0 : {idx}\n  %rows = pto.alloc_tile addr = %a256 : {tile}"
        if ptoas
        else f"  %idx = pto.alloc_tile : {idx}\n  %rows = pto.alloc_tile : {tile}"
    )
    loop = f"""\
  scf.for %t = %c0 to %ctiles step %c1 {{
    %base = arith.muli %t, %cids : index
    %ip = pto.partition_view %idv, offsets = [%c0, %base], sizes = [%c1, %cids] : !pto.tensor_view<?x?xi32>
    %rp = pto.partition_view %rowsv, offsets = [%base, %c0], sizes = [%cids, %ccols] : !pto.tensor_view<?x?xf16>
    pto.tload ins(%ip : !pto.partition_tensor_view<1x{IDS}xi32>) outs(%idx : {idx})
{body}
  }}"""
    section = f"{allocs}\n{loop}"
    if ptoas:
        section = "  pto.section.vector {\n" + section + "\n  }"
    kind = " attributes {pto.kernel_kind = #pto.kernel_kind<vector>}" if ptoas else ""
    return f"""
func.func @{name}(%table: !pto.ptr<f16>, %ids: !pto.ptr<i32>, %{rows}: !pto.ptr<f16>){kind} {{
{index_constants(c0=0, c1=1, cids=IDS, ccols=COLS, crows=ROWS, ctiles=TILES, nids=TILES * IDS)}
  %tab = pto.make_tensor_view %table, shape = [%crows, %ccols], strides = [%ccols, %c1] : !pto.tensor_view<?x?xf16>
  %idv = pto.make_tensor_view %ids, shape = [%c1, %nids], strides = [%nids, %c1] : !pto.tensor_view<?x?xi32>
  %rowsv = pto.make_tensor_view %{rows}, shape = [%nids, %ccols], strides = [%ccols, %c1] : !pto.tensor_view<?x?xf16>
  %tp = pto.partition_view %tab, offsets = [%c0, %c0], sizes = [%crows, %ccols] : !pto.tensor_view<?x?xf16>
{section}
  return
}}
"""


GATHER = f"""\
    pto.mgather ins(%tp, %idx : !pto.partition_tensor_view<{ROWS}x{COLS}xf16>, !pto.tile_buf<vec, 1x{IDS}xi32>)
                outs(%rows : !pto.tile_buf<vec, {IDS}x{COLS}xf16>) {{coalesce = #pto<coalesce row>, gatherOob = #pto<gather_oob clamp>}}
    pto.tstore ins(%rows : !pto.tile_buf<vec, {IDS}x{COLS}xf16>) outs(%rp : !pto.partition_tensor_view<{IDS}x{COLS}xf16>)"""
KERNEL = embedding_kernel("embedding", "out", GATHER)
PTOAS_KERNEL = embedding_kernel("embedding", "out", GATHER, ptoas=True)


class Counter(Interpreter.Listener):
    def __init__(self) -> None:
        self.ops = 0

    def will_interpret_op(self, op, args) -> None:
        self.ops += 1


def inputs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The lookup's table, ids (some outside the table: clamped) and output buffer, seeded."""
    rng = np.random.default_rng(0)
    table = rng.standard_normal(ROWS * COLS).astype(np.float16)
    ids = rng.integers(-10, ROWS + 10, TILES * IDS).astype(np.int32)
    return table, ids, np.zeros(TILES * IDS * COLS, np.float16)


def bare_numpy(table: np.ndarray, ids: np.ndarray, out: np.ndarray) -> None:
    t2 = table.reshape(ROWS, COLS)
    o2 = out.reshape(-1, COLS)
    for t in range(TILES):
        tile_ids = ids[t * IDS : (t + 1) * IDS]
        # clamp reads indices as unsigned: a negative id clamps to the last row
        rows = np.where(tile_ids < 0, ROWS - 1, np.minimum(tile_ids, ROWS - 1))
        o2[t * IDS : (t + 1) * IDS] = np.take(t2, rows, axis=0)


def take_all(table: np.ndarray, ids: np.ndarray, out: np.ndarray) -> None:
    """The same gather as one np.take over all tiles."""
    rows = np.where(ids < 0, ROWS - 1, np.minimum(ids, ROWS - 1))
    np.take(table.reshape(ROWS, COLS), rows, axis=0, out=out.reshape(-1, COLS))


def peak_bytes(f) -> int:
    """The most memory f() holds at once beyond what was allocated before (tracemalloc)."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        f()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


def best_of(n: int, f) -> float:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times)


def alternating(rounds: int, variants: dict[str, Callable[[], object]]) -> dict[str, tuple[float, float]]:
    """(median wall seconds, median CPU seconds of this process) of each variant, every round
    running each once, in turn. On a machine shared with other jobs the CPU time, which waiting
    for a core does not count, is the steadier of the two."""
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
    for _ in range(rounds):
        for name, f in variants.items():
            wall, cpu = time.perf_counter(), time.process_time()
            f()
            times[name].append((time.perf_counter() - wall, time.process_time() - cpu))
    return {name: (statistics.median(w for w, _ in t), statistics.median(c for _, c in t)) for name, t in times.items()}


def options() -> argparse.Namespace:
    p = argparse.ArgumentParser()
    p.add_argument("--target", default="a2a3")
    p.add_argument("--repeat", type=int, default=5)
    return p.parse_args()


def main() -> None:
    args = options()
    table, ids, out = inputs()
    module = pto_dialect.parse(KERNEL, "embedding.pto")
    ptoas = pto_dialect.parse(PTOAS_KERNEL, "embedding_ptoas.pto")

    expected = out.copy()
    bare_numpy(table, ids, expected)
    for kernel, batch_loops in ((module, True), (module, False), (ptoas, True)):
        result = interpreter.run(kernel, args.target, [table, ids, out], batch_loops=batch_loops)[2]
        assert np.array_equal(result, expected), "interpreter result differs from NumPy"

    counter = Counter()
    interpreter.run(module, args.target, [table, ids, out], listeners=(counter,))
    given = out.copy()
    t_batched = best_of(args.repeat, lambda: interpreter.run(module, args.target, [table, ids, out]))
    t_ptoas = best_of(args.repeat, lambda: interpreter.run(ptoas, args.target, [table, ids, out]))
    t_serial = best_of(
        args.repeat, lambda: interpreter.run(module, args.target, [table, ids, out], batch_loops=False)
    )
    t_bare = best_of(args.repeat, lambda: bare_numpy(table, ids, out.copy()))
    t_bare_given = best_of(args.repeat, lambda: bare_numpy(table, ids, given))
    t_take = best_of(args.repeat, lambda: take_all(table, ids, out.copy()))
    t_lower = best_of(args.repeat, lambda: interpreter.lower_for(module, args.target))
    work = t_bare  # the NumPy work the interpreter cannot avoid
    overhead_us = (t_serial - t_lower - work) / counter.ops * 1e6
    peak = peak_bytes(lambda: interpreter.run(module, args.target, [table, ids, out]))
    arrays = table.nbytes + ids.nbytes + out.nbytes
    print(
        "| target | batched | PTOAS style, batched | iteration by iteration | per-tile np.take loop "
        "| same, into a copy of out | one np.take | PTOAS style / loop | batched / loop into a copy "
        "| iteration by iteration / loop into a copy | overhead per op (iteration by iteration) | peak memory (batched) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    print(
        f"| {args.target} | {t_batched * 1e3:.1f} ms | {t_ptoas * 1e3:.1f} ms | {t_serial * 1e3:.1f} ms "
        f"| {t_bare_given * 1e3:.1f} ms | {t_bare * 1e3:.1f} ms | {t_take * 1e3:.1f} ms "
        f"| {t_ptoas / t_bare_given:.2f}x | {t_batched / t_bare:.2f}x | {t_serial / t_bare:.2f}x "
        f"| {overhead_us:.2f} us ({counter.ops} ops) | {peak / 2**20:.1f} MiB = {peak / arrays:.2f}x arrays "
        f"({arrays / 2**20:.1f} MiB) |"
    )


if __name__ == "__main__":
    main()
