# pyright: reportInvalidTypeForm=false
# (a kernel's parameters are annotated with calls, `x: pto.ptr(pto.f16)`: the builder's syntax)
"""
Each instruction's builder function (pto_frontend/instructions.py, made from the registry),
on every target: a kernel built with it holds the op as the same kernel written in `.pto`
text spells it, and runs with that kernel's results, bit for bit (or is refused with its
message) on each target. SAMPLES must cover every instruction of the registry.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

import interpreter
import pto_frontend as pto
from pto_dialect import PtoError, parse
from pto_dialect.instructions import REGISTRY
from pto_dialect.instructions.elementwise import BINARY, FILL, TILE_SCALAR, UNARY
from tests.frontend.views import whole_views
from tests.interpreter.harness import assert_bits_equal, constants, func, gm_views, NP, TARGETS, tensor_view, tile, view
from pto_dialect.instructions.broadcast import COL_BROADCASTS, ROW_BROADCASTS
from pto_dialect.instructions.reduction import COL_REDUCTIONS, ROW_REDUCTIONS
from pto_dialect.instructions.partial import PARTIAL
from pto_dialect.instructions.partial_arg import PARTIAL_ARG


@dataclass(frozen=True)
class Sample:
    kernel: pto.Kernel
    text: str
    """The same kernel in `.pto` text, its values named as the builder's variables."""
    inputs: tuple[np.ndarray | np.generic, ...]


def _tiles(*specs: tuple[tuple[int, int], pto.DType]) -> list[pto.Value]:
    """One alloc_tile per (shape, dtype)."""
    return [pto.alloc_tile(shape=list(shape), dtype=dtype) for shape, dtype in specs]


def sample_text(
    name: str, views: list[tuple[str, str, tuple[int, int]]], tiles: dict[str, str], loads: dict[str, str], ops: str,
    stores: dict[str, str], scalars: tuple[tuple[str, str], ...] = (),
) -> str:
    """A sample's `.pto` text, @name: a pointer argument for each (name, dtype, shape) of `views`
    (its whole GM view %<name>p), then the `scalars` ((name, type)); the `tiles` (name -> type)
    allocated in order; each view of `loads` tloaded into its tile; the `ops` (lines); each tile
    of `stores` tstored to its view."""
    dims = {n: (dtype, shape) for n, dtype, shape in views}
    lines = [
        gm_views(views),
        *(f"%{n} = pto.alloc_tile : {t}" for n, t in tiles.items()),
        *(f"pto.tload ins(%{v}p : {view(dims[v][1], dims[v][0])}) outs(%{t} : {tiles[t]})" for v, t in loads.items()),
        ops,
        *(f"pto.tstore ins(%{t} : {tiles[t]}) outs(%{v}p : {view(dims[v][1], dims[v][0])})" for t, v in stores.items()),
    ]
    args = [(n, f"!pto.ptr<{dtype}>") for n, dtype, _ in views] + list(scalars)
    return func(args, constants(0, 1, *(d for _, _, shape in views for d in shape)) + "\n" + "\n".join(lines), name)


@dataclass(frozen=True)
class Held:
    """A tile of a sample, moved from or to a whole GM view of `view`'s shape: its element type,
    its shape (default the view's), valid shape and pad."""

    dtype: str
    view: tuple[int, int]
    shape: tuple[int, int] | None = None
    valid: tuple[int, int] | None = None
    pad: int | None = None

    def alloc(self) -> pto.Value:
        """The tile, built."""
        valid = None if self.valid is None else list(self.valid)
        return pto.alloc_tile(shape=list(self.shape or self.view), dtype=getattr(pto, self.dtype), valid=valid, pad=self.pad)

    def spelt(self) -> str:
        """The tile's type as the text spells it."""
        return tile(self.shape or self.view, self.dtype, valid=self.valid, **({} if self.pad is None else {"pad": str(self.pad)}))


def _tile_sample(name: str, held: tuple[Held, ...], build: Callable[..., None], op: str, inputs: tuple) -> Sample:
    """x loaded into tile a and (given three tiles) y into tile b, `build(a[, b], d)` writing tile d,
    d stored to z: the tiles `held` in that order; the text's op line(s) `op`."""
    pointers = "xyz" if len(held) == 3 else "xz"

    def body(x: pto.Value, y: pto.Value | None, z: pto.Value) -> None:
        xp, zp = whole_views([(x, held[0].view), (z, held[-1].view)])
        a, d = held[0].alloc(), held[-1].alloc()
        pto.tload(xp, a)
        if y is None:
            build(a, d)
        else:
            (yp,) = whole_views([(y, held[1].view)])
            b = held[1].alloc()
            pto.tload(yp, b)
            build(a, b, d)
        pto.tstore(d, zp)

    def from_two(x, z):  # noqa: ANN001 (typed below: the element types vary)
        body(x, None, z)

    def from_three(x, y, z):  # noqa: ANN001
        body(x, y, z)

    kernel = from_three if len(held) == 3 else from_two
    kernel.__annotations__ = {n: pto.ptr(getattr(pto, h.dtype)) for n, h in zip(pointers, held)}
    spelt = {t: h.spelt() for t, h in zip("abd" if len(held) == 3 else "ad", held)}
    loads = {"x": "a", "y": "b"} if len(held) == 3 else {"x": "a"}
    text = sample_text(name, [(n, h.dtype, h.view) for n, h in zip(pointers, held)], spelt, loads, op, {"d": "z"})
    return Sample(pto.kernel(kernel, name=name), text, inputs)


