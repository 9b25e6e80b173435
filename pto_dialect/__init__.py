"""
The `pto` dialect: types, attributes and ops of the PTO instruction set, in the
syntax PTOAS reads and prints, plus `load()` to parse and verify a `.pto` file.

Importing the package is cheap: the dialect itself (pto_dialect/dialect.py) and the
upstream dialects are imported when a context first meets them, so that a command
that parses nothing (`pto-opt --help`) does not pay for them (bench/startup.py).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path

import pto_dialect.nominal_checks  # noqa: F401 (before any op or attribute is checked: nominal checks)
import pto_dialect.op_formats  # noqa: F401 (before any op is declared: their formats are read on first use)
import pto_dialect.op_definitions  # noqa: F401 (before any op is declared: each is defined on first use)
from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.ir import Attribute, Dialect, Operation, TypeAttribute
from xdsl.utils.exceptions import ParseError

from pto_dialect.diagnostics import PtoError
from pto_dialect.files import InputTooLarge, read_kernel
from pto_dialect.parser import RECURSION_LIMIT, decode_source, parse_module, recursion_limit, verify_located


def _tile_level() -> Dialect:
    from pto_dialect.dialect import TILE_LEVEL

    return TILE_LEVEL


def _arith() -> Dialect:
    from pto_dialect.mlir_arith import arith_dialect

    return arith_dialect()


REGISTER_LEVEL_MODULE = "pto_dialect.vpto"


def register_level_declared() -> bool:
    """Whether the register level's classes exist (pto_dialect.vpto imported, by a context that
    met one of its names, a lowering that makes its ops, the builder, ...): until then no IR holds
    a register-level op or type, and a check for one has nothing to look for."""
    return REGISTER_LEVEL_MODULE in sys.modules


@dataclass
class PtoContext(Context):
    """A context whose `pto` dialect loads in two parts (pto_dialect/dialect.py): all but the
    register level when a pto name is first looked up, the register level when a pto name the
    rest lacks is."""

    has_register_level: bool = False

    def clone(self) -> PtoContext:
        copy = super().clone()
        return PtoContext(**{f.name: getattr(copy, f.name) for f in fields(copy)}, has_register_level=self.has_register_level)

    def _load_register_level_for(self, name: str, loaded: Mapping[str, object]) -> None:
        dialect, dot, _ = name.partition(".")
        if self.has_register_level or (dialect, dot) != ("pto", "."):
            return
        self.get_optional_dialect("pto")
        if name in loaded:
            return
        from pto_dialect.dialect import register_level

        self.has_register_level = True
        ops, types = register_level()
        for op in ops:
            self.load_op(op)
        for attribute in types:
            self.load_attr_or_type(attribute)

    def get_optional_op(self, name: str, *, dialect_stack: Sequence[str] = ()) -> type[Operation] | None:
        self._load_register_level_for(name, self._loaded_ops)
        return super().get_optional_op(name, dialect_stack=dialect_stack)

    def get_optional_type(self, name: str) -> type[TypeAttribute] | None:
        self._load_register_level_for(name, self._loaded_types)
        return super().get_optional_type(name)

    def get_optional_attr(self, name: str) -> type[Attribute] | None:
        self._load_register_level_for(name, self._loaded_attrs)
        return super().get_optional_attr(name)


def make_context() -> PtoContext:
    """A context with pto and the upstream dialects kernels use (func, arith with the ops xDSL
    lacks: pto_dialect/mlir_arith.py, scf), each loaded when parsed IR first names it (pto in two
    parts: PtoContext)."""
    ctx = PtoContext()
    ctx.load_dialect(Builtin)
    upstream = get_all_dialects()
    for name in ("func", "scf"):
        ctx.register_dialect(name, upstream[name])
    ctx.register_dialect("arith", _arith)
    ctx.register_dialect("pto", _tile_level)
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


__all__ = ["PtoContext", "PtoError", "load", "make_context", "parse", "register_level_declared"]
