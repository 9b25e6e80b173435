"""The trace (interpreter/trace.py) places an op by the memory it reads and writes on its target: a tmp
the target's code ignores (Instruction.untouched) is neither, so the op does not wait for another
pipe's access to the tile lying over the tmp's bytes (tests/filecheck/sync/ignored_tmp.pto)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import interpreter
from interpreter.profile import Profiler
from pto_dialect import parse

KERNEL = Path(__file__).resolve().parents[1] / "filecheck" / "sync" / "ignored_tmp.pto"


@pytest.mark.parametrize(("target", "tmp_used"), [("a5", False), ("a2a3", True)])
def test_the_sum_waits_for_the_load_under_its_tmp_only_where_its_code_uses_the_tmp(target: str, tmp_used: bool) -> None:
    x = np.arange(32 * 64, dtype=np.float32).reshape(32, 64)
    args = [x, np.zeros((32, 8), np.float32), np.zeros_like(x)]
    profiler = Profiler(target, "pto-isa", trace=True)
    finals, _ = interpreter.run_with_results(parse(KERNEL.read_text(), KERNEL.name), target, args, profiler=profiler)
    np.testing.assert_array_equal(finals[1][:, 0], x.sum(axis=1))
    np.testing.assert_array_equal(finals[2], x)
    timeline = profiler.timeline
    assert timeline is not None
    first_load, second_load = (s for s in timeline.slices if s.name == "pto.tload")
    (summed,) = (s for s in timeline.slices if s.name == "pto.trowsum")
    assert summed.start >= first_load.start + first_load.cycles  # its src, ordered by the flag
    assert (summed.start >= second_load.start + second_load.cycles) == tmp_used
