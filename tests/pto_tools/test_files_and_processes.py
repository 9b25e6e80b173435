"""
Issue 30, "Files and processes": outputs written through symlinks, FIFOs and devices; write
failures (a full disk) named and fatal; inputs that are not regular files read within
bounds and never waited on for ever; `.npy` headers checked here, f8E5M2 arrays as np.save
writes them; no program run from PATH.
"""

from __future__ import annotations

import io
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import pto_dialect.files
from pto_tools import pto_opt, pto_run
from pto_tools.outputs import NamedOutput
from tests.kernel_text import copy_kernel
from tests.pto_tools.cli import ROOT, call

GOOD = "func.func @good(%t: !pto.tile_buf<vec, 8x32xf16>) {\n  return\n}\n"
SCRIPTS = Path(sys.executable).parent


@pytest.fixture
def kernel(tmp_path: Path) -> Path:
    path = tmp_path / "k.pto"
    path.write_text(GOOD)
    return path


@pytest.fixture
def copy_inputs(tmp_path: Path) -> list[str]:
    kernel = tmp_path / "copy.pto"
    kernel.write_text(copy_kernel())
    np.save(tmp_path / "src.npy", np.arange(8, dtype=np.float32))
    np.save(tmp_path / "dst.npy", np.zeros(8, dtype=np.float32))
    return [str(kernel), str(tmp_path / "src.npy"), str(tmp_path / "dst.npy")]


@pytest.fixture
def short_fifo_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pto_dialect.files, "FIFO_WAIT_SECONDS", 0.2)


def read_fifo_in_background(fifo: Path) -> list[bytes]:
    """Start a reader of `fifo`; the list gets what it read once the writer closed it."""
    got: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as f:
            got.append(f.read())

    threading.Thread(target=read, daemon=True).start()
    return got


def write_fifo_in_background(fifo: Path, data: bytes) -> threading.Thread:
    def write() -> None:
        with open(fifo, "wb") as f:
            f.write(data)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


# -- -o through what is not a regular file ---------------------------------------------------


def test_output_through_a_symlink_writes_its_target(kernel, tmp_path, capsys):
    target = tmp_path / "target.mlir"
    target.write_text("old")
    link = tmp_path / "link.mlir"
    link.symlink_to(target)
    code, _, err = call(pto_opt.main, [str(kernel), "-o", str(link)], capsys)
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert "func.func @good" in target.read_text()


def test_output_to_a_fifo_writes_into_it(kernel, tmp_path, capsys):
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got = read_fifo_in_background(fifo)
    code, _, err = call(pto_opt.main, [str(kernel), "-o", str(fifo)], capsys)
    assert code == 0, err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    for _ in range(100):
        if got:
            break
        threading.Event().wait(0.05)
    assert got and b"func.func @good" in got[0]


def test_no_named_temporary_file_while_a_run_writes(copy_inputs, tmp_path, monkeypatch, capsys):
    """A run killed while writing its outputs leaves nothing behind: until every output is
    written, the output folder shows no new name."""
    out = tmp_path / "out"
    out.mkdir()
    seen = []

    def save_and_look(file, array):
        seen.append(sorted(p.name for p in out.iterdir()))
        np.lib.format.write_array(file, np.asanyarray(array))

    monkeypatch.setattr(pto_run.np, "save", save_and_look)
    code, _, err = call(pto_run.main, [*copy_inputs, "--out", str(out)], capsys)
    assert code == 0, err
    assert seen == [[], []]
    assert sorted(p.name for p in out.iterdir()) == ["arg0.npy", "arg1.npy"]


# -- write failures name the output -----------------------------------------------------------


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_output_to_a_full_device_names_it(kernel, capsys):
    code, _, err = call(pto_opt.main, [str(kernel), "-o", "/dev/full"], capsys)
    assert code == 1
    assert err == "/dev/full: error: cannot write: No space left on device\n"
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize(("tool", "version"), [("pto-opt", False), ("pto-run", False), ("pto-opt", True), ("pto-run", True)])
def test_standard_output_on_a_full_disk_is_an_error(tool, version, copy_inputs):
    args = ["--version"] if version else copy_inputs[: 1 if tool == "pto-opt" else 3]
    with open("/dev/full", "w") as full:
        done = subprocess.run([str(SCRIPTS / tool), *args],
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=120, check=False)
    assert done.returncode == 1
    assert done.stderr == "<stdout>: error: cannot write: No space left on device\n"


