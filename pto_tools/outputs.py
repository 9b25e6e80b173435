"""
Output files that appear only when a whole run succeeded.

Each output is written to a hidden temporary file in its destination's folder
and renamed into place (an atomic replace on one file system) by `commit()`,
after every output of the run was written. A failed, interrupted or killed run
leaves every existing file as it was: `StagedOutputs` used as a context manager
removes its temporary files unless `commit()` ran.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from types import TracebackType
from typing import IO, Any


class StagedOutputs:
    def __init__(self) -> None:
        self._staged: list[tuple[str, Path]] = []  # (temporary path, destination)

    def open(self, destination: str | Path, mode: str = "w") -> IO[Any]:
        """A new temporary file beside `destination` (OSError names the destination)."""
        destination = Path(destination)
        if destination.is_dir():
            raise IsADirectoryError(21, "Is a directory", str(destination))
        try:
            fd, temporary = tempfile.mkstemp(prefix=f".{destination.name}.", suffix=".tmp", dir=destination.parent)
        except OSError as e:
            e.filename = str(destination)
            raise
        self._staged.append((temporary, destination))
        return os.fdopen(fd, mode)

    def commit(self) -> None:
        """Rename every staged file into place, with the mode a newly created file would get
        (or the replaced file's)."""
        default_mode = 0o666 & ~_umask()
        for temporary, destination in self._staged:
            try:
                mode = destination.stat().st_mode & 0o7777
            except OSError:
                mode = default_mode
            os.chmod(temporary, mode)
        for temporary, destination in self._staged:
            os.replace(temporary, destination)
        self._staged.clear()

    def discard(self) -> None:
        for temporary, _ in self._staged:
            try:
                os.unlink(temporary)
            except FileNotFoundError:
                pass
        self._staged.clear()

    def __enter__(self) -> StagedOutputs:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.discard()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
