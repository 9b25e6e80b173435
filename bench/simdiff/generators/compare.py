"""TCMP, TCMPS (every cmpMode, masks of 8 and, TCMP, 32 bits, masks narrower or wider than a
valid row's bits, TCMPS's byte stream into a dst of other valid columns), TSEL and TSELS (masks
of random bits, valid columns not a multiple of 8, TSEL's bit stream across rows, in place over
a source), and TPARTADD / TPARTMUL / TPARTMAX / TPARTMIN (sources' valid shapes smaller or larger
than dst's, in place): valid regions smaller than the tiles, edge values and ties in the data,
scalars of any bits; TPARTARGMAX / TPARTARGMIN with index tiles of every integer type."""

from __future__ import annotations

import random

import numpy as np

from bench.simdiff.kernel import Case, Kernel, Tile, align, maybe_dynamic, numpy_dtype, per_block, size_of, values
from pto_dialect.attributes import CmpMode
from pto_dialect.facts import INT8, INT64, INTEGERS, STANDARD, types_named

ANY_DATA = sorted(STANDARD | INT64)
"""What the simulator's TCMPS, TSEL and TSELS compile for."""
TCMP_BYTE_MASK_DATA = sorted(types_named("i32", "si32", "f16", "f32"))
"""cpu/TCmp.h TCmpCheck: a uint8_t mask with int32_t, half or float data; a uint32_t one with more."""
PART_DATA = sorted(types_named("i8", "si8", "ui8", "i16", "si16", "i32", "si32", "f16", "bf16", "f32"))
"""cpu/TPartOp.hpp TPartCheck."""


def mask_bits(rng: random.Random, shape: tuple[int, int]) -> np.ndarray:
    """Random mask bytes, at times all ones or all zeros."""
    draw = np.random.default_rng(rng.getrandbits(64))
    kind = rng.random()
    if kind < 0.1:
        return np.full(shape, 0xFF, np.uint8)
    if kind < 0.2:
        return np.zeros(shape, np.uint8)
    return draw.integers(0, 256, shape).astype(np.uint8)


