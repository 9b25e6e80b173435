"""Kernels large in one direction (deep nests, many ops, huge trip counts): each runs or is a
located error, in time and memory proportional to its size. The large sizes are in
bench/scale.py; these are the small ones."""

from __future__ import annotations

import pytest

import pto_dialect
from pto_dialect.parser import RECURSION_LIMIT, recursion_limit
from pto_dialect.walk import walk
from tests.kernel_text import nested_loops


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
