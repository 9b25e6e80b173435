# pyright: reportInvalidTypeForm=false
# (a kernel's parameters are annotated with calls, `x: pto.ptr(pto.f16)`: the builder's syntax)
"""
The `.pto` examples of examples/, written with pto_frontend: each kernel here builds the same
kernel as the file named in TWINS (tests/frontend/test_examples.py checks that its `.pto`
text goes through pto-opt unchanged and runs with the same results on every target).
"""

import pto_frontend as pto


def gather_rows(table, ids, out, idx, rows, oob):
    """Load the ids, gather their rows of the table (ids past it: `oob`), store the rows: the
    body the embedding kernels share (a plain Python function: it builds where it is called)."""
    pto.tload(ids, idx)
    pto.mgather(table, idx, rows, coalesce="row", gather_oob=oob)
    pto.tstore(rows, out)


def whole(ptr, shape):
    """A partition view of all of a row-major tensor over a pointer argument."""
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    return pto.partition_view(pto.make_tensor_view(ptr, shape=shape, strides=strides), offsets=[0] * len(shape), sizes=shape)


@pto.kernel(target="a2a3")
def embedding_lookup(table: pto.ptr(pto.f16), ids: pto.ptr(pto.i32), out: pto.ptr(pto.f16)):
    """For each block of 8 ids: load them, gather their rows (clamped), store the rows."""
    tab = pto.make_tensor_view(table, shape=[1024, 64], strides=[64, 1], layout="nd")
    idv = pto.make_tensor_view(ids, shape=[1, 32], strides=[32, 1])
    outv = pto.make_tensor_view(out, shape=[32, 64], strides=[64, 1])
    tp = pto.partition_view(tab, offsets=[0, 0], sizes=[1024, 64])
    idx = pto.alloc_tile(shape=[1, 8], dtype=pto.i32)
    rows = pto.alloc_tile(shape=[8, 64], dtype=pto.f16)
    with pto.section_vector():
        for b in pto.range(0, 32, 8):
            ip = pto.partition_view(idv, offsets=[0, b], sizes=[1, 8])
            op = pto.partition_view(outv, offsets=[b, 0], sizes=[8, 64])
            gather_rows(tp, ip, op, idx, rows, "clamp")


@pto.kernel(target="a2a3")
def embedding_rows(table: pto.ptr(pto.f16), ids: pto.ptr(pto.i32), out: pto.ptr(pto.f16)):
    """8 ids, their rows of a 1024 x 64 table (the `.pto` writes it in SSA form)."""
    tab, ip, op = whole(table, [1024, 64]), whole(ids, [1, 8]), whole(out, [8, 64])
    with pto.section_vector():
        gather_rows(tab, ip, op, pto.alloc_tile(shape=[1, 8], dtype=pto.i32), pto.alloc_tile(shape=[8, 64], dtype=pto.f16), "clamp")


@pto.kernel
def embedding_wrap(table: pto.ptr(pto.f32), ids: pto.ptr(pto.i32), out: pto.ptr(pto.f32)):
    """Ids wrapping around a 14-row table seen as 2 x 7 rows: the targets differ."""
    tab, ip, op = whole(table, [2, 7, 8]), whole(ids, [1, 8]), whole(out, [8, 8])
    idx = pto.alloc_tile(shape=[1, 8], dtype=pto.i32)
    rows = pto.alloc_tile(shape=[8, 8], dtype=pto.f32)
    with pto.section_vector():
        gather_rows(tab, ip, op, idx, rows, "wrap")


@pto.kernel
def wrap_rows(table: pto.ptr(pto.f32), ids: pto.ptr(pto.i32), out: pto.ptr(pto.f32)):
    """A negative id wrapping around 1000 rows: 615 on cpu, 295 on the NPUs."""
    tp, ip, op = whole(table, [1000, 32]), whole(ids, [1, 8]), whole(out, [8, 32])
    idx = pto.alloc_tile(shape=[1, 8], dtype=pto.i32)
    rows = pto.alloc_tile(shape=[8, 32], dtype=pto.f32)
    gather_rows(tp, ip, op, idx, rows, "wrap")


@pto.kernel(target="a2a3")
def column_argmin(x: pto.ptr(pto.f32), idx: pto.ptr(pto.ui32), vmin: pto.ptr(pto.f32), vidx: pto.ptr(pto.i32)):
    """Each column's minimum row of a 30 x 256 matrix, 64 columns at a time, index-only and
    value + index."""
    xv = pto.make_tensor_view(x, shape=[30, 256], strides=[256, 1])
    iv = pto.make_tensor_view(idx, shape=[1, 256], strides=[256, 1])
    mv = pto.make_tensor_view(vmin, shape=[1, 256], strides=[256, 1])
    vv = pto.make_tensor_view(vidx, shape=[1, 256], strides=[256, 1])
    src = pto.alloc_tile(shape=[32, 64], dtype=pto.f32, valid=[pto.constant(30), pto.constant(64)])
    tmp = pto.alloc_tile(shape=[1, 64], dtype=pto.f32, addr=8192)
    it = pto.alloc_tile(shape=[1, 64], dtype=pto.ui32)
    mt = pto.alloc_tile(shape=[1, 64], dtype=pto.f32)
    vt = pto.alloc_tile(shape=[1, 64], dtype=pto.i32)
    with pto.section_vector():
        for j in pto.range(0, 256, 64):
            xp = pto.partition_view(xv, offsets=[0, j], sizes=[30, 64])
            ip = pto.partition_view(iv, offsets=[0, j], sizes=[1, 64])
            mp = pto.partition_view(mv, offsets=[0, j], sizes=[1, 64])
            vp = pto.partition_view(vv, offsets=[0, j], sizes=[1, 64])
            pto.tload(xp, src)
            pto.tcolargmin(src, it, tmp=tmp)
            pto.tcolargmin(src, vt, dst_val=mt, tmp=tmp)
            pto.tstore(it, ip)
            pto.tstore(mt, mp)
            pto.tstore(vt, vp)


TWINS = {
    embedding_lookup: "embedding_lookup.pto",
    embedding_rows: "embedding_rows.pto",
    embedding_wrap: "embedding_wrap.pto",
    wrap_rows: "wrap_negative_index.pto",
    column_argmin: "tcolargmin_modes.pto",
}
"""Each kernel here and the example (in examples/) it is written after."""
