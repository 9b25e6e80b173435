"""One kernel checked on every target at once: `pto-opt --targets`, `pto-run --targets`
and `interpreter.compare`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import interpreter
from pto_tools import pto_opt, pto_run

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
WRAP = EXAMPLES / "wrap_negative_index.pto"
EMBEDDING = EXAMPLES / "embedding_lookup.pto"

I8_ARGMIN = """\
func.func @argmin_i8(%s: !pto.tile_buf<vec, 16x32xi8>, %i: !pto.tile_buf<vec, 1x32xi32>) {
  pto.tcolargmin ins(%s : !pto.tile_buf<vec, 16x32xi8>) outs(%i : !pto.tile_buf<vec, 1x32xi32>)
  return
}
"""


def wrap_inputs() -> list[np.ndarray]:
    table = np.repeat(np.arange(1000, dtype=np.float32)[:, None], 32, axis=1).reshape(-1)
    ids = np.array([0, 1, -1, 2, 999, -2, 5, 7], np.int32)
    return [table, ids, np.zeros(8 * 32, np.float32)]


def expected_rows(ids: np.ndarray, index_bits: int) -> np.ndarray:
    """Row r holds table row (ids[r] read as an unsigned index_bits-bit value) mod 1000."""
    unsigned = [(int(i) + (1 << index_bits)) % (1 << index_bits) for i in ids]
    return np.repeat(np.array([u % 1000 for u in unsigned], np.float32)[:, None], 32, axis=1).reshape(-1)


def exit_code(call) -> int:  # noqa: ANN001
    try:
        call()
    except SystemExit as e:
        return int(e.code or 0)
    return 0


def save(tmp_path: Path, arrays: list[np.ndarray]) -> list[str]:
    paths = []
    for i, a in enumerate(arrays):
        np.save(tmp_path / f"in{i}.npy", a)
        paths.append(str(tmp_path / f"in{i}.npy"))
    return paths


def test_compare_reports_the_divergent_op_and_choice():
    report = interpreter.compare(WRAP, targets="all", args=wrap_inputs())
    assert {t: v.ran for t, v in report.verdicts.items()} == {"cpu": True, "a2a3": True, "a5": True}
    ids = wrap_inputs()[1]
    np.testing.assert_array_equal(report.outputs["cpu"][2], expected_rows(ids, 64))
    for npu in ("a2a3", "a5"):
        np.testing.assert_array_equal(report.outputs[npu][2], expected_rows(ids, 32))
    table, ids_out, out = report.differences
    assert table.differing == 0 and ids_out.differing == 0
    assert out.differing == 2 * 32  # the rows of ids -1 and -2
    position, values = out.positions[0]
    assert position == (64,) and values == {"cpu": 615.0, "a2a3": 295.0, "a5": 295.0}
    op = report.first_divergent_op
    assert op is not None and op.location.endswith("wrap_negative_index.pto:22:5") and op.name == "pto.mgather"
    assert op.choices[0] == "index read as 64-bit signed (cpu) / 32-bit unsigned (a2a3, a5)"
    assert not report.agree


def test_pto_run_targets_all_names_the_op_and_writes_each_target(tmp_path, capsys):
    out_dir = tmp_path / "out"
    code = exit_code(lambda: pto_run.main([str(WRAP), "--targets", "all", "--out", str(out_dir), *save(tmp_path, wrap_inputs())]))
    text = capsys.readouterr().out
    assert code == 1
    assert "arg2: 64 elements differ" in text
    assert "[64]: cpu=615.0, a2a3=295.0, a5=295.0" in text
    assert "wrap_negative_index.pto:22:5 pto.mgather: index read as 64-bit signed (cpu) / 32-bit unsigned (a2a3, a5)" in text
    for target, bits in (("cpu", 64), ("a2a3", 32), ("a5", 32)):
        np.testing.assert_array_equal(np.load(out_dir / target / "arg2.npy"), expected_rows(wrap_inputs()[1], bits))


def test_pto_run_targets_agree(tmp_path, capsys):
    table = (np.arange(1024 * 64) % 251).astype(np.float16)
    ids = np.array([0, 5, 1023, 2000, -1, 7, 8, 9] * 4, dtype=np.int32)
    paths = save(tmp_path, [table, ids, np.zeros(32 * 64, np.float16)])
    code = exit_code(lambda: pto_run.main([str(EMBEDDING), "--targets", "all", *paths]))
    text = capsys.readouterr().out
    assert code == 0
    assert "the targets that ran agree bit for bit (cpu, a2a3, a5)" in text
    assert "first divergent op" not in text


def test_pto_run_targets_runs_the_targets_that_accept(tmp_path, capsys):
    kernel = tmp_path / "argmin.pto"
    kernel.write_text(I8_ARGMIN)
    src = ((np.arange(16 * 32) * 7) % 13 - 6).astype(np.int8).reshape(16, 32)
    paths = save(tmp_path, [src, np.zeros((1, 32), np.int32)])
    code = exit_code(lambda: pto_run.main([str(kernel), "--targets", "all", "--out", str(tmp_path / "o"), *paths]))
    text = capsys.readouterr().out
    assert code == 1
    assert "a2a3: did not run: " in text and "expects src element type to be ui16/ui32/f16/f32, got i8" in text
    assert "cpu: ran" in text and "a5: ran" in text
    expected = np.argmin(src, axis=0).astype(np.int32)[None, :]  # first minimum per column
    for target in ("cpu", "a5"):
        np.testing.assert_array_equal(np.load(tmp_path / "o" / target / "arg1.npy"), expected)
    assert not (tmp_path / "o" / "a2a3").exists()


def test_pto_opt_targets_prints_the_verdict_matrix(tmp_path, capsys):
    kernel = tmp_path / "argmin.pto"
    kernel.write_text(I8_ARGMIN)
    code = exit_code(lambda: pto_opt.main([str(kernel), "--targets", "all"]))
    lines = capsys.readouterr().out.splitlines()
    assert code == 1
    assert lines[0] == "| op | cpu | a2a3 | a5 |"
    assert lines[2] == (
        f"| {kernel}:2:3 pto.tcolargmin | ok | expects src element type to be ui16/ui32/f16/f32, got i8 | ok |"
    )
    assert lines[3] == "rejected by: a2a3; accepted by: cpu, a5"


def test_pto_opt_targets_accepting_kernel(capsys):
    assert exit_code(lambda: pto_opt.main([str(EMBEDDING), "--targets", "cpu,a5"])) == 0
    assert capsys.readouterr().out == "accepted by every target (cpu, a5)\n"


@pytest.mark.parametrize("tool", [pto_opt.main, pto_run.main])
def test_unknown_target_in_list(tool, capsys):
    assert exit_code(lambda: tool([str(EMBEDDING), "--targets", "cpu,a4"])) == 1
    err = capsys.readouterr().err
    assert "unknown target 'a4'" in err and "Traceback" not in err
