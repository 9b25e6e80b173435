"""Where pto-opt's side outputs go, and what its output-form errors say."""

from pto_tools import pto_opt
from tests.pto_tools.cli import ROOT, call

SSA = str(ROOT / "examples" / "ssa" / "mgather_rows.pto")


def test_memory_plan_never_enters_the_output_file(tmp_path, capsys):
    written = tmp_path / "out.pto"
    code, out, _ = call(pto_opt.main, [SSA, "--target", "a5", "-p", "pto-pipeline", "--print-memory-plan", "-o", str(written)], capsys)
    assert code == 0
    assert "memory plan" not in written.read_text()
    assert out.startswith("\n// memory plan of @mgather_rows (target a5)\n\n// | tile | space | bytes | address | live |")
    assert call(pto_opt.main, [str(written), "--target", "a5"], capsys)[:3:2] == (0, "")


def test_memory_plan_after_the_module_still_parses(tmp_path, capsys):
    code, out, _ = call(pto_opt.main, [SSA, "--target", "a5", "-p", "pto-pipeline", "--print-memory-plan"], capsys)
    assert code == 0
    assert "// peak UB use: 544 of 131072 bytes" in out
    (tmp_path / "redirected.pto").write_text(out)
    assert call(pto_opt.main, [str(tmp_path / "redirected.pto"), "--target", "a5"], capsys)[:3:2] == (0, "")


def test_to_asm_on_a_whole_kernel_says_how_to_fit_the_form(capsys):
    kernel = str(ROOT / "examples" / "embedding_rows.pto")
    code, _, err = call(pto_opt.main, [kernel, "--to=asm"], capsys)
    assert code == 1
    assert err == (
        f"{kernel}:11:5: error: 'arith.constant' op has no PTO assembly form (the form writes SSA instructions "
        "such as mgather, mscatter, tgather); to print instructions (here: line 24), put them in a func.func that "
        "takes their operands as arguments and holds nothing else (examples/embedding_rows.ptoasm is such a "
        "function of examples/embedding_rows.pto)\n"
    )


def test_to_cpp_on_an_ssa_kernel_names_the_pipeline_to_run_first(capsys):
    code, _, err = call(pto_opt.main, [SSA, "--to=cpp"], capsys)
    assert code == 1
    assert err.endswith(
        "C++ emission takes DPS instructions on tile buffers: "
        "run -p pto-ssa-to-dps,pto-materialize-implicit-tmp,pto-plan-memory,pto-emit-cpp\n"
    )
    code, out, _ = call(pto_opt.main, [SSA, "-p", "pto-ssa-to-dps,pto-materialize-implicit-tmp,pto-plan-memory,pto-emit-cpp"], capsys)
    assert code == 0
    assert "MGATHER<Coalesce::Row" in out
