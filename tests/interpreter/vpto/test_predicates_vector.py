"""Predicate loads, stores and shuffles, vector materialization, select, compare and convert, and the
register-configured DMA, each against a NumPy formula."""

from __future__ import annotations

import numpy as np
import pytest

import interpreter
from pto_dialect import parse

from tests.interpreter.vpto.kernels import constants, run_body, run_kernel

RNG = np.random.default_rng(11)
BITS = RNG.integers(0, 256, 64, dtype=np.uint8)


def _bits(data: np.ndarray) -> np.ndarray:
    return np.unpackbits(data, bitorder="little")


def _packed(bits: np.ndarray) -> np.ndarray:
    return np.packbits(bits.astype(np.uint8), bitorder="little")


@pytest.mark.parametrize("op,unit", [("plds", 1), ("pldi", None)])
@pytest.mark.parametrize("dist", ["NORM", "US", "DS"])
def test_predicate_loads_then_a_norm_store(op: str, unit: int | None, dist: str):
    unit = unit or {"NORM": 32, "US": 16, "DS": 32}[dist]
    body = f"""
      %m = pto.{op} %in[%c1], "{dist}" : !pto.ptr<ui8, ub>, index -> !pto.mask<b8>
      pto.psts %m, %out[%c0], "NORM" : !pto.mask<b8>, !pto.ptr<ui8, ub>, index"""
    got = run_body(body, np.concatenate([BITS, BITS]), np.zeros(32, np.uint8))
    source = _bits(np.concatenate([BITS, BITS])[unit:])
    want = {"NORM": source[:256], "US": np.repeat(source[:128], 2), "DS": source[:512][::2]}[dist]
    np.testing.assert_array_equal(got, _packed(want))


def test_psti_pk_keeps_every_other_bit_and_post_updates():
    body = """
      %m = pto.plds %in[%c0], "NORM" : !pto.ptr<ui8, ub>, index -> !pto.mask<b8>
      %next = pto.psti %m, %out[%c1], "PK" : !pto.mask<b8>, !pto.ptr<ui8, ub>, index -> !pto.ptr<ui8, ub>
      pto.psti %m, %next[%c0], "PK" : !pto.mask<b8>, !pto.ptr<ui8, ub>, index"""
    got = run_body(body, BITS, np.zeros(64, np.uint8))
    pk = _packed(_bits(BITS[:32])[::2])
    want = np.zeros(64, np.uint8)
    want[:16] = pk  # post-update: at the base ...
    want[16:32] = pk  # ... and the next at base + one 16-byte unit
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("granularity,lane_bytes,base", [("b16", 2, "ui16"), ("b32", 4, "ui32")])
def test_pstu_appends_one_bit_per_lane(granularity: str, lane_bytes: int, base: str):
    lanes = 256 // lane_bytes
    body = f"""
      %n13 = arith.constant 13 : i32
      %n7 = arith.constant 7 : i32
      %z = arith.constant 0 : i32
      %dst = pto.castptr %out : !pto.ptr<ui8, ub> -> !pto.ptr<{base}, ub>
      %a0 = pto.init_align : !pto.align
      %m1, %r1 = pto.plt_{granularity} %n13 : i32 -> !pto.mask<{granularity}>, i32
      %m2, %r2 = pto.plt_{granularity} %n7 : i32 -> !pto.mask<{granularity}>, i32
      %a1, %p1 = pto.pstu %a0, %m1, %dst : !pto.align, !pto.mask<{granularity}>, !pto.ptr<{base}, ub> -> !pto.align, !pto.ptr<{base}, ub>
      %a2, %p2 = pto.pstu %a1, %m2, %p1 : !pto.align, !pto.mask<{granularity}>, !pto.ptr<{base}, ub> -> !pto.align, !pto.ptr<{base}, ub>
      pto.vstas %a2, %p2, %z : !pto.align, !pto.ptr<{base}, ub>, i32"""
    got = run_body(body, np.zeros(32, np.uint8), np.zeros(64, np.uint8))
    lane = np.arange(lanes)
    want = np.zeros(64, np.uint8)
    step = lanes // 8
    want[:step] = _packed(lane < 13)
    want[step : 2 * step] = _packed(lane < 7)
    np.testing.assert_array_equal(got, want)


