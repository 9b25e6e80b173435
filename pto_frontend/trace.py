"""
Tracing a kernel: while a `@pto.kernel` function runs, each builder call appends one op at
the current insertion block, located at the user's own call (the first frame outside this
package), and verifies it there; a failure is a PtoError starting with that `FILE:LINE:COL`.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from itertools import islice
from types import CodeType, FrameType
from typing import Any, TypeVar

from xdsl.dialects import arith
from xdsl.dialects.builtin import FileLineColLoc, FloatAttr, IntAttr, IntegerAttr, StringAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from pto_dialect.diagnostics import PtoError
from pto_dialect.parser import verify_op

PACKAGE = __name__.split(".")[0]

F = TypeVar("F", bound=Callable[..., Any])

_CURRENT: ContextVar[Trace | None] = ContextVar("pto_frontend_trace", default=None)


_NOT_USERS = (PACKAGE, "contextlib")
"""Frames between a builder call and the user's: this package's, and contextlib's (a `with pto.vecscope():`
enters the package through it)."""


def user_frame() -> FrameType:
    """The innermost frame outside this package (and contextlib): the user's call."""
    frame = sys._getframe(1)
    while frame.f_back is not None and frame.f_globals.get("__name__", "").partition(".")[0] in _NOT_USERS:
        frame = frame.f_back
    return frame


def call_site() -> FileLineColLoc:
    """`FILE:LINE:COL` of the user's call (the column of the expression being run)."""
    frame = user_frame()
    line, column = frame.f_lineno, 1
    position = next(islice(frame.f_code.co_positions(), frame.f_lasti // 2, None), None)
    if position is not None and position[0] is not None and position[2] is not None:
        line, column = position[0], position[2] + 1
    return FileLineColLoc(StringAttr(frame.f_code.co_filename), IntAttr(line), IntAttr(column))


def checked_call(name: str) -> Callable[[F], F]:
    """A user-facing function (or method) whose wrong call, an unknown or missing argument, is a
    PtoError at the caller's line naming `name` and what it takes (not Python's TypeError)."""

    def decorate(function: F) -> F:
        signature = inspect.signature(function)

        @functools.wraps(function)
        def checked(*args: Any, **kwargs: Any) -> Any:  # noqa: ANN401
            bind(name, signature, args, kwargs)
            return function(*args, **kwargs)

        return checked  # pyright: ignore[reportReturnType]

    return decorate


def bind(name: str, signature: inspect.Signature, args: Sequence[object], kwargs: Mapping[str, object]) -> dict[str, Any]:
    """A call's arguments by parameter name; a wrong call is a PtoError at the caller's line naming `name`."""
    try:
        return signature.bind(*args, **kwargs).arguments
    except TypeError as e:
        raise located(call_error(name, signature, e, kwargs)) from None


def call_error(name: str, signature: inspect.Signature, error: TypeError, keywords: Mapping[str, object]) -> str:
    """`pto.f(): got an unexpected keyword argument 'x' (did you mean 'y'?); it takes (a, b, *, y=None)`."""
    parameters = [p for p in signature.parameters.values() if p.name != "self"]
    known = [p.name for p in parameters]
    message = str(error)
    if unknown := [k for k in keywords if k not in known]:  # said first: it explains a "missing" one
        message = f"got an unexpected keyword argument '{unknown[0]}'"
        if nearest := difflib.get_close_matches(unknown[0], known, n=1):
            message += f" (did you mean '{nearest[0]}'?)"
    plain = [p.replace(annotation=inspect.Parameter.empty) for p in parameters]
    return f"{name}: {message}; it takes {inspect.Signature(plain)}"


def sequence_of(name: str, what: str, value: object) -> list[Any]:
    """`value` as a list, for an argument that takes a list (`shape=[8, 32]`); else a PtoError
    at the caller's line (`shape=8`)."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise located(f"{name}: {what} takes a list, got {value!r}")
    return list(value)


def located(message: str) -> PtoError:
    """An error about the user's current call, which built no op."""
    where = call_site()
    return PtoError(f"{where.filename.data}:{where.line.data}:{where.column.data}: error: {message}")


class Trace:
    """The kernel being built: where ops go, and the constants made so far."""

    def __init__(self, entry: Block, kernel: CodeType):
        self.entry = entry
        self.kernel = kernel
        """The code of the kernel's function: the outermost frame whose variables name values."""
        self.blocks = [entry]
        self._constants: dict[tuple[object, Attribute], SSAValue] = {}
        self._last_constant: Operation | None = None
        self.named: set[SSAValue] = set()

    @property
    def block(self) -> Block:
        return self.blocks[-1]

    def append(self, op: Operation) -> Operation:
        """Verify `op`, located at the user's call, and add it at the current block (an op
        with regions is verified with the whole kernel, once its body is complete)."""
        op.location = call_site()
        if not op.regions:
            verify_op(op)  # before it ends a block that wants a terminator
        self.block.add_op(op)
        self.name_values()
        return op

    def constant(self, value: int | float, type_: Attribute) -> SSAValue:
        """An `arith.constant` at the top of the kernel (one per value and type), named as
        MLIR names them (`%c8`, `%c0_i64`, `%cst`)."""
        key = (value, type_)
        if (known := self._constants.get(key)) is not None:
            return known
        try:
            attr = FloatAttr(float(value), type_) if isinstance(value, float) else IntegerAttr(value, type_)  # pyright: ignore[reportCallIssue, reportArgumentType] (a wrong type_ raises: the except below)
        except (VerifyException, ValueError, TypeError) as e:
            raise located(f"the constant {value!r} cannot be a {type_}: {e}") from e
        op = arith.ConstantOp(attr)
        op.location = call_site()
        if self._last_constant is not None:
            self.entry.insert_op_after(op, self._last_constant)
        elif self.entry.first_op is not None:
            self.entry.insert_op_before(op, self.entry.first_op)
        else:
            self.entry.add_op(op)
        self._last_constant = op
        suffix = "" if str(type_) == "index" else f"_{type_}"
        op.result.name_hint = f"c{value}{suffix}" if isinstance(value, int) else "cst"
        self._constants[key] = op.result
        return op.result

    @contextmanager
    def inside(self, block: Block) -> Iterator[None]:
        self.blocks.append(block)
        try:
            yield
        finally:
            self.blocks.pop()

    def name_values(self) -> None:
        """Give the values the user's variables hold their names (`idx = pto.alloc_tile(...)`
        prints as `%idx`), at the first builder call after the assignment; the kernel
        function's own names first, then those of the helpers it calls."""
        from pto_frontend.values import Value

        frames = [frame := user_frame()]
        while frame.f_code is not self.kernel and frame.f_back is not None:
            frames.append(frame := frame.f_back)
        for frame in reversed(frames):
            for name, value in frame.f_locals.items():
                if isinstance(value, Value) and value.ssa not in self.named and value.ssa.name_hint is None:
                    self.named.add(value.ssa)
                    if not name.startswith("_"):
                        value.ssa.name_hint = name


def current(what: str) -> Trace:
    """The kernel being built; outside one, a located error naming the call."""
    trace = _CURRENT.get()
    if trace is None:
        raise located(f"{what} builds kernel code: call it inside a @pto.kernel function")
    return trace


@contextmanager
def tracing(trace: Trace) -> Iterator[Trace]:
    token = _CURRENT.set(trace)
    try:
        yield trace
    finally:
        _CURRENT.reset(token)
