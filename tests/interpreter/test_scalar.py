"""pto.load_scalar / pto.store_scalar on every target: element reads and writes through a GM
pointer (pto_dialect/ops/scalar.py), against NumPy indexing; offsets outside the argument's
array are located run-time faults; the DeepSeek-style embedding example."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import interpreter
from pto_dialect.diagnostics import PtoError
from tests.interpreter.harness import NP, TARGETS
from tests.kernel_text import kernel_file

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _permute(dtype: str, n: int) -> str:
    """dst[i] = src[ids[i]] for i < n, element by element."""
    return f"""
func.func @permute(%src: !pto.ptr<{dtype}>, %ids: !pto.ptr<i32>, %dst: !pto.ptr<{dtype}>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant {n} : index
  scf.for %i = %c0 to %n step %c1 {{
    %id = pto.load_scalar %ids[%i] : !pto.ptr<i32> -> i32
    %k = arith.index_cast %id : i32 to index
    %v = pto.load_scalar %src[%k] : !pto.ptr<{dtype}> -> {dtype}
    pto.store_scalar %v, %dst[%i] : !pto.ptr<{dtype}>, {dtype}
  }}
  return
}}
"""


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16", "i8", "ui32", "f8E5M2"])
def test_scalar_reads_and_writes_move_elements_exactly(tmp_path, target, dtype):
    rng = np.random.default_rng(3)
    src = rng.integers(-60, 60, 40).astype(np.float32).astype(NP[dtype])
    ids = rng.integers(0, 40, 16).astype(np.int32)
    dst = np.zeros(20, NP[dtype])
    out = interpreter.run(kernel_file(tmp_path, _permute(dtype, 16)), target, [src, ids, dst])
    expected = dst.copy()
    expected[:16] = src[ids]
    np.testing.assert_array_equal(out[2], expected, strict=True)
    assert not out[0].flags.writeable  # only read: returned as a view of the input


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("bad_id, what", [(40, "reads outside %src, whose array holds 40"), (-1, "reads outside %src")])
def test_an_offset_outside_the_array_is_a_located_fault(tmp_path, target, bad_id, what):
    path = kernel_file(tmp_path, _permute("f32", 4))
    ids = np.array([0, 1, bad_id, 2], np.int32)
    with pytest.raises(PtoError, match=rf"kernel.pto:9:5: error: 'pto.load_scalar' op offset {bad_id} {what}"):
        interpreter.run(path, target, [np.zeros(40, np.float32), ids, np.zeros(4, np.float32)])


@pytest.mark.parametrize("target", TARGETS)
def test_a_store_outside_the_array_is_a_located_fault(tmp_path, target):
    path = kernel_file(tmp_path, _permute("f32", 4))
    with pytest.raises(PtoError, match=r"kernel.pto:10:5: error: 'pto.store_scalar' op offset 3 writes outside %dst, whose array holds 3 elements"):
        interpreter.run(path, target, [np.zeros(8, np.float32), np.zeros(4, np.int32), np.zeros(3, np.float32)])


def test_random_inputs_need_a_view_or_fixed_offsets_to_size_a_pointer(tmp_path):
    # %ids and %dst are read and written at the loop's offsets; %src at offsets read from %ids
    with pytest.raises(PtoError, match=r"kernel.pto:9:5: error: 'pto.load_scalar' op cannot size %src for random inputs: no "
                       r"pto.make_tensor_view of it, and this use does not tell how far it reaches; give arrays instead"):
        interpreter.draw_inputs(kernel_file(tmp_path, _permute("f32", 16)), "random:5")


@pytest.mark.parametrize("target", TARGETS)
def test_embedding_example_gathers_the_clamped_rows(target):
    rng = np.random.default_rng(7)
    table = rng.standard_normal((1024, 128)).astype(NP["bf16"])
    ids = rng.integers(-50, 1100, 48).astype(np.int32)  # some outside the table: clamped
    out = np.zeros((48, 128), NP["bf16"])
    final = interpreter.run(str(EXAMPLES / "embedding_scalar_ids.pto"), target, [table.reshape(-1), ids, out.reshape(-1), np.array(48)])
    np.testing.assert_array_equal(final[2].reshape(48, 128), table[np.clip(ids, 0, 1023)], strict=True)


def test_embedding_example_draws_ids_inside_the_table():
    table, ids, out, tokens = interpreter.draw_inputs(str(EXAMPLES / "embedding_scalar_ids.pto"), "random:2", scalars={"tokens": 300})
    assert (table.shape, ids.shape, out.shape, int(tokens)) == ((1024 * 128,), (300,), (300 * 128,), 300)
    assert ids.min() >= 0 and ids.max() < 1024 and ids.max() > 900  # the clamps' range: the whole table


def test_stores_are_recorded_for_the_preview(tmp_path):
    stored = interpreter.GmWrites()
    arrays = [np.arange(40, dtype=np.float32), np.arange(16, dtype=np.int32), np.zeros(20, np.float32)]
    interpreter.run_with_results(kernel_file(tmp_path, _permute("f32", 16)), "a5", arrays, gm_writes=stored)
    np.testing.assert_array_equal(stored.per_argument[2], np.arange(20) < 16)
    assert stored.per_argument[0] is not None and not stored.per_argument[0].any()


def test_an_argument_the_kernel_never_uses_is_drawn_empty(tmp_path):
    text = _permute("f32", 4).replace("%dst: !pto.ptr<f32>)", "%dst: !pto.ptr<f32>, %spare: !pto.ptr<i64>)")
    text = text.replace("  scf.for", "  %sv = pto.make_tensor_view %src, shape = [%n], strides = [%c1] : !pto.tensor_view<?xf32>\n"
                        "  %dv = pto.make_tensor_view %dst, shape = [%n], strides = [%c1] : !pto.tensor_view<?xf32>\n"
                        "  %iv = pto.make_tensor_view %ids, shape = [%n], strides = [%c1] : !pto.tensor_view<?xi32>\n  scf.for")
    src, ids, dst, spare = interpreter.draw_inputs(kernel_file(tmp_path, text), "random:5")
    assert (src.size, ids.size, dst.size, spare.shape, spare.dtype) == (4, 4, 4, (0,), np.int64)
