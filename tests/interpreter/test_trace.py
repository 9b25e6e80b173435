"""
`pto-run --profile=trace` (interpreter/trace.py): each op execution a slice on its pipe's track,
placed by its pipe, by what it depends on through memory and by the kernel's flags; loop iterations
named.
"""

from __future__ import annotations

import numpy as np

import interpreter
from interpreter.profile import Profiler
from pto_dialect import parse
from tests.interpreter.harness import constants, func, tensor_view, tile, view


def nested_copy(outer: int, inner: int) -> str:
    """for %i < outer, for %j < inner: load row block (i, j) of 8 x 32 f32 into one tile, store it."""
    t = tile((8, 32), "f32")
    rows = outer * inner * 8
    body = f"""
    {constants(0, 1, 8, 32, outer, inner, rows)}
    %av = pto.make_tensor_view %a, shape = [%c{rows}, %c32], strides = [%c32, %c1] : {tensor_view(2, "f32")}
    %bv = pto.make_tensor_view %b, shape = [%c{rows}, %c32], strides = [%c32, %c1] : {tensor_view(2, "f32")}
    %t = pto.alloc_tile : {t}
    scf.for %i = %c0 to %c{outer} step %c1 {{
      scf.for %j = %c0 to %c{inner} step %c1 {{
        %k = arith.muli %i, %c{inner} : index
        %n = arith.addi %k, %j : index
        %r = arith.muli %n, %c8 : index
        %ap = pto.partition_view %av, offsets = [%r, %c0], sizes = [%c8, %c32] : {tensor_view(2, "f32")}
        %bp = pto.partition_view %bv, offsets = [%r, %c0], sizes = [%c8, %c32] : {tensor_view(2, "f32")}
        pto.tload ins(%ap : {view((8, 32), "f32")}) outs(%t : {t})
        pto.tstore ins(%t : {t}) outs(%bp : {view((8, 32), "f32")})
      }}
    }}
    """
    args = [("a", "!pto.ptr<f32, gm>"), ("b", "!pto.ptr<f32, gm>")]
    return 'module attributes {pto.target_arch = "a2a3"} {\n' + func(args, body) + "}\n"


def test_a_nested_loop_draws_every_iteration_in_order_and_reuses_its_tile_after_the_store():
    outer, inner = 2, 3
    a = np.arange(outer * inner * 8 * 32, dtype=np.float32).reshape(-1, 32)
    profiler = Profiler("a2a3", "calibrated", trace=True)
    finals, _ = interpreter.run_with_results(
        parse(nested_copy(outer, inner), "k.pto"), "a2a3", [a, np.zeros_like(a)], profiler=profiler
    )
    assert np.array_equal(finals[1], a)  # the run is still the run
    timeline = profiler.timeline
    assert timeline is not None
    names = [(s.name, s.loops) for s in timeline.slices]
    expected = [(op, (("%i", i), ("%j", j))) for i in range(outer) for j in range(inner) for op in ("pto.tload", "pto.tstore")]
    assert names == expected
    loads = [s for s in timeline.slices if s.name == "pto.tload"]
    stores = [s for s in timeline.slices if s.name == "pto.tstore"]
    for load, store in zip(loads, stores):
        assert store.start >= load.start + load.cycles  # reads the tile the load wrote
    for store, next_load in zip(stores, loads[1:]):
        assert next_load.start >= store.start + store.cycles  # rewrites the tile the store read
    trace = timeline.chrome_trace()
    slices = [e for e in trace["traceEvents"] if e["ph"] == "X"]  # type: ignore[index]
    assert slices[2]["name"] == "pto.tload (%i=0 %j=1)"
    assert trace["otherData"]["cycles"] == stores[-1].start + stores[-1].cycles  # type: ignore[index]
    assert profiler.report().json()["pipes"] == {"MTE2": sum(s.cycles for s in loads), "MTE3": sum(s.cycles for s in stores)}


