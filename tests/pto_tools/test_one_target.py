"""One invocation, one target (issue 18, items 1 and 2), through the commands' main functions, in-process (tests/pto_tools/cli.py run_in_process):
pto-opt writes the target it was given back into the module it prints (as PTOAS does), so
the printed kernel runs for that target; a pass option that names a target is the target of
the parse-time verification too; two different targets are a usage error; pto-run says on
its first line which target it ran and why."""

from __future__ import annotations

import numpy as np
import pytest

from tests.pto_tools.cli import ROOT, run_in_process

DATA = ROOT / "examples" / "data"
WRAP = str(ROOT / "examples" / "embedding_wrap.pto")
WRAP_INPUTS = [str(DATA / f"wrap_{name}.npy") for name in ("table", "ids", "out")]

# rows of the wrap example's table read for its ids (docs/instructions.md, MGATHER): the id as
# an unsigned number of the target's index width, modulo the target's row capacity
INDEX_BITS_AND_CAPACITY = {"cpu": (64, 7), "a2a3": (32, 14), "a5": (32, 7)}


def wrap_rows(target: str) -> list[int]:
    bits, capacity = INDEX_BITS_AND_CAPACITY[target]
    return [(int(i) + (1 << bits)) % (1 << bits) % capacity for i in np.load(DATA / "wrap_ids.npy")]


# mask-form TGATHER of fp8 data: a5 only (a2a3 takes 2- and 4-byte data, cpu has no fp8)
A5_ONLY = """\
func.func @a5_only(%s: !pto.tile_buf<vec, 8x64xf8E4M3FN>, %d: !pto.tile_buf<vec, 8x32xf8E4M3FN>) {
  pto.tgather ins(%s, {maskPattern = #pto.mask_pattern<P0101>} : !pto.tile_buf<vec, 8x64xf8E4M3FN>, "row") outs(%d : !pto.tile_buf<vec, 8x32xf8E4M3FN>)
  return
}
"""


@pytest.mark.parametrize("target", ["cpu", "a5", "a2a3"])
def test_printed_kernel_runs_for_the_target_it_was_printed_for(target, tmp_path):
    printed = tmp_path / "k.pto"
    assert run_in_process("pto-opt", WRAP, "--target", target, "-o", str(printed))[0] == 0
    assert f'attributes {{pto.target_arch = "{target}"}}' in printed.read_text().splitlines()[0]
    code, out, err = run_in_process("pto-run", str(printed), "--out", str(tmp_path / "out"), *WRAP_INPUTS)
    assert (code, err) == (0, "")
    assert out == f'target: {target} (the module\'s pto.target_arch = "{target}")\n'
    expected = np.repeat(np.array(wrap_rows(target), np.float32), 8)
    np.testing.assert_array_equal(np.load(tmp_path / "out" / "arg2.npy"), expected)


def test_pass_option_target_is_written_back_and_an_alias_becomes_its_name(tmp_path):
    printed = tmp_path / "k.pto"
    assert run_in_process("pto-opt", WRAP, "-p", "pto-verify-target{target=a3}", "-o", str(printed))[0] == 0
    assert printed.read_text().startswith('builtin.module attributes {pto.target_arch = "a2a3"} {')


def test_without_a_named_target_the_module_keeps_its_attributes(tmp_path):
    code, out, _ = run_in_process("pto-opt", WRAP)
    assert code == 0 and "pto.target_arch" not in out
    kernel = tmp_path / "k.pto"
    kernel.write_text(open(WRAP).read().replace("module {", 'module attributes {pto.target_arch = "a3"} {', 1))
    code, out, _ = run_in_process("pto-opt", str(kernel))
    assert code == 0 and out.startswith('builtin.module attributes {pto.target_arch = "a3"} {')


@pytest.mark.parametrize(
    "flags, why",
    [
        (["--target", "a5"], "--target a5"),
        (["--target", "a3"], "--target a3"),
        ([], "the default: the module names no target"),
    ],
)
def test_pto_run_first_line_says_which_target_and_why(flags, why):
    code, out, err = run_in_process("pto-run", WRAP, *flags, *WRAP_INPUTS)
    assert (code, err) == (0, "")
    target = "a5" if "a5" in flags else "a2a3"
    assert out.splitlines()[0] == f"target: {target} ({why})"


@pytest.mark.parametrize(
    "header, line",
    [
        ('module attributes {pto.target_arch = "A5"} {', 'target: a5 (the module\'s pto.target_arch = "A5")'),
        (
            'module attributes {pto.target_arch = "a9"} {',
            'target: a2a3 (the module\'s pto.target_arch = "a9", not a target name: a2a3, as in PTOAS)',
        ),
        (
            'module attributes {"pto.device-spec" = "Ascend950PR_9599"} {',
            'target: a5 (the module\'s pto.device-spec = "Ascend950PR_9599")',
        ),
    ],
)
def test_pto_run_names_the_module_attribute_it_followed(header, line, tmp_path):
    kernel = tmp_path / "k.pto"
    kernel.write_text(open(WRAP).read().replace("module {", header, 1))
    code, out, err = run_in_process("pto-run", str(kernel), *WRAP_INPUTS)
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == line


def test_pto_run_of_lowered_ir_names_the_target_it_is_lowered_for(tmp_path):
    lowered = tmp_path / "lowered.pto"
    assert run_in_process("pto-opt", WRAP, "-p", "pto-pipeline{target=cpu}", "-o", str(lowered))[0] == 0
    code, out, err = run_in_process("pto-run", str(lowered), *WRAP_INPUTS)
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == "target: cpu (the kernel is lowered for cpu)"


def test_pass_option_target_verifies_the_parsed_kernel(tmp_path):
    kernel = tmp_path / "a5_only.pto"
    kernel.write_text(A5_ONLY)
    code, _, err = run_in_process("pto-opt", str(kernel))
    assert code == 1 and "(target a2a3)" in err  # the default verifies for a2a3, which refuses it
    code, out, err = run_in_process("pto-opt", str(kernel), "-p", "pto-lower{target=a5}")
    assert (code, err) == (0, "")
    assert out.startswith('builtin.module attributes {pto.target_arch = "a5"} {')
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
    code, out, err = run_in_process("pto-opt", WRAP, *args, "-o", str(out_file))
    assert (code, out, err) == (1, "", message + "\n")
    assert not out_file.exists()


def test_lowered_ir_refuses_another_target(tmp_path):
    lowered = tmp_path / "lowered.pto"
    assert run_in_process("pto-opt", WRAP, "-p", "pto-pipeline{target=a5}", "-o", str(lowered))[0] == 0
    for tool in ("pto-opt", "pto-run"):
        code, out, err = run_in_process(tool, str(lowered), "--target", "cpu", *(WRAP_INPUTS if tool == "pto-run" else []))
        assert (code, out) == (1, "")
        assert err.startswith(f"{lowered}:")
        assert err.endswith(
            "error: 'pto_a5.mgather_row_simt' op is lowered for a5 and runs on that target only, not on cpu "
            "(--target cpu); give cpu the kernel from before pto-lower\n"
        )
