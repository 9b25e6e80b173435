"""Vector loads and stores by distribution (PTOAS 03-vector-load-store.md): each token a NumPy
formula over the register's lanes."""

from __future__ import annotations

import numpy as np

from pto_dialect.machine import RuntimeFault
from pto_dialect.vpto.types import VRegType

from interpreter.vpto.memory import Pointer
from interpreter.vpto.predicates import lanes_of


def load(pointer: Pointer, dist: str, vreg: VRegType) -> np.ndarray:
    """The register a vlds of `dist` reads at `pointer`."""
    dtype = vreg.element.numpy
    if dist == "NORM":
        return pointer.read(vreg.lanes, dtype)
    raise RuntimeFault(f"pto-run does not run the load distribution \"{dist}\" yet")


def store(pointer: Pointer, dist: str, vreg: VRegType, value: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Write what a vsts of `dist` stores at `pointer`; the byte offsets (from it) written."""
    size = vreg.element.bytes
    if dist.startswith("NORM_B"):
        active = np.nonzero(lanes_of(mask, size))[0]
        offsets = (active[:, None] * size + np.arange(size)).reshape(-1)
        pointer.scatter_bytes(offsets, value[active].view(np.uint8).reshape(-1) if active.size else np.zeros(0, np.uint8))
        return offsets
    if dist in ("PK_B16", "PK_B32"):  # lane i's low half to the i-th half-width slot, for active lanes
        half = size // 2
        active = np.nonzero(lanes_of(mask, size))[0]
        low = np.ascontiguousarray(value).view(f"u{half}")[::2]  # little-endian: the low half comes first
        offsets = (active[:, None] * half + np.arange(half)).reshape(-1)
        pointer.scatter_bytes(offsets, low[active].view(np.uint8).reshape(-1) if active.size else np.zeros(0, np.uint8))
        return offsets
    raise RuntimeFault(f"pto-run does not run the store distribution \"{dist}\" yet")

