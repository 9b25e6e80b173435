"""
Which of several writes to one place survives: the scatters (TSCATTER, MSCATTER) resolve
colliding indices by a rank each target's write order gives.
"""

from __future__ import annotations

from pto_dialect.machine import np


def surviving_writes(dest: np.ndarray, rank: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(each destination written, the position in `dest` of the write that survives there):
    the write of highest rank. Whole-array, and deterministic where NumPy's fancy assignment
    with repeated indices is not."""
    order = np.lexsort((rank, dest))
    ordered = dest[order]
    last = np.ones(ordered.size, dtype=bool)
    last[:-1] = ordered[1:] != ordered[:-1]
    return ordered[last], order[last]
