"""One kernel checked on every target at once: `pto-opt --targets`, `pto-run --targets`
and `interpreter.compare`; scratch arguments, divergences outside valid regions, lowered IR."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import interpreter
import pto_dialect
from pto_tools import pto_opt, pto_run
from tests.pto_tools.cli import run_in_process, save

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


def exit_code(call) -> int:
    try:
        call()
    except SystemExit as e:
        return int(e.code or 0)
    return 0


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
    assert op is not None and op.location.endswith("wrap_negative_index.pto:23:5") and op.name == "pto.mgather"
    assert op.choices[0] == (
        "index sign-extended to 64 bits, then bounds-checked as unsigned (cpu) / read as 32-bit unsigned (a2a3, a5)"
    )
    assert not report.agree


def test_pto_run_targets_all_names_the_op_and_writes_each_target(tmp_path, capsys):
    out_dir = tmp_path / "out"
    code = exit_code(lambda: pto_run.main([str(WRAP), "--targets", "all", "--out", str(out_dir), *save(tmp_path, wrap_inputs())]))
    text = capsys.readouterr().out
    assert code == 1
    assert "arg2: 64 elements differ" in text
    assert "[64]: cpu=615.0, a2a3=295.0, a5=295.0" in text
    assert (
        "wrap_negative_index.pto:23:5 pto.mgather: index sign-extended to 64 bits, then bounds-checked as unsigned "
        "(cpu) / read as 32-bit unsigned (a2a3, a5)"
    ) in text
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


# issue 18, item 7, through the commands' main functions, in-process

# a2a3 computes the b16 data's byte offsets into tmp (its vgather takes bytes); cpu and a5 leave it
SCRATCH_ARG = """\
func.func @gather_with_tmp(%s: !pto.tile_buf<vec, 8x32xf16>, %i: !pto.tile_buf<vec, 8x32xi32>, %t: !pto.tile_buf<vec, 8x32xi32>, %d: !pto.tile_buf<vec, 8x32xf16>) {
  pto.tgather ins(%s, %i, %t : !pto.tile_buf<vec, 8x32xf16>, !pto.tile_buf<vec, 8x32xi32>, !pto.tile_buf<vec, 8x32xi32>) outs(%d : !pto.tile_buf<vec, 8x32xf16>)
  return
}
"""

# a tile argument loaded over its valid 4 x 8 only: cpu pads the whole tile first, a2a3 and a5
# (pad null) write nothing beyond the valid region
PADDED_TILE_ARG = """\
func.func @load_into_argument(%x: !pto.ptr<f32>, %t: !pto.tile_buf<vec, 4x16xf32, valid=4x8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %xv = pto.make_tensor_view %x, shape = [%c4, %c8], strides = [%c8, %c1] : !pto.tensor_view<4x8xf32>
  %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c4, %c8] : !pto.tensor_view<4x8xf32>
  pto.tload ins(%xp : !pto.partition_tensor_view<4x8xf32>) outs(%t : !pto.tile_buf<vec, 4x16xf32, valid=4x8>)
  return
}
"""


def test_scratch_tile_argument_is_reported_as_scratch(tmp_path):
    kernel = tmp_path / "k.pto"
    kernel.write_text(SCRATCH_ARG)
    rng = np.random.default_rng(18)
    src = rng.standard_normal((8, 32)).astype(np.float16)
    idx = rng.integers(0, 256, (8, 32)).astype(np.int32)
    paths = save(tmp_path, [src, idx, np.zeros((8, 32), np.int32), np.zeros((8, 32), np.float16)])
    code, out, err = run_in_process("pto-run", str(kernel), "--targets", "all", "--out", str(tmp_path / "o"), *paths)
    assert (code, err) == (0, "")
    assert out.splitlines()[3:] == [
        "arg0: all targets agree (cpu, a2a3, a5)",
        "arg1: all targets agree (cpu, a2a3, a5)",
        f"arg2: scratch (the tmp of pto.tgather at {kernel}:2:3): each target's own contents, not compared",
        "arg3: all targets agree (cpu, a2a3, a5)",
        "the targets that ran agree bit for bit (cpu, a2a3, a5) (scratch arguments aside)",
    ]
    # what made it scratch: a2a3 wrote the byte offsets of the indices there, the others did not
    np.testing.assert_array_equal(np.load(tmp_path / "o" / "a2a3" / "arg2.npy"), idx * 2)
    np.testing.assert_array_equal(np.load(tmp_path / "o" / "cpu" / "arg2.npy"), np.zeros((8, 32), np.int32))
    for target in ("cpu", "a2a3", "a5"):
        np.testing.assert_array_equal(np.load(tmp_path / "o" / target / "arg3.npy"), src.reshape(-1)[idx])


SSA_SCATTER_TABLE_ARG = """\
func.func @scatter(%table: !pto.partition_tensor_view<1x1000xf32>, %s: !pto.tile_buf<vec, 1x8xf32>, %p: !pto.tile_buf<vec, 1x8xi32>) {
  pto.mscatter %s, %p, %table {coalesce = #pto<coalesce elem>, scatterOob = #pto<scatter_oob wrap>} : (!pto.tile_buf<vec, 1x8xf32>, !pto.tile_buf<vec, 1x8xi32>, !pto.partition_tensor_view<1x1000xf32>) -> ()
  return
}
"""


def test_table_an_ssa_mscatter_writes_is_compared_not_scratch(tmp_path):
    """The SSA spelling lists the table among the operands: it is the op's output, compared
    like one (index -1 wraps to 615 read as 64 bits on cpu, 295 as 32 bits on a2a3 and a5)."""
    kernel = tmp_path / "k.pto"
    kernel.write_text(SSA_SCATTER_TABLE_ARG)
    src = np.arange(1, 9, dtype=np.float32).reshape(1, 8)
    ids = np.array([[0, 1, 2, 3, 4, 5, 6, -1]], np.int32)
    report = interpreter.compare(kernel, targets="all", args=[np.zeros((1, 1000), np.float32), src, ids])
    table = report.differences[0]
    assert (table.name, table.scratch, table.differing) == ("arg0", None, 2)
    assert not report.agree
    assert report.first_divergent_op is not None and report.first_divergent_op.name == "pto.mscatter"
    for target, column in (("cpu", 615), ("a2a3", 295), ("a5", 295)):
        expected = np.zeros((1, 1000), np.float32)
        expected[0, [0, 1, 2, 3, 4, 5, 6, column]] = src[0]
        np.testing.assert_array_equal(report.outputs[target][0], expected)


def test_first_divergent_op_is_named_when_outputs_differ_outside_valid_regions(tmp_path):
    kernel = tmp_path / "k.pto"
    kernel.write_text(PADDED_TILE_ARG)
    paths = save(tmp_path, [np.arange(32, dtype=np.float32), np.full((4, 16), 7, np.float32)])
    code, out, err = run_in_process("pto-run", str(kernel), "--targets", "all", *paths)
    assert (code, err) == (1, "")
    assert "arg1: 32 elements differ" in out
    assert "  [0, 8]: cpu=0.0, a2a3=7.0, a5=7.0" in out
    assert out.splitlines()[-1] == (
        f"first divergent op: {kernel}:8:3 pto.tload (outside the valid region): TLOAD fills the whole tile "
        "with the pad value first (cpu) / pads each valid row to its 32-byte boundary (pad != null) (a2a3, a5)"
    )


@pytest.mark.parametrize("tool", ["pto-run", "pto-opt"])
def test_lowered_ir_cannot_be_compared(tool, tmp_path):
    lowered = tmp_path / "lowered.pto"
    assert run_in_process("pto-opt", str(WRAP), "-p", "pto-pipeline{target=a2a3}", "-o", str(lowered))[0] == 0
    inputs = save(tmp_path, wrap_inputs()) if tool == "pto-run" else []
    code, out, err = run_in_process(tool, str(lowered), "--targets", "all", *inputs)
    assert (code, out) == (1, "")
    assert err.startswith(f"{lowered}:") and err.count("\n") == 1
    assert err.endswith(
        "error: 'pto_a2a3.mgather_row_dma' op is lowered for a2a3 and runs on that target only; comparing "
        "targets needs the kernel from before pto-lower\n"
    )


def test_first_divergent_op_falls_back_to_a_write_only_some_targets_make():
    """When no common write differs yet the outputs do, the first write past the shortest
    sequence is named (the recorder's writes, made up here)."""
    from interpreter.compare import _first_divergent_op, _Write

    module = pto_dialect.parse(I8_ARGMIN, "k.pto")
    op = next(o for o in module.walk() if o.name == "pto.tcolargmin")
    shared = _Write("k.pto:2:3", "pto.tcolargmin", b"same", b"same", op)
    extra = _Write("k.pto:9:9", "pto.tstore", b"x", b"x", op)
    found = _first_divergent_op({"cpu": [shared], "a5": [shared, extra]}, outputs_differ=True)
    assert found is not None and found.text() == "k.pto:9:9 pto.tstore (runs on some targets only) (no lowered choice differs)"
    assert _first_divergent_op({"cpu": [shared], "a5": [shared]}, outputs_differ=False) is None
