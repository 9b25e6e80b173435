"""
Write the input arrays of a tests/filecheck/run kernel to DIR/in/*.npy.

    python make_inputs.py KERNEL DIR        KERNEL: mgather | tgather | tgather_compare | tcolargmin

Deterministic (fixed seeds); check.py reads the same files back.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

SENTINEL = -1


def mgather() -> dict[str, np.ndarray]:
    table = (100 * np.arange(7)[:, None] + np.arange(16)[None, :]).astype(np.float32)
    ids = np.array([0, 6, 7, 9, -1, -2, -7, -(2**31), 2**31 - 1, 3, 13, -3, 5, 14, 1, 100000], np.int32)
    flat = (np.arange(100) * 0.5).astype(np.float16)
    pos = np.random.default_rng(1).integers(-20, 130, size=(4, 16)).astype(np.int32)
    pos[0, :4] = [-1, 99, 100, -(2**31)]
    return {
        "table": table.ravel(),
        "ids": ids,
        "rows": np.full(16 * 16, SENTINEL, np.float32),
        "flat": flat,
        "pos": pos.ravel(),
        "vals": np.full(4 * 16, SENTINEL, np.float16),
    }


def tgather() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2)
    x = (rng.integers(-1000, 1000, size=(32, 64)) / 4).astype(np.float32)
    perm = rng.integers(0, 16 * 64, size=(16, 64)).astype(np.int32)
    perm_oob = perm.copy()
    perm_oob[3, 5] = 1024
    perm_oob[7, 0] = -1
    return {
        "x": x.ravel(),
        "perm": perm.ravel(),
        "perm_oob": perm_oob.ravel(),
        "y": np.full(32 * 64, SENTINEL, np.float32),
        "h": np.full(32 * 16, SENTINEL, np.float32),
    }


def tgather_compare() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3)
    x = rng.integers(0, 100, size=(8, 40)).astype(np.float32)
    x[0, :6] = [80.4, 80.5, 81.5, -3.0, 80.0, 81.0]  # a2a3 / a5 disagree on 80.4, 80.5, -3.0
    x[5, :] = 10.0  # no hit in row 5
    return {
        "x": x.ravel(),
        "hits": np.full(8 * 64, SENTINEL, np.int32),
        "cnt": np.full(8, SENTINEL, np.int32),
    }


def tcolargmin() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(4)
    x = rng.integers(-5, 5, size=(30, 128)).astype(np.float32)  # many ties
    x[0, 0] = np.nan  # NaN at row 0
    x[:, 1] = [5, np.nan, 1, 7] + [9] * 26  # a later NaN
    x[:, 65] = [3, 1, 1, 2] + [4] * 26  # first minimum wins
    x[12, 100] = np.nan
    x[20, 100] = -50
    return {
        "x": x.ravel(),
        "idx": np.full(128, 7777, np.uint32),
        "vmin": np.full(128, SENTINEL, np.float32),
        "vidx": np.full(128, SENTINEL, np.int32),
    }


KERNELS = {"mgather": mgather, "tgather": tgather, "tgather_compare": tgather_compare, "tcolargmin": tcolargmin}


def main() -> None:
    kernel, out = sys.argv[1], Path(sys.argv[2]) / "in"
    out.mkdir(parents=True, exist_ok=True)
    for name, array in KERNELS[kernel]().items():
        np.save(out / f"{name}.npy", array)


if __name__ == "__main__":
    main()
