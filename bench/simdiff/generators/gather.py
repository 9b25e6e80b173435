"""TGATHER (index and mask forms) and MGATHER (row and elem modes, every out-of-range mode):
valid regions smaller than the tiles, indices of every integer type the simulator reads,
out-of-range and negative ones where the mode defines them, the in-place index form (dst over
the indices), edge values in the data."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np

from bench.simdiff.kernel import FRACTAL_ROWS, Case, Kernel, Tile, align, maybe_dynamic, maybe_pad, numpy_dtype, per_block, size_of, values
from pto_dialect.attributes import Coalesce, GatherOob, MaskPattern
from pto_dialect.facts import INT32, INT64, INTEGERS, STANDARD

DATA_TYPES = sorted(STANDARD | INT64)
MASK_PERIODS = {p.value: 4 // p.value.count("1") for p in MaskPattern}
"""Mask pattern -> elements of src per selected element, along the axis (P0101: 2, P1000: 4, P1111: 1)."""


def indices(rng: random.Random, dtype: str, shape: tuple[int, ...], bound: int, outside: float) -> np.ndarray:
    """Indices of `dtype` in [0, bound), a fraction `outside` of them past it or negative
    (kept within the type)."""
    draw = np.random.default_rng(rng.getrandbits(64))
    limits = np.iinfo(numpy_dtype(dtype))
    data = draw.integers(0, min(bound, int(limits.max) + 1), shape, dtype=np.int64)
    wrong = draw.random(shape) < outside
    wide = np.iinfo(np.int64)
    candidates = [bound, bound + 1, 2 * bound + 3, -1, -bound, int(limits.max), int(limits.min)]
    strays = np.array([s for s in candidates if max(limits.min, wide.min) <= s <= min(limits.max, wide.max)], np.int64)
    data[wrong] = strays[draw.integers(0, len(strays), int(wrong.sum()))]
    return data.astype(numpy_dtype(dtype))


def tgather_index(rng: random.Random) -> Case:
    """dst[i, j] = src[idx / Cols, idx % Cols] (out of range: 0), src row-major, col-major or
    NZ, or in place (dst at the indices' address, 4-byte data)."""
    dtype = rng.choice(DATA_TYPES)
    index_type = rng.choice(sorted(INT32))
    src_layout = rng.choice(["nd", "nd", "dn", "nz"] if size_of(dtype) <= 4 else ["nd", "nd", "dn"])
    if src_layout == "nz":  # a TLOAD from an NZ view fills whole fractals
        src_valid = (FRACTAL_ROWS * rng.randint(1, 3), per_block(dtype) * rng.randint(1, 6))
        src_rows, src_cols = src_valid[0] + FRACTAL_ROWS * rng.choice([0, 0, 1]), src_valid[1] + per_block(dtype) * rng.choice([0, 0, 1])
    elif src_layout == "dn":
        src_rows, src_cols = align(rng.randint(1, 64), per_block(dtype)), rng.randint(1, 64)
        src_valid = (rng.randint(1, src_rows), rng.randint(1, src_cols))
    else:
        src_rows, src_cols = rng.randint(1, 32), align(rng.randint(1, 200), per_block(dtype))
        src_valid = (rng.randint(1, src_rows), rng.randint(1, src_cols))
    cols = align(rng.randint(1, 150), max(per_block(dtype), per_block(index_type)))
    valid = (rng.randint(1, 32), cols)  # cpu: dst's valid columns are its Cols
    rows = valid[0] + rng.choice([0, 0, 2])
    src = maybe_dynamic(rng, Tile("vec", src_rows, src_cols, dtype, src_valid, src_layout, maybe_pad(rng)))
    idx = maybe_dynamic(rng, Tile("vec", rows, cols, index_type, valid))
    dst = Tile("vec", rows, cols, dtype, valid)
    in_place = size_of(dtype) == 4 and rng.random() < 0.3
    k = Kernel(rng, "TGATHER", f"index {dtype} src {src} idx {idx}{' in place' if in_place else ''}")
    k.load("s", src, values(rng, dtype, src_valid))
    k.load("i", idx, indices(rng, index_type, valid, src_rows * src_cols, 0.1), addr=0 if in_place else None)
    if in_place:
        k.alloc("d", dst, addr=0)
    else:
        k.load("d", dst)
    tmp = Tile("vec", rows, cols, "i32", valid)  # the C++ call takes one (cpu's verifier does not ask for it)
    k.alloc("tm", tmp)
    k.op(f"pto.tgather ins(%s, %i, %tm : {src}, {idx}, {tmp}) outs(%d : {dst})")
    k.store("d")
    return k.case()


def tgather_mask(rng: random.Random) -> Case:
    """The elements a pattern selects along the row or col axis, packed; dst of src's type
    or another of its size."""
    dtype = rng.choice(DATA_TYPES)
    same_size = [t for t in DATA_TYPES if size_of(t) == size_of(dtype)]
    dst_type = rng.choice([dtype, dtype, rng.choice(same_size)])
    pattern = rng.choice(list(MASK_PERIODS))
    period = MASK_PERIODS[pattern]
    axis = rng.choice(["row", "col"])
    step = per_block(dtype)
    if axis == "row":
        valid = (rng.randint(1, 32), period * align(rng.randint(1, 40), step))  # cpu: dst's valid columns are its Cols
        src = maybe_dynamic(rng, Tile("vec", valid[0] + rng.choice([0, 0, 3]), align(valid[1] + rng.choice([0, 0, 5]), step), dtype, valid))
        dst = Tile("vec", src.rows, valid[1] // period, dst_type, (valid[0], valid[1] // period))
    else:
        dst_valid = (rng.randint(1, 16), align(rng.randint(1, 100), step))
        valid = (dst_valid[0] * period, dst_valid[1])
        src = Tile("vec", valid[0] + rng.choice([0, 0, 3]), align(valid[1] + rng.choice([0, 0, 9]), step), dtype, valid)
        dst = Tile("vec", dst_valid[0], dst_valid[1], dst_type, dst_valid)
        if rng.random() < 0.15:  # dst's valid rows short of its Rows, known at run time only: the simulator asserts
            dst = replace(dst, rows=dst.rows + rng.randint(1, 3), dynamic=True)
    k = Kernel(rng, "TGATHER", f"mask {pattern} {axis} {dtype} src {src} dst {dst}")
    k.load("s", src, values(rng, dtype, valid))
    return k.into(dst, f'pto.tgather ins(%s, {{maskPattern = #pto.mask_pattern<{pattern}>}} : {src}, "{axis}") outs(%d : {dst})')




def mgather(rng: random.Random) -> Case:
    """Row mode (dst[r, :] = table[idx[r], :], a 1xR or Rx1 index, the table's rows at times
    further apart than a row) or elem mode (dst[r, c] = table.flat[idx[r, c]]); out-of-range
    indices (negative ones too) only where the mode defines them."""
    dtype = rng.choice(sorted(STANDARD))
    index_type = rng.choice(sorted(INTEGERS))
    oob = rng.choice(list(GatherOob))
    outside = 0.0 if oob == GatherOob.UNDEFINED else 0.15
    mode = rng.choice(list(Coalesce))
    k = Kernel(rng, "MGATHER")
    if mode == "row":
        valid_rows, valid_cols = rng.randint(1, 48), rng.randint(1, 200)
        table_rows = rng.randint(1, 300)
        stride = valid_cols + rng.choice([0, 0, 0, 5])
        table = k.view("tab", dtype, [table_rows, valid_cols], [stride, 1], values(rng, dtype, (table_rows * stride,)), "table")
        if rng.random() < 0.5:
            idx = Tile("vec", 1, align(valid_rows, per_block(index_type)), index_type, (1, valid_rows))
        else:
            idx = Tile("vec", align(valid_rows, per_block(index_type)), 1, index_type, (valid_rows, 1), "dn")
        k.load("i", idx, indices(rng, index_type, idx.valid_shape, table_rows, outside))
        dst = Tile("vec", valid_rows + rng.choice([0, 0, 3]), align(valid_cols + rng.choice([0, 0, 9]), per_block(dtype)), dtype, (valid_rows, valid_cols))
        dst = maybe_dynamic(rng, dst)
        k.details = f"row {oob} {dtype} table {table_rows}x{valid_cols} stride {stride} idx {idx} dst {dst}"
    else:
        size = rng.randint(1, 3000)
        table = k.view("tab", dtype, [1, size], [size, 1], values(rng, dtype, (size,)), "table")
        valid = (rng.randint(1, 24), rng.randint(1, 100))
        idx = Tile("vec", valid[0], align(valid[1], per_block(index_type)), index_type, valid)
        k.load("i", idx, indices(rng, index_type, valid, size, outside))
        dst = Tile("vec", valid[0] + rng.choice([0, 0, 2]), align(valid[1] + rng.choice([0, 0, 9]), per_block(dtype)), dtype, valid)
        k.details = f"elem {oob} {dtype} table {size} idx {idx} dst {dst}"
    k.load("d", dst)
    attrs = f"coalesce = #pto<coalesce {mode}>, gatherOob = #pto<gather_oob {oob}>"
    k.op(f"pto.mgather ins(%tab, %i : {table}, {idx}) outs(%d : {dst}) {{{attrs}}}")
    k.store("d")
    return k.case()


FORMS = {"tgather_index": tgather_index, "tgather_mask": tgather_mask, "mgather": mgather}
