"""
The Python examples (examples/python/): each kernel of kernels.py prints `.pto` text that
pto-opt reads and prints back unchanged, and that runs with the results of the `.pto`
example it is written after, bit for bit, on every target (or is refused with its message);
embedding.py runs as a script; test_embedding.py is a passing pytest suite; the README's
Python examples import only pto_frontend, and run.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import interpreter
from pto_dialect import PtoError, load, parse
from pto_dialect.dtypes import element_info
from tests.interpreter.harness import TARGETS, assert_bits_equal
from tests.pto_tools.cli import run_in_process

ROOT = Path(__file__).resolve().parents[2]
PYTHON_EXAMPLES = ROOT / "examples" / "python"


def _module(name: str):
    spec = importlib.util.spec_from_file_location(name, PYTHON_EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


KERNELS = _module("kernels")
TWINS = [pytest.param(kernel, ROOT / "examples" / pto, id=kernel.name) for kernel, pto in KERNELS.TWINS.items()]


def _inputs(kernel, seed: int) -> list[np.ndarray]:
    """Random arguments, as large as the kernel's views of them: ids of either sign, in and
    out of the tables."""
    rng = np.random.default_rng(seed)
    return [
        _random(rng, element_info(annotation.dtype.attr).numpy, max(v.extent for v in kernel._views[name]))
        for name, annotation in kernel.parameters.items()
    ]


def _random(rng: np.random.Generator, dtype: np.dtype, size: int) -> np.ndarray:
    if dtype.kind in "iu":
        return rng.integers(-3, 1100, size).astype(dtype)
    return rng.integers(-500, 500, size).astype(np.float32).astype(dtype) / 4


@pytest.mark.parametrize(("kernel", "example"), TWINS)
@pytest.mark.parametrize("target", TARGETS)
def test_the_printed_text_reads_back_unchanged(kernel, example: Path, target: str) -> None:
    text = kernel.to_pto(target=target)
    assert f'pto.target_arch = "{target}"' in text.splitlines()[0]
    assert str(parse(text, "built.pto")) + "\n" == text  # what pto-opt prints of it


@pytest.mark.parametrize(("kernel", "example"), TWINS)
@pytest.mark.parametrize("target", TARGETS)
def test_the_printed_text_runs_as_the_example(kernel, example: Path, target: str) -> None:
    args = _inputs(kernel, seed=len(example.name))
    try:
        want = interpreter.run(load(example), target, args)
    except PtoError as refused:
        with pytest.raises(PtoError) as ours:
            interpreter.run(parse(kernel.to_pto(target=target), "built.pto"), target, args)
        assert ours.value.message == refused.message
        return
    got = interpreter.run(parse(kernel.to_pto(target=target), "built.pto"), target, args)
    for g, w in zip(got, want, strict=True):
        assert_bits_equal(g, w)
    for g, w in zip(kernel.run(*args, target=target), want, strict=True):
        assert_bits_equal(g, w)


def test_pto_opt_prints_the_text_back(tmp_path: Path) -> None:
    path = tmp_path / "embedding_lookup.pto"
    text = KERNELS.embedding_lookup.to_pto(target="a5")
    path.write_text(text)
    code, stdout, stderr = run_in_process("pto-opt", str(path))
    assert code == 0, stderr
    assert stdout.rstrip("\n") == text.rstrip("\n")


def test_the_embedding_script_checks_every_target() -> None:
    done = subprocess.run([sys.executable, str(PYTHON_EXAMPLES / "embedding.py")], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith('builtin.module attributes {pto.target_arch = "a5"} {')
    checked = re.findall(r"^(\w+): 1024 rows gathered, as NumPy's table\[min\(ids, 999\)\]: (\w+)$", done.stdout, re.M)
    assert checked == [(t, "True") for t in TARGETS]
    assert done.stdout.endswith(f"the targets that ran agree bit for bit ({', '.join(TARGETS)})\n")


def test_the_example_test_suite_passes() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(PYTHON_EXAMPLES)],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^\d+ passed", done.stdout.splitlines()[-1])


def test_the_readme_s_python_examples_use_pto_frontend_and_run(monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert blocks and all("import pto_frontend as pto" in b for b in blocks)
    assert not any(re.search(r"^(import|from) (pto_dialect|interpreter|targets|passes)\b", b, re.M) for b in blocks)
    monkeypatch.chdir(ROOT)
    for block in blocks:
        names: dict[str, Any] = {}
        exec(compile(block, "README.md", "exec"), names)
    assert np.array_equal(names["out"], names["out_too"])
    # run returns a read-only view of an argument the kernel only reads, a copy of one it writes
    assert not names["table"].flags.writeable and names["out"].flags.writeable  # type: ignore[attr-defined]
