"""
The register-level gathers and scatter of a5 on a UB byte array, each against a formula written
here lane by lane from PTOAS's docs/isa/micro-isa/03-vector-load-store.md (never from
pto_dialect/vpto/gather_kernels.py):

    vgather2     r[i] = mask[i] ? elem(UB, base + u(off[i]) * sizeof(src)) : 0;  b8 -> u16 zero-extended
    vgather2_bc  request i (u32 offsets): as vgather2, into 32-bit lane i (b16: low half, high half 0)
    vgatherb     block b < 8: mask[b] ? UB[base + u(off[b]) .. +32) : 32 zero bytes
    vscatter     UB elem at base + u(off[i]) * sizeof(T) = (b8 ? v[2i] : v[i]) for mask[i]; collisions:
                 the lowest lane wins
"""

from __future__ import annotations

import numpy as np
import pytest

from pto_dialect.machine import RuntimeFault
from pto_dialect.vpto.gather_kernels import Memory, vgather2, vgather2_bc, vgatherb, vscatter

UB_BYTES = 4096
DATA = {
    "i8": (np.int8, np.int16), "ui8": (np.uint8, np.uint16), "i16": (np.int16, np.int16),
    "f16": (np.float16, np.float16), "ui16": (np.uint16, np.uint16), "i32": (np.int32, np.int32),
    "f32": (np.float32, np.float32), "ui32": (np.uint32, np.uint32),
}
"""source element -> (its dtype, vgather2's result lane dtype)."""


def random_ub(rng: np.random.Generator) -> np.ndarray:
    return rng.integers(0, 256, UB_BYTES, dtype=np.uint8)


def element(ub: np.ndarray, address: int, dtype) -> np.generic:
    width = np.dtype(dtype).itemsize
    return ub[address:address + width].copy().view(dtype)[0]


def offset_dtype(source) -> type:
    return np.uint32 if np.dtype(source).itemsize == 4 else np.uint16


