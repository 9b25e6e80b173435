"""Calling the console-script functions in-process, as the installed commands do."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def call(main: Callable[[Sequence[str]], None], args: Sequence[str], capsys: pytest.CaptureFixture[str]):
    """(exit code, stdout, stderr) of one command."""
    code = 0
    try:
        main(list(args))
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def save(directory: Path, arrays: Sequence[np.ndarray], prefix: str = "in") -> list[str]:
    """Each array saved as `directory/{prefix}{i}.npy`: the paths, as a command's arguments."""
    paths = []
    for i, a in enumerate(arrays):
        np.save(directory / f"{prefix}{i}.npy", a)
        paths.append(str(directory / f"{prefix}{i}.npy"))
    return paths


def run_in_process(tool: str, *args: str) -> tuple[int, str, str]:
    """run_installed's (exit code, stdout, stderr), from the main function the console script
    calls, called in this process: for tests of what a command prints and writes, without a
    process's start-up each (tests/test_cli_safety.py and tests/pto_tools/test_files_and_processes.py
    test the installed commands as processes)."""
    import contextlib
    import importlib
    import io

    main = importlib.import_module(f"pto_tools.{tool.replace('-', '_')}").main
    out, err = (io.TextIOWrapper(io.BytesIO(), encoding="utf-8") for _ in range(2))
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(args))
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
    out.flush()
    err.flush()
    return code, out.buffer.getvalue().decode(), err.buffer.getvalue().decode()  # pyright: ignore[reportAttributeAccessIssue]


def run_installed(tool: str, *args: str, cwd: Path | None = None) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of the installed console script, in a process of its own."""
    import subprocess
    import sys

    script = Path(sys.executable).parent / tool
    done = subprocess.run([str(script), *args], capture_output=True, text=True, timeout=120, check=False, cwd=cwd)
    return done.returncode, done.stdout, done.stderr
