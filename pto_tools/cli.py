"""
The console scripts. A command imports its modules before `run_main` can catch Ctrl-C;
nothing has been written by then, so an interrupt during the imports ends the command at
once, quietly, with exit code 130, as one later does (pto_tools/exits.py).

Before NumPy is imported, a command asks its BLAS for one thread, unless the user set the
count: NumPy's OpenBLAS starts a thread per core at import (half of NumPy's import CPU on two
cores), and no command calls BLAS (the interpreter's work is elementwise NumPy, no matrix
product), so no result depends on it.
"""

from __future__ import annotations

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


def pto_opt() -> None:
    _one_blas_thread()
    _importing_quietly()
    from pto_tools.pto_opt import main

    _interrupt_as_usual()
    main()


def pto_run() -> None:
    _one_blas_thread()
    _importing_quietly()
    from pto_tools.pto_run import main

    _interrupt_as_usual()
    main()
