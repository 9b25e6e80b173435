"""TLOAD and TSTORE, which every other kernel runs around its instruction: a tile loaded from
a GM view and stored to another, row-major (ND, its GM rows at times further apart than a
row), col-major (DN) or NZ, its valid region smaller than the tile, a pad value at times."""

from __future__ import annotations

import random

from bench.simdiff.kernel import FRACTAL_ROWS, Case, Kernel, Tile, align, garbage, maybe_dynamic, maybe_pad, per_block, size_of, values
from pto_dialect.facts import INT64, STANDARD

DATA_TYPES = sorted(STANDARD | INT64)


def tload_tstore(rng: random.Random) -> Case:
    dtype = rng.choice(DATA_TYPES)
    step = per_block(dtype)
    layout = rng.choice(["nd", "nd", "dn", "nz"] if size_of(dtype) <= 4 else ["nd", "nd", "dn"])
    if layout == "nz":  # a view of whole fractals
        valid = (FRACTAL_ROWS * rng.randint(1, 4), step * rng.randint(1, 6))
        rows, cols = valid[0] + FRACTAL_ROWS * rng.choice([0, 0, 1]), valid[1] + step * rng.choice([0, 0, 1])
    elif layout == "dn":
        valid = (rng.randint(1, 100), rng.randint(1, 40))
        rows, cols = align(valid[0] + rng.choice([0, 0, 9]), step), valid[1] + rng.choice([0, 0, 3])
    else:
        valid = (rng.randint(1, 40), rng.randint(1, 300))
        rows, cols = valid[0] + rng.choice([0, 0, 3]), align(valid[1] + rng.choice([0, 0, 9]), step)
    tile = maybe_dynamic(rng, Tile("vec", rows, cols, dtype, valid, layout, maybe_pad(rng)))
    k = Kernel(rng, "TLOAD+TSTORE", f"{layout} {tile}")
    data = values(rng, dtype, valid)
    if layout == "nd" and rng.random() < 0.3:  # GM rows further apart than a row, both ways
        stride = valid[1] + rng.randint(1, 20)
        padded = garbage(rng, dtype, (valid[0], stride))
        padded[:, : valid[1]] = data
        source = k.view("t_in", dtype, list(valid), [stride, 1], padded, "t in", positions=((valid[0], stride), "C"))
        k.alloc("t", tile)
        k.op(f"pto.tload ins(%t_in : {source}) outs(%t : {tile})")
        target = k.view("t_out", dtype, list(valid), [stride, 1], garbage(rng, dtype, (valid[0], stride)), "t out", positions=((valid[0], stride), "C"))
        k.op(f"pto.tstore ins(%t : {tile}) outs(%t_out : {target})")
        k.details += f" GM row stride {stride}"
    else:
        k.load("t", tile, data)
        k.store("t")
    return k.case()


FORMS = {"tload_tstore": tload_tstore}
