"""TFILLPAD (Vec): every element type the cpu target's rule row takes, dst of another type of the
same size at times (cpu converts), row-major, column-major and NZ tiles (src and dst of different
layouts at times), src valid shapes smaller than the tile (given at run time at times), each pad
value, and the three forms PTOAS infers: normal, expand (dst larger), in place (one tile, or two
tiles at one address). cpu writes all of dst's storage, which is stored whole: a dst of a smaller
valid shape is a TRESHAPE of a whole-valid tile, which is the one stored."""

from __future__ import annotations

import random
from dataclasses import replace

import targets
from bench.simdiff.kernel import FRACTAL_ROWS, Case, Kernel, Tile, maybe_dynamic, maybe_pad, per_block, size_of, values
from bench.simdiff.generators.movement import _tile, _valid
from pto_dialect.instructions.fillpad import TFILLPAD

FILLPAD_TYPES = sorted(targets.get("cpu").rules[TFILLPAD].types)
LAYOUTS = ("nd", "nd", "dn", "nz")


def fits(layout: str, rows: int, cols: int, dtype: str) -> bool:
    """Whether a tile of this layout may have this shape (its rows, columns or fractals whole blocks)."""
    block = per_block(dtype)
    return {"nd": cols % block == 0, "dn": rows % block == 0, "nz": rows % FRACTAL_ROWS == 0 and cols % block == 0}[layout]


def _grown(rng: random.Random, tile: Tile, dtype: str) -> tuple[int, int]:
    """A shape at least the tile's in each dimension, larger in one or both, fit for its layout."""
    rows, cols = tile.rows, tile.cols
    step_rows = FRACTAL_ROWS if tile.layout == "nz" else per_block(dtype) if tile.layout == "dn" else 1
    step_cols = per_block(dtype) if tile.layout != "dn" else 1
    grow = rng.choice([(1, 0), (0, 1), (1, 1)])
    return rows + grow[0] * step_rows * rng.randint(1, 3), cols + grow[1] * step_cols * rng.randint(1, 3)


def tfillpad(rng: random.Random) -> Case:
    source = rng.choice(FILLPAD_TYPES)
    kin = [t for t in FILLPAD_TYPES if size_of(t) == size_of(source)]
    dtype = source if rng.random() < 0.7 else rng.choice(kin)
    form = rng.choice(["normal", "normal", "expand", "in_place", "alias"])
    layout = rng.choice(LAYOUTS)
    valid = _valid(rng, (layout,))
    pad = f", pad={rng.randint(1, 3)}"
    src = replace(_tile(rng, source, valid, layout), extra=maybe_pad(rng))
    if form == "in_place":
        tile = replace(src, dtype=source, extra=pad)
        k = Kernel(rng, "TFILLPAD", f"in place {tile}")
        k.load("t", tile, values(rng, source, valid))
        k.op(f"pto.tfillpad ins(%t : {tile}) outs(%t : {tile})")
        k.op(f"%w = pto.treshape %t : {tile} -> {replace(tile, valid=None)}")
        k.tiles["w"] = replace(tile, valid=None)
        k.store("w")
        return k.case()
    if form == "alias":
        whole = Tile("vec", src.rows, src.cols, dtype, None, layout, pad)
        k = Kernel(rng, "TFILLPAD", f"{src} -> {whole} at one address")
        k.load("a", src, values(rng, source, valid), addr=0)
        k.alloc("d", whole, addr=0)
        k.op(f"pto.tfillpad ins(%a : {src}) outs(%d : {whole})")
        k.store("d")
        return k.case()
    src = maybe_dynamic(rng, src)
    dst_layout = rng.choice(LAYOUTS)
    if form == "expand":
        dst_layout = layout
        rows, cols = _grown(rng, src, dtype)
    else:
        rows, cols = src.rows, src.cols
        if not fits(dst_layout, rows, cols, dtype):
            dst_layout = layout
    whole = Tile("vec", rows, cols, dtype, None, dst_layout, pad)
    dst_valid = (rows, cols)
    if dst_layout != "nz" and rng.random() < 0.4:
        dst_valid = (rng.randint(0 if rng.random() < 0.1 else 1, rows), rng.randint(1, cols))
    k = Kernel(rng, "TFILLPAD", f"{form} {src} -> {whole} valid {dst_valid[0]}x{dst_valid[1]}")
    k.load("a", src, values(rng, source, valid))
    k.load("w", whole)
    if dst_valid == (rows, cols):
        k.op(f"pto.tfillpad ins(%a : {src}) outs(%w : {whole})")
    else:
        dst = replace(whole, valid=dst_valid)
        k.op(f"%d = pto.treshape %w : {whole} -> {dst}")
        k.op(f"pto.tfillpad ins(%a : {src}) outs(%d : {dst})")
    k.store("w")
    return k.case()


FORMS = {"tfillpad": tfillpad}
