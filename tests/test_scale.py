"""Kernels large in one direction (deep nests, many ops, huge trip counts): each runs or is a
located error, in time and memory proportional to its size. The large sizes are in
bench/scale.py; these are the small ones."""

from __future__ import annotations

import importlib
import sys

import numpy as np
import pytest

import interpreter
import pto_dialect
from pto_dialect import PtoError
from pto_dialect.walk import clone, walk
from interpreter.compare import _WriteRecorder  # pyright: ignore[reportPrivateUsage]
from tests.kernel_text import nested_loops

compare = importlib.import_module("interpreter.compare")  # the package's `compare` is the function


def test_a_thousand_nested_loops_run() -> None:
    x = np.arange(16, dtype=np.float32)
    module = pto_dialect.parse(nested_loops(1000), "nest.pto")
    assert np.array_equal(interpreter.run(module, target="a5", args=[x, np.zeros(16, np.float32)])[1], x + x)


def test_a_nest_deeper_than_the_interpreter_follows_is_located(monkeypatch: pytest.MonkeyPatch) -> None:
    levels = 300  # the interpreter's frames for 300 nested regions; the nest is 400 deep
    monkeypatch.setattr(interpreter, "CALL_DEPTH_FRAMES", levels * interpreter.FRAMES_PER_NESTING)
    text = nested_loops(400)
    innermost = next(i for i, line in enumerate(text.splitlines(), 1) if "scf.for %i399 " in line)
    module = pto_dialect.parse(text, "nest.pto")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)  # Python's default: a command run in this process leaves it raised
    try:
        with pytest.raises(PtoError) as e:
            interpreter.run(module, target="a5", args=[np.zeros(16, np.float32)] * 2)
    finally:
        sys.setrecursionlimit(limit)
    assert str(e.value).startswith(
        f"nest.pto:{innermost}:{text.splitlines()[innermost - 1].index('scf.for') + 1}: error: "
        "'scf.for' op is nested 401 regions deep (400 scf.for, 1 pto.section.vector): deeper than the "
        f"interpreter can follow (about {levels} nested regions and calls in all)"
    )


@pytest.mark.parametrize("reverse", [False, True])
def test_walk_yields_what_xdsl_walk_yields(reverse: bool) -> None:
    module = pto_dialect.parse(nested_loops(3, ops_per_level=1) + nested_loops(2).replace("@nest", "@other"))
    assert list(walk(module, reverse=reverse)) == list(module.walk(reverse=reverse))


def test_clone_is_xdsl_s_clone() -> None:
    """The same text, and every operand of the copy defined in the copy (not the original)."""
    module = pto_dialect.parse(nested_loops(5, ops_per_level=2))
    copy = clone(module)
    assert str(copy) == str(module.clone())
    inside = {v for op in walk(copy) for v in (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args))}
    assert all(v in inside for op in walk(copy) for v in op.operands)


def test_calls_deeper_than_the_interpreter_follows_are_located() -> None:
    text = "func.func @f(%n: index) {\n  func.call @f(%n) : (index) -> ()\n  return\n}\n"
    with pytest.raises(PtoError) as e:
        interpreter.run(pto_dialect.parse(text, "calls.pto"), target="cpu", args=[np.array(3)])
    assert str(e.value) == (
        f"calls.pto:1:1: error: 'func.func' op func.call nests deeper than the interpreter can follow (its "
        f"{interpreter.CALL_DEPTH_FRAMES} Python frames hold about {interpreter.CALL_DEPTH_FRAMES // interpreter.FRAMES_PER_NESTING} "
        "nested regions, fewer calls)"
    )


