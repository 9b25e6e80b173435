# pyright: reportInvalidTypeForm=false
# (a kernel's parameters are annotated with calls, `x: pto.ptr(pto.f16)`: the builder's syntax)
"""
a5's register level written in Python (pto_frontend/registers.py): register gather kernels as a
kernel author writes them (tiles loaded from GM, their UB addresses, a plt mask of the first n lanes
inside `pto.vecscope`), printed as pto-opt reads them and run on a5, each against a formula written
here from PTOAS's docs/isa/micro-isa/03-vector-load-store.md:

    vgather2     r[i] = i < n ? table[shift + off[i]] : 0     (b8: the byte, stored PK_B16)
    vgather2_bc  r[i] = i < n ? table[off[i]] : 0             (b16 data in 32-bit lanes, stored PK_B32)
    vgatherb     block b = b < n ? the 32 bytes at byte off[b] : 0   (8 blocks)
    vscatter     out[off[i]] = v[i] for i < n, the lowest lane winning a collision
    vdup         r[i] = i < n ? x : 0
"""

from collections.abc import Callable

import numpy as np
import pytest

import pto_frontend as pto
from pto_frontend.values import DType
from tests.frontend.row_gather import marked_line
from tests.pto_tools.cli import run_in_process

HERE = __file__
RNG = np.random.default_rng(29)
TABLE = 256
"""Elements of the gathered table (one tile row)."""


def _loaded(ptr: pto.Value, count: int, dtype: DType) -> pto.Value:
    """A [1, count] tile holding the first `count` elements of a GM pointer argument."""
    view = pto.make_tensor_view(ptr, shape=[1, count], strides=[count, 1])
    tile = pto.alloc_tile(shape=[1, count], dtype=dtype)
    pto.tload(pto.partition_view(view, offsets=[0, 0], sizes=[1, count]), tile)
    return tile


def _stored(tile: pto.Value, ptr: pto.Value, count: int) -> None:
    view = pto.make_tensor_view(ptr, shape=[1, count], strides=[count, 1])
    pto.tstore(tile, pto.partition_view(view, offsets=[0, 0], sizes=[1, count]))


def register_gather(
    name: str, gather: Callable[..., pto.Value], data: DType, offsets: DType, lanes: int, out: DType, out_count: int,
    granularity: str, *, offsets_as: DType | None = None, dist: str | None = None, shift: int = 0,
) -> pto.Kernel:
    """out = the gather of `lanes` offsets from a table (advanced by `shift` elements) under the mask of
    the first n lanes, stored under an all-lanes mask (so masked-off lanes show what the gather gave)."""

    @pto.kernel(target="a5", name=name)
    def kernel(table: pto.ptr(data), idx: pto.ptr(offsets), result: pto.ptr(out), n: pto.i32):
        t = _loaded(table, TABLE, data)
        i = _loaded(idx, lanes, offsets)
        o = pto.alloc_tile(shape=[1, out_count], dtype=out)
        with pto.vecscope():
            src = pto.addptr(pto.tile_buf_addr(t), shift) if shift else pto.tile_buf_addr(t)
            at = pto.tile_buf_addr(i) if offsets_as is None else pto.castptr(pto.tile_buf_addr(i), pto.ptr(offsets_as, "ub"))
            mask, _rest = getattr(pto, f"plt_{granularity}")(n)
            everywhere = getattr(pto, f"pset_{granularity}")("PAT_ALL")
            gathered = gather(src, pto.vlds(at, 0), mask)
            pto.vsts(gathered, pto.tile_buf_addr(o), 0, everywhere, dist)
        _stored(o, result, out_count)

    return kernel


