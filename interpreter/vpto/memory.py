"""
The register level's memory model: a `!pto.ptr` at run time is a byte address into one byte array,
the UB (the target's on-chip `vec` memory, one array for the whole run, interpreter/state.py) or a GM
argument's array (the caller's flat array, viewed as bytes). Every access is checked against its
array: past it is a run-time fault naming the bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from xdsl.interpreter import Interpreter

from pto_dialect.machine import RuntimeFault
from pto_dialect.types import PtrType
from targets.info import MEMORY_NAMES

from interpreter.state import run_state


@dataclass(frozen=True)
class Pointer:
    """A typed byte address into `memory` (uint8)."""

    memory: np.ndarray
    byte: int
    element: np.dtype
    space: str
    owner: np.ndarray | None = None
    """A GM argument's own array (what the run's stored-to marks name)."""
    extent: tuple[int, int] | None = None
    """The bytes [first, stop) of the tile the pointer was taken from (pto.tile_buf_addr): what a gather
    or scatter through it may touch (interpreter/vpto/gather.py)."""

    @property
    def where(self) -> str:
        return "UB" if self.space == "ub" else "the GM argument"

    def advanced(self, elements: int) -> Pointer:
        return replace(self, byte=self.byte + int(elements) * self.element.itemsize)

    def advanced_bytes(self, count: int) -> Pointer:
        return replace(self, byte=self.byte + int(count))

    def as_type(self, element: np.dtype) -> Pointer:
        return replace(self, element=element)

    def check(self, first: int, stop: int, what: str) -> None:
        """Bytes [first, stop) (absolute) lie inside the memory."""
        if first < 0 or stop > self.memory.size:
            raise RuntimeFault(
                f"{what} bytes [{first}, {stop}) of {self.where}, which holds {self.memory.size} bytes"
            )

    def read(self, count: int, dtype: np.dtype, byte_offset: int = 0) -> np.ndarray:
        """`count` elements of `dtype` from byte `self.byte + byte_offset` (a copy)."""
        start = self.byte + byte_offset
        stop = start + count * dtype.itemsize
        self.check(start, stop, "reads")
        return self.memory[start:stop].view(dtype).copy()

    def write(self, values: np.ndarray, byte_offset: int = 0) -> None:
        data = np.ascontiguousarray(values).view(np.uint8).reshape(-1)
        start = self.byte + byte_offset
        self.check(start, start + data.size, "writes")
        self.memory[start : start + data.size] = data

    def gather_bytes(self, offsets: np.ndarray) -> np.ndarray:
        """The bytes at `self.byte + offsets` (any shape)."""
        absolute = self.byte + offsets
        if absolute.size:
            self.check(int(absolute.min()), int(absolute.max()) + 1, "reads")
        return self.memory[absolute]

    def scatter_bytes(self, offsets: np.ndarray, data: np.ndarray) -> None:
        """`data` to the bytes at `self.byte + offsets` (in order: a later one wins)."""
        absolute = self.byte + offsets
        if absolute.size:
            self.check(int(absolute.min()), int(absolute.max()) + 1, "writes")
        self.memory[absolute] = data


def ub_memory(interpreter: Interpreter) -> np.ndarray:
    """The run's UB: the target's on-chip `vec` memory as one byte array."""
    target = run_state(interpreter).target
    register_level = target.register_level
    if register_level is None:
        raise RuntimeFault(f"target {target} has no register level")
    memory = run_state(interpreter).memory(register_level.ub_loc)
    assert memory is not None, f"{MEMORY_NAMES[register_level.ub_loc]} is an on-chip memory of {target}"
    return memory


def as_pointer(interpreter: Interpreter, value: object, ptr_type: PtrType) -> Pointer:
    """The run-time pointer of a `!pto.ptr` value: a Pointer already, or a GM argument's flat array."""
    if isinstance(value, Pointer):
        return value
    if isinstance(value, np.ndarray):
        flat = value.reshape(-1)
        return Pointer(flat.view(np.uint8), 0, ptr_type.element.numpy, ptr_type.space.data, owner=value)
    raise RuntimeFault(f"expected a pointer, got {type(value).__name__}")


def mark_stored(interpreter: Interpreter, pointer: Pointer, byte_offsets: np.ndarray) -> None:
    """Record the GM elements a store wrote (what pto-run shows of an argument)."""
    stored = run_state(interpreter).gm_writes
    if stored is None or pointer.owner is None:
        return
    flags = stored.flags(pointer.owner)
    flags[np.unique((pointer.byte + byte_offsets.reshape(-1)) // pointer.owner.itemsize)] = True