RNG = np.random.default_rng(20)


def _normal_and_zeros(n: int, zeros: int) -> tuple[np.ndarray, np.ndarray]:
    """A sample's inputs: n standard-normal f32 values drawn from RNG, and `zeros` f32 zeros (its output)."""
    return RNG.standard_normal(n).astype(np.float32), np.zeros(zeros, np.float32)

# -- tload, tstore, tprint ------------------------------------------------------------


@pto.kernel
def copy_print(x: pto.ptr(pto.f32), y: pto.ptr(pto.f32)):
    t = pto.alloc_tile(shape=[8, 16], dtype=pto.f32, valid=[6, 16])
    xp = pto.partition_view(pto.make_tensor_view(x, shape=[8, 16], strides=[16, 1]), offsets=[2, 0], sizes=[6, 16])
    yp = pto.partition_view(pto.make_tensor_view(y, shape=[8, 16], strides=[16, 1]), offsets=[0, 0], sizes=[6, 16])
    pto.tload(xp, t)
    pto.tprint(t)
    pto.tstore(t, yp)


T6 = tile((8, 16), "f32", valid=(6, 16))
COPY_PRINT = Sample(
    copy_print,
    func([("x", "!pto.ptr<f32>"), ("y", "!pto.ptr<f32>")], constants(0, 1, 2, 6, 8, 16) + f"""
%xv = pto.make_tensor_view %x, shape = [%c8, %c16], strides = [%c16, %c1] : {tensor_view(2, "f32")}
%xp = pto.partition_view %xv, offsets = [%c2, %c0], sizes = [%c6, %c16] : {tensor_view(2, "f32")}
%yv = pto.make_tensor_view %y, shape = [%c8, %c16], strides = [%c16, %c1] : {tensor_view(2, "f32")}
%yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c6, %c16] : {tensor_view(2, "f32")}
%t = pto.alloc_tile : {T6}
pto.tload ins(%xp : {view((6, 16), "f32")}) outs(%t : {T6})
pto.tprint ins(%t : {T6})
pto.tstore ins(%t : {T6}) outs(%yp : {view((6, 16), "f32")})
""", "copy_print"),
    _normal_and_zeros(128, 128),
)

# -- mgather --------------------------------------------------------------------------


@pto.kernel
def gather_rows(tab: pto.ptr(pto.f16), ids: pto.ptr(pto.i32), out: pto.ptr(pto.f16)):
    tabp, idsp, outp = whole_views([(tab, (64, 32)), (ids, (1, 8)), (out, (8, 32))])
    idx, rows = _tiles(((1, 8), pto.i32), ((8, 32), pto.f16))
    pto.tload(idsp, idx)
    pto.mgather(tabp, idx, rows, coalesce="row", gather_oob="wrap")
    pto.tstore(rows, outp)


GATHER_ROWS = Sample(
    gather_rows,
    sample_text(
        "gather_rows", [("tab", "f16", (64, 32)), ("ids", "i32", (1, 8)), ("out", "f16", (8, 32))],
        {"idx": tile((1, 8), "i32"), "rows": tile((8, 32), "f16")}, {"ids": "idx"},
        f'pto.mgather ins(%tabp, %idx : {view((64, 32), "f16")}, {tile((1, 8), "i32")}) outs(%rows : {tile((8, 32), "f16")}) '
        "{coalesce = #pto<coalesce row>, gatherOob = #pto<gather_oob wrap>}",
        {"rows": "out"},
    ),
    (RNG.standard_normal(64 * 32).astype(np.float16), np.array([0, 3, 63, 64, 70, -1, 9, 1], np.int32),
             np.zeros(8 * 32, np.float16)),
)

# -- tgather: index and mask forms, compare form ------------------------------------------


@pto.kernel
def gather_in_tile(x: pto.ptr(pto.f32), perm: pto.ptr(pto.i32), y: pto.ptr(pto.f32), h: pto.ptr(pto.f32)):
    xp, permp, yp, hp = whole_views([(x, (16, 64)), (perm, (16, 64)), (y, (16, 64)), (h, (16, 32))])
    src, idx, itmp, yt, ht = _tiles(((16, 64), pto.f32), ((16, 64), pto.i32), ((16, 64), pto.i32), ((16, 64), pto.f32), ((16, 32), pto.f32))
    pto.tload(xp, src)
    pto.tload(permp, idx)
    pto.tgather(src, yt, indices=idx, tmp=itmp)
    pto.tgather(src, ht, mask_pattern="P0101")
    pto.tstore(yt, yp)
    pto.tstore(ht, hp)


T = {name: tile(shape, dtype) for name, shape, dtype in (
    ("src", (16, 64), "f32"), ("idx", (16, 64), "i32"), ("itmp", (16, 64), "i32"), ("yt", (16, 64), "f32"),
    ("ht", (16, 32), "f32"))}
GATHER_IN_TILE = Sample(
    gather_in_tile,
    sample_text(
        "gather_in_tile", [("x", "f32", (16, 64)), ("perm", "i32", (16, 64)), ("y", "f32", (16, 64)), ("h", "f32", (16, 32))],
        T, {"x": "src", "perm": "idx"}, f"""\
pto.tgather ins(%src, %idx, %itmp : {T["src"]}, {T["idx"]}, {T["itmp"]}) outs(%yt : {T["yt"]})
pto.tgather ins(%src, {{maskPattern = #pto.mask_pattern<P0101>}} : {T["src"]}) outs(%ht : {T["ht"]})""",
        {"yt": "y", "ht": "h"},
    ),
    (RNG.standard_normal(1024).astype(np.float32), RNG.integers(0, 1024, 1024).astype(np.int32),
             np.zeros(1024, np.float32), np.zeros(512, np.float32)),
)


