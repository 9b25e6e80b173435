"""One invocation, one target (issue 18, item 2), through the installed commands: a pass
option that names a target is the target of the parse-time verification too; two different
targets are a usage error; lowered IR runs on the target it is lowered for only."""

from __future__ import annotations

import pytest

from tests.pto_tools.cli import ROOT, run_installed

DATA = ROOT / "examples" / "data"
WRAP = str(ROOT / "examples" / "embedding_wrap.pto")
WRAP_INPUTS = [str(DATA / f"wrap_{name}.npy") for name in ("table", "ids", "out")]

# mask-form TGATHER of fp8 data: a5 only (a2a3 takes 2- and 4-byte data, cpu has no fp8)
A5_ONLY = """\
func.func @a5_only(%s: !pto.tile_buf<vec, 8x64xf8E4M3FN>, %d: !pto.tile_buf<vec, 8x32xf8E4M3FN>) {
  pto.tgather ins(%s, {maskPattern = #pto.mask_pattern<P0101>} : !pto.tile_buf<vec, 8x64xf8E4M3FN>, "row") outs(%d : !pto.tile_buf<vec, 8x32xf8E4M3FN>)
  return
}
"""


def test_pass_option_target_verifies_the_parsed_kernel(tmp_path):
    kernel = tmp_path / "a5_only.pto"
    kernel.write_text(A5_ONLY)
    code, _, err = run_installed("pto-opt", str(kernel))
    assert code == 1 and "(target a2a3)" in err  # the default verifies for a2a3, which refuses it
    code, out, err = run_installed("pto-opt", str(kernel), "-p", "pto-lower{target=a5}")
    assert (code, err) == (0, "")
    assert "pto_a5.tgather_mask" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["-p", "pto-lower{target=a5}", "--target", "cpu"],
            "error: two targets in one invocation: cpu (--target cpu) and a5 (pto-lower{target=a5}); "
            "an invocation has one target",
        ),
        (
            ["-p", "pto-verify-target{target=a2},pto-pipeline{target=a5}"],
            "error: two targets in one invocation: a2a3 (pto-verify-target{target=a2}) and a5 "
            "(pto-pipeline{target=a5}); an invocation has one target",
        ),
        (
            ["--pto-arch", "a5", "-p", "convert-pto-to-cpu"],
            "error: two targets in one invocation: a5 (--target a5) and cpu (convert-pto-to-cpu); "
            "an invocation has one target",
        ),
    ],
)
def test_two_targets_are_a_usage_error_naming_both(args, message, tmp_path):
    out_file = tmp_path / "never.pto"
    code, out, err = run_installed("pto-opt", WRAP, *args, "-o", str(out_file))
    assert (code, out, err) == (1, "", message + "\n")
    assert not out_file.exists()


def test_lowered_ir_refuses_another_target(tmp_path):
    lowered = tmp_path / "lowered.pto"
    assert run_installed("pto-opt", WRAP, "-p", "pto-pipeline{target=a5}", "-o", str(lowered))[0] == 0
    for tool in ("pto-opt", "pto-run"):
        code, out, err = run_installed(tool, str(lowered), "--target", "cpu", *(WRAP_INPUTS if tool == "pto-run" else []))
        assert (code, out) == (1, "")
        assert err.startswith(f"{lowered}:")
        assert err.endswith(
            "error: 'pto_a5.mgather_row_simt' op is lowered for a5 and runs on that target only, not on cpu "
            "(--target cpu); give cpu the kernel from before pto-lower\n"
        )
