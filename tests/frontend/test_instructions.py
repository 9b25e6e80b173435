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
from tests.interpreter.harness import TARGETS, assert_bits_equal, constants, func, gm_views, tensor_view, tile, view


@dataclass(frozen=True)
class Sample:
    kernel: pto.Kernel
    text: str
    """The same kernel in `.pto` text, its values named as the builder's variables."""
    inputs: tuple[np.ndarray, ...]


def _parts(args: list[tuple[pto.Value, tuple[int, int]]]) -> list[pto.Value]:
    """The builder's `gm_views`: a whole-tensor partition view of each pointer."""
    parts = []
    for arg, (rows, cols) in args:
        tv = pto.make_tensor_view(arg, shape=[rows, cols], strides=[cols, 1])
        parts.append(pto.partition_view(tv, offsets=[0, 0], sizes=[rows, cols]))
    return parts


def _tiles(*specs: tuple[tuple[int, int], pto.DType]) -> list[pto.Value]:
    """One alloc_tile per (shape, dtype)."""
    return [pto.alloc_tile(shape=list(shape), dtype=dtype) for shape, dtype in specs]


RNG = np.random.default_rng(20)

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
    (RNG.standard_normal(128).astype(np.float32), np.zeros(128, np.float32)),
)

# -- mgather --------------------------------------------------------------------------


@pto.kernel
def gather_rows(tab: pto.ptr(pto.f16), ids: pto.ptr(pto.i32), out: pto.ptr(pto.f16)):
    tabp, idsp, outp = _parts([(tab, (64, 32)), (ids, (1, 8)), (out, (8, 32))])
    idx = pto.alloc_tile(shape=[1, 8], dtype=pto.i32)
    rows = pto.alloc_tile(shape=[8, 32], dtype=pto.f16)
    pto.tload(idsp, idx)
    pto.mgather(tabp, idx, rows, coalesce="row", gather_oob="wrap")
    pto.tstore(rows, outp)


GATHER_ROWS = Sample(
    gather_rows,
    func([("tab", "!pto.ptr<f16>"), ("ids", "!pto.ptr<i32>"), ("out", "!pto.ptr<f16>")], constants(0, 1, 8, 32, 64) + f"""
{gm_views([("tab", "f16", (64, 32)), ("ids", "i32", (1, 8)), ("out", "f16", (8, 32))])}
%idx = pto.alloc_tile : {tile((1, 8), "i32")}
%rows = pto.alloc_tile : {tile((8, 32), "f16")}
pto.tload ins(%idsp : {view((1, 8), "i32")}) outs(%idx : {tile((1, 8), "i32")})
pto.mgather ins(%tabp, %idx : {view((64, 32), "f16")}, {tile((1, 8), "i32")}) outs(%rows : {tile((8, 32), "f16")}) {{coalesce = #pto<coalesce row>, gatherOob = #pto<gather_oob wrap>}}
pto.tstore ins(%rows : {tile((8, 32), "f16")}) outs(%outp : {view((8, 32), "f16")})
""", "gather_rows"),
    (RNG.standard_normal(64 * 32).astype(np.float16), np.array([0, 3, 63, 64, 70, -1, 9, 1], np.int32),
             np.zeros(8 * 32, np.float16)),
)

# -- tgather: index and mask forms, compare form ------------------------------------------


@pto.kernel
def gather_in_tile(x: pto.ptr(pto.f32), perm: pto.ptr(pto.i32), y: pto.ptr(pto.f32), h: pto.ptr(pto.f32)):
    xp, permp, yp, hp = _parts([(x, (16, 64)), (perm, (16, 64)), (y, (16, 64)), (h, (16, 32))])
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
    func([("x", "!pto.ptr<f32>"), ("perm", "!pto.ptr<i32>"), ("y", "!pto.ptr<f32>"), ("h", "!pto.ptr<f32>")], constants(0, 1, 16, 32, 64) + f"""
{gm_views([("x", "f32", (16, 64)), ("perm", "i32", (16, 64)), ("y", "f32", (16, 64)), ("h", "f32", (16, 32))])}
""" + "\n".join(f"%{n} = pto.alloc_tile : {t}" for n, t in T.items()) + f"""
pto.tload ins(%xp : {view((16, 64), "f32")}) outs(%src : {T["src"]})
pto.tload ins(%permp : {view((16, 64), "i32")}) outs(%idx : {T["idx"]})
pto.tgather ins(%src, %idx, %itmp : {T["src"]}, {T["idx"]}, {T["itmp"]}) outs(%yt : {T["yt"]})
pto.tgather ins(%src, {{maskPattern = #pto.mask_pattern<P0101>}} : {T["src"]}) outs(%ht : {T["ht"]})
pto.tstore ins(%yt : {T["yt"]}) outs(%yp : {view((16, 64), "f32")})
pto.tstore ins(%ht : {T["ht"]}) outs(%hp : {view((16, 32), "f32")})
""", "gather_in_tile"),
    (RNG.standard_normal(1024).astype(np.float32), RNG.integers(0, 1024, 1024).astype(np.int32),
             np.zeros(1024, np.float32), np.zeros(512, np.float32)),
)


