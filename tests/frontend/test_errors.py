# pyright: reportInvalidTypeForm=false
# (a kernel's parameters are annotated with calls, `x: pto.ptr(pto.f16)`: the builder's syntax)
"""
What a kernel author is told, and where: every error of a kernel starts with the `FILE:LINE:COL`
of the user's own call that built the op (then pto-opt's message for that op), here or in
the factory of row_gather.py; `run` checks
each argument against its annotation and names the parameter; it leaves the caller's
arrays alone unless `inplace=True`.
"""

from __future__ import annotations

import numpy as np
import pytest

import pto_frontend as pto
from tests.frontend import row_gather as gathers
from tests.frontend.row_gather import GATHER_LINE, marked_line, row_gather
from tests.pto_tools.cli import run_in_process

HERE = __file__
GATHERS = gathers.__file__

no_coalesce = row_gather("no_coalesce", 64, 32, 8, gather_oob="clamp")


def test_a_structural_error_is_located_at_the_call() -> None:
    with pytest.raises(pto.PtoError) as e:
        no_coalesce.to_pto()
    assert str(e.value) == f"{GATHERS}:{GATHER_LINE}:9: error: 'pto.mgather' op requires attribute 'coalesce'"


i16_ids = row_gather("i16_ids", 64, 32, 16, dtype=pto.f16, id_dtype=pto.i16, coalesce="row")


def test_a_rule_of_the_target_is_located_at_the_call_with_pto_opt_s_message(tmp_path) -> None:
    """cpu reads i16 ids, a2a3 only i32 ones (examples/bad/mgather_a2a3.pto): pto-opt says so of the printed text."""
    text = i16_ids.to_pto(target="cpu")
    (tmp_path / "k.pto").write_text(text)
    code, _, stderr = run_in_process("pto-opt", str(tmp_path / "k.pto"), "--target", "a2a3")
    assert code == 1
    message = stderr.split(": error: ", 1)[1].strip()
    assert message.startswith("'pto.mgather' op expects idx element type to be")
    with pytest.raises(pto.PtoError) as e:
        i16_ids.to_pto(target="a2a3")
    assert str(e.value) == f"{GATHERS}:{GATHER_LINE}:9: error: {message}"
    with pytest.raises(pto.PtoError) as e:
        i16_ids.run_all(np.zeros(2048, np.float16), np.zeros(16, np.int16), np.zeros(512, np.float16))
    assert str(e.value) == f"{GATHERS}:{GATHER_LINE}:9: error: {message}"


undefined_oob = row_gather("undefined_oob", 64, 32, 8, coalesce="row")


@pytest.mark.parametrize("target", pto.TARGETS)
def test_a_run_time_fault_is_located_at_the_call(target: str) -> None:
    ids = np.array([0, 1, 2, 99, 4, 5, 6, 7], np.int32)
    with pytest.raises(pto.PtoError) as e:
        undefined_oob.run(np.zeros(2048, np.float32), ids, np.zeros(256, np.float32), target=target)
    assert str(e.value).startswith(f"{GATHERS}:{GATHER_LINE}:9: error: 'pto.mgather' op ")
    assert "99" in str(e.value)


def test_errors_of_the_scaffolding_are_located_at_the_call() -> None:
    @pto.kernel
    def bad_tile(x: pto.ptr(pto.f32)):
        pto.alloc_tile(shape=[8, 0], dtype=pto.f32)  # empty tile

    @pto.kernel
    def bad_partition(x: pto.ptr(pto.f32)):
        tv = pto.make_tensor_view(x, shape=[8, 8], strides=[8, 1])
        pto.partition_view(tv, offsets=[4, 0], sizes=[8, 8])  # past the end

    @pto.kernel
    def bad_form(x: pto.ptr(pto.f32)):
        t = pto.alloc_tile(shape=[8, 8], dtype=pto.f32)
        pto.tgather(t, t, k_value=1.0)  # half a compare form

    @pto.kernel
    def bad_property(x: pto.ptr(pto.f32)):
        t = pto.alloc_tile(shape=[8, 8], dtype=pto.f32)
        pto.tgather(t, t, mask_pattern="P0110")  # no such pattern

    cases = {
        bad_tile: ("empty tile", "pto.alloc_tile(): tile_buf rows/cols must be positive"),
        bad_partition: ("past the end", "'pto.partition_view' op offset + size at dim 0 (4 + 8) exceeds source dim 8"),
        bad_form: ("half a compare form", "pto.tgather() has no form taking dst, k_value, src; its forms take: src, dst; "
                   "src, indices, dst; src, indices, tmp, dst; src, k_value, tmp, dst, cdst"),
        bad_property: ("no such pattern", "pto.tgather(): mask_pattern='P0110': expected P0101/P1010/P0001/P0010/P0100/P1000/P1111"),
    }
    for kernel, (marker, message) in cases.items():
        with pytest.raises(pto.PtoError) as e:
            kernel.to_pto()
        assert str(e.value).startswith(f"{HERE}:{marked_line(HERE, marker)}:9: error: {message}"), str(e.value)


