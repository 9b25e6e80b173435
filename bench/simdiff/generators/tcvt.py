"""TCVT: every (src, dst) pair the cpu target's rule row takes, every rounding mode and both
saturation modes, row- or col-major tiles with valid regions smaller than the tile, on random
data with edge values (NaN payloads, +-0, +-inf, denormals, integer extremes, ties of .5)."""

from __future__ import annotations

import random

import numpy as np

import targets
from bench.simdiff.kernel import Case, Kernel, Tile, align, maybe_dynamic, per_block, values
from pto_dialect.attributes import RoundMode, SaturationMode
from pto_dialect.instructions.tcvt import TCVT

PAIRS = sorted(targets.get("cpu").rules[TCVT].pairs)


def tcvt(rng: random.Random) -> Case:
    pairs = [p for p in PAIRS if "bf16" not in p] if rng.random() < 0.9 else PAIRS
    source, target = rng.choice(pairs)
    mode, saturation = rng.choice(list(RoundMode)), rng.choice(list(SaturationMode))
    valid = (rng.randint(1, 16), rng.randint(1, 70))
    col_major = rng.random() < 0.2

    def tile(dtype: str) -> Tile:
        if col_major:
            return Tile("vec", align(valid[0], per_block(dtype)), valid[1] + rng.choice([0, 2]), dtype, valid, "dn")
        return Tile("vec", valid[0] + rng.choice([0, 1]), align(valid[1] + rng.choice([0, 3]), per_block(dtype)), dtype, valid)

    src, dst = maybe_dynamic(rng, tile(source)), tile(target)
    data = values(rng, source, valid)
    if data.dtype.kind == "f" and rng.random() < 0.5:  # halves and values near the integer limits: ties and overflow
        halves = (np.random.default_rng(rng.getrandbits(32)).integers(-600, 600, data.shape) / 2).astype(data.dtype)
        data = np.where(np.random.default_rng(rng.getrandbits(32)).random(data.shape) < 0.5, halves, data)
    k = Kernel(rng, "TCVT", f"{source} -> {target} {mode.value} sat {saturation.value} {src}")
    k.load("a", src, data)
    k.load("d", dst)
    attrs = f" {{rmode = #pto<round_mode {mode.value}>, satmode = #pto<saturation_mode {saturation.value}>}}"
    k.op(f"pto.tcvt ins(%a{attrs} : {src}) outs(%d : {dst})")
    k.store("d")
    return k.case()


FORMS = {"tcvt": tcvt}
