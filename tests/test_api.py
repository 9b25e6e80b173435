"""The Python API: pto_dialect.load/parse, located errors, types built from Python, interpreter.run."""

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import f16, i32

import interpreter
from pto_dialect import PtoError, load, parse
from pto_dialect.instructions.mgather import MGatherOp
from pto_dialect.types import TileBufType
from tests.kernel_text import copy_kernel

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_load_returns_verified_module(tmp_path):
    path = tmp_path / "k.pto"
    path.write_text(
        "func.func @k(%t: !pto.partition_tensor_view<64x32xf16>, %i: !pto.tile_buf<vec, 1x8xi32>,"
        " %d: !pto.tile_buf<vec, 8x32xf16>) {\n"
        "  pto.mgather ins(%t, %i : !pto.partition_tensor_view<64x32xf16>, !pto.tile_buf<vec, 1x8xi32>)"
        " outs(%d : !pto.tile_buf<vec, 8x32xf16>) {coalesce = #pto<coalesce row>}\n"
        "  return\n}\n"
    )
    module = load(path)
    (op,) = [o for o in module.walk() if isinstance(o, MGatherOp)]
    assert op.is_dps and op.coalesce is not None and op.coalesce.data == "row"


def test_verify_error_is_located():
    text = (
        "func.func @k(%t: !pto.partition_tensor_view<64x32xf16>, %i: !pto.tile_buf<vec, 1x8xi32>,"
        " %d: !pto.tile_buf<vec, 8x32xf16>) {\n"
        "  pto.mgather ins(%t, %i : !pto.partition_tensor_view<64x32xf16>, !pto.tile_buf<vec, 1x8xi32>)"
        " outs(%d : !pto.tile_buf<vec, 8x32xf16>)\n"
        "  return\n}\n"
    )
    with pytest.raises(PtoError) as err:
        parse(text, "k.pto")
    assert str(err.value) == "k.pto:2:3: error: 'pto.mgather' op requires attribute 'coalesce'"


def test_parse_error_is_located():
    with pytest.raises(PtoError) as err:
        parse("func.func @k(%t: !pto.tile_buf<vec, 8x0xf16>) {\n  return\n}\n", "k.pto")
    assert str(err.value).startswith("k.pto:1:31: error: tile_buf rows/cols must be positive")


def test_tile_type_from_python():
    t = TileBufType.get("vec", (8, 64), f16, valid=(8, 50), pad=1)
    assert t.shape == (8, 64) and t.valid_shape == (8, 50) and t.size_bytes == 8 * 64 * 2
    assert str(t) == "!pto.tile_buf<vec, 8x64xf16, valid=8x50, pad=1>"
    assert TileBufType.get("vec", (1, 8), i32).is_nd


def test_run_leaves_module_and_inputs_alone():
    """interpreter.run copies what the kernel may write and returns what it only reads
    (the table, the ids) as read-only views of the inputs; a second run of the same
    module gives the same result."""
    module = load(EXAMPLES / "embedding_rows.pto")
    printed = str(module)
    rng = np.random.default_rng(1)
    table = rng.standard_normal(1024 * 64).astype(np.float16)
    ids = np.array([5, 1023, 2000, -1, 0, 7, 7, 512], np.int32)
    out = np.full(8 * 64, 3, np.float16)
    inputs = [a.copy() for a in (table, ids, out)]

    first = interpreter.run(module, "a2a3", [table, ids, out])
    second = interpreter.run(module, "a2a3", [table, ids, out])

    assert str(module) == printed
    for given, before in zip((table, ids, out), inputs):
        assert np.array_equal(given, before)
    rows = np.where(ids < 0, 1023, np.minimum(ids, 1023))  # clamp reads ids as unsigned
    assert np.array_equal(first[2], table.reshape(1024, 64)[rows].reshape(-1))
    assert np.array_equal(second[2], first[2])
    assert not np.shares_memory(first[2], out) and first[2].flags.writeable
    for result, given in ((first[0], table), (first[1], ids)):
        assert np.shares_memory(result, given) and not result.flags.writeable


def test_run_inplace_writes_the_given_arrays():
    """run(inplace=True) writes what the kernel writes into the arrays given (no copy) and
    returns them; the results are those of a run with copies; an argument it would write that
    is not a writeable C-contiguous array is refused before anything runs."""
    module = load(EXAMPLES / "embedding_rows.pto")
    rng = np.random.default_rng(1)
    table = rng.standard_normal(1024 * 64).astype(np.float16)
    ids = np.array([5, 1023, 2000, -1, 0, 7, 7, 512], np.int32)
    copied = interpreter.run(module, "a2a3", [table, ids, np.full(8 * 64, 3, np.float16)])

    out = np.full(8 * 64, 3, np.float16)
    written = interpreter.run(module, "a2a3", [table, ids, out], inplace=True)
    assert written[2] is out and np.array_equal(out, copied[2])
    assert np.shares_memory(written[0], table) and not written[0].flags.writeable

    strided = np.zeros(2 * 8 * 64, np.float16)[::2]
    read_only = np.zeros(8 * 64, np.float16)
    read_only.flags.writeable = False
    for bad, what in ((strided, "an array that is not C-contiguous"), (read_only, "a read-only array")):
        with pytest.raises(PtoError, match=f"argument 2 \\(%out\\) is written by the kernel.*got {what}"):
            interpreter.run(module, "a2a3", [table, ids, bad], inplace=True)
    assert not strided.any()
    from_list = interpreter.run(module, "a2a3", [table, ids, list(np.full(8 * 64, 3, np.float16))])  # run's own array: written as it is
    assert np.array_equal(from_list[2], copied[2])


