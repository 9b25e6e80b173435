"""`pto-run --inputs random[:SEED]` and `pto_frontend.run(..., inputs=...)`: arrays sized from
the signature and the kernel's views, indices inside their table, saved to repeat a run."""

import numpy as np
import pytest

import pto_frontend
from pto_dialect.diagnostics import PtoError
from pto_tools import pto_run
from tests.pto_tools.cli import ROOT, call
from tests.interpreter.harness import gm_views
from tests.kernel_text import copy_block, index_constants, kernel_file

EMBEDDING = str(ROOT / "examples" / "embedding_lookup.pto")

# rows of a table of %n x 64 f32 copied in blocks of 8: %n sizes the view, so the pointers
DYNAMIC = f"""\
module {{
  func.func @copy_rows(%src: !pto.ptr<f32>, %dst: !pto.ptr<f32>, %n: index) {{
{index_constants(0, 1, 8, 64)}
    %sv = pto.make_tensor_view %src, shape = [%n, %c64], strides = [%c64, %c1] : !pto.tensor_view<?x?xf32>
    %dv = pto.make_tensor_view %dst, shape = [%n, %c64], strides = [%c64, %c1] : !pto.tensor_view<?x?xf32>
    %t = pto.alloc_tile : !pto.tile_buf<vec, 8x64xf32>
    scf.for %r = %c0 to %n step %c8 {{
{copy_block("s", "d", ("%r", "%r"), (8, 64), indent="      ")}
    }}
    return
  }}
}}
"""


@pytest.fixture
def dynamic(tmp_path):
    return kernel_file(tmp_path, DYNAMIC, "copy_rows.pto")


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_embedding_ids_are_drawn_inside_the_table(target):
    table, ids, out = pto_frontend.draw_inputs(EMBEDDING, "random:11")
    assert (table.dtype, table.shape, ids.dtype, ids.shape, out.shape) == (np.float16, (65536,), np.int32, (32,), (2048,))
    assert ids.min() >= 0 and ids.max() < 1024  # the view of the table has 1024 rows
    assert np.abs(table.astype(np.float32)).max() <= 1
    final = pto_frontend.run(EMBEDDING, target, inputs="random:11")
    np.testing.assert_array_equal(final[2].reshape(32, 64), table.reshape(1024, 64)[ids])


def test_the_same_seed_draws_the_same_arrays_and_another_seed_others():
    first, again, other = (pto_frontend.draw_inputs(EMBEDDING, s) for s in ("random:4", "random:4", "random:5"))
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b, strict=True)
    assert not np.array_equal(first[0], other[0])
    np.testing.assert_array_equal(pto_frontend.draw_inputs(EMBEDDING, "random")[1], pto_frontend.draw_inputs(EMBEDDING, "random:0")[1])


def test_wide_indices_reach_outside_the_table():
    import interpreter

    ids = interpreter.draw_inputs(EMBEDDING, "random:1", indices="wide")[1]
    assert ids.min() >= -1024 and ids.max() < 2048
    assert (ids < 0).any() and (ids >= 1024).any()


def test_a_scalar_argument_sizes_the_pointers(dynamic):
    src, dst, n = pto_frontend.draw_inputs(dynamic, "random:2", scalars={"n": 24})
    assert (src.shape, dst.shape, n.shape, int(n)) == ((24 * 64,), (24 * 64,), (), 24)
    final = pto_frontend.run(dynamic, "a5", inputs="random:2", scalars={"2": "24"})
    np.testing.assert_array_equal(final[1], src)


def test_a_size_not_given_is_a_located_error(dynamic):
    with pytest.raises(PtoError, match=r"copy_rows.pto:7:5: error: 'pto.make_tensor_view' op cannot size %src for random "
                       r"inputs: a view dimension depends on %n: give it \(pto-run: --arg n=VALUE\)"):
        pto_frontend.draw_inputs(dynamic, "random")


def test_an_integer_scalar_not_given_is_a_located_error(tmp_path):
    path = tmp_path / "scale.pto"
    path.write_text(DYNAMIC.replace("%n: index", "%n: index, %k: i32").replace("[%n, %c64]", "[%c8, %c64]"))
    with pytest.raises(PtoError, match=r"scale.pto:2:3: error: .*argument 3 \(%k: i32\) is an integer scalar: give its value \(pto-run: --arg k=VALUE\)"):
        pto_frontend.draw_inputs(str(path), "random", scalars={"n": 8})


