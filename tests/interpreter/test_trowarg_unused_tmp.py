"""
A tmp the target's TROWARGMIN/TROWARGMAX code ignores takes no memory at the op (issue 30,
PTOAS issue 558): a 2 x 16384 f32 src and a tmp as large fit a5's UB together, since only
src is live there; a2a3 uses its tmp, so there the two overflow.
"""

from __future__ import annotations

import numpy as np
import pytest

from pto_dialect import PtoError
from tests.interpreter.harness import constants, func, gm_views, run, tile, view

ROWS, COLS, VALID = 2, 16384, 16381
SRC = tile((ROWS, COLS), "f32", valid=(ROWS, VALID))
DST = tile((ROWS, 8), "ui32", valid=(ROWS, 1))


def kernel(op: str) -> str:
    return func(
        [("x", "!pto.ptr<f32>"), ("y", "!pto.ptr<ui32>")],
        f"""
        {constants(0, 1, ROWS, COLS, VALID)}
        {gm_views([("x", "f32", (ROWS, COLS)), ("y", "ui32", (ROWS, 1))])}
        %xs = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c{ROWS}, %c{VALID}] : !pto.tensor_view<?x?xf32>
        %src = pto.alloc_tile : {SRC}
        %tmp = pto.alloc_tile : {SRC}
        %dst = pto.alloc_tile : {DST}
        pto.tload ins(%xs : {view((ROWS, VALID), "f32")}) outs(%src : {SRC})
        pto.{op} ins(%src, %tmp : {SRC}, {SRC}) outs(%dst : {DST})
        pto.tstore ins(%dst : {DST}) outs(%yp : {view((ROWS, 1), "ui32")})
        """,
    )


@pytest.mark.parametrize(("op", "reduce"), [("trowargmax", np.argmax), ("trowargmin", np.argmin)])
def test_an_ignored_tmp_fits_beside_src_on_a5(op, reduce) -> None:
    x = np.random.default_rng(558).permutation(ROWS * COLS).astype(np.float32)
    out = run(kernel(op), "a5", [x, np.zeros(ROWS, np.uint32)])[1]
    assert list(out) == list(reduce(x.reshape(ROWS, COLS)[:, :VALID], axis=1))


def test_a_used_tmp_still_takes_its_place_on_a2a3() -> None:
    with pytest.raises(PtoError, match="UB overflow"):
        run(kernel("trowargmax"), "a2a3", [np.zeros(ROWS * COLS, np.float32), np.zeros(ROWS, np.uint32)])
