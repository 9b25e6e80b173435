"""TTRI: row-major tiles of the cpu types (i16 / ui16 / i32 / ui32 / f16 / f32, bf16 with --cxx), valid shapes
smaller than the tile at times (given at run time at times), lower and upper, diagonals from well below -rows to
past the valid columns. The whole tile (a tile of full valid shape at dst's address) is loaded with random bits
first and stored after, so what TTRI leaves alone must survive, and what it writes past the valid region shows."""

from __future__ import annotations

import random

import numpy as np

from bench.simdiff.kernel import Case, Kernel, Tile, align, maybe_dynamic, per_block


def ttri(rng: random.Random) -> Case:
    dtype = rng.choice(["i16", "ui16", "i32", "ui32", "f16", "f32", "bf16"])
    rows, cols = rng.randint(1, 16), rng.randint(1, 100)
    dst = maybe_dynamic(rng, Tile("vec", rows + rng.choice([0, 0, 3]), align(cols + rng.choice([0, 0, 9]), per_block(dtype)), dtype, (rows, cols)))
    diagonal = rng.randint(-rows - 2, cols + 2)
    upper = rng.random() < 0.5
    k = Kernel(rng, "TTRI", f"{dst} diagonal {diagonal} {'upper' if upper else 'lower'}")
    g = k.scalar("i32", np.int32(diagonal))
    attr = " {upperOrLower = 1 : i32}" if upper else ""
    whole = Tile("vec", dst.rows, dst.cols, dtype)
    k.load("w", whole, addr=0)
    k.alloc("d", dst, addr=0)
    k.op(f"pto.ttri ins({g}{attr} : i32) outs(%d : {dst})")
    k.store("w")
    return k.case()


FORMS = {"ttri": ttri}
