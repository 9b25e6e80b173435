"""
The machine model the instruction kernels run on (pto_dialect/instructions/) and the
interpreter drives.

- GM: the caller's NumPy arrays. A `!pto.ptr<T>` is its array flattened; a view
  (`GmView`) is that buffer with an element offset, a shape and element strides.
- UB: one byte array per run (size per target: its registry entry's on_chip_bytes), in which `alloc_tile addr = A`
  places tiles, so tiles at overlapping addresses alias as on hardware. A tile
  without an address gets a private buffer.
- A tile (`Tile`) is stored in its physical, padded layout: element (r, c) at
  r*Cols + c (row-major) or c*Rows + r (col-major). `values` is the logical
  Rows x Cols view of that storage; `flat` is the storage in storage order.
  Ops read and write only the valid region; padding keeps its old contents. A subview's
  tile (`Tile.window`) is storage from the window's first element on, under a type that
  keeps its tile's row stride (pto_dialect/ops/subview.py).
- Batched loops (interpreter/batch.py) run each op once over all iterations: a
  tile the loop writes then has one storage per iteration (a leading axis of
  `flat`, `values`, ...), and a view whose offset varies holds one offset per
  iteration. Everything here indexes the trailing axes (`[..., r, c]`), so the
  same code serves both.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import import_module
from inspect import signature
from math import prod
from typing import TYPE_CHECKING, Any, NamedTuple

from pto_dialect.types import TileTypeBase, gm_shape5, gm_strides5


class _ImportedOnFirstUse:
    """A module imported when one of its names is first read; each name is then kept as an
    attribute of this object, so later reads cost what a module attribute costs. The
    instruction kernels use NumPy this way: parsing and verifying a kernel never runs them
    and should not pay for NumPy's import (tests/test_startup.py)."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        value = getattr(import_module(self._name), attr)
        setattr(self, attr, value)
        return value


if TYPE_CHECKING:
    import numpy as np
else:
    np = _ImportedOnFirstUse("numpy")


VECTOR_REGISTER_BYTES = 256
"""A vector register's bytes (a5's CCE_VL), the most a register load reads past a tile's end."""


