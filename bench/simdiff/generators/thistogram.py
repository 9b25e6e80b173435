"""THISTOGRAM: ui16 (bytes 0, 1) and ui32 (bytes 0 to 3) sources of a few rows, valid columns fewer
than the tile's at times (given at run time at times), element bytes drawn from a few values so
that the cascaded filters match often; idx a row-major ui8 tile of a match byte per row (ui16) or
of the filter's rows (ui32), which cpu reads at column 0; dst of 256 or 512 columns, rows beyond
src's valid ones kept."""

from __future__ import annotations

import random

import numpy as np

from bench.simdiff.kernel import Case, Kernel, Tile, align, maybe_dynamic, numpy_dtype, per_block

BYTE_VALUES = (0, 1, 7, 128, 255)


def _bytes(rng: random.Random, shape: tuple[int, ...]) -> np.ndarray:
    """Bytes mostly from BYTE_VALUES, some of any value."""
    draw = np.random.default_rng(rng.getrandbits(64))
    few = draw.choice(np.array(BYTE_VALUES, np.uint64), size=shape)
    return np.where(draw.random(shape) < 0.8, few, draw.integers(0, 256, size=shape, dtype=np.uint64))


def thistogram(rng: random.Random) -> Case:
    dtype = rng.choice(["ui16", "ui32"])
    size = numpy_dtype(dtype).itemsize
    byte = rng.randrange(size)
    rows, cols = rng.randint(1, 8), rng.randint(1, 300)
    src = maybe_dynamic(rng, Tile("vec", rows + rng.choice([0, 0, 2]), align(cols + rng.choice([0, 0, 5]), per_block(dtype)), dtype, (rows, cols)))
    weights = np.uint64(1) << (np.uint64(8) * np.arange(size, dtype=np.uint64))
    data = (_bytes(rng, (rows, cols, size)) * weights).sum(axis=-1).astype(numpy_dtype(dtype))
    idx_rows = src.rows if size == 2 else max(1, 3 - byte)
    idx = Tile("vec", idx_rows, per_block("ui8"), "ui8", (idx_rows, 1))
    dst = Tile("vec", src.rows + rng.choice([0, 0, 3]), rng.choice([256, 256, 512]), "ui32")
    k = Kernel(rng, "THISTOGRAM", f"{src} byte {byte} -> {dst}")
    k.load("s", src, data)
    k.load("i", idx, _bytes(rng, (idx_rows, 1)).astype(np.uint8))
    k.load("d", dst)
    k.op(f"pto.thistogram ins(%s, %i : {src}, {idx}) outs(%d : {dst}) {{byte = {byte} : i32}}")
    k.store("d")
    return k.case()


FORMS = {"thistogram": thistogram}
