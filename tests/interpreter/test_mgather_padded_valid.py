"""
An elem-coalesce MGATHER whose index tile's valid shape (16x1 of a 16x8 tile) is not the
dst's (16x32), the valid dims set when the kernel runs (PTOAS's
mgather_padded_valid_shape_coalesce_sync): pto-isa's code would read index elements past the
index tile (docs/verification.md), so the run refuses it with the rule's own message.
"""

from __future__ import annotations

import numpy as np
import pytest

from pto_dialect import PtoError
from tests.interpreter.harness import TARGETS, func, run, view

IDX = "!pto.tile_buf<vec, 16x8xi32, valid=?x?>"
DST = "!pto.tile_buf<vec, 16x32xf32, valid=?x?>"
KERNEL = func(
    [("m", view((16, 32), "f32"))],
    f"""
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %i = pto.alloc_tile valid_row = %c16 valid_col = %c1 : {IDX}
    %d = pto.alloc_tile valid_row = %c16 valid_col = %c32 : {DST}
    pto.mgather ins(%m, %i : {view((16, 32), "f32")}, {IDX}) outs(%d : {DST}) {{coalesce = #pto<coalesce elem>}}
    """,
)


@pytest.mark.parametrize("target", TARGETS)
def test_the_run_refuses_valid_shapes_that_differ(target: str) -> None:
    with pytest.raises(PtoError) as e:
        run(KERNEL, target, [np.zeros((16, 32), np.float32)])
    assert str(e.value).endswith(
        f"error: 'pto.mgather' op expects elem-coalesce idx valid cols to equal dst valid cols, got 1 and 32 (target {target}, run-time shapes)"
    ), str(e.value)
