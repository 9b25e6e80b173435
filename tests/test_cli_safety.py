"""
The CLIs never lose a user's file and never fail without saying where (issue 13, one test
or more per item), on xDSL's own driver loop (--time-passes, internal errors, PTO_DEBUG),
and read/write standard streams as mlir-opt does (`-`, closed pipes, Ctrl-C).

Most tests call the console-script functions in-process; those about signals, pipes and
standard input run the installed scripts.
"""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pytest

import interpreter
import passes.verify_target
import pto_dialect
from pto_dialect.diagnostics import PtoError
from pto_tools import pto_opt, pto_run
from pto_tools.progress import ProgressBar
from tests.kernel_text import copy_kernel, index_constants

LOCATED = re.compile(r"^[^:\n]+:\d+:\d+: error: ", re.MULTILINE)

COPY_KERNEL = copy_kernel()

GOOD = "func.func @good(%t: !pto.tile_buf<vec, 8x32xf16>) {\n  return\n}\n"
BROKEN = "func.func @broken(%a: i32) {\n  %x = arith.addf %a, %a : i32\n  return\n}\n"


def call(main, *args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Run a console-script function in-process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    saved = {k: os.environ.get(k) for k in env or {}}
    os.environ.update(env or {})
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                main(list(args))
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return code, out.getvalue(), err.getvalue()


def script(name: str) -> str:
    return str(Path(sys.executable).parent / name)


def no_traceback(*texts: str) -> bool:
    return all("Traceback" not in t and "internal error" not in t for t in texts)


def pto_opt_fails(kernel: Path, text: str, *args: str) -> str:
    """Writes `text` to `kernel` and runs pto-opt on it (with `args`): exit 1; returns stderr."""
    kernel.write_text(text)
    code, _, err = call(pto_opt.main, str(kernel), *args)
    assert code == 1, err
    return err


def listing(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


@pytest.fixture
def copy_inputs(tmp_path: Path) -> list[str]:
    kernel = tmp_path / "copy.pto"
    kernel.write_text(COPY_KERNEL)
    np.save(tmp_path / "src.npy", np.arange(8, dtype=np.float32))
    np.save(tmp_path / "dst.npy", np.zeros(8, dtype=np.float32))
    return [str(kernel), str(tmp_path / "src.npy"), str(tmp_path / "dst.npy")]


# -- 1, 2: -o -------------------------------------------------------------------------


def test_output_onto_the_input_keeps_the_kernel(tmp_path):
    kernel = tmp_path / "k.pto"
    kernel.write_text(GOOD)
    code, _, err = call(pto_opt.main, str(kernel), "-o", str(kernel))
    assert code == 0, err
    assert "func.func @good" in kernel.read_text()
    assert pto_dialect.load(kernel)  # the written file is a valid kernel
    assert listing(tmp_path) == ["k.pto"]  # no temporary file left behind


def test_failed_run_leaves_the_output_file_as_it_was(tmp_path):
    broken, keep = tmp_path / "broken.pto", tmp_path / "keep.pto"
    broken.write_text(BROKEN)
    keep.write_text("precious\n")
    code, out, err = call(pto_opt.main, str(broken), "-o", str(keep))
    assert code == 1 and err.startswith(f"{broken}:2:3: error: ")
    assert keep.read_text() == "precious\n"
    assert listing(tmp_path) == ["broken.pto", "keep.pto"]


def test_failed_split_run_writes_no_chunk(tmp_path):
    split, keep = tmp_path / "split.pto", tmp_path / "keep.pto"
    split.write_text(GOOD + "// -----\n" + BROKEN)
    keep.write_text("precious\n")
    code, _, err = call(pto_opt.main, str(split), "--split-input-file", "-o", str(keep))
    assert code == 1 and f"{split}:6:3: error: " in err
    assert keep.read_text() == "precious\n"
    assert listing(tmp_path) == ["keep.pto", "split.pto"]


def test_new_output_file_gets_the_usual_permissions(tmp_path):
    kernel, out = tmp_path / "k.pto", tmp_path / "new.pto"
    kernel.write_text(GOOD)
    assert call(pto_opt.main, str(kernel), "-o", str(out))[0] == 0
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask


# -- 3, 4: pto-run --out ------------------------------------------------------------------


def test_run_outputs_appear_together(copy_inputs, tmp_path):
    out = tmp_path / "out"
    code, _, err = call(pto_run.main, *copy_inputs, "--out", str(out))
    assert code == 0, err
    assert listing(out) == ["arg0.npy", "arg1.npy"]
    assert np.array_equal(np.load(out / "arg1.npy"), np.arange(8, dtype=np.float32))


def test_run_interrupted_while_writing_leaves_no_output(copy_inputs, tmp_path, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    (out / "arg0.npy").write_bytes(b"old")
    saves = []

    def save_then_interrupt(file, array):
        saves.append(array)
        if len(saves) == 2:
            raise KeyboardInterrupt  # as a Ctrl-C (or a kill) in the middle of the second file
        np.lib.format.write_array(file, np.asanyarray(array))

    monkeypatch.setattr(pto_run.np, "save", save_then_interrupt)
    code, out_text, err = call(pto_run.main, *copy_inputs, "--out", str(out))
    assert code == 130 and err == "" and out_text == ""
    assert listing(out) == ["arg0.npy"]
    assert (out / "arg0.npy").read_bytes() == b"old"


def test_run_failing_on_one_output_writes_none(copy_inputs, tmp_path):
    out = tmp_path / "out"
    (out / "arg1.npy").mkdir(parents=True)
    code, _, err = call(pto_run.main, *copy_inputs, "--out", str(out))
    assert code == 1 and no_traceback(err)
    assert err == f"{out / 'arg1.npy'}: error: cannot open: Is a directory\n"
    assert listing(out) == ["arg1.npy"]  # arg0.npy was not written either


def test_run_out_names_a_file(copy_inputs, tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("x")
    code, _, err = call(pto_run.main, *copy_inputs, "--out", str(afile))
    assert code == 1 and err == f"{afile}: error: --out names a file; expected a directory\n"
    assert afile.read_text() == "x"


def test_run_out_cannot_be_created(copy_inputs):
    code, _, err = call(pto_run.main, *copy_inputs, "--out", "/dev/null/sub")
    assert code == 1 and err == "/dev/null/sub: error: cannot create the --out directory: Not a directory\n"


# -- 5: deep nesting ------------------------------------------------------------------------


def nested_ifs(depth: int) -> str:
    return "func.func @f(%c: i1) {\n" + "  scf.if %c {\n" * depth + "  }\n" * depth + "  return\n}\n"


def nested_kinds(depth: int) -> dict[str, str]:
    return {
        "scf.for": (
            "func.func @f(%n: index) {\n" + "".join(f"  scf.for %i{k} = %n to %n step %n {{\n" for k in range(depth))
            + "  }\n" * depth + "  return\n}\n"
        ),
        "section": (
            "func.func @f() {\n" + "  pto.section.vector {\n" * depth + "  }\n" * depth + "  return\n}\n"
        ),
        "module": "module {\n" * depth + "}\n" * depth,
        "parentheses": "func.func @f() -> " + "(" * depth + "i32" + ")" * depth + " {\n  return\n}\n",
        "array": "func.func @f() attributes {a = " + "[" * depth + "]" * depth + "} {\n  return\n}\n",
        "type": "func.func @f(%a: " + "tuple<" * depth + "i32" + ">" * depth + ") {\n  return\n}\n",
    }


def test_150_nested_regions_parse(tmp_path):
    kernel = tmp_path / "deep.pto"
    kernel.write_text(nested_ifs(150))
    code, out, err = call(pto_opt.main, str(kernel))
    assert code == 0, err
    assert out.count("scf.if") == 150


@pytest.mark.parametrize("kind", sorted(nested_kinds(1)))
def test_too_deep_nesting_is_a_located_error(kind, tmp_path):
    kernel = tmp_path / "deep.pto"
    err = pto_opt_fails(kernel, nested_kinds(3000)[kind])
    assert no_traceback(err)
    assert re.match(rf"{re.escape(str(kernel))}:\d+:\d+: error: nesting too deep to parse", err), err


def test_too_deep_chunk_does_not_stop_the_others(tmp_path):
    kernel = tmp_path / "deep.pto"
    kernel.write_text(nested_ifs(3000) + "// -----\n" + GOOD)
    code, out, _ = call(pto_opt.main, str(kernel), "--split-input-file", "--verify-diagnostics")
    assert code == 0
    assert "error: nesting too deep to parse" in out and "func.func @good" in out


# -- 6: use before definition ------------------------------------------------------------


ALLOC = "  %t = pto.alloc_tile : !pto.tile_buf<vec, 1x8xf32>\n"
USE_BEFORE_DEF = COPY_KERNEL.replace(ALLOC, "").replace("  return\n", ALLOC + "  return\n")


def test_use_before_definition_is_located(tmp_path):
    kernel = tmp_path / "ubd.pto"
    err = pto_opt_fails(kernel, USE_BEFORE_DEF)
    assert err.startswith(
        f"{kernel}:9:3: error: 'pto.tload' op operand #1 does not dominate this use "
        f"(%t is defined at {kernel}:11:3)"
    ), err


def test_use_before_definition_in_pto_run(tmp_path, copy_inputs):
    kernel = tmp_path / "ubd.pto"
    kernel.write_text(USE_BEFORE_DEF)
    code, _, err = call(pto_run.main, str(kernel), *copy_inputs[1:])
    assert code == 1 and no_traceback(err)
    assert err.startswith(f"{kernel}:9:3: error: 'pto.tload' op operand #1 does not dominate this use"), err


def test_use_in_nested_region_of_a_later_value(tmp_path):
    kernel = tmp_path / "k.pto"
    err = pto_opt_fails(
        kernel,
        "func.func @f(%c: i1) {\n  scf.if %c {\n    %y = arith.addi %x, %x : i32\n  }\n"
        "  %x = arith.constant 1 : i32\n  return\n}\n",
    )
    assert err.startswith(f"{kernel}:3:5: error: 'arith.addi' op operand #0 does not dominate"), err


# -- 7: duplicate symbols ------------------------------------------------------------------


@pytest.mark.parametrize("wrap", [False, True])
def test_duplicate_symbol_is_located_at_the_second(wrap, tmp_path):
    body = "func.func @a() {\n  return\n}\nfunc.func @a() {\n  return\n}\n"
    kernel = tmp_path / "dup.pto"
    err = pto_opt_fails(kernel, "module {\n" + body + "}\n" if wrap else body)
    line = 5 if wrap else 4
    assert err.startswith(
        f"{kernel}:{line}:1: error: 'func.func' op redefinition of symbol named 'a' "
        f"(first defined at {kernel}:{line - 3}:1)"
    ), err


# -- 8: invalid UTF-8 ----------------------------------------------------------------------


@pytest.mark.parametrize("tool", ["pto-opt", "pto-run"])
def test_invalid_utf8_is_located(tool, tmp_path):
    kernel = tmp_path / "bad.pto"
    kernel.write_bytes(GOOD.encode().replace(b"return", b"ret\xffurn"))
    main = pto_opt.main if tool == "pto-opt" else pto_run.main
    code, _, err = call(main, str(kernel))
    assert code == 1 and err.startswith(f"{kernel}:2:6: error: input is not valid UTF-8"), err


# -- 9: corrupt .npy headers ---------------------------------------------------------------


def npy_with_header(header: str) -> bytes:
    text = header.ljust(118 - 10 - 1) + "\n"
    return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text.encode("latin1")


def test_npy_header_with_unclosed_shape(copy_inputs, tmp_path):
    bad = tmp_path / "bad.npy"
    bad.write_bytes(npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (8, }"))
    code, _, err = call(pto_run.main, copy_inputs[0], copy_inputs[1], str(bad))
    assert code == 1 and no_traceback(err)
    assert err.startswith(f"{bad}: error: not a .npy array file"), err


def test_npy_header_larger_than_the_file(copy_inputs, tmp_path):
    bad = tmp_path / "huge.npy"
    bad.write_bytes(npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000000), }") + b"\0" * 32)
    start = time.monotonic()
    code, _, err = call(pto_run.main, copy_inputs[0], copy_inputs[1], str(bad))
    assert code == 1 and time.monotonic() - start < 30
    assert err == (
        f"{bad}: error: the header declares shape (1000000, 1000000) of float32 (4000000000000 bytes) "
        "but the file holds 32 bytes of data\n"
    )


def test_npy_of_python_objects(copy_inputs, tmp_path):
    bad = tmp_path / "objects.npy"
    np.save(bad, np.array([1, "x", None], dtype=object), allow_pickle=True)
    code, _, err = call(pto_run.main, copy_inputs[0], copy_inputs[1], str(bad))
    assert code == 1 and err.startswith(f"{bad}: error: the array holds Python objects"), err


# -- 10: --split-input-file markers ----------------------------------------------------------


def test_split_only_on_a_marker_line(tmp_path):
    kernel = tmp_path / "split.pto"
    kernel.write_text(
        "func.func @a() attributes {note = \"x // ----- y\"} {  // ----- mid-line\n  return\n}\n"
        "// ------ a longer rule is a comment\n"
        "// -----   \n"
        "func.func @b(%a: i32) {\n  %x = arith.addf %a, %a : i32\n  return\n}\n"
    )
    code, out, err = call(pto_opt.main, str(kernel), "--split-input-file")
    assert code == 1
    assert out.splitlines().count("// -----") == 1 and "func.func @a()" in out  # two chunks, the first intact
    assert err.startswith(f"{kernel}:7:3: error: "), err  # the line in the whole file


def test_split_keeps_the_file_columns(tmp_path):
    kernel = tmp_path / "split.pto"
    line = 'func.func @b(%a: i32) attributes {s = "// -----"} { %x = arith.addf %a, %a : i32'
    err = pto_opt_fails(kernel, GOOD + "// -----\n" + line + "\n  return\n}\n", "--split-input-file")
    assert err.startswith(f"{kernel}:5:{line.index('%x') + 1}: error: "), err


# -- 11: Ctrl-C and the progress bar ------------------------------------------------------------

SPIN_KERNEL = f"""\
func.func @spin(%ids: !pto.ptr<i32>) {{
{index_constants(0, 1, 8)}
  %trips = arith.constant 1000000000 : index
  %v = pto.make_tensor_view %ids, shape = [%c1, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xi32>
  %p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<?x?xi32>
  %t = pto.alloc_tile : !pto.tile_buf<vec, 1x8xi32>
  scf.for %i = %c0 to %trips step %c1 {{
    pto.tload ins(%p : !pto.partition_tensor_view<1x8xi32>) outs(%t : !pto.tile_buf<vec, 1x8xi32>)
    pto.tstore ins(%t : !pto.tile_buf<vec, 1x8xi32>) outs(%p : !pto.partition_tensor_view<1x8xi32>)
  }}
  return
}}
"""


def _wait_for_cpu_seconds(pid: int, seconds: float) -> None:
    """Until process `pid` has used `seconds` of CPU (Linux's /proc/PID/stat: utime, stime in clock ticks)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        if (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK") >= seconds:
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} did not use {seconds} s of CPU in 120 s")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process's CPU time from /proc")
def test_ctrl_c_exits_130_quietly_without_outputs(tmp_path):
    kernel = tmp_path / "spin.pto"
    kernel.write_text(SPIN_KERNEL)
    np.save(tmp_path / "ids.npy", np.zeros(8, dtype=np.int32))
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [script("pto-run"), str(kernel), str(tmp_path / "ids.npy"), "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    _wait_for_cpu_seconds(proc.pid, 2.0)  # past its imports (~0.5 s of CPU) and in the loop, however busy the machine
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert (proc.returncode, stdout, stderr) == (130, "", "")
    assert not out.exists()


def test_ctrl_c_in_pto_opt_writes_nothing(tmp_path, monkeypatch):
    kernel, keep = tmp_path / "k.pto", tmp_path / "keep.pto"
    kernel.write_text(GOOD)
    keep.write_text("precious\n")

    def interrupted(*_args):
        raise KeyboardInterrupt

    monkeypatch.setattr(passes.verify_target, "verify_target", interrupted)
    code, out, err = call(pto_opt.main, str(kernel), "-o", str(keep))
    assert (code, out, err) == (130, "", "")
    assert keep.read_text() == "precious\n" and listing(tmp_path) == ["k.pto", "keep.pto"]


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_shows_the_outer_loop(tmp_path):
    kernel = tmp_path / "spin.pto"
    kernel.write_text(SPIN_KERNEL.replace("1000000000", "3000"))
    terminal = FakeTerminal()
    with ProgressBar.on_terminal(quiet=False, stream=terminal) as progress:
        (bar,) = progress.listeners
        bar.next_draw = 0.0  # as if the run had lasted a couple of seconds already
        interpreter.run(str(kernel), "a2a3", [np.zeros(8, dtype=np.int32)], listeners=progress.listeners)
    shown = terminal.getvalue()
    assert re.search(rf"pto-run: \[[#.]{{30}}\] +\d+% of the loop at {re.escape(str(kernel))}:9:3 \(\d+/3000\)", shown)
    assert shown.endswith("\r\x1b[K")  # the line is cleared at the end


def test_no_progress_bar_when_quiet_or_not_a_terminal():
    assert ProgressBar.on_terminal(quiet=True, stream=FakeTerminal()).listeners == ()
    assert ProgressBar.on_terminal(quiet=False, stream=io.StringIO()).listeners == ()


# -- 12: Python API errors ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (dict(args=None), "error: run() takes args as a list or tuple with one array per function argument, got NoneType"),
        (dict(args=(a for a in ())), "got generator"),
        (dict(args=[[[1.0, 2.0], [3.0]], np.zeros(8, np.float32)]), "error: args[0] is not a rectangular array"),
        (dict(args=[np.zeros(8, np.float32)] * 2, target="a7"), "error: unknown target 'a7'; expected one of cpu, a2a3, a2, a3, a5"),
    ],
)
def test_api_errors_say_what_was_expected(kwargs, message, copy_inputs):
    with pytest.raises(PtoError, match=re.escape(message)):
        interpreter.run(copy_inputs[0], **kwargs)


def test_api_mlir_text_given_as_a_path():
    with pytest.raises(PtoError, match=re.escape("use pto_dialect.parse(text)")):
        interpreter.run(GOOD)
    assert pto_dialect.parse(GOOD)


def test_api_missing_file(tmp_path):
    with pytest.raises(PtoError, match=re.escape(f"{tmp_path / 'no.pto'}: error: cannot open")):
        pto_dialect.load(tmp_path / "no.pto")


# -- 13: size limits ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "loc,shape,target,capacity,memory",
    [
        ("acc", "61440x61440xf32", "a2a3", 131072, "L0C"),  # ~15 GB
        ("acc", "256x256xf32", "a2a3", 131072, "L0C"),
        ("left", "256x256xf16", "a5", 65536, "L0A"),
        ("right", "256x256xf16", "cpu", 65536, "L0B"),
        ("bias", "1x32768xf32", "a5", 65536, "BT"),
        ("scaling", "1x65536xf32", "a2a3", 196608, "FB"),
        ("vec", "1x65536xf32", "a5", 253952, "UB"),
    ],
)
def test_tile_larger_than_its_memory(loc, shape, target, capacity, memory, tmp_path):
    kernel = tmp_path / "big.pto"
    text = f"func.func @big() {{\n  %a = pto.alloc_tile : !pto.tile_buf<{loc}, {shape}>\n  return\n}}\n"
    err = pto_opt_fails(kernel, text, "--target", target)
    assert re.match(
        rf"{re.escape(str(kernel))}:2:3: error: 'pto.alloc_tile' op {loc} tile of \d+ bytes exceeds the "
        rf"{capacity} bytes of {memory} \(target {target}\)$",
        err,
    ), err


def test_acc_tile_that_fits_on_a5_only(tmp_path):
    kernel = tmp_path / "acc.pto"
    kernel.write_text("func.func @k() {\n  %a = pto.alloc_tile : !pto.tile_buf<acc, 256x256xf32>\n  return\n}\n")
    assert call(pto_opt.main, str(kernel), "--target", "a5")[0] == 0
    assert call(pto_opt.main, str(kernel), "--target", "a2a3")[0] == 1


# -- issue 10 item 7: xDSL's driver ------------------------------------------------------------


def test_time_passes(tmp_path):
    kernel = tmp_path / "k.pto"
    kernel.write_text(COPY_KERNEL)
    code, out, err = call(pto_opt.main, str(kernel), "-p", "pto-verify-target,pto-lower", "--time-passes")
    assert code == 0, err
    assert re.search(r"^Pass pto-verify-target took [\d.e-]+ seconds$", out, re.MULTILINE)
    assert re.search(r"^Pass pto-lower took [\d.e-]+ seconds$", out, re.MULTILINE)


def test_internal_error_is_one_line_and_pto_debug_shows_the_traceback(tmp_path, monkeypatch):
    kernel = tmp_path / "k.pto"
    kernel.write_text(GOOD)

    def bug(*_args):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(passes.verify_target, "verify_target", bug)
    code, out, err = call(pto_opt.main, str(kernel))
    assert code == 1 and out == ""
    assert err == (
        f"{kernel}: error: internal error: ZeroDivisionError: division by zero (PTO_DEBUG=1 shows the traceback)\n"
    )
    code, _, err = call(pto_opt.main, str(kernel), env={"PTO_DEBUG": "1"})
    assert code == 1 and err.startswith("Traceback (most recent call last):") and "in bug" in err
    assert err.endswith("(PTO_DEBUG=1 shows the traceback)\n")


def test_located_error_is_an_xdsl_diagnostic():
    from xdsl.utils.exceptions import DiagnosticException

    assert issubclass(PtoError, DiagnosticException)


# -- issue 14: standard streams ------------------------------------------------------------------


def test_dash_reads_stdin_and_writes_stdout():
    proc = subprocess.run(
        [script("pto-opt"), "-", "-o", "-"], input=GOOD, capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0 and "func.func @good" in proc.stdout, proc.stderr
    proc = subprocess.run([script("pto-opt"), "-"], input=BROKEN, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 1 and proc.stderr.startswith("<stdin>:2:3: error: "), proc.stderr


def test_closed_pipe_ends_quietly(tmp_path):
    kernel = tmp_path / "many.pto"
    kernel.write_text("".join(f"func.func @f{i}() {{\n  return\n}}\n" for i in range(2000)))
    proc = subprocess.Popen([script("pto-opt"), str(kernel)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # as `| head` does once it has its lines
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1
    assert stderr == ""
