"""
The register gathers and scatter as a user writes them (pto.vgather2 / vgather2_bc / vgatherb / vscatter
inside pto.vecscope, UB pointers cast from addresses, a plt mask), run by the interpreter, each against a
formula written here from PTOAS's docs/isa/micro-isa/03-vector-load-store.md:

    vgather2     r[i] = i < n ? table[off[i]] : 0          (b8: zero-extended into a 16-bit lane)
    vgather2_bc  r[i] = i < n ? table[off[i]] : 0  in 32-bit lane i (b16 data: its low half)
    vgatherb     block b = b < n ? the 32 bytes at off[b] : 0
    vscatter     dst[off[i]] = v[i] (b8: v[2i]) for i < n, the lowest lane winning a collision
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from pto_dialect import PtoError

from tests.interpreter.vpto.kernels import UB_IN, run_body

RNG = np.random.default_rng(2929)
TABLE_BYTES = 2048
"""The table's bytes at the start of the input; the offsets follow it."""
WIDTH_NAME = {1: "b8", 2: "b16", 4: "b32"}


def ub_input(table: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The input's bytes: the table, then the offsets at UB byte TABLE_BYTES."""
    data = np.zeros(TABLE_BYTES + offsets.nbytes, np.uint8)
    data[: table.nbytes] = table.view(np.uint8)
    data[TABLE_BYTES:] = offsets.view(np.uint8)
    return data


def pointers(table_t: str, offsets_t: str) -> str:
    return f"""
      %table_addr = arith.constant {UB_IN} : i64
      %offsets_addr = arith.constant {UB_IN + TABLE_BYTES} : i64
      %table = pto.castptr %table_addr : i64 -> !pto.ptr<{table_t}, ub>
      %offsets_at = pto.castptr %offsets_addr : i64 -> !pto.ptr<{offsets_t}, ub>"""


GATHER2 = [  # table type, its dtype, offsets type, lanes, result type, its dtype
    ("f32", np.float32, "ui32", 64, "f32", np.float32),
    ("i32", np.int32, "i32", 64, "i32", np.int32),
    ("f16", np.float16, "ui16", 128, "f16", np.float16),
    ("bf16", np.dtype(ml_dtypes.bfloat16), "i16", 128, "bf16", np.dtype(ml_dtypes.bfloat16)),
    ("ui8", np.uint8, "ui16", 128, "ui16", np.uint16),
    ("i8", np.int8, "ui16", 128, "i16", np.int16),
]


@pytest.mark.parametrize("table_t,table_np,offsets_t,lanes,result_t,result_np", GATHER2)
@pytest.mark.parametrize("active", [0, 37, 1000])
def test_vgather2(table_t, table_np, offsets_t, lanes, result_t, result_np, active):
    width = np.dtype(table_np).itemsize
    table = RNG.integers(0, 256, TABLE_BYTES, dtype=np.uint8).view(table_np)
    offsets = RNG.integers(0, TABLE_BYTES // width, lanes).astype(f"u{2 if lanes == 128 else 4}")
    offsets[:4] = [0, 3, 3, TABLE_BYTES // width - 1]
    out = np.full(lanes, 7, result_np)
    mask = WIDTH_NAME[2 if lanes == 128 else 4]
    body = pointers(table_t, offsets_t) + f"""
      %n = arith.constant {active} : i32
      %m, %rest = pto.plt_{mask} %n : i32 -> !pto.mask<{mask}>, i32
      %all = pto.pset_{mask} "PAT_ALL" : !pto.mask<{mask}>
      %o = pto.vlds %offsets_at[%c0] : !pto.ptr<{offsets_t}, ub> -> !pto.vreg<{lanes}x{offsets_t}>
      %r = pto.vgather2 %table, %o, %m : !pto.ptr<{table_t}, ub>, !pto.vreg<{lanes}x{offsets_t}>, !pto.mask<{mask}> -> !pto.vreg<{lanes}x{result_t}>
      pto.vsts %r, %out[%c0], %all : !pto.vreg<{lanes}x{result_t}>, !pto.ptr<{result_t}, ub>, !pto.mask<{mask}>"""
    got = run_body(body, ub_input(table, offsets), out, in_type="ui8", out_type=result_t)
    want = np.zeros(lanes, result_np)
    for i in range(min(active, lanes)):
        value = table.view(f"u{width}")[offsets[i]]  # the element's bits; b8 zero-extends
        want.view(f"u{np.dtype(result_np).itemsize}")[i] = value
    np.testing.assert_array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"))


@pytest.mark.parametrize("table_t,table_np,result_t,result_np", [
    ("f32", np.float32, "f32", np.float32), ("f16", np.float16, "ui32", np.uint32), ("i16", np.int16, "i32", np.int32),
])
def test_vgather2_bc_sparse_mask(table_t, table_np, result_t, result_np):
    width = np.dtype(table_np).itemsize
    table = RNG.integers(0, 256, TABLE_BYTES, dtype=np.uint8).view(table_np)
    offsets = RNG.integers(0, 2 * TABLE_BYTES // width, 64).astype(np.int32)  # half of them past the table
    limit = TABLE_BYTES // width
    body = pointers(table_t, "i32") + f"""
      %all = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      %limit = arith.constant {limit} : i32
      %o = pto.vlds %offsets_at[%c0] : !pto.ptr<i32, ub> -> !pto.vreg<64xi32>
      %inside = pto.vcmps %o, %limit, %all, "lt" : !pto.vreg<64xi32>, i32, !pto.mask<b32> -> !pto.mask<b32>
      %r = pto.vgather2_bc %table, %o, %inside : !pto.ptr<{table_t}, ub>, !pto.vreg<64xi32>, !pto.mask<b32> -> !pto.vreg<64x{result_t}>
      pto.vsts %r, %out[%c0], %all : !pto.vreg<64x{result_t}>, !pto.ptr<{result_t}, ub>, !pto.mask<b32>"""
    got = run_body(body, ub_input(table, offsets), np.full(64, 9, result_np), in_type="ui8", out_type=result_t)
    want = np.zeros(64, np.uint32)
    for i in range(64):
        if offsets[i] < limit:
            want[i] = table.view(f"u{width}")[offsets[i]]  # in the 32-bit lane's low bits
    np.testing.assert_array_equal(got.view(np.uint32), want)


@pytest.mark.parametrize("active", [3, 8])
@pytest.mark.parametrize("table_t,table_np,mask", [("f32", np.float32, "b32"), ("f16", np.float16, "b16"), ("ui8", np.uint8, "b8")])
def test_vgatherb(active, table_t, table_np, mask):
    table = RNG.integers(0, 256, TABLE_BYTES, dtype=np.uint8)
    lanes = 256 // np.dtype(table_np).itemsize
    offsets = np.full(64, 0xFFFFFFFF, np.uint32)  # lanes 8.. are not block lanes: never read
    offsets[:8] = RNG.integers(0, TABLE_BYTES // 32, 8) * 32
    body = pointers(table_t, "ui32") + f"""
      %n = arith.constant {active} : i32
      %m, %rest = pto.plt_b32 %n : i32 -> !pto.mask<b32>, i32
      %all = pto.pset_{mask} "PAT_ALL" : !pto.mask<{mask}>
      %o = pto.vlds %offsets_at[%c0] : !pto.ptr<ui32, ub> -> !pto.vreg<64xui32>
      %r = pto.vgatherb %table, %o, %m : !pto.ptr<{table_t}, ub>, !pto.vreg<64xui32>, !pto.mask<b32> -> !pto.vreg<{lanes}x{table_t}>
      pto.vsts %r, %out[%c0], %all : !pto.vreg<{lanes}x{table_t}>, !pto.ptr<{table_t}, ub>, !pto.mask<{mask}>"""
    got = run_body(body, ub_input(table, offsets), np.full(256, 5, np.uint8).view(table_np), in_type="ui8", out_type=table_t)
    want = np.zeros(256, np.uint8)
    for b in range(active):
        want[32 * b: 32 * b + 32] = table[offsets[b]: offsets[b] + 32]
    np.testing.assert_array_equal(got.view(np.uint8), want)


@pytest.mark.parametrize("value_t,value_np,offsets_t,requests", [
    ("f32", np.float32, "i32", 64), ("f16", np.float16, "ui16", 128), ("ui8", np.uint8, "i16", 128),
])
def test_vscatter_lowest_lane_wins(value_t, value_np, offsets_t, requests):
    lanes = 256 // np.dtype(value_np).itemsize
    value = RNG.integers(0, 256, 256, dtype=np.uint8).view(value_np)
    offsets = RNG.integers(0, 300, requests).astype({"i32": np.int32, "ui16": np.uint16, "i16": np.int16}[offsets_t])
    offsets[[2, 5, 40]] = 17  # a collision: lane 2 wins
    active = requests - 3
    data = np.zeros(TABLE_BYTES + offsets.nbytes, np.uint8)
    data[:256] = value.view(np.uint8)
    data[TABLE_BYTES:] = offsets.view(np.uint8)
    mask = "b32" if requests == 64 else "b16"
    body = pointers(value_t, offsets_t) + f"""
      %n = arith.constant {active} : i32
      %m, %rest = pto.plt_{mask} %n : i32 -> !pto.mask<{mask}>, i32
      %v = pto.vlds %table[%c0] : !pto.ptr<{value_t}, ub> -> !pto.vreg<{lanes}x{value_t}>
      %o = pto.vlds %offsets_at[%c0] : !pto.ptr<{offsets_t}, ub> -> !pto.vreg<{requests}x{offsets_t}>
      pto.vscatter %v, %out, %o, %m : !pto.vreg<{lanes}x{value_t}>, !pto.ptr<{value_t}, ub>, !pto.vreg<{requests}x{offsets_t}>, !pto.mask<{mask}>"""
    out = RNG.integers(0, 256, 512 * np.dtype(value_np).itemsize, dtype=np.uint8).view(value_np)
    got = run_body(body, data, out.copy(), in_type="ui8", out_type=value_t)
    want = out.copy()
    for i in reversed(range(active)):  # the lowest lane last: it wins
        want[int(offsets.view(f"u{offsets.itemsize}")[i])] = value[2 * i] if np.dtype(value_np).itemsize == 1 else value[i]
    np.testing.assert_array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"))


def test_gather_outside_ub_is_a_located_error_naming_the_lane():
    offsets = np.zeros(64, np.uint32)
    offsets[21] = 0x10000000
    body = pointers("f32", "ui32") + """
      %all = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      %o = pto.vlds %offsets_at[%c0] : !pto.ptr<ui32, ub> -> !pto.vreg<64xui32>
      %r = pto.vgather2 %table, %o, %all : !pto.ptr<f32, ub>, !pto.vreg<64xui32>, !pto.mask<b32> -> !pto.vreg<64xf32>
      pto.vsts %r, %out[%c0], %all : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>"""
    with pytest.raises(PtoError) as err:
        run_body(body, ub_input(np.zeros(4, np.float32), offsets), np.zeros(64, np.float32), in_type="ui8", out_type="f32")
    message = str(err.value)
    assert "error: 'pto.vgather2' op lane 21 (offset 268435456) reads bytes [1073741824, 1073741828) of UB, " \
           "which holds 253952 bytes" in message, message
    assert message.startswith("<string>:31:7: error:"), message  # the vgather2's line in run_body's kernel


UB_END = 253952
"""a5's UB bytes: a table at its last KiB lets a 16-bit offset reach past it."""
FAR = UB_END - 1024
OUT_OF_RANGE = [  # op, table type, offsets type, lanes, mask, result type, the bad offset
    ("vgather2", "ui8", "ui16", 128, "b16", "ui16", 0xFFFF),
    ("vgather2", "f16", "i16", 128, "b16", "f16", 0x8000),  # -32768 read unsigned: 32768 elements on
    ("vgather2", "i32", "i32", 64, "b32", "i32", 0xFFFFFFFF),
    ("vgather2_bc", "bf16", "ui32", 64, "b32", "ui32", 600),
    ("vgatherb", "ui8", "ui32", 64, "b32", "ui8", 2048),
    ("vscatter", "ui8", "ui16", 128, "b16", "ui8", 0xFFFF),
    ("vscatter", "f32", "ui32", 64, "b32", "f32", 300),
]


RESULT_NP = {"ui8": np.uint8, "ui16": np.uint16, "f16": np.float16, "i32": np.int32, "ui32": np.uint32, "f32": np.float32}


def _far_kernel(op: str, table_t: str, offsets_t: str, lanes: int, mask: str, result_t: str, active: int) -> str:
    register_lanes = 256 // {"ui8": 1, "f16": 2, "bf16": 2, "i32": 4, "f32": 4, "ui16": 2, "ui32": 4}[result_t]
    head = pointers(table_t, offsets_t) + f"""
      %far_addr = arith.constant {FAR} : i64
      %far = pto.castptr %far_addr : i64 -> !pto.ptr<{table_t}, ub>
      %n = arith.constant {active} : i32
      %m, %rest = pto.plt_{mask} %n : i32 -> !pto.mask<{mask}>, i32
      %all = pto.pset_{mask} "PAT_ALL" : !pto.mask<{mask}>
      %o = pto.vlds %offsets_at[%c0] : !pto.ptr<{offsets_t}, ub> -> !pto.vreg<{lanes}x{offsets_t}>"""
    store_mask = WIDTH_NAME[256 // register_lanes]
    if op == "vscatter":
        return head + f"""
      %v = pto.vlds %table[%c0] : !pto.ptr<{table_t}, ub> -> !pto.vreg<{register_lanes}x{table_t}>
      pto.vscatter %v, %far, %o, %m : !pto.vreg<{register_lanes}x{table_t}>, !pto.ptr<{table_t}, ub>, !pto.vreg<{lanes}x{offsets_t}>, !pto.mask<{mask}>"""
    return head + f"""
      %r = pto.{op} %far, %o, %m : !pto.ptr<{table_t}, ub>, !pto.vreg<{lanes}x{offsets_t}>, !pto.mask<{mask}> -> !pto.vreg<{register_lanes}x{result_t}>
      %every = pto.pset_{store_mask} "PAT_ALL" : !pto.mask<{store_mask}>
      pto.vsts %r, %out[%c0], %every : !pto.vreg<{register_lanes}x{result_t}>, !pto.ptr<{result_t}, ub>, !pto.mask<{store_mask}>"""


@pytest.mark.parametrize("op,table_t,offsets_t,lanes,mask,result_t,bad", OUT_OF_RANGE)
def test_an_offset_past_ub_faults_only_in_an_active_lane(op, table_t, offsets_t, lanes, mask, result_t, bad):
    """Lane 5 holds an offset past UB: masked off (3 active lanes) it reads or writes nothing; active it is a
    run-time error at the op naming lane 5 and its offset read unsigned."""
    width = int(offsets_t[-2:]) // 8
    offsets = np.zeros(lanes, f"u{width}")
    offsets[5] = bad
    data = ub_input(np.zeros(256, np.uint8), offsets)
    out_t = table_t if op == "vscatter" else result_t
    out = np.zeros(256, np.uint8).view(RESULT_NP[out_t])
    result = run_body(_far_kernel(op, table_t, offsets_t, lanes, mask, result_t, 3), data, out.copy(), in_type="ui8", out_type=out_t)
    if op != "vscatter":  # the 3 active lanes read the (zero) table, the others are zero
        np.testing.assert_array_equal(result.view(np.uint8), np.zeros(256, np.uint8))
    with pytest.raises(PtoError, match=rf"'pto.{op}' op lane 5 \(offset {bad}\) (reads|writes)"):
        run_body(_far_kernel(op, table_t, offsets_t, lanes, mask, result_t, 8), data, out.copy(), in_type="ui8", out_type=out_t)