def test_cli_draws_saves_and_repeats(dynamic, tmp_path, capsys):
    out = tmp_path / "out"
    code, stdout, err = call(pto_run.main, [dynamic, "--target", "cpu", "--inputs", "random:9", "--arg", "n=16", "--out", str(out)], capsys)
    assert (code, err) == (0, "")
    assert stdout.splitlines() == ["target: cpu (--target cpu)", "inputs: drawn (random:9)"]
    inputs = [str(out / "inputs" / f"arg{i}.npy") for i in range(3)]
    np.testing.assert_array_equal(np.load(out / "arg1.npy"), np.load(inputs[0]))
    assert int(np.load(inputs[2])) == 16
    again = tmp_path / "again"
    code, _, err = call(pto_run.main, [dynamic, "--target", "cpu", "--out", str(again), *inputs], capsys)
    assert (code, err) == (0, "")
    np.testing.assert_array_equal(np.load(again / "arg1.npy"), np.load(out / "arg1.npy"), strict=True)


def test_cli_compares_every_target_on_one_draw(tmp_path, capsys):
    code, stdout, err = call(pto_run.main, [EMBEDDING, "--targets", "all", "--inputs", "random:3", "--out", str(tmp_path)], capsys)
    assert (code, err) == (0, "")
    assert "the targets that ran agree bit for bit (cpu, a2a3, a5)" in stdout
    table, ids = np.load(tmp_path / "inputs" / "arg0.npy"), np.load(tmp_path / "inputs" / "arg1.npy")
    for target in ("cpu", "a2a3", "a5"):
        np.testing.assert_array_equal(np.load(tmp_path / target / "arg2.npy").reshape(32, 64), table.reshape(1024, 64)[ids])


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--inputs", "random:x"], "pto-run: error: --inputs takes random or random:SEED (an integer), got 'random:x'"),
        (["--inputs", "random", "--arg", "m=3"], "copy_rows.pto:2:3: error: 'func.func' op no argument named 'm' (arguments: src, dst, n)"),
        (["--inputs", "random", "--arg", "n=x"], "copy_rows.pto:2:3: error: 'func.func' op argument 2 (%n: index): 'x' is not a number of its type"),
        (["--inputs", "random", "--arg", "n"], "pto-run: error: --arg takes NAME=VALUE, got 'n' (see pto-run --help)"),
        (["--inputs", "random", "--arg", "n=3", "--arg", "n=4"], "pto-run: error: --arg gives n twice: 'n=3' and 'n=4' (see pto-run --help)"),
        (["--arg", "n=3"], "pto-run: error: --arg and --indices go with --inputs random (see pto-run --help)"),
        (["--inputs", "random", "a.npy"], "pto-run: error: --inputs random draws every argument: give no .npy files with it (see pto-run --help)"),
    ],
)
def test_bad_flags_are_one_line_errors(dynamic, flags, message, capsys):
    code, stdout, err = call(pto_run.main, [dynamic, *flags], capsys)
    assert (code, stdout, err.count("\n")) == (1, "", 1)
    assert err.strip().endswith(message)  # a path to the kernel before a located message


# PyPTO's RoPE kernels: an index table loaded into a tile, gathered through a subview of it
SUBVIEW_INDICES = f"""\
func.func @swap(%src: !pto.ptr<f32>, %ids: !pto.ptr<i32>, %out: !pto.ptr<f32>) {{
{index_constants(0, 1, 64, 2)}
{gm_views([("src", "f32", (1, 64)), ("ids", "i32", (2, 64)), ("out", "f32", (1, 64))])}
  %s = pto.alloc_tile : !pto.tile_buf<vec, 1x64xf32>
  %all = pto.alloc_tile : !pto.tile_buf<vec, 2x64xi32>
  %tmp = pto.alloc_tile : !pto.tile_buf<vec, 1x64xi32>
  %d = pto.alloc_tile : !pto.tile_buf<vec, 1x64xf32>
  pto.tload ins(%srcp : !pto.partition_tensor_view<1x64xf32>) outs(%s : !pto.tile_buf<vec, 1x64xf32>)
  pto.tload ins(%idsp : !pto.partition_tensor_view<2x64xi32>) outs(%all : !pto.tile_buf<vec, 2x64xi32>)
  %first = pto.subview %all[%c0, %c0] sizes [1, 64] : !pto.tile_buf<vec, 2x64xi32> -> !pto.tile_buf<vec, 1x64xi32>
  pto.tgather ins(%s, %first, %tmp : !pto.tile_buf<vec, 1x64xf32>, !pto.tile_buf<vec, 1x64xi32>, !pto.tile_buf<vec, 1x64xi32>) outs(%d : !pto.tile_buf<vec, 1x64xf32>)
  pto.tstore ins(%d : !pto.tile_buf<vec, 1x64xf32>) outs(%outp : !pto.partition_tensor_view<1x64xf32>)
  return
}}
"""


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_indices_gathered_through_a_subview_are_drawn_inside_the_table(tmp_path, target):
    path = tmp_path / "swap.pto"
    path.write_text(SUBVIEW_INDICES)
    src, ids, _ = pto_frontend.draw_inputs(str(path), "random:3")
    assert ids.min() >= 0 and ids.max() < 64  # src's 64 elements, though the index tile holds 2 x 64
    final = pto_frontend.run(str(path), target, inputs="random:3")
    np.testing.assert_array_equal(final[2], src[ids[:64]])


