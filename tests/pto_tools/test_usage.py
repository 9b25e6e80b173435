"""Usage of both CLIs: --version, --help's pass list, one-line usage errors, -p messages, PTOAS flags."""

from importlib.metadata import version

import pytest

from pto_tools import pto_opt, pto_run
from pto_tools.pto_opt import PtoOptMain
from tests.pto_tools.cli import ROOT, call

KERNEL = str(ROOT / "examples" / "embedding_lookup.pto")
PASSES = list(PtoOptMain(args=[]).available_passes)


@pytest.mark.parametrize("main, prog", [(pto_opt.main, "pto-opt"), (pto_run.main, "pto-run")])
def test_version_names_pto_frontend(main, prog, capsys):
    code, out, _ = call(main, ["--version"], capsys)
    assert code == 0
    assert out == f"{prog} (pto-frontend) {version('pto-frontend')}, built on xDSL {version('xdsl')}\n"


def test_help_lists_every_pass_with_a_description_and_its_options(capsys):
    code, out, _ = call(pto_opt.main, ["--help"], capsys)
    assert code == 0
    listing = out.split("passes (-p")[1]
    for name in PASSES:
        line = next(line for line in listing.splitlines() if line.split()[:1] == [name])
        assert len(line.split()) > 3, f"{name} has no description: {line!r}"
    assert "target = one of cpu, a2a3, a5 (or a2, a3) (default: --target, else the module's" in listing
    assert "  live     the first..last op position" in out  # --print-memory-plan's columns


@pytest.mark.parametrize(
    "main, args, message",
    [
        (pto_opt.main, ["--no-such-flag"], "pto-opt: error: unrecognized arguments: --no-such-flag"),
        (pto_opt.main, [KERNEL, "--target", "a7"], "pto-opt: error: argument -t/--target: invalid choice: 'a7'"),
        (pto_run.main, [], "pto-run: error: the following arguments are required"),
        (pto_run.main, [KERNEL, "--target", "a7"], "pto-run: error: argument -t/--target: invalid choice: 'a7'"),
    ],
)
def test_usage_errors_are_one_line_with_exit_code_1(main, args, message, capsys):
    code, out, err = call(main, args, capsys)
    assert code == 1
    assert out == ""
    assert err.startswith(message)
    assert err.count("\n") == 1


def test_unknown_pass_names_the_available_ones(capsys):
    code, _, err = call(pto_opt.main, [KERNEL, "-p", "pto-lower,no-such-pass"], capsys)
    assert code == 1
    assert err == f"error: unknown pass 'no-such-pass'; available: {', '.join(PASSES)}\n"


@pytest.mark.parametrize(
    "pipeline, message",
    [
        ("pto-lower{target=a9}", "pass 'pto-lower': option 'target': unknown target 'a9'; expected one of cpu, a2a3, a2, a3, a5"),
        ("pto-plan-memory{target=7}", "pass 'pto-plan-memory': option 'target': unknown target '7'; expected one of cpu, a2a3, a2, a3, a5"),
        ("pto-lower{tgt=a5}", "pass 'pto-lower' has no option 'tgt'; its options: target"),
        ("pto-ssa-to-dps{target=a5}", "pass 'pto-ssa-to-dps' has no option 'target'; it takes none"),
    ],
)
def test_bad_pass_options_are_named_in_words(pipeline, message, capsys):
    code, _, err = call(pto_opt.main, [KERNEL, "-p", pipeline], capsys)
    assert (code, err) == (1, f"error: {message}\n")


@pytest.mark.parametrize("spelling, lowered", [("a3", "pto_a2a3."), ("a2", "pto_a2a3."), ("a5", "pto_a5."), ("cpu", "pto_cpu.")])
def test_pass_target_option_takes_the_aliases_of_target(spelling, lowered, capsys):
    code, out, err = call(pto_opt.main, [KERNEL, "-p", f"pto-lower{{target={spelling}}}"], capsys)
    assert (code, err) == (0, "")
    assert f"{lowered}mgather_row" in out


def test_pto_arch_is_target(capsys):
    args = [str(ROOT / "examples" / "ssa" / "mgather_rows.pto"), "-p", "pto-pipeline", "--print-memory-plan"]
    _, out_arch, _ = call(pto_opt.main, [*args, "--pto-arch=a5"], capsys)
    _, out_target, _ = call(pto_opt.main, [*args, "--target", "a5"], capsys)
    assert "(target a5)" in out_arch
    assert out_arch == out_target


def test_mlir_print_ir_before_and_after_all_go_to_stderr(capsys):
    pipeline = "pto-ssa-to-dps,pto-plan-memory"
    kernel = str(ROOT / "examples" / "ssa" / "mgather_rows.pto")
    code, out, err = call(pto_opt.main, [kernel, "-p", pipeline, "--mlir-print-ir-after-all"], capsys)
    assert code == 0
    assert [line for line in err.splitlines() if "IR Dump" in line] == [
        "// -----// IR Dump After pto-ssa-to-dps //----- //",
        "// -----// IR Dump After pto-plan-memory //----- //",
    ]
    assert "IR Dump" not in out
    _, _, err = call(pto_opt.main, [kernel, "-p", pipeline, "--mlir-print-ir-before-all"], capsys)
    assert [line for line in err.splitlines() if "IR Dump" in line] == [
        "// -----// IR Dump Before pto-ssa-to-dps //----- //",
        "// -----// IR Dump Before pto-plan-memory //----- //",
    ]
    assert "pto.alloc_tile" not in err.split("IR Dump Before pto-plan-memory")[0]  # still SSA before the first


def test_mlir_print_debuginfo_is_print_debuginfo(capsys):
    _, with_mlir_flag, _ = call(pto_opt.main, [KERNEL, "--mlir-print-debuginfo"], capsys)
    _, with_xdsl_flag, _ = call(pto_opt.main, [KERNEL, "--print-debuginfo"], capsys)
    assert "loc(" in with_mlir_flag
    assert with_mlir_flag == with_xdsl_flag


@pytest.mark.parametrize(
    "flag, why",
    [
        ("--pto-level=level3", "--pto-level is a PTOAS option that pto-opt does not take: pto-opt has no levels"),
        ("--enable-insert-sync", "--enable-insert-sync is a PTOAS option that pto-opt does not take: pto-opt inserts sync with -p pto-insert-sync"),
    ],
)
def test_unsupported_ptoas_flags_say_why_in_one_line(flag, why, capsys):
    code, _, err = call(pto_opt.main, [KERNEL, flag], capsys)
    assert code == 1
    assert err.startswith(f"pto-opt: error: {why}")
    assert err.count("\n") == 1