def private_storage(count: int, dtype: Any) -> np.ndarray:
    """Zeroed storage for a tile outside the run's UB (a kernel argument, an unplaced tile), followed by
    as many elements again and one vector register's bytes more: UB has bytes past a tile, which a
    register load at its end reads and a subview's tile (the tile's shape at the window's address,
    Tile.window) spans."""
    return np.zeros(2 * count + -(-VECTOR_REGISTER_BYTES // np.dtype(dtype).itemsize), dtype)[:count]


def takes_out(formula: Callable[..., object]) -> bool:
    """Whether an instruction's formula takes `out=`: a view of dst's valid region that its result
    may be computed straight into (the same values as computing it, then writing it there, one
    pass less). It returns `out` when it used it; a result of another dtype, or computed
    otherwise, it returns as a new array, which the kernel writes."""
    return "out" in signature(formula).parameters


class RuntimeFault(Exception):
    """A fault the target would raise (or undefined behaviour we refuse to guess).

    Raised by a batched op (leading iteration axis, interpreter/batch.py), it names the
    first failing iteration; its message is the one that iteration alone would give."""

    def __init__(self, message: str, iteration: int | None = None):
        super().__init__(message)
        self.iteration = iteration


class Site(NamedTuple):
    """Where an op runs, for a kernel that reports it (TPRINT takes it as its `site`
    parameter): the op's location and the induction variable of each enclosing loop,
    outermost first, as (name, value)."""

    location: str
    loops: tuple[tuple[str, int], ...]


def first_failing(bad: np.ndarray, batch_dims: int) -> tuple[int | None, tuple[int, ...]]:
    """(iteration, position) of the first True of `bad`, whose leading `batch_dims` (0 or 1)
    axes index iterations: row-major order is serial order."""
    where = tuple(int(i) for i in np.argwhere(bad)[0])
    return (where[0] if batch_dims else None), where[batch_dims:]


class Tile:
    """A tile: physical storage plus its current valid shape.

    The logical Rows x Cols view is built once: a NumPy view of the storage for
    ND/DN tiles, an array of storage offsets for boxed (fractal) ones.
    """

    __slots__ = ("type", "flat", "valid_row", "valid_col", "_view", "_offsets")

    def __init__(self, tile_type: TileTypeBase, flat: np.ndarray, valid_row: int, valid_col: int):
        self.type = tile_type
        self.flat = flat
        """The physical storage, in storage order (Rows*Cols elements; batched: iterations x that)."""
        self.valid_row = valid_row
        self.valid_col = valid_col
        rows, cols = tile_type.shape
        batch = flat.shape[:-1]
        self._offsets = storage_offsets(tile_type) if tile_type.inner_box is not None else None
        if self._offsets is not None:
            self._view = None
        elif tile_type.is_row_major:
            self._view = flat.reshape(*batch, rows, cols)
        else:
            self._view = flat.reshape(*batch, cols, rows).swapaxes(-1, -2)

    @staticmethod
    def over(tile_type: TileTypeBase, storage: np.ndarray, valid: tuple[int, int]) -> Tile:
        return Tile(tile_type, storage, valid[0], valid[1])

    @property
    def values(self) -> np.ndarray:
        """The logical Rows x Cols array: a view for ND/DN tiles, a copy for boxed ones."""
        return self._view if self._view is not None else self.flat[..., self._offsets]

    def valid_view(self) -> np.ndarray | None:
        """The valid region as a writable view of the storage (None for boxed tiles)."""
        return None if self._view is None else self._view[..., : self.valid_row, : self.valid_col]

    def read_valid(self) -> np.ndarray:
        return self.values[..., : self.valid_row, : self.valid_col]

    def write(self, rows: int, cols: int, data: np.ndarray) -> None:
        """Store `data` (rows x cols, or broadcastable) into the logical top-left corner."""
        if self._view is not None:
            self._view[..., :rows, :cols] = data
        else:
            self.flat[..., self._offsets[:rows, :cols]] = data

    def write_valid(self, data: np.ndarray) -> None:
        self.write(self.valid_row, self.valid_col, data)

    @property
    def valid_shape(self) -> tuple[int, int]:
        return (self.valid_row, self.valid_col)

    def window(self, tile_type: TileTypeBase, offset: int, valid: tuple[int, int]) -> Tile:
        """A tile of `tile_type` whose storage starts `offset` elements into this one's (pto-isa's
        TSUBVIEW: the window's address, a type that keeps the row stride). It may reach past this
        tile's storage into the memory that follows it (UB, or a private tile's slack), as the
        hardware's addressing does; past the end of that memory is a fault."""
        root = self.flat
        while isinstance(root.base, np.ndarray):
            root = root.base
        itemsize = self.flat.itemsize
        start = self.flat.__array_interface__["data"][0] - root.__array_interface__["data"][0] + offset * itemsize
        end = start + tile_type.shape[0] * tile_type.shape[1] * itemsize
        if end > root.nbytes:
            rows, cols = tile_type.shape
            raise RuntimeFault(
                f"the window's {rows}x{cols} tile at element {offset} of the {self.type.shape[0]}x{self.type.shape[1]} "
                f"tile runs past the end of its memory ({end - start} bytes from byte {start} of {root.nbytes})"
            )
        storage = np.ndarray((tile_type.shape[0] * tile_type.shape[1],), self.flat.dtype, buffer=root, offset=start)
        return Tile(tile_type, storage, valid[0], valid[1])


@dataclass(slots=True)  # not frozen: a frozen __init__ costs ~1 us, and views are made per loop iteration
class GmView:
    """A window of a GM buffer: element offset, shape and element strides."""

    buffer: np.ndarray
    """The whole argument buffer, flat."""
    offset: int | np.ndarray
    """Element offset of the window (batched: one per iteration)."""
    shape: tuple[int, ...]
    strides: tuple[int, ...]

    @property
    def shape5(self) -> tuple[int, ...]:
        """Right-aligned to pto-isa's 5-D `Shape<S0..S4>`."""
        return gm_shape5(self.shape)

    @property
    def strides5(self) -> tuple[int, ...]:
        return gm_strides5(self.shape, self.strides)

    def array(self) -> np.ndarray | None:
        """The window as a strided NumPy view of the buffer (reads and writes go through).
        Batched (one offset per iteration) with evenly spaced offsets: iterations x window;
        other batched offsets: None."""
        if isinstance(self.offset, np.ndarray):
            return self._batched_array(self.offset)
        if len(self.shape) == 2:  # the common rows x cols window: slicing is cheaper than np.ndarray(...)
            (rows, cols), (row_stride, col_stride) = self.shape, self.strides
            if col_stride == 1 and 0 < cols <= row_stride and rows > 0 and self.offset >= 0:
                if rows == 1 and self.offset + cols <= self.buffer.size:
                    return self.buffer[self.offset : self.offset + cols].reshape(1, cols)
                end = self.offset + rows * row_stride
                if end <= self.buffer.size:
                    return self.buffer[self.offset : end].reshape(rows, row_stride)[:, :cols]
        low, high = self.reach(self.offset)
        if low < 0 or high >= self.buffer.size:
            raise RuntimeFault(self._outside(self.offset))
        return self._strided((), (), self.offset)

    def reach(self, offset):
        """The lowest and highest element the window touches from `offset`."""
        low = high = offset
        for d, s in zip(self.shape, self.strides):
            if d <= 0:
                raise RuntimeFault(f"view of shape {list(self.shape)} is empty")
            if s > 0:
                high = high + (d - 1) * s
            else:
                low = low + (d - 1) * s
        return low, high

    def _outside(self, offset: int) -> str:
        return (
            f"view at element offset {offset} with shape {list(self.shape)} and strides "
            f"{list(self.strides)} is outside its GM buffer of {self.buffer.size} elements"
        )

    def _strided(self, lead_shape: tuple[int, ...], lead_strides: tuple[int, ...], offset: int) -> np.ndarray:
        itemsize = self.buffer.itemsize
        return np.ndarray(
            (*lead_shape, *self.shape),
            self.buffer.dtype,
            buffer=self.buffer,
            offset=int(offset) * itemsize,
            strides=tuple(s * itemsize for s in (*lead_strides, *self.strides)),
        )

    def _batched_array(self, offsets: np.ndarray) -> np.ndarray | None:
        """Iterations x window as one strided view when the offsets are evenly spaced (affine
        in the induction variable); None otherwise (read2d/write2d then index elements)."""
        low, high = self.reach(offsets)
        bad = (low < 0) | (high >= self.buffer.size)
        if bad.any():
            k = int(np.argmax(bad))
            raise RuntimeFault(self._outside(int(offsets[k])), iteration=k)
        step = int(offsets[1] - offsets[0]) if offsets.size > 1 else 0
        if offsets.size > 1 and not (np.diff(offsets) == step).all():
            return None
        return self._strided((offsets.size,), (step,), offsets[0])

    @property
    def shape2d(self) -> tuple[int, int]:
        """(rows, cols) with the leading dims folded into rows."""
        return prod(self.shape[:-1]), self.shape[-1]

    def offsets2d(self) -> np.ndarray:
        """Buffer offsets of the window's elements, folded to (rows, last dim); batched:
        iterations x that."""
        grids = np.meshgrid(*(np.arange(d) * s for d, s in zip(self.shape, self.strides)), indexing="ij", sparse=True)
        within = np.asarray(sum(grids)).reshape(-1, self.shape[-1])
        if isinstance(self.offset, np.ndarray):
            return self.offset[:, None, None] + within
        return self.offset + within

    def _folded(self) -> np.ndarray | None:
        """The (batched) window folded to rows x last dim as a view, if NumPy can fold it so."""
        window = self.array()
        if window is None:
            return None
        lead = window.shape[: window.ndim - len(self.shape)]
        try:
            return np.reshape(window, (*lead, -1, self.shape[-1]), copy=False)
        except ValueError:
            return None

    def _row_starts(self) -> np.ndarray:
        """Buffer offsets of the first element of each row of the folded window; batched:
        iterations x rows."""
        grids = np.meshgrid(*(np.arange(d) * s for d, s in zip(self.shape[:-1], self.strides[:-1])), indexing="ij", sparse=True)
        within = np.asarray(sum(grids), np.int64).reshape(-1)
        return np.asarray(self.offset)[..., None] + within

    def read2d(self) -> np.ndarray:
        """The window as rows x last-dim (leading dims folded into rows)."""
        cols = self.shape[-1]
        if len(self.shape) <= 2 and not isinstance(self.offset, np.ndarray):
            return self.array().reshape(-1, cols)
        folded = self._folded()  # checks the window is inside the buffer
        if folded is not None:
            return folded
        if self.strides[-1] == 1:  # rows at scattered places (a row per token id): copied row by row
            return np.lib.stride_tricks.sliding_window_view(self.buffer, cols)[self._row_starts()]
        return self.buffer[self.offsets2d()]

    def scattered_rows(self, target: np.ndarray) -> np.ndarray | None:
        """For a batched window whose rows lie at scattered places (a row per token id), each
        row the same whole number of `cols`-element lines from the buffer's start plus one
        shared remainder, which rows of the buffer seen as lines of cols elements (after that
        remainder) fill `target` (iterations x rows x cols, the window's top-left corner), for
        `take_rows`; None for any other window (read2d then reads it)."""
        if not isinstance(self.offset, np.ndarray) or self.strides[-1] != 1 or target.dtype != self.buffer.dtype:
            return None
        if self._folded() is not None:  # evenly spaced (it also checks the window is inside the buffer)
            return None
        starts = self._row_starts()
        rows, cols = target.shape[-2:]
        if target.shape[:-2] != starts.shape[:-1] or rows > starts.shape[-1] or cols != self.shape[-1]:
            return None
        starts = starts[..., :rows]
        if (starts % cols != starts.flat[0] % cols).any():
            return None
        return starts

    def take_rows(self, starts: np.ndarray, target: np.ndarray) -> None:
        """Copy the lines `scattered_rows` found into `target`, straight from the buffer: one
        pass, no temporary."""
        cols = target.shape[-1]
        skip = int(starts.flat[0]) % cols
        lines = self.buffer[skip : skip + (self.buffer.size - skip) // cols * cols].reshape(-1, cols)
        np.take(lines, starts // cols, axis=0, out=target, mode="clip")  # in range: scattered_rows checked

    def write2d(self, rows: slice, cols: slice, values: np.ndarray | np.generic) -> None:
        """Store `values` into rows x cols of the folded window."""
        last = self.shape[-1]
        if len(self.shape) <= 2 and not isinstance(self.offset, np.ndarray):
            self.array().reshape(-1, last)[rows, cols] = values
            return
        folded = self._folded()
        if folded is not None:
            folded[..., rows, cols] = values
        else:
            self.buffer[self.offsets2d()[..., rows, cols]] = values


@lru_cache(maxsize=256)
def storage_offsets(tile_type: TileTypeBase) -> np.ndarray:
    """Rows x Cols array: where each logical element lives in the tile's storage (boxed
    layouts: TileParams.storage_offset)."""
    rows, cols = tile_type.shape
    return storage_offset(tile_type, np.arange(rows)[:, None], np.arange(cols)[None, :])


def storage_offset(tile_type: TileTypeBase, r, c):  # noqa: ANN001, ANN201 (ints, or NumPy arrays broadcasting)
    """Where logical element (r, c) lives in the tile's storage."""
    rows, cols = tile_type.shape
    if tile_type.inner_box is None:
        return r * cols + c if tile_type.is_row_major else c * rows + r
    return tile_type.params.storage_offset(r, c)


class Footprint(NamedTuple):
    """What a kernel reads and writes, for deciding whether a loop's iterations are
    independent (interpreter/batch.py)."""

    tiles: Sequence[tuple[Tile, bool, np.ndarray | None]]
    """(tile, written?, storage elements; None = any element), reads before writes."""
    views: Sequence[tuple[GmView, bool, bool]]
    """(view, written?, read or written at data-dependent places of its whole buffer?). A
    kernel that writes at data-dependent places takes a leading iteration axis as the outer
    serial order (interpreter/batch.py)."""


def rect(tile: Tile, rows: int, cols: int) -> np.ndarray:
    """Storage elements of the logical top-left rows x cols corner."""
    return storage_offsets(tile.type)[:rows, :cols].reshape(-1)


def valid_rect(tile: Tile) -> np.ndarray:
    return rect(tile, tile.valid_row, tile.valid_col)
