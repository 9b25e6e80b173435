"""
The `pto` dialect: types, attributes and ops of the PTO instruction set, in the
syntax PTOAS reads and prints, plus `load()` to parse and verify a `.pto` file.

Importing the package is cheap: the dialect itself (pto_dialect/dialect.py) and the
upstream dialects are imported when a context first meets them, so that a command
that parses nothing (`pto-opt --help`) does not pay for them (bench/startup.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pto_dialect.op_formats  # noqa: F401 (before any op is declared: their formats are read on first use)
from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.utils.exceptions import ParseError

from pto_dialect.diagnostics import PtoError
from pto_dialect.files import InputTooLarge, read_kernel
from pto_dialect.parser import RECURSION_LIMIT, decode_source, parse_module, recursion_limit, verify_located

if TYPE_CHECKING:
    from xdsl.ir import Dialect


def _pto() -> Dialect:
    from pto_dialect.dialect import PTO

    return PTO


def make_context() -> Context:
    """A context with pto and the upstream dialects kernels use (func, arith, scf), each
    loaded when parsed IR first names it."""
    ctx = Context()
    ctx.load_dialect(Builtin)
    upstream = get_all_dialects()
    for name in ("func", "arith", "scf"):
        ctx.register_dialect(name, upstream[name])
    ctx.register_dialect("pto", _pto)
    return ctx


def parse(text: str, name: str = "<string>", ctx: Context | None = None) -> ModuleOp:
    """Parse and verify PTO text; raises PtoError with a located message."""
    if not isinstance(text, str):
        raise PtoError(f"error: parse() takes the MLIR text as a str, got {type(text).__name__}")
    try:
        module = parse_module(ctx or make_context(), text, name)
    except ParseError as e:
        raise PtoError.from_parse_error(e) from e
    with recursion_limit(RECURSION_LIMIT):
        verify_located(module)
    return module


def load(path: str | Path) -> ModuleOp:
    """Parse and verify a `.pto` file; raises PtoError with a `FILE:LINE:COL` message
    (or `FILE: error: cannot open: ...`)."""
    if not isinstance(path, (str, Path)):
        raise PtoError(f"error: load() takes a file path (str or Path), got {type(path).__name__}")
    if isinstance(path, str) and ("\n" in path or "{" in path):
        raise PtoError("error: load() takes a file path, got MLIR text; use pto_dialect.parse(text) for text")
    try:
        data = read_kernel(str(path))
    except (TimeoutError, InputTooLarge) as e:
        raise PtoError(f"{path}: error: cannot read: {e.strerror}") from e
    except OSError as e:
        raise PtoError(f"{path}: error: cannot open: {e.strerror}") from e
    return parse(decode_source(data, str(path)), str(path))


__all__ = ["PtoError", "load", "parse", "make_context"]