def tcmp(rng: random.Random) -> Case:
    """dst's packed mask of cmpMode(src0, src1): a ui8 mask (i32/f16/f32 data) or a ui32 one."""
    mode = rng.choice(list(CmpMode))
    wide = rng.random() < 0.4
    dtype = rng.choice(sorted(STANDARD) if wide else TCMP_BYTE_MASK_DATA)
    mask = "ui32" if wide else "ui8"
    valid = (rng.randint(1, 16), rng.randint(1, 160))
    cols = align(valid[1] + rng.choice([0, 0, 7]), per_block(dtype))
    src = maybe_dynamic(rng, Tile("vec", valid[0] + rng.choice([0, 0, 2]), cols, dtype, valid))
    words = -(-valid[1] // (32 if wide else 8))
    dst_valid_cols = rng.choice([words, max(1, words - 1), words + 3])
    dst = Tile("vec", valid[0] + rng.choice([0, 1]), align(dst_valid_cols, per_block(mask)), mask, (valid[0], dst_valid_cols))
    k = Kernel(rng, "TCMP", f"{mode.value} {dtype} src {src} -> {dst}")
    k.load("a", src, values(rng, dtype, valid))
    k.load("b", src, values(rng, dtype, valid))
    return k.into(dst, f"pto.tcmp ins(%a, %b {{cmpMode = #pto<cmp {mode.value}>}} : {src}, {src}) outs(%d : {dst})")


def tcmps(rng: random.Random) -> Case:
    """dst's mask of cmpMode(src, scalar), the simulator's byte stream of src's whole rows laid
    into dst's valid region (of any valid columns)."""
    mode = rng.choice(list(CmpMode))
    dtype = rng.choice(ANY_DATA)
    valid = (rng.randint(1, 12), rng.randint(1, 120))
    cols = align(valid[1] + rng.choice([0, 0, 9]), per_block(dtype))
    rows = valid[0] + rng.choice([0, 0, 2])
    src = maybe_dynamic(rng, Tile("vec", rows, cols, dtype, valid))
    mask = rng.choice(sorted(INT8))
    dst_cols = align(rng.choice([max(1, cols // 8), max(1, cols // 8 - 3), cols // 8 + 5, rng.randint(1, 64)]), per_block(mask))
    dst_valid = (rng.randint(1, rows + 2), rng.randint(1, dst_cols))
    dst = Tile("vec", dst_valid[0] + rng.choice([0, 1]), dst_cols, mask, dst_valid)
    k = Kernel(rng, "TCMPS", f"{mode.value} {dtype} src {src} -> {dst}")
    k.load("a", src, values(rng, dtype, valid))
    scalar = k.scalar(dtype, values(rng, dtype, (1,))[0])
    return k.into(dst, f"pto.tcmps ins(%a, {scalar} {{cmpMode = #pto<cmp {mode.value}>}} : {src}, {dtype}) outs(%d : {dst})")


def _select_tiles(rng: random.Random, dtype: str) -> tuple[Tile, Tile]:
    """A data tile and a ui8 mask holding at least ceil(valid cols / 8) valid bytes a row (the
    simulator's TSEL stream stays within its rows)."""
    valid = (rng.randint(1, 12), rng.randint(1, 130))
    cols = align(valid[1] + rng.choice([0, 0, 5]), per_block(dtype))
    data = maybe_dynamic(rng, Tile("vec", valid[0] + rng.choice([0, 0, 1]), cols, dtype, valid))
    mask_valid_cols = -(-valid[1] // 8) + rng.choice([0, 0, 1, 4])
    mask = Tile("vec", valid[0] + rng.choice([0, 1]), align(mask_valid_cols, 32), rng.choice(sorted(INT8)),
                (valid[0] + rng.choice([0, 0]), mask_valid_cols))
    return data, mask


def tsel(rng: random.Random) -> Case:
    """dst = mask ? src0 : src1, with or without a tmp, at times in place over src0."""
    dtype = rng.choice(ANY_DATA)
    data, mask = _select_tiles(rng, dtype)
    in_place = rng.random() < 0.25
    k = Kernel(rng, "TSEL", f"{dtype} {data} mask {mask}{' in place' if in_place else ''}")
    k.load("m", mask, mask_bits(rng, mask.valid_shape).view(np.dtype(f"{'u' if mask.dtype == 'ui8' else ''}int8")))
    k.load("a", data, values(rng, dtype, data.valid_shape))
    k.load("b", data, values(rng, dtype, data.valid_shape))
    out = "a" if in_place else "d"
    if not in_place:
        k.load("d", data)
    tmp = Tile("vec", 1, 8, "i32")
    if rng.random() < 0.5:
        k.alloc("t", tmp)
        k.op(f"pto.tsel ins(%m, %a, %b, %t : {mask}, {data}, {data}, {tmp}) outs(%{out} : {data})")
    else:
        k.op(f"pto.tsel ins(%m, %a, %b : {mask}, {data}, {data}) outs(%{out} : {data})")
    k.store(out)
    return k.case()


def tsels(rng: random.Random) -> Case:
    """dst = mask ? src : scalar (the scalar any bits), at times in place over src, the mask at
    times of 16- or 32-bit elements (read as its rows' bytes)."""
    dtype = rng.choice(ANY_DATA)
    data, mask = _select_tiles(rng, dtype)
    if rng.random() < 0.3:
        wide = rng.choice(["i16", "ui16", "i32", "ui32"])
        per = size_of(wide)
        mask_cols = -(-mask.valid_shape[1] // per)
        mask = Tile("vec", mask.rows, align(mask_cols, per_block(wide)), wide, (mask.valid_shape[0], mask_cols))
    in_place = rng.random() < 0.25
    k = Kernel(rng, "TSELS", f"{dtype} {data} mask {mask}{' in place' if in_place else ''}")
    k.load("m", mask, mask_bits(rng, (mask.valid_shape[0], mask.valid_shape[1] * size_of(mask.dtype))).view(numpy_dtype(mask.dtype)))
    k.load("a", data, values(rng, dtype, data.valid_shape))
    scalar = k.scalar(dtype, values(rng, dtype, (1,))[0])
    out = "a" if in_place else "d"
    if not in_place:
        k.load("d", data)
    k.op(f"pto.tsels ins(%m, %a, {scalar} : {mask}, {data}, {dtype}) outs(%{out} : {data})")
    k.store(out)
    return k.case()


def partial(rng: random.Random, op: str) -> Case:
    """dst over its valid region from src0 and src1 of other valid shapes (smaller, larger, or
    none in common), at times in place over a source with dst's valid shape."""
    dtype = rng.choice(PART_DATA)
    rows, cols = rng.randint(1, 12), align(rng.randint(1, 120), per_block(dtype))

    def some_valid() -> tuple[int, int]:
        return rng.randint(1, rows), rng.randint(1, cols)

    dst_valid = some_valid()
    shapes = [dst_valid, some_valid()]
    if rng.random() < 0.3:
        shapes[1] = (dst_valid[0], rng.randint(1, dst_valid[1]))
    elif rng.random() < 0.3:
        shapes[1] = (rng.randint(1, dst_valid[0]), dst_valid[1])
    elif rng.random() < 0.3:
        shapes[0] = some_valid()
    rng.shuffle(shapes)
    tiles = [maybe_dynamic(rng, Tile("vec", rows, cols, dtype, v)) for v in shapes]
    dst = Tile("vec", rows, cols, dtype, dst_valid)
    in_place = next((i for i, v in enumerate(shapes) if v == dst_valid and not tiles[i].dynamic), None) if rng.random() < 0.3 else None
    k = Kernel(rng, op.upper(), f"{dtype} src0 {tiles[0]} src1 {tiles[1]} dst {dst}{' in place' if in_place is not None else ''}")
    k.load("a", tiles[0], values(rng, dtype, shapes[0]))
    k.load("b", tiles[1], values(rng, dtype, shapes[1]))
    out, out_tile = ("ab"[in_place], tiles[in_place]) if in_place is not None else ("d", dst)
    if in_place is None:
        k.load("d", dst)
    k.op(f"pto.{op} ins(%a, %b : {tiles[0]}, {tiles[1]}) outs(%{out} : {out_tile})")
    k.store(out)
    return k.case()


def partial_arg(rng: random.Random, op: str) -> Case:
    """dst, dstIdx from src0 / src1 and their indices (of the value tiles' shapes), the sources'
    valid shapes smaller or larger than dst's, ties and NaN in the values."""
    dtype = rng.choice(PART_DATA)
    index_type = rng.choice(sorted(INTEGERS - INT64 | types_named("i64")))
    rows, cols = rng.randint(1, 10), align(rng.randint(1, 100), max(per_block(dtype), per_block(index_type)))
    dst_valid = (rng.randint(1, rows), rng.randint(1, cols))
    shapes = [dst_valid, (rng.randint(1, rows), rng.randint(1, cols))]
    if rng.random() < 0.5:
        shapes[1] = (rng.randint(1, dst_valid[0]), rng.randint(1, dst_valid[1]))
    rng.shuffle(shapes)
    k = Kernel(rng, op.upper(), f"{dtype} / {index_type} src0 {shapes[0]} src1 {shapes[1]} dst {dst_valid}")
    for name, valid in (("a", shapes[0]), ("b", shapes[1])):
        k.load(name, Tile("vec", rows, cols, dtype, valid), values(rng, dtype, valid))
    for name, valid in (("ia", shapes[0]), ("ib", shapes[1])):
        k.load(name, Tile("vec", rows, cols, index_type, valid), values(rng, index_type, valid))
    d, di = Tile("vec", rows, cols, dtype, dst_valid), Tile("vec", rows, cols, index_type, dst_valid)
    k.load("d", d)
    k.load("di", di)
    t = k.tiles
    k.op(f"pto.{op} ins(%a, %b, %ia, %ib : {t['a']}, {t['b']}, {t['ia']}, {t['ib']}) outs(%d, %di : {d}, {di})")
    k.store("d")
    k.store("di")
    return k.case()


FORMS = {
    "tcmp": tcmp,
    "tcmps": tcmps,
    "tsel": tsel,
    "tsels": tsels,
    **{op: (lambda rng, op=op: partial(rng, op)) for op in ("tpartadd", "tpartmul", "tpartmax", "tpartmin")},
    **{op: (lambda rng, op=op: partial_arg(rng, op)) for op in ("tpartargmax", "tpartargmin")},
}
