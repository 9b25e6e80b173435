"""
The console scripts. A command imports its modules before `run_main` can catch Ctrl-C;
nothing has been written by then, so an interrupt during the imports ends the command at
once, quietly, with exit code 130, as one later does (pto_tools/exits.py).
"""

from __future__ import annotations

import os
import signal

EXIT_INTERRUPTED = 130
"""Ctrl-C's exit code: 128 + SIGINT, as a shell reports it."""


def _importing_quietly() -> None:
    signal.signal(signal.SIGINT, lambda *_: os._exit(EXIT_INTERRUPTED))


def _interrupt_as_usual() -> None:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pto_opt() -> None:
    _importing_quietly()
    from pto_tools.pto_opt import main

    _interrupt_as_usual()
    main()


def pto_run() -> None:
    _importing_quietly()
    from pto_tools.pto_run import main

    _interrupt_as_usual()
    main()