# loop body: row %row of the 8-column table view %tv into row %i of the output view %ov, through tile %t
COPY_ROW = copy_block("t", "o", ("%row", "%i"), (1, 8))

# 1-based row ids read with load_scalar from a pointer with no view (its 4 reads size it); a row
# id minus one selects the table row each loop trip copies out
ONE_BASED_IDS = f"""\
func.func @rows(%ids: !pto.ptr<i32>, %table: !pto.ptr<f32>, %out: !pto.ptr<f32>) {{
{index_constants(0, 1, 4, 8, 16)}
  %tv = pto.make_tensor_view %table, shape = [%c16, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
  %ov = pto.make_tensor_view %out, shape = [%c4, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
  %t = pto.alloc_tile : !pto.tile_buf<vec, 1x8xf32>
  scf.for %i = %c0 to %c4 step %c1 {{
    %id = pto.load_scalar %ids[%i] : !pto.ptr<i32> -> i32
    %r = arith.index_cast %id : i32 to index
    %row = arith.subi %r, %c1 : index
{COPY_ROW}
  }}
  return
}}
"""


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_ids_that_become_offsets_through_arithmetic_are_drawn_so_the_offsets_fit(tmp_path, target):
    path = kernel_file(tmp_path, ONE_BASED_IDS, "rows.pto")
    ids, table, out = pto_frontend.draw_inputs(path, "random:5")
    assert (ids.shape, table.shape, out.shape) == ((4,), (128,), (32,))
    assert ids.min() >= 1 and ids.max() <= 16  # id - 1 is a row of the 16-row table
    final = pto_frontend.run(path, target, inputs="random:5")
    np.testing.assert_array_equal(final[2].reshape(4, 8), table.reshape(16, 8)[ids - 1])


