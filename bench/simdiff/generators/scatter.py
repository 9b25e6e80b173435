"""TSCATTER (index and mask forms) and MSCATTER (row and elem modes, plain store or atomic
add / max / min, every out-of-range mode): colliding indices (the last write in the
simulator's order wins), valid regions smaller than the tiles, row-major and col-major tiles,
edge values in the data (NaN payloads through atomic adds)."""

from __future__ import annotations

import random
from dataclasses import replace

from bench.simdiff.generators.gather import MASK_PERIODS, indices
from bench.simdiff.kernel import Case, Kernel, Tile, align, maybe_dynamic, maybe_pad, per_block, values
from pto_dialect.attributes import Coalesce, ScatterAtomicOp, ScatterOob
from pto_dialect.facts import INT64, INTEGERS, STANDARD, types_named

DATA_TYPES = sorted(STANDARD | INT64)
MASK_TYPES = sorted(types_named("i16", "ui16", "i32", "ui32", "f16", "bf16", "f32"))
"""The simulator's mask TSCATTER static_asserts 2- or 4-byte elements (cpu/TScatter.hpp)."""


def layout(rng: random.Random) -> str:
    return rng.choice(["nd", "nd", "dn"])


def shaped(rng: random.Random, valid: tuple[int, int], dtype: str, tile_layout: str, extra_rows: int = 3, extra_cols: int = 9) -> Tile:
    """A tile holding `valid`, its blocked dimension aligned (with some padding at times)."""
    rows, cols = valid[0] + rng.choice([0, 0, extra_rows]), valid[1] + rng.choice([0, 0, extra_cols])
    if tile_layout == "dn":
        return maybe_dynamic(rng, Tile("vec", align(rows, per_block(dtype)), cols, dtype, valid, "dn"), 0.1)
    return maybe_dynamic(rng, Tile("vec", rows, align(cols, per_block(dtype)), dtype, valid), 0.1)


def tscatter_index(rng: random.Random) -> Case:
    """dst.storage[idx[i, j]] = src[i, j] over idx's valid region, indices within dst's
    storage (the simulator writes any index unchecked), colliding at times."""
    dtype = rng.choice(DATA_TYPES)
    index_type = rng.choice(sorted(INTEGERS))
    valid = (rng.randint(1, 24), rng.randint(1, 100))
    dst = shaped(rng, (rng.randint(1, 24), rng.randint(1, 120)), dtype, layout(rng))
    src = shaped(rng, valid, dtype, layout(rng))
    idx = shaped(rng, valid, index_type, layout(rng))
    k = Kernel(rng, "TSCATTER", f"index {dtype} src {src} idx {idx} dst {dst}")
    k.load("s", src, values(rng, dtype, valid))
    bound = min(dst.rows * dst.cols, rng.choice([dst.rows * dst.cols, 8]))  # few targets: collisions
    k.load("i", idx, indices(rng, index_type, valid, bound, 0.0))
    return k.into(dst, f"pto.tscatter ins(%s, %i : {src}, {idx}) outs(%d : {dst})")


