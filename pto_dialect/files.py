"""
Reading an input file whatever it is: a regular file, a pipe (`<(make_kernel)`), a FIFO, a
device. What is read is bounded, and a FIFO nobody writes to is given up on after a while
instead of blocking for ever; every failure is an OSError naming the file.
"""

from __future__ import annotations

import errno
import os
import select
import stat
from typing import BinaryIO

KERNEL_BYTES = 64 << 20
"""The most a kernel's text may be (the largest kernels seen are tens of KB)."""

FIFO_WAIT_SECONDS = 10.0
"""How long a FIFO may stay without a writer (or data) before the read is given up."""


class InputTooLarge(OSError):
    """An input past the bound its kind of file may have."""


def read_kernel(path: str) -> bytes:
    """A kernel file's bytes (at most KERNEL_BYTES)."""
    return read_bounded(path, KERNEL_BYTES, "a kernel")


def read_bounded(path: str, limit: int, what: str) -> bytes:
    """The whole of `path` (at most `limit` bytes; `what` names the kind of input in the
    error, e.g. "a kernel")."""
    try:
        found = os.stat(path)
    except OSError as e:
        e.filename = path
        raise
    if stat.S_ISDIR(found.st_mode):
        raise IsADirectoryError(errno.EISDIR, "Is a directory", path)
    if stat.S_ISREG(found.st_mode) and found.st_size > limit:
        raise _too_large(path, limit, what)
    with open_input(path, found) as f:
        return read_stream(f, path, limit, what)


def open_input(path: str, found: os.stat_result) -> BinaryIO:
    """`path` (whose stat is `found`) opened for reading; a FIFO once data (or its writer's
    end) is there."""
    if stat.S_ISFIFO(found.st_mode):
        fd = _open_fifo(path)
    else:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError as e:
            e.filename = path
            raise
    return os.fdopen(fd, "rb")


def read_stream(f: BinaryIO, name: str, limit: int, what: str) -> bytes:
    """Everything `f` holds, at most `limit` bytes (standard input, an opened file)."""
    try:
        data = f.read(limit + 1)
    except OSError as e:
        e.filename = name
        raise
    if len(data) > limit:
        raise _too_large(name, limit, what)
    return data


def _too_large(name: str, limit: int, what: str) -> InputTooLarge:
    return InputTooLarge(errno.EFBIG, f"larger than the {_size(limit)} {what} may be", name)


def _size(n: int) -> str:
    return f"{n >> 30} GiB" if n >= 1 << 30 else f"{n >> 20} MiB"


def _open_fifo(path: str) -> int:
    """The FIFO opened for reading once data (or its writer's end) is there: non-blocking
    open, a bounded wait, then blocking reads."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as e:
        e.filename = path
        raise
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP)
    if not poller.poll(FIFO_WAIT_SECONDS * 1000):
        os.close(fd)
        raise TimeoutError(
            errno.ETIMEDOUT, f"a FIFO nothing was written to in {FIFO_WAIT_SECONDS:g} s (no writer?)", path
        )
    os.set_blocking(fd, True)
    return fd
