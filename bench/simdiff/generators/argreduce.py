"""TCOLARGMIN / TCOLARGMAX and TROWARGMIN / TROWARGMAX: index only or value + index, over
valid regions smaller than the tile, on data with ties and edge values (NaN, +-0, +-inf,
integer extremes), the tmp given or (row forms) left out."""

from __future__ import annotations

import random
from collections.abc import Callable

from bench.simdiff.kernel import Case, Kernel, Tile, align, maybe_dynamic, per_block, size_of, values
from pto_dialect.facts import INT64, STANDARD

SRC_TYPES = sorted(STANDARD | INT64)
"""The simulator's arg-reductions take any integer, f16, bf16, f32 (cpu/TReduceIdx.hpp)."""
INDEX_TYPES = ["i32", "ui32"]


def outputs(k: Kernel, op: str, ins: str, idx: Tile, value: Callable[[], Tile] | None) -> Case:
    """`pto.<op> <ins>` into the index tile %i and, with `value`, the value tile %v it makes (after
    %i is loaded); each loaded first with random bits and stored after."""
    k.load("i", idx)
    if value is None:
        k.op(f"pto.{op} {ins} outs(%i : {idx})")
    else:
        value_tile = value()
        k.load("v", value_tile)
        k.op(f"pto.{op} {ins} outs(%v, %i : {value_tile}, {idx})")
        k.store("v")
    k.store("i")
    return k.case()


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
    ins = k.ins([("s", src)], ("tm", tmp))
    return outputs(k, op, ins, idx, (lambda: Tile("vec", 1, cols, dtype, (1, valid_cols))) if with_values else None)


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
    ins = k.ins([("s", src)], ("tm", src) if rng.random() < 0.7 else None)
    return outputs(k, op, ins, idx, (lambda: output(dtype)) if with_values else None)


FORMS = {
    "tcolargmin": lambda rng: column(rng, "tcolargmin"),
    "tcolargmax": lambda rng: column(rng, "tcolargmax"),
    "trowargmin": lambda rng: row(rng, "trowargmin"),
    "trowargmax": lambda rng: row(rng, "trowargmax"),
}
