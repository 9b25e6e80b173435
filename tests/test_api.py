"""The Python API: pto_dialect.load/parse, located errors, types built from Python, interpreter.run."""

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import f16, i32

import interpreter
from pto_dialect import PtoError, load, parse
from pto_dialect.ops import MGatherOp
from pto_dialect.types import TileBufType

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
