"""`pto-run --check-sync` checks a loop with a straight-line body in one batch (passes/sync_check.py,
_BatchedLoop): on kernels with loop-carried flags, double buffers at addresses computed from the
induction variable, accesses before and after the loop, and each of their sync ops deleted in turn,
it reports a race exactly where the replay iteration by iteration does (every race that one names,
named; its warnings the same)."""

import re

import numpy as np
import pytest
from xdsl.context import Context

import pto_dialect
import targets
from passes.pipeline import PipelinePass
from passes.sync_check import check_sync
from pto_dialect.ops.sync import SYNC_OPS

TRIPS = 24  # more than the iterations a batched loop replays, stepping by 2 too
TILE = "!pto.tile_buf<vec, 1x64xi32>"
PART = "!pto.partition_tensor_view<1x64xi32>"
HEAD = f"""
func.func @k(%ids: !pto.ptr<i32>, %out: !pto.ptr<i32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %ctrips = arith.constant {TRIPS} : index
  %n = arith.constant {TRIPS * 64} : index
  %a0 = arith.constant 0 : i64
  %a256 = arith.constant 256 : i64
  %idv = pto.make_tensor_view %ids, shape = [%c1, %n], strides = [%n, %c1] : !pto.tensor_view<?x?xi32>
  %ov = pto.make_tensor_view %out, shape = [%c1, %n], strides = [%n, %c1] : !pto.tensor_view<?x?xi32>
  %all = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [%c1, %c64] : !pto.tensor_view<?x?xi32>
  %idx = pto.alloc_tile addr = %a0 : {TILE}
"""
WINDOWS = """\
    %base = arith.muli %t, %c64 : index
    %ip = pto.partition_view %idv, offsets = [%c0, %base], sizes = [%c1, %c64] : !pto.tensor_view<?x?xi32>
    %op = pto.partition_view %ov, offsets = [%c0, %base], sizes = [%c1, %c64] : !pto.tensor_view<?x?xi32>
"""



def load_when_free(view: str, tile: str, event: int) -> str:
    """Loop-body lines: wait until the buffer is free (MTE3 -> MTE2 flag `event`), tload it, tell
    the store it is loaded (MTE2 -> MTE3)."""
    return f"""\
    pto.wait_flag[<PIPE_MTE3>, <PIPE_MTE2>, <EVENT_ID{event}>]
    pto.tload ins({view} : {PART}) outs({tile} : {TILE})
    pto.set_flag[<PIPE_MTE2>, <PIPE_MTE3>, <EVENT_ID{event}>]
"""


def store_when_loaded(tile: str, view: str, event: int) -> str:
    """Loop-body lines: wait until the buffer is loaded (MTE2 -> MTE3 flag `event`), tstore it,
    free it for the next load (MTE3 -> MTE2)."""
    return f"""\
    pto.wait_flag[<PIPE_MTE2>, <PIPE_MTE3>, <EVENT_ID{event}>]
    pto.tstore ins({tile} : {TILE}) outs({view} : {PART})
    pto.set_flag[<PIPE_MTE3>, <PIPE_MTE2>, <EVENT_ID{event}>]
"""


# PTOAS's shape: the buffer's "free" flag set before the loop, waited at the top of each
# iteration, set again at its end, taken after the loop; the store reads the output back after it.
CARRIED = HEAD + f"""\
  pto.set_flag[<PIPE_MTE3>, <PIPE_MTE2>, <EVENT_ID0>]
  scf.for %t = %c0 to %ctrips step %c1 {{
{WINDOWS}\
{load_when_free("%ip", "%idx", 0)}\
{store_when_loaded("%idx", "%op", 0)}\
  }}
  pto.wait_flag[<PIPE_MTE3>, <PIPE_MTE2>, <EVENT_ID0>]
  pto.tload ins(%all : {PART}) outs(%idx : {TILE})
  return
}}
"""

