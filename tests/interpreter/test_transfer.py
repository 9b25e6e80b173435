"""
TLOAD / TSTORE shape rules at run time (pto_dialect/instructions/transfer.py, checked again by
interpreter/pto.py on the actual valid shapes): a dynamic valid row count that
does not match the view is a located fault naming the shapes; a matching one loads
and stores the window (out = x).
"""

from __future__ import annotations

import numpy as np
import pytest

from pto_dialect import PtoError
from tests.interpreter.harness import TARGETS, assert_bits_equal, constants, func, run, tile, view

COVERS = ('pto.tload', 'pto.tstore')
"""The instructions whose results these tests check against their own formulas, per target
(tests/test_registry.py: every instruction is covered on every target)."""

T = tile((8, 8), "f32", valid=("?", "?"))
V = view((8, 8), "f32")
KERNEL = func(
    [("x", "!pto.ptr<f32>"), ("o", "!pto.ptr<f32>"), ("r", "index")],
    constants(0, 1, 8)
    + f"""
%xv = pto.make_tensor_view %x, shape = [%c8, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
%ov = pto.make_tensor_view %o, shape = [%c8, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
%xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c8, %c8] : !pto.tensor_view<?x?xf32>
%op = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [%c8, %c8] : !pto.tensor_view<?x?xf32>
%t = pto.alloc_tile valid_row = %r valid_col = %c8 : {T}
pto.tload ins(%xp : {V}) outs(%t : {T})
pto.tstore ins(%t : {T}) outs(%op : {V})
""",
)
TLOAD_LINE = 10  # k.pto line of the pto.tload


@pytest.mark.parametrize("target", TARGETS)
def test_matching_dynamic_shape_loads_and_stores(target: str) -> None:
    x = np.arange(64, dtype=np.float32).reshape(8, 8)
    out = run(KERNEL, target, [x, np.zeros((8, 8), np.float32), np.int64(8)])[1]
    assert_bits_equal(out, x)


@pytest.mark.parametrize("target", TARGETS)
def test_dynamic_valid_rows_below_the_view_are_a_located_fault(target: str) -> None:
    x = np.arange(64, dtype=np.float32).reshape(8, 8)
    with pytest.raises(PtoError) as err:
        run(KERNEL, target, [x, np.zeros((8, 8), np.float32), np.int64(4)])
    assert str(err.value).startswith(f"k.pto:{TLOAD_LINE}:3: error: 'pto.tload' op tload expects the src view "
                                     f"(nd shape [8, 8]: 8 rows x 8 cols) to equal the dst valid shape 4x8 on target {target}")