# PyPTO's route_hash: per-row column ids turned into flat indices by tile arithmetic on a TCI
# ramp, read back through a second tile hand-placed at the ramp's address
ADDRESSES = "\n".join(f"  %a{a} = arith.constant {a} : i64" for a in (0, 256, 384, 512, 640, 768, 896))
FLAT_INDICES = f"""\
func.func @pick(%src: !pto.ptr<f32>, %cols: !pto.ptr<i32>, %out: !pto.ptr<f32>) {{
{index_constants(0, 1, 4, 8, 16)}
{ADDRESSES}
  %z = arith.constant 0 : i32
  %eight = arith.constant 8 : i32
  %sixteen = arith.constant 16 : i32
{gm_views([("src", "f32", (4, 16)), ("cols", "i32", (4, 8)), ("out", "f32", (4, 8))])}
  %s = pto.alloc_tile addr = %a0 : !pto.tile_buf<vec, 4x16xf32>
  %c = pto.alloc_tile addr = %a256 : !pto.tile_buf<vec, 4x8xi32>
  pto.tload ins(%srcp : !pto.partition_tensor_view<4x16xf32>) outs(%s : !pto.tile_buf<vec, 4x16xf32>)
  pto.tload ins(%colsp : !pto.partition_tensor_view<4x8xi32>) outs(%c : !pto.tile_buf<vec, 4x8xi32>)
  %ramp = pto.alloc_tile addr = %a384 : !pto.tile_buf<vec, 1x32xi32>
  pto.tci ins(%z : i32) outs(%ramp : !pto.tile_buf<vec, 1x32xi32>)
  %ramp2d = pto.alloc_tile addr = %a384 : !pto.tile_buf<vec, 4x8xi32>
  %rows = pto.alloc_tile addr = %a512 : !pto.tile_buf<vec, 4x8xi32>
  pto.tdivs ins(%ramp2d, %eight : !pto.tile_buf<vec, 4x8xi32>, i32) outs(%rows : !pto.tile_buf<vec, 4x8xi32>)
  %base = pto.alloc_tile addr = %a512 : !pto.tile_buf<vec, 4x8xi32>
  pto.tmuls ins(%rows, %sixteen : !pto.tile_buf<vec, 4x8xi32>, i32) outs(%base : !pto.tile_buf<vec, 4x8xi32>)
  %flat = pto.alloc_tile addr = %a640 : !pto.tile_buf<vec, 4x8xi32>
  pto.tadd ins(%c, %base : !pto.tile_buf<vec, 4x8xi32>, !pto.tile_buf<vec, 4x8xi32>) outs(%flat : !pto.tile_buf<vec, 4x8xi32>)
  %tmp = pto.alloc_tile addr = %a768 : !pto.tile_buf<vec, 4x8xi32>
  %d = pto.alloc_tile addr = %a896 : !pto.tile_buf<vec, 4x8xf32>
  pto.tgather ins(%s, %flat, %tmp : !pto.tile_buf<vec, 4x16xf32>, !pto.tile_buf<vec, 4x8xi32>, !pto.tile_buf<vec, 4x8xi32>) outs(%d : !pto.tile_buf<vec, 4x8xf32>)
  pto.tstore ins(%d : !pto.tile_buf<vec, 4x8xf32>) outs(%outp : !pto.partition_tensor_view<4x8xf32>)
  return
}}
"""


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_ids_turned_into_gather_indices_by_tile_arithmetic_are_drawn_inside_each_row(tmp_path, target):
    path = kernel_file(tmp_path, FLAT_INDICES, "pick.pto")
    src, cols, _ = pto_frontend.draw_inputs(path, "random:8")
    assert cols.min() >= 0 and cols.max() <= 15  # flat index row * 16 + id stays inside the 4 x 16 src
    final = pto_frontend.run(path, target, inputs="random:8")
    rows = np.arange(4)[:, None]
    np.testing.assert_array_equal(final[2].reshape(4, 8), src.reshape(4, 16)[rows, cols.reshape(4, 8)])


def test_a_pointer_whose_reach_no_view_or_fixed_offset_tells_is_a_located_error(tmp_path):
    text = ONE_BASED_IDS.replace(
        "    %id = pto.load_scalar %ids[%i]",
        "    %first = pto.load_scalar %ids[%c0] : !pto.ptr<i32> -> i32\n"
        "    %at = arith.index_cast %first : i32 to index\n"
        "    %id = pto.load_scalar %ids[%at]",
    )
    path = kernel_file(tmp_path, text, "rows.pto")
    with pytest.raises(PtoError, match=r"rows.pto:13:5: error: 'pto.load_scalar' op cannot size %ids for random inputs: no "
                       r"pto.make_tensor_view of it, and this use does not tell how far it reaches; give arrays instead"):
        pto_frontend.draw_inputs(path, "random")


# a row index passed as a scalar argument (PyPTO's token and block indices)
ROW_ARGUMENT = f"""\
func.func @row(%table: !pto.ptr<f32>, %out: !pto.ptr<f32>, %r: index) {{
{index_constants(0, 1, 8, 16)}
  %tv = pto.make_tensor_view %table, shape = [%c16, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
  %ov = pto.make_tensor_view %out, shape = [%c1, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
  %tp = pto.partition_view %tv, offsets = [%r, %c0], sizes = [%c1, %c8] : !pto.tensor_view<?x?xf32>
  %op = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<?x?xf32>
  %t = pto.alloc_tile : !pto.tile_buf<vec, 1x8xf32>
  pto.tload ins(%tp : !pto.partition_tensor_view<1x8xf32>) outs(%t : !pto.tile_buf<vec, 1x8xf32>)
  pto.tstore ins(%t : !pto.tile_buf<vec, 1x8xf32>) outs(%op : !pto.partition_tensor_view<1x8xf32>)
  return
}}
"""


def test_an_integer_scalar_only_used_as_an_offset_is_drawn_inside_what_it_indexes(tmp_path):
    path = kernel_file(tmp_path, ROW_ARGUMENT, "row.pto")
    rows = {int(pto_frontend.draw_inputs(path, f"random:{seed}")[2]) for seed in range(40)}
    assert min(rows) >= 0 and max(rows) <= 15 and len(rows) > 8
    table, _, r = pto_frontend.draw_inputs(path, "random:1")
    final = pto_frontend.run(path, "cpu", inputs="random:1")
    np.testing.assert_array_equal(final[1], table.reshape(16, 8)[int(r)])