def test_a_builder_call_outside_a_kernel_says_where_it_belongs() -> None:
    with pytest.raises(pto.PtoError) as e:
        pto.alloc_tile(shape=[8, 8], dtype=pto.f32)  # outside
    assert str(e.value) == f"{HERE}:{marked_line(HERE, 'outside')}:9: error: pto.alloc_tile() builds kernel code: call it inside a @pto.kernel function"


def test_an_argument_without_a_type_is_named() -> None:
    @pto.kernel
    def untyped(x):
        pass

    with pytest.raises(pto.PtoError, match="kernel untyped: argument 'x' needs a type: pto.ptr\\(dtype\\), pto.index"):
        untyped.to_pto()


# -- run: input checking -------------------------------------------------------------------


@pto.kernel
def scaled_copy(x: pto.ptr(pto.f16), y: pto.ptr(pto.f16), n: pto.index):
    xv = pto.make_tensor_view(x, shape=[4, 16], strides=[16, 1])
    yv = pto.make_tensor_view(y, shape=[4, 16], strides=[16, 1])
    t = pto.alloc_tile(shape=[1, 16], dtype=pto.f16)
    for r in pto.range(n):
        pto.tload(pto.partition_view(xv, offsets=[r, 0], sizes=[1, 16]), t)
        pto.tstore(t, pto.partition_view(yv, offsets=[r, 0], sizes=[1, 16]))


X = np.arange(64, dtype=np.float16)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((X, np.zeros(64, np.float16)), "scaled_copy.run() takes 3 arrays (x, y, n), got 2"),
        ((X.astype(np.float32), np.zeros(64, np.float16), 4), "argument 'x' (pto.ptr(pto.f16)): expected dtype float16, got float32"),
        ((X.reshape(16, 4), np.zeros(64, np.float16), 4),
         "argument 'x' (pto.ptr(pto.f16)): expected shape [4, 16] (its tensor view) or a flat array, got [16, 4]"),
        ((X[:60], np.zeros(64, np.float16), 4),
         "argument 'x' (pto.ptr(pto.f16)): expected at least 64 elements (the tensor view of shape [4, 16] and strides [16, 1] at "),
        ((list(X), np.zeros(64, np.float16), 4), "argument 'x' (pto.ptr(pto.f16)): expected a NumPy array (or an object with __array__), got list"),
        ((X, np.zeros(64, np.float16), 2.5), "argument 'n' (pto.index): expected a Python int or a 0-d integer array, got 2.5"),
        ((X, np.zeros(64, np.float16), np.array([4])), "argument 'n' (pto.index): expected a Python int or a 0-d integer array, got array([4])"),
    ],
)
def test_run_names_the_argument_it_refuses(args: tuple, message: str) -> None:
    with pytest.raises(pto.PtoError) as e:
        scaled_copy.run(*args, target="a5")  # run call
    assert str(e.value).startswith(f"{HERE}:{marked_line(HERE, 'run call')}:9: error: ")
    assert message in str(e.value)


class ArrayLike:
    """Not an ndarray: only `__array__`."""

    def __init__(self, data: np.ndarray):
        self.data = data

    def __array__(self, dtype=None, copy=None):
        return self.data


@pytest.mark.parametrize("target", pto.TARGETS)
def test_run_leaves_the_arrays_given_alone(target: str) -> None:
    y = np.full((4, 16), 7, np.float16)
    x, out, n = scaled_copy.run(ArrayLike(X), y, np.int64(3), target=target)
    assert (y == 7).all()
    assert np.array_equal(out, np.concatenate([X[:48], np.full(16, 7, np.float16)]).reshape(4, 16))
    assert out.shape == y.shape and not np.shares_memory(out, y)


@pytest.mark.parametrize("target", pto.TARGETS)
def test_run_inplace_writes_into_the_arrays_given(target: str) -> None:
    y = np.zeros(64, np.float16)
    x = X.copy()
    results = scaled_copy.run(x, y, 4, target=target, inplace=True)
    assert np.array_equal(y, X) and results[1] is y
    assert np.array_equal(x, X)


def test_run_inplace_needs_a_writable_array_for_what_the_kernel_writes() -> None:
    y = np.zeros(64, np.float16)
    y.flags.writeable = False
    with pytest.raises(pto.PtoError, match="argument 'y' is written by the kernel but is not a writable NumPy array"):
        scaled_copy.run(X, y, 4, target="cpu", inplace=True)


def test_argument_types_naming_local_names_under_postponed_annotations() -> None:
    """This module postpones annotations (`from __future__ import annotations`): a kernel's
    argument types are then evaluated among the module's names."""
    dtype = pto.f32

    @pto.kernel
    def local_type(x: pto.ptr(dtype)):
        pass

    with pytest.raises(pto.PtoError, match="kernel local_type: its argument types name 'dtype', which is not a module-level name"):
        local_type.to_pto()
