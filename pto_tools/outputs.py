"""
Output files that appear only when a whole run succeeded, and output streams whose write
failures name the output.

A regular file (or a new path) is written to an anonymous temporary file in its folder
(Linux's O_TMPFILE; elsewhere a hidden named one) and renamed into place (an atomic replace
on one file system) by `commit()`, after every output of the run was written. A failed,
interrupted or killed run leaves every existing file as it was, and no temporary file: an
anonymous one vanishes with the process, and gets a name only for the instant before the
rename. Anything else an output path names (a symlink, a FIFO, a device such as /dev/null)
is written through at `commit()`, as compilers do: a rename would replace it by a regular
file.

Every write error (a full disk, a short write) is an OSError naming the output, so that the
command reports `OUTPUT: error: cannot write: ...`; `named_stream` does the same for standard
output.
"""

from __future__ import annotations

import errno
from collections.abc import Callable
import io
import os
import stat
import tempfile
from pathlib import Path
from types import TracebackType
from typing import IO, Any, TypeVar


_T = TypeVar("_T")


STDOUT = "<stdout>"
"""The name standard output's write errors carry."""


class NamedOutput:
    """A file object whose write failures are OSErrors naming `name` (NumPy's short writes,
    which carry no errno, included)."""

    def __init__(self, file: IO[Any], name: str):
        self._file = file
        self.name = name

    def _named(self, e: OSError) -> OSError:
        if e.errno is None:  # NumPy's "65536 requested and 10176 written": a short write
            return OSError(errno.EIO, "the write was cut short (is the file system full?)", self.name)
        e.filename = self.name
        return e

    def _naming_failures(self, call: Callable[..., _T], *args: object) -> _T:
        """`call(*args)`, an OSError it raises naming this output (a broken pipe as it is)."""
        try:
            return call(*args)
        except BrokenPipeError:
            raise
        except OSError as e:
            raise self._named(e) from None

    def write(self, data: Any) -> int:  # noqa: ANN401
        return self._naming_failures(self._file.write, data)

    def writelines(self, lines: Any) -> None:  # noqa: ANN401
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self._naming_failures(self._file.flush)

    def close(self) -> None:
        self._naming_failures(self._file.close)

    def __enter__(self) -> NamedOutput:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def __getattr__(self, attr: str) -> Any:  # noqa: ANN401
        return getattr(self._file, attr)


def named_stream(stream: IO[str], name: str = STDOUT) -> IO[str]:
    """`stream` (standard output) with its write failures naming it."""
    return NamedOutput(stream, name)  # pyright: ignore[reportReturnType] (a file object by duck typing)


class _Kept:
    """What was written to an in-memory output, kept when its writer closes it."""

    def __init__(self, binary: bool):
        self.buffer: io.BytesIO | io.StringIO = io.BytesIO() if binary else io.StringIO()
        self.value: bytes | str | None = None
        close = self.buffer.close

        def keep_then_close() -> None:
            if self.value is None:
                self.value = self.buffer.getvalue()
            close()

        self.buffer.close = keep_then_close  # pyright: ignore[reportAttributeAccessIssue]

    def contents(self) -> bytes | str:
        return self.buffer.getvalue() if self.value is None else self.value


class _Staged:
    """One output: where it goes, the file object handed out, and how it reaches its place."""

    def __init__(self, destination: Path, handed: NamedOutput, *, kept: _Kept | None = None,
                 anonymous_fd: int | None = None, temporary: str | None = None):
        self.destination = destination
        self.handed = handed
        self.kept = kept  # written through at commit
        self.anonymous_fd = anonymous_fd  # O_TMPFILE: linked, then renamed, at commit
        self.temporary = temporary  # a named temporary file: renamed at commit

    def release(self) -> None:
        try:
            self.handed.close()
        except OSError:
            pass
        if self.anonymous_fd is not None:
            os.close(self.anonymous_fd)
            self.anonymous_fd = None
        if self.temporary is not None:
            try:
                os.unlink(self.temporary)
            except FileNotFoundError:
                pass
            self.temporary = None


