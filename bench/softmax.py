"""
Interpreter speed on a row softmax (issue 25, "Speed"): an scf.for over 1024 tiles of 64 x 128
f32, each: tload, TROWMAX into a one-column DN tile, TROWEXPANDSUB, TEXP, TROWSUM, TROWEXPANDDIV,
tstore. Reports, side by side in one process (alternating rounds, medians of wall and CPU time), the time of interpreter.run on an already parsed
module (lowering included) with the loop batched (interpreter/batch.py) and iteration by
iteration, against the same computation written in NumPy per tile (max, subtract, exp, sum,
divide; the baseline, aim: batched within 1.5x of it). Both write into the output array given
(interpreter.run(..., inplace=True)); the default run, which copies y first, is shown besides. The row max and the row sum share one
column tile: two column tiles would be given one UB range by the memory plan (their lives do not
overlap), which interpreter/batch.py takes as two tiles sharing memory and runs serially. The interpreter's values follow each
target's order (a sequential sum on cpu, vcadd's stages on a2a3 and a5) and exp (in double on cpu,
as the simulator; NumPy's float32 exp on a2a3 and a5, whose vexp is approximate): they are
checked close to NumPy's here, not equal; docs/instructions.md says which are exact.

    .venv/bin/python bench/softmax.py [--target a2a3] [--repeat N]     (N rounds; default 5)
"""

from __future__ import annotations

import numpy as np

import interpreter
import pto_dialect
from parse import machine_note
from run import alternating, index_constants, options

TILES, ROWS, COLS = 1024, 64, 128
TILE = f"!pto.tile_buf<vec, {ROWS}x{COLS}xf32>"
COLUMN = f"!pto.tile_buf<vec, {ROWS}x1xf32, blayout=col_major>"
PART = f"!pto.partition_tensor_view<{ROWS}x{COLS}xf32>"

KERNEL = f"""
func.func @softmax(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) {{
{index_constants(c0=0, c1=1, crows=ROWS, ccols=COLS, ctiles=TILES, nrows=TILES * ROWS)}
  %xv = pto.make_tensor_view %x, shape = [%nrows, %ccols], strides = [%ccols, %c1] : !pto.tensor_view<?x?xf32>
  %yv = pto.make_tensor_view %y, shape = [%nrows, %ccols], strides = [%ccols, %c1] : !pto.tensor_view<?x?xf32>
  %a = pto.alloc_tile : {TILE}
  %tmp = pto.alloc_tile : {TILE}
  %col = pto.alloc_tile : {COLUMN}
  scf.for %t = %c0 to %ctiles step %c1 {{
    %base = arith.muli %t, %crows : index
    %xp = pto.partition_view %xv, offsets = [%base, %c0], sizes = [%crows, %ccols] : !pto.tensor_view<?x?xf32>
    %yp = pto.partition_view %yv, offsets = [%base, %c0], sizes = [%crows, %ccols] : !pto.tensor_view<?x?xf32>
    pto.tload ins(%xp : {PART}) outs(%a : {TILE})
    pto.trowmax ins(%a, %tmp : {TILE}, {TILE}) outs(%col : {COLUMN})
    pto.trowexpandsub ins(%a, %col : {TILE}, {COLUMN}) outs(%a : {TILE})
    pto.texp ins(%a : {TILE}) outs(%a : {TILE})
    pto.trowsum ins(%a, %tmp : {TILE}, {TILE}) outs(%col : {COLUMN})
    pto.trowexpanddiv ins(%a, %col : {TILE}, {COLUMN}) outs(%a : {TILE})
    pto.tstore ins(%a : {TILE}) outs(%yp : {PART})
  }}
  return
}}
"""


def numpy_per_tile(x: np.ndarray, y: np.ndarray) -> None:
    """The same softmax, tile by tile, into y."""
    xs, ys = x.reshape(TILES, ROWS, COLS), y.reshape(TILES, ROWS, COLS)
    for t in range(TILES):
        a = xs[t]
        e = np.exp(a - a.max(axis=1, keepdims=True))
        ys[t] = e / e.sum(axis=1, keepdims=True)


def main() -> None:
    args = options()
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(TILES * ROWS * COLS) * 4).astype(np.float32)
    y = np.zeros_like(x)
    module = pto_dialect.parse(KERNEL, "softmax.pto")

    expected = np.zeros_like(x)
    numpy_per_tile(x, expected)
    for batch_loops in (True, False):
        result = interpreter.run(module, args.target, [x, y], batch_loops=batch_loops)[1]
        assert np.allclose(result, expected, rtol=1e-5, atol=1e-7), "interpreter far from NumPy"

    out = np.zeros_like(x)
    medians = alternating(args.repeat, {
        "batched": lambda: interpreter.run(module, args.target, [x, y], inplace=True),
        "numpy": lambda: numpy_per_tile(x, out),
        "copying": lambda: interpreter.run(module, args.target, [x, y]),
    })
    serial = alternating(max(1, args.repeat // 3), {
        "serial": lambda: interpreter.run(module, args.target, [x, y], batch_loops=False),
    })["serial"]
    (batched, batched_cpu), (numpy, numpy_cpu) = medians["batched"], medians["numpy"]
    copying, copying_cpu = medians["copying"]
    print(f"medians of {args.repeat} alternating rounds ({machine_note()})\n")
    print("| target | batched | iteration by iteration | NumPy per tile | batched / NumPy "
          "| iteration by iteration / NumPy | CPU: batched | NumPy | batched / NumPy |")
    print("|---|---|---|---|---|---|---|---|---|")
    print(
        f"| {args.target} | {batched * 1e3:.1f} ms | {serial[0] * 1e3:.1f} ms | {numpy * 1e3:.1f} ms "
        f"| {batched / numpy:.2f}x | {serial[0] / numpy:.2f}x "
        f"| {batched_cpu * 1e3:.1f} ms | {numpy_cpu * 1e3:.1f} ms | {batched_cpu / numpy_cpu:.2f}x |"
    )
    print(f"\nrun copying y (without inplace=True): {copying * 1e3:.1f} ms, CPU {copying_cpu * 1e3:.1f} ms "
          f"({copying_cpu / numpy_cpu:.2f}x NumPy's)")

if __name__ == "__main__":
    main()