@pto.kernel
def compare_hits(x: pto.ptr(pto.f32), hits: pto.ptr(pto.i32)):
    xp, hitsp = _parts([(x, (16, 64)), (hits, (16, 64))])
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
    func([("x", "!pto.ptr<f32>"), ("hits", "!pto.ptr<i32>")], constants(0, 1, 16, 64) + f"""
%cst = arith.constant 5.000000e-01 : f32
{gm_views([("x", "f32", (16, 64)), ("hits", "i32", (16, 64))])}
%src = pto.alloc_tile : {tile((16, 64), "f32")}
%ctmp = pto.alloc_tile : {tile((16, 128), "i32")}
%hit = pto.alloc_tile : {tile((16, 64), "i32")}
%cnt = pto.alloc_tile : {CNT}
pto.tload ins(%xp : {view((16, 64), "f32")}) outs(%src : {tile((16, 64), "f32")})
pto.tgather ins(%src, %cst, %ctmp : {tile((16, 64), "f32")}, f32, {tile((16, 128), "i32")}) outs(%hit, %cnt : {tile((16, 64), "i32")}, {CNT}) {{cmpMode = #pto<cmp gt>, offset = 100 : i32}}
pto.tstore ins(%hit : {tile((16, 64), "i32")}) outs(%hitsp : {view((16, 64), "i32")})
""", "compare_hits"),
    (RNG.standard_normal(1024).astype(np.float32), np.zeros(1024, np.int32)),
)

# -- mscatter ------------------------------------------------------------------------------


@pto.kernel
def scatter_rows(src: pto.ptr(pto.f32), ids: pto.ptr(pto.i32), tab: pto.ptr(pto.f32)):
    srcp, idsp, tabp = _parts([(src, (8, 32)), (ids, (1, 8)), (tab, (64, 32))])
    rows = pto.alloc_tile(shape=[8, 32], dtype=pto.f32)
    idx = pto.alloc_tile(shape=[1, 8], dtype=pto.i32)
    pto.tload(srcp, rows)
    pto.tload(idsp, idx)
    pto.mscatter(rows, idx, tabp, coalesce="row", scatter_atomic_op="add")


SCATTER_ROWS = Sample(
    scatter_rows,
    func([("src", "!pto.ptr<f32>"), ("ids", "!pto.ptr<i32>"), ("tab", "!pto.ptr<f32>")], constants(0, 1, 8, 32, 64) + f"""
{gm_views([("src", "f32", (8, 32)), ("ids", "i32", (1, 8)), ("tab", "f32", (64, 32))])}
%rows = pto.alloc_tile : {tile((8, 32), "f32")}
%idx = pto.alloc_tile : {tile((1, 8), "i32")}
pto.tload ins(%srcp : {view((8, 32), "f32")}) outs(%rows : {tile((8, 32), "f32")})
pto.tload ins(%idsp : {view((1, 8), "i32")}) outs(%idx : {tile((1, 8), "i32")})
pto.mscatter ins(%rows, %idx : {tile((8, 32), "f32")}, {tile((1, 8), "i32")}) outs(%tabp : {view((64, 32), "f32")}) {{coalesce = #pto<coalesce row>, scatterAtomicOp = #pto<scatter_atomic_op add>}}
""", "scatter_rows"),
    (RNG.standard_normal(8 * 32).astype(np.float32), np.array([0, 3, 63, 5, 3, 9, 1, 2], np.int32),  # row 3 twice: added
     RNG.standard_normal(64 * 32).astype(np.float32)),
)

# -- tscatter: index and mask forms ---------------------------------------------------------


