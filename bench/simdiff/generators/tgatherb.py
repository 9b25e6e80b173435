"""TGATHERB (Vec): every src / dst element type and offsets type the cpu target's rule row takes, dst
of another type than src at times, src row- or column-major (its storage bytes are read), dst
valid regions smaller than the tile (given at run time at times), offsets mostly 32-byte aligned
inside src, some unaligned, some past src's storage or negative (the simulator skips those blocks).
src and offsets are loaded whole: every byte the simulator may read is defined."""

from __future__ import annotations

import random

import numpy as np

import targets
from bench.simdiff.kernel import Case, Kernel, Tile, align, maybe_dynamic, numpy_dtype, per_block, size_of, values
from pto_dialect.instructions.tgatherb import TGATHERB

RULES = targets.get("cpu").rules[TGATHERB]
DATA_TYPES = sorted(RULES.types)
OFFSET_TYPES = sorted(RULES.offset_types)
BLOCK = 32


def offsets(rng: random.Random, dtype: str, shape: tuple[int, int], src_bytes: int) -> np.ndarray:
    """Byte offsets of `dtype`: mostly aligned block starts inside src, some unaligned, some past
    its end (kept within the type); in a few kernels one of -1 or -32 (2**32 - 1, 2**32 - 32 as
    uint32: the simulator's bounds test wraps, a fault here)."""
    draw = np.random.default_rng(rng.getrandbits(64))
    limits = np.iinfo(numpy_dtype(dtype))
    aligned = draw.integers(0, src_bytes // BLOCK, shape) * BLOCK
    unaligned = draw.integers(0, src_bytes - BLOCK + 1, shape)
    strays = np.array([s for s in (src_bytes - BLOCK + 1, src_bytes, 4 * src_bytes, -BLOCK - 1) if limits.min <= s <= limits.max]
                      or [limits.max])
    pick = draw.random(shape)
    data = np.where(pick < 0.7, aligned, np.where(pick < 0.9, unaligned, strays[draw.integers(0, len(strays), shape)]))
    if limits.min < 0 and rng.random() < 0.1:
        data[rng.randrange(shape[0]), rng.randrange(shape[1])] = rng.choice([-1, -BLOCK])
    return np.clip(data, limits.min, limits.max).astype(numpy_dtype(dtype))


def tgatherb(rng: random.Random) -> Case:
    source = rng.choice(DATA_TYPES)
    dtype = source if rng.random() < 0.6 else rng.choice(DATA_TYPES)
    offset_type = rng.choice(OFFSET_TYPES)
    src_layout = rng.choice(["nd", "nd", "dn"])
    if src_layout == "dn":
        src = Tile("vec", align(rng.randint(1, 64), per_block(source)), rng.randint(1, 16), source)
    else:
        src = Tile("vec", rng.randint(1, 16), align(rng.randint(1, 128), per_block(source)), source)
    src = Tile("vec", src.rows, src.cols, source, layout=src_layout)
    src_bytes = src.rows * src.cols * size_of(source)
    blocks = rng.randint(1, 20)
    valid = (rng.randint(1, 12), blocks * per_block(dtype))
    dst = maybe_dynamic(rng, Tile("vec", valid[0] + rng.choice([0, 0, 3]), valid[1] + per_block(dtype) * rng.choice([0, 0, 2]), dtype, valid))
    index = Tile("vec", valid[0] + rng.choice([0, 0, 1]), align(blocks + rng.choice([0, 0, 5]), per_block(offset_type)), offset_type)
    k = Kernel(rng, "TGATHERB", f"{source} src {src} offsets {index} -> {dst}")
    k.load("s", src, values(rng, source, (src.rows, src.cols)))
    k.load("o", index, offsets(rng, offset_type, (index.rows, index.cols), src_bytes))
    k.load("d", dst)
    k.op(f"pto.tgatherb ins(%s, %o : {src}, {index}) outs(%d : {dst})")
    k.store("d")
    return k.case()


FORMS = {"tgatherb": tgatherb}