def tscatter_mask(rng: random.Random) -> Case:
    """src's elements spread to the positions a pattern selects along the row or col axis of
    dst's valid region (the others zeroed), P1111 a copy; the in-place P1111 form."""
    dtype = rng.choice(MASK_TYPES)
    pattern = rng.choice(list(MASK_PERIODS))
    period = MASK_PERIODS[pattern]
    axis = rng.choice(["row", "col"])
    src_valid = (rng.randint(1, 24), rng.randint(1, 80))
    src = replace(shaped(rng, src_valid, dtype, "nd"), extra=maybe_pad(rng))  # src is walked across its padding
    if period == 1:
        dst_valid = src_valid
    elif axis == "row":
        dst_valid = (src_valid[0], src_valid[1] * period)
    else:
        dst_valid = (src_valid[0] * period, src_valid[1])
    in_place = period == 1 and rng.random() < 0.4
    dst = src if in_place else shaped(rng, dst_valid, dtype, "nd")
    if period > 1 and rng.random() < 0.1:
        # a dst valid shape off along the axis, known at run time only: one whole selected
        # element off (the simulator asserts: both must stop), or one element
        along = 1 if axis == "row" else 0
        off = list(dst.valid_shape)
        shift = rng.choice([period, 1])
        off[along] += -shift if off[along] > shift else shift
        if off[along] <= (dst.rows, dst.cols)[along]:
            dst = replace(dst, valid=(off[0], off[1]), dynamic=True)
    k = Kernel(rng, "TSCATTER", f"mask {pattern} {axis} src {src} dst {dst}{' in place' if in_place else ''}")
    k.load("s", src, values(rng, dtype, src_valid), addr=0 if in_place else None)
    if in_place:
        k.alloc("d", dst, addr=0)
    else:
        k.load("d", dst)
    k.op(f'pto.tscatter ins(%s, {{maskPattern = #pto.mask_pattern<{pattern}>}} : {src}, "{axis}") outs(%d : {dst})')
    k.store("d")
    return k.case()


def mscatter(rng: random.Random) -> Case:
    """Row mode (table[idx[r], :] (op)= src[r, :], a 1xR or Rx1 index, the table's rows at
    times further apart than a row) or elem mode (table.flat[idx[r, c]] (op)= src[r, c]);
    colliding indices; out-of-range ones only where the mode defines them."""
    dtype = rng.choice(sorted(STANDARD))
    index_type = rng.choice(sorted(INTEGERS))
    mode = rng.choice(list(Coalesce))
    atomic = rng.choice(list(ScatterAtomicOp))
    oob = rng.choice(list(ScatterOob))
    outside = 0.0 if oob == ScatterOob.UNDEFINED else 0.15
    k = Kernel(rng, "MSCATTER")
    if mode == Coalesce.ROW:
        valid = (rng.randint(1, 48), rng.randint(1, 200))
        table_rows = rng.randint(1, 300)
        stride = valid[1] + rng.choice([0, 0, 0, 5])
        table_data = values(rng, dtype, (table_rows * stride,))
        if rng.random() < 0.5:
            idx = Tile("vec", 1, align(valid[0], per_block(index_type)), index_type, (1, valid[0]))
        else:
            idx = Tile("vec", align(valid[0], per_block(index_type)), 1, index_type, (valid[0], 1), "dn")
        bound = min(table_rows, rng.choice([table_rows, 4]))
        idx_data = indices(rng, index_type, idx.valid_shape, bound, outside)
        src = shaped(rng, valid, dtype, layout(rng))
        k.details = f"row {atomic} {oob} {dtype} table {table_rows}x{valid[1]} stride {stride} idx {idx} src {src}"
        shape, strides = [table_rows, valid[1]], [stride, 1]
    else:
        size = rng.randint(1, 3000)
        table_data = values(rng, dtype, (size,))
        valid = (rng.randint(1, 24), rng.randint(1, 100))
        idx = shaped(rng, valid, index_type, layout(rng))
        idx_data = indices(rng, index_type, valid, min(size, rng.choice([size, 16])), outside)
        src = shaped(rng, valid, dtype, layout(rng))
        k.details = f"elem {atomic} {oob} {dtype} table {size} idx {idx} src {src}"
        shape, strides = [1, size], [size, 1]
    k.load("s", src, values(rng, dtype, valid))
    k.load("i", idx, idx_data)
    table = k.view("tab", dtype, shape, strides, table_data, "table")
    attrs = f"coalesce = #pto<coalesce {mode}>, scatterAtomicOp = #pto<scatter_atomic_op {atomic}>, scatterOob = #pto<scatter_oob {oob}>"
    k.op(f"pto.mscatter ins(%s, %i : {src}, {idx}) outs(%tab : {table}) {{{attrs}}}")
    return k.case()


FORMS = {"tscatter_index": tscatter_index, "tscatter_mask": tscatter_mask, "mscatter": mscatter}
