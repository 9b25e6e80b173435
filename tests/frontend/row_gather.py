# pyright: reportInvalidTypeForm=false
# (a kernel's parameters are annotated with calls, `x: pto.ptr(pto.f16)`: the builder's syntax)
"""A row-gather kernel for the frontend's tests, built by a factory: its MGATHER's call is the
line marked `# the gather` (where its errors are located)."""

import pto_frontend as pto


def row_gather(name: str, rows: int, cols: int, ids: int, dtype=pto.f32, id_dtype=pto.i32, **mgather: str) -> pto.Kernel:
    """Load `ids` ids of type `id_dtype`, gather their rows of a rows x cols table, store them."""

    def kernel(table: pto.ptr(dtype), id_list: pto.ptr(id_dtype), out: pto.ptr(dtype)):
        tp = pto.partition_view(pto.make_tensor_view(table, shape=[rows, cols], strides=[cols, 1]), offsets=[0, 0], sizes=[rows, cols])
        ip = pto.partition_view(pto.make_tensor_view(id_list, shape=[1, ids], strides=[ids, 1]), offsets=[0, 0], sizes=[1, ids])
        op = pto.partition_view(pto.make_tensor_view(out, shape=[ids, cols], strides=[cols, 1]), offsets=[0, 0], sizes=[ids, cols])
        idx = pto.alloc_tile(shape=[1, ids], dtype=id_dtype)
        gathered = pto.alloc_tile(shape=[ids, cols], dtype=dtype)
        pto.tload(ip, idx)
        pto.mgather(tp, idx, gathered, **mgather)  # the gather
        pto.tstore(gathered, op)

    return pto.kernel(kernel, name=name)


def marked_line(path: str, marker: str) -> int:
    """The line of the file `path` that ends with the comment `# marker` (exactly one does)."""
    with open(path) as f:
        (found,) = [i for i, line in enumerate(f, 1) if line.rstrip().endswith(f"# {marker}")]
    return found


GATHER_LINE = marked_line(__file__, "the gather")
