"""
Loops that read scalars from GM (`pto.load_scalar`, a token id per iteration) and place views at
them run batched when the data allows it (interpreter/batch.py): the batched run's outputs are the
serial run's, bit for bit, and each test says which way the loop went.
"""

from __future__ import annotations

import numpy as np
import pytest

from interpreter import batch, run
from pto_dialect import PtoError, parse
from tests.interpreter.harness import NP, TARGETS
from tests.interpreter.test_batch import batched_outcomes, recording_batched, run_both
from tests.kernel_text import index_constants

TOKENS, ROWS, C = 16, 12, 8


def lookup_kernel(id_type: str = "i32", dst_row: str = "%t", out_rows: int = TOKENS, carried: bool = False,
                  tokens: int = TOKENS, element: str = "f32", shift: int | None = None) -> str:
    """For each of `tokens` tokens: read its id, clamp it into the ROWS x C `element`
    table, copy that row to `out` row `dst_row` (%t: the token's row; %r: the id's row). With
    `carried`, the id read adds to the previous iteration's row (a loop-carried scalar). With
    `shift`, the ids are the first elements of `out` itself (of the table's type), and token t's
    row goes to out row t + shift."""
    head = (
        "scf.for %t = %c0 to %ctokens step %c1 iter_args(%prev = %c0) -> (index) {"
        if carried else "scf.for %t = %c0 to %ctokens step %c1 {"
    )
    at = "%sum = arith.addi %at, %prev : index\n    %low = arith.maxsi %sum, %c0 : index" if carried else (
        "%low = arith.maxsi %at, %c0 : index")
    result = "%end = " if carried else ""
    tail = "scf.yield %r : index" if carried else ""
    ids, ids_param, shifted = "%ids", f"%ids: !pto.ptr<{id_type}>, ", ""
    if shift is not None:
        ids, ids_param, id_type, dst_row = "%out", "", element, "%d"
        shifted = f"\n  %cshift = arith.constant {shift} : index"
        at += "\n    %d = arith.addi %t, %cshift : index"
    return f"""
func.func @lookup(%table: !pto.ptr<{element}>, {ids_param}%out: !pto.ptr<{element}>) {{
{index_constants(0, 1)}
  %ctokens = arith.constant {tokens} : index
  %crows = arith.constant {ROWS} : index
  %clast = arith.constant {ROWS - 1} : index
  %ccols = arith.constant {C} : index
  %cout = arith.constant {out_rows} : index{shifted}
  %tab = pto.make_tensor_view %table, shape = [%crows, %ccols], strides = [%ccols, %c1] : !pto.tensor_view<?x?x{element}>
  %outv = pto.make_tensor_view %out, shape = [%cout, %ccols], strides = [%ccols, %c1] : !pto.tensor_view<?x?x{element}>
  %row = pto.alloc_tile : !pto.tile_buf<vec, 1x{C}x{element}>
  {result}{head}
    %o = arith.muli %t, %c1 : index
    %id = pto.load_scalar {ids}[%o] : !pto.ptr<{id_type}> -> {id_type}
    %at = arith.index_cast %id : {id_type} to index
    {at}
    %r = arith.minsi %low, %clast : index
    %src = pto.partition_view %tab, offsets = [%r, %c0], sizes = [%c1, %ccols] : !pto.tensor_view<?x?x{element}>
    %dst = pto.partition_view %outv, offsets = [{dst_row}, %c0], sizes = [%c1, %ccols] : !pto.tensor_view<?x?x{element}>
    pto.tload ins(%src : !pto.partition_tensor_view<1x{C}x{element}>) outs(%row : !pto.tile_buf<vec, 1x{C}x{element}>)
    pto.tstore ins(%row : !pto.tile_buf<vec, 1x{C}x{element}>) outs(%dst : !pto.partition_tensor_view<1x{C}x{element}>)
    {tail}
  }}
  return
}}
"""


def inputs(ids: np.ndarray, out_rows: int = TOKENS) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    table = rng.standard_normal(ROWS * C).astype(np.float32)
    return [table, ids, np.full(out_rows * C, -7.0, np.float32)]


