"""TCI: one-row i16/ui16/i32/ui32 tiles, valid columns fewer than the tile's at times, any start
(the extremes too: the sequence wraps), ascending and descending."""

from __future__ import annotations

import random

import numpy as np

from bench.simdiff.kernel import Case, Kernel, Tile, align, maybe_dynamic, numpy_dtype, per_block


def tci(rng: random.Random) -> Case:
    dtype = rng.choice(["i16", "ui16", "i32", "ui32"])
    valid = rng.randint(2, 200)
    tile = maybe_dynamic(rng, Tile("vec", 1, align(valid + rng.choice([0, 0, 7]), per_block(dtype)), dtype, (1, valid)))
    info = np.iinfo(numpy_dtype(dtype))
    start = rng.choice([0, 1, int(info.min), int(info.max), rng.randint(int(info.min), int(info.max))])
    descending = rng.random() < 0.5
    k = Kernel(rng, "TCI", f"{dtype} {tile} start {start}{' descending' if descending else ''}")
    s = k.scalar(dtype, numpy_dtype(dtype).type(start))
    k.load("d", tile)
    k.op(f"pto.tci ins({s} : {dtype}) outs(%d : {tile})" + (" {descending = true}" if descending else ""))
    k.store("d")
    return k.case()


FORMS = {"tci": tci}
