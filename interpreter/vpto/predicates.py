"""Predicate registers at run time: 256 booleans, one per vector-register byte; lane i of a
`!pto.mask<bN>` view is bit i * N/8 (PTOAS 05-materialization-predicate.md, "Mask Granularity")."""

from __future__ import annotations

import numpy as np

from pto_dialect.vpto.predicates import pattern_lanes
from pto_dialect.vpto.types import PREDICATE_BITS, MaskType

PREDICATE_BYTES = PREDICATE_BITS // 8
"""A predicate register stored whole (psts NORM)."""


def empty_mask() -> np.ndarray:
    return np.zeros(PREDICATE_BITS, dtype=bool)


def lanes_of(bits: np.ndarray, lane_bytes: int) -> np.ndarray:
    """The mask's lanes at a granularity: the bit of each lane's first byte."""
    return bits[::lane_bytes]


def from_lanes(active: np.ndarray, lane_bytes: int) -> np.ndarray:
    """A predicate register whose lanes (at `lane_bytes`) are `active`."""
    bits = empty_mask()
    bits[::lane_bytes][: active.size] = active
    return bits


def pattern_mask(pattern: str, mask_type: MaskType) -> np.ndarray:
    kind, n = pattern_lanes(pattern, mask_type.lanes)
    lane = np.arange(mask_type.lanes)
    return from_lanes(lane < n if kind == "prefix" else lane % n == 0, mask_type.lane_bytes)


def packed(bits: np.ndarray) -> np.ndarray:
    """The register's bits as bytes, bit j in byte j // 8 at bit j % 8 (how psts stores it)."""
    return np.packbits(bits, bitorder="little")


def unpacked(data: np.ndarray) -> np.ndarray:
    return np.unpackbits(data.astype(np.uint8), bitorder="little").astype(bool)
