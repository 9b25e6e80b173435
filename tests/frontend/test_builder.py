# pyright: reportInvalidTypeForm=false
# (a kernel's parameters are annotated with calls, `x: pto.ptr(pto.f16)`: the builder's syntax)
"""
The builder's scaffolding and values (pto_frontend/values.py, scaffolding.py, kernel.py): index
arithmetic builds arith ops with Python's results, loops and sections build scf.for and
pto.section.vector, tiles take runtime valid dims, values print under the user's names,
and a kernel is run, run on every target, compared, and printed for its own target.
"""

from __future__ import annotations

import numpy as np
import pytest

import interpreter
import pto_frontend as pto
from pto_dialect import parse
from tests.interpreter.harness import TARGETS, assert_bits_equal

ROWS, COLS = 16, 8


@pto.kernel
def pick_row(x: pto.ptr(pto.i32), y: pto.ptr(pto.i32), a: pto.index, b: pto.index):
    """y[0] = x[((3 * a + b) // 2 - a % 4 + 10 - b) % 16]: every operator, with index values
    on either side."""
    xv = pto.make_tensor_view(x, shape=[ROWS, COLS], strides=[COLS, 1])
    yv = pto.make_tensor_view(y, shape=[1, COLS], strides=[COLS, 1])
    row = ((3 * a + b) // 2 - a % 4 + 10 - b) % ROWS
    t = pto.alloc_tile(shape=[1, COLS], dtype=pto.i32)
    pto.tload(pto.partition_view(xv, offsets=[row, 0], sizes=[1, COLS]), t)
    pto.tstore(t, pto.partition_view(yv, offsets=[0, 0], sizes=[1, COLS]))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("a", "b"), [(0, 0), (5, 3), (7, 12), (13, 1)])