def wrap_in_a_loop(trips: int) -> str:
    """`trips` iterations, each gathering 8 rows of a 7 x 8 table by 8 ids with gatherOob =
    wrap: a negative id wraps differently on each target (examples/embedding_wrap.pto)."""
    ids, out = f"{trips * 8}", f"{trips * 8}"
    return f"""\
func.func @wrap_loop(%table: !pto.ptr<f32>, %ids: !pto.ptr<i32>, %out: !pto.ptr<f32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %n = arith.constant {trips * 8} : index
  %tv = pto.make_tensor_view %table, shape = [%c7, %c8], strides = [%c8, %c1] : !pto.tensor_view<7x8xf32>
  %iv = pto.make_tensor_view %ids, shape = [%c1, %n], strides = [%n, %c1] : !pto.tensor_view<1x{ids}xi32>
  %ov = pto.make_tensor_view %out, shape = [%n, %c8], strides = [%c8, %c1] : !pto.tensor_view<{out}x8xf32>
  %tab = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c7, %c8] : !pto.tensor_view<7x8xf32>
  %idx = pto.alloc_tile : !pto.tile_buf<vec, 1x8xi32>
  %rows = pto.alloc_tile : !pto.tile_buf<vec, 8x8xf32>
  scf.for %b = %c0 to %n step %c8 {{
    %ip = pto.partition_view %iv, offsets = [%c0, %b], sizes = [%c1, %c8] : !pto.tensor_view<1x{ids}xi32>
    %op = pto.partition_view %ov, offsets = [%b, %c0], sizes = [%c8, %c8] : !pto.tensor_view<{out}x8xf32>
    pto.tload ins(%ip : !pto.partition_tensor_view<1x8xi32>) outs(%idx : !pto.tile_buf<vec, 1x8xi32>)
    pto.mgather ins(%tab, %idx : !pto.partition_tensor_view<7x8xf32>, !pto.tile_buf<vec, 1x8xi32>)
                outs(%rows : !pto.tile_buf<vec, 8x8xf32>) {{coalesce = #pto<coalesce row>, gatherOob = #pto<gather_oob wrap>}}
    pto.tstore ins(%rows : !pto.tile_buf<vec, 8x8xf32>) outs(%op : !pto.partition_tensor_view<8x8xf32>)
  }}
  return
}}
"""


def counting(recorder: type[_WriteRecorder], made: list[_WriteRecorder]) -> type[_WriteRecorder]:
    """`recorder`, each instance of which is noted in `made`."""

    class Counted(recorder):
        def __init__(self, start: int = 0, stop: int | None = None) -> None:
            super().__init__(start, stop)
            made.append(self)

    return Counted


def test_the_first_divergent_write_is_found_with_few_writes_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """Comparing targets keeps a bounded number of digests per target, whatever the run's
    length: with room for 4 checkpoints and 2 writes, the targets run again over narrower
    windows and find the same first divergent op as with room for all."""
    trips, late = 20, 13  # only iteration 13 reads a negative id
    ids = np.arange(trips * 8, dtype=np.int32) % 7
    ids[late * 8 + 3] = -1
    module = pto_dialect.parse(wrap_in_a_loop(trips), "wrap.pto")
    arrays = [np.arange(56, dtype=np.float32), ids, np.zeros(trips * 64, np.float32)]
    whole = interpreter.compare(module, "cpu,a5", arrays)
    monkeypatch.setattr(compare, "CHECKPOINTS", 4)
    monkeypatch.setattr(compare, "KEPT_WRITES", 2)
    runs: list[_WriteRecorder] = []
    monkeypatch.setattr(compare, "_WriteRecorder", counting(_WriteRecorder, runs))
    narrowed = interpreter.compare(module, "cpu,a5", arrays)
    assert whole.first_divergent_op is not None and whole.first_divergent_op.name == "pto.mgather"
    assert narrowed.first_divergent_op == whole.first_divergent_op
    assert len(runs) > 2  # the two targets' runs, then narrower ones
    assert max(len(r.checkpoints) for r in runs) <= 4 and max(len(r.kept) for r in runs) <= 2


def test_a_deep_nest_with_instructions_at_every_level_is_estimated() -> None:
    """Each level's ops used tiles live across every loop around them (the memory plan's
    quadratic case, 45 s for 240 levels before): priced once each per trip."""
    import pto_frontend as pto

    levels = 120
    module = pto_dialect.parse(nested_loops(levels, trips=3, ops_per_level=1), "wide.pto")
    report = pto.estimate(module, target="a5")
    counts = {(op["op"], op["count"]) for op in report["ops"]}
    assert {("pto.tadd", 3**level) for level in range(1, levels + 1)} <= counts
    assert ("pto.tadd", 3**levels) in counts and ("pto.tmul", 3**levels) in counts


def test_a_deep_nest_of_huge_loops_is_estimated_from_python() -> None:
    """Deeper than Python's default recursion limit follows, with a count of 5,400 digits."""
    import pto_frontend as pto

    report = pto.estimate(pto_dialect.parse(nested_loops(600, trips=10**9), "nest.pto"), target="a5")
    assert ("pto.tadd", 10**5400) in {(op["op"], op["count"]) for op in report["ops"]}
