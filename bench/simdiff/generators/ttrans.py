"""TTRANS (Vec, 2-D): every element type the cpu target's rule row takes, dst of another type of the
same size at times (cpu converts), row-major, column-major and NZ tiles (src and dst of different
layouts), src valid shapes smaller than the tile (given at run time at times), an explicit tmp at
times; dst's valid shape is src's transposed (cpu's static_assert)."""

from __future__ import annotations

import random
from dataclasses import replace

import targets
from bench.simdiff.kernel import Case, Kernel, Tile, maybe_dynamic, size_of, values
from bench.simdiff.generators.fillpad import LAYOUTS, fits
from bench.simdiff.generators.movement import _tile, _valid
from pto_dialect.instructions.ttrans import TTRANS

TRANS_TYPES = sorted(targets.get("cpu").rules[TTRANS].types)


def _holding(rng: random.Random, dtype: str, valid: tuple[int, int]) -> Tile:
    """A dst of some layout whose valid shape is `valid` (src's transposed)."""
    for layout in rng.sample(LAYOUTS, len(LAYOUTS)):
        if layout == "nz" and not fits("nz", *valid, dtype):  # an NZ tile is loaded and stored as whole fractals
            continue
        tile = _tile(rng, dtype, valid, layout)
        if fits(layout, tile.rows, tile.cols, dtype) and tile.rows >= valid[0] and tile.cols >= valid[1]:
            return tile
    return _tile(rng, dtype, valid, "nd")


def ttrans(rng: random.Random) -> Case:
    source = rng.choice(TRANS_TYPES)
    kin = [t for t in TRANS_TYPES if size_of(t) == size_of(source)]
    dtype = source if rng.random() < 0.7 else rng.choice(kin)
    layout = rng.choice(LAYOUTS)
    valid = _valid(rng, (layout,))
    src = maybe_dynamic(rng, _tile(rng, source, valid, layout))
    transposed = (valid[1], valid[0])
    dst = replace(_holding(rng, dtype, transposed), dynamic=src.dynamic)  # cpu: both static or both dynamic
    k = Kernel(rng, "TTRANS", f"{src} -> {dst}")
    k.load("a", src, values(rng, source, valid))
    k.load("d", dst)
    tmp = ("t", replace(src, valid=None, dynamic=False)) if rng.random() < 0.3 else None
    k.op(f"pto.ttrans {k.ins([('a', src)], tmp)} outs(%d : {dst})")
    k.store("d")
    return k.case()


FORMS = {"ttrans": ttrans}