def clamped(ids: np.ndarray) -> np.ndarray:
    return np.clip(ids.astype(np.int64), 0, ROWS - 1)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("id_type", ["i32", "i16", "ui16", "i64"])
def test_token_ids_read_per_iteration_run_batched(target, id_type) -> None:
    """Repeated ids, negative ones and ids past the table, of each integer width."""
    info = np.iinfo(NP[id_type])
    ids = np.array([3, 3, 0, -1, ROWS, ROWS + 5, 7, 3, 11, 2, 2, 9, 1, 0, 5, 3], np.int64)
    ids[[4, 5]] = [info.max, info.min]  # index_cast sign-extends (i16, i32) or keeps (i64) them
    ids = ids.astype(NP[id_type], casting="unsafe")
    text = lookup_kernel(id_type)
    arrays = inputs(ids)
    assert batched_outcomes(text, target, arrays) == [True]
    signed = ids.view(f"i{ids.itemsize}").astype(np.int64)  # index_cast sign-extends, ui16 too
    expected = arrays[0].reshape(ROWS, C)[clamped(signed)].ravel()
    assert np.array_equal(run(parse(text, "k.pto"), target, arrays)[2], expected)


def test_rows_loaded_and_stored_through_one_tile_run_in_one_chunk(monkeypatch) -> None:
    """The row tile is TLOADed straight into the output windows its TSTORE copies it to: it
    allocates nothing, so room for one iteration's storage still runs every iteration at once."""
    monkeypatch.setattr(batch, "CHUNK_BYTES", 1)
    chunks = []
    run_chunk = batch._run_chunk  # pyright: ignore[reportPrivateUsage]
    monkeypatch.setattr(batch, "_run_chunk", lambda *a: chunks.append(a[-1] - a[-2]) or run_chunk(*a))
    ids = np.array([3, 3, 0, -1, ROWS, 7, 3, 11, 2, 2, 9, 1, 0, 5, 3, 4], np.int32)
    text = lookup_kernel()
    arrays = inputs(ids)
    assert np.array_equal(run(parse(text, "k.pto"), "a2a3", arrays)[2], arrays[0].reshape(ROWS, C)[clamped(ids)].ravel())
    assert chunks == [TOKENS]


@pytest.mark.parametrize(
    "ids,batched",
    [
        (np.arange(TOKENS) % ROWS, False),  # tokens 12..15 write rows 0..3 again
        (np.array([*np.random.default_rng(4).permutation(ROWS), -1, -2, ROWS, ROWS + 1]), False),  # clamped together
        (np.random.default_rng(5).permutation(ROWS), True),  # one token per row
    ],
)
def test_rows_written_at_the_ids_run_batched_unless_they_collide(ids, batched) -> None:
    """The id places the written row (out row = clamped id): tokens writing the same row run in
    order, the last one's row staying."""
    text = lookup_kernel(dst_row="%r", out_rows=ROWS, tokens=len(ids))
    arrays = inputs(np.asarray(ids, np.int32), ROWS)
    assert batched_outcomes(text, "a2a3", arrays) == [batched]