GATHERS = {  # kernel, table dtype, offsets dtype, lanes, the elements an offset may reach
    "f32_i32": (register_gather("f32_i32", pto.vgather2, pto.f32, pto.i32, 64, pto.f32, 64, "b32"), np.float32, np.int32, 64, TABLE),
    "f32_shifted": (
        register_gather("f32_shifted", pto.vgather2, pto.f32, pto.i32, 64, pto.f32, 64, "b32", offsets_as=pto.ui32, shift=16),
        np.float32, np.int32, 64, TABLE - 16,
    ),
    "f16_ui16": (
        register_gather("f16_ui16", pto.vgather2, pto.f16, pto.i16, 128, pto.f16, 128, "b16", offsets_as=pto.ui16),
        np.float16, np.int16, 128, TABLE,
    ),
    "ui8_b16_lanes": (
        register_gather("ui8_b16_lanes", pto.vgather2, pto.ui8, pto.ui16, 128, pto.ui8, 128, "b16", dist="PK_B16"),
        np.uint8, np.uint16, 128, TABLE,
    ),
    "bc_f16_i32": (
        register_gather("bc_f16_i32", pto.vgather2_bc, pto.f16, pto.i32, 64, pto.f16, 64, "b32", dist="PK_B32"),
        np.float16, np.int32, 64, TABLE,
    ),
    "bc_i32": (register_gather("bc_i32", pto.vgather2_bc, pto.i32, pto.i32, 64, pto.i32, 64, "b32"), np.int32, np.int32, 64, TABLE),
}


def _table(dtype: type) -> np.ndarray:
    return RNG.integers(0, 256, TABLE * np.dtype(dtype).itemsize, dtype=np.uint8).view(dtype)


@pytest.mark.parametrize("active", [0, 37, 1000])
@pytest.mark.parametrize("case", list(GATHERS))
def test_a_register_gather_built_in_python_runs_as_the_formula_says(case: str, active: int) -> None:
    kernel, data, offsets_np, lanes, reach = GATHERS[case]
    shift = TABLE - reach
    table = _table(data)
    offsets = RNG.integers(0, reach, lanes).astype(offsets_np)
    offsets[:3] = [0, reach - 1, reach - 1]  # the table's ends, and a repeated offset
    out = np.full(lanes, 7, data)
    got = kernel.run(table, offsets, out, np.int32(active))[2]
    on = np.arange(lanes) < active
    want = np.where(on, table[shift + offsets.astype(np.int64)], 0).astype(data)
    np.testing.assert_array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"))


@pytest.mark.parametrize("case", list(GATHERS))
def test_the_printed_kernel_is_what_pto_opt_reads_and_verifies_for_a5(case: str, tmp_path) -> None:
    text = GATHERS[case][0].to_pto(target="a5")
    (tmp_path / "k.pto").write_text(text)
    code, stdout, stderr = run_in_process("pto-opt", str(tmp_path / "k.pto"), "--target", "a5")
    assert code == 0, stderr
    assert stdout.strip() == text.strip()


@pto.kernel(target="a5")
def blocks(table: pto.ptr(pto.f32), idx: pto.ptr(pto.i32), result: pto.ptr(pto.f32), n: pto.i32):
    t = _loaded(table, TABLE, pto.f32)
    i = _loaded(idx, 64, pto.i32)
    o = pto.alloc_tile(shape=[1, 64], dtype=pto.f32)
    with pto.vecscope():
        mask, _rest = pto.plt_b32(n)
        gathered = pto.vgatherb(pto.tile_buf_addr(t), pto.vlds(pto.tile_buf_addr(i), 0), mask)
        pto.vsts(gathered, pto.tile_buf_addr(o), 0, pto.pset_b32("PAT_ALL"))
    _stored(o, result, 64)


