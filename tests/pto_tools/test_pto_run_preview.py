"""What pto-run shows of a run (issue 18, item 6), through its main function, in-process (tests/pto_tools/cli.py run_in_process): by default
each argument the kernel may write, as the region it stored to, 2-D, and each result;
`--print` shows those arguments whole, `--print=all` the read-only ones too."""

from __future__ import annotations

import numpy as np
import pytest

from tests.interpreter.harness import constants, func, tile
from tests.pto_tools.cli import ROOT, run_in_process, save

DATA = ROOT / "examples" / "data"
WRAP = str(ROOT / "examples" / "embedding_wrap.pto")
WRAP_INPUTS = [str(DATA / f"wrap_{name}.npy") for name in ("table", "ids", "out")]

# stores a 4 x 8 tile of x into rows 2..5, columns 8..15 of the 8 x 16 view of y; z is never
# stored to (its loop runs no iteration)
PARTIAL_STORE = f"""\
func.func @partial(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %z: !pto.ptr<f32>) {{
{constants(0, 1, 2, 4, 8, 16)}
  %xv = pto.make_tensor_view %x, shape = [%c4, %c8], strides = [%c8, %c1] : !pto.tensor_view<4x8xf32>
  %yv = pto.make_tensor_view %y, shape = [%c8, %c16], strides = [%c16, %c1] : !pto.tensor_view<8x16xf32>
  %zv = pto.make_tensor_view %z, shape = [%c4, %c8], strides = [%c8, %c1] : !pto.tensor_view<4x8xf32>
  %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c4, %c8] : !pto.tensor_view<4x8xf32>
  %yp = pto.partition_view %yv, offsets = [%c2, %c8], sizes = [%c4, %c8] : !pto.tensor_view<8x16xf32>
  %zp = pto.partition_view %zv, offsets = [%c0, %c0], sizes = [%c4, %c8] : !pto.tensor_view<4x8xf32>
  %t = pto.alloc_tile : !pto.tile_buf<vec, 4x8xf32>
  pto.tload ins(%xp : !pto.partition_tensor_view<4x8xf32>) outs(%t : !pto.tile_buf<vec, 4x8xf32>)
  scf.for %i = %c0 to %c0 step %c1 {{
    pto.tstore ins(%t : !pto.tile_buf<vec, 4x8xf32>) outs(%zp : !pto.partition_tensor_view<4x8xf32>)
  }}
  pto.tstore ins(%t : !pto.tile_buf<vec, 4x8xf32>) outs(%yp : !pto.partition_tensor_view<4x8xf32>)
  return
}}
"""


def printed(array: np.ndarray) -> list[str]:
    return np.array2string(array, threshold=200, edgeitems=3).splitlines()


def wrap_rows_a5() -> np.ndarray:
    """Row k of the table holds k; a5 reads an id as 32-bit unsigned, wrapping around 7 rows."""
    ids = np.load(DATA / "wrap_ids.npy").astype(np.int64)
    return np.repeat(((ids + (1 << 32)) % (1 << 32) % 7).astype(np.float32)[:, None], 8, axis=1)


def test_default_shows_what_the_kernel_wrote_in_2d():
    code, out, err = run_in_process("pto-run", WRAP, "--target", "a5", *WRAP_INPUTS)
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "target: a5 (--target a5)",
        "arg2: float32 [64], as 8 x 8; stored to: all of it",  # the table and the ids are only read
        *printed(wrap_rows_a5()),
    ]


# the same, storing at row %row: a scalar placing a view the kernel stores to is only read
ROW_STORE = PARTIAL_STORE.replace("%z: !pto.ptr<f32>)", "%z: !pto.ptr<f32>, %row: index)").replace(
    "offsets = [%c2, %c8]", "offsets = [%row, %c8]"
)


