"""The register level's foundation at run time: DMA between GM and UB, NORM vector loads and stores
under a mask, predicate generation and logic, predicate stores; each against a NumPy formula."""

from __future__ import annotations

import numpy as np
import pytest

import interpreter
from pto_dialect import PtoError, parse

from tests.interpreter.vpto.kernels import run_body

RNG = np.random.default_rng(29)


@pytest.mark.parametrize("count", [0, 13, 64, 100])
def test_plt_masks_a_norm_store(count: int):
    x = RNG.standard_normal(64).astype(np.float32)
    out = np.full(64, -1.0, np.float32)
    body = f"""
      %n = arith.constant {count} : i32
      %m, %rest = pto.plt_b32 %n : i32 -> !pto.mask<b32>, i32
      %v = pto.vlds %in[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
      pto.vsts %v, %out[%c0], %m : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>"""
    got = run_body(body, x, out)
    want = np.where(np.arange(64) < count, x, out)
    np.testing.assert_array_equal(got, want)


def test_post_update_accesses_at_the_base():
    x = np.arange(256, dtype=np.int16)
    out = np.zeros(256, np.int16)
    body = """
      %all = pto.pset_b16 "PAT_ALL" : !pto.mask<b16>
      %v, %next = pto.vlds %in[%c64] : !pto.ptr<i16, ub> -> !pto.vreg<128xi16>, !pto.ptr<i16, ub>
      %w = pto.vlds %next[%c0] : !pto.ptr<i16, ub> -> !pto.vreg<128xi16>
      %o = pto.vsts %v, %out[%c64], %all : !pto.vreg<128xi16>, !pto.ptr<i16, ub>, !pto.mask<b16> -> !pto.ptr<i16, ub>
      pto.vsts %w, %o[%c64], %all : !pto.vreg<128xi16>, !pto.ptr<i16, ub>, !pto.mask<b16>"""
    got = run_body(body, x, out)
    want = np.zeros(256, np.int16)
    want[:128] = x[:128]  # loaded at the base, stored at the base
    want[128:192] = x[64:128]  # the second load at base + 64, stored at (base + 64) + 64
    np.testing.assert_array_equal(got[:192], want[:192])


def _packed_lanes(active: np.ndarray, lane_bytes: int) -> np.ndarray:
    """What psts NORM writes: bit lane * lane_bytes of a little-endian bit string of 256 bits."""
    bits = np.zeros(256, np.uint8)
    bits[np.nonzero(active)[0] * lane_bytes] = 1
    return np.packbits(bits, bitorder="little")


