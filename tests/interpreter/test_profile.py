"""
`pto-run --profile` (interpreter/profile.py): what really ran, with the data-dependent work.

Each expected figure is written here from the mocks' formulas (a transfer: floor(bytes / 2^30 /
GiB/s * 1.85e9) cycles) and from the rule each count follows (docs/cost.md), never from
pto_dialect/instructions/.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import interpreter
from interpreter.profile import Profiler
from passes.estimate import estimate
from pto_dialect import parse
from tests.interpreter.harness import constants, func, tensor_view, tile, view

GIB, HZ = 1 << 30, Fraction(1_850_000_000)


def dma(nbytes: int, gib_per_s: str) -> int:
    return int(Fraction(nbytes) / GIB / Fraction(gib_per_s) * HZ)


def profile(text: str, target: str, args: list[np.ndarray], batch_loops: bool = True):
    profiler = Profiler(target)
    interpreter.run_with_results(parse(text, "k.pto"), target, args, profiler=profiler, batch_loops=batch_loops)
    return profiler.report()


def row_gather_loop(trips: int, rows: int, vc: int, table_rows: int, oob: str) -> str:
    """Per trip: load `rows` indices, gather those table rows (f32), store them."""
    i, d = tile((1, rows), "i32"), tile((rows, vc), "f32")
    body = f"""
    {constants(0, 1, rows, vc, table_rows, trips * rows)}
    %tv = pto.make_tensor_view %tab, shape = [%c{table_rows}, %c{vc}], strides = [%c{vc}, %c1] : {tensor_view(2, "f32")}
    %tp = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c{table_rows}, %c{vc}] : {tensor_view(2, "f32")}
    %iv = pto.make_tensor_view %ids, shape = [%c1, %c{trips * rows}], strides = [%c{trips * rows}, %c1] : {tensor_view(2, "i32")}
    %ov = pto.make_tensor_view %out, shape = [%c{trips * rows}, %c{vc}], strides = [%c{vc}, %c1] : {tensor_view(2, "f32")}
    %i = pto.alloc_tile : {i}
    %d = pto.alloc_tile : {d}
    scf.for %b = %c0 to %c{trips * rows} step %c{rows} {{
      %ip = pto.partition_view %iv, offsets = [%c0, %b], sizes = [%c1, %c{rows}] : {tensor_view(2, "i32")}
      %op = pto.partition_view %ov, offsets = [%b, %c0], sizes = [%c{rows}, %c{vc}] : {tensor_view(2, "f32")}
      pto.tload ins(%ip : {view((1, rows), "i32")}) outs(%i : {i})
      pto.mgather ins(%tp, %i : {view((table_rows, vc), "f32")}, {i}) outs(%d : {d}) {{coalesce = #pto<coalesce row>, gatherOob = #pto<gather_oob {oob}>}}
      pto.tstore ins(%d : {d}) outs(%op : {view((rows, vc), "f32")})
    }}
    """
    args = [("tab", "!pto.ptr<f32, gm>"), ("ids", "!pto.ptr<i32, gm>"), ("out", "!pto.ptr<f32, gm>")]
    return 'module attributes {pto.target_arch = "a2a3"} {\n' + func(args, body) + "}\n"


@pytest.mark.parametrize("batch_loops", [True, False])
def test_zero_mode_row_gather_counts_the_rows_it_reads(batch_loops):
    trips, rows, vc, table_rows = 6, 16, 64, 100
    rng = np.random.default_rng(19)
    ids = rng.integers(0, 2 * table_rows, trips * rows).astype(np.int32)  # about half out of range
    table = rng.standard_normal((table_rows, vc)).astype(np.float32)
    out = np.zeros((trips * rows, vc), np.float32)
    text = row_gather_loop(trips, rows, vc, table_rows, "zero")
    report = profile(text, "a2a3", [table, ids, out], batch_loops)
    load, gather, store = report.ops
    read = int((ids < table_rows).sum())
    assert (gather.op, gather.count, gather.counted_total) == ("pto.mgather", trips, read * dma(vc * 4, "100.9"))
    assert gather.bytes == round(read * vc * 4 / trips, 2)  # a mean: to two decimals
    assert (load.count, store.count) == (trips, trips)  # the loop's store included when it is batched
    static = {r.op: r for r in estimate(parse(text, "k.pto"), "a2a3").ops}
    assert (load.cycles, store.cycles) == (static["pto.tload"].cycles, static["pto.tstore"].cycles)
    assert static["pto.mgather"].cycles == rows * dma(vc * 4, "100.9")  # the estimate reads every row


def elem_gather(rows: int, cols: int, table: int, dtype: str, target: str) -> str:
    i, d = tile((rows, cols), "i32"), tile((rows, cols), dtype)
    body = f"""
    {constants(0, 1, table)}
    %tv = pto.make_tensor_view %tab, shape = [%c1, %c{table}], strides = [%c{table}, %c1] : {tensor_view(2, dtype)}
    %tp = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c1, %c{table}] : {tensor_view(2, dtype)}
    pto.mgather ins(%tp, %i : {view((1, table), dtype)}, {i}) outs(%d : {d}) {{coalesce = #pto<coalesce elem>}}
    """
    args = [("tab", f"!pto.ptr<{dtype}, gm>"), ("i", i), ("d", d)]
    return f'module attributes {{pto.target_arch = "{target}"}} {{\n' + func(args, body) + "}\n"


INDICES = {
    "consecutive": lambda rng, n, table: np.arange(n) % table,
    "strided": lambda rng, n, table: (np.arange(n) * 37) % table,
    "random": lambda rng, n, table: rng.integers(0, table, n),
    "repeated": lambda rng, n, table: np.full(n, 5),
}


@pytest.mark.parametrize("pattern", INDICES)
def test_a2a3_elem_gather_reads_a_line_each_time_it_moves_to_another(pattern):
    rows, cols, table = 8, 64, 4096
    ids = INDICES[pattern](np.random.default_rng(3), rows * cols, table).astype(np.int32)
    text = elem_gather(rows, cols, table, "f32", "a2a3")
    (gather,) = profile(text, "a2a3", [np.ones(table, np.float32), ids.reshape(rows, cols), np.zeros((rows, cols), np.float32)]).ops
    lines = [i * 4 // 64 for i in ids]  # loop order: row by row
    fills = 1 + sum(a != b for a, b in zip(lines, lines[1:]))
    # one scalar cycle per element, one 64-byte line transfer per fill
    assert gather.counted_total == rows * cols + fills * dma(64, "100.9")
    assert gather.bytes == fills * 64


@pytest.mark.parametrize("pattern", INDICES)
def test_a5_elem_gather_issues_the_distinct_bursts_of_each_warp(pattern):
    rows, cols, table = 4, 40, 4096  # 160 lanes: 5 warps of 32
    ids = INDICES[pattern](np.random.default_rng(4), rows * cols, table).astype(np.int32)
    text = elem_gather(rows, cols, table, "f32", "a5")
    (gather,) = profile(text, "a5", [np.ones(table, np.float32), ids.reshape(rows, cols), np.zeros((rows, cols), np.float32)]).ops
    bursts = sum(len({int(i) * 4 // 128 for i in ids[w : w + 32]}) for w in range(0, rows * cols, 32))
    assert gather.counted_total == dma(bursts * 128, "100.9")
    assert gather.bytes == bursts * 128


def test_a_profile_of_data_independent_ops_is_the_estimate_times_what_ran():
    trips, rows, vc, table_rows = 5, 8, 32, 64
    ids = np.arange(trips * rows, dtype=np.int32) % table_rows
    args = [np.zeros((table_rows, vc), np.float32), ids, np.zeros((trips * rows, vc), np.float32)]
    text = row_gather_loop(trips, rows, vc, table_rows, "clamp")
    for target in ("cpu", "a2a3", "a5"):
        static = estimate(parse(text, "k.pto"), target).json()
        ran = profile(text, target, args).json()
        assert ran == static, target


def test_compare_profiles_every_target_that_ran():
    trips, rows, vc, table_rows = 2, 8, 32, 64
    args = [np.zeros((table_rows, vc), np.float32), np.zeros(trips * rows, np.int32), np.zeros((trips * rows, vc), np.float32)]
    report = interpreter.compare(parse(row_gather_loop(trips, rows, vc, table_rows, "wrap"), "k.pto"), "all", args, profile=True)
    assert list(report.profiles) == ["cpu", "a2a3", "a5"]
    assert all(r.ops[1].count == trips for r in report.profiles.values())


# ---------------------------------------------------------------------------
# MSCATTER: the rows (elements) it writes, the lines and bursts those writes touch


def scatter_loop(target: str, trips: int, rows: int, cols: int, table: int, attrs: str, elem: bool = False) -> str:
    """Per trip: load the trip's indices ([1, rows] row mode, [rows, cols] elem mode) and scatter
    an f32 tile into one table ([table, cols] rows, or [1, table] elements)."""
    src = tile((rows, cols), "f32")
    ir, ic = (rows, cols) if elem else (1, rows)
    idx, shape = tile((ir, ic), "i32"), (1, table) if elem else (table, cols)
    mode = "elem" if elem else "row"
    body = f"""
    {constants(0, 1, cols, ir, ic, trips * ir, *shape)}
    %tv = pto.make_tensor_view %tab, shape = [%c{shape[0]}, %c{shape[1]}], strides = [%c{shape[1]}, %c1] : {tensor_view(2, "f32")}
    %tp = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c{shape[0]}, %c{shape[1]}] : {tensor_view(2, "f32")}
    %iv = pto.make_tensor_view %ids, shape = [%c{trips * ir}, %c{ic}], strides = [%c{ic}, %c1] : {tensor_view(2, "i32")}
    %s = pto.alloc_tile : {src}
    %i = pto.alloc_tile : {idx}
    scf.for %b = %c0 to %c{trips * ir} step %c{ir} {{
      %ip = pto.partition_view %iv, offsets = [%b, %c0], sizes = [%c{ir}, %c{ic}] : {tensor_view(2, "i32")}
      pto.tload ins(%ip : {view((ir, ic), "i32")}) outs(%i : {idx})
      pto.mscatter ins(%s, %i : {src}, {idx}) outs(%tp : {view(shape, "f32")}) {{coalesce = #pto<coalesce {mode}>{attrs}}}
    }}
    """
    args = [("tab", "!pto.ptr<f32, gm>"), ("ids", "!pto.ptr<i32, gm>")]
    return f'module attributes {{pto.target_arch = "{target}"}} {{\n' + func(args, body) + "}\n"


SKIP = ", scatterOob = #pto<scatter_oob skip>"
ADD_SKIP = ", scatterAtomicOp = #pto<scatter_atomic_op add>" + SKIP


def run_scatter(target: str, trips: int, rows: int, cols: int, table: int, attrs: str, ids: np.ndarray, elem: bool,
                batch_loops: bool = True):
    text = scatter_loop(target, trips, rows, cols, table, attrs, elem)
    tab = np.zeros(table * (1 if elem else cols), np.float32)
    _, scatter = profile(text, target, [tab, ids.astype(np.int32)], batch_loops).ops
    assert (scatter.op, scatter.count) == ("pto.mscatter", trips)
    return scatter


@pytest.mark.parametrize("batch_loops", [True, False])
def test_skipped_rows_are_not_written(batch_loops):
    trips, rows, cols, table = 5, 16, 64, 100
    ids = np.random.default_rng(23).integers(0, 2 * table, (trips, rows))  # about half out of range
    written = (ids < table).sum(axis=1)
    # a2a3: one copy_ubuf_to_gm of a row (256 bytes) per written row
    got = run_scatter("a2a3", trips, rows, cols, table, SKIP, ids, False, batch_loops)
    assert got.counted_total == int(written.sum()) * dma(cols * 4, "188.46")
    # cpu: the simulator's inner loop runs for the written rows only
    assert run_scatter("cpu", trips, rows, cols, table, SKIP, ids, False, batch_loops).counted_total == int(written.sum()) * cols
    # a5, atomic add: warps over each written row, 256 bytes at an aligned row: 2 bursts; one transfer a trip
    got = run_scatter("a5", trips, rows, cols, table, ADD_SKIP, ids, False, batch_loops)
    assert got.counted_total == sum(dma(int(w) * 2 * 128, "188.46") for w in written)


def test_a5_last_writer_lanes_burst_per_column_of_the_rows_they_own():
    """scatterConflict = last (the default without an atomic op): lane s of warp s // 32 owns
    table row s and stores its winner's row column by column; per warp and column, the distinct
    128-byte segments of those stores (rows of 8 f32: four rows a segment)."""
    trips, rows, cols, table = 4, 16, 8, 200
    ids = np.random.default_rng(29).integers(0, 240, (trips, rows))  # collisions, some out of range
    got = run_scatter("a5", trips, rows, cols, table, SKIP, ids, False)
    expected = 0
    for trip in ids:
        owners = {int(r) for r in trip if r < table}
        bursts = {(r // 32, j, (r * cols + j) * 4 // 128) for r in owners for j in range(cols)}
        expected += dma(len(bursts) * 128, "188.46")
    assert got.counted_total == expected


def test_elem_scatter_lines_and_bursts_count_the_stores_made():
    trips, rows, cols, table = 3, 4, 40, 3000
    ids = np.random.default_rng(31).integers(0, 4000, (trips * rows, cols))
    per_trip = ids.reshape(trips, rows * cols)  # loop order: row by row
    # a2a3: a scalar cycle an element; a line transfer each time a made store leaves the line of
    # the store before (64-byte lines): UB->GM (under a cycle) and, atomic add, GM->UB (1 cycle)
    got = run_scatter("a2a3", trips, rows, cols, table, ADD_SKIP, ids, True)
    moves = 0
    for trip in per_trip:
        lines = [int(i) * 4 // 64 for i in trip if i < table]
        moves += len(lines) and 1 + sum(a != b for a, b in zip(lines, lines[1:]))
    assert got.counted_total == trips * rows * cols + moves * (dma(64, "188.46") + dma(64, "100.9"))
    # a5, atomic add: a lane an element, per warp of 32 consecutive lanes the distinct segments it stores to
    got = run_scatter("a5", trips, rows, cols, table, ADD_SKIP, ids, True)
    bursts = [sum(len({int(i) * 4 // 128 for i in trip[w : w + 32] if i < table}) for w in range(0, rows * cols, 32))
              for trip in per_trip]
    assert got.counted_total == sum(dma(b * 128, "188.46") for b in bursts)
    # a5, last: lane s owns table element s; per warp of 32 table elements, the segments of the stored ones
    got = run_scatter("a5", trips, rows, cols, table, SKIP, ids, True)
    bursts = [len({(int(i) // 32, int(i) * 4 // 128) for i in trip if i < table}) for trip in per_trip]
    assert got.counted_total == sum(dma(b * 128, "188.46") for b in bursts)



@pytest.mark.parametrize(("op", "bandwidth"), [("mgather", "100.9"), ("mscatter", "188.46")])
def test_a2a3_nz_elem_loops_move_lines_block_by_block(op, bandwidth):
    """MGatherElemNzImpl / MScatterElemNzImpl walk C0-column blocks, rows within a block, each
    access at its NZ offset; an index a skip leaves out stores nothing."""
    c0, s1, s2 = 8, 2, 2  # f32: a [1, 2, 2, 16, 8] NZ table of 32 x 16 logical elements
    rows, cols = 16, 16
    table = 16 * s2 * s1 * c0
    i, d = tile((rows, cols), "i32"), tile((rows, cols), "f32", blayout="col_major", slayout="row_major")
    nz = view((1, s1, s2, 16, c0), "f32")
    if op == "mgather":
        line = f"pto.mgather ins(%tp, %i : {nz}, {i}) outs(%d : {d}) {{coalesce = #pto<coalesce elem>}}"
    else:
        line = f"pto.mscatter ins(%d, %i : {d}, {i}) outs(%tp : {nz}) {{coalesce = #pto<coalesce elem>, scatterOob = #pto<scatter_oob skip>}}"
    body = f"""
    {constants(0, 1, s1, s2, 16, c0, s2 * 16 * c0, 16 * c0, table)}
    %tv = pto.make_tensor_view %tab, shape = [%c1, %c{s1}, %c{s2}, %c16, %c{c0}], strides = [%c{table}, %c{s2 * 16 * c0}, %c{16 * c0}, %c{c0}, %c1] {{layout = #pto.layout<nz>}} : {tensor_view(5, "f32")}
    %tp = pto.partition_view %tv, offsets = [%c0, %c0, %c0, %c0, %c0], sizes = [%c1, %c{s1}, %c{s2}, %c16, %c{c0}] : {tensor_view(5, "f32")}
    {line}
    """
    text = 'module attributes {pto.target_arch = "a2a3"} {\n' + func([("tab", "!pto.ptr<f32, gm>"), ("i", i), ("d", d)], body) + "}\n"
    ids = np.random.default_rng(5).integers(0, table + (table // 2 if op == "mscatter" else 0), (rows, cols)).astype(np.int32)
    (ran,) = profile(text, "a2a3", [np.ones(table, np.float32), ids, np.zeros((rows, cols), np.float32)]).ops
    order = [(r, c) for b in range(cols // c0) for r in range(rows) for c in range(b * c0, b * c0 + c0)]
    lines = []
    for r, c in order:  # logical (x, y) of the table -> NZ offset (y // C0) * rows*C0 + x * C0 + y % C0
        if ids[r, c] < table:
            x, y = divmod(int(ids[r, c]), s1 * c0)
            lines.append(((y // c0) * (s2 * 16) * c0 + x * c0 + y % c0) * 4 // 64)
    moves = 1 + sum(a != b for a, b in zip(lines, lines[1:]))
    # one scalar cycle an element, a 64-byte line transfer each time the loop moves to another line
    assert (ran.counted_total, ran.bytes) == (rows * cols + moves * dma(64, bandwidth), moves * 64)