# Two buffers, the one of iteration t at 256 * (t % 2), each with its own event id pair.
PING_PONG = HEAD + f"""\
  pto.set_flag[<PIPE_MTE3>, <PIPE_MTE2>, <EVENT_ID0>]
  pto.set_flag[<PIPE_MTE3>, <PIPE_MTE2>, <EVENT_ID1>]
  %c0i = arith.constant 0 : i64
  %c1i = arith.constant 1 : i64
  %c2i = arith.constant 2 : i64
  scf.for %t = %c0 to %ctrips step %c2 {{
    %t1 = arith.addi %t, %c1 : index
    %base0 = arith.muli %t, %c64 : index
    %base1 = arith.muli %t1, %c64 : index
    %ip0 = pto.partition_view %idv, offsets = [%c0, %base0], sizes = [%c1, %c64] : !pto.tensor_view<?x?xi32>
    %op0 = pto.partition_view %ov, offsets = [%c0, %base0], sizes = [%c1, %c64] : !pto.tensor_view<?x?xi32>
    %ip1 = pto.partition_view %idv, offsets = [%c0, %base1], sizes = [%c1, %c64] : !pto.tensor_view<?x?xi32>
    %op1 = pto.partition_view %ov, offsets = [%c0, %base1], sizes = [%c1, %c64] : !pto.tensor_view<?x?xi32>
    %ti = arith.index_cast %t : index to i64
    %par = arith.remui %ti, %c2i : i64
    %addr0 = arith.muli %par, %a256 : i64
    %addr1 = arith.subi %a256, %addr0 : i64
    %b0 = pto.tassign %idx, %addr0 : {TILE} -> {TILE}
    %b1 = pto.tassign %idx, %addr1 : {TILE} -> {TILE}
{load_when_free("%ip0", "%b0", 0)}\
{load_when_free("%ip1", "%b1", 1)}\
{store_when_loaded("%b0", "%op0", 0)}\
{store_when_loaded("%b1", "%op1", 1)}\
  }}
  pto.wait_flag[<PIPE_MTE3>, <PIPE_MTE2>, <EVENT_ID0>]
  pto.wait_flag[<PIPE_MTE3>, <PIPE_MTE2>, <EVENT_ID1>]
  pto.tload ins(%all : {PART}) outs(%idx : {TILE})
  return
}}
"""

# No sync of its own: pto-pipeline inserts it (flags in the body, a barrier at its end).
INSERTED = (HEAD + f"""\
  %cols = pto.alloc_tile addr = %a256 : {TILE}
  scf.for %t = %c0 to %ctrips step %c1 {{
{WINDOWS}\
    pto.tload ins(%ip : {PART}) outs(%idx : {TILE})
    pto.tadds ins(%idx, %c1i : {TILE}, i32) outs(%cols : {TILE})
    pto.tstore ins(%cols : {TILE}) outs(%op : {PART})
  }}
  pto.tload ins(%all : {PART}) outs(%idx : {TILE})
  return
}}
""").replace("  %idx = pto.alloc_tile", "  %c1i = arith.constant 1 : i32\n  %idx = pto.alloc_tile")


def lowered(text: str, target: str):
    module = pto_dialect.parse(text)
    PipelinePass(target).apply(Context(), module)
    return module


def variants(module):
    """The kernel, then it with each of its sync ops deleted in turn."""
    yield "as written", module
    count = sum(isinstance(op, tuple(SYNC_OPS)) for op in module.walk())
    for k in range(count):
        copy = module.clone()
        op = [o for o in copy.walk() if isinstance(o, tuple(SYNC_OPS))][k]
        name = f"without {op.name} #{k}"
        op.detach()
        op.erase()
        yield name, copy


def found(module, target: str, batch_loops: bool):
    function = next(op for op in module.walk() if op.name == "func.func")
    report = check_sync(module, targets.get(target), [np.zeros(1), np.zeros(1)], function, batch_loops)
    # which ops race, whatever iteration and bytes the message names
    races = {re.sub(r" = \d+|bytes \[\d+, \d+\)", "", e.text) for e in report.errors}
    return races, report.warnings


@pytest.mark.parametrize("target", ["a2a3", "a5"])
@pytest.mark.parametrize("kernel", [CARRIED, PING_PONG, INSERTED], ids=["carried", "ping_pong", "inserted"])
def test_batched_loops_report_what_iteration_by_iteration_reports(kernel, target):
    for name, module in variants(lowered(kernel, target)):
        batched, warnings_batched = found(module, target, True)
        serial, warnings_serial = found(module, target, False)
        assert serial <= batched, name
        assert bool(serial) == bool(batched), name
        assert warnings_batched == warnings_serial, name


def test_the_written_kernels_are_accepted_in_one_batch(monkeypatch):
    from passes import sync_check

    batches = []
    check = sync_check._BatchedLoop.check
    monkeypatch.setattr(sync_check._BatchedLoop, "check", lambda self, *a: batches.append(self) or check(self, *a))
    for kernel in (CARRIED, PING_PONG, INSERTED):
        races, warnings = found(lowered(kernel, "a2a3"), "a2a3", True)
        assert not races and not warnings
    assert len(batches) == 3, "a loop was replayed iteration by iteration"
