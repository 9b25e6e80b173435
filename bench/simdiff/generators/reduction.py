"""TROWSUM, TROWMAX, TROWMIN, TROWPROD: every element type the simulator takes, valid regions
smaller than the tile, one-column DN or one-block row-major dst, the tmp given or left out, on
data with edge values (NaN, +-0, +-inf, denormals, integer extremes) and ties."""

from __future__ import annotations

import random

import numpy as np

from bench.simdiff.kernel import Case, Kernel, Tile, align, maybe_dynamic, per_block, size_of, values
from pto_dialect.facts import STANDARD

TYPES = {
    "trowsum": ["i16", "i32", "f16", "bf16", "f32"],
    "trowmax": sorted(STANDARD),
    "trowmin": sorted(STANDARD),
    "trowprod": sorted(STANDARD),
}
"""cpu/TRowSum.hpp CheckRSValid (same type in and out); TRowMax, TRowMin, TRowProd: any."""


def row(rng: random.Random, op: str) -> Case:
    dtype = rng.choice(TYPES[op])
    valid = (rng.randint(1, 40), rng.randint(1, 600 // size_of(dtype)))
    rows = valid[0] + rng.choice([0, 0, 3])
    if op == "trowsum":  # cpu/TRowSum.hpp: src's Rows dst's, a DN dst's Rows whole blocks
        rows = align(rows, per_block(dtype))
    cols = align(valid[1] + rng.choice([0, 0, 9]), per_block(dtype))
    src = maybe_dynamic(rng, Tile("vec", rows, cols, dtype, valid))
    if rng.random() < 0.5:
        dst = Tile("vec", rows if op == "trowsum" else align(valid[0], per_block(dtype)), 1, dtype, (valid[0], 1), "dn")
    else:
        dst = Tile("vec", rows if op == "trowsum" else valid[0], per_block(dtype), dtype, (valid[0], 1))
    k = Kernel(rng, op.upper(), f"{dtype} src {src} -> {dst}")
    data = values(rng, dtype, valid)
    if op == "trowprod" and rng.random() < 0.5:  # products that stay finite: values near 1
        with np.errstate(invalid="ignore"):  # NaN and inf stay NaN
            data = (1 + (data.astype("f4") % 1) / 8).astype(data.dtype) if data.dtype.kind == "f" else data
    k.load("s", src, data)
    with_tmp = rng.random() < 0.7
    if with_tmp:
        k.alloc("tm", src)
    k.load("d", dst)
    ins = f"ins(%s, %tm : {src}, {src})" if with_tmp else f"ins(%s : {src})"
    k.op(f"pto.{op} {ins} outs(%d : {dst})")
    k.store("d")
    return k.case()


FORMS = {op: (lambda rng, op=op: row(rng, op)) for op in TYPES}
