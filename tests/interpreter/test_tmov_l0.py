"""
TMOV mat -> left / right (the cube operand loads, npu/a5/TMov.hpp TMovToLeft / TMovToRight) against
pto-isa docs/isa/TMOV.md's dst[i, j] = src[i, j], written here as the logical arrays each tile holds:
the whole tile (TExtractToA / TExtractToB load Rows x Cols of fractals, past the valid region too),
through each tile's own fractal layout (an NZ or ZN mat tile, a transposing load too). cpu and a2a3 refuse them
(not implemented here); a5 only.
"""

from __future__ import annotations

import numpy as np
import pytest

from pto_dialect import PtoError
from tests.interpreter.harness import TARGETS, assert_bits_equal, constants, filled, func, gm_views, random_values, run, seed, tile

COVERS = ("pto.tmov",)

NZ = "blayout=col_major, slayout=row_major"
ZN = "slayout=col_major"


def cube_tile(loc: str, shape: tuple[int, int], dtype: str, layout: str, valid: tuple[int, int] | None = None) -> str:
    """A boxed tile of `layout` (NZ or ZN) at `loc`."""
    return tile(shape, dtype, loc=loc, valid=valid).removesuffix(">") + f", {layout}>"


def move_text(src_t: str, dst_t: str) -> str:
    return func([("s", src_t), ("d", dst_t)], f"pto.tmov ins(%s : {src_t}) outs(%d : {dst_t})")


@pytest.mark.parametrize(
    ("dst_loc", "shape", "dtype", "src_layout", "dst_layout"),
    [
        ("left", (32, 32), "f16", NZ, NZ),
        ("left", (32, 64), "f32", ZN, NZ),  # the transposing load
        ("left", (48, 64), "i8", NZ, NZ),
        ("right", (64, 32), "bf16", ZN, ZN),
        ("right", (32, 64), "f16", NZ, ZN),  # the transposing load
    ],
)
def test_the_whole_tile_moves_logically(dst_loc: str, shape, dtype: str, src_layout, dst_layout) -> None:
    rng = np.random.default_rng(seed(dst_loc, shape, dtype))
    x = random_values(rng, dtype, shape)
    src_t = cube_tile("mat", shape, dtype, src_layout, valid=(shape[0] - 3, shape[1] - 5))
    dst_t = cube_tile(dst_loc, shape, dtype, dst_layout, valid=(shape[0] - 3, shape[1] - 5))
    out = run(move_text(src_t, dst_t), "a5", [x, filled(shape, dtype)])[1]
    assert_bits_equal(out, x)


def test_after_an_mgather_into_mat_as_ptoas_kernels_do() -> None:
    """PTOAS's mgather_gm2l1_sync_a5.pto with a5's NZ left tile: rows of a GM table gathered into an
    NZ mat tile, then loaded into L0A."""
    mat_t, left_t = cube_tile("mat", (32, 32), "f16", NZ), cube_tile("left", (32, 32), "f16", NZ)
    text = func([("t", "!pto.ptr<f16>"), ("i", "!pto.ptr<i32>"), ("d", left_t)], constants(0, 1, 32, 64) + f"""
{gm_views([("t", "f16", (64, 32)), ("i", "i32", (1, 32))])}
%m = pto.alloc_tile : {mat_t}
pto.mgather ins(%tp, %ip : !pto.partition_tensor_view<64x32xf16>, !pto.partition_tensor_view<1x32xi32>) outs(%m : {mat_t}) {{coalesce = #pto<coalesce row>}}
pto.tmov ins(%m : {mat_t}) outs(%d : {left_t})""")
    table = random_values(np.random.default_rng(5), "f16", (64, 32))
    ids = np.random.default_rng(6).integers(0, 64, 32).astype(np.int32)
    out = run(text, "a5", [table.reshape(-1), ids, filled((32, 32), "f16")])[2]
    assert_bits_equal(out, table[ids])


@pytest.mark.parametrize("target", [t for t in TARGETS if t != "a5"])
def test_not_implemented_elsewhere(target: str) -> None:
    src_t, dst_t = cube_tile("mat", (32, 32), "f16", NZ), cube_tile("left", (32, 32), "f16", NZ)
    with pytest.raises(PtoError, match="moves loc=mat to loc=left \\(not implemented in pto-frontend: cube-side tiles"):
        run(move_text(src_t, dst_t), target, [filled((32, 32), "f16"), filled((32, 32), "f16")])

