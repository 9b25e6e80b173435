"""The unary elementwise family (TABS, TNEG, TNOT, TEXP, TLOG, TSQRT, TRSQRT, TRECIP, TRELU):
every element type the cpu target's rule row takes, row-major or (but TRECIP, whose TDIVS is
row-major only) col-major tiles, valid regions smaller than the tile, in place over src at times,
on random data with edge values (NaN payloads, +-0, +-inf, denormals, integer extremes; TRECIP's
zeros stop the simulator at its assert, which only a located cpu error agrees with)."""

from __future__ import annotations

import random

import numpy as np

import targets
from bench.simdiff.kernel import Case, Kernel, Tile, align, maybe_dynamic, per_block, values
from pto_dialect.instructions.elementwise import UNARY

CPU = targets.get("cpu").rules


def unary(rng: random.Random, op: str) -> Case:
    ((row, instruction),) = [(r, i) for r, i in UNARY if r.mnemonic == op]
    rules = CPU[instruction]
    dtype = rng.choice(sorted(rules.types - {"bf16"} if rng.random() < 0.9 else rules.types))
    valid = (rng.randint(1, 24), rng.randint(1, 80))
    rows = valid[0] + rng.choice([0, 0, 2])
    if not rules.row_major_only and rng.random() < 0.25:
        tile = Tile("vec", align(rows, per_block(dtype)), valid[1] + rng.choice([0, 3]), dtype, valid, "dn")
    else:
        tile = Tile("vec", rows, align(valid[1] + rng.choice([0, 0, 5]), per_block(dtype)), dtype, valid)
    tile = maybe_dynamic(rng, tile)
    in_place = rng.random() < 0.25
    k = Kernel(rng, op.upper(), f"{dtype} {tile}{' in place' if in_place else ''}")
    data = values(rng, dtype, tile.valid_shape)
    if op == "texp" and rng.random() < 0.5:  # mostly in exp's finite range
        with np.errstate(invalid="ignore"):  # NaN and inf stay NaN
            data = (data.astype("float64") % 20 - 10).astype(data.dtype) if data.dtype.kind == "f" else data
    if op == "trecip" and rng.random() < 0.8:  # mostly without a zero, whose assert stops the whole kernel
        with np.errstate(invalid="ignore"):
            data = np.where(data == 0, np.ones_like(data), data)
    k.load("a", tile, data)
    attrs = ""
    if row.precision and rng.random() < 0.3:
        attrs = f" {{precisionType = #pto<{op.removeprefix('t')}_precision high_precision>}}"
    ins, types = "%a", f"{tile}"
    if row.tmp and (attrs or rng.random() < 0.3):
        tmp = Tile("vec", 1, per_block(dtype), dtype)
        k.alloc("tm", tmp)
        ins, types = "%a, %tm", f"{tile}, {tmp}"
    if in_place:
        k.op(f"pto.{op} ins({ins} : {types}) outs(%a : {tile}){attrs}")
        k.store("a")
    else:
        k.load("d", tile)
        k.op(f"pto.{op} ins({ins} : {types}) outs(%d : {tile}){attrs}")
        k.store("d")
    return k.case()


FORMS = {row.mnemonic: (lambda rng, op=row.mnemonic: unary(rng, op)) for row in UNARY.rows}