@pytest.mark.parametrize("shift", [0, 1, TOKENS // C])
def test_ids_in_the_buffer_written_run_serially(shift) -> None:
    """The ids are the first TOKENS elements of the buffer the loop writes rows into, from row
    `shift`. Shift 0 and 1: later ids are in rows earlier iterations write; TOKENS // C: no id is
    overwritten, but the loop writes the array the ids are read from."""
    text = lookup_kernel(element="i32", out_rows=TOKENS + TOKENS // C, shift=shift)
    rng = np.random.default_rng(shift)
    table = rng.integers(-3, ROWS + 3, ROWS * C).astype(np.int32)
    buffer = rng.integers(-2, ROWS + 2, (TOKENS + TOKENS // C) * C).astype(np.int32)
    arrays = [table, buffer]
    assert batched_outcomes(text, "a2a3", arrays) == [False]
    if shift == 0:  # the order matters here: reading every id first gives another answer
        ids_first = buffer.copy().reshape(-1, C)
        ids_first[np.arange(TOKENS)] = table.reshape(ROWS, C)[clamped(buffer[:TOKENS])]
        assert not np.array_equal(run(parse(text, "k.pto"), "a2a3", arrays)[1], ids_first.ravel())


def test_loop_carried_scalar_runs_serially() -> None:
    """Each row is the previous row plus the id read: a loop with iter_args is never batched."""
    ids = np.array([1, 2, -1, 5, 0, 3, -9, 4, 4, 1, 0, 2, 7, -3, 1, 1], np.int32)
    text = lookup_kernel(carried=True)
    arrays = inputs(ids)
    assert batched_outcomes(text, "a2a3", arrays, batchable=False) == []


def test_scalar_read_outside_its_array_names_its_iteration() -> None:
    """%ids[%t + 3] of 16 ids: iteration 13 reads past them, as the serial run reports."""
    text = lookup_kernel().replace(
        "%id = pto.load_scalar %ids[%o]", "%o3 = arith.addi %o, %c3 : index\n    %id = pto.load_scalar %ids[%o3]"
    ).replace("%c1 = arith.constant 1 : index", "%c1 = arith.constant 1 : index\n  %c3 = arith.constant 3 : index")
    arrays = inputs(np.zeros(TOKENS, np.int32))
    with recording_batched() as outcomes, pytest.raises(PtoError, match="iteration 13 of the scf.for"):
        run(parse(text, "k.pto"), "a2a3", arrays)
    assert outcomes == [False]
    assert run_both(text, "a2a3", arrays)


def test_float_scalar_reads_keep_the_loop_serial() -> None:
    """A scalar that is not an integer feeds no index math: the loop is not tried."""
    text = lookup_kernel().replace(
        "%id = pto.load_scalar %ids[%o] : !pto.ptr<i32> -> i32",
        "%id = pto.load_scalar %ids[%o] : !pto.ptr<i32> -> i32\n    %x = pto.load_scalar %table[%o] : !pto.ptr<f32> -> f32",
    )
    arrays = inputs(np.arange(TOKENS, dtype=np.int32) % ROWS)
    assert batched_outcomes(text, "a2a3", arrays) == []


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(
    "col,width,padded",
    [
        (0, C, False),  # whole table rows
        (0, 4, False),  # half rows: each starts a whole number of 4-element lines into the table
        (4, 4, False),
        (1, 5, False),  # rows at different offsets within 5-element lines: read another way
        (0, 4, True),  # a padded tile: TLOAD fills the padding (cpu: the whole tile) first
    ],
)
def test_windows_of_the_rows_at_the_ids(target, col, width, padded) -> None:
    """Columns col..col+width of the row at each id, loaded into the width valid columns of a
    1 x 8 tile (padded: pad max) and stored to the token's row of out."""
    valid = f", valid=1x{width}" if width < C else ""
    row = f"!pto.tile_buf<vec, 1x{C}xf32{valid}{', pad=2' if padded else ''}>"
    part = f"!pto.partition_tensor_view<1x{width}xf32>"
    text = (
        lookup_kernel(out_rows=TOKENS)
        .replace(f"!pto.tile_buf<vec, 1x{C}xf32>", row)
        .replace(f"!pto.partition_tensor_view<1x{C}xf32>", part)
        .replace("offsets = [%r, %c0], sizes = [%c1, %ccols]", "offsets = [%r, %ccol], sizes = [%c1, %cwidth]")
        .replace("offsets = [%t, %c0], sizes = [%c1, %ccols]", "offsets = [%t, %c0], sizes = [%c1, %cwidth]")
        .replace("%c1 = arith.constant 1 : index",
                 f"%c1 = arith.constant 1 : index\n  %ccol = arith.constant {col} : index\n"
                 f"  %cwidth = arith.constant {width} : index")
    )
    ids = np.array([3, 3, 0, -1, ROWS, 7, 3, 11, 2, 2, 9, 1, 0, 5, 3, 6], np.int32)
    arrays = inputs(ids)
    assert batched_outcomes(text, target, arrays) == [True]
    out = run(parse(text, "k.pto"), target, arrays)[2].reshape(TOKENS, C)
    assert np.array_equal(out[:, :width], arrays[0].reshape(ROWS, C)[clamped(ids), col : col + width])
    assert (out[:, width:] == -7.0).all()
