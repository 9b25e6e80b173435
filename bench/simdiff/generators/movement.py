"""TMOV, TEXTRACT, TINSERT and TCONCAT (Vec to Vec), TRESHAPE, and TGETVAL / TSETVAL: every element type the cpu target's rule rows take, dst of
another type at times (TMOV converts), row-major, column-major and NZ tiles (TMOV between
two layouts), valid shapes smaller than the tile, TEXTRACT at random positions inside src's
valid region, on random data with edge values."""

from __future__ import annotations

import random

import targets
from bench.simdiff.kernel import Case, Kernel, Tile, align, maybe_dynamic, per_block, values
from pto_dialect.instructions.movement import TCONCAT, TEXTRACT, TMOV

MOVE_TYPES = sorted(targets.get("cpu").rules[TMOV].types)
EXTRACT_TYPES = sorted(targets.get("cpu").rules[TEXTRACT].types)  # TINSERT's too (one family row)
CONCAT_TYPES = sorted(targets.get("cpu").rules[TCONCAT].types)
FRACTAL_ROWS = 16


def _tile(rng: random.Random, dtype: str, valid: tuple[int, int], layout: str) -> Tile:
    if layout == "nz":
        return Tile("vec", align(valid[0], FRACTAL_ROWS), align(valid[1], per_block(dtype)), dtype, valid, "nz")
    if layout == "dn":
        return Tile("vec", align(valid[0] + rng.choice([0, 1]), per_block(dtype)), valid[1] + rng.choice([0, 2]), dtype, valid, "dn")
    return Tile("vec", valid[0] + rng.choice([0, 2]), align(valid[1] + rng.choice([0, 3]), per_block(dtype)), dtype, valid)


def _valid(rng: random.Random, layouts: tuple[str, ...]) -> tuple[int, int]:
    valid = (rng.randint(1, 20), rng.randint(1, 70))
    if "nz" in layouts:  # an NZ tile is loaded and stored as whole fractals (32 bytes wide for every type)
        valid = (align(valid[0], FRACTAL_ROWS), align(valid[1], 32))
    return valid


def _window(rng: random.Random, layout: str) -> tuple[tuple[int, int], tuple[int, int], int, int]:
    """A valid shape of the whole tile, a window's inside it (whole fractals on NZ) and the
    window's position: TEXTRACT's src and dst, TINSERT's dst and src."""
    whole = _valid(rng, (layout,))
    part = (rng.randint(1, whole[0]), rng.randint(1, whole[1]))
    if layout == "nz":
        part = (align(part[0], FRACTAL_ROWS), align(part[1], 32))
    return whole, part, rng.randint(0, whole[0] - part[0]), rng.randint(0, whole[1] - part[1])


def tmov(rng: random.Random) -> Case:
    source = rng.choice(MOVE_TYPES)
    target = source if rng.random() < 0.6 else rng.choice(MOVE_TYPES)
    layouts = (rng.choice(["nd", "nd", "dn", "nz"]), rng.choice(["nd", "nd", "dn", "nz"]))
    valid = _valid(rng, layouts)
    src, dst = maybe_dynamic(rng, _tile(rng, source, valid, layouts[0])), _tile(rng, target, valid, layouts[1])
    k = Kernel(rng, "TMOV", f"{src} -> {dst}")
    k.load("a", src, values(rng, source, valid))
    return k.into(dst, f"pto.tmov ins(%a : {src}) outs(%d : {dst})")


def textract(rng: random.Random) -> Case:
    dtype = rng.choice(EXTRACT_TYPES)
    layout = rng.choice(["nd", "nd", "nd", "dn", "nz"])
    src_valid, dst_valid, row, col = _window(rng, layout)
    src = maybe_dynamic(rng, _tile(rng, dtype, src_valid, layout))
    dst = _tile(rng, dtype, dst_valid, layout)
    k = Kernel(rng, "TEXTRACT", f"{src} at ({row}, {col}) -> {dst}")
    k.load("a", src, values(rng, dtype, src_valid))
    return k.into(dst, f"pto.textract ins(%a, {k.index(row)}, {k.index(col)} : {src}, index, index) outs(%d : {dst})")


