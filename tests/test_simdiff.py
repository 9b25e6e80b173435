"""bench/simdiff (the cpu interpreter against pto-isa's CPU simulator) needs g++ and a pto-isa
checkout, so it is no part of the suite; this keeps its generators from rotting: every form's
kernels verify on cpu and emit C++ (through the passes the harness runs), their inputs match
their arguments, and a seed draws the same kernels again. Nothing is built."""

from __future__ import annotations

import re

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
        assert all(a.data.ndim == (0 if a.scalar else 1) for a in case.arguments)  # a scalar argument is 0-d
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