def _named(e: OSError, destination: Path) -> OSError:
    e.filename = str(destination)
    return e


def _anonymous_file(folder: Path) -> int | None:
    """An unnamed file in `folder` (O_TMPFILE), if this system and file system make one."""
    flag = getattr(os, "O_TMPFILE", None)
    if flag is None or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        return os.open(folder, flag | os.O_WRONLY, 0o600)
    except OSError as e:
        if e.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
            return None  # a file system without O_TMPFILE
        raise


class StagedOutputs:
    def __init__(self) -> None:
        self._staged: list[_Staged] = []

    def open(self, destination: str | Path, mode: str = "w") -> IO[Any]:
        """A file object for `destination`, placed by `commit()` (OSError names the destination)."""
        destination = Path(destination)
        try:
            found = os.lstat(destination)
        except FileNotFoundError:
            found = None
        except OSError as e:
            raise _named(e, destination) from None
        if found is not None and stat.S_ISDIR(found.st_mode):
            raise IsADirectoryError(errno.EISDIR, "Is a directory", str(destination))
        if found is not None and not stat.S_ISREG(found.st_mode):
            kept = _Kept("b" in mode)
            staged = _Staged(destination, NamedOutput(kept.buffer, str(destination)), kept=kept)
        else:
            staged = self._temporary(destination, mode)
        self._staged.append(staged)
        return staged.handed  # pyright: ignore[reportReturnType] (a file object by duck typing)

    def _temporary(self, destination: Path, mode: str) -> _Staged:
        try:
            fd = _anonymous_file(destination.parent)
            if fd is not None:
                return _Staged(destination, NamedOutput(os.fdopen(os.dup(fd), mode), str(destination)), anonymous_fd=fd)
            fd, temporary = tempfile.mkstemp(prefix=f".{destination.name}.", suffix=".tmp", dir=destination.parent)
        except OSError as e:
            raise _named(e, destination) from None
        return _Staged(destination, NamedOutput(os.fdopen(fd, mode), str(destination)), temporary=temporary)

    def commit(self) -> None:
        """Put every output in place: write through to what is not a regular file; rename the
        others into place with the mode a newly created file would get (or the replaced file's)."""
        default_mode = 0o666 & ~_umask()
        for staged in self._staged:
            staged.handed.close()  # flushes: a write error names the output
        for staged in self._staged:
            if staged.kept is not None:
                continue
            try:
                mode = staged.destination.stat().st_mode & 0o7777
            except OSError:
                mode = default_mode
            try:
                if staged.anonymous_fd is not None:
                    os.fchmod(staged.anonymous_fd, mode)
                    staged.temporary = _link_beside(staged.anonymous_fd, staged.destination)
                    os.close(staged.anonymous_fd)
                    staged.anonymous_fd = None
                else:
                    assert staged.temporary is not None
                    os.chmod(staged.temporary, mode)
            except OSError as e:
                raise _named(e, staged.destination) from None
        for staged in self._staged:
            try:
                if staged.kept is not None:
                    contents = staged.kept.contents()
                    with open(staged.destination, "wb" if isinstance(contents, bytes) else "w") as f:
                        f.write(contents)
                else:
                    assert staged.temporary is not None
                    os.replace(staged.temporary, staged.destination)
                    staged.temporary = None
            except OSError as e:
                raise _named(e, staged.destination) from None
        self._staged.clear()

    def discard(self) -> None:
        for staged in self._staged:
            staged.release()
        self._staged.clear()

    def __enter__(self) -> StagedOutputs:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.discard()


def _link_beside(fd: int, destination: Path) -> str:
    """Give the anonymous file `fd` a hidden name beside `destination`; return that name.
    (A directory descriptor makes os.link call linkat(), which follows /proc's link.)"""
    folder = os.open(destination.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(100):
            name = f".{destination.name}.{os.urandom(4).hex()}.tmp"
            try:
                os.link(f"/proc/self/fd/{fd}", name, dst_dir_fd=folder, follow_symlinks=True)
                return str(destination.parent / name)
            except FileExistsError:
                continue
    finally:
        os.close(folder)
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(destination))


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