@pto.kernel
def compare_hits(x: pto.ptr(pto.f32), hits: pto.ptr(pto.i32)):
    xp, hitsp = whole_views([(x, (16, 64)), (hits, (16, 64))])
    src = pto.alloc_tile(shape=[16, 64], dtype=pto.f32)
    ctmp = pto.alloc_tile(shape=[16, 128], dtype=pto.i32)
    hit = pto.alloc_tile(shape=[16, 64], dtype=pto.i32)
    cnt = pto.alloc_tile(shape=[16, 8], dtype=pto.i32, valid=[16, 1])
    pto.tload(xp, src)
    pto.tgather(src, hit, k_value=0.5, tmp=ctmp, cdst=cnt, cmp_mode="gt", offset=100)
    pto.tstore(hit, hitsp)


CNT = tile((16, 8), "i32", valid=(16, 1))
COMPARE_HITS = Sample(
    compare_hits,
    sample_text(
        "compare_hits", [("x", "f32", (16, 64)), ("hits", "i32", (16, 64))],
        {"src": tile((16, 64), "f32"), "ctmp": tile((16, 128), "i32"), "hit": tile((16, 64), "i32"), "cnt": CNT}, {"x": "src"}, f"""\
%cst = arith.constant 5.000000e-01 : f32
pto.tgather ins(%src, %cst, %ctmp : {tile((16, 64), "f32")}, f32, {tile((16, 128), "i32")}) outs(%hit, %cnt : {tile((16, 64), "i32")}, {CNT}) {{cmpMode = #pto<cmp gt>, offset = 100 : i32}}""",
        {"hit": "hits"},
    ),
    (RNG.standard_normal(1024).astype(np.float32), np.zeros(1024, np.int32)),
)

# -- mscatter ------------------------------------------------------------------------------


@pto.kernel
def scatter_rows(src: pto.ptr(pto.f32), ids: pto.ptr(pto.i32), tab: pto.ptr(pto.f32)):
    srcp, idsp, tabp = whole_views([(src, (8, 32)), (ids, (1, 8)), (tab, (64, 32))])
    rows, idx = _tiles(((8, 32), pto.f32), ((1, 8), pto.i32))
    pto.tload(srcp, rows)
    pto.tload(idsp, idx)
    pto.mscatter(rows, idx, tabp, coalesce="row", scatter_atomic_op="add")


SCATTER_ROWS = Sample(
    scatter_rows,
    sample_text(
        "scatter_rows", [("src", "f32", (8, 32)), ("ids", "i32", (1, 8)), ("tab", "f32", (64, 32))],
        {"rows": tile((8, 32), "f32"), "idx": tile((1, 8), "i32")}, {"src": "rows", "ids": "idx"},
        f'pto.mscatter ins(%rows, %idx : {tile((8, 32), "f32")}, {tile((1, 8), "i32")}) outs(%tabp : {view((64, 32), "f32")}) '
        "{coalesce = #pto<coalesce row>, scatterAtomicOp = #pto<scatter_atomic_op add>}",
        {},
    ),
    (RNG.standard_normal(8 * 32).astype(np.float32), np.array([0, 3, 63, 5, 3, 9, 1, 2], np.int32),  # row 3 twice: added
     RNG.standard_normal(64 * 32).astype(np.float32)),
)

# -- tscatter: index and mask forms ---------------------------------------------------------


@pto.kernel
def scatter_in_tile(x: pto.ptr(pto.f32), pos: pto.ptr(pto.i32), y: pto.ptr(pto.f32), z: pto.ptr(pto.f32)):
    xp, posp, yp, zp = whole_views([(x, (8, 32)), (pos, (8, 32)), (y, (16, 32)), (z, (8, 64))])
    src, idx, yt, zt = _tiles(((8, 32), pto.f32), ((8, 32), pto.i32), ((16, 32), pto.f32), ((8, 64), pto.f32))
    pto.tload(xp, src)
    pto.tload(posp, idx)
    pto.tscatter(src, yt, indexes=idx)
    pto.tscatter(src, zt, mask_pattern="P0101")
    pto.tstore(yt, yp)
    pto.tstore(zt, zp)


S = {name: tile(shape, dtype) for name, shape, dtype in (
    ("src", (8, 32), "f32"), ("idx", (8, 32), "i32"), ("yt", (16, 32), "f32"), ("zt", (8, 64), "f32"))}
SCATTER_IN_TILE = Sample(
    scatter_in_tile,
    sample_text(
        "scatter_in_tile", [("x", "f32", (8, 32)), ("pos", "i32", (8, 32)), ("y", "f32", (16, 32)), ("z", "f32", (8, 64))],
        S, {"x": "src", "pos": "idx"}, f"""\
pto.tscatter ins(%src, %idx : {S["src"]}, {S["idx"]}) outs(%yt : {S["yt"]})
pto.tscatter ins(%src, {{maskPattern = #pto.mask_pattern<P0101>}} : {S["src"]}) outs(%zt : {S["zt"]})""",
        {"yt": "y", "zt": "z"},
    ),
    (RNG.standard_normal(256).astype(np.float32), RNG.permutation(16 * 32)[:256].astype(np.int32),
     np.zeros(512, np.float32), np.zeros(512, np.float32)),
)

