"""TCOLARGMIN / TCOLARGMAX and TROWARGMIN / TROWARGMAX: index only or value + index, over
valid regions smaller than the tile, on data with ties and edge values (NaN, +-0, +-inf,
integer extremes), the tmp given or (row forms) left out."""

from __future__ import annotations

import random

from bench.simdiff.kernel import Case, Kernel, Tile, align, maybe_dynamic, per_block, size_of, values
from pto_dialect.facts import INT64, STANDARD

SRC_TYPES = sorted(STANDARD | INT64)
"""The simulator's arg-reductions take any integer, f16, bf16, f32 (cpu/TReduceIdx.hpp)."""
INDEX_TYPES = ["i32", "ui32"]


def column(rng: random.Random, op: str) -> Case:
    """dst[0, j] = arg-extreme over i of src[i, j] (and the value), src row-major or (index
    form) col-major, tmp a src-shaped or a one-row tile."""
    dtype = rng.choice(SRC_TYPES)
    with_values = size_of(dtype) > 1 and rng.random() < 0.5
    rows, valid_cols = rng.randint(1, 64), rng.randint(1, 300)
    valid_rows = rng.choice([rows, rng.randint(1, rows)])
    cols = align(valid_cols + rng.choice([0, 0, 5]), per_block(dtype))
    if not with_values and rng.random() < 0.3:  # the value form takes a row-major src only
        src = Tile("vec", align(rows, per_block(dtype)), valid_cols + rng.choice([0, 0, 3]), dtype, (valid_rows, valid_cols), "dn")
    else:
        src = Tile("vec", rows, cols, dtype, (valid_rows, valid_cols))
    src = maybe_dynamic(rng, src)
    tmp = rng.choice([src, Tile("vec", 1, cols, dtype)]) if src.layout == "nd" else Tile("vec", 1, cols, dtype)
    index_type = rng.choice(INDEX_TYPES)
    idx = Tile("vec", 1, align(cols, per_block(index_type)), index_type, (1, valid_cols))
    k = Kernel(rng, op.upper(), f"{'value+index' if with_values else 'index'} {dtype} src {src} -> {index_type}")
    k.load("s", src, values(rng, dtype, src.valid_shape))
    k.alloc("tm", tmp)
    k.load("i", idx)
    if with_values:
        value = Tile("vec", 1, cols, dtype, (1, valid_cols))
        k.load("v", value)
        k.op(f"pto.{op} ins(%s, %tm : {src}, {tmp}) outs(%v, %i : {value}, {idx})")
        k.store("v")
    else:
        k.op(f"pto.{op} ins(%s, %tm : {src}, {tmp}) outs(%i : {idx})")
    k.store("i")
    return k.case()


def row(rng: random.Random, op: str) -> Case:
    """dst[i, 0] = arg-extreme over j of src[i, j] (and the value), into one-column DN tiles or
    row-major tiles of one block a row; tmp of src's shape, or left out."""
    dtype = rng.choice(SRC_TYPES)
    with_values = rng.random() < 0.5
    valid = (rng.randint(1, 64), rng.randint(1, 400 // size_of(dtype) * 2))  # src and tmp within UB
    rows = valid[0] + rng.choice([0, 0, 3])
    cols = align(valid[1] + rng.choice([0, 0, 9]), per_block(dtype))
    src = maybe_dynamic(rng, Tile("vec", rows, cols, dtype, valid))

    def output(dtype: str) -> Tile:
        if rng.random() < 0.5:
            return Tile("vec", align(valid[0], per_block(dtype)), 1, dtype, (valid[0], 1), "dn")
        return Tile("vec", valid[0], per_block(dtype), dtype, (valid[0], 1))

    idx = output(rng.choice(INDEX_TYPES))
    k = Kernel(rng, op.upper(), f"{'value+index' if with_values else 'index'} {dtype} src {src} -> {idx}")
    k.load("s", src, values(rng, dtype, valid))
    with_tmp = rng.random() < 0.7
    if with_tmp:
        k.alloc("tm", src)
    ins = f"ins(%s, %tm : {src}, {src})" if with_tmp else f"ins(%s : {src})"
    k.load("i", idx)
    if with_values:
        value = output(dtype)
        k.load("v", value)
        k.op(f"pto.{op} {ins} outs(%v, %i : {value}, {idx})")
        k.store("v")
    else:
        k.op(f"pto.{op} {ins} outs(%i : {idx})")
    k.store("i")
    return k.case()


FORMS = {
    "tcolargmin": lambda rng: column(rng, "tcolargmin"),
    "tcolargmax": lambda rng: column(rng, "tcolargmax"),
    "trowargmin": lambda rng: row(rng, "trowargmin"),
    "trowargmax": lambda rng: row(rng, "trowargmax"),
}
