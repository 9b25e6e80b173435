# pyright: reportInvalidTypeForm=false
"""The builder's scalar access: pto.load_scalar / pto.store_scalar / pto.index_cast spell what
PTOAS reads and run on every target (against NumPy indexing)."""

import numpy as np
import pytest

import pto_frontend as pto

ROWS, DIM, TOKENS = 64, 32, 12


@pto.kernel
def embed_rows(table: pto.ptr(pto.f32), ids: pto.ptr(pto.i32), out: pto.ptr(pto.f32), first: pto.ptr(pto.f32)):
    tv = pto.make_tensor_view(table, shape=[ROWS, DIM], strides=[DIM, 1])
    ov = pto.make_tensor_view(out, shape=[TOKENS, DIM], strides=[DIM, 1])
    row = pto.alloc_tile(shape=[1, DIM], dtype=pto.f32)
    for t in pto.range(TOKENS):
        r = pto.index_cast(pto.load_scalar(ids, t))
        pto.tload(pto.partition_view(tv, offsets=[r, 0], sizes=[1, DIM]), row)
        pto.tstore(row, pto.partition_view(ov, offsets=[t, 0], sizes=[1, DIM]))
        pto.store_scalar(pto.load_scalar(table, r * DIM), first, t)
    pto.store_scalar(-1.5, first, TOKENS)


def test_the_kernel_spells_ptoas_scalar_access():
    text = embed_rows.to_pto(target="a5")
    assert "pto.load_scalar %ids[%t] : !pto.ptr<i32, gm> -> i32" in text
    assert "arith.index_cast" in text
    assert "pto.store_scalar %cst, %first[%c12] : !pto.ptr<f32, gm>, f32" in text


@pytest.mark.parametrize("target", pto.TARGETS)
def test_the_kernel_reads_the_rows_its_ids_name(target):
    rng = np.random.default_rng(1)
    table = rng.standard_normal((ROWS, DIM)).astype(np.float32)
    ids = rng.integers(0, ROWS, TOKENS).astype(np.int32)
    out, first = np.zeros((TOKENS, DIM), np.float32), np.zeros(TOKENS + 1, np.float32)
    final = embed_rows.run(table.reshape(-1), ids, out.reshape(-1), first, target=target)
    np.testing.assert_array_equal(final[2].reshape(TOKENS, DIM), table[ids])
    np.testing.assert_array_equal(final[3], np.append(table[ids, 0], np.float32(-1.5)))


def test_a_pointer_is_required():
    @pto.kernel
    def bad(x: pto.ptr(pto.f32)):
        pto.load_scalar(3, 0)  # pyright: ignore[reportArgumentType]  (the mistake under test)

    with pytest.raises(pto.PtoError, match=r"test_scalar_builder.py:\d+:\d+: error: pto.load_scalar\(\) takes a pointer argument"):
        bad.to_pto()


@pto.kernel
def first_rows(src: pto.ptr(pto.f32), dst: pto.ptr(pto.f32), n: pto.index):
    sv = pto.make_tensor_view(src, shape=[8, 16], strides=[16, 1])
    dv = pto.make_tensor_view(dst, shape=[8, 16], strides=[16, 1])
    t = pto.alloc_tile(shape=[8, 16], dtype=pto.f32, valid=[pto.constant(8), pto.constant(16)])
    pto.tload(pto.partition_view(sv, offsets=[0, 0], sizes=[8, 16]), t)
    pto.set_validshape(t, n, 16)
    pto.tstore(t, pto.partition_view(dv, offsets=[0, 0], sizes=[n, 16]))


@pytest.mark.parametrize("target", pto.TARGETS)
def test_set_validshape_limits_what_follows(target):
    src = np.arange(128, dtype=np.float32)
    dst = np.zeros(128, np.float32)
    assert "pto.set_validshape %t, %n, %c16 : !pto.tile_buf<vec, 8x16xf32, valid=?x?>" in first_rows.to_pto()
    out = first_rows.run(src, dst, np.array(5), target=target)[1]
    np.testing.assert_array_equal(out, np.where(np.arange(128) < 80, src, 0))
