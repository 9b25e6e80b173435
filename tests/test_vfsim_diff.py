"""bench/vfsim_diff.py (pto-opt --estimate against pto-isa's a5 cost model, VfSim) needs clang, an
LLVM to build its loop pass with and a pto-isa checkout, so it is no part of the suite; this keeps
its kernels from rotting: for each op, the kernels it draws verify, are estimated as the one
instruction it expects, function by function, and emit C++ calling that instruction."""

from __future__ import annotations

import importlib.util
import json
import re
import sys

import pytest

from pto_tools import pto_opt
from tests.pto_tools.cli import ROOT, call

sys.path.insert(0, str(ROOT / "bench"))  # vfsim_diff imports costmodel_diff beside it
SPEC = importlib.util.spec_from_file_location("vfsim_diff", ROOT / "bench" / "vfsim_diff.py")
assert SPEC is not None and SPEC.loader is not None
vfsim_diff = sys.modules[SPEC.name] = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(vfsim_diff)

CASES_PER_OP = 12


@pytest.mark.parametrize("op", list(vfsim_diff.TYPES))
def test_generated_kernels_are_estimated_as_expected(op, tmp_path, capsys):
    kernels = vfsim_diff.generate([op], CASES_PER_OP, seed=1)
    names = list(kernels)
    module = vfsim_diff.batch_module(list(kernels.values()), names)
    source = tmp_path / "batch.pto"
    source.write_text(module)

    code, out, err = call(pto_opt.main, [str(source), "--target", "a5", "--estimate=json"], capsys)
    assert (code, err) == (0, ""), err
    estimated = vfsim_diff.estimates_by_function(json.loads(out), module, names)
    assert {n: [i for i, _, _ in estimated[n]] for n in names} == {n: k.instructions for n, k in kernels.items()}
    assert all(cycles > 0 for ops in estimated.values() for _, cycles, _ in ops)

    code, cpp, err = call(pto_opt.main, [str(source), "--target", "a5", "-p", "pto-plan-memory", "--to=cpp"], capsys)
    assert (code, err) == (0, ""), err
    for name in names:
        assert re.search(rf"\bvoid {name}\(", cpp), name
    assert len(re.findall(rf"\b{op.upper()}\(", cpp)) == CASES_PER_OP
