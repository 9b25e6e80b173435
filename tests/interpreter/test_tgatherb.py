"""
TGATHERB on every target against a formula written here from pto-isa's code (cpu/TGatherB.hpp,
npu/a2a3/TGatherB.hpp, npu/a5/TGatherB.hpp): 32-byte block k of dst's valid row r holds the 32 bytes
of src's storage at byte offset offsets[r, k]. cpu copies any offset and leaves a block ending past
src's storage untouched; the NPUs' vgatherb reads aligned blocks, so an unaligned offset or one past
src is a located run-time fault.
"""

from __future__ import annotations

import numpy as np
import pytest

import interpreter
import pto_frontend
from passes.estimate import estimate
from pto_dialect import PtoError, parse
from tests.interpreter.harness import NP, NPU, TARGETS, assert_bits_equal, constants, filled, func, gm_views, random_values, run, seed, tile, view

COVERS = ("pto.tgatherb",)


def tgatherb(src: str, offsets: str, dst: str) -> str:
    return func([("s", src), ("o", offsets), ("d", dst)], f"pto.tgatherb ins(%s, %o : {src}, {offsets}) outs(%d : {dst})")


def gathered(src: np.ndarray, offsets: np.ndarray, dst: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """dst with its first rows x cols elements replaced block by block, one row and block at a time;
    a block ending past src's bytes keeps dst's."""
    src_bytes = src.tobytes()
    out = dst.copy()
    size = dst.dtype.itemsize
    for r in range(rows):
        row = bytearray(out[r].tobytes())
        for k in range(cols * size // 32):
            at = int(offsets[r, k]) & 0xFFFFFFFF
            if at + 32 <= len(src_bytes):
                row[32 * k : 32 * k + 32] = src_bytes[at : at + 32]
        out[r] = np.frombuffer(bytes(row), dtype=dst.dtype)
    return out


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("src_type", "dst_type"), [
    ("i8", "i8"), ("ui8", "ui8"), ("i16", "i16"), ("f16", "f16"), ("bf16", "bf16"), ("i32", "i32"), ("f32", "f32"),
    ("f16", "i32"),  # bytes are copied: src and dst may differ
])
def test_tgatherb_aligned_blocks(target: str, src_type: str, dst_type: str) -> None:
    """Random aligned offsets over a 4x64-byte-row src into a 3-row dst of 2 and 20 repeats' width."""
    rng = np.random.default_rng(seed(target, src_type, dst_type))
    src_cols = 256 // NP[src_type].itemsize
    for dst_bytes in (64, 20 * 256):
        dst_cols = dst_bytes // NP[dst_type].itemsize
        blocks = dst_bytes // 32
        s, o, d = tile((4, src_cols), src_type), tile((3, blocks), "i32"), tile((3, dst_cols), dst_type)
        src = random_values(rng, src_type, (4, src_cols))
        offsets = (rng.integers(0, 4 * 256 // 32, (3, blocks)) * 32).astype(np.int32)
        out = run(tgatherb(s, o, d), target, [src, offsets, filled((3, dst_cols), dst_type)])[-1]
        assert_bits_equal(out, gathered(src, offsets, filled((3, dst_cols), dst_type), 3, dst_cols))


@pytest.mark.parametrize("target", TARGETS)
def test_tgatherb_partial_valid_region(target: str) -> None:
    """dst valid 2x16 of 4x32 f32 (two blocks a row): the rest of dst and of offsets' row untouched."""
    s, o, d = tile((8, 8), "f32"), tile((4, 8), "ui32"), tile((4, 32), "f32", valid=(2, 16))
    src = np.arange(64, dtype=np.float32).reshape(8, 8)
    offsets = (np.arange(32, dtype=np.uint32).reshape(4, 8) * 32) % 256
    out = run(tgatherb(s, o, d), target, [src, offsets, filled((4, 32), "f32")])[-1]
    assert_bits_equal(out, gathered(src, offsets, filled((4, 32), "f32"), 2, 16))


@pytest.mark.parametrize("target", TARGETS)
def test_tgatherb_unaligned_offset(target: str) -> None:
    """Byte offset 2 (an f16 element's start): cpu copies those bytes; vgatherb faults, naming it."""
    s, o, d = tile((1, 64), "f16"), tile((1, 8), "i32"), tile((1, 32), "f16")
    src = np.arange(64, dtype=np.float16).reshape(1, 64)
    offsets = np.array([[0, 2, 0, 0, 0, 0, 0, 0]], dtype=np.int32)
    if target in NPU:
        with pytest.raises(PtoError, match=r"k\.pto:\d+:\d+: error: 'pto\.tgatherb' op byte offset 2 at offsets position \[0, 1\] is not 32-byte aligned"):
            run(tgatherb(s, o, d), target, [src, offsets, filled((1, 32), "f16")])
        return
    out = run(tgatherb(s, o, d), target, [src, offsets, filled((1, 32), "f16")])[-1]
    assert_bits_equal(out, gathered(src, offsets, filled((1, 32), "f16"), 1, 32))
    assert_bits_equal(out[0, 16:], src[0, 1:17])


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("offset", [128, 112, -33])
def test_tgatherb_past_src(target: str, offset: int) -> None:
    """A block ending past src's 128 bytes (-33 reads as 2**32 - 33): cpu keeps that dst block,
    the NPUs fault."""
    s, o, d = tile((1, 32), "f32"), tile((1, 8), "i32"), tile((1, 16), "f32")
    src = np.arange(32, dtype=np.float32).reshape(1, 32)
    offsets = np.array([[32, offset, 0, 0, 0, 0, 0, 0]], dtype=np.int32)
    if target in NPU:
        unsigned = offset & 0xFFFFFFFF
        why = "is not 32-byte aligned" if unsigned % 32 else "reads past src's 128 bytes"
        with pytest.raises(PtoError, match=f"byte offset {unsigned} at offsets position \\[0, 1\\] {why}"):
            run(tgatherb(s, o, d), target, [src, offsets, filled((1, 16), "f32")])
        return
    out = run(tgatherb(s, o, d), target, [src, offsets, filled((1, 16), "f32")])[-1]
    assert_bits_equal(out, gathered(src, offsets, filled((1, 16), "f32"), 1, 16))
    assert_bits_equal(out[0, 8:], filled((1, 16), "f32")[0, 8:])


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("offset", [-32, -1])
def test_tgatherb_offset_wrapping_the_bounds_test(target: str, offset: int) -> None:
    """Offsets of 2**32 - 32 or more: cpu's bounds test (offset + 32 in 32 bits) wraps and the block
    is read outside src; the NPUs' offsets are past src (or unaligned): a fault everywhere."""
    s, o, d = tile((1, 32), "f32"), tile((1, 8), "i32"), tile((1, 32), "f32")
    offsets = np.array([[0, 0, 0, offset, 0, 0, 0, 0]], dtype=np.int32)
    with pytest.raises(PtoError, match=f"byte offset {offset & 0xFFFFFFFF} at offsets position \\[0, 3\\]"):
        run(tgatherb(s, o, d), target, [np.zeros((1, 32), np.float32), offsets, filled((1, 32), "f32")])


@pytest.mark.parametrize("target", TARGETS)
def test_tgatherb_dynamic_valid_cols(target: str) -> None:
    """dst's valid cols set at run time: whole blocks run, a partial block is a located error."""
    d = tile((2, 32), "i16", valid=(2, "?"))
    s, o = tile((2, 32), "i16"), tile((2, 4), "i32")
    text = func([("s", s), ("o", o), ("n", "index")], f"""
%d = pto.alloc_tile valid_col = %n : {d}
pto.tgatherb ins(%s, %o : {s}, {o}) outs(%d : {d})""")
    src = random_values(np.random.default_rng(seed(target, "dyn")), "i16", (2, 32))
    offsets = np.array([[96, 0, 64, 32], [32, 32, 0, 96]], dtype=np.int32)
    run(text, target, [src, offsets, np.int64(32)])
    with pytest.raises(PtoError, match="expects dst's valid row to be whole 32-byte blocks, got 20 x i16 = 40 bytes"):
        run(text, target, [src, offsets, np.int64(20)])


@pytest.mark.parametrize("target", TARGETS)
def test_tgatherb_records_block_read(target: str) -> None:
    """cpu reads bytes at any offset; the NPUs aligned blocks (the `block_read` choice)."""
    s, o, d = tile((1, 16), "f32"), tile((1, 8), "i32"), tile((1, 16), "f32")
    lowered = interpreter.lower_for(parse(tgatherb(s, o, d), "k.pto"), target)
    op = next(x for x in lowered.walk() if x.name == f"pto_{target}.tgatherb")
    expected = "bytes_in_src" if target == "cpu" else "aligned_in_src"
    assert str(op.properties["block_read"]) == f"#pto_choice<block_read {expected}>"


@pytest.mark.parametrize(("rows", "cols", "calls"), [
    (4, 64, [1, 1, 1, 1]),  # 8 blocks a row: one repeat per row
    (4, 16, [4]),  # 2 blocks a row: no whole repeat; the remaining blocks, one repeat per row, in one call
    (2, 80, [1, 1, 2]),  # 10 blocks: a repeat per row, then the remaining 2 blocks of both rows
    (3, 512, [8, 8, 8]),  # 64 blocks: 8 repeats per row
])
def test_tgatherb_a2a3_cost(rows: int, cols: int, calls: list[int]) -> None:
    """npu/a2a3/TGatherB.hpp's vgatherb calls, priced by pto-isa's cost model (EstimateLinearCycles
    defaults: head 6 once the queue is idle, 2 a repeat)."""
    s, o, d = tile((8, 64), "f32"), tile((rows, 64), "i32"), tile((rows, cols), "f32")
    (op,) = estimate(parse(tgatherb(s, o, d), "k.pto"), "a2a3").json()["ops"]
    assert (op["pipe"], op["cycles"], op["model"]) == ("V", 6 + 2 * sum(calls), "pto-isa-costmodel")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("loaded", [False, True])
def test_tgatherb_random_offsets_are_aligned_blocks_inside_src(target: str, loaded: bool) -> None:
    """Random inputs draw the offsets (a tile argument, or a GM array loaded into one) as 32-byte
    aligned block starts inside src's storage, so the kernel runs on every target."""
    s, o, d = tile((4, 32), "f16"), tile((2, 8), "i32"), tile((2, 64), "f16")
    gather = f"pto.tgatherb ins(%s, %o : {s}, {o}) outs(%d : {d})"
    if loaded:
        text = func([("s", s), ("x", "!pto.ptr<i32>"), ("d", d)], constants(0, 1, 2, 8) + f"""
{gm_views([("x", "i32", (2, 8))])}
%o = pto.alloc_tile : {o}
pto.tload ins(%xp : {view((2, 8), "i32")}) outs(%o : {o})
{gather}""")
    else:
        text = func([("s", s), ("o", o), ("d", d)], gather)
    module = parse(text, "k.pto")
    src, offsets, dst = pto_frontend.draw_inputs(module, "random:5")
    assert offsets.min() >= 0 and offsets.max() <= 4 * 32 * 2 - 32 and not (offsets % 32).any()
    assert len(np.unique(offsets)) > 1
    final = pto_frontend.run(module, target, inputs="random:5")
    assert_bits_equal(final[-1], gathered(src, offsets.reshape(2, 8), dst, 2, 64))


@pytest.mark.parametrize(("cols", "numerics"), [
    (64, "exact"),  # f32: 8 blocks, one whole repeat a row
    (16, "approximate"),  # 2 blocks: the tail repeat writes 8 blocks past the valid row
    ("?", "approximate"),  # not known before the run
])
def test_tgatherb_a2a3_numerics(cols: int | str, numerics: str) -> None:
    """a2a3 records its gather approximate where a valid row is not whole repeats of 8 blocks."""
    s, o, d = tile((4, 64), "f32"), tile((2, 8), "i32"), tile((2, 64), "f32", valid=(2, cols))
    lowered = interpreter.lower_for(parse(tgatherb(s, o, d), "k.pto"), "a2a3")
    op = next(x for x in lowered.walk() if x.name == "pto_a2a3.tgatherb")
    assert str(op.properties["numerics"]) == f"#pto_choice<numerics {numerics}>"
