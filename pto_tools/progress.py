"""
`pto-run`'s progress bar: a status line on stderr, for runs longer than a couple of seconds.

It is an interpreter listener. While the entry's outermost `scf.for` runs, the bar shows how
many of its trips are done; otherwise it shows the ops run so far. Shown only on a terminal
and without --quiet: elsewhere no listener is attached, so the run costs nothing extra.
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import IO, Any

from xdsl.dialects import scf
import pto_dialect.xdsl_interpreter  # noqa: F401 (before xDSL's interpreter: runs no program)
from xdsl.interpreter import Interpreter
from xdsl.ir import Operation

from pto_dialect.diagnostics import op_location

SHOW_AFTER_SECONDS = 2.0
REDRAW_SECONDS = 0.25
CHECK_EVERY_OPS = 1024  # the clock is read once per this many ops
BAR_WIDTH = 30


class ProgressBar(Interpreter.Listener):
    SEES_EVERY_OP = False
    """A batched loop (interpreter/batch.py) may run without telling it about each op."""

    def __init__(self, stream: IO[str]):
        self.stream = stream
        self.start = time.monotonic()
        self.next_draw = self.start + SHOW_AFTER_SECONDS
        self.ops = 0
        self.drawn = False
        self.loop: Operation | None = None  # the outermost scf.for running now
        self.trips = 0
        self.done = 0

    @classmethod
    def on_terminal(cls, *, quiet: bool, stream: IO[str] | None = None) -> _Progress:
        shown = stream or sys.stderr
        return _Progress(None if quiet or not shown.isatty() else cls(shown))

    def will_interpret_op(self, op: Operation, args: tuple[Any, ...]) -> None:
        self.ops += 1
        if self.loop is None and isinstance(op, scf.ForOp):
            lower, upper, step = args[:3]
            self.loop, self.done = op, 0
            self.trips = max(0, -(-(upper - lower) // step)) if step > 0 else 0
        elif self.loop is not None and isinstance(op, scf.YieldOp) and op.parent_op() is self.loop:
            self.done += 1
        if self.ops % CHECK_EVERY_OPS == 0 and time.monotonic() >= self.next_draw:
            self.draw()

    def did_interpret_op(self, op: Operation, results: tuple[Any, ...]) -> None:
        if op is self.loop:
            self.loop = None

    def draw(self) -> None:
        now = time.monotonic()
        self.next_draw = now + REDRAW_SECONDS
        elapsed = f"{now - self.start:.0f} s"
        if self.loop is not None and self.trips > 0:
            share = min(self.done / self.trips, 1.0)
            filled = int(share * BAR_WIDTH)
            bar = "#" * filled + "." * (BAR_WIDTH - filled)
            where = op_location(self.loop) or "scf.for"
            text = f"pto-run: [{bar}] {share:4.0%} of the loop at {where} ({self.done}/{self.trips}), {elapsed}"
        else:
            text = f"pto-run: running, {self.ops:,} ops, {elapsed}"
        self.stream.write("\r\x1b[K" + text)
        self.stream.flush()
        self.drawn = True

    def clear(self) -> None:
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


class _Progress:
    """`with ProgressBar.on_terminal(...) as p:` gives `p.listeners` and clears the line after."""

    def __init__(self, bar: ProgressBar | None):
        self.bar = bar
        self.listeners: tuple[ProgressBar, ...] = (bar,) if bar is not None else ()

    def __enter__(self) -> _Progress:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if self.bar is not None:
            self.bar.clear()
