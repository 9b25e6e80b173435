"""Vector loads and stores by distribution (PTOAS 03-vector-load-store.md), each a NumPy formula over the
register's bytes: a distribution names the lane width it works at (`_B16`: 16-bit lanes), whatever the
register's element type; the result is viewed as the register's type."""

from __future__ import annotations

import re

import numpy as np

from pto_dialect.machine import RuntimeFault
from pto_dialect.vpto.load_store import BLOCK_BYTES
from pto_dialect.vpto.types import VECTOR_BYTES, VRegType

from interpreter.vpto.memory import Pointer
from interpreter.vpto.predicates import lanes_of


def dist_width(dist: str, default: int) -> int:
    """The lane width (bytes) a `_Bn` distribution works at; `default` for one without."""
    found = re.search(r"_B(\d+)$", dist)
    return int(found.group(1)) // 8 if found else default


def _lanes(width: int) -> np.dtype:
    """Raw lanes of `width` bytes (distributions move bits, not values)."""
    return np.dtype(f"u{width}")


def load(pointer: Pointer, dist: str, vreg: VRegType) -> np.ndarray:
    """The register a vlds of `dist` reads at `pointer`."""
    width = dist_width(dist, vreg.element.bytes)
    lanes = _lanes(width)
    if dist == "NORM":
        data = pointer.read(VECTOR_BYTES, np.dtype(np.uint8))
    elif dist == "BRC_BLK":  # one 32-byte block in every block
        data = np.tile(pointer.read(BLOCK_BYTES, np.dtype(np.uint8)), VECTOR_BYTES // BLOCK_BYTES)
    elif dist.startswith("BRC_B"):  # one element in every lane
        data = np.resize(pointer.read(1, lanes), VECTOR_BYTES // width).view(np.uint8)
    elif dist.startswith("US_B"):  # half a register of elements, each twice
        data = np.repeat(pointer.read(VECTOR_BYTES // 2 // width, lanes), 2).view(np.uint8)
    elif dist.startswith("DS_B"):  # two registers of elements, every other one
        data = np.ascontiguousarray(pointer.read(2 * VECTOR_BYTES // width, lanes)[::2]).view(np.uint8)
    elif dist.startswith("UNPK_B"):  # half a register of elements, each zero-extended to twice its width
        half = pointer.read(VECTOR_BYTES // 2 // width, lanes)
        data = np.stack([half, np.zeros_like(half)], axis=1).reshape(-1).view(np.uint8)
    elif dist == "UNPK4":  # a quarter register of bytes, each zero-extended to 32 bits (pto-isa TDeQuant)
        data = np.zeros((VECTOR_BYTES // 4, 4), np.uint8)
        data[:, 0] = pointer.read(VECTOR_BYTES // 4, np.dtype(np.uint8))
        data = data.reshape(-1)
    elif dist.startswith("E2B_B"):  # element b to every lane of block b (pto-isa TRowExpandBrcb)
        blocks = VECTOR_BYTES // BLOCK_BYTES
        data = np.repeat(pointer.read(blocks, lanes), BLOCK_BYTES // width).view(np.uint8)
    else:
        raise RuntimeFault(f"pto-run does not run the load distribution \"{dist}\" yet")
    return data.view(vreg.element.numpy).copy()


def store(pointer: Pointer, dist: str, vreg: VRegType, value: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Write what a vsts of `dist` stores at `pointer`; the byte offsets (from it) written."""
    raw = np.ascontiguousarray(value).view(np.uint8)
    width = dist_width(dist, vreg.element.bytes)
    if dist.startswith("NORM_B"):  # the active lanes, in place
        return _write_lanes(pointer, raw.view(_lanes(width)), lanes_of(mask, width), width)
    if dist.startswith("1PT_B"):  # element 0 only, whatever the mask
        offsets = np.arange(width)
        pointer.scatter_bytes(offsets, raw[:width])
        return offsets
    packed = _PACKED.get(dist)
    if packed is not None:  # the low bytes of each active lane, packed
        lane_width, kept, mask_width = packed
        lanes = raw.reshape(-1, lane_width)[:, :kept]
        active = lanes_of(mask, mask_width)[: lanes.shape[0]]
        return _write_lanes(pointer, lanes.reshape(-1).view(_lanes(kept)), active, kept)
    raise RuntimeFault(f"pto-run does not run the store distribution \"{dist}\" yet")


_PACKED = {"PK_B16": (2, 1, 2), "PK_B32": (4, 2, 4), "PK_B64": (8, 4, 8), "PK4_B32": (4, 1, 4)}
"""Packed stores: (lane bytes, low bytes kept, the mask's lane bytes)."""


def _write_lanes(pointer: Pointer, lanes: np.ndarray, active: np.ndarray, width: int) -> np.ndarray:
    chosen = np.nonzero(active[: lanes.size])[0]
    offsets = (chosen[:, None] * width + np.arange(width)).reshape(-1)
    pointer.scatter_bytes(offsets, lanes[chosen].view(np.uint8).reshape(-1))
    return offsets


def load_x2(pointer: Pointer, dist: str, vreg: VRegType) -> tuple[np.ndarray, np.ndarray]:
    """vldsx2: (low, high) from two registers' bytes: even and odd elements (DINTLV_Bn) or blocks (BDINTLV)."""
    width = BLOCK_BYTES if dist == "BDINTLV" else dist_width(dist, vreg.element.bytes)
    units = pointer.read(2 * VECTOR_BYTES, np.dtype(np.uint8)).reshape(-1, width)
    return units[0::2].reshape(-1).view(vreg.element.numpy).copy(), units[1::2].reshape(-1).view(vreg.element.numpy).copy()


def store_x2(pointer: Pointer, dist: str, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """vstsx2 INTLV_Bn: low[i], high[i], ... over two registers' bytes (the mask is ignored)."""
    width = dist_width(dist, low.dtype.itemsize)
    pair = np.stack([np.ascontiguousarray(low).view(np.uint8).reshape(-1, width),
                     np.ascontiguousarray(high).view(np.uint8).reshape(-1, width)], axis=1)
    data = pair.reshape(-1)
    pointer.write(data)
    return np.arange(data.size)


def _block_offsets(block_stride: int, active: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Byte offsets (blocks x 32) of the active blocks, block b at `b * block_stride` blocks."""
    blocks = np.nonzero(active)[0]
    return ((blocks * block_stride)[:, None] * BLOCK_BYTES + np.arange(BLOCK_BYTES)).reshape(-1), blocks


def load_blocks(pointer: Pointer, block_stride: int, mask: np.ndarray, lane_bytes: int, vreg: VRegType) -> np.ndarray:
    """vsldb: block b of the register from block `b * block_stride`; a block whose lane b (in the mask's own
    view, as PTOAS's spec writes `pg[blk]`) is off reads nothing and is zero."""
    count = VECTOR_BYTES // BLOCK_BYTES
    offsets, blocks = _block_offsets(block_stride, lanes_of(mask, lane_bytes)[:count])
    data = np.zeros((count, BLOCK_BYTES), np.uint8)
    data[blocks] = pointer.gather_bytes(offsets).reshape(-1, BLOCK_BYTES)
    return data.reshape(-1).view(vreg.element.numpy).copy()


def store_blocks(pointer: Pointer, block_stride: int, mask: np.ndarray, lane_bytes: int, value: np.ndarray) -> np.ndarray:
    """vsstb: block b of the register to block `b * block_stride`, for the blocks whose mask lane b is on."""
    count = VECTOR_BYTES // BLOCK_BYTES
    offsets, blocks = _block_offsets(block_stride, lanes_of(mask, lane_bytes)[:count])
    data = np.ascontiguousarray(value).view(np.uint8).reshape(count, BLOCK_BYTES)
    pointer.scatter_bytes(offsets, data[blocks].reshape(-1))
    return offsets