@pytest.mark.parametrize(("text", "scalars", "stored"), [(PARTIAL_STORE, [], "[2:6, 8:16]"), (ROW_STORE, [3], "[3:7, 8:16]")])
def test_default_shows_the_stored_region_only(tmp_path, text, scalars, stored):
    kernel = tmp_path / "partial.pto"
    kernel.write_text(text)
    x = np.arange(32, dtype=np.float32) + 1
    inputs = save(tmp_path, [x, np.full(128, -1, np.float32), np.zeros(32, np.float32), *map(np.array, scalars)])
    code, out, err = run_in_process("pto-run", str(kernel), "--target", "cpu", *inputs)
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "target: cpu (--target cpu)",
        f"arg1: float32 [128], as 8 x 16; stored to: {stored}",
        *printed(x.reshape(4, 8)),
        "arg2: float32 [32], as 4 x 8; nothing stored to it",
    ]
    if scalars:
        return
    code, out, _ = run_in_process("pto-run", str(kernel), "--target", "cpu", "--print", *inputs)
    y = np.full((8, 16), -1, np.float32)
    y[2:6, 8:16] = x.reshape(4, 8)
    assert out.splitlines() == [
        "target: cpu (--target cpu)",
        "arg1: float32 [128], as 8 x 16",
        *printed(y),
        "arg2: float32 [32], as 4 x 8",
        *printed(np.zeros((4, 8), np.float32)),
    ]


def test_print_all_shows_the_arguments_only_read_too():
    code, out, err = run_in_process("pto-run", WRAP, "--print=all", "--target", "a5", *WRAP_INPUTS)
    assert (code, err) == (0, "")
    table = np.repeat(np.arange(14, dtype=np.float32)[:, None], 8, axis=1)  # as make.py writes it
    assert out.splitlines() == [
        "target: a5 (--target a5)",
        "arg0: float32 [112], as 14 x 8",  # the 2 x 7 x 8 view, its leading dims folded
        *printed(table),
        "arg1: int32 [8], as 1 x 8",
        *printed(np.load(DATA / "wrap_ids.npy").reshape(1, 8)),
        "arg2: float32 [64], as 8 x 8",
        *printed(wrap_rows_a5()),
    ]


@pytest.mark.parametrize("flags", [["--out", "OUT"], ["--quiet", "--out", "OUT"]])
def test_out_prints_only_the_target_line(flags, tmp_path):
    flags = [str(tmp_path / "o") if f == "OUT" else f for f in flags]
    code, out, err = run_in_process("pto-run", WRAP, *flags, *WRAP_INPUTS)
    assert (code, out, err) == (0, "target: a2a3 (the default: the module names no target)\n", "")


def test_scratch_argument_is_named_not_shown(tmp_path):
    kernel = tmp_path / "k.pto"
    kernel.write_text(
        "func.func @g(%s: !pto.tile_buf<vec, 8x32xf16>, %i: !pto.tile_buf<vec, 8x32xi32>, "
        "%t: !pto.tile_buf<vec, 8x32xi32>, %d: !pto.tile_buf<vec, 8x32xf16>) {\n"
        "  pto.tgather ins(%s, %i, %t : !pto.tile_buf<vec, 8x32xf16>, !pto.tile_buf<vec, 8x32xi32>, "
        "!pto.tile_buf<vec, 8x32xi32>) outs(%d : !pto.tile_buf<vec, 8x32xf16>)\n  return\n}\n"
    )
    src = (np.arange(256) % 97).astype(np.float16).reshape(8, 32)
    idx = ((np.arange(256) * 5) % 256).astype(np.int32).reshape(8, 32)
    inputs = save(tmp_path, [src, idx, np.zeros((8, 32), np.int32), np.zeros((8, 32), np.float16)])
    code, out, err = run_in_process("pto-run", str(kernel), *inputs)
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "target: a2a3 (the default: the module names no target)",
        f"arg2: scratch (the tmp of pto.tgather at {kernel}:2:3): not shown",
        "arg3: float16 [8, 32]",
        *printed(src.reshape(-1)[idx]),
    ]


