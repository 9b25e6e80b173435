"""
The `pto` dialect: types, attributes and ops of the PTO instruction set, in the
syntax PTOAS reads and prints, plus `load()` to parse and verify a `.pto` file.
"""

from __future__ import annotations

from pathlib import Path

from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func
from xdsl.dialects.scf import Scf
from xdsl.ir import Dialect
from xdsl.utils.exceptions import ParseError

from pto_dialect.attributes import ATTRIBUTES
from pto_dialect.diagnostics import PtoError
from pto_dialect.dtypes import HiF8Type
from pto_dialect.ops import OPS
from pto_dialect.parser import parse_module, verify_located
from pto_dialect.types import TYPES

PTO = Dialect("pto", OPS, [*TYPES, HiF8Type, *ATTRIBUTES])


def make_context() -> Context:
    """A context with pto and the upstream dialects kernels use (func, arith, scf)."""
    ctx = Context()
    for dialect in (Builtin, Func, Arith, Scf, PTO):
        ctx.load_dialect(dialect)
    return ctx


def parse(text: str, name: str = "<string>", ctx: Context | None = None) -> ModuleOp:
    """Parse and verify PTO text; raises PtoError with a located message."""
    try:
        module = parse_module(ctx or make_context(), text, name)
    except ParseError as e:
        raise PtoError.from_parse_error(e) from e
    verify_located(module)
    return module


def load(path: str | Path) -> ModuleOp:
    """Parse and verify a `.pto` file; raises PtoError with a `FILE:LINE:COL` message."""
    path = Path(path)
    return parse(path.read_text(), str(path))


__all__ = ["PTO", "PtoError", "load", "parse", "make_context"]
