"""
How `pto-opt` and `pto-run` end: every failure one line on stderr, never a traceback.

- a PtoError (any located user error): its text, exit 1;
- a file that cannot be opened or written: `FILE: error: ...`, exit 1;
- Ctrl-C: nothing printed, exit 130 (128 + SIGINT, as a shell reports it);
- standard output closed by its reader (`pto-opt k.pto | head`): nothing printed, exit 1;
- standard output that cannot be written (a full disk): `<stdout>: error: cannot write: ...`,
  exit 1 (everything written is flushed before the command ends, so no failure goes unseen);
- any other exception is a bug of ours: `FILE: error: internal error: ...`, and with
  PTO_DEBUG=1 the Python traceback before it, for a bug report.
"""

from __future__ import annotations

import errno
import os
import sys
import traceback
from collections.abc import Callable

from pto_dialect.diagnostics import PtoError
from pto_tools.outputs import STDOUT, named_stream
from pto_dialect.files import InputTooLarge
from pto_dialect.parser import RECURSION_LIMIT
from pto_tools.cli import EXIT_INTERRUPTED


def run_main(body: Callable[[], None], input_name: Callable[[], str | None]) -> None:
    """Run a CLI's work; `input_name()` names the file an unlocated failure is blamed on."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))  # what parses also prints
    stdout = sys.stdout
    sys.stdout = named_stream(stdout)
    digits = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)  # nested loops' execution counts print whatever their size
    try:
        try:
            body()
            ending = None
        except SystemExit as e:  # --help, --version, a usage error: what they printed is flushed too
            ending = e
        sys.stdout.flush()
        if ending is not None:
            raise ending
    except KeyboardInterrupt:
        sys.exit(EXIT_INTERRUPTED)
    except BrokenPipeError:
        _silence(stdout)
        sys.exit(1)
    except PtoError as e:
        fail(e.text)
    except OSError as e:
        if e.filename == STDOUT:
            _silence(stdout)
        fail(f"{e.filename or input_name() or '<stdin>'}: error: {_os_message(e)}")
    except RecursionError:
        fail(f"{input_name() or '<stdin>'}: error: nesting too deep to process")
    except Exception as e:  # a bug of ours
        if os.environ.get("PTO_DEBUG"):
            traceback.print_exc()
        where = f"{input_name()}: " if input_name() else ""
        fail(f"{where}error: internal error: {type(e).__name__}: {e} (PTO_DEBUG=1 shows the traceback)")
    finally:
        sys.stdout = stdout
        sys.set_int_max_str_digits(digits)


def _silence(stdout: object) -> None:
    """Point standard output at /dev/null: what it still buffers would fail again (and be
    reported by Python) when it is flushed at exit."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), stdout.fileno())  # pyright: ignore[reportAttributeAccessIssue]
    except (AttributeError, OSError, ValueError):  # not a file (a test's StringIO)
        pass


_WRITE_ERRORS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO)


def _os_message(e: OSError) -> str:
    reason = e.strerror or str(e)
    if isinstance(e, (FileNotFoundError, IsADirectoryError, PermissionError, NotADirectoryError)):
        return f"cannot open: {reason}"
    if e.errno in _WRITE_ERRORS and not isinstance(e, InputTooLarge):
        return f"cannot write: {reason}"
    if isinstance(e, TimeoutError | InputTooLarge):
        return f"cannot read: {reason}"
    return reason


def fail(text: str) -> None:
    print(text, file=sys.stderr)
    sys.exit(1)
