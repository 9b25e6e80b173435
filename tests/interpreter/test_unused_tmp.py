"""
A tmp the target's code ignores takes no memory at the op (issue 30; PTOAS issue 558 and its
a5_unused_tmp_vec_overflow.pto): each kernel's tiles fit a 248 KB UB (cpu, a5) only without a tmp
as large as its largest tile, so it runs where the code ignores its tmp (Instruction.untouched)
and overflows where the code uses it (a2a3, 192 KB).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

from pto_dialect import PtoError
from tests.interpreter.harness import constants, func, gm_views, run, tile, view

F32 = "f32"
BIG_SHAPES = {"f32": ((16, 1024), (24, 1024), (32, 1024)), "i16": ((32, 1024), (48, 1024)), "i32": ((16, 1024),)}
BIG_TILES = {tile(shape, dtype): (dtype, shape) for dtype, shapes in BIG_SHAPES.items() for shape in shapes}
"""The tiles each kernel allocates (64, 96 and 128 KB), by type: (element type, shape)."""
BIG3 = tile((16, 1024), F32)
"""64 KB: three of them (src0, src1, dst) fit 248 KB, four do not."""
BIG2 = tile((24, 1024), F32)
"""96 KB: two (src, dst) fit, three do not."""
BIG1 = tile((32, 1024), F32)
"""128 KB: one (src) fits, two do not."""
ROW_DST = tile((32, 8), F32, valid=(32, 1))
ROW_INDEX = tile((32, 8), "i32", valid=(32, 1))
PER_ROW = tile((24, 1), F32, blayout="col_major")


@dataclass(frozen=True)
class Case:
    op: str
    tiles: tuple[tuple[str, str], ...]
    """The kernel's arguments in order, (name, type); `d` (the last) is dst. A tile of BIG_TILES is
    allocated and loaded from (dst: stored to) its GM argument; a smaller one and `s`, a scalar,
    are arguments themselves."""
    ins: tuple[str, ...]
    """The op's inputs in order (tile names, `s` a scalar argument, `t` the tmp, allocated like `like`)."""
    like: str
    inputs: Callable[[np.random.Generator], list]
    expected: Callable[..., np.ndarray]
    """(the inputs) -> dst's values."""
    uses_tmp: tuple[str, ...] = ("a2a3",)
    exact: bool = True

    def kernel(self) -> str:
        types = dict(self.tiles) | {"t": self.like}
        big = {n: BIG_TILES[t] for n, t in self.tiles if t in BIG_TILES}
        args = [(n, f"!pto.ptr<{big[n][0]}>" if n in big else t) for n, t in self.tiles]
        body = [constants(0, 1, *(d for _, shape in big.values() for d in shape)),
                gm_views([(n, dtype, shape) for n, (dtype, shape) in big.items()])]
        body += [f"%{n}_ub = pto.alloc_tile : {types[n]}" for n in big]
        body += [f"pto.tload ins(%{n}p : {view(big[n][1], big[n][0])}) outs(%{n}_ub : {types[n]})" for n in big if n != "d"]
        body.append(f"%t = pto.alloc_tile : {self.like}")
        ins = ", ".join(f"%{n}_ub" if n in big else f"%{n}" for n in self.ins)
        in_types = ", ".join(types[n] for n in self.ins)
        dst = "%d_ub" if "d" in big else "%d"
        body.append(f"pto.{self.op} ins({ins} : {in_types}) outs({dst} : {types['d']})")
        if "d" in big:
            body.append(f"pto.tstore ins(%d_ub : {types['d']}) outs(%dp : {view(big['d'][1], big['d'][0])})")
        return func(args, "\n".join(body))


def ints(low: int, high: int, shape: tuple[int, int]) -> Callable[[np.random.Generator], np.ndarray]:
    return lambda rng: rng.integers(low, high, size=shape).astype(np.float32)


