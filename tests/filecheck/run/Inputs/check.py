"""
Check what pto-run wrote for a tests/filecheck/run kernel against NumPy
formulas written here from pto-isa's per-target code (never from the project's kernels).

    python check.py KERNEL TARGET DIR

Reads DIR/in/*.npy (make_inputs.py) and DIR/<out>/argI.npy (pto-run --out);
prints `KERNEL TARGET: OK`, or what differs and exits 1.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np


def as_unsigned(i: int, target: str) -> int:
    """semantics.md §1.2: cpu widens an index to 64 bits (sign-extending), a2a3 / a5 read 32 bits."""
    return int(i) & ((1 << 64) - 1 if target == "cpu" else (1 << 32) - 1)


def mgather(inp: dict, target: str) -> list[np.ndarray]:
    table, ids, flat, pos = inp["table"].reshape(7, 16), inp["ids"], inp["flat"], inp["pos"]
    rows = np.stack([table[as_unsigned(i, target) % 7] for i in ids])  # wrap over 7 rows
    vals = np.array([flat[min(as_unsigned(i, target), flat.size - 1)] for i in pos], np.float16)  # clamp
    return [inp["table"], ids, rows.ravel(), flat, pos, vals]


def tgather(inp: dict, target: str, perm_name: str = "perm") -> list[np.ndarray]:
    x, perm = inp["x"].reshape(32, 64), inp[perm_name].reshape(16, 64)
    y = np.zeros((32, 64), np.float32)
    h = np.zeros((32, 16), np.float32)
    for b in range(2):
        blk = x[16 * b : 16 * b + 16]
        storage = blk.ravel()
        for (i, j), p in np.ndenumerate(perm):
            y[16 * b + i, j] = storage[p] if 0 <= p < storage.size else 0.0  # cpu: out of range reads 0
        h[16 * b : 16 * b + 16] = blk[:, 3::4]  # P1000: columns 3, 7, 11, ...
    return [inp["x"], inp[perm_name], y.ravel(), h.ravel()]


def tgather_compare(inp: dict, target: str) -> list[np.ndarray]:
    x = inp["x"].reshape(8, 40)
    hits = inp["hits"].reshape(8, 64).copy()
    counts = np.zeros(8, np.int32)
    for i in range(8):
        found = []
        for j in range(40):
            if target == "a2a3":
                hit, number = x[i, j] > 80.0, 100 + i * 48 + j
            else:
                # a5: round to int (nearest even), then compare as uint32
                hit, number = (int(np.rint(x[i, j])) & 0xFFFFFFFF) > 80, 100 + i * 64 + j
            if hit:
                found.append(number)
        hits[i, : len(found)] = found
        counts[i] = len(found)
    return [inp["x"], hits.ravel(), counts]


def argmin_column(column: np.ndarray, target: str) -> int:
    cur, idx = float(column[0]), 0
    for i in range(1, column.size):
        v = float(column[i])
        if target == "a2a3":
            # cur <= x[i] fails (NaN included): replace; vmin propagates NaN
            if not (cur <= v):
                idx = i
            cur = math.nan if (math.isnan(cur) or math.isnan(v)) else min(cur, v)
        elif v < cur:  # cpu / a5: typed `<`, first minimum
            cur, idx = v, i
    return idx


def tcolargmin(inp: dict, target: str) -> list[np.ndarray]:
    x = inp["x"].reshape(30, 128)
    idx = np.array([argmin_column(x[:, j], target) for j in range(128)])
    return [inp["x"], idx.astype(np.uint32), x[idx, np.arange(128)].astype(np.float32), idx.astype(np.int32)]


def same(actual: np.ndarray, expected: np.ndarray) -> bool:
    if actual.dtype != expected.dtype or actual.shape != expected.shape:
        return False
    width = actual.dtype.itemsize
    return np.array_equal(actual.view(f"u{width}"), expected.view(f"u{width}"))


def describe(i: int, got: np.ndarray, want: np.ndarray) -> str:
    text = f"arg{i}: got {got.dtype}{list(got.shape)}, expected {want.dtype}{list(want.shape)}"
    if got.shape == want.shape and got.dtype == want.dtype:
        u = f"u{got.dtype.itemsize}"
        where = np.flatnonzero(got.reshape(-1).view(u) != want.reshape(-1).view(u))[:8]
        text += f"; first differences at flat {where.tolist()}: got {got.reshape(-1)[where]}, expected {want.reshape(-1)[where]}"
    return text


def main() -> None:
    kernel, target, root = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    inp = {p.stem: np.load(p) for p in (root / "in").glob("*.npy")}
    if kernel == "tgather_oob":
        expected, out = tgather(inp, target, "perm_oob"), root / "oob"
    else:
        fn = {"mgather": mgather, "tgather": tgather, "tgather_compare": tgather_compare, "tcolargmin": tcolargmin}[kernel]
        expected, out = fn(inp, target), root / target
    bad = []
    for i, want in enumerate(expected):
        got = np.load(out / f"arg{i}.npy")
        if not same(got, want):
            bad.append(describe(i, got, want))
    if bad:
        print(f"{kernel} {target}: MISMATCH")
        print("\n".join(bad))
        sys.exit(1)
    print(f"{kernel} {target}: OK")


if __name__ == "__main__":
    main()