def test_index_arithmetic_computes_as_python_does(target: str, a: int, b: int) -> None:
    x = np.arange(ROWS * COLS, dtype=np.int32).reshape(ROWS, COLS)
    row = ((3 * a + b) // 2 - a % 4 + 10 - b) % ROWS
    _, y, _, _ = pick_row.run(x, np.zeros(COLS, np.int32), a, b, target=target)
    assert_bits_equal(y, x[row])


def test_each_operator_is_one_arith_op() -> None:
    text = pick_row.to_pto()
    ops = [line.split(" = ")[1].split(" ")[0] for line in text.splitlines() if " = arith." in line and "constant" not in line]
    assert ops == ["arith.muli", "arith.addi", "arith.floordivsi", "arith.remsi", "arith.subi", "arith.addi", "arith.subi", "arith.remsi"]


@pto.kernel(target="a5")
def tiles_of_rows(x: pto.ptr(pto.f32), y: pto.ptr(pto.f32), n: pto.index):
    """Rows 2k and 2k+1 of x, for k < 4, into y, through a tile whose valid rows are n."""
    xv = pto.make_tensor_view(x, shape=[8, COLS], strides=[COLS, 1])
    yv = pto.make_tensor_view(y, shape=[8, COLS], strides=[COLS, 1])
    t = pto.alloc_tile(shape=[2, COLS], dtype=pto.f32, valid=[n, COLS])
    with pto.section_vector():
        for k in pto.range(0, 8, 2):
            pto.tload(pto.partition_view(xv, offsets=[k, 0], sizes=[n, COLS]), t)
            pto.tstore(t, pto.partition_view(yv, offsets=[k, 0], sizes=[n, COLS]))


def test_loops_sections_and_runtime_valid_dims() -> None:
    text = tiles_of_rows.to_pto()
    assert text.splitlines()[0] == 'builtin.module attributes {pto.target_arch = "a5"} {'
    assert "%t = pto.alloc_tile valid_row = %n : !pto.tile_buf<vec, 2x8xf32, valid=?x8>" in text
    assert "pto.section.vector {" in text
    assert "scf.for %k = %c0 to %c8 step %c2 {" in text
    x = np.arange(64, dtype=np.float32)
    for n, rows in ((2, range(8)), (1, range(0, 8, 2))):
        _, y, _ = tiles_of_rows.run(x, np.zeros(64, np.float32), n)
        expected = np.zeros((8, COLS), np.float32)
        expected[list(rows)] = x.reshape(8, COLS)[list(rows)]
        assert_bits_equal(y.reshape(8, COLS), expected)


def test_the_text_is_what_pto_opt_reads_and_runs_the_same() -> None:
    x = np.arange(64, dtype=np.float32)
    args = [x, np.zeros(64, np.float32), np.int64(2)]
    by_text = interpreter.run(parse(tiles_of_rows.to_pto(), "k.pto"), None, args)
    for got, want in zip(tiles_of_rows.run(*args), by_text, strict=True):
        assert_bits_equal(got, want)


def test_run_all_and_compare_cover_every_target() -> None:
    x = np.arange(64, dtype=np.float32)
    per = tiles_of_rows.run_all(x, np.zeros(64, np.float32), 2)
    assert list(per) == list(TARGETS)
    report = tiles_of_rows.compare(x, np.zeros(64, np.float32), 2)
    assert report.agree and list(report.verdicts) == list(TARGETS)
    assert pto.compare(tiles_of_rows, args=[x, np.zeros(64, np.float32), 2]).agree
    assert_bits_equal(pto.run(tiles_of_rows, "cpu", [x, np.zeros(64, np.float32), 2])[1], per["cpu"][1])


def test_compare_of_a_kernel_profiles_when_asked_and_run_names_an_option_it_does_not_take() -> None:
    args = [np.arange(64, dtype=np.float32), np.zeros(64, np.float32), 2]
    for report in (tiles_of_rows.compare(*args, targets="cpu,a5", profile=True), pto.compare(tiles_of_rows, "cpu,a5", args, profile=True)):
        assert list(report.profiles) == ["cpu", "a5"]
        assert all(p.what == "profile" and [(row.op, row.count) for row in p.ops] == [("pto.tload", 4), ("pto.tstore", 4)] for p in report.profiles.values())
    assert tiles_of_rows.compare(*args, targets="cpu").profiles == {}
    with pytest.raises(pto.PtoError, match=r"test_builder.py:\d+:\d+: error: pto.run\(\) of a kernel takes no option 'entry' \(a kernel's: inplace\)"):
        pto.run(tiles_of_rows, "cpu", args, entry="tiles_of_rows")
    with pytest.raises(pto.PtoError, match=r"error: pto.compare\(\) of a kernel takes no option 'entry' \(a kernel's: profile\)"):
        pto.compare(tiles_of_rows, "cpu", args, entry="tiles_of_rows")


def test_the_python_api_of_pto_files_is_re_exported() -> None:
    from pathlib import Path

    example = Path(__file__).resolve().parents[2] / "examples" / "embedding_lookup.pto"
    module = pto.load(example)
    table = (np.arange(1024 * 64) % 2048).astype(np.float16)
    ids = np.arange(32, dtype=np.int32) * 31
    out = pto.run(module, "a5", [table, ids, np.zeros(32 * 64, np.float16)])
    assert_bits_equal(out[2].reshape(32, 64), table.reshape(1024, 64)[ids])
    assert pto.compare(example, "cpu,a5", [table, ids, np.zeros(32 * 64, np.float16)]).agree


def test_a_value_has_no_python_truth_value() -> None:
    @pto.kernel
    def branches(n: pto.index):
        if n:  # truth
            pass

    with pytest.raises(pto.PtoError, match=r"test_builder.py:\d+:\d+: error: <Scalar %n : index> has no truth value while the kernel is built"):
        branches.to_pto()


def test_every_element_type_and_the_scalar_types_are_there() -> None:
    from pto_dialect.dtypes import ELEMENT_TYPES

    for info in ELEMENT_TYPES.values():
        assert repr(getattr(pto, info.mlir.removeprefix("!pto."))) == f"pto.{info.mlir.removeprefix('!pto.')}"
    assert repr(pto.ptr(pto.bf16)) == "pto.ptr(pto.bf16)" and repr(pto.index) == "pto.index"

    @pto.kernel
    def scalars(i: pto.index, k: pto.i32, x: pto.f32):
        pass

    assert "func.func @scalars(%i : index, %k : i32, %x : f32)".replace(" :", ":") in scalars.to_pto()


def _store(tile: pto.Value, view: pto.Value) -> None:
    pto.tstore(tile, view)


@pto.kernel
def stored_through_a_helper(x: pto.ptr(pto.f32)):
    t = pto.alloc_tile(shape=[1, 8], dtype=pto.f32)
    window = pto.partition_view(pto.make_tensor_view(x, shape=[1, 8], strides=[8, 1]), offsets=[0, 0], sizes=[1, 8])
    _store(t, window)


def test_values_take_the_kernel_s_names_before_a_helper_s() -> None:
    text = stored_through_a_helper.to_pto()
    assert "pto.tstore ins(%t : !pto.tile_buf<vec, 1x8xf32>) outs(%window : !pto.partition_tensor_view<1x8xf32>)" in text