# blocks 1 and 2 of 4 (8 rows each) of a 32 x 64 table copied to the same rows of out
BLOCK_COPY = f"""\
func.func @blocks(%x: !pto.ptr<f16>, %y: !pto.ptr<f16>) {{
{constants(0, 1, 8, 24, 32, 64)}
  %xv = pto.make_tensor_view %x, shape = [%c32, %c64], strides = [%c64, %c1] : !pto.tensor_view<32x64xf16>
  %yv = pto.make_tensor_view %y, shape = [%c32, %c64], strides = [%c64, %c1] : !pto.tensor_view<32x64xf16>
  %t = pto.alloc_tile : !pto.tile_buf<vec, 8x64xf16>
  scf.for %r = %c8 to %c24 step %c8 {{
    %xp = pto.partition_view %xv, offsets = [%r, %c0], sizes = [%c8, %c64] : !pto.tensor_view<32x64xf16>
    %yp = pto.partition_view %yv, offsets = [%r, %c0], sizes = [%c8, %c64] : !pto.tensor_view<32x64xf16>
    pto.tload ins(%xp : !pto.partition_tensor_view<8x64xf16>) outs(%t : !pto.tile_buf<vec, 8x64xf16>)
    pto.tstore ins(%t : !pto.tile_buf<vec, 8x64xf16>) outs(%yp : !pto.partition_tensor_view<8x64xf16>)
  }}
  return
}}
"""


@pytest.mark.parametrize("batch_loops", [True, False])
def test_stored_elements_are_the_same_batched_or_not(batch_loops):
    """What the preview reads: interpreter.GmWrites, marked by each tstore, or by the batched
    loop that writes a tile straight into its GM windows."""
    import interpreter
    import pto_dialect

    stored = interpreter.GmWrites()
    x = np.arange(32 * 64).astype(np.float16)
    interpreter.run_with_results(
        pto_dialect.parse(BLOCK_COPY, "k.pto"), "a5", [x, np.zeros_like(x)], batch_loops=batch_loops, gm_writes=stored
    )
    expected = np.zeros((32, 64), bool)
    expected[8:24] = True
    assert stored.per_argument[0] is not None and not stored.per_argument[0].any()
    np.testing.assert_array_equal(stored.per_argument[1].reshape(32, 64), expected)


def test_tile_arguments_are_their_logical_arrays_in_every_layout(tmp_path):
    """A col-major (DN) and an NZ tile argument take, and give back, the logical [r, c] array."""
    from tests.interpreter.harness import nz_image
    from tests.interpreter.test_mgather import nz_kernel

    rng = np.random.default_rng(18)
    # col-major src of tcolargmin on cpu: the index of each column's minimum, by logical [r, c]
    src = rng.permutation(8 * 16).astype(np.float32).reshape(8, 16)
    src_t, dst_t = tile((8, 16), "f32", blayout="col_major"), tile((1, 16), "i32")
    argmin = func([("s", src_t), ("d", dst_t)], f"pto.tcolargmin ins(%s : {src_t}) outs(%d : {dst_t})")
    # NZ dst of a row MGATHER on a2a3 (a 32 x 16 f32 table laid out NZ): dst[r, :] = table[ids[r], :]
    table = rng.standard_normal((32, 16)).astype(np.float32)
    ids = rng.integers(0, 32, (1, 16)).astype(np.int32)
    gather = nz_kernel("f32", (1, 2, 2), (16, 16), "row", "clamp", (1, 16))
    cases = [
        ("argmin", argmin, "cpu", [src, np.zeros((1, 16), np.int32)], 1, src.argmin(axis=0)[None, :]),
        ("gather", gather, "a2a3", [nz_image(table, 8), ids, np.zeros((16, 16), np.float32)], 2, table[ids[0]]),
    ]
    for name, text, target, arrays, written, expected in cases:
        (tmp_path / f"{name}.pto").write_text(text)
        paths = save(tmp_path, arrays, prefix=name)
        code, _, err = run_in_process(
            "pto-run", str(tmp_path / f"{name}.pto"), "--target", target, "--out", str(tmp_path / name), *paths
        )
        assert (code, err) == (0, ""), name
        np.testing.assert_array_equal(np.load(tmp_path / name / f"arg{written}.npy"), expected)
        if name == "argmin":  # an argument only read comes back as given
            np.testing.assert_array_equal(np.load(tmp_path / name / "arg0.npy"), src)