def i16(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    return rng.integers(-(2**15), 2**15, size=shape).astype(np.int16)


def distinct(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """Distinct values: one extreme per row and column."""
    return rng.permutation(shape[0] * shape[1]).reshape(shape).astype(np.float32)


def zeros(shape: tuple[int, int], dtype: type[np.generic] = np.float32) -> np.ndarray:
    return np.zeros(shape, dtype)


def half_mask(rows: int) -> np.ndarray:
    """0x0F in every byte: column j selected where j % 8 < 4, however a target walks the bits (a
    stream over the rows, a row each, a5's 16-byte steps per 4-byte repeat); 256 bytes a row, as far
    as a5 reads for 1024 columns of 4-byte data."""
    return np.full((rows, 256), 0x0F, np.int8)


HALF_COLUMNS = np.arange(1024) % 8 < 4


def binary(op: str, formula: Callable, a: Callable, b: Callable, exact: bool = True) -> Case:
    return Case(op, (("a", BIG3), ("b", BIG3), ("d", BIG3)), ("a", "b", "t"), BIG3,
                lambda rng: [a(rng), b(rng), zeros((16, 1024))], lambda x, y, _: formula(x, y), exact=exact)


def with_scalar(op: str, formula: Callable, a: Callable, scalar: np.float32, exact: bool = True) -> Case:
    return Case(op, (("a", BIG2), ("s", F32), ("d", BIG2)), ("a", "s", "t"), BIG2,
                lambda rng: [a(rng), scalar, zeros((24, 1024))], lambda x, s, _: formula(x, s), exact=exact)


def unary(op: str, formula: Callable, a: Callable, exact: bool) -> Case:
    return Case(op, (("a", BIG2), ("d", BIG2)), ("a", "t"), BIG2, lambda rng: [a(rng), zeros((24, 1024))],
                lambda x, _: formula(x), exact=exact)


def row_reduction(op: str, formula: Callable, a: Callable) -> Case:
    return Case(op, (("a", BIG1), ("d", ROW_DST)), ("a", "t"), BIG1, lambda rng: [a(rng), zeros((32, 8))],
                lambda x, d: np.concatenate([formula(x, axis=1)[:, None], d[:, 1:]], axis=1))


def row_expand(op: str, formula: Callable, exact: bool = True) -> Case:
    return Case(op, (("a", BIG2), ("b", PER_ROW), ("d", BIG2)), ("a", "b", "t"), BIG2,
                lambda rng: [ints(-8, 9, (24, 1024))(rng), ints(1, 5, (24, 1))(rng), zeros((24, 1024))],
                lambda x, y, _: formula(x, y), exact=exact)


BIG3_I16 = tile((32, 1024), "i16")
BIG2_I16 = tile((48, 1024), "i16")
BIG3_I32 = tile((16, 1024), "i32")
MASK3, MASK2 = tile((16, 256), "i8"), tile((24, 256), "i8")

CASES = (
    Case("txor", (("a", BIG3_I16), ("b", BIG3_I16), ("d", BIG3_I16)), ("a", "b", "t"), BIG3_I16,
         lambda rng: [i16(rng, (32, 1024)), i16(rng, (32, 1024)), zeros((32, 1024), np.int16)], lambda a, b, _: a ^ b),
    Case("txors", (("a", BIG2_I16), ("s", "i16"), ("d", BIG2_I16)), ("a", "s", "t"), BIG2_I16,
         lambda rng: [i16(rng, (48, 1024)), np.int16(0x5A5A), zeros((48, 1024), np.int16)], lambda a, s, _: a ^ s),
    binary("trem", np.fmod, ints(0, 1000, (16, 1024)), ints(1, 50, (16, 1024))),
    with_scalar("trems", np.fmod, ints(0, 1000, (24, 1024)), np.float32(7)),
    binary("tpow", np.power, ints(1, 5, (16, 1024)), ints(0, 6, (16, 1024)), exact=False),
    with_scalar("tpows", np.power, ints(1, 9, (24, 1024)), np.float32(3), exact=False),
    unary("trsqrt", lambda x: 1 / np.sqrt(x), ints(1, 1000, (24, 1024)), exact=False),
    row_reduction("trowsum", np.sum, ints(-8, 9, (32, 1024))),
    row_reduction("trowmax", np.max, ints(-1000, 1000, (32, 1024))),
    row_reduction("trowmin", np.min, ints(-1000, 1000, (32, 1024))),
    row_reduction("trowprod", np.prod, lambda rng: rng.choice(np.array([-1, 1], np.float32), size=(32, 1024))),
    Case("tcolsum", (("a", BIG1), ("d", tile((1, 1024), F32))), ("a", "t"), BIG1,
         lambda rng: [ints(-8, 9, (32, 1024))(rng), zeros((1, 1024))], lambda a, _: a.sum(axis=0, keepdims=True),
         uses_tmp=()),
    *(Case(op, (("a", BIG1), ("d", tile((1, 1024), "i32"))), ("a", "t"), BIG1,
           lambda rng: [distinct(rng, (32, 1024)), zeros((1, 1024), np.int32)], lambda a, _, f=f: f(a, axis=0)[None, :])
      for op, f in (("tcolargmin", np.argmin), ("tcolargmax", np.argmax))),
    *(Case(op, (("a", BIG1), ("d", ROW_INDEX)), ("a", "t"), BIG1,
           lambda rng: [distinct(rng, (32, 1024)), zeros((32, 8), np.int32)],
           lambda a, d, f=f: np.concatenate([f(a, axis=1)[:, None], d[:, 1:]], axis=1))
      for op, f in (("trowargmin", np.argmin), ("trowargmax", np.argmax))),
    Case("tgather", (("a", BIG3), ("i", BIG3_I32), ("d", BIG3)), ("a", "i", "t"), BIG3_I32,
         lambda rng: [distinct(rng, (16, 1024)), rng.integers(0, 16 * 1024, size=(16, 1024)).astype(np.int32),
                      zeros((16, 1024))],
         lambda a, i, _: a.ravel()[i]),
    row_expand("trowexpandadd", np.add),
    row_expand("trowexpandsub", np.subtract),
    row_expand("trowexpandmul", np.multiply),
    row_expand("trowexpanddiv", np.divide, exact=False),
    row_expand("trowexpandmax", np.maximum),
    row_expand("trowexpandmin", np.minimum),
    row_expand("trowexpandexpdif", lambda a, b: np.exp(a - b), exact=False),
    Case("tsel", (("m", MASK3), ("a", BIG3), ("b", BIG3), ("d", BIG3)), ("m", "a", "b", "t"), BIG3,
         lambda rng: [half_mask(16), ints(-99, 99, (16, 1024))(rng), ints(-99, 99, (16, 1024))(rng), zeros((16, 1024))],
         lambda m, a, b, _: np.where(HALF_COLUMNS, a, b)),
    Case("tsels", (("m", MASK2), ("a", BIG2), ("s", F32), ("d", BIG2)), ("m", "a", "t", "s"), BIG2,
         lambda rng: [half_mask(24), ints(-99, 99, (24, 1024))(rng), np.float32(5), zeros((24, 1024))],
         lambda m, a, s, _: np.where(HALF_COLUMNS, a, s)),
)
BY_OP = {case.op: case for case in CASES}


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("op", sorted(BY_OP))
def test_an_ignored_tmp_takes_no_memory_a_used_one_does(op: str, target: str) -> None:
    case = BY_OP[op]
    args = case.inputs(np.random.default_rng(30))
    if target in case.uses_tmp:
        with pytest.raises(PtoError, match="UB overflow"):
            run(case.kernel(), target, args)
        return
    out = run(case.kernel(), target, args)[-1]
    want = case.expected(*args).astype(out.dtype)
    if case.exact:
        np.testing.assert_array_equal(out, want)
    else:
        np.testing.assert_allclose(out, want, rtol=1e-3)


# TROWARGMIN / TROWARGMAX as PTOAS's issue-558 kernels shape them: a 2 x 16384 f32 src (valid
# 16381 columns) and a tmp as large, loaded from and stored to GM.

ROWS, COLS, VALID = 2, 16384, 16381
SRC = tile((ROWS, COLS), "f32", valid=(ROWS, VALID))
DST = tile((ROWS, 8), "ui32", valid=(ROWS, 1))


def arg_kernel(op: str) -> str:
    return func(
        [("x", "!pto.ptr<f32>"), ("y", "!pto.ptr<ui32>")],
        f"""
        {constants(0, 1, ROWS, COLS, VALID)}
        {gm_views([("x", "f32", (ROWS, COLS)), ("y", "ui32", (ROWS, 1))])}
        %xs = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c{ROWS}, %c{VALID}] : !pto.tensor_view<?x?xf32>
        %src = pto.alloc_tile : {SRC}
        %tmp = pto.alloc_tile : {SRC}
        %dst = pto.alloc_tile : {DST}
        pto.tload ins(%xs : {view((ROWS, VALID), "f32")}) outs(%src : {SRC})
        pto.{op} ins(%src, %tmp : {SRC}, {SRC}) outs(%dst : {DST})
        pto.tstore ins(%dst : {DST}) outs(%yp : {view((ROWS, 1), "ui32")})
        """,
    )


@pytest.mark.parametrize(("op", "reduce"), [("trowargmax", np.argmax), ("trowargmin", np.argmin)])
def test_an_ignored_arg_reduction_tmp_fits_beside_src_on_a5(op, reduce) -> None:
    x = np.random.default_rng(558).permutation(ROWS * COLS).astype(np.float32)
    out = run(arg_kernel(op), "a5", [x, np.zeros(ROWS, np.uint32)])[1]
    assert list(out) == list(reduce(x.reshape(ROWS, COLS)[:, :VALID], axis=1))


def test_a_used_arg_reduction_tmp_still_takes_its_place_on_a2a3() -> None:
    with pytest.raises(PtoError, match="UB overflow"):
        run(arg_kernel("trowargmax"), "a2a3", [np.zeros(ROWS * COLS, np.float32), np.zeros(ROWS, np.uint32)])
