"""The elementwise families: binary (TADD, TSUB, ...: two tiles), tile-scalar (TADDS, ...: a
tile and a scalar argument of any SSA type the element type converts from) and fill
(TEXPANDS), every element type the simulator computes with, row-major or col-major tiles where
cpu/TBinSOps.hpp allows them, valid regions smaller than the tile, in place over an input,
edge values (NaN, +-0, +-inf, denormals, integer extremes, zero divisors)."""

from __future__ import annotations

import random

import numpy as np

from bench.simdiff.kernel import Case, Kernel, Tile, align, maybe_dynamic, numpy_dtype, per_block, values
from pto_dialect.facts import INTEGERS, types_named
from pto_dialect.instructions.elementwise import BINARY, FILL, TILE_SCALAR

TYPES = sorted(INTEGERS | types_named("f16", "bf16", "f32"))
"""What the simulator's elementwise C++ takes (the cpu rule rows)."""
INTEGER_ONLY = {"tand", "tor", "txor", "tshl", "tshr", "tands", "tors", "txors", "tshls", "tshrs"}
"""Members whose C++ takes integers only."""

ROW_MAJOR_SCALAR = {"tadds", "tmuls", "tdivs", "tmaxs", "tpows", "tlrelu"}
"""cpu/TBinSOps.hpp CONSTRAINT_VEC_ROWMAJOR: these static_assert row-major tiles."""


def tile_for(rng: random.Random, dtype: str, col_major: bool) -> Tile:
    valid = (rng.randint(1, 24), rng.randint(1, 80))
    if col_major:
        rows = align(valid[0] + rng.choice([0, 0, 3]), per_block(dtype))
        return maybe_dynamic(rng, Tile("vec", rows, valid[1] + rng.choice([0, 0, 2]), dtype, valid, "dn"))
    cols = align(valid[1] + rng.choice([0, 0, 5]), per_block(dtype))
    return maybe_dynamic(rng, Tile("vec", valid[0] + rng.choice([0, 0, 2]), cols, dtype, valid))


def types_of(op: str) -> list[str]:
    return [t for t in TYPES if numpy_dtype(t).kind in "iu"] if op in INTEGER_ONLY else TYPES


def binary(rng: random.Random, op: str) -> Case:
    """dst = op(src0, src1); in place over src0 or src1 at times."""
    dtype = rng.choice(types_of(op))
    tile = tile_for(rng, dtype, rng.random() < 0.25)
    k = Kernel(rng, op.upper(), f"{dtype} {tile}")
    first, second = values(rng, dtype, tile.valid_shape), values(rng, dtype, tile.valid_shape)
    if op == "tsubrelu" and numpy_dtype(dtype).kind == "i" and numpy_dtype(dtype).itemsize >= 4:  # halved: a signed
        first, second = first // 2, second // 2  # 32/64-bit difference that overflows is C++ UB (a located error here)
    k.load("a", tile, first)
    if op in ("tdiv", "trem", "tfmod") and rng.random() < 0.7:  # most kernels divide by no zero (one traps the whole kernel)
        with np.errstate(invalid="ignore"):
            second = np.where(second == 0, np.array(3, second.dtype), second)
    if op in ("tshl", "tshr") and rng.random() < 0.9:  # most kernels shift by defined counts (others are C++ UB)
        second = counts(rng, dtype, tile.valid_shape)
    if op == "tpow" and numpy_dtype(dtype).kind in "iu":  # exponents the integer loop finishes quickly, negative ones too
        second = np.random.default_rng(rng.getrandbits(32)).integers(-2 if numpy_dtype(dtype).kind == "i" else 0, 70,
                                                                      tile.valid_shape).astype(numpy_dtype(dtype))
    k.load("b", tile, second)
    where = rng.choice(["d", "d", "a"] if op == "trem" else ["d", "d", "a", "b"])  # TREM over src1: refused (it rereads it)
    if where == "d":
        k.load("d", tile)
    k.op(f"pto.{op} ins(%a, %b : {tile}, {tile}) outs(%{where} : {tile})")
    k.store(where)
    return k.case()