# -- tcolargmin, tcolargmax, trowargmin, trowargmax ---------------------------------------

ARG_SRC = (16, 32)
"""The arg-reductions' src; a column reduction writes one row of 32, a row reduction one
column of 16 (a 16x8 row-major tile, valid 16x1)."""


def _arg_kernel(name: str, build: Callable[..., None], out: tuple[int, int], valid: tuple[int, int]) -> pto.Kernel:
    def kernel(x: pto.ptr(pto.f32), vi: pto.ptr(pto.i32), ii: pto.ptr(pto.i32)):
        xp, vip, iip = whole_views([(x, ARG_SRC), (vi, valid), (ii, valid)])
        src, tmp = _tiles((ARG_SRC, pto.f32), (ARG_SRC, pto.f32))
        val, vidx, iidx = (pto.alloc_tile(shape=list(out), dtype=d, valid=list(valid)) for d in (pto.f32, pto.i32, pto.i32))
        pto.tload(xp, src)
        build(src, iidx, tmp=tmp)
        build(src, vidx, dst_val=val, tmp=tmp)
        pto.tstore(vidx, vip)
        pto.tstore(iidx, iip)

    return pto.kernel(kernel, name=name)


def _arg_sample(mnemonic: str) -> Sample:
    out, valid = ((1, 32), (1, 32)) if mnemonic.startswith("tcol") else ((16, 8), (16, 1))
    src, val, idx = tile(ARG_SRC, "f32"), tile(out, "f32", valid=valid), tile(out, "i32", valid=valid)
    text = sample_text(
        mnemonic, [("x", "f32", ARG_SRC), ("vi", "i32", valid), ("ii", "i32", valid)],
        {"src": src, "tmp": src, "val": val, "vidx": idx, "iidx": idx}, {"x": "src"}, f"""\
pto.{mnemonic} ins(%src, %tmp : {src}, {src}) outs(%iidx : {idx})
pto.{mnemonic} ins(%src, %tmp : {src}, {src}) outs(%val, %vidx : {val}, {idx})""",
        {"vidx": "vi", "iidx": "ii"},
    )
    x = RNG.integers(-20, 20, ARG_SRC[0] * ARG_SRC[1]).astype(np.float32)  # ties: the first extreme wins
    n = valid[0] * valid[1]
    return Sample(_arg_kernel(mnemonic, getattr(pto, mnemonic), out, valid), text, (x, np.zeros(n, np.int32), np.zeros(n, np.int32)))


# -- the binary elementwise family ---------------------------------------------------------

ELEMENTWISE = (8, 16)


INTEGER_ONLY = {"tand", "tor", "tshl", "tshr", "tands", "tors", "tshls", "tshrs"}
"""The members taking integers only: their samples use i32 tiles holding small values (shift counts)."""


def _element(mnemonic: str) -> str:
    return "i32" if mnemonic in INTEGER_ONLY else "f32"


def _data(dtype: str, n: int) -> np.ndarray:
    return RNG.integers(0, 8, n).astype(np.int32) if dtype == "i32" else RNG.standard_normal(n).astype(np.float32)


def _binary_sample(mnemonic: str) -> Sample:
    """`pto.<mnemonic>(a, b, d)` on two loaded tiles, the result stored."""
    dtype = _element(mnemonic)
    t = tile(ELEMENTWISE, dtype)
    n = ELEMENTWISE[0] * ELEMENTWISE[1]
    args = (_data(dtype, n), _data(dtype, n) + (1 if dtype == "i32" else 0), np.zeros(n, NP[dtype]))
    return _tile_sample(
        mnemonic, (Held(dtype, ELEMENTWISE),) * 3, getattr(pto, mnemonic), f"pto.{mnemonic} ins(%a, %b : {t}, {t}) outs(%d : {t})", args
    )


# -- the row reductions and row broadcasts ----------------------------------------------------

ROWS = (8, 16)
COLUMN = (8, 1)
BLOCK = (8, 8)


def _reduce_sample(mnemonic: str) -> Sample:
    """`pto.<mnemonic>(src, dst, tmp=tmp)` on a loaded f32 tile, the column stored."""

    def kernel(x: pto.ptr(pto.f32), z: pto.ptr(pto.f32)):
        xp, zp = whole_views([(x, ROWS), (z, COLUMN)])
        s, t, d = _tiles((ROWS, pto.f32), (ROWS, pto.f32), (COLUMN, pto.f32))
        pto.tload(xp, s)
        getattr(pto, mnemonic)(s, d, tmp=t)
        pto.tstore(d, zp)

    t, c = tile(ROWS, "f32"), tile(COLUMN, "f32")
    text = sample_text(
        mnemonic, [("x", "f32", ROWS), ("z", "f32", COLUMN)], {"s": t, "t": t, "d": c}, {"x": "s"},
        f"pto.{mnemonic} ins(%s, %t : {t}, {t}) outs(%d : {c})", {"d": "z"},
    )
    args = _normal_and_zeros(128, 8)
    return Sample(pto.kernel(kernel, name=mnemonic), text, args)