def two_transfers(flags: bool) -> str:
    """Two loads into two tiles, then two stores; `flags`: the kernel's own set_flag after each load
    and wait_flag before its store (else pto-insert-sync's, one pair after both loads)."""
    t = tile((8, 32), "f32")
    sync = [f"pto.set_flag[<PIPE_MTE2>, <PIPE_MTE3>, <EVENT_ID{e}>]" for e in (0, 1)]
    wait = [f"pto.wait_flag[<PIPE_MTE2>, <PIPE_MTE3>, <EVENT_ID{e}>]" for e in (0, 1)]
    sync, wait = (sync, wait) if flags else (["", ""], ["", ""])
    body = f"""
    {constants(0, 1, 8, 16, 32)}
    %av = pto.make_tensor_view %a, shape = [%c16, %c32], strides = [%c32, %c1] : {tensor_view(2, "f32")}
    %bv = pto.make_tensor_view %b, shape = [%c16, %c32], strides = [%c32, %c1] : {tensor_view(2, "f32")}
    %a0 = pto.partition_view %av, offsets = [%c0, %c0], sizes = [%c8, %c32] : {tensor_view(2, "f32")}
    %a1 = pto.partition_view %av, offsets = [%c8, %c0], sizes = [%c8, %c32] : {tensor_view(2, "f32")}
    %b0 = pto.partition_view %bv, offsets = [%c0, %c0], sizes = [%c8, %c32] : {tensor_view(2, "f32")}
    %b1 = pto.partition_view %bv, offsets = [%c8, %c0], sizes = [%c8, %c32] : {tensor_view(2, "f32")}
    %t0 = pto.alloc_tile : {t}
    %t1 = pto.alloc_tile : {t}
    pto.tload ins(%a0 : {view((8, 32), "f32")}) outs(%t0 : {t})
    {sync[0]}
    pto.tload ins(%a1 : {view((8, 32), "f32")}) outs(%t1 : {t})
    {sync[1]}
    {wait[0]}
    pto.tstore ins(%t0 : {t}) outs(%b0 : {view((8, 32), "f32")})
    {wait[1]}
    pto.tstore ins(%t1 : {t}) outs(%b1 : {view((8, 32), "f32")})
    """
    return 'module attributes {pto.target_arch = "a2a3"} {\n' + func([("a", "!pto.ptr<f32, gm>"), ("b", "!pto.ptr<f32, gm>")], body) + "}\n"


def traced(text: str) -> Profiler:
    a = np.arange(16 * 32, dtype=np.float32).reshape(16, 32)
    profiler = Profiler("a2a3", trace=True)
    interpreter.run_with_results(parse(text, "k.pto"), "a2a3", [a, np.zeros_like(a)], profiler=profiler)
    return profiler


def test_independent_transfers_overlap_on_their_pipes_as_their_flags_allow():
    """The kernel's flags, one a load: the second load waits only for MTE2, and the first store
    starts as soon as its load ends (its flag set), while the second load runs."""
    profiler = traced(two_transfers(flags=True))
    load0, load1, store0, store1 = profiler.timeline.slices  # type: ignore[union-attr]
    assert load1.start == load0.start + load0.cycles
    assert store0.start == load0.start + load0.cycles < load1.start + load1.cycles  # overlaps the second load
    assert store1.start == max(store0.start + store0.cycles, load1.start + load1.cycles)
    # each store waited for its load on MTE2: an arrow from the load to the store
    assert (store0.waited_for, store1.waited_for, load1.waited_for) == (0, 1, None)
    events = profiler.timeline.chrome_trace()["traceEvents"]  # type: ignore[union-attr]
    flows = [e for e in events if e["ph"] in ("s", "f")]  # type: ignore[index]
    assert [(e["ph"], e["id"], e["ts"]) for e in flows] == [
        ("s", 2, load0.start), ("f", 2, store0.start), ("s", 3, load1.start), ("f", 3, store1.start),
    ]
    marks = [(e["name"], e["ts"]) for e in events if e["ph"] == "i"]  # type: ignore[index]
    assert marks == [
        ("set_flag MTE2->MTE3 #0", load0.start + load0.cycles), ("set_flag MTE2->MTE3 #1", load1.start + load1.cycles),
        ("wait_flag MTE2->MTE3 #0", store0.start), ("wait_flag MTE2->MTE3 #1", store1.start),
    ]


def test_a_flag_set_after_both_loads_holds_the_first_store_for_the_second_load():
    """pto-insert-sync gives the kernel without flags one pair after both loads: set_flag fires when
    everything MTE2 issued has finished, so the first store waits for the second load, though its
    own data was ready before: the timeline shows the synchronization the kernel has."""
    load0, load1, store0, store1 = traced(two_transfers(flags=False)).timeline.slices  # type: ignore[union-attr]
    assert store0.start == load1.start + load1.cycles > load0.start + load0.cycles
    assert store1.start == store0.start + store0.cycles
    assert store0.waited_for == 1  # the arrow from the load that set the flag


def test_a_barrier_on_every_pipe_waits_for_all_their_work():
    """A barrier before the first store's wait: it starts after the second load, flag or not."""
    text = two_transfers(flags=True).replace(
        "pto.wait_flag[<PIPE_MTE2>, <PIPE_MTE3>, <EVENT_ID0>]", "pto.barrier <PIPE_ALL>\n    pto.wait_flag[<PIPE_MTE2>, <PIPE_MTE3>, <EVENT_ID0>]"
    )
    load0, load1, store0, _ = traced(text).timeline.slices  # type: ignore[union-attr]
    assert store0.start == load1.start + load1.cycles > load0.start + load0.cycles
