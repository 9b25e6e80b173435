"""TCOLEXPAND and TCOLEXPAND{ADD,SUB,MUL,DIV,MAX,MIN,EXPDIF}: src1's row 0 down each column of
a full src0 (dst over src0 at times), valid regions smaller than the tile, edge values, zero
divisors (the simulator asserts) and integer extremes."""

from __future__ import annotations

import random

from bench.simdiff.generators.broadcast import TYPES as ROW_TYPES, expand_shape
from bench.simdiff.kernel import Case, Kernel, Tile, align, maybe_dynamic, per_block, values

TYPES = {op.replace("trow", "tcol"): types for op, types in ROW_TYPES.items()}
"""cpu/TColExpandOp.hpp IsColExpandAllowedType: the row broadcasts' types."""


def binary(rng: random.Random, op: str) -> Case:
    dtype = rng.choice(TYPES[op])
    valid = (rng.randint(1, 32), rng.randint(1, 300))
    cols = align(valid[1] + rng.choice([0, 5]), per_block(dtype))
    full = maybe_dynamic(rng, Tile("vec", valid[0] + rng.choice([0, 0, 2]), cols, dtype, valid))
    vector = Tile("vec", rng.choice([1, 2]), cols, dtype, (1, valid[1]))
    k = Kernel(rng, op.upper(), f"{dtype} full {full} row {vector}")
    k.load("f", full, values(rng, dtype, full.valid_shape))
    k.load("v", vector, values(rng, dtype, vector.valid_shape))
    in_place = rng.random() < 0.3
    if not in_place:
        k.load("d", full)
    out = "f" if in_place else "d"
    k.op(f"pto.{op} ins(%f, %v : {full}, {vector}) outs(%{out} : {full})")
    k.store(out)
    return k.case()


def expand(rng: random.Random) -> Case:
    dtype, valid = expand_shape(rng)
    cols = align(valid[1], per_block(dtype))
    src = Tile("vec", rng.choice([1, 2]), cols, dtype, (1, valid[1]))
    dst = Tile("vec", valid[0], cols, dtype, valid)
    k = Kernel(rng, "TCOLEXPAND", f"{dtype} {src} -> {dst}")
    k.load("s", src, values(rng, dtype, src.valid_shape))
    return k.into(dst, f"pto.tcolexpand ins(%s : {src}) outs(%d : {dst})")


FORMS = {op: (lambda rng, op=op: binary(rng, op)) for op in TYPES} | {"tcolexpand": expand}
