"""TCOLSUM, TCOLMAX, TCOLMIN, TCOLPROD: every element type the simulator takes, valid regions
smaller than the tile (src's Cols dst's where the simulator asserts it), edge values and ties;
TCOLSUM with or without a tmp (its non-binary form)."""

from __future__ import annotations

import random

import numpy as np

from bench.simdiff.kernel import Case, Kernel, Tile, align, maybe_dynamic, per_block, values
from pto_dialect.facts import STANDARD

TYPES = {
    "tcolsum": ["f16", "bf16", "f32"],
    "tcolmax": ["i8", "ui8", "f16", "bf16", "f32"],
    "tcolmin": sorted(STANDARD),
    "tcolprod": sorted(STANDARD),
}
"""cpu/TColSum.hpp CheckCSValid, TColMax.hpp CheckCMValid; TColMin, TColProd: any."""


def column(rng: random.Random, op: str) -> Case:
    dtype = rng.choice(TYPES[op])
    valid = (rng.randint(1, 40), rng.randint(1, 300))
    cols = align(valid[1] + rng.choice([0, 0, 5]), per_block(dtype))
    src = maybe_dynamic(rng, Tile("vec", valid[0] + rng.choice([0, 0, 3]), cols, dtype, valid))
    dst = Tile("vec", rng.choice([1, 2]), cols, dtype, (1, valid[1]))
    k = Kernel(rng, op.upper(), f"{dtype} src {src} -> {dst}")
    data = values(rng, dtype, valid)
    if op == "tcolprod" and data.dtype.kind == "f" and rng.random() < 0.5:
        with np.errstate(invalid="ignore"):  # NaN and inf stay NaN
            data = (1 + (data.astype("f4") % 1) / 8).astype(data.dtype)
    k.load("s", src, data)
    k.load("d", dst)
    tmp = ("tm", src) if op == "tcolsum" and rng.random() < 0.5 else None
    k.op(f"pto.{op} {k.ins([('s', src)], tmp)} outs(%d : {dst})")
    k.store("d")
    return k.case()


FORMS = {op: (lambda rng, op=op: column(rng, op)) for op in TYPES}
