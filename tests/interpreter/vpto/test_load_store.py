"""Vector load and store distributions, dual, block-strided and unaligned forms, each against a NumPy
formula over the bytes (PTOAS docs/isa/micro-isa/03-vector-load-store.md)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.interpreter.vpto.kernels import run_body

RNG = np.random.default_rng(7)
X = RNG.integers(0, 256, 1024, dtype=np.uint8)


def _lanes(width: int) -> np.dtype:
    return np.dtype(f"u{width}")


LOADS = {
    "NORM": lambda b: b[:256],
    "BRC_B8": lambda b: np.full(256, b[0], np.uint8),
    "BRC_B16": lambda b: np.full(128, b[:2].view(np.uint16)[0], np.uint16).view(np.uint8),
    "BRC_B32": lambda b: np.full(64, b[:4].view(np.uint32)[0], np.uint32).view(np.uint8),
    "BRC_BLK": lambda b: np.concatenate([b[:32]] * 8),
    "US_B8": lambda b: np.repeat(b[:128], 2),
    "US_B16": lambda b: np.repeat(b[:128].view(np.uint16), 2).view(np.uint8),
    "DS_B8": lambda b: b[:512][::2],
    "DS_B16": lambda b: np.ascontiguousarray(b[:512].view(np.uint16)[::2]).view(np.uint8),
    "UNPK_B8": lambda b: np.ravel(np.column_stack([b[:128], np.zeros(128, np.uint8)])),
    "UNPK_B16": lambda b: np.ravel(np.column_stack([b[:128].view(np.uint16), np.zeros(64, np.uint16)])).view(np.uint8),
    "UNPK_B32": lambda b: np.ravel(np.column_stack([b[:128].view(np.uint32), np.zeros(32, np.uint32)])).view(np.uint8),
    "UNPK4": lambda b: np.ravel(np.column_stack([b[:64], np.zeros((64, 3), np.uint8)])),
    "E2B_B16": lambda b: np.concatenate([np.full(16, v, np.uint16) for v in b[:16].view(np.uint16)]).view(np.uint8),
    "E2B_B32": lambda b: np.concatenate([np.full(8, v, np.uint32) for v in b[:32].view(np.uint32)]).view(np.uint8),
}


@pytest.mark.parametrize("dist", LOADS)
def test_vlds_distributions(dist: str):
    body = f"""
      %all = pto.pset_b8 "PAT_ALL" : !pto.mask<b8>
      %v = pto.vlds %in[%c64] {{dist = "{dist}"}} : !pto.ptr<ui8, ub> -> !pto.vreg<256xui8>
      pto.vsts %v, %out[%c0], %all : !pto.vreg<256xui8>, !pto.ptr<ui8, ub>, !pto.mask<b8>"""
    got = run_body(body, X, np.zeros(256, np.uint8))
    np.testing.assert_array_equal(got, LOADS[dist](X[64:]))


@pytest.mark.parametrize("dist,width,kept", [("PK_B16", 2, 1), ("PK_B32", 4, 2), ("PK4_B32", 4, 1), ("PK_B64", 8, 4)])
def test_vsts_packed_keeps_the_low_bytes_of_active_lanes(dist: str, width: int, kept: int):
    mask_width = min(width, 4)
    g = f"b{8 * mask_width}"
    lanes = 256 // width
    active = 5
    body = f"""
      %n = arith.constant {active * width // mask_width} : i32
      %m, %r = pto.plt_{g} %n : i32 -> !pto.mask<{g}>, i32
      %v = pto.vlds %in[%c0] : !pto.ptr<ui8, ub> -> !pto.vreg<256xui8>
      pto.vsts %v, %out[%c0], %m {{dist = "{dist}"}} : !pto.vreg<256xui8>, !pto.ptr<ui8, ub>, !pto.mask<{g}>"""
    out = np.full(256, 0xEE, np.uint8)
    got = run_body(body, X, out)
    want = out.copy()
    low = X[:256].reshape(lanes, width)[:, :kept]
    want[: active * kept] = low[:active].reshape(-1)
    np.testing.assert_array_equal(got, want)


def test_vsts_1pt_writes_element_zero_only():
    body = """
      %none = pto.pset_b32 "PAT_ALLF" : !pto.mask<b32>
      %v = pto.vlds %in[%c8] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
      pto.vsts %v, %out[%c0], %none {dist = "1PT_B32"} : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>"""
    x = RNG.standard_normal(128).astype(np.float32)
    out = np.zeros(64, np.float32)
    got = run_body(body, x, out)
    want = out.copy()
    want[0] = x[8]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dist,width", [("DINTLV_B8", 1), ("DINTLV_B16", 2), ("DINTLV_B32", 4), ("BDINTLV", 32)])
def test_vldsx2_deinterleaves(dist: str, width: int):
    body = f"""
      %all = pto.pset_b8 "PAT_ALL" : !pto.mask<b8>
      %c256 = arith.constant 256 : index
      %lo, %hi = pto.vldsx2 %in[%c0], "{dist}" : !pto.ptr<ui8, ub>, index -> !pto.vreg<256xui8>, !pto.vreg<256xui8>
      pto.vsts %lo, %out[%c0], %all : !pto.vreg<256xui8>, !pto.ptr<ui8, ub>, !pto.mask<b8>
      pto.vsts %hi, %out[%c256], %all : !pto.vreg<256xui8>, !pto.ptr<ui8, ub>, !pto.mask<b8>"""
    got = run_body(body, X, np.zeros(512, np.uint8))
    units = X[:512].reshape(-1, width)
    np.testing.assert_array_equal(got, np.concatenate([units[0::2].reshape(-1), units[1::2].reshape(-1)]))


@pytest.mark.parametrize("dist,width", [("INTLV_B8", 1), ("INTLV_B16", 2), ("INTLV_B32", 4)])
def test_vstsx2_interleaves_whatever_the_mask(dist: str, width: int):
    body = f"""
      %none = pto.pset_b8 "PAT_ALLF" : !pto.mask<b8>
      %c256 = arith.constant 256 : index
      %a = pto.vlds %in[%c0] : !pto.ptr<ui8, ub> -> !pto.vreg<256xui8>
      %b = pto.vlds %in[%c256] : !pto.ptr<ui8, ub> -> !pto.vreg<256xui8>
      pto.vstsx2 %a, %b, %out[%c0], "{dist}", %none : !pto.vreg<256xui8>, !pto.vreg<256xui8>, !pto.ptr<ui8, ub>, index, !pto.mask<b8>"""
    got = run_body(body, X, np.zeros(512, np.uint8))
    pair = np.stack([X[:256].reshape(-1, width), X[256:512].reshape(-1, width)], axis=1)
    np.testing.assert_array_equal(got, pair.reshape(-1))


def test_vsldb_and_vsstb_move_the_active_blocks_at_their_stride():
    x = RNG.standard_normal(512).astype(np.float32)
    body = """
      %two = arith.constant 2 : i16
      %three = arith.constant 3 : i16
      %one = arith.constant 1 : i16
      %n = arith.constant 6 : i32
      %m, %r = pto.plt_b32 %n : i32 -> !pto.mask<b32>, i32
      %all = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      %v, %next = pto.vsldb %in, %two, %three, %m : !pto.ptr<f32, ub>, i16, i16, !pto.mask<b32> -> !pto.vreg<64xf32>, !pto.ptr<f32, ub>
      %w = pto.vsldb %next, %one, %one, %all : !pto.ptr<f32, ub>, i16, i16, !pto.mask<b32> -> !pto.vreg<64xf32>
      pto.vsstb %v, %out, %two, %one, %all : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, i16, i16, !pto.mask<b32>"""
    got = run_body(body, x, np.zeros(512, np.float32))
    blocks = x.reshape(-1, 8)
    loaded = np.zeros((8, 8), np.float32)
    loaded[:6] = blocks[0:12:2][:6]  # block b from block 2b; lanes 6, 7 of the mask are off
    want = np.zeros((64, 8), np.float32)
    want[1 + 2 * np.arange(8)] = loaded  # no post-update: at base + 1 block, block b at 2b
    np.testing.assert_array_equal(got.reshape(-1, 8), want)


def test_unaligned_store_stream_then_flush():
    x = np.arange(128, dtype=np.float32)
    body = """
      %c3 = arith.constant 3 : index
      %n5 = arith.constant 5 : i32
      %n7 = arith.constant 7 : i32
      %z = arith.constant 0 : i32
      %v = pto.vlds %in[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
      %w = pto.vlds %in[%c64] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
      %start = pto.addptr %out, %c3 : !pto.ptr<f32, ub> -> !pto.ptr<f32, ub>
      %a0 = pto.init_align : !pto.align
      %a1, %p1 = pto.vstus %a0, %n5, %v, %start : !pto.align, i32, !pto.vreg<64xf32>, !pto.ptr<f32, ub> -> !pto.align, !pto.ptr<f32, ub>
      %a2, %p2 = pto.vstus %a1, %n7, %w, %p1 : !pto.align, i32, !pto.vreg<64xf32>, !pto.ptr<f32, ub> -> !pto.align, !pto.ptr<f32, ub>
      pto.vstas %a2, %p2, %z : !pto.align, !pto.ptr<f32, ub>, i32"""
    out = np.full(32, -1.0, np.float32)
    got = run_body(body, x, out)
    want = out.copy()
    want[3:8] = x[0:5]
    want[8:15] = x[64:71]
    np.testing.assert_array_equal(got, want)


def test_unaligned_store_without_flush_keeps_the_tail_waiting():
    x = np.arange(64, dtype=np.float32)
    body = """
      %n11 = arith.constant 11 : i32
      %v = pto.vlds %in[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
      %a0 = pto.init_align : !pto.align
      %a1 = pto.vstus %a0, %n11, %v, %out : !pto.align, i32, !pto.vreg<64xf32>, !pto.ptr<f32, ub> -> !pto.align"""
    got = run_body(body, x, np.full(16, -1.0, np.float32))
    want = np.full(16, -1.0, np.float32)
    want[:8] = x[:8]  # the first 32-byte block; elements 8..10 wait in the state
    np.testing.assert_array_equal(got, want)


def test_squeeze_and_ar_driven_stores():
    x = RNG.standard_normal(64).astype(np.float32)
    body = """
      %all = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      %zero = arith.constant 0.0 : f32
      %v = pto.vlds %in[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
      %pos = pto.vcmps %v, %zero, %all, "gt" : !pto.vreg<64xf32>, f32, !pto.mask<b32> -> !pto.mask<b32>
      pto.sprclr "AR"
      %s = pto.vsqz %v, %pos : !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
      %a0 = pto.init_align : !pto.align
      %a1 = pto.vstur %a0, %s, %out, "POST_UPDATE" : !pto.align, !pto.vreg<64xf32>, !pto.ptr<f32, ub> -> !pto.align
      %a2 = pto.vstur %a1, %s, %out, "POST_UPDATE" : !pto.align, !pto.vreg<64xf32>, !pto.ptr<f32, ub> -> !pto.align
      pto.vstar %a2, %out : !pto.align, !pto.ptr<f32, ub>
      %words = pto.castptr %out : !pto.ptr<f32, ub> -> !pto.ptr<ui32, ub>
      %c127 = arith.constant 508 : i32
      pto.sprsts "AR", %words[%c127] : !pto.ptr<ui32, ub>, i32"""
    got = run_body(body, x, np.zeros(128, np.float32))
    positive = x[x > 0]
    want = np.zeros(128, np.float32)
    want[: 2 * positive.size] = np.concatenate([positive, positive])
    want[127] = np.array([2 * positive.nbytes], np.uint32).view(np.float32)[0]
    np.testing.assert_array_equal(got, want)


def test_vldus_reads_at_its_address_and_advances():
    x = np.arange(256, dtype=np.float32)
    body = """
      %c5 = arith.constant 5 : index
      %all = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      %p = pto.addptr %in, %c5 : !pto.ptr<f32, ub> -> !pto.ptr<f32, ub>
      %a = pto.vldas %p : !pto.ptr<f32, ub> -> !pto.align
      %v, %a1, %q = pto.vldus %p, %a, %c64 : !pto.ptr<f32, ub>, !pto.align, index -> !pto.vreg<64xf32>, !pto.align, !pto.ptr<f32, ub>
      %w, %a2 = pto.vldus %q, %a1 : !pto.ptr<f32, ub>, !pto.align -> !pto.vreg<64xf32>, !pto.align
      pto.vsts %v, %out[%c0], %all : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>
      pto.vsts %w, %out[%c64], %all : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>"""
    got = run_body(body, x, np.zeros(128, np.float32))
    np.testing.assert_array_equal(got, x[5:133])
