"""
The alignment state (`!pto.align`) of the unaligned stores at run time: the bytes a stream has taken but
not yet written, those past its last 32-byte boundary. A store step writes the stream's whole blocks and
keeps the tail; a flush writes the tail so that it ends at the flush point. (Loads: vldus reads its
register at its address; the state it threads carries nothing a run needs.)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pto_dialect.vpto.load_store import BLOCK_BYTES

from interpreter.vpto.memory import Pointer


@dataclass(frozen=True)
class Align:
    pending: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint8))
    """The stream's bytes from its last 32-byte boundary up to its current position."""


def append(state: Align, position: Pointer, data: np.ndarray) -> tuple[Align, np.ndarray]:
    """The stream at `position` (its end so far) takes `data`: the whole blocks reach memory, the tail
    waits. Returns the new state and the byte offsets (from `position`) written."""
    stream = np.concatenate([state.pending, np.ascontiguousarray(data).view(np.uint8).reshape(-1)])
    start = position.byte - state.pending.size
    end = position.byte + stream.size - state.pending.size
    written = max(0, end - end % BLOCK_BYTES - start)
    offsets = np.arange(written) - state.pending.size
    position.scatter_bytes(offsets, stream[:written])
    return Align(stream[written:].copy()), offsets


def flush(state: Align, at: Pointer) -> np.ndarray:
    """Write the waiting tail so that it ends at `at`; the byte offsets (from `at`) written."""
    offsets = np.arange(-state.pending.size, 0)
    at.scatter_bytes(offsets, state.pending)
    return offsets
