"""bench/vfsim_diff.py (pto-opt --estimate against pto-isa's a5 cost model, VfSim) needs clang, an
LLVM to build its loop pass with and a pto-isa checkout, so it is no part of the suite; this keeps
its kernels from rotting: for each op, the kernels it draws verify, are estimated as the one
instruction it expects, function by function, and emit C++ calling that instruction."""

from __future__ import annotations

import re

import pytest

from tests.bench_scripts import check_batch, load

vfsim_diff = load("vfsim_diff")  # it imports costmodel_diff beside it

CASES_PER_OP = 12


@pytest.mark.parametrize("op", list(vfsim_diff.TYPES))
def test_generated_kernels_are_estimated_as_expected(op, tmp_path, capsys):
    kernels = vfsim_diff.generate([op], CASES_PER_OP, seed=1)
    _, cpp = check_batch(kernels, "a5", tmp_path, capsys)
    assert len(re.findall(rf"\b{op.upper()}\(", cpp)) == CASES_PER_OP