def counts(rng: random.Random, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    """Shift counts from 0 to below the element's width."""
    bits = 8 * numpy_dtype(dtype).itemsize
    return np.random.default_rng(rng.getrandbits(32)).integers(0, bits, shape).astype(numpy_dtype(dtype))


def scalar_value(rng: random.Random, ssa: str, dtype: str, op: str = "") -> float | int:
    """A scalar of SSA type `ssa`: an edge value, a small one, or one of the tile's values."""
    if numpy_dtype(ssa).kind not in "iu":  # f16, f32, and ml_dtypes' bf16 (kind 'V')
        pool = [0.0, -0.0, 1.0, -1.5, 2.5, 3.0, 1e-3, 1e30, float("nan"), float("inf"), -float("inf"), 0.1, -7.25]
        if numpy_dtype(dtype).kind in "iu":  # a float converted into an integer type: within its range (else undefined in C++)
            info = np.iinfo(numpy_dtype(dtype))
            pool = [v for v in (0.0, 1.0, -1.5, 2.5, 3.0, 0.1, -7.25, 100.7) if info.min <= v <= info.max]
        return rng.choice(pool)
    info = np.iinfo(numpy_dtype(ssa))
    if op in ("tshls", "tshrs", "tpows") and rng.random() < 0.9:  # defined shift counts; small integer exponents
        return rng.randint(0, min(8 * numpy_dtype(dtype).itemsize, int(info.max)) - 1 if op != "tpows" else 3)
    return rng.choice([0, 1, -1 if info.min else 2, 2, 3, 7, int(info.max), int(info.min), rng.randint(int(info.min), int(info.max))])


def tile_scalar(rng: random.Random, op: str) -> Case:
    """dst = op(src, scalar), the scalar an argument of the element type or another SSA type."""
    dtype = rng.choice(types_of(op))
    tile = tile_for(rng, dtype, op not in ROW_MAJOR_SCALAR and rng.random() < 0.25)
    integer_scalar = op in ("tands", "tors", "txors", "tshls", "tshrs")  # PTOAS: a signless integer scalar
    ssa = dtype if rng.random() < 0.6 or integer_scalar else rng.choice(["f32", "i32", "i16"])
    if integer_scalar:
        ssa = f"i{8 * numpy_dtype(dtype).itemsize}"
    k = Kernel(rng, op.upper(), f"{dtype} {tile} scalar {ssa}")
    data = values(rng, dtype, tile.valid_shape)
    if op == "tpows" and numpy_dtype(dtype).kind in "iu":  # powers an integer holds (others convert undefined)
        data = np.random.default_rng(rng.getrandbits(32)).integers(-9 if numpy_dtype(dtype).kind == "i" else 0, 10,
                                                                    tile.valid_shape).astype(numpy_dtype(dtype))
    k.load("a", tile, data)
    with np.errstate(over="ignore"):  # 1e30 as an f16 scalar: an infinity, one more edge value
        s = k.scalar(ssa, scalar_value(rng, ssa, dtype, op))
    where = rng.choice(["d", "d", "a"])
    if where == "d":
        k.load("d", tile)
    k.op(f"pto.{op} ins(%a, {s} : {tile}, {ssa}) outs(%{where} : {tile})")
    k.store(where)
    return k.case()


def fill(rng: random.Random, op: str) -> Case:
    """dst's valid region = the scalar (of dst's element type, as PTOAS wants)."""
    dtype = rng.choice(TYPES)
    tile = tile_for(rng, dtype, rng.random() < 0.25)
    k = Kernel(rng, op.upper(), f"{dtype} {tile}")
    s = k.scalar(dtype, values(rng, dtype, (1,))[0])
    k.load("d", tile)
    k.op(f"pto.{op} ins({s} : {dtype}) outs(%d : {tile})")
    k.store("d")
    return k.case()


def _form(draw, op: str):  # noqa: ANN001, ANN202
    return lambda rng: draw(rng, op)


FORMS = {
    **{row.mnemonic: _form(binary, row.mnemonic) for row in BINARY.rows},
    **{row.mnemonic: _form(tile_scalar, row.mnemonic) for row in TILE_SCALAR.rows},
    **{row.mnemonic: _form(fill, row.mnemonic) for row in FILL.rows},
}