def tgetval_tsetval(rng: random.Random) -> Case:
    """An element of src's storage (any offset in it) copied to one of dst's by the scalar unit."""
    dtype = rng.choice(MOVE_TYPES)
    layouts = (rng.choice(["nd", "dn", "nz"]), rng.choice(["nd", "dn", "nz"]))
    valid = _valid(rng, layouts)
    src, dst = _tile(rng, dtype, valid, layouts[0]), _tile(rng, dtype, valid, layouts[1])
    at, to = rng.randrange(src.rows * src.cols), rng.randrange(dst.rows * dst.cols)
    k = Kernel(rng, "TGETVAL/TSETVAL", f"{src}[{at}] -> {dst}[{to}]")
    k.load("a", src, values(rng, dtype, valid))
    return k.into(
        dst,
        f"%v = pto.tgetval ins(%a, {k.index(at)} : {src}, index) outs : {dtype}",
        f"pto.tsetval ins({k.index(to)}, %v : index, {dtype}) outs(%d : {dst})",
    )


def tconcat(rng: random.Random) -> Case:
    """src0's and src1's valid columns side by side, any layouts of the three."""
    dtype = rng.choice(CONCAT_TYPES)
    layouts = tuple(rng.choice(["nd", "nd", "dn"]) for _ in range(3))
    rows = rng.randint(1, 16)
    cols0, cols1 = rng.randint(1, 40), rng.randint(1, 40)
    src0, src1 = _tile(rng, dtype, (rows, cols0), layouts[0]), _tile(rng, dtype, (rows, cols1), layouts[1])
    dst = maybe_dynamic(rng, _tile(rng, dtype, (rows, cols0 + cols1), layouts[2]))
    k = Kernel(rng, "TCONCAT", f"{src0} | {src1} -> {dst}")
    k.load("a", src0, values(rng, dtype, (rows, cols0)))
    k.load("b", src1, values(rng, dtype, (rows, cols1)))
    return k.into(dst, f"pto.tconcat ins(%a, %b : {src0}, {src1}) outs(%d : {dst})")


def treshape(rng: random.Random) -> Case:
    """A row-major tile's storage seen as another row-major shape of the same bytes (the same
    element type, or another of its size and kind), copied out by TMOV."""
    dtype = rng.choice(MOVE_TYPES)
    size = 32 // per_block(dtype)
    kin = [t for t in MOVE_TYPES if 32 // per_block(t) == size and (t[0] == "f" or t[0] == "b") == (dtype[0] in "fb")]
    viewed = rng.choice(kin)
    total = per_block(dtype) * rng.randint(1, 24)  # elements: whole 32-byte blocks
    rows = rng.choice([d for d in range(1, 17) if total % d == 0 and (total // d) % per_block(dtype) == 0])
    src = Tile("vec", rows, total // rows, dtype)
    shapes = [(r, total // r) for r in range(1, 33) if total % r == 0 and (total // r) % per_block(viewed) == 0]
    new_rows, new_cols = rng.choice(shapes)
    view = Tile("vec", new_rows, new_cols, viewed)
    k = Kernel(rng, "TRESHAPE", f"{src} -> {view}")
    k.load("a", src, values(rng, dtype, (rows, total // rows)))
    k.load("d", view)
    k.op(f"%r = pto.treshape %a : {src} -> {view}")
    k.op(f"pto.tmov ins(%r : {view}) outs(%d : {view})")
    k.store("d")
    return k.case()


def tinsert(rng: random.Random) -> Case:
    """src's valid region placed into dst at a random position inside dst's valid region."""
    dtype = rng.choice(EXTRACT_TYPES)
    layout = rng.choice(["nd", "nd", "nd", "dn", "nz"])
    dst_valid, src_valid, row, col = _window(rng, layout)
    src = _tile(rng, dtype, src_valid, layout)
    dst = maybe_dynamic(rng, _tile(rng, dtype, dst_valid, layout))
    k = Kernel(rng, "TINSERT", f"{src} -> {dst} at ({row}, {col})")
    k.load("a", src, values(rng, dtype, src_valid))
    return k.into(dst, f"pto.tinsert ins(%a, {k.index(row)}, {k.index(col)} : {src}, index, index) outs(%d : {dst})")


FORMS = {"tinsert": tinsert, "treshape": treshape, "tconcat": tconcat, "tmov": tmov, "textract": textract, "tgetval_tsetval": tgetval_tsetval}
