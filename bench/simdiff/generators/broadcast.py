"""TROWEXPAND and TROWEXPAND{ADD,SUB,MUL,DIV,MAX,MIN,EXPDIF}: the per-row operand a one-column
DN tile (mode 1) or a row-major tile of 32 bytes of valid columns (mode 2, at times wider than
that), as src1 or src0, dst over the full operand (in place) at times; edge values, zero
divisors (the simulator asserts) and integer extremes included."""

from __future__ import annotations

import random

from bench.simdiff.kernel import Case, Kernel, Tile, align, maybe_dynamic, per_block, values

INTEGER = ["i16", "ui16", "i32", "ui32"]
TYPES = {
    "trowexpandadd": INTEGER + ["f16", "f32"],
    "trowexpandsub": INTEGER + ["f16", "f32"],
    "trowexpandmul": INTEGER + ["ui8", "f16", "f32"],
    "trowexpanddiv": INTEGER + ["f16", "f32"],
    "trowexpandmax": INTEGER + ["f16", "f32"],
    "trowexpandmin": INTEGER + ["f16", "f32"],
    "trowexpandexpdif": ["f16", "f32"],
}
"""cpu/TRowExpandOp.hpp IsRowExpandAllowedType."""


def per_row(rng: random.Random, dtype: str, rows: int) -> Tile:
    if rng.random() < 0.5:
        return Tile("vec", align(rows, per_block(dtype)), 1, dtype, (rows, 1), "dn")
    block = per_block(dtype)
    return Tile("vec", rows, rng.choice([block, block, 2 * block]), dtype, (rows, block))


def binary(rng: random.Random, op: str) -> Case:
    dtype = rng.choice(TYPES[op])
    valid = (rng.randint(1, 32), rng.randint(1, 300))
    full = maybe_dynamic(rng, Tile("vec", valid[0] + rng.choice([0, 0, 2]), align(valid[1] + rng.choice([0, 5]), per_block(dtype)), dtype, valid))
    vector = per_row(rng, dtype, valid[0])
    vector_first = rng.random() < 0.3
    k = Kernel(rng, op.upper(), f"{dtype} full {full} per-row {vector}{' first' if vector_first else ''}")
    k.load("f", full, values(rng, dtype, full.valid_shape))
    k.load("v", vector, values(rng, dtype, vector.valid_shape))
    in_place = not vector_first and rng.random() < 0.3  # dst over the full operand: src0 only
    if not in_place:
        k.load("d", full)
    out = "f" if in_place else "d"
    a, b = ("v", "f") if vector_first else ("f", "v")
    types = {"f": full, "v": vector}
    k.op(f"pto.{op} ins(%{a}, %{b} : {types[a]}, {types[b]}) outs(%{out} : {full})")
    k.store(out)
    return k.case()


def expand_shape(rng: random.Random) -> tuple[str, tuple[int, int]]:
    """A plain expand's (TROWEXPAND's, TCOLEXPAND's) element type and dst valid shape."""
    return rng.choice(["i8", "i16", "i32", "f16", "bf16", "f32"]), (rng.randint(1, 32), rng.randint(1, 300))


def expand(rng: random.Random) -> Case:
    dtype, valid = expand_shape(rng)
    src = per_row(rng, dtype, valid[0])
    dst = Tile("vec", valid[0], align(valid[1], per_block(dtype)), dtype, valid)
    k = Kernel(rng, "TROWEXPAND", f"{dtype} {src} -> {dst}")
    k.load("s", src, values(rng, dtype, src.valid_shape))
    return k.into(dst, f"pto.trowexpand ins(%s : {src}) outs(%d : {dst})")


FORMS = {op: (lambda rng, op=op: binary(rng, op)) for op in TYPES} | {"trowexpand": expand}
