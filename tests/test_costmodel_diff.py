"""bench/costmodel_diff.py (pto-opt --estimate against pto-isa's cost model) needs g++ and a pto-isa
checkout, so it is no part of the suite; this keeps its kernels from rotting: for each form, the
kernels it draws verify, are estimated as the instructions it expects, function by function (an
instruction it adds a scalar charge to, as the a2a3 header's sequence: the cost model builds no
form with a scalar loop itself), and emit C++ with the tile addresses its shims map onto host
memory, without building anything."""

from __future__ import annotations

import re

import pytest

from tests.bench_scripts import check_batch, load

costmodel_diff = load("costmodel_diff")

CASES_PER_FORM = 20


@pytest.mark.parametrize("form", list(costmodel_diff.FORMS))
def test_generated_kernels_are_estimated_as_expected(form, tmp_path, capsys):
    kernels = costmodel_diff.generate([form], CASES_PER_FORM, seed=1)
    estimated, cpp = check_batch(kernels, "a2a3", tmp_path, capsys)
    scalar_charged = {model for n, k in kernels.items() for op, _, model in estimated[n] if k.scalar_cycles.get(op)}
    assert scalar_charged <= {"a2a3-header-sequence"}
    # costmodel_shims.hpp's TASSIGN(tile, int) takes these
    assert re.findall(r"TASSIGN\(\w+, [^)]*\)", cpp) == re.findall(r"TASSIGN\(\w+, 0x[0-9A-F]+\)", cpp) != []


def test_every_form_is_drawn_in_turn_and_the_draw_follows_the_seed():
    forms = ["tload", "mgather_row"]
    kernels = costmodel_diff.generate(forms, 4, seed=3)
    assert [k.instructions for k in kernels.values()] == [["TLOAD", "TSTORE"], ["MGATHER"]] * 2
    again = costmodel_diff.generate(forms, 4, seed=3)
    assert [k.text(n) for n, k in again.items()] == [k.text(n) for n, k in kernels.items()]


def test_unknown_forms_are_refused(capsys):
    with pytest.raises(SystemExit):
        costmodel_diff.options(["--pto-isa", "x", "--forms", "tload,tgather_scalar"])
    assert "unknown forms tgather_scalar" in capsys.readouterr().err


def test_counts_must_be_positive(capsys):
    with pytest.raises(SystemExit):
        costmodel_diff.options(["--pto-isa", "x", "--jobs", "0"])
    assert "--n, --jobs and --batch take a positive count" in capsys.readouterr().err