@pytest.mark.parametrize("active", [0, 3, 8, 64])
def test_vgatherb_gathers_32_byte_blocks_at_byte_offsets(active: int) -> None:
    table = RNG.standard_normal(TABLE).astype(np.float32)
    offsets = RNG.integers(0, TABLE * 4 // 32, 64).astype(np.int32) * 32  # 32-byte aligned, in bytes
    got = blocks.run(table, offsets, np.full(64, 7, np.float32), np.int32(active))[2]
    want = np.zeros((8, 32), np.uint8)
    table_bytes = table.view(np.uint8)
    for block in range(min(active, 8)):
        want[block] = table_bytes[offsets[block]: offsets[block] + 32]
    np.testing.assert_array_equal(got.view(np.uint8), want.reshape(-1))


@pto.kernel(target="a5")
def scatter(values: pto.ptr(pto.f32), idx: pto.ptr(pto.i32), result: pto.ptr(pto.f32), n: pto.i32):
    v = _loaded(values, 64, pto.f32)
    i = _loaded(idx, 64, pto.i32)
    o = _loaded(result, TABLE, pto.f32)
    with pto.vecscope():
        mask, _rest = pto.plt_b32(n)
        lanes = pto.vlds(pto.tile_buf_addr(v), 0)
        pto.vscatter(lanes, pto.tile_buf_addr(o), pto.vlds(pto.tile_buf_addr(i), 0), mask)
    _stored(o, result, TABLE)


@pytest.mark.parametrize("active", [0, 20, 64])
def test_vscatter_writes_the_active_lanes_the_lowest_winning_a_collision(active: int) -> None:
    values = RNG.standard_normal(64).astype(np.float32)
    offsets = RNG.integers(0, 48, 64).astype(np.int32)  # many collisions
    before = RNG.standard_normal(TABLE).astype(np.float32)
    got = scatter.run(values, offsets, before, np.int32(active))[2]
    want = before.copy()
    targets, first_lane = np.unique(offsets[:active], return_index=True)
    want[targets] = values[first_lane]
    np.testing.assert_array_equal(got, want)


@pto.kernel(target="a5")
def duplicated(x: pto.f32, result: pto.ptr(pto.f32), n: pto.i32):
    o = pto.alloc_tile(shape=[1, 64], dtype=pto.f32)
    with pto.vecscope():
        mask, _rest = pto.plt_b32(n)
        pto.vsts(pto.vdup(x, mask), pto.tile_buf_addr(o), 0, pto.pset_b32("PAT_ALL"))
    _stored(o, result, 64)


def test_vdup_fills_the_masked_lanes_with_a_scalar() -> None:
    got = duplicated.run(np.float32(2.5), np.full(64, 7, np.float32), np.int32(10))[1]
    np.testing.assert_array_equal(got, np.where(np.arange(64) < 10, np.float32(2.5), np.float32(0)))


@pto.kernel(target="a5")
def halves_swapped(x: pto.ptr(pto.f32), result: pto.ptr(pto.f32)):
    t = _loaded(x, 128, pto.f32)
    o = pto.alloc_tile(shape=[1, 128], dtype=pto.f32)
    with pto.vecscope():
        everywhere = pto.pset_b32("PAT_ALL")
        first, second_half = pto.vlds(pto.tile_buf_addr(t), 64, post_update=True)
        second = pto.vlds(second_half, 0)
        next_out = pto.vsts(second, pto.tile_buf_addr(o), 64, everywhere, post_update=True)
        pto.vsts(first, next_out, 0, everywhere)
    _stored(o, result, 128)


def test_post_update_loads_and_stores_at_the_base_and_return_it_advanced() -> None:
    x = RNG.standard_normal(128).astype(np.float32)
    got = halves_swapped.run(x, np.zeros(128, np.float32))[1]
    np.testing.assert_array_equal(got, np.concatenate([x[64:], x[:64]]))


UB_TABLE_BYTES = 2048


@pto.kernel(target="a5")
def sparse(table: pto.ptr(pto.f16), idx: pto.ptr(pto.i32), result: pto.ptr(pto.f16)):
    """As PTOAS's micro-op cases write it: UB pointers cast from addresses, DMA micro-ops, a vcmps mask."""
    ub_table = pto.castptr(pto.constant(0, pto.i64), pto.ptr(pto.f16, "ub"))
    ub_idx = pto.castptr(pto.constant(UB_TABLE_BYTES, pto.i64), pto.ptr(pto.i32, "ub"))
    ub_out = pto.castptr(pto.constant(UB_TABLE_BYTES + 256, pto.i64), pto.ptr(pto.f16, "ub"))
    pto.mte_gm_ub(table, ub_table, 0, UB_TABLE_BYTES, 1, UB_TABLE_BYTES, UB_TABLE_BYTES)
    pto.mte_gm_ub(idx, ub_idx, 0, 256, 1, 256, 256)
    with pto.vecscope():
        everywhere = pto.pset_b32("PAT_ALL")
        offsets = pto.vlds(ub_idx, 0)
        inside = pto.vcmps(offsets, pto.constant(UB_TABLE_BYTES // 2, pto.i32), everywhere, "lt")
        words = pto.vgather2_bc(ub_table, offsets, inside)
        pto.vsts(words, ub_out, 0, everywhere, "PK_B32")
    pto.mte_ub_gm(ub_out, result, 128, 1, 128, 128)


def test_a_kernel_of_dma_micro_ops_and_a_compare_mask_gathers_the_offsets_inside_the_table(tmp_path) -> None:
    table = RNG.standard_normal(UB_TABLE_BYTES // 2).astype(np.float16)
    offsets = RNG.integers(0, UB_TABLE_BYTES, 64).astype(np.int32)  # half of them past the table: masked off
    got = sparse.run(table, offsets, np.full(64, 7, np.float16))[2]
    inside = offsets < table.size
    want = np.where(inside, table[np.where(inside, offsets, 0)], 0).astype(np.float16)
    np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))
    text = sparse.to_pto()
    (tmp_path / "k.pto").write_text(text)
    code, stdout, stderr = run_in_process("pto-opt", str(tmp_path / "k.pto"), "--target", "a5")
    assert (code, stdout.strip()) == (0, text.strip()), stderr


@pto.kernel(target="a5")
def window(result: pto.ptr(pto.f32), x: pto.f32, y: pto.f32, start: pto.i32, stop: pto.i32):
    o = pto.alloc_tile(shape=[1, 64], dtype=pto.f32)
    with pto.vecscope():
        everywhere = pto.pset_b32("PAT_ALL")
        below_stop, _left = pto.plt_b32(stop)
        below_start, _left = pto.plt_b32(start)
        inside = pto.pand(below_stop, pto.pnot(below_start, everywhere), everywhere)
        picked = pto.vsel(pto.vbr(x), pto.vdup(y, everywhere), inside)
        pto.vsts(picked, pto.tile_buf_addr(o), 0, everywhere)
    _stored(o, result, 64)


@pytest.mark.parametrize("start,stop", [(0, 64), (5, 40), (40, 5), (63, 100)])
def test_predicate_logic_picks_the_lanes_of_a_window(start: int, stop: int) -> None:
    got = window.run(np.zeros(64, np.float32), np.float32(1.5), np.float32(-2.0), np.int32(start), np.int32(stop))[0]
    lane = np.arange(64)
    np.testing.assert_array_equal(got, np.where((lane >= start) & (lane < stop), np.float32(1.5), np.float32(-2.0)))


@pto.kernel(target="a5")
def wrong_mask(table: pto.ptr(pto.f32), idx: pto.ptr(pto.i32), n: pto.i32):
    t = _loaded(table, TABLE, pto.f32)
    i = _loaded(idx, 64, pto.i32)
    with pto.vecscope():
        mask, _rest = pto.plt_b16(n)
        pto.vgather2(pto.tile_buf_addr(t), pto.vlds(pto.tile_buf_addr(i), 0), mask)  # the bad mask


def test_a_mask_of_the_wrong_width_is_located_at_the_call() -> None:
    with pytest.raises(pto.PtoError) as e:
        wrong_mask.to_pto()
    assert str(e.value) == (
        f"{HERE}:{marked_line(HERE, 'the bad mask')}:9: error: 'pto.vgather2' op requires mask type !pto.mask<b32> "
        "(one lane per offset), got !pto.mask<b16>"
    )


@pto.kernel
def first_register_op(result: pto.ptr(pto.f32)):
    o = pto.alloc_tile(shape=[1, 64], dtype=pto.f32)
    with pto.vecscope():  # the register level
        at = pto.tile_buf_addr(o)
        pto.vsts(pto.vdup(pto.constant(1.0, pto.f32), pto.pset_b32("PAT_ALL")), at, 0, pto.pset_b32("PAT_ALL"))
    _stored(o, result, 64)


@pytest.mark.parametrize("target", [t for t in pto.TARGETS if t != "a5"])
def test_another_target_is_told_the_register_level_is_a5_s(target: str) -> None:
    where = f"{HERE}:{marked_line(HERE, 'the register level')}"
    for build in (lambda: first_register_op.to_pto(target=target), lambda: first_register_op.run(np.zeros(64, np.float32), target=target)):
        with pytest.raises(pto.PtoError) as e:
            build()
        assert str(e.value).startswith(f"{where}:"), str(e.value)
        assert "the register level is a5's" in str(e.value)
    assert np.all(first_register_op.run(np.zeros(64, np.float32), target="a5")[0] == 1.0)


@pto.kernel(target="a5")
def tile_as_source(table: pto.ptr(pto.f32)):
    t = _loaded(table, TABLE, pto.f32)
    with pto.vecscope():
        everywhere = pto.pset_b32("PAT_ALL")
        pto.vgather2(t, pto.vdup(pto.constant(0, pto.i32), everywhere), everywhere)  # a tile, not a pointer


@pto.kernel(target="a5")
def missing_offset(table: pto.ptr(pto.f32)):
    t = _loaded(table, TABLE, pto.f32)
    with pto.vecscope():
        pto.vlds(pto.tile_buf_addr(t))  # no offset


@pto.kernel(target="a5")
def cast_to_a_word(table: pto.ptr(pto.f32)):
    t = _loaded(table, TABLE, pto.f32)
    with pto.vecscope():
        pto.castptr(pto.tile_buf_addr(t), "ub")  # a word


@pto.kernel(target="a5")
def cast_a_number():
    with pto.vecscope():
        pto.castptr(0, pto.ptr(pto.f32, "ub"))  # a Python int


@pto.kernel(target="a5")
def unknown_pattern():
    with pto.vecscope():
        pto.pset_b8("PAT_SOME")  # no such pattern


@pto.kernel(target="a5")
def loops_not_a_list(table: pto.ptr(pto.f32)):
    ub = pto.castptr(pto.constant(0, pto.i64), pto.ptr(pto.f32, "ub"))
    pto.mte_gm_ub(table, ub, 0, 256, 1, 256, 256, loop_counts=2)  # not a list


@pytest.mark.parametrize("kernel,marker,message", [  # each call inside a with block (column 9), or not (5)
    (tile_as_source, "a tile, not a pointer", "pto.vgather2(): 'source' takes a pointer (!pto.ptr), got <Tile %"),
    (missing_offset, "no offset", "pto.vlds(): missing a required argument: 'offset'; it takes (source, offset, dist=None, *, dtype=None, post_update=None)"),
    (cast_to_a_word, "a word", "pto.castptr() takes to=pto.ptr(dtype, 'ub'|'gm') or an integer type (pto.i64), got 'ub'"),
    (cast_a_number, "a Python int", "pto.castptr(): 'input' takes a value of the kernel (a number as one: pto.constant(n, dtype)), got 0"),
    (unknown_pattern, "no such pattern", "'pto.pset_b8' op the pattern must be one of PAT_ALL, "),
    (loops_not_a_list, "not a list", "pto.mte_gm_ub(): loop_counts takes a list, got 2"),
])
def test_a_bad_call_is_a_located_error(kernel: pto.Kernel, marker: str, message: str) -> None:
    with pytest.raises(pto.PtoError) as e:
        kernel.to_pto()
    column = 5 if kernel is loops_not_a_list else 9
    assert str(e.value).startswith(f"{HERE}:{marked_line(HERE, marker)}:{column}: error: {message}"), str(e.value)


def test_outside_a_kernel_a_register_function_says_where_it_belongs() -> None:
    with pytest.raises(pto.PtoError, match=r"pto.pset_b32\(\) builds kernel code: call it inside a @pto.kernel function"):
        pto.pset_b32("PAT_ALL")


@pto.kernel(target="a5")
def scopes(result: pto.ptr(pto.f32)):
    o = pto.alloc_tile(shape=[1, 64], dtype=pto.f32)
    with pto.section_vector():  # the section
        with pto.vecscope():  # the scope
            pto.vsts(pto.vdup(pto.constant(1.0, pto.f32), pto.pset_b32("PAT_ALL")), pto.tile_buf_addr(o), 0, pto.pset_b32("PAT_ALL"))
    _stored(o, result, 64)


def test_a_with_block_s_op_is_located_at_the_with_line() -> None:
    """Not in contextlib, which enters the builder for a `with`."""
    lines = {op.name: (op.location.filename.data, op.location.line.data) for op in scopes.module.walk()}  # pyright: ignore[reportAttributeAccessIssue]
    assert lines["pto.section.vector"] == (HERE, marked_line(HERE, "the section"))
    assert lines["pto.vecscope"] == (HERE, marked_line(HERE, "the scope"))
