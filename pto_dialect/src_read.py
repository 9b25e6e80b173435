"""
A tile's valid region as a target reads it, by the lowered op's `src_read` choice: through
the tile's layout, or its storage addressed as if row-major (a2a3 reads a DN src so).
"""

from __future__ import annotations

from pto_dialect.choices import SrcRead
from pto_dialect.machine import Tile, np, valid_rect


def valid_values(tile: Tile, src_read: SrcRead) -> np.ndarray:
    """A tile's valid region as the target reads it: through its layout, or its storage
    addressed as if it were row-major (a2a3 reads a DN src so)."""
    match src_read:
        case SrcRead.LAYOUT:
            return tile.read_valid()
        case SrcRead.ROW_MAJOR_STORAGE:
            rows, cols = tile.type.shape
            return tile.flat.reshape(*tile.flat.shape[:-1], rows, cols)[..., : tile.valid_row, : tile.valid_col]


def valid_reads(tile: Tile, src_read: SrcRead) -> np.ndarray:
    """The elements valid_values reads, for a Footprint."""
    match src_read:
        case SrcRead.LAYOUT:
            return valid_rect(tile)
        case SrcRead.ROW_MAJOR_STORAGE:
            cols = tile.type.shape[1]
            return (np.arange(tile.valid_row)[:, None] * cols + np.arange(tile.valid_col)[None, :]).reshape(-1)