@pytest.mark.parametrize("name", sorted(DATA))
@pytest.mark.parametrize("signed_offsets", (False, True))
def test_vgather2(name, signed_offsets):
    source, lane = DATA[name]
    width = np.dtype(source).itemsize
    lanes = 256 // max(width, 2)
    rng = np.random.default_rng(len(name) * 7 + signed_offsets)
    ub, base = random_ub(rng), 64
    offsets = rng.integers(0, (UB_BYTES - base) // width, lanes).astype(offset_dtype(source))
    offsets[:3] = [0, 5, 5]  # a repeated offset reads the same element twice
    mask = rng.random(lanes) < 0.7
    if signed_offsets:  # i16 / i32 offsets are read unsigned: the same bits give the same lanes
        offsets = offsets.view(np.dtype(offsets.dtype).str.replace("u", "i"))
    expected = np.zeros(lanes, lane)
    for i in range(lanes):
        if mask[i]:
            address = base + int(offsets.view(f"u{offsets.dtype.itemsize}")[i]) * width
            value = element(ub, address, source)
            expected[i] = np.array(int(value.view(np.uint8)), np.uint16).view(lane) if width == 1 else value
    out = vgather2(Memory(ub), base, offsets, mask, source=np.dtype(source), result=np.dtype(lane))
    assert out.dtype == np.dtype(lane) and out.view(f"u{np.dtype(lane).itemsize}").tolist() == \
        expected.view(f"u{np.dtype(lane).itemsize}").tolist()


def test_vgather2_b8_zero_extends():
    """reg-gather.md: -40 (0b11011000) gathers as 216, 40 as 40."""
    ub = np.zeros(UB_BYTES, np.uint8)
    ub[:2] = np.array([40, -40], np.int8).view(np.uint8)
    offsets = np.zeros(128, np.uint16)
    offsets[1] = 1
    out = vgather2(Memory(ub), 0, offsets, np.ones(128, bool), source=np.dtype(np.int8), result=np.dtype(np.int16))
    assert out[:2].tolist() == [40, 216]


def test_vgather2_masked_off_lane_may_point_anywhere():
    """A masked-off lane neither reads nor faults: its offset may lie far outside UB."""
    ub = np.arange(UB_BYTES, dtype=np.uint32).astype(np.uint8)
    offsets = np.full(64, 0xFFFFFFFF, np.uint32)
    offsets[0] = 3
    mask = np.zeros(64, bool)
    mask[0] = True
    out = vgather2(Memory(ub), 0, offsets, mask, source=np.dtype(np.uint32), result=np.dtype(np.uint32))
    assert out[0] == int(ub[12:16].view(np.uint32)[0]) and not out[1:].any()


@pytest.mark.parametrize("name,bad_offset", (("f32", 1024), ("f16", 65535), ("i8", 4096), ("ui32", 0xFFFFFFFF)))
def test_vgather2_active_lane_outside_ub_names_the_lane(name, bad_offset):
    source, lane = DATA[name]
    lanes = 256 // max(np.dtype(source).itemsize, 2)
    offsets = np.zeros(lanes, offset_dtype(source))
    offsets[9] = bad_offset
    with pytest.raises(RuntimeFault, match=r"^lane 9 \(offset \d+\) reads bytes \[\d+, \d+\) of UB, which holds 4096 bytes$"):
        vgather2(Memory(np.zeros(UB_BYTES, np.uint8)), 0, offsets, np.ones(lanes, bool),
                 source=np.dtype(source), result=np.dtype(lane))


def test_vgather2_misaligned_base_is_an_error():
    with pytest.raises(RuntimeFault, match=r"lane 0 \(offset 0\) reads byte 2 of UB, not aligned to 4 bytes"):
        vgather2(Memory(np.zeros(UB_BYTES, np.uint8)), 2, np.zeros(64, np.uint32), np.ones(64, bool),
                 source=np.dtype(np.float32), result=np.dtype(np.float32))


def test_vgather2_batched_fault_names_iteration_and_lane():
    offsets = np.zeros((3, 64), np.uint32)
    offsets[2, 7] = 5000
    with pytest.raises(RuntimeFault) as err:
        vgather2(Memory(np.zeros(UB_BYTES, np.uint8)), 0, offsets, np.ones((3, 64), bool),
                 source=np.dtype(np.float32), result=np.dtype(np.float32))
    assert err.value.iteration == 2 and str(err.value).startswith("lane 7 (offset 5000) reads")


@pytest.mark.parametrize("name", ("f32", "i32", "ui32", "f16", "i16"))
def test_vgather2_bc(name):
    source = DATA[name][0]
    width = np.dtype(source).itemsize
    rng = np.random.default_rng(width)
    ub, base = random_ub(rng), 128
    offsets = rng.integers(0, (UB_BYTES - base) // width, 64).astype(np.int32)
    mask = offsets < 400  # vcmps lt, as the PTOAS vgather2_bc cases build it
    words = np.zeros(64, np.uint32)
    for i in range(64):
        if mask[i]:
            address = base + int(offsets[i]) * width
            words[i] = int(ub[address:address + width].copy().view(f"u{width}")[0])
    out = vgather2_bc(Memory(ub), base, offsets, mask, source=np.dtype(source), result=np.dtype(source))
    assert out.size * out.dtype.itemsize == 256
    assert out.view(np.uint32).tolist() == words.tolist()


@pytest.mark.parametrize("result", (np.float32, np.float16, np.uint8))
def test_vgatherb(result):
    rng = np.random.default_rng(3)
    ub, base = random_ub(rng), 256
    offsets = np.full(64, 0xFFFFFFFF, np.uint32)  # lanes past the 8 block lanes are ignored
    offsets[:8] = rng.integers(0, (UB_BYTES - base) // 32, 8) * 32
    mask = np.ones(64, bool)
    mask[[2, 5]] = False
    expected = np.zeros(256, np.uint8)
    for b in range(8):
        if mask[b]:
            start = base + int(offsets[b])
            expected[32 * b:32 * b + 32] = ub[start:start + 32]
    out = vgatherb(Memory(ub), base, offsets, mask, result=np.dtype(result))
    assert out.dtype == np.dtype(result) and out.view(np.uint8).tolist() == expected.tolist()


@pytest.mark.parametrize("offset,message", ((4096 - 16, r"lane 3 \(offset 4080\) reads the 32-byte block at bytes \[4080, 4112\) of UB"),
                                            (40, r"lane 3 \(offset 40\) reads the 32-byte block at byte 40 of UB, not aligned")))
def test_vgatherb_block_outside_ub_or_misaligned(offset, message):
    offsets = np.zeros(64, np.uint32)
    offsets[3] = offset
    with pytest.raises(RuntimeFault, match=message):
        vgatherb(Memory(np.zeros(UB_BYTES, np.uint8)), 0, offsets, np.ones(64, bool), result=np.dtype(np.float32))


@pytest.mark.parametrize("name", ("i8", "ui8", "i16", "f16", "f32", "i32"))
def test_vscatter(name):
    source = DATA[name][0]
    width = np.dtype(source).itemsize
    requests = 256 // max(width, 2)
    rng = np.random.default_rng(width + 11)
    ub, base = random_ub(rng), 512
    value = rng.integers(0, 256, 256, dtype=np.uint8).view(source)
    offsets = rng.integers(0, 200, requests).astype(offset_dtype(source))
    offsets[[1, 4, 6]] = 17  # collide: lane 1 wins where active
    mask = rng.random(requests) < 0.8
    mask[[1, 4, 6]] = True
    expected = ub.copy()
    for i in reversed(range(requests)):  # lowest lane last, so it wins
        if mask[i]:
            address = base + int(offsets[i]) * width
            payload = value[2 * i] if width == 1 else value[i]
            expected[address:address + width] = np.array([payload]).view(np.uint8)
    vscatter(Memory(ub), value, base, offsets, mask)
    assert ub.tolist() == expected.tolist()


def test_vscatter_outside_ub_names_the_lane():
    offsets = np.zeros(64, np.uint32)
    offsets[63] = 1024
    ub = np.zeros(UB_BYTES, np.uint8)
    with pytest.raises(RuntimeFault, match=r"lane 63 \(offset 1024\) writes bytes \[4096, 4100\) of UB"):
        vscatter(Memory(ub), np.ones(64, np.float32), 0, offsets, np.ones(64, bool))
    assert not ub.any()