def _expand_sample(mnemonic: str, plain_mnemonic: str, vector: tuple[int, int]) -> Sample:
    """`pto.<mnemonic>(src0, src1, dst)` with a `vector`-shaped src1 (the plain expansion
    `plain_mnemonic`: `(src, dst)`)."""
    plain = mnemonic == plain_mnemonic
    t, v = tile(ROWS, "f32"), tile(vector, "f32")
    op = (f"pto.{plain_mnemonic} ins(%b : {v}) outs(%d : {t})" if plain
          else f"pto.{mnemonic} ins(%a, %b : {t}, {v}) outs(%d : {t})")
    args = (RNG.standard_normal(128).astype(np.float32) % 2,
            RNG.standard_normal(vector[0] * vector[1]).astype(np.float32) % 2 + 1, np.zeros(128, np.float32))
    build = (lambda a, b, d: getattr(pto, plain_mnemonic)(b, d)) if plain else getattr(pto, mnemonic)
    return _tile_sample(mnemonic, (Held("f32", ROWS), Held("f32", vector), Held("f32", ROWS)), build, op, args)


# -- the compare-and-select family ----------------------------------------------------------

MASKED = (8, 64)


@pto.kernel
def compare_select(x: pto.ptr(pto.f32), y: pto.ptr(pto.f32), hi: pto.ptr(pto.f32), pos: pto.ptr(pto.f32)):
    xp, yp, hip, posp = whole_views([(x, MASKED), (y, MASKED), (hi, MASKED), (pos, MASKED)])
    a, b, d, e = _tiles(*[(MASKED, pto.f32)] * 4)
    gt, lt = _tiles(*[(MASKED, pto.ui8)] * 2)
    pto.tload(xp, a)
    pto.tload(yp, b)
    pto.tcmp(a, b, gt, cmp_mode="gt")
    pto.tsel(gt, a, b, d)
    pto.tcmps(a, 0.0, lt, cmp_mode="lt")
    pto.tsels(lt, a, 0.0, e)
    pto.tstore(d, hip)
    pto.tstore(e, posp)


_F, _M = tile(MASKED, "f32"), tile(MASKED, "ui8")
COMPARE_SELECT_SAMPLE = Sample(
    compare_select,
    sample_text(
        "compare_select", [(n, "f32", MASKED) for n in ("x", "y", "hi", "pos")],
        {"a": _F, "b": _F, "d": _F, "e": _F, "gt": _M, "lt": _M}, {"x": "a", "y": "b"}, f"""\
%cst = arith.constant 0.000000e+00 : f32
pto.tcmp ins(%a, %b {{cmpMode = #pto<cmp gt>}} : {_F}, {_F}) outs(%gt : {_M})
pto.tsel ins(%gt, %a, %b : {_M}, {_F}, {_F}) outs(%d : {_F})
pto.tcmps ins(%a, %cst {{cmpMode = #pto<cmp lt>}} : {_F}, f32) outs(%lt : {_M})
pto.tsels ins(%lt, %a, %cst : {_M}, {_F}, f32) outs(%e : {_F})""",
        {"d": "hi", "e": "pos"},
    ),
    (RNG.standard_normal(512).astype(np.float32), RNG.standard_normal(512).astype(np.float32),
     np.zeros(512, np.float32), np.zeros(512, np.float32)),
)


# -- the partial family ---------------------------------------------------------------------

PART = (8, 16)
HALF = (4, 16)


