"""The builder's side of tests/interpreter/harness.py's `gm_views`, for the frontend's tests."""

import pto_frontend as pto


def whole_views(args: list[tuple[pto.Value, tuple[int, int]]]) -> list[pto.Value]:
    """For each (pointer argument, (rows, cols)): its row-major rows x cols tensor view's
    partition of all of it."""
    parts = []
    for arg, (rows, cols) in args:
        tv = pto.make_tensor_view(arg, shape=[rows, cols], strides=[cols, 1])
        parts.append(pto.partition_view(tv, offsets=[0, 0], sizes=[rows, cols]))
    return parts
