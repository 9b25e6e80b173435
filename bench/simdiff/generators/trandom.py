"""TRANDOM: i32 / ui32 row-major tiles of a few rows, valid columns from 1 to past two 256-column
blocks (fewer than the tile's at times, given at run time at times), 7 or 10 rounds (or omitted),
key and counter words drawn from extremes and any value (counters near 2**32 carry into the next
word); dst loaded with random bits first, so what TRANDOM leaves alone must survive."""

from __future__ import annotations

import random

import numpy as np

from bench.simdiff.kernel import Case, Kernel, Tile, align, maybe_dynamic, per_block

WORD_EDGES = (0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFC0)


def _word(rng: random.Random) -> np.int32:
    value = rng.choice([*WORD_EDGES, rng.getrandbits(32), rng.getrandbits(32)])
    return np.int32(value - (1 << 32) if value >= 1 << 31 else value)  # the word's bits as i32


def trandom(rng: random.Random) -> Case:
    dtype = rng.choice(["i32", "ui32"])
    rows, cols = rng.randint(1, 4), rng.choice([rng.randint(1, 64), rng.randint(1, 600), 256, 512])
    dst = maybe_dynamic(rng, Tile("vec", rows + rng.choice([0, 0, 1]), align(cols + rng.choice([0, 0, 8, 40]), per_block(dtype)), dtype, (rows, cols)))
    rounds = rng.choice([None, 7, 10])
    k = Kernel(rng, "TRANDOM", f"{dst} rounds {rounds or 'default'}")
    words = [k.scalar("i32", _word(rng), role) for role in ("key0", "key1", "counter0", "counter1", "counter2", "counter3")]
    attr = "" if rounds is None else f" {{rounds = {rounds} : i32}}"
    return k.into(dst, f"pto.trandom ins({', '.join(words)}{attr} : {', '.join(['i32'] * 6)}) outs(%d : {dst})")


FORMS = {"trandom": trandom}
