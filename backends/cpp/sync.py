"""
The set_flag/wait_flag pairs a kernel needs between pipes.

pto-isa's MGATHER.md, "Pipe/Synchronization Model": after a TLOAD, the caller brings the
index tile to the vector pipe with `set_flag(PIPE_MTE2, PIPE_V)` / `wait_flag(PIPE_MTE2,
PIPE_V)` before MGATHER. In general every tile statement runs on one pipe (TLOAD on
MTE2, the instructions on V, TSTORE on MTE3). Before a statement, its pipe waits for
each other pipe that last wrote a tile it reads or writes, or read a tile it writes,
unless it has waited for that pipe since. One wait covers every earlier statement of
the producing pipe, which runs in order.
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass, field

@dataclass
class PipeSync:
    """What each pipe has issued and waited for, per tile (tiles named by their C++ variable)."""

    issued: Counter[str] = field(default_factory=Counter)
    """Statements issued so far, per pipe."""
    waited: dict[tuple[str, str], int] = field(default_factory=dict)
    """(consumer, producer) -> how many of the producer's statements the consumer has waited for."""
    last_write: dict[str, tuple[str, int]] = field(default_factory=dict)
    """tile -> (pipe, statement number) of its last writer."""
    reads: dict[str, dict[str, int]] = field(default_factory=dict)
    """tile -> pipe -> last statement of that pipe reading it since the last write."""

    def issue(self, pipe: str, reads: list[str], writes: list[str]) -> list[str]:
        """Record a statement on `pipe`; returns the pipes it must first wait for, sorted."""
        dependencies = [self.last_write.get(tile) for tile in reads + writes]
        for tile in writes:
            dependencies += self.reads.get(tile, {}).items()
        producers = sorted(
            {
                producer
                for producer, statement in filter(None, dependencies)
                if producer != pipe and self.waited.get((pipe, producer), 0) < statement
            }
        )
        for producer in producers:
            self.waited[(pipe, producer)] = self.issued[producer]
        self.issued[pipe] += 1
        statement = self.issued[pipe]
        for tile in reads:
            self.reads.setdefault(tile, {})[pipe] = statement
        for tile in writes:
            self.last_write[tile] = (pipe, statement)
            self.reads[tile] = {}
        return producers

    @property
    def idle(self) -> bool:
        """Nothing issued since the start (or the last barrier)."""
        return not self.issued

    def snapshot(self) -> PipeSync:
        return copy.deepcopy(self)