def test_a_short_write_is_named_in_words():
    """NumPy's own wording of a short write ("65536 requested and 10176 written", no errno)
    is not a message: the output's write error says what happened, naming the output."""
    class ShortWrites(io.BytesIO):
        def write(self, data):
            raise OSError("65536 requested and 10176 written")

    with pytest.raises(OSError) as caught:
        NamedOutput(ShortWrites(), "out/arg0.npy").write(b"x")
    assert (caught.value.filename, caught.value.strerror) == ("out/arg0.npy", "the write was cut short (is the file system full?)")


# -- inputs that are not regular files --------------------------------------------------------


def test_a_kernel_fifo_nobody_writes_is_given_up_on(tmp_path, short_fifo_wait, capsys):
    fifo = tmp_path / "k.pto"
    os.mkfifo(fifo)
    code, _, err = call(pto_opt.main, [str(fifo)], capsys)
    assert code == 1
    assert err == f"{fifo}: error: cannot read: a FIFO nothing was written to in 0.2 s (no writer?)\n"


def test_a_kernel_from_a_fifo_is_read(tmp_path, short_fifo_wait, capsys):
    fifo = tmp_path / "k.pto"
    os.mkfifo(fifo)
    write_fifo_in_background(fifo, GOOD.encode())
    code, out, err = call(pto_opt.main, [str(fifo)], capsys)
    assert code == 0, err
    assert "func.func @good" in out


@pytest.mark.parametrize("main", [pto_opt.main, pto_run.main])
def test_an_endless_kernel_is_refused_at_the_bound(main, capsys):
    code, _, err = call(main, ["/dev/zero"], capsys)
    assert code == 1
    assert err == "/dev/zero: error: cannot read: larger than the 64 MiB a kernel may be\n"


def test_a_piped_npy_is_read(copy_inputs, tmp_path, short_fifo_wait, capsys):
    fifo = tmp_path / "src.fifo"
    os.mkfifo(fifo)
    with open(copy_inputs[1], "rb") as f:
        write_fifo_in_background(fifo, f.read())
    out = tmp_path / "out"
    code, _, err = call(pto_run.main, [copy_inputs[0], str(fifo), copy_inputs[2], "--out", str(out)], capsys)
    assert code == 0, err
    assert np.array_equal(np.load(out / "arg1.npy"), np.arange(8, dtype=np.float32))


def test_an_npy_fifo_nobody_writes_names_it(copy_inputs, tmp_path, short_fifo_wait, capsys):
    fifo = tmp_path / "src.fifo"
    os.mkfifo(fifo)
    code, _, err = call(pto_run.main, [copy_inputs[0], str(fifo), copy_inputs[2]], capsys)
    assert code == 1
    assert err == f"{fifo}: error: cannot read: a FIFO nothing was written to in 0.2 s (no writer?)\n"


def test_an_npy_device_is_read_no_further_than_its_header_says(copy_inputs, capsys):
    """/dev/zero fails at its first bytes (not after reading the 1 GiB bound)."""
    code, _, err = call(pto_run.main, [copy_inputs[0], "/dev/zero", copy_inputs[2]], capsys)
    assert (code, err) == (1, "/dev/zero: error: not a .npy array file (it does not start with the .npy magic string)\n")


@pytest.mark.parametrize(("tail", "message"), [
    (b"\0" * 4, "the header declares shape (8,) of float32 (32 bytes) but more data follows it"),
    (None, "the header declares shape (8,) of float32 (32 bytes) but the file holds 12 bytes of data"),
])
def test_a_piped_npy_holds_what_its_header_declares(copy_inputs, tmp_path, short_fifo_wait, capsys, tail, message):
    data = Path(copy_inputs[1]).read_bytes()
    fifo = tmp_path / "src.fifo"
    os.mkfifo(fifo)
    write_fifo_in_background(fifo, data + tail if tail is not None else data[:-20])
    code, _, err = call(pto_run.main, [copy_inputs[0], str(fifo), copy_inputs[2]], capsys)
    assert (code, err) == (1, f"{fifo}: error: {message}\n")


