"""
How `pto-opt` and `pto-run` end: every failure one line on stderr, never a traceback.

- a PtoError (any located user error): its text, exit 1;
- a file that cannot be opened or written: `FILE: error: ...`, exit 1;
- Ctrl-C: nothing printed, exit 130 (128 + SIGINT, as a shell reports it);
- standard output closed by its reader (`pto-opt k.pto | head`): nothing printed, exit 1;
- any other exception is a bug of ours: `FILE: error: internal error: ...`, and with
  PTO_DEBUG=1 the Python traceback before it, for a bug report.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable

from pto_dialect.diagnostics import PtoError
from pto_dialect.parser import RECURSION_LIMIT
from pto_tools.cli import EXIT_INTERRUPTED


def run_main(body: Callable[[], None], input_name: Callable[[], str | None]) -> None:
    """Run a CLI's work; `input_name()` names the file an unlocated failure is blamed on."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))  # what parses also prints
    try:
        body()
    except KeyboardInterrupt:
        sys.exit(EXIT_INTERRUPTED)
    except BrokenPipeError:
        # Python would complain again when it flushes stdout at exit: point it elsewhere
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    except PtoError as e:
        fail(e.text)
    except OSError as e:
        fail(f"{e.filename or input_name() or '<stdin>'}: error: {_os_message(e)}")
    except RecursionError:
        fail(f"{input_name() or '<stdin>'}: error: nesting too deep to process")
    except Exception as e:  # a bug of ours
        if os.environ.get("PTO_DEBUG"):
            traceback.print_exc()
        where = f"{input_name()}: " if input_name() else ""
        fail(f"{where}error: internal error: {type(e).__name__}: {e} (PTO_DEBUG=1 shows the traceback)")


def _os_message(e: OSError) -> str:
    reason = e.strerror or str(e)
    if isinstance(e, (FileNotFoundError, IsADirectoryError, PermissionError, NotADirectoryError)):
        return f"cannot open: {reason}"
    return reason


def fail(text: str) -> None:
    print(text, file=sys.stderr)
    sys.exit(1)
