"""
TTRANS (Vec, 2-D) on every target against formulas written here from pto-isa's code: every target
writes dst[c, r] = src[r, c] over src's valid region, cpu converting to dst's type (cpu/TTrans.hpp
TTrans_Impl), the NPUs keeping the bits (npu/a2a3/TTrans.hpp, npu/a5/TTrans.hpp); nothing else of
dst is written (a2a3's vnchwconv block tail is not modelled: it keeps dst's contents).
"""

from __future__ import annotations

import numpy as np
import pytest

import interpreter
from pto_dialect import PtoError, parse
from tests.interpreter.harness import NP, TARGETS, assert_bits_equal, filled, func, random_values, run, seed, tile

COVERS = ("pto.ttrans",)


def ttrans(src: str, dst: str, tmp: str | None = None) -> str:
    if tmp is None:
        return func([("s", src), ("d", dst)], f"pto.ttrans ins(%s : {src}) outs(%d : {dst})")
    return func([("s", src), ("t", tmp), ("d", dst)], f"pto.ttrans ins(%s, %t : {src}, {tmp}) outs(%d : {dst})")


def transposed(src: np.ndarray, dst: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """dst with element (c, r) replaced by src's (r, c) for r < rows, c < cols."""
    out = dst.copy()
    for r in range(rows):
        for c in range(cols):
            out[c, r] = src[r, c]
    return out


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", ["i8", "ui8", "i16", "f16", "bf16", "i32", "ui32", "f32"])
def test_ttrans_whole_tiles(target: str, dtype: str) -> None:
    """A 32x32 (1-byte: 32x64) tile transposed whole: a2a3's vnchwconv path, block-aligned rows."""
    rows, cols = 32, 64 if NP[dtype].itemsize == 1 else 32
    s, d = tile((rows, cols), dtype), tile((cols, rows if NP[dtype].itemsize > 1 else 64), dtype, valid=(cols, rows))
    src = random_values(np.random.default_rng(seed(target, dtype)), dtype, (rows, cols))
    dst_shape = (cols, rows if NP[dtype].itemsize > 1 else 64)
    out = run(ttrans(s, d), target, [src, filled(dst_shape, dtype)])[-1]
    assert_bits_equal(out, transposed(src, filled(dst_shape, dtype), rows, cols))


@pytest.mark.parametrize("target", TARGETS)
def test_ttrans_partial_valid_region(target: str) -> None:
    """src valid 5x3 of 8x16 f32 into a 16x8 dst of valid 3x5, with an explicit tmp."""
    s, d, t = tile((8, 16), "f32", valid=(5, 3)), tile((16, 8), "f32", valid=(3, 5)), tile((8, 16), "f32")
    src = np.arange(128, dtype=np.float32).reshape(8, 16)
    out = run(ttrans(s, d, t), target, [src, filled((8, 16), "f32"), filled((16, 8), "f32")])[-1]
    assert_bits_equal(out, transposed(src, filled((16, 8), "f32"), 5, 3))


@pytest.mark.parametrize("target", TARGETS)
def test_ttrans_element_type_change(target: str) -> None:
    """i32 src, f32 dst: cpu converts each value, the NPUs refuse two element types (PTOAS's rule)."""
    s, d = tile((8, 8), "i32"), tile((8, 8), "f32")
    src = np.arange(64, dtype=np.int32).reshape(8, 8) - 30
    if target != "cpu":
        with pytest.raises(PtoError, match=f"expects src and dst to have the same element type, got .* \\(target {target}\\)"):
            run(ttrans(s, d), target, [src, filled((8, 8), "f32")])
        return
    out = run(ttrans(s, d), target, [src, filled((8, 8), "f32")])[-1]
    assert_bits_equal(out, transposed(src.astype(np.float32), filled((8, 8), "f32"), 8, 8))


@pytest.mark.parametrize("target", TARGETS)
def test_ttrans_dynamic_valid_shape(target: str) -> None:
    """src's valid rows given at run time (loaded from GM): 16 fill the 16x16 dst; 20 do not fit
    it, a run-time error on the NPUs; cpu refuses a dynamic src valid shape with a static dst one."""
    s, d = tile((32, 16), "f16", valid=("?", "?")), tile((16, 16), "f16")
    text = func([("x", "!pto.ptr<f16>"), ("d", d), ("r", "index")], f"""
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c16 = arith.constant 16 : index
%xv = pto.make_tensor_view %x, shape = [%r, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf16>
%xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%r, %c16] : !pto.tensor_view<?x?xf16>
%s = pto.alloc_tile valid_row = %r valid_col = %c16 : {s}
pto.tload ins(%xp : !pto.partition_tensor_view<?x16xf16>) outs(%s : {s})
pto.ttrans ins(%s : {s}) outs(%d : {d})""")
    src = random_values(np.random.default_rng(seed(target, "dyn")), "f16", (20, 16))
    if target == "cpu":  # the simulator's static_assert compares a dynamic valid dim with a static one
        with pytest.raises(PtoError, match="expects src's valid dims and dst's transposed ones both static or both dynamic"):
            run(text, target, [src[:16].ravel(), filled((16, 16), "f16"), np.int64(16)])
        return
    out = run(text, target, [src[:16].ravel(), filled((16, 16), "f16"), np.int64(16)])[1]
    assert_bits_equal(out, src[:16].T)
    with pytest.raises(PtoError, match="expects dst's shape to hold"):
        run(text, target, [src.ravel(), filled((16, 16), "f16"), np.int64(20)])


@pytest.mark.parametrize("target", TARGETS)
def test_ttrans_col_major_src(target: str) -> None:
    """cpu transposes through the layouts; the NPUs take row-major tiles only."""
    s, d = tile((16, 8), "f32", blayout="col_major"), tile((8, 16), "f32")
    src = np.arange(128, dtype=np.float32).reshape(16, 8)
    if target != "cpu":
        with pytest.raises(PtoError, match=f"expects src to be row-major ND \\(its code addresses row i at i \\* RowStride\\), got .* \\(target {target}\\)"):
            run(ttrans(s, d), target, [src, filled((8, 16), "f32")])
        return
    assert_bits_equal(run(ttrans(s, d), target, [src, filled((8, 16), "f32")])[-1], src.T)


@pytest.mark.parametrize(("rows", "dst_cols", "numerics"), [
    (5, 16, "approximate"),  # the vnchwconv path copies each dst row's block past 5 rows: UB address 0's bytes
    (8, 16, "exact"),  # 8 f32 rows are one whole 32-byte block: nothing past them
    (5, 8, "exact"),  # dst rows of 8 elements: the scalar loop, exactly the valid region
])
def test_ttrans_a2a3_numerics(rows: int, dst_cols: int, numerics: str) -> None:
    """a2a3 records its transpose approximate only where its vnchwconv path writes past the valid rows."""
    s, d = tile((8, 16), "f32", valid=(rows, 8)), tile((8, dst_cols), "f32", valid=(8, rows))
    lowered = interpreter.lower_for(parse(ttrans(s, d), "k.pto"), "a2a3")
    op = next(o for o in lowered.walk() if o.name == "pto_a2a3.ttrans")
    assert str(op.properties["numerics"]) == f"#pto_choice<numerics {numerics}>"