def _partial_sample(mnemonic: str) -> Sample:
    """`pto.<mnemonic>(a, b, d)`: b's valid rows half a's, the result stored."""
    t, half = tile(PART, "f32"), tile(PART, "f32", valid=HALF)
    n = PART[0] * PART[1]
    args = (RNG.standard_normal(n).astype(np.float32), RNG.standard_normal(n // 2).astype(np.float32), np.zeros(n, np.float32))
    return _tile_sample(
        mnemonic, (Held("f32", PART), Held("f32", HALF, PART, valid=HALF), Held("f32", PART)), getattr(pto, mnemonic),
        f"pto.{mnemonic} ins(%a, %b : {t}, {half}) outs(%d : {t})", args,
    )


# -- the partial arg-select family -----------------------------------------------------------


def _partial_arg_sample(mnemonic: str) -> Sample:
    """`pto.<mnemonic>(a, b, ia, ib, d, di)`: b's valid rows half a's, values and indices stored."""

    def kernel(x: pto.ptr(pto.f32), y: pto.ptr(pto.f32), ix: pto.ptr(pto.i32), iy: pto.ptr(pto.i32),
               z: pto.ptr(pto.f32), iz: pto.ptr(pto.i32)):
        xp, yp, ixp, iyp, zp, izp = whole_views([(x, PART), (y, HALF), (ix, PART), (iy, HALF), (z, PART), (iz, PART)])
        a, ia = pto.alloc_tile(shape=list(PART), dtype=pto.f32), pto.alloc_tile(shape=list(PART), dtype=pto.i32)
        b = pto.alloc_tile(shape=list(PART), dtype=pto.f32, valid=list(HALF))
        ib = pto.alloc_tile(shape=list(PART), dtype=pto.i32, valid=list(HALF))
        d, di = pto.alloc_tile(shape=list(PART), dtype=pto.f32), pto.alloc_tile(shape=list(PART), dtype=pto.i32)
        pto.tload(xp, a)
        pto.tload(yp, b)
        pto.tload(ixp, ia)
        pto.tload(iyp, ib)
        getattr(pto, mnemonic)(a, b, ia, ib, d, di)
        pto.tstore(d, zp)
        pto.tstore(di, izp)

    t, half, it, ihalf = tile(PART, "f32"), tile(PART, "f32", valid=HALF), tile(PART, "i32"), tile(PART, "i32", valid=HALF)
    args = [("x", "f32", PART), ("y", "f32", HALF), ("ix", "i32", PART), ("iy", "i32", HALF), ("z", "f32", PART), ("iz", "i32", PART)]
    text = sample_text(
        mnemonic, args, {"a": t, "ia": it, "b": half, "ib": ihalf, "d": t, "di": it},
        {"x": "a", "y": "b", "ix": "ia", "iy": "ib"},
        f"pto.{mnemonic} ins(%a, %b, %ia, %ib : {t}, {half}, {it}, {ihalf}) outs(%d, %di : {t}, {it})", {"d": "z", "di": "iz"},
    )
    n = PART[0] * PART[1]
    inputs = (RNG.standard_normal(n).astype(np.float32), RNG.standard_normal(n // 2).astype(np.float32),
              RNG.integers(0, 99, n).astype(np.int32), RNG.integers(0, 99, n // 2).astype(np.int32),
              np.zeros(n, np.float32), np.zeros(n, np.int32))
    return Sample(pto.kernel(kernel, name=mnemonic), text, inputs)


def _unary_sample(mnemonic: str) -> Sample:
    """`pto.<mnemonic>(a, d)` on a loaded tile (i16 for TNOT, f32 in (0.5, 2) otherwise), the result stored."""
    name = "i16" if mnemonic == "tnot" else "f32"
    t = tile(ELEMENTWISE, name)
    n = ELEMENTWISE[0] * ELEMENTWISE[1]
    x = RNG.integers(-9999, 9999, n).astype(np.int16) if name == "i16" else RNG.uniform(0.5, 2, n).astype(np.float32)
    return _tile_sample(
        mnemonic, (Held(name, ELEMENTWISE),) * 2, getattr(pto, mnemonic), f"pto.{mnemonic} ins(%a : {t}) outs(%d : {t})",
        (x, np.zeros_like(x)),
    )


_CVT_SRC, _CVT_DST = tile(ELEMENTWISE, "f32"), tile(ELEMENTWISE, "f16")
TCVT_SAMPLE = _tile_sample(
    "tcvt_f32_f16", (Held("f32", ELEMENTWISE), Held("f16", ELEMENTWISE)), lambda a, d: pto.tcvt(a, d, rmode="FLOOR", sat_mode="ON"),
    f"pto.tcvt ins(%a {{rmode = #pto<round_mode FLOOR>, satmode = #pto<saturation_mode ON>}} : {_CVT_SRC}) outs(%d : {_CVT_DST})",
    ((RNG.standard_normal(128) * 3e4).astype(np.float32), np.zeros(128, np.float16)),
)


def _tile_scalar_sample(mnemonic: str) -> Sample:
    """`pto.<mnemonic>(a, 3, d)` on a loaded tile: the number becomes a constant of the element type."""
    dtype = _element(mnemonic)
    number, spelled = (3, "3") if dtype == "i32" else (1.5, "1.500000e+00")
    t = tile(ELEMENTWISE, dtype)
    n = ELEMENTWISE[0] * ELEMENTWISE[1]
    return _tile_sample(mnemonic, (Held(dtype, ELEMENTWISE),) * 2, lambda a, d: getattr(pto, mnemonic)(a, number, d), f"""\
%{"c3_i32" if dtype == "i32" else "cst"} = arith.constant {spelled} : {dtype}
pto.{mnemonic} ins(%a, %{"c3_i32" if dtype == "i32" else "cst"} : {t}, {dtype}) outs(%d : {t})""", (_data(dtype, n), np.zeros(n, NP[dtype])))


def _fill_sample(mnemonic: str) -> Sample:
    """`pto.<mnemonic>(-2.5, d)`: the number takes dst's element type."""

    def kernel(z: pto.ptr(pto.f32)):
        (zp,) = whole_views([(z, ELEMENTWISE)])
        (d,) = _tiles((ELEMENTWISE, pto.f32))
        getattr(pto, mnemonic)(-2.5, d)
        pto.tstore(d, zp)

    t = tile(ELEMENTWISE, "f32")
    text = sample_text(mnemonic, [("z", "f32", ELEMENTWISE)], {"d": t}, {}, f"""\
%cst = arith.constant -2.500000e+00 : f32
pto.{mnemonic} ins(%cst : f32) outs(%d : {t})""", {"d": "z"})
    return Sample(pto.kernel(kernel, name=mnemonic), text, (np.zeros(ELEMENTWISE[0] * ELEMENTWISE[1], np.float32),))
def _column_reduce_sample(mnemonic: str) -> Sample:
    """`pto.<mnemonic>(src, dst)` on a loaded f32 tile, the row stored."""
    one_row = (1, 16)
    t, r = tile(ROWS, "f32"), tile(one_row, "f32")
    return _tile_sample(
        mnemonic, (Held("f32", ROWS), Held("f32", one_row)), getattr(pto, mnemonic), f"pto.{mnemonic} ins(%a : {t}) outs(%d : {r})",
        _normal_and_zeros(128, 16),
    )
@pto.kernel
def tci_descending(z: pto.ptr(pto.i32), s: pto.i32):
    tv = pto.make_tensor_view(z, shape=[1, 32], strides=[32, 1])
    zp = pto.partition_view(tv, offsets=[0, 0], sizes=[1, 32])
    d = pto.alloc_tile(shape=[1, 32], dtype=pto.i32)
    pto.tci(s, d, descending=True)
    pto.tstore(d, zp)


_TCI_DST = tile((1, 32), "i32")
TCI_SAMPLE = Sample(
    tci_descending,
    sample_text(
        "tci_descending", [("z", "i32", (1, 32))], {"d": _TCI_DST}, {}, f"pto.tci ins(%s : i32) outs(%d : {_TCI_DST}) {{descending = true}}",
        {"d": "z"}, scalars=(("s", "i32"),),
    ),
    (np.zeros(32, np.int32), np.int32(-2147483640)),
)


@pto.kernel
def tmov_then_textract(x: pto.ptr(pto.f32), z: pto.ptr(pto.f32)):
    xp = whole_views([(x, ELEMENTWISE)])[0]
    zp = whole_views([(z, (4, 8))])[0]
    a, b = _tiles((ELEMENTWISE, pto.f32), (ELEMENTWISE, pto.f32))
    d = pto.alloc_tile(shape=[4, 8], dtype=pto.f32)
    pto.tload(xp, a)
    pto.tmov(a, b)
    pto.textract(b, pto.constant(2), pto.constant(8), d)
    pto.tinsert(d, pto.constant(0), pto.constant(0), d)
    pto.tstore(d, zp)


_MOVE_TILE, _EXTRACTED = tile(ELEMENTWISE, "f32"), tile((4, 8), "f32")
MOVEMENT_SAMPLE = Sample(
    tmov_then_textract,
    sample_text(
        "tmov_then_textract", [("x", "f32", ELEMENTWISE), ("z", "f32", (4, 8))], {"a": _MOVE_TILE, "b": _MOVE_TILE, "d": _EXTRACTED},
        {"x": "a"}, f"""\
pto.tmov ins(%a : {_MOVE_TILE}) outs(%b : {_MOVE_TILE})
%c2 = arith.constant 2 : index
pto.textract ins(%b, %c2, %c8 : {_MOVE_TILE}, index, index) outs(%d : {_EXTRACTED})
pto.tinsert ins(%d, %c0, %c0 : {_EXTRACTED}, index, index) outs(%d : {_EXTRACTED})""",
        {"d": "z"},
    ),
    _normal_and_zeros(128, 32),
)


_HALF, _WHOLE = tile((8, 8), "f32"), tile((8, 16), "f32")
CONCAT_SAMPLE = _tile_sample(
    "tconcat_halves", (Held("f32", (8, 8)), Held("f32", (8, 16))), lambda a, d: pto.tconcat(a, a, d),
    f"pto.tconcat ins(%a, %a : {_HALF}, {_HALF}) outs(%d : {_WHOLE})", _normal_and_zeros(64, 128),
)
_PART, _PADDED = tile((4, 8), "f32", valid=(3, 5)), tile((8, 16), "f32", pad="3")
FILLPAD_SAMPLE = _tile_sample(
    "tfillpad_expand", (Held("f32", (3, 5), (4, 8), valid=(3, 5)), Held("f32", (8, 16), pad=3)), pto.tfillpad,
    f"pto.tfillpad ins(%a : {_PART}) outs(%d : {_PADDED})", _normal_and_zeros(15, 128),
)
_WIDE, _TALL = tile((8, 16), "f32"), tile((16, 8), "f32")
TTRANS_SAMPLE = _tile_sample(
    "ttrans_block", (Held("f32", (8, 16)), Held("f32", (16, 8))), pto.ttrans, f"pto.ttrans ins(%a : {_WIDE}) outs(%d : {_TALL})",
    _normal_and_zeros(128, 128),
)


_HIST_SRC, _HIST_IDX, _HIST_DST = tile((8, 32), "ui32"), tile((1, 32), "ui8"), tile((8, 256), "ui32")
THISTOGRAM_SAMPLE = _tile_sample(
    "thistogram_byte2", (Held("ui32", (8, 32)), Held("ui8", (1, 32)), Held("ui32", (8, 256))),
    lambda a, b, d: pto.thistogram(a, b, d, byte=2),
    f"pto.thistogram ins(%a, %b : {_HIST_SRC}, {_HIST_IDX}) outs(%d : {_HIST_DST}) {{byte = 2 : i32}}",
    (RNG.integers(0, 1 << 32, 256, dtype=np.uint64).astype(np.uint32) & np.uint32(0x0103FFFF), np.ones(32, np.uint8),
     np.zeros(2048, np.uint32)),
)
_OFFSETS = tile((8, 8), "i32")
TGATHERB_SAMPLE = _tile_sample(
    "tgatherb_blocks", (Held("f32", (8, 16)), Held("i32", (8, 8)), Held("f32", (8, 16))), pto.tgatherb,
    f"pto.tgatherb ins(%a, %b : {_WIDE}, {_OFFSETS}) outs(%d : {_WIDE})",
    (RNG.standard_normal(128).astype(np.float32), (RNG.integers(0, 16, 64) * 32).astype(np.int32), np.zeros(128, np.float32)),
)


@pto.kernel
def trandom_rounds7(z: pto.ptr(pto.ui32), k0: pto.i32, k1: pto.i32, n0: pto.i32, n1: pto.i32, n2: pto.i32, n3: pto.i32):
    (zp,) = whole_views([(z, (2, 256))])
    d = pto.alloc_tile(shape=[2, 256], dtype=pto.ui32)
    pto.trandom(k0, k1, n0, n1, n2, n3, d, rounds=7)
    pto.tstore(d, zp)


_RANDOM_DST = tile((2, 256), "ui32")
TRANDOM_SAMPLE = Sample(
    trandom_rounds7,
    sample_text(
        "trandom_rounds7", [("z", "ui32", (2, 256))], {"d": _RANDOM_DST}, {},
        f"pto.trandom ins(%k0, %k1, %n0, %n1, %n2, %n3 {{rounds = 7 : i32}} : i32, i32, i32, i32, i32, i32) outs(%d : {_RANDOM_DST})",
        {"d": "z"}, scalars=tuple((w, "i32") for w in ("k0", "k1", "n0", "n1", "n2", "n3")),
    ),
    (np.zeros(512, np.uint32), *(np.int32(v) for v in (324508639, 610839776, 16, 32, 48, 64))),
)

SAMPLES = [COPY_PRINT, GATHER_ROWS, GATHER_IN_TILE, COMPARE_HITS, SCATTER_ROWS, SCATTER_IN_TILE] + [
    _arg_sample(m) for m in ("tcolargmin", "tcolargmax", "trowargmin", "trowargmax")
] + [_binary_sample(row.mnemonic) for row in BINARY.rows] + [
    _tile_scalar_sample(row.mnemonic) for row in TILE_SCALAR.rows] + [_fill_sample(row.mnemonic) for row in FILL.rows] + [
    _unary_sample(row.mnemonic) for row in UNARY.rows] + [TCVT_SAMPLE] + [
    _reduce_sample(row.mnemonic) for row in ROW_REDUCTIONS.rows] + [
    _column_reduce_sample(row.mnemonic) for row in COL_REDUCTIONS.rows] + [
    _expand_sample(row.mnemonic, "trowexpand", BLOCK) for row in ROW_BROADCASTS.rows] + [
    _expand_sample(row.mnemonic, "tcolexpand", (1, 16)) for row in COL_BROADCASTS.rows] + [COMPARE_SELECT_SAMPLE] + [
    _partial_sample(row.mnemonic) for row in PARTIAL.rows] + [_partial_arg_sample(row.mnemonic) for row in PARTIAL_ARG.rows] + [TCI_SAMPLE, MOVEMENT_SAMPLE, CONCAT_SAMPLE, FILLPAD_SAMPLE, TTRANS_SAMPLE, THISTOGRAM_SAMPLE,
    TGATHERB_SAMPLE, TRANDOM_SAMPLE]
INSTRUCTIONS = {f"pto.{i.mnemonic}" for i in REGISTRY}
CASES = [pytest.param(s, t, id=f"{s.kernel.name}-{t}") for s in SAMPLES for t in TARGETS]


@pytest.mark.parametrize("instruction", [i.mnemonic for i in REGISTRY])
def test_every_instruction_has_a_builder_sample(instruction: str) -> None:
    assert any(f"pto.{instruction} " in s.text for s in SAMPLES), f"no sample here builds pto.{instruction} with its builder"


@pytest.mark.parametrize(("sample", "target"), CASES)
def test_the_builder_spells_each_op_as_the_text_does(sample: Sample, target: str) -> None:
    try:
        built = sample.kernel.to_pto(target=target)
    except PtoError as refused:
        with pytest.raises(PtoError) as by_text:
            interpreter.run(parse(sample.text, "k.pto"), target, list(sample.inputs))
        assert refused.message == by_text.value.message
        return
    ops = [line.strip() for line in sample.text.splitlines() if line.strip().split(" ")[0] in INSTRUCTIONS]
    assert ops
    for op in ops:
        assert op in built, f"{op}\nnot in\n{built}"


@pytest.mark.parametrize(("sample", "target"), CASES)
def test_the_builder_kernel_runs_as_the_text_does(sample: Sample, target: str, capsys: pytest.CaptureFixture[str]) -> None:
    try:
        expected = interpreter.run(parse(sample.text, "k.pto"), target, list(sample.inputs))
    except PtoError as by_text:
        with pytest.raises(PtoError) as by_builder:
            sample.kernel.run(*sample.inputs, target=target)
        assert by_builder.value.message == by_text.message
        return
    printed_by_text = _unlocated(capsys.readouterr().err)
    for got, want in zip(sample.kernel.run(*sample.inputs, target=target), expected, strict=True):
        assert_bits_equal(got, want)
    assert _unlocated(capsys.readouterr().err) == printed_by_text  # the same prints, located elsewhere


def _unlocated(printed: str) -> str:
    return re.sub(r"(?m)^\S+:\d+:\d+: ", "", printed)


def test_signatures_are_ptodsl_s() -> None:
    """The issue's spellings (pto.mgather(table_view, idx_tile, dst_tile, *, coalesce, ...))."""
    def spelled(name: str) -> str:
        return str(inspect.signature(getattr(pto, name)))

    assert spelled("tload") == "(view, tile)"
    assert spelled("tstore") == "(tile, view)"
    assert spelled("mgather") == "(table_view, idx_tile, dst_tile, *, scratch=None, coalesce=None, gather_oob=None, gather_exec=None)"
    assert spelled("tgather") == ("(src, dst, *, indices=None, tmp=None, k_value=None, cdst=None, mask_pattern=None, axis=None, "
                                  "cmp_mode=None, offset=None)")
    assert spelled("tcolargmin") == "(src, dst_idx, *, tmp=None, dst_val=None)"
    assert spelled("tprint") == "(src, *, tmp=None, print_format=None)"
    assert spelled("mscatter") == "(src_tile, idx_tile, table_view, *, coalesce=None, scatter_atomic_op=None, scatter_oob=None, scatter_conflict=None)"
    assert spelled("tscatter") == "(src, dst, *, indexes=None, mask_pattern=None, axis=None)"  # ptodsl's
    assert spelled("trowargmin") == spelled("trowargmax") == "(src, dst_idx, *, tmp=None, dst_val=None)"
