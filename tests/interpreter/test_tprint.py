"""
TPRINT (pto_dialect/instructions/tprint.py) through interpreter.run: what each target prints
on stderr, written out in full here from pto-isa's TPrint.hpp (cpu: the valid region; a2a3
and a5: the whole Vec tile, `|` after the valid columns, dashes after the valid rows),
in NumPy's formatting, located, with the induction variable of each enclosing loop; and
that printing changes no result.
"""

from __future__ import annotations

import numpy as np
import pytest

from pto_dialect import PtoError
from tests.interpreter.harness import TARGETS, constants, func, run, tensor_view, tile, view

COVERS = ("pto.tprint",)
"""The instructions whose results these tests check against their own formulas, per target
(tests/test_registry.py: every instruction is covered on every target)."""

def load_and_print(dtype: str, gm: tuple[int, int], window: tuple[int, int], shape: tuple[int, int]) -> str:
    """A kernel loading the top-left `window` of a `gm`-shaped matrix into a tile of `shape`
    (valid: the window), then printing the tile."""
    t = tile(shape, dtype, valid=window)
    return func(
        [("x", f"!pto.ptr<{dtype}>")],
        constants(0, 1, *gm, *window) + f"""
%xv = pto.make_tensor_view %x, shape = [%c{gm[0]}, %c{gm[1]}], strides = [%c{gm[1]}, %c1] : {tensor_view(2, dtype)}
%xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c{window[0]}, %c{window[1]}] : {tensor_view(2, dtype)}
%t = pto.alloc_tile : {t}
pto.tload ins(%xp : {view(window, dtype)}) outs(%t : {t})
pto.tprint ins(%t : {t})
""",
    )


KERNEL = load_and_print("f32", (4, 8), (2, 5), (4, 8))
TPRINT_LINE = 12  # k.pto line of the pto.tprint

X = np.arange(32, dtype=np.float32) / 2  # row r of the 4 x 8 view: 4r, 4r + 0.5, ...

PRINTED = {
    "cpu": """\
[[0.  0.5 1.  1.5 2. ]
 [4.  4.5 5.  5.5 6. ]]
""",
    "a2a3": """\
[[0.  0.5 1.  1.5 2.  | 0.  0.  0. ]
 [4.  4.5 5.  5.5 6.  | 0.  0.  0. ]
  --------------------+------------
 [0.  0.  0.  0.  0.  | 0.  0.  0. ]
 [0.  0.  0.  0.  0.  | 0.  0.  0. ]]
""",
}
PRINTED["a5"] = PRINTED["a2a3"]
"""The tile after the load: the valid 2 x 5 corner of x, zeros elsewhere (an unplaced tile
starts zeroed, and no target pads with pad=null)."""


@pytest.mark.parametrize("target", TARGETS)
def test_a_partly_valid_tile_prints_as_the_target_does(target: str, capsys: pytest.CaptureFixture[str]) -> None:
    (out,) = run(KERNEL, target, [X])
    printed = capsys.readouterr()
    assert printed.out == ""
    head = f"k.pto:{TPRINT_LINE}:3: pto.tprint: 4x8xf32 vec tile, valid 2x5\n"
    assert printed.err == head + PRINTED[target]
    assert np.array_equal(out, X)


LOOP = func(
    [("x", "!pto.ptr<i32>")],
    constants(0, 1, 2, 3, 4)
    + f"""
%xv = pto.make_tensor_view %x, shape = [%c3, %c4], strides = [%c4, %c1] : {tensor_view(2, "i32")}
%t = pto.alloc_tile : {tile((1, 8), "i32", valid=(1, 4))}
scf.for %i = %c0 to %c3 step %c1 {{
  scf.for %j = %c0 to %c2 step %c1 {{
    %xp = pto.partition_view %xv, offsets = [%i, %c0], sizes = [%c1, %c4] : {tensor_view(2, "i32")}
    pto.tload ins(%xp : {view((1, 4), "i32")}) outs(%t : {tile((1, 8), "i32", valid=(1, 4))})
    pto.tprint ins(%t : {tile((1, 8), "i32", valid=(1, 4))})
  }}
}}
""",
)


@pytest.mark.parametrize("target", TARGETS)
def test_prints_in_loops_name_each_iteration(target: str, capsys: pytest.CaptureFixture[str]) -> None:
    x = np.array([[1, -2, 3, 40], [5, 6, 7, 8], [-9, 10, 11, 12]], np.int32)
    run(LOOP, target, [x])
    def cells(values: list[int]) -> list[str]:  # NumPy right-aligns integers to the widest
        width = max(len(str(v)) for v in values)
        return [str(v).rjust(width) for v in values]

    rows = {
        "cpu": lambda r: f"[[{' '.join(cells(list(r)))}]]",
        "a2a3": lambda r: f"[[{' '.join(cells(list(r) + [0] * 4)[:4])} | {' '.join(cells(list(r) + [0] * 4)[4:])}]]",
    }
    rows["a5"] = rows["a2a3"]
    expected = "".join(
        f"k.pto:13:3: pto.tprint (iteration %i = {i}, %j = {j}): 1x8xi32 vec tile, valid 1x4\n{rows[target](x[i])}\n"
        for i in range(3)
        for j in range(2)
    )
    assert capsys.readouterr().err == expected


VIEW_KERNEL = func(
    [("x", "!pto.ptr<f16>")],
    constants(0, 1, 2, 3)
    + f"""
%xv = pto.make_tensor_view %x, shape = [%c3, %c3], strides = [%c3, %c1] : {tensor_view(2, "f16")}
%xp = pto.partition_view %xv, offsets = [%c1, %c0], sizes = [%c2, %c3] : {tensor_view(2, "f16")}
pto.tprint ins(%xp : {view((2, 3), "f16")})
""",
)


@pytest.mark.parametrize("target", TARGETS)
def test_a_gm_view_prints_on_the_npus_only(target: str, capsys: pytest.CaptureFixture[str]) -> None:
    x = np.array([0, 1, 2, 3, 4.5, 5, -6, 7, 8], np.float16)
    if target == "cpu":
        with pytest.raises(PtoError, match="expects src to be a tile: this target prints tiles only, got a GM view"):
            run(VIEW_KERNEL, target, [x])
        return
    run(VIEW_KERNEL, target, [x])
    assert capsys.readouterr().err == "k.pto:8:3: pto.tprint: 2x3xf16 GM view\n[[ 3.   4.5  5. ]\n [-6.   7.   8. ]]\n"


def test_a_large_tile_is_summarised_as_numpy_does(capsys: pytest.CaptureFixture[str]) -> None:
    """64 x 64 (more than NumPy's 1000-element threshold): three rows and columns at each
    edge; the valid 2 x 62 region's bar lands among the last columns."""
    kernel = load_and_print("i16", (2, 64), (2, 62), (64, 64))
    run(kernel, "a5", [np.arange(128, dtype=np.int16)])
    lines = capsys.readouterr().err.splitlines()
    assert lines[1:] == [
        "[[  0   1   2 ...  61 |   0   0]",
        " [ 64  65  66 ... 125 |   0   0]",
        "  --------------------+--------",
        " [  0   0   0 ...   0 |   0   0]",
        " ...",
        " [  0   0   0 ...   0 |   0   0]",
        " [  0   0   0 ...   0 |   0   0]",
        " [  0   0   0 ...   0 |   0   0]]",
    ]
