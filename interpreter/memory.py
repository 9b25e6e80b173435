"""
The interpreter's memory model (issue: "Memory model").

- GM: the caller's NumPy arrays. A `!pto.ptr<T>` is its array flattened; a view
  (`GmView`) is that buffer with an element offset, a shape and element strides.
- UB: one byte array per run (size per target: its registry entry's on_chip_bytes), in which `alloc_tile addr = A`
  places tiles, so tiles at overlapping addresses alias as on hardware. A tile
  without an address gets a private buffer.
- A tile (`Tile`) is stored in its physical, padded layout: element (r, c) at
  r*Cols + c (row-major) or c*Rows + r (col-major). `values` is the logical
  Rows x Cols view of that storage; `flat` is the storage in storage order.
  Ops read and write only the valid region; padding keeps its old contents.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import prod

import numpy as np

from pto_dialect.types import TileTypeBase, gm_shape5, gm_strides5


class RuntimeFault(Exception):
    """A fault the target would raise (or undefined behaviour we refuse to guess)."""


class Tile:
    """A tile: physical storage plus its current valid shape.

    The logical Rows x Cols view is built once: a NumPy view of the storage for
    ND/DN tiles, an array of storage offsets for boxed (fractal) ones.
    """

    __slots__ = ("type", "flat", "valid_row", "valid_col", "_view", "_offsets")

    def __init__(self, tile_type: TileTypeBase, flat: np.ndarray, valid_row: int, valid_col: int):
        self.type = tile_type
        self.flat = flat
        """The physical storage, in storage order (Rows*Cols elements)."""
        self.valid_row = valid_row
        self.valid_col = valid_col
        rows, cols = tile_type.shape
        self._offsets = storage_offsets(tile_type) if tile_type.inner_box is not None else None
        if self._offsets is not None:
            self._view = None
        elif tile_type.is_row_major:
            self._view = flat.reshape(rows, cols)
        else:
            self._view = flat.reshape(cols, rows).T

    @staticmethod
    def over(tile_type: TileTypeBase, storage: np.ndarray, valid: tuple[int, int]) -> Tile:
        return Tile(tile_type, storage, valid[0], valid[1])

    @property
    def values(self) -> np.ndarray:
        """The logical Rows x Cols array: a view for ND/DN tiles, a copy for boxed ones."""
        return self._view if self._view is not None else self.flat[self._offsets]

    def valid_view(self) -> np.ndarray | None:
        """The valid region as a writable view of the storage (None for boxed tiles)."""
        return None if self._view is None else self._view[: self.valid_row, : self.valid_col]

    def read_valid(self) -> np.ndarray:
        return self.values[: self.valid_row, : self.valid_col]

    def write(self, rows: int, cols: int, data: np.ndarray) -> None:
        """Store `data` (rows x cols, or broadcastable) into the logical top-left corner."""
        if self._view is not None:
            self._view[:rows, :cols] = data
        else:
            self.flat[self._offsets[:rows, :cols]] = data

    def write_valid(self, data: np.ndarray) -> None:
        self.write(self.valid_row, self.valid_col, data)

    @property
    def valid_shape(self) -> tuple[int, int]:
        return (self.valid_row, self.valid_col)


@dataclass(slots=True)  # not frozen: a frozen __init__ costs ~1 us, and views are made per loop iteration
class GmView:
    """A window of a GM buffer: element offset, shape and element strides."""

    buffer: np.ndarray
    """The whole argument buffer, flat."""
    offset: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]

    @property
    def shape5(self) -> tuple[int, ...]:
        """Right-aligned to pto-isa's 5-D `Shape<S0..S4>`."""
        return gm_shape5(self.shape)

    @property
    def strides5(self) -> tuple[int, ...]:
        return gm_strides5(self.shape, self.strides)

    def array(self) -> np.ndarray:
        """The window as a strided NumPy view of the buffer (reads and writes go through)."""
        if len(self.shape) == 2:  # the common rows x cols window: slicing is cheaper than np.ndarray(...)
            (rows, cols), (row_stride, col_stride) = self.shape, self.strides
            if col_stride == 1 and 0 < cols <= row_stride and rows > 0 and self.offset >= 0:
                if rows == 1 and self.offset + cols <= self.buffer.size:
                    return self.buffer[self.offset : self.offset + cols].reshape(1, cols)
                end = self.offset + rows * row_stride
                if end <= self.buffer.size:
                    return self.buffer[self.offset : end].reshape(rows, row_stride)[:, :cols]
        low = high = self.offset
        for d, s in zip(self.shape, self.strides):
            if d <= 0:
                raise RuntimeFault(f"view of shape {list(self.shape)} is empty")
            if s > 0:
                high += (d - 1) * s
            else:
                low += (d - 1) * s
        if low < 0 or high >= self.buffer.size:
            raise RuntimeFault(
                f"view at element offset {self.offset} with shape {list(self.shape)} and strides "
                f"{list(self.strides)} is outside its GM buffer of {self.buffer.size} elements"
            )
        itemsize = self.buffer.itemsize
        return np.ndarray(
            self.shape,
            self.buffer.dtype,
            buffer=self.buffer,
            offset=self.offset * itemsize,
            strides=tuple(s * itemsize for s in self.strides),
        )

    @property
    def shape2d(self) -> tuple[int, int]:
        """(rows, cols) with the leading dims folded into rows."""
        return prod(self.shape[:-1]), self.shape[-1]

    def offsets2d(self) -> np.ndarray:
        """Buffer offsets of the window's elements, folded to (rows, last dim)."""
        grids = np.meshgrid(*(np.arange(d) * s for d, s in zip(self.shape, self.strides)), indexing="ij", sparse=True)
        return (self.offset + sum(grids)).reshape(-1, self.shape[-1])

    def read2d(self) -> np.ndarray:
        """The window as rows x last-dim (leading dims folded into rows)."""
        if len(self.shape) <= 2:
            return self.array().reshape(-1, self.shape[-1])
        self.array()  # bounds check
        return self.buffer[self.offsets2d()]

    def write2d(self, rows: slice, cols: slice, values: np.ndarray) -> None:
        """Store `values` into rows x cols of the folded window."""
        if len(self.shape) <= 2:
            self.array().reshape(-1, self.shape[-1])[rows, cols] = values
            return
        self.array()
        self.buffer[self.offsets2d()[rows, cols]] = values


@lru_cache(maxsize=256)
def storage_offsets(tile_type: TileTypeBase) -> np.ndarray:
    """Rows x Cols array: where each logical element lives in the tile's storage.

    Boxes of `inner_box` are ordered by blayout (row_major: along rows of boxes;
    col_major: down columns of boxes), elements inside a box by slayout. NZ
    (col_major + row_major boxes of 16 x C0) gives (c // C0)*Rows*C0 + r*C0 + c % C0.
    """
    rows, cols = tile_type.shape
    r = np.arange(rows)[:, None]
    c = np.arange(cols)[None, :]
    box = tile_type.inner_box
    if box is None:
        return r * cols + c if tile_type.is_row_major else c * rows + r
    br, bc = box
    box_row, in_r = divmod(r, br)
    box_col, in_c = divmod(c, bc)
    if tile_type.is_row_major:
        box_index = box_row * (cols // bc) + box_col
    else:
        box_index = box_col * (rows // br) + box_row
    inner = in_r * bc + in_c if tile_type.slayout.data == "row_major" else in_c * br + in_r
    return box_index * (br * bc) + inner
