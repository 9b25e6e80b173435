"""bench/simdiff (the cpu interpreter against pto-isa's CPU simulator) needs g++ and a pto-isa
checkout, so it is no part of the suite; this keeps its generators from rotting: every form's
kernels verify on cpu and emit C++ (through the passes the harness runs), their inputs match
their arguments, and a seed draws the same kernels again. Nothing is built."""

from __future__ import annotations

import re

import numpy as np
import pytest

from bench.simdiff import harness
from bench.simdiff.generators import discover
from bench.simdiff.kernel import numpy_dtype
from pto_tools import pto_opt
from tests.pto_tools.cli import call

CASES_PER_FORM = 8
FORMS = list(discover())


@pytest.mark.parametrize("form", FORMS)
def test_generated_kernels_verify_on_cpu_and_emit_cpp(form, tmp_path, capsys):
    cases = harness.generate([form], CASES_PER_FORM, seed=1)
    for case in cases.values():
        assert [a.data.dtype for a in case.arguments] == [numpy_dtype(a.dtype) for a in case.arguments]
        assert all(a.data.ndim == (0 if a.scalar else 1) for a in case.arguments)  # a scalar: its one value
    source = tmp_path / "batch.pto"
    source.write_text("module {\n" + "\n".join(c.function(n) for n, c in cases.items()) + "\n}\n")
    code, cpp, err = call(pto_opt.main, [str(source), "--target", harness.TARGET, "-p", harness.EMIT_PASSES, "--to=cpp"], capsys)
    assert (code, err) == (0, ""), err
    for name in cases:
        assert re.search(rf"\bvoid {name}\(", cpp), name


def test_a_form_draws_the_same_kernels_for_a_seed_whatever_else_is_drawn():
    alone = harness.generate([FORMS[0]], 3, seed=5)
    with_others = harness.generate(FORMS, 3, seed=5)
    assert [c.body for c in alone.values()] == [with_others[n].body for n in alone]


def test_unknown_forms_are_refused(capsys):
    with pytest.raises(SystemExit):
        harness.options(["--pto-isa", "x", "--forms", f"{FORMS[0]},tnothing"])
    assert "unknown forms tnothing" in capsys.readouterr().err


def test_dtype_keeps_the_kernels_holding_it():
    cases = harness.generate(["tadd"], 4, seed=1, dtype="bf16")
    assert len(cases) == 4 and all(c.mentions("bf16") for c in cases.values())


def test_nan_bits_only_means_every_differing_element_is_nan_on_both_sides():
    ours = np.array([1.0, np.nan, 2.0], np.float32)
    quiet = np.array([0x3F800000, 0x7FC00001, 0x40000000], np.uint32).view(np.float32)
    assert harness.only_nan_bits(ours, quiet)
    assert not harness.only_nan_bits(ours, np.array([1.0, np.nan, 3.0], np.float32))
    assert not harness.only_nan_bits(np.array([1, 2], np.int32), np.array([1, 3], np.int32))
