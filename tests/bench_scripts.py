"""bench/'s scripts (no package) as modules, and the check the cost differentials' tests share."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from pto_tools import pto_opt
from tests.pto_tools.cli import ROOT, call

BENCH = ROOT / "bench"


def load(script: str) -> ModuleType:
    """bench/<script>.py, registered in sys.modules under `script` (its dataclasses look their
    annotations up there), with bench/ on sys.path while it loads (it may import a neighbour)."""
    spec = importlib.util.spec_from_file_location(script, BENCH / f"{script}.py")
    assert spec is not None and spec.loader is not None
    module = sys.modules[script] = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(BENCH))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCH))
    return module


def check_batch(kernels: dict, target: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[dict, str]:
    """A differential's kernels (bench/costmodel_diff.py's Kernel records) in one module: pto-opt
    estimates each function as the instructions its kernel expects, each at a positive cost, and
    emits C++ with a function of each name. Returns (the estimates by function, the C++)."""
    costmodel_diff = sys.modules["costmodel_diff"]
    names = list(kernels)
    module = costmodel_diff.batch_module(list(kernels.values()), names, target)
    source = tmp_path / "batch.pto"
    source.write_text(module)

    code, out, err = call(pto_opt.main, [str(source), "--target", target, "--estimate=json"], capsys)
    assert (code, err) == (0, ""), err
    estimated = costmodel_diff.estimates_by_function(json.loads(out), module, names)
    assert {n: [op for op, _, _ in estimated[n]] for n in names} == {n: k.instructions for n, k in kernels.items()}
    assert all(cycles > 0 for ops in estimated.values() for _, cycles, _ in ops)

    code, cpp, err = call(pto_opt.main, [str(source), "--target", target, "-p", "pto-plan-memory", "--to=cpp"], capsys)
    assert (code, err) == (0, ""), err
    for name in names:
        assert re.search(rf"\bvoid {name}\(", cpp), name
    return estimated, cpp
