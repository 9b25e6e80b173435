"""pto-run reads what pto-opt reads and keeps the function's results."""

import numpy as np
import pytest

from pto_tools import pto_opt, pto_run
from tests.pto_tools.cli import ROOT, call

DATA = ROOT / "examples" / "data"
WRAP = str(ROOT / "examples" / "embedding_wrap.pto")
WRAP_INPUTS = [str(DATA / f"wrap_{name}.npy") for name in ("table", "ids", "out")]
ARGMIN = str(ROOT / "examples" / "column_argmin.ptoasm")


def test_bundled_inputs_are_what_make_py_writes():
    from examples.data.make import inputs

    for name, array in inputs().items():
        np.testing.assert_array_equal(np.load(DATA / f"{name}.npy"), array, strict=True)


# examples/embedding_wrap.pto, an independent formula (pto-isa's MGATHER index reads): the id as
# an unsigned number of the target's index width, modulo the target's row capacity; row k holds k.
@pytest.mark.parametrize("target, width, capacity", [("cpu", 64, 7), ("a2a3", 32, 14), ("a5", 32, 7)])
def test_wrap_example_reads_different_rows_per_target(target, width, capacity, tmp_path, capsys):
    code, _, err = call(pto_run.main, [WRAP, "--target", target, "--out", str(tmp_path), *WRAP_INPUTS], capsys)
    assert (code, err) == (0, "")
    ids = np.load(DATA / "wrap_ids.npy")
    rows = [(int(i) + (1 << width)) % (1 << width) % capacity for i in ids]
    expected = np.repeat(np.array(rows, np.float32), 8)
    np.testing.assert_array_equal(np.load(tmp_path / "arg2.npy"), expected)


def test_results_are_written_and_previewed(tmp_path, capsys):
    src = np.load(DATA / "argmin_src.npy")
    code, out, err = call(pto_run.main, [ARGMIN, "--target", "a5", str(DATA / "argmin_src.npy")], capsys)
    assert (code, err) == (0, "")
    lines = out.splitlines()  # the source tile is only read: not shown
    assert lines[0] == "target: a5 (--target a5)"
    assert lines[1] == "result0: float32 [1, 16]"
    assert lines[3] == "result1: int32 [1, 16]"
    assert lines[4] == "[[0 2 5 0 3 6 1 4 6 2 4 0 2 5 0 3]]"
    code, out, _ = call(pto_run.main, [ARGMIN, "--out", str(tmp_path), str(DATA / "argmin_src.npy")], capsys)
    assert (code, out) == (0, "target: a2a3 (the default: the module names no target)\n")
    np.testing.assert_array_equal(np.load(tmp_path / "result0.npy"), src.min(axis=0, keepdims=True))
    np.testing.assert_array_equal(np.load(tmp_path / "result1.npy"), src.argmin(axis=0, keepdims=True).astype(np.int32))
    np.testing.assert_array_equal(np.load(tmp_path / "arg0.npy"), src)


def test_print_shows_written_arguments_and_results_as_2d(capsys):
    code, out, _ = call(pto_run.main, [WRAP, "--target", "a5", "--print", *WRAP_INPUTS], capsys)
    assert code == 0
    target, header, printed = out.split("\n", 2)
    assert target == "target: a5 (--target a5)"
    assert header == "arg2: float32 [64], as 8 x 8"  # the table and ids are only read: not shown
    rows = [[float(x) for x in line.strip("[] ").split()] for line in printed.splitlines()]
    np.testing.assert_array_equal(rows, np.repeat([[0], [6], [0], [3], [6], [3], [2], [4]], 8, axis=1))


def test_lowered_ir_runs_for_its_target(tmp_path, capsys):
    lowered = tmp_path / "lowered.pto"
    assert call(pto_opt.main, [WRAP, "-p", "pto-pipeline{target=a2a3}", "-o", str(lowered)], capsys)[0] == 0
    assert "pto_a2a3.mgather_row_dma" in lowered.read_text()
    _, direct, _ = call(pto_run.main, [WRAP, "--target", "a2a3", *WRAP_INPUTS], capsys)
    code, out, err = call(pto_run.main, [str(lowered), *WRAP_INPUTS], capsys)
    assert (code, err) == (0, "")
    assert out == direct.replace("(--target a2a3)", "(the kernel is lowered for a2a3)")
    code, _, err = call(pto_run.main, [str(lowered), "--target", "a5", *WRAP_INPUTS], capsys)
    assert code == 1
    assert err.startswith(f"{lowered}:")
    assert (
        "'pto_a2a3.mgather_row_dma' op is lowered for a2a3 and runs on that target only, not on a5 (--target a5); "
        "give a5 the kernel from before pto-lower"
    ) in err


def test_asm_kernel_errors_are_located(tmp_path, capsys):
    bad = tmp_path / "bad.ptoasm"
    bad.write_text("%v = tcolargmin %src : !pto.tile<vec, 8x16xf32>\n")
    code, _, err = call(pto_run.main, [str(bad), str(DATA / "argmin_src.npy")], capsys)
    assert code == 1
    assert err.startswith(f"{bad}:1:")
