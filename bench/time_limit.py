"""A wall-clock limit on a block of in-process work (bench/ptoas_kernels.py, tests/test_fuzz.py)."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType


@contextlib.contextmanager
def time_limit(seconds: int, timeout: BaseException) -> Iterator[None]:
    """Raise `timeout` after `seconds` (SIGALRM: no limit where there is none, or off the main
    thread)."""
    if not hasattr(signal, "SIGALRM") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(_signum: int, _frame: FrameType | None) -> None:
        raise timeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
