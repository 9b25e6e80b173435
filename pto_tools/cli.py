"""
The console scripts. A command imports its modules before `run_main` can catch Ctrl-C;
nothing has been written by then, so an interrupt during the imports ends the command at
once, quietly, with exit code 130, as one later does (pto_tools/exits.py).

Before NumPy is imported, a command asks its BLAS for one thread, unless the user set the
count: NumPy's OpenBLAS starts a thread per core at import (half of NumPy's import CPU on two
cores), and no command calls BLAS (the interpreter's work is elementwise NumPy, no matrix
product), so no result depends on it.

Once its modules are imported, a command moves every object the garbage collector tracks (the
modules' classes, functions, tables: they live as long as the process) to its permanent
generation (`gc.freeze`), so that no later collection goes through them again, the one Python
makes at exit included: those took 0.06 s of `pto-run`'s 0.43 s of CPU on a small kernel and
0.03 s of `pto-opt --help`'s 0.24 s (bench/startup.py). Once the command's work is done
(everything it wrote flushed and closed), what the work made is frozen too: the process ends,
and the collection at exit has nothing left to go through.
"""

from __future__ import annotations

import gc
import importlib
import os
import signal

EXIT_INTERRUPTED = 130
"""Ctrl-C's exit code: 128 + SIGINT, as a shell reports it."""

BLAS_THREAD_COUNTS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
"""The variables NumPy's BLAS builds (OpenBLAS, OpenMP, MKL) read for their thread count at import."""


def _one_blas_thread() -> None:
    for name in BLAS_THREAD_COUNTS:
        os.environ.setdefault(name, "1")


def _importing_quietly() -> None:
    signal.signal(signal.SIGINT, lambda *_: os._exit(EXIT_INTERRUPTED))


def _interrupt_as_usual() -> None:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _command(module: str) -> None:
    """Run `module`'s `main` as a console script does (see above)."""
    _one_blas_thread()
    _importing_quietly()
    main = importlib.import_module(module).main
    gc.freeze()
    _interrupt_as_usual()
    main()
    gc.freeze()


def pto_opt() -> None:
    _command("pto_tools.pto_opt")


def pto_run() -> None:
    _command("pto_tools.pto_run")
