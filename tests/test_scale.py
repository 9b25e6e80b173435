"""Kernels large in one direction (deep nests, many ops, huge trip counts): each runs or is a
located error, in time and memory proportional to its size. The large sizes are in
bench/scale.py; these are the small ones."""

from __future__ import annotations

import numpy as np
import pytest

import interpreter
import pto_dialect
from pto_dialect import PtoError
from pto_dialect.parser import RECURSION_LIMIT, recursion_limit
from pto_dialect.walk import walk
from tests.kernel_text import nested_loops


def test_a_thousand_nested_loops_run() -> None:
    x = np.arange(16, dtype=np.float32)
    module = pto_dialect.parse(nested_loops(1000), "nest.pto")
    assert np.array_equal(interpreter.run(module, target="a5", args=[x, np.zeros(16, np.float32)])[1], x + x)


def test_a_nest_deeper_than_the_interpreter_follows_is_located(monkeypatch: pytest.MonkeyPatch) -> None:
    levels = 300  # the interpreter's frames for 300 nested regions; the nest is 400 deep
    monkeypatch.setattr(interpreter, "CALL_DEPTH_FRAMES", levels * interpreter.FRAMES_PER_NESTING)
    text = nested_loops(400)
    innermost = next(i for i, line in enumerate(text.splitlines(), 1) if "scf.for %i399 " in line)
    with pytest.raises(PtoError) as e:
        interpreter.run(pto_dialect.parse(text, "nest.pto"), target="a5", args=[np.zeros(16, np.float32)] * 2)
    assert str(e.value).startswith(
        f"nest.pto:{innermost}:{text.splitlines()[innermost - 1].index('scf.for') + 1}: error: "
        "'scf.for' op is nested 401 regions deep (400 scf.for, 1 pto.section.vector): deeper than the "
        f"interpreter can follow (about {levels} nested regions and calls in all)"
    )


@pytest.mark.parametrize("reverse", [False, True])
def test_walk_yields_what_xdsl_walk_yields(reverse: bool) -> None:
    module = pto_dialect.parse(nested_loops(3, ops_per_level=1) + nested_loops(2).replace("@nest", "@other"))
    assert list(walk(module, reverse=reverse)) == list(module.walk(reverse=reverse))


def test_a_thousand_nested_loops_go_through_the_pipeline() -> None:
    from passes.pipeline import PipelinePass
    from xdsl.context import Context

    module = pto_dialect.parse(nested_loops(1000), "nest.pto")
    with recursion_limit(RECURSION_LIMIT):  # as the commands run it: xDSL verifies recursively
        PipelinePass("a5").apply(Context(), module)
    assert sum(op.name == "scf.for" for op in walk(module)) == 1000


def test_calls_deeper_than_the_interpreter_follows_are_located() -> None:
    text = "func.func @f(%n: index) {\n  func.call @f(%n) : (index) -> ()\n  return\n}\n"
    with pytest.raises(PtoError) as e:
        interpreter.run(pto_dialect.parse(text, "calls.pto"), target="cpu", args=[np.array(3)])
    assert str(e.value) == (
        f"calls.pto:1:1: error: 'func.func' op func.call nests deeper than the interpreter can follow (its "
        f"{interpreter.CALL_DEPTH_FRAMES} Python frames hold about {interpreter.CALL_DEPTH_FRAMES // interpreter.FRAMES_PER_NESTING} "
        "nested regions, fewer calls)"
    )