# a length read from an array bounds a loop over the rows of a 1000-row table
LENGTH_READ = f"""\
func.func @first_rows(%len: !pto.ptr<i32>, %table: !pto.ptr<f32>, %out: !pto.ptr<f32>) {{
{index_constants(0, 1, 8, 1000)}
  %lv = pto.make_tensor_view %len, shape = [%c1], strides = [%c1] : !pto.tensor_view<?xi32>
  %tv = pto.make_tensor_view %table, shape = [%c1000, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
  %ov = pto.make_tensor_view %out, shape = [%c1000, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
  %l = pto.load_scalar %len[%c0] : !pto.ptr<i32> -> i32
  %n = arith.index_cast %l : i32 to index
  %t = pto.alloc_tile : !pto.tile_buf<vec, 1x8xf32>
  scf.for %i = %c0 to %n step %c1 {{
{copy_block("t", "o", ("%i", "%i"), (1, 8))}
  }}
  return
}}
"""


def test_a_length_read_from_an_array_keeps_its_loop_short(tmp_path):
    path = kernel_file(tmp_path, LENGTH_READ, "first_rows.pto")
    lengths = [int(pto_frontend.draw_inputs(path, f"random:{seed}")[0][0]) for seed in range(20)]
    assert min(lengths) >= 0 and max(lengths) <= 100  # the table allows 1000 rows; runs stay short
    length, table, _ = pto_frontend.draw_inputs(path, "random:2")
    final = pto_frontend.run(path, "cpu", inputs="random:2")
    rows = int(length[0])
    np.testing.assert_array_equal(final[2].reshape(1000, 8)[:rows], table.reshape(1000, 8)[:rows])


def test_an_array_larger_than_the_pool_repeats_it(dynamic):
    from interpreter.inputs import POOL_ELEMENTS

    src, dst, _ = pto_frontend.draw_inputs(dynamic, "random:6", scalars={"n": 16400})  # 16400 x 64 elements
    assert src.shape == dst.shape == (16400 * 64,) and src.size > POOL_ELEMENTS
    np.testing.assert_array_equal(src[POOL_ELEMENTS:], src[: src.size - POOL_ELEMENTS])
    assert len(np.unique(src[:POOL_ELEMENTS])) > POOL_ELEMENTS // 2 and not np.array_equal(src, dst)


def test_a_valid_column_count_read_from_an_array_stays_within_its_tile(tmp_path):
    text = f"""\
func.func @fill(%len: !pto.ptr<i32>) {{
{index_constants(0, 1)}
  %lv = pto.make_tensor_view %len, shape = [%c1], strides = [%c1] : !pto.tensor_view<?xi32>
  %l = pto.load_scalar %len[%c0] : !pto.ptr<i32> -> i32
  %n = arith.index_cast %l : i32 to index
  %t = pto.alloc_tile valid_col = %n : !pto.tile_buf<vec, 1x16xf32, valid=1x?>
  return
}}
"""
    path = kernel_file(tmp_path, text, "fill.pto")
    counts = {int(pto_frontend.draw_inputs(path, f"random:{seed}")[0][0]) for seed in range(30)}
    assert min(counts) >= 0 and max(counts) <= 16 and len(counts) > 5


# the first %n rows of an 8 x 16 table doubled: %n is a tile's valid row count (a length), not an offset
VALID_ROWS_ARGUMENT = f"""\
func.func @double_rows(%a: !pto.ptr<f32>, %out: !pto.ptr<f32>, %n: index) {{
{index_constants(0, 1, 8, 16)}
  %av = pto.make_tensor_view %a, shape = [%c8, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %ov = pto.make_tensor_view %out, shape = [%c8, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %ap = pto.partition_view %av, offsets = [%c0, %c0], sizes = [%n, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<?x16xf32>
  %op = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [%n, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<?x16xf32>
  %t = pto.alloc_tile valid_row = %n : !pto.tile_buf<vec, 8x16xf32, valid=?x16>
  %d = pto.alloc_tile valid_row = %n : !pto.tile_buf<vec, 8x16xf32, valid=?x16>
  pto.tload ins(%ap : !pto.partition_tensor_view<?x16xf32>) outs(%t : !pto.tile_buf<vec, 8x16xf32, valid=?x16>)
  pto.tadd ins(%t, %t : !pto.tile_buf<vec, 8x16xf32, valid=?x16>, !pto.tile_buf<vec, 8x16xf32, valid=?x16>) outs(%d : !pto.tile_buf<vec, 8x16xf32, valid=?x16>)
  pto.tstore ins(%d : !pto.tile_buf<vec, 8x16xf32, valid=?x16>) outs(%op : !pto.partition_tensor_view<?x16xf32>)
  return
}}
"""