def _lanes_after(body: str, granularity: str = "b16") -> np.ndarray:
    """Lane bits of %r (a !pto.mask<G>) after `body`, which may use %a (lanes < 37) and %b (lanes < 90)."""
    m = f"!pto.mask<{granularity}>"
    text = f"""
      %n37 = arith.constant 37 : i32
      %n90 = arith.constant 90 : i32
      %a, %ra = pto.plt_{granularity} %n37 : i32 -> {m}, i32
      %b, %rb = pto.plt_{granularity} %n90 : i32 -> {m}, i32
{body}
      pto.psts %r, %out[%c0], "NORM" : {m}, !pto.ptr<ui8, ub>, index"""
    bits = _bits(run_body(text, np.zeros(32, np.uint8), np.zeros(32, np.uint8)))
    return bits[:: int(granularity[1:]) // 8]


A, B = np.arange(128) < 37, np.arange(128) < 90


@pytest.mark.parametrize("part", ["LOWER", "HIGHER"])
def test_ppack_and_punpack(part: str):
    packed = np.zeros(128, bool)
    start = 0 if part == "LOWER" else 64
    packed[start : start + 64] = B[0::2]
    got = _lanes_after(f'      %r = pto.ppack %b, "{part}" : !pto.mask<b16> -> !pto.mask<b16>')
    np.testing.assert_array_equal(got, packed)
    unpacked = np.zeros(128, bool)
    unpacked[0::2] = B[:64] if part == "LOWER" else B[64:]
    got = _lanes_after(f'      %r = pto.punpack %b, "{part}" : !pto.mask<b16> -> !pto.mask<b16>')
    np.testing.assert_array_equal(got, unpacked)


def test_pintlv_and_pdintlv():
    both = np.stack([A, B], axis=1).reshape(-1)
    for result, want in (("%lo", both[:128]), ("%hi", both[128:])):
        body = f"      %lo, %hi = pto.pintlv_b16 %a, %b : !pto.mask<b16>, !pto.mask<b16> -> !pto.mask<b16>, !pto.mask<b16>\n      %r = pto.por {result}, {result}, {result} : !pto.mask<b16>, !pto.mask<b16>, !pto.mask<b16> -> !pto.mask<b16>"
        np.testing.assert_array_equal(_lanes_after(body), want)
    joined = np.concatenate([A, B])
    for result, want in (("%lo", joined[0::2]), ("%hi", joined[1::2])):
        body = f"      %lo, %hi = pto.pdintlv_b16 %a, %b : !pto.mask<b16>, !pto.mask<b16> -> !pto.mask<b16>, !pto.mask<b16>\n      %r = pto.por {result}, {result}, {result} : !pto.mask<b16>, !pto.mask<b16>, !pto.mask<b16> -> !pto.mask<b16>"
        np.testing.assert_array_equal(_lanes_after(body), want)


def test_pge_is_pset():
    np.testing.assert_array_equal(_lanes_after('      %r = pto.pge_b16 "PAT_VL32" : !pto.mask<b16>'), np.arange(128) < 32)


def test_vbr_vdup_vsel_vcmps():
    x = RNG.standard_normal(64).astype(np.float32)
    body = """
      %all = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      %n20 = arith.constant 20 : i32
      %few, %r = pto.plt_b32 %n20 : i32 -> !pto.mask<b32>, i32
      %s = arith.constant 2.5 : f32
      %zero = arith.constant 0.0 : f32
      %c128 = arith.constant 128 : index
      %c192 = arith.constant 192 : index
      %v = pto.vlds %in[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
      %b = pto.vbr %s : f32 -> !pto.vreg<64xf32>
      %d = pto.vdup %v, %few {position = "HIGHEST"} : !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
      %pos = pto.vcmps %v, %zero, %all, "gt" : !pto.vreg<64xf32>, f32, !pto.mask<b32> -> !pto.mask<b32>
      %sel = pto.vsel %v, %b, %pos : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
      %e = pto.vdup %s, %few : f32, !pto.mask<b32> -> !pto.vreg<64xf32>
      pto.vsts %b, %out[%c0], %all : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>
      pto.vsts %d, %out[%c64], %all : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>
      pto.vsts %sel, %out[%c128], %all : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>
      pto.vsts %e, %out[%c192], %all : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>"""
    got = run_body(body, x, np.zeros(256, np.float32)).reshape(4, 64)
    few = np.arange(64) < 20
    np.testing.assert_array_equal(got[0], np.full(64, 2.5, np.float32))
    np.testing.assert_array_equal(got[1], np.where(few, x[-1], 0).astype(np.float32))
    np.testing.assert_array_equal(got[2], np.where(x > 0, x, 2.5).astype(np.float32))
    np.testing.assert_array_equal(got[3], np.where(few, 2.5, 0).astype(np.float32))


def test_vbr_takes_the_low_bits_of_a_b8_scalar():
    body = """
      %all = pto.pset_b8 "PAT_ALL" : !pto.mask<b8>
      %s = arith.constant -7 : i8
      %b = pto.vbr %s : i8 -> !pto.vreg<256xui8>
      pto.vsts %b, %out[%c0], %all : !pto.vreg<256xui8>, !pto.ptr<ui8, ub>, !pto.mask<b8>"""
    np.testing.assert_array_equal(run_body(body, np.zeros(32, np.uint8), np.zeros(256, np.uint8)), np.full(256, 249, np.uint8))


@pytest.mark.parametrize("part,index", [("EVEN", 0), ("ODD", 1)])
def test_vcvt_widen_and_narrow_by_part(part: str, index: int):
    x = RNG.standard_normal(128).astype(np.float16)
    body = f"""
      %all16 = pto.pset_b16 "PAT_ALL" : !pto.mask<b16>
      %all32 = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      %v = pto.vlds %in[%c0] : !pto.ptr<f16, ub> -> !pto.vreg<128xf16>
      %w = pto.vcvt %v, %all16 {{part = "{part}"}} : !pto.vreg<128xf16>, !pto.mask<b16> -> !pto.vreg<64xf32>
      pto.vsts %w, %out[%c0], %all32 : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>"""
    got = run_body(body, x, np.zeros(64, np.float32))
    np.testing.assert_array_equal(got, x[index::2].astype(np.float32))
    i64 = RNG.integers(-(1 << 40), 1 << 40, 32).astype(np.int64)
    body = f"""
      %all32 = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      %v = pto.vlds %in[%c0] : !pto.ptr<si64, ub> -> !pto.vreg<32xsi64>
      %w = pto.vcvt %v, %all32 {{rnd = "R", part = "{part}"}} : !pto.vreg<32xsi64>, !pto.mask<b32> -> !pto.vreg<64xf32>
      pto.vsts %w, %out[%c0], %all32 : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>"""
    got = run_body(body, i64, np.ones(64, np.float32), in_type="si64")
    want = np.zeros(64, np.float32)
    want[index::2] = i64.astype(np.float32)
    np.testing.assert_array_equal(got, want)


def _dma_kernel(body: str, x: np.ndarray, out: np.ndarray, t: str) -> np.ndarray:
    lines = f"""{constants((0, 1, 2, 4, 8, 16, 32, 64, 128, 256), "i64")}
    %c1024_i64 = arith.constant 1024 : i64
    %false = arith.constant false
    %ub = pto.castptr %c0 : i64 -> !pto.ptr<{t}, ub>
    %ub2 = pto.castptr %c1024_i64 : i64 -> !pto.ptr<{t}, ub>
{body}"""
    return run_kernel(lines, x, out, t, t)


def test_copy_gm_to_ubuf_repeats_by_the_loop_registers():
    x = np.arange(256, dtype=np.int16)
    body = """
    pto.set_loop_size_outtoub %c2, %c1 : i64, i64
    pto.set_loop1_stride_outtoub %c128, %c64 : i64, i64
    pto.copy_gm_to_ubuf %x, %ub, %c0, %c2, %c16, %c0, %c0, %false, %c0, %c32, %c32 : !pto.ptr<i16, gm>, !pto.ptr<i16, ub>, i64, i64, i64, i64, i64, i1, i64, i64, i64
    pto.set_loop_size_ubtoout %c1, %c1 : i64, i64
    pto.copy_ubuf_to_gm %ub, %y, %c0, %c1, %c128, %c0, %c128, %c128 : !pto.ptr<i16, ub>, !pto.ptr<i16, gm>, i64, i64, i64, i64, i64, i64"""
    got = _dma_kernel(body, x, np.zeros(64, np.int16), "i16")
    want = np.zeros(64, np.int16)
    for loop in range(2):
        for row in range(2):  # 16 bytes (8 elements) per row; GM rows 32 bytes apart, loop 128; UB 32 and 64
            want[loop * 32 + row * 16 : loop * 32 + row * 16 + 8] = x[loop * 64 + row * 16 : loop * 64 + row * 16 + 8]
    np.testing.assert_array_equal(got, want)


def test_mte_ub_ub_counts_blocks_and_gaps():
    x = np.arange(128, dtype=np.int32)
    body = """
    pto.mte_gm_ub %x, %ub, %c0, %c256 nburst(%c2, %c256, %c256) : !pto.ptr<i32, gm>, !pto.ptr<i32, ub>, i64, i64, i64, i64, i64
    pto.mte_ub_ub %ub, %ub2, %c1 nburst(%c2, %c1, %c0) : !pto.ptr<i32, ub>, !pto.ptr<i32, ub>, i64, i64, i64, i64
    pto.mte_ub_gm %ub2, %y, %c64 nburst(%c1, %c64, %c64) : !pto.ptr<i32, ub>, !pto.ptr<i32, gm>, i64, i64, i64, i64"""
    got = _dma_kernel(body, x, np.zeros(16, np.int32), "i32")
    np.testing.assert_array_equal(got, np.concatenate([x[0:8], x[16:24]]))


def test_atomic_add_combines_with_gm():
    x = np.arange(-32, 32, dtype=np.int32)
    body = """
    pto.mte_gm_ub %x, %ub, %c0, %c256 nburst(%c1, %c256, %c256) : !pto.ptr<i32, gm>, !pto.ptr<i32, ub>, i64, i64, i64, i64, i64
    pto.set_atomic_s32
    pto.set_atomic_add
    pto.mte_ub_gm %ub, %y, %c256 nburst(%c1, %c256, %c256) : !pto.ptr<i32, ub>, !pto.ptr<i32, gm>, i64, i64, i64, i64
    pto.set_atomic_none
    pto.mte_ub_gm %ub, %y, %c16 nburst(%c1, %c16, %c16) : !pto.ptr<i32, ub>, !pto.ptr<i32, gm>, i64, i64, i64, i64"""
    y = np.full(64, 2**31 - 10, np.int32)
    got = _dma_kernel(body, x, y, "i32")
    want = (y.astype(np.int64) + x).astype(np.int64)
    want = ((want + 2**31) % 2**32 - 2**31).astype(np.int32)  # wraps
    want[:4] = x[:4]  # then replaced, the atomic mode off
    np.testing.assert_array_equal(got, want)


def test_profile_prices_register_level_ops_from_the_a5_table():
    from targets.a5.costs import MACHINE

    x = np.zeros(256, np.uint8)
    profiler = interpreter.Profiler("a5")
    body = """
    pto.mte_gm_ub %x, %ub, %c0, %c128 nburst(%c2, %c128, %c128) : !pto.ptr<ui8, gm>, !pto.ptr<ui8, ub>, i64, i64, i64, i64, i64
    pto.vecscope {
      %m = pto.pset_b8 "PAT_ALL" : !pto.mask<b8>
    }"""
    text = f"""module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%x: !pto.ptr<ui8, gm>) {{
    %c0 = arith.constant 0 : i64
    %c2 = arith.constant 2 : i64
    %c128 = arith.constant 128 : i64
    %ub = pto.castptr %c0 : i64 -> !pto.ptr<ui8, ub>
{body}
    return
  }}
}}"""
    interpreter.run_with_results(parse(text), "a5", [x], profiler=profiler)
    rows = {row.op: row for row in profiler.report().ops}
    assert rows["pto.mte_gm_ub"].bytes == 256 and rows["pto.mte_gm_ub"].pipe == "MTE2"
    assert rows["pto.vecscope"].cycles == MACHINE.vf_startup.value + MACHINE.vf_drain.value
    assert rows["pto.pset_b8"].cycles == MACHINE.vf_ops["pset"].value