def test_run_target_defaults_to_the_module_target():
    """examples/ssa/tgather_index.pto says pto.target_arch = "a5": run without a target
    runs it for a5; a2a3 rejects it (index-form tgather there needs a tmp)."""
    module = load(EXAMPLES / "ssa" / "tgather_index.pto")
    rng = np.random.default_rng(2)
    x = rng.standard_normal(32 * 64).astype(np.float32)
    perm = rng.integers(0, 1024, 16 * 64).astype(np.int32)
    y = np.zeros(32 * 64, np.float32)
    out = interpreter.run(module, args=[x, perm, y])
    blocks = x.reshape(2, 16 * 64)
    assert np.array_equal(out[2], blocks[:, perm].reshape(-1))
    with pytest.raises(PtoError, match="index-form tgather expects both indices and tmp"):
        interpreter.run(module, "a2a3", [x, perm, y])


def test_run_takes_bf16_as_np_save_leaves_it(tmp_path):
    """np.save / np.load turn an ml_dtypes array into raw void data (|V2 for bf16); run views
    such an argument as the declared element type."""
    import ml_dtypes

    text = copy_kernel("bf16", 16, name="k", src="x", dst="y")
    x = (np.arange(16) / 8).astype(ml_dtypes.bfloat16)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", np.zeros(16, ml_dtypes.bfloat16))
    loaded = [np.load(tmp_path / "x.npy"), np.load(tmp_path / "y.npy")]
    assert loaded[0].dtype.kind == "V"
    out = interpreter.run(parse(text, "k.pto"), "a5", loaded)
    assert out[1].dtype == ml_dtypes.bfloat16 and np.array_equal(out[1], x)


SCALAR_ARGS = """func.func @k(%n: index, %k: f32, %t: !pto.tile_buf<vec, 8x16xf32, valid=?x?>) {
  return
}
"""


@pytest.mark.parametrize(
    ("n", "k", "message"),
    [
        (np.array(1.5), np.array(1.0, np.float32), "argument 0 (%n: index): expected an integer scalar, got dtype float64"),
        (np.array(True), np.array(1.0, np.float32), "argument 0 (%n: index): expected an integer scalar, got dtype bool"),
        (np.array(2), np.array("x"), "argument 1 (%k: f32): expected a f32 scalar, got dtype <U1"),
        (np.array([2]), np.array(1.0, np.float32), "argument 0 (%n: index): expected a scalar (a 0-d array), got an array of shape [1]"),
    ],
)
def test_run_checks_scalar_arguments(n, k, message):
    with pytest.raises(PtoError) as e:
        interpreter.run(parse(SCALAR_ARGS, "k.pto"), "a5", [n, k, np.zeros((8, 16), np.float32)])
    assert str(e.value) == f"k.pto:1:1: error: 'func.func' op {message}"


def test_run_binds_a_tile_argument_with_dynamic_valid_shape_whole():
    tile = np.arange(128, dtype=np.float32).reshape(8, 16)
    out = interpreter.run(parse(SCALAR_ARGS, "k.pto"), "cpu", [np.array(3), np.array(0.5, np.float32), tile])
    assert np.array_equal(out[2], tile)


TWO_PUBLIC = """func.func @a() {
  return
}
func.func @b() {
  return
}
func.func private @ext()
"""


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (None, "k.pto:1:1: error: 'builtin.module' op expected exactly one public function to run (found: a, b); use --entry"),
        ("c", "k.pto:1:1: error: 'builtin.module' op no function named 'c' in the module"),
        ("ext", "k.pto:7:1: error: 'func.func' op @ext is a declaration: it has no body to run"),
    ],
)
def test_run_entry_errors_are_located(entry, message):
    with pytest.raises(PtoError) as e:
        interpreter.run(parse(TWO_PUBLIC, "k.pto"), "a2a3", [], entry=entry)
    assert str(e.value) == message


def test_run_call_to_a_declaration_is_located():
    text = """func.func private @ext(index)
func.func @k(%n: index) {
  func.call @ext(%n) : (index) -> ()
  return
}
"""
    with pytest.raises(PtoError) as e:
        interpreter.run(parse(text, "k.pto"), "a5", [np.array(1)])
    assert str(e.value).startswith("k.pto:3:3: error: 'func.call' op Could not find external function implementation named ext")


@pytest.mark.parametrize(
    ("arg_type", "value"),
    [("i1", np.array(True)), ("i1", np.array(1)), ("f64", np.array(1.5)), ("i32", np.array(2**32 - 1)), ("index", np.array(-3))],
)
def test_run_accepts_scalars_of_their_kind(arg_type, value):
    text = f"func.func @k(%s: {arg_type}) {{\n  return\n}}\n"
    (out,) = interpreter.run(parse(text, "k.pto"), "a5", [value])
    assert out == value


def test_run_takes_a_np_saved_bf16_scalar(tmp_path):
    import ml_dtypes

    np.save(tmp_path / "k.npy", np.array(1.5, ml_dtypes.bfloat16))
    text = "func.func @k(%s: bf16) {\n  return\n}\n"
    (out,) = interpreter.run(parse(text, "k.pto"), "a5", [np.load(tmp_path / "k.npy")])
    assert out.dtype == ml_dtypes.bfloat16 and float(out) == 1.5