@pytest.mark.parametrize("op,formula", [
    ("pand", lambda a, b, g: g & a & b),
    ("por", lambda a, b, g: g & (a | b)),
    ("pxor", lambda a, b, g: g & (a ^ b)),
    ("psel", lambda a, b, g: np.where(g, a, b)),
])
@pytest.mark.parametrize("granularity,lane_bytes", [("b8", 1), ("b16", 2), ("b32", 4)])
def test_predicate_logic(op: str, formula, granularity: str, lane_bytes: int):
    lane = np.arange(256 // lane_bytes)
    a, b, g = lane < 13, lane >= 7, lane < 10
    m = f"!pto.mask<{granularity}>"
    body = f"""
      %ca = arith.constant 13 : i32
      %cb = arith.constant 7 : i32
      %cg = arith.constant 10 : i32
      %all = pto.pset_{granularity} "PAT_ALL" : {m}
      %a, %ra = pto.plt_{granularity} %ca : i32 -> {m}, i32
      %below, %rb = pto.plt_{granularity} %cb : i32 -> {m}, i32
      %b = pto.pnot %below, %all : {m}, {m} -> {m}
      %g, %rg = pto.plt_{granularity} %cg : i32 -> {m}, i32
      %r = pto.{op} %a, %b, %g : {m}, {m}, {m} -> {m}
      pto.psts %r, %out[%c0], "NORM" : {m}, !pto.ptr<ui8, ub>, index"""
    got = run_body(body, np.zeros(32, np.uint8), np.zeros(32, np.uint8))
    np.testing.assert_array_equal(got, _packed_lanes(formula(a, b, g), lane_bytes))


def test_pnot_zeroes_outside_the_governing_mask():
    body = """
      %c13 = arith.constant 13 : i32
      %c40 = arith.constant 40 : i32
      %a, %ra = pto.plt_b32 %c13 : i32 -> !pto.mask<b32>, i32
      %g, %rg = pto.plt_b32 %c40 : i32 -> !pto.mask<b32>, i32
      %r = pto.pnot %a, %g : !pto.mask<b32>, !pto.mask<b32> -> !pto.mask<b32>
      pto.psts %r, %out[%c0], "NORM" : !pto.mask<b32>, !pto.ptr<ui8, ub>, index"""
    got = run_body(body, np.zeros(32, np.uint8), np.zeros(32, np.uint8))
    lane = np.arange(64)
    np.testing.assert_array_equal(got, _packed_lanes((lane < 40) & ~(lane < 13), 4))


@pytest.mark.parametrize("pattern,lanes", [("PAT_ALL", 64), ("PAT_ALLF", 0), ("PAT_VL16", 16), ("PAT_H", 32), ("PAT_Q", 16)])
def test_pset_prefix_patterns(pattern: str, lanes: int):
    body = f"""
      %m = pto.pset_b32 "{pattern}" : !pto.mask<b32>
      pto.psts %m, %out[%c0], "NORM" : !pto.mask<b32>, !pto.ptr<ui8, ub>, index"""
    got = run_body(body, np.zeros(32, np.uint8), np.zeros(32, np.uint8))
    np.testing.assert_array_equal(got, _packed_lanes(np.arange(64) < lanes, 4))


def test_plt_carries_what_is_left():
    out = np.zeros(32, np.uint8)
    body = """
      %c100 = arith.constant 100 : i32
      %m0, %r0 = pto.plt_b32 %c100 : i32 -> !pto.mask<b32>, i32
      %m1, %r1 = pto.plt_b32 %r0 : i32 -> !pto.mask<b32>, i32
      pto.psts %m1, %out[%c0], "NORM" : !pto.mask<b32>, !pto.ptr<ui8, ub>, index"""
    got = run_body(body, np.zeros(32, np.uint8), out)
    np.testing.assert_array_equal(got, _packed_lanes(np.arange(64) < 36, 4))


def test_dma_strides_and_loops():
    x = np.arange(64, dtype=np.uint8)
    text = """
module attributes {pto.target_arch = "a5"} {
  func.func @k(%x: !pto.ptr<ui8, gm>, %y: !pto.ptr<ui8, gm>) {
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %c3 = arith.constant 3 : i64
    %c4 = arith.constant 4 : i64
    %c8 = arith.constant 8 : i64
    %c32 = arith.constant 32 : i64
    %c64 = arith.constant 64 : i64
    %ub = pto.castptr %c0 : i64 -> !pto.ptr<ui8, ub>
    pto.mte_gm_ub %x, %ub, %c0, %c3 nburst(%c4, %c8, %c32) loop(%c2, %c32, %c4)
      : !pto.ptr<ui8, gm>, !pto.ptr<ui8, ub>, i64, i64, i64, i64, i64, loop i64, i64, i64
    pto.mte_ub_gm %ub, %y, %c64 nburst(%c2, %c64, %c64) : !pto.ptr<ui8, ub>, !pto.ptr<ui8, gm>, i64, i64, i64, i64
    return
  }
}"""
    got = interpreter.run(parse(text), "a5", [x, np.zeros(128, np.uint8)])[1]
    ub = np.zeros(128, np.uint8)
    for loop in range(2):
        for row in range(4):
            ub[loop * 4 + row * 32 : loop * 4 + row * 32 + 3] = x[loop * 32 + row * 8 : loop * 32 + row * 8 + 3]
    np.testing.assert_array_equal(got, ub)


def test_a_load_past_ub_is_a_located_fault():
    body = """
      %far = arith.constant 65500 : index
      %v = pto.vlds %in[%far] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>"""
    with pytest.raises(PtoError) as failure:
        run_body(body, np.zeros(64, np.float32), np.zeros(64, np.float32))
    assert str(failure.value) == "<string>:26:7: error: 'pto.vlds' op reads bytes [262000, 262256) of UB, which holds 253952 bytes"


def test_other_targets_refuse_the_register_level():
    body = "      %m = pto.pset_b32 \"PAT_ALL\" : !pto.mask<b32>"
    with pytest.raises(PtoError, match=r"the register level is a5's \(target a2a3\)"):
        interpreter.run(parse(_module(body)), "a2a3", [np.zeros(1, np.float32)])


def _module(body: str) -> str:
    return f"""module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%x: !pto.ptr<f32, gm>) {{
    pto.vecscope {{
{body}
    }}
    return
  }}
}}"""