def test_an_integer_scalar_giving_a_valid_row_count_is_asked_not_drawn(tmp_path):
    # a drawn count (PyPTO's last-block rows) would meet full tiles in elementwise ops: the caller gives it
    path = kernel_file(tmp_path, VALID_ROWS_ARGUMENT, "double_rows.pto")
    with pytest.raises(PtoError, match=r"double_rows.pto:1:1: error: .*argument 2 \(%n: index\) is an integer scalar: give its "
                       r"value \(pto-run: --arg n=VALUE\)"):
        pto_frontend.draw_inputs(path, "random")
    table, out, n = pto_frontend.draw_inputs(path, "random:3", scalars={"n": 5})
    final = pto_frontend.run(path, "cpu", inputs="random:3", scalars={"n": "5"})
    assert int(n) == 5
    expected = out.reshape(8, 16).copy()
    expected[:5] = table.reshape(8, 16)[:5] + table.reshape(8, 16)[:5]
    np.testing.assert_array_equal(final[1].reshape(8, 16), expected)



# PyPTO's paged rows: for i < 16, x = pos + i - 16 is split into page x / 8 (its block read from a
# 64-entry table) and slot x - (x / 8) * 8 (x rem 8, spelt so); row max(8 * block + slot, 0) of a
# 64 x 8 table is copied out
PAGED_ROWS = f"""\
func.func @paged_rows(%blocks: !pto.ptr<i32>, %pos: !pto.ptr<i32>, %table: !pto.ptr<f32>, %out: !pto.ptr<f32>) {{
{index_constants(0, 1, 8, 16, 64)}
  %bv = pto.make_tensor_view %blocks, shape = [%c64], strides = [%c1] : !pto.tensor_view<?xi32>
  %pv = pto.make_tensor_view %pos, shape = [%c1], strides = [%c1] : !pto.tensor_view<?xi32>
  %tv = pto.make_tensor_view %table, shape = [%c64, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
  %ov = pto.make_tensor_view %out, shape = [%c16, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
  %t = pto.alloc_tile : !pto.tile_buf<vec, 1x8xf32>
  %p32 = pto.load_scalar %pos[%c0] : !pto.ptr<i32> -> i32
  %p = arith.index_cast %p32 : i32 to index
  scf.for %i = %c0 to %c16 step %c1 {{
    %pi = arith.addi %p, %i : index
    %x = arith.subi %pi, %c16 : index
    %page = arith.divsi %x, %c8 : index
    %b32 = pto.load_scalar %blocks[%page] : !pto.ptr<i32> -> i32
    %b = arith.index_cast %b32 : i32 to index
    %m = arith.muli %page, %c8 : index
    %slot = arith.subi %x, %m : index
    %base = arith.muli %b, %c8 : index
    %sum = arith.addi %base, %slot : index
    %row = arith.maxsi %sum, %c0 : index
{COPY_ROW}
  }}
  return
}}
"""


@pytest.mark.parametrize("target", ["cpu", "a5"])
def test_a_remainder_spelt_x_minus_x_over_c_times_c_is_bounded_like_rem(tmp_path, target):
    path = kernel_file(tmp_path, PAGED_ROWS, "paged_rows.pto")
    positions = set()
    for seed in range(10):
        blocks, pos, _, _ = pto_frontend.draw_inputs(path, f"random:{seed}")
        assert blocks.min() >= 0 and blocks.max() <= 7  # 8 * block + 7 is a row of the table
        assert 9 <= pos[0] <= 512  # pages x / 8 from 0 (x >= -7) to 63
        positions.add(int(pos[0]))
    assert max(positions) > 64  # the slot's bounds do not hold pos to the first pages
    blocks, pos, table, _ = pto_frontend.draw_inputs(path, "random:4")
    final = pto_frontend.run(path, target, inputs="random:4")
    x = int(pos[0]) + np.arange(16) - 16
    page, slot = np.trunc(x / 8).astype(np.int64), np.fmod(x, 8)  # divsi rounds toward zero
    rows = np.maximum(8 * blocks.astype(np.int64)[page] + slot, 0)
    np.testing.assert_array_equal(final[3].reshape(16, 8), table.reshape(64, 8)[rows])