@pto.kernel
def scatter_in_tile(x: pto.ptr(pto.f32), pos: pto.ptr(pto.i32), y: pto.ptr(pto.f32), z: pto.ptr(pto.f32)):
    xp, posp, yp, zp = _parts([(x, (8, 32)), (pos, (8, 32)), (y, (16, 32)), (z, (8, 64))])
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
    func([("x", "!pto.ptr<f32>"), ("pos", "!pto.ptr<i32>"), ("y", "!pto.ptr<f32>"), ("z", "!pto.ptr<f32>")], constants(0, 1, 8, 16, 32, 64) + f"""
{gm_views([("x", "f32", (8, 32)), ("pos", "i32", (8, 32)), ("y", "f32", (16, 32)), ("z", "f32", (8, 64))])}
""" + "\n".join(f"%{n} = pto.alloc_tile : {t}" for n, t in S.items()) + f"""
pto.tload ins(%xp : {view((8, 32), "f32")}) outs(%src : {S["src"]})
pto.tload ins(%posp : {view((8, 32), "i32")}) outs(%idx : {S["idx"]})
pto.tscatter ins(%src, %idx : {S["src"]}, {S["idx"]}) outs(%yt : {S["yt"]})
pto.tscatter ins(%src, {{maskPattern = #pto.mask_pattern<P0101>}} : {S["src"]}) outs(%zt : {S["zt"]})
pto.tstore ins(%yt : {S["yt"]}) outs(%yp : {view((16, 32), "f32")})
pto.tstore ins(%zt : {S["zt"]}) outs(%zp : {view((8, 64), "f32")})
""", "scatter_in_tile"),
    (RNG.standard_normal(256).astype(np.float32), RNG.permutation(16 * 32)[:256].astype(np.int32),
     np.zeros(512, np.float32), np.zeros(512, np.float32)),
)

# -- tcolargmin, tcolargmax, trowargmin, trowargmax ---------------------------------------

ARG_SRC = (16, 32)
"""The arg-reductions' src; a column reduction writes one row of 32, a row reduction one
column of 16 (a 16x8 row-major tile, valid 16x1)."""


def _arg_kernel(name: str, build: Callable[..., None], out: tuple[int, int], valid: tuple[int, int]) -> pto.Kernel:
    def kernel(x: pto.ptr(pto.f32), vi: pto.ptr(pto.i32), ii: pto.ptr(pto.i32)):
        xp, vip, iip = _parts([(x, ARG_SRC), (vi, valid), (ii, valid)])
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
    text = func([("x", "!pto.ptr<f32>"), ("vi", "!pto.ptr<i32>"), ("ii", "!pto.ptr<i32>")], constants(0, 1, 16, 32, *valid) + f"""
{gm_views([("x", "f32", ARG_SRC), ("vi", "i32", valid), ("ii", "i32", valid)])}
%src = pto.alloc_tile : {src}
%tmp = pto.alloc_tile : {src}
%val = pto.alloc_tile : {val}
%vidx = pto.alloc_tile : {idx}
%iidx = pto.alloc_tile : {idx}
pto.tload ins(%xp : {view(ARG_SRC, "f32")}) outs(%src : {src})
pto.{mnemonic} ins(%src, %tmp : {src}, {src}) outs(%iidx : {idx})
pto.{mnemonic} ins(%src, %tmp : {src}, {src}) outs(%val, %vidx : {val}, {idx})
pto.tstore ins(%vidx : {idx}) outs(%vip : {view(valid, "i32")})
pto.tstore ins(%iidx : {idx}) outs(%iip : {view(valid, "i32")})
""", mnemonic)
    x = RNG.integers(-20, 20, ARG_SRC[0] * ARG_SRC[1]).astype(np.float32)  # ties: the first extreme wins
    n = valid[0] * valid[1]
    return Sample(_arg_kernel(mnemonic, getattr(pto, mnemonic), out, valid), text, (x, np.zeros(n, np.int32), np.zeros(n, np.int32)))


SAMPLES = [COPY_PRINT, GATHER_ROWS, GATHER_IN_TILE, COMPARE_HITS, SCATTER_ROWS, SCATTER_IN_TILE] + [
    _arg_sample(m) for m in ("tcolargmin", "tcolargmax", "trowargmin", "trowargmax")
]
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
    assert spelled("tprint") == "(src)"
    assert spelled("mscatter") == "(src_tile, idx_tile, table_view, *, coalesce=None, scatter_atomic_op=None, scatter_oob=None, scatter_conflict=None)"
    assert spelled("tscatter") == "(src, dst, *, indexes=None, mask_pattern=None, axis=None)"  # ptodsl's
    assert spelled("trowargmin") == spelled("trowargmax") == "(src, dst_idx, *, tmp=None, dst_val=None)"