def test_a_piped_npy_larger_than_the_bound_is_refused_at_its_header(copy_inputs, tmp_path, short_fifo_wait, capsys):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000,), }"
    fifo = tmp_path / "src.fifo"
    os.mkfifo(fifo)
    write_fifo_in_background(fifo, b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode())
    code, _, err = call(pto_run.main, [copy_inputs[0], str(fifo), copy_inputs[2]], capsys)
    assert (code, err) == (1, f"{fifo}: error: the header declares shape (1000000000,) of float32 (4000000000 bytes), "
                              "more than the 1 GiB an array read from a pipe may be\n")


# -- .npy headers --------------------------------------------------------------------------


def test_a_python_2_header_is_an_error_without_a_warning(copy_inputs, tmp_path, capsys):
    """NumPy reads it with a UserWarning pointing into our source; here it is refused, named."""
    text = "{'descr': '<f4', 'fortran_order': False, 'shape': (8L,), }"
    bad = tmp_path / "py2.npy"
    bad.write_bytes(b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text.encode("latin1"))
    code, _, err = call(pto_run.main, [copy_inputs[0], str(bad), copy_inputs[2]], capsys)
    assert code == 1
    assert err.startswith(f"{bad}: error: not a .npy array file ("), err
    assert "Warning" not in err and err.count("\n") == 1


def test_an_f8e5m2_array_saved_by_numpy_runs(tmp_path, capsys):
    kernel = tmp_path / "copy.pto"
    kernel.write_text(copy_kernel("f8E5M2", cols=32))
    values = np.linspace(-4, 4, 32, dtype=np.float32).astype(ml_dtypes.float8_e5m2)
    np.save(tmp_path / "src.npy", values)
    np.save(tmp_path / "dst.npy", np.zeros(32, ml_dtypes.float8_e5m2))
    out = tmp_path / "out"
    code, _, err = call(pto_run.main, [str(kernel), str(tmp_path / "src.npy"), str(tmp_path / "dst.npy"), "--out", str(out)], capsys)
    assert code == 0, err
    copied = (out / "arg1.npy").read_bytes()[-32:]  # the data follows the header
    assert copied == values.tobytes()


# -- no program from PATH -----------------------------------------------------------------------


def test_no_program_is_run_from_path(copy_inputs, tmp_path):
    fake = tmp_path / "fakebin"
    fake.mkdir()
    marker = tmp_path / "ran"
    for name in ("file", "uname", "ldconfig", "gcc", "cc"):
        (fake / name).write_text(f"#!/bin/sh\necho {name} >> {marker}\n")
        (fake / name).chmod(0o755)
    env = {**os.environ, "PATH": f"{fake}:{os.environ.get('PATH', '')}"}
    done = subprocess.run([str(SCRIPTS / "pto-run"), *copy_inputs], env=env, capture_output=True, text=True,
                          timeout=120, check=False, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert not marker.exists(), marker.read_text()


# -- binding errors name the argument and its file ------------------------------------------------


def test_a_dtype_error_names_the_argument_and_its_npy(copy_inputs, tmp_path, capsys):
    wrong = tmp_path / "ints.npy"
    np.save(wrong, np.arange(8, dtype=np.int32))
    code, _, err = call(pto_run.main, [copy_inputs[0], str(wrong), copy_inputs[2]], capsys)
    assert code == 1
    assert f"argument 0 (%src: !pto.ptr<f32, gm>, from {wrong}): expected an array of dtype float32, got int32" in err, err


def test_counts_of_any_size_print(capsys):
    """Nested 10^9-trip loops multiply to counts past Python's 4300-digit str() limit."""
    from pto_tools.exits import run_main

    run_main(lambda: print(10**5000), lambda: None)
    assert capsys.readouterr().out == "1" + "0" * 5000 + "\n"
