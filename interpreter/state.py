"""Per-run state the interpreter functions share: target, on-chip memories, fault locations."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.interpreter import Interpreter
from xdsl.utils.exceptions import InterpretationError
from xdsl.ir import Operation

from pto_dialect.diagnostics import PtoError
from targets import TargetInfo

from pto_dialect.machine import GmView, RuntimeFault


class GmWrites:
    """Which elements of each GM buffer a run stores to (what pto-run shows of an argument)."""

    def __init__(self) -> None:
        self._masks: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        """id(buffer) -> (the buffer, one flag per element: stored to)."""
        self.per_argument: list[np.ndarray | None] = []
        """After `interpreter.run_with_results`: each argument's flags (None: not bound to GM)."""

    def mark(self, view: GmView) -> None:
        """The whole (batched) window was stored to."""
        GmView(self.flags(view.buffer), view.offset, view.shape, view.strides).write2d(slice(None), slice(None), np.True_)

    def flags(self, buffer: np.ndarray) -> np.ndarray:
        """The buffer's flags, to set: one per element, True where the run stored."""
        entry = self._masks.get(id(buffer))
        if entry is None:
            entry = self._masks[id(buffer)] = (buffer, np.zeros(buffer.size, bool))
        return entry[1]

    def of(self, buffer: np.ndarray) -> np.ndarray:
        """The flags of a buffer (all False if nothing was stored to it)."""
        entry = self._masks.get(id(buffer))
        return entry[1] if entry is not None and entry[0] is buffer else np.zeros(buffer.size, bool)

if TYPE_CHECKING:
    from interpreter.profile import Profiler


@dataclass
class RunState:
    target: TargetInfo
    batch_loops: bool = True
    """Run independent scf.for iterations as one batched operation each (interpreter/batch.py)."""
    memories: dict[str, np.ndarray] = field(default_factory=dict)
    gm_writes: GmWrites | None = None
    """Where it is asked for: the GM elements the run stores to."""
    profiler: Profiler | None = None
    """`pto-run --profile`: told about each op before its kernel runs (interpreter/profile.py)."""
    special_registers: dict[str, Any] = field(default_factory=dict)
    """Register-level state outside SSA (the AR of the AR-driven unaligned stores, the atomic mode of
    the DMA to GM, the loop strides of the DMA), by name."""

    def memory(self, loc: str) -> np.ndarray | None:
        """The byte array of an on-chip space (None: tiles there get private storage)."""
        size = self.target.on_chip_bytes.get(loc)
        if size is None:
            return None
        if loc not in self.memories:
            self.memories[loc] = np.zeros(size, dtype=np.uint8)
        return self.memories[loc]


_KEY = "run-state"


def run_state(interpreter: Interpreter) -> RunState:
    # kept under RunState as if it were an InterpreterFunctions class (set_data below)
    state = interpreter._impl_data.get(RunState, {}).get(_KEY)  # pyright: ignore[reportPrivateUsage, reportArgumentType, reportCallIssue]
    assert state is not None, "interpreter.run sets the run state"
    return state


def set_run_state(interpreter: Interpreter, state: RunState) -> None:
    interpreter.set_data(RunState, _KEY, state)  # pyright: ignore[reportArgumentType]


def located_failure(op: Operation, error: Exception) -> PtoError:
    """What a failure while running `op` reports: a located error passes on unchanged, a
    fault or an interpreter error is located at the op, anything else too, with its kind."""
    if isinstance(error, PtoError):
        return error
    if isinstance(error, RuntimeFault | InterpretationError):
        return PtoError.at_op(op, str(error))
    if isinstance(error, RecursionError):
        raise error  # reported once, at the entry function, not at every frame
    return PtoError.at_op(op, f"failed: {type(error).__name__}: {error}")


class fault_at:
    """Turn a RuntimeFault inside into a located PtoError about `op` (shown as `name`).

    A class rather than @contextmanager: it runs once per interpreted op."""

    __slots__ = ("op", "name")

    def __init__(self, op: Operation, name: str | None = None):
        self.op = op
        self.name = name

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, error, traceback) -> None:
        if isinstance(error, RuntimeFault):
            raise PtoError.at_op(self.op, str(error), name=self.name) from error
