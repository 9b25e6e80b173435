"""
Batched loops (interpreter/batch.py) give the same results as iteration-by-iteration
execution, bit for bit: GM outputs, the final UB contents of every tile (stored after the
loop), and faults (the same message, plus the failing iteration).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from xdsl.dialects.func import FuncOp
from xdsl.interpreter import Interpreter

import interpreter
from interpreter import batch
from pto_dialect import PtoError, parse

from tests.interpreter.harness import TARGETS, bits, constants, func, seed, tensor_view, tile, view

R, C = 8, 16
"""The data tiles' shape."""
X_ROWS, OUT_ROWS, TABLE_ROWS, IDS_ROWS = 32, 176, 12, 32

INSTRUCTIONS = ("mgather_row", "mgather_elem", "tgather_index", "tgather_mask", "tcolargmin", "tcolargmax",
                "trowargmin", "trowargmax", "tscatter_index", "tscatter_mask", "texp", "trecip", "tcvt")
INDEXED = ("tgather_index", "tscatter_index")
"""Instructions whose indices address the R x C data tile."""


KEEPS_DST = {("tscatter_index", "cpu")}
"""The simulator's TSCATTER (index form) leaves the dst elements it does not scatter to as they were: each
iteration reads the last one's dst, so the loop runs serially."""

REGISTER_LEVEL = {("tgather_index", "a5")}
"""a5 lowers TGATHER's index form to register-level ops (a vector scope over UB pointers): the batcher
does not try a loop holding them, which runs serially."""


def _dst_shape(instruction: str) -> tuple[tuple[int, int], str]:
    """dst's valid shape (the GM windows it is stored to) and element type."""
    if instruction in ("tcolargmin", "tcolargmax"):
        return (1, C), "i32"
    if instruction in ("trowargmin", "trowargmax"):
        return (R, 1), "i32"
    if instruction == "tgather_mask":
        return (R, C // 2), "f32"
    if instruction == "tscatter_mask":
        return (R, 2 * C), "f32"
    return (R, C), "f32"


def _dst_tile(instruction: str) -> str:
    (dr, dc), dt = _dst_shape(instruction)
    if instruction in ("trowargmin", "trowargmax"):
        return tile((dr, 8), dt, valid=(dr, dc))  # a row-major column: 32-byte rows
    return tile((dr, dc), dt)


def loop_kernel(instruction: str, target: str, bounds: tuple[int, int, int], load: tuple[int, int],
                store: tuple[int, int], carried: bool, in_place: bool, early_store: bool, oob: str) -> str:
    """One scf.for: load the instruction's inputs from windows at row a*i + b, run it, store its
    dst at row c*i + d (or at a carried row, advanced by c); after the loop every tile is stored
    to its own buffer. `in_place`: the data (or the MGATHER table) is the output buffer;
    `early_store`: dst is also stored before the instruction writes it (last iteration's UB)."""
    lb, ub, step = bounds
    (a, b), (c, d) = load, store
    (dr, dc), dt = _dst_shape(instruction)
    data_t, ids_t = tile((R, C), "f32"), tile((1, R) if instruction == "mgather_row" else (R, C), "i32")
    dst_t = _dst_tile(instruction)
    ids_rows, ids_cols = (1, R) if instruction == "mgather_row" else (R, C)
    source = "%out" if in_place else "%x"
    tiles = [("dt", dst_t, (dr, dc), dt)]
    body = []
    if instruction.startswith("mgather"):
        tiles.append(("it", ids_t, (ids_rows, ids_cols), "i32"))
        body += [f"pto.tload ins(%ip : {view((ids_rows, ids_cols), 'i32')}) outs(%it : {ids_t})"]
        table = "%op_all" if in_place else "%tp"
        table_t = view((OUT_ROWS, C) if in_place else (TABLE_ROWS, C), "f32")
        coalesce = "row" if instruction == "mgather_row" else "elem"
        instr = (f"pto.mgather ins({table}, %it : {table_t}, {ids_t}) outs(%dt : {dst_t}) "
                 f"{{coalesce = #pto<coalesce {coalesce}>, gatherOob = #pto<gather_oob {oob}>}}")
    else:
        tiles.append(("st", data_t, (R, C), "f32"))
        body += [f"pto.tload ins(%sp : {view((R, C), 'f32')}) outs(%st : {data_t})"]
        if instruction in INDEXED:
            tiles.append(("it", ids_t, (R, C), "i32"))
            body += [f"pto.tload ins(%ip : {view((R, C), 'i32')}) outs(%it : {ids_t})"]
            if instruction == "tscatter_index":
                instr = f"pto.tscatter ins(%st, %it : {data_t}, {ids_t}) outs(%dt : {dst_t})"
            elif target == "a2a3":
                tiles.append(("tt", tile((R, C), "i32"), (R, C), "i32"))
                instr = f"pto.tgather ins(%st, %it, %tt : {data_t}, {ids_t}, {tile((R, C), 'i32')}) outs(%dt : {dst_t})"
            else:
                instr = f"pto.tgather ins(%st, %it : {data_t}, {ids_t}) outs(%dt : {dst_t})"
        elif instruction in ("tgather_mask", "tscatter_mask"):
            op = instruction.removesuffix("_mask")
            instr = f'pto.{op} ins(%st, {{maskPattern = #pto.mask_pattern<P0101>}} : {data_t}, "row") outs(%dt : {dst_t})'
        else:
            instr = f"pto.{instruction} ins(%st : {data_t}) outs(%dt : {dst_t})"
    out_view = view((dr, dc), dt)
    early = [f"pto.tstore ins(%dt : {dst_t}) outs(%ep : {out_view})"] if early_store else []
    store_row = "%w" if carried else "%wr"
    loop_body = "\n".join([
        f"%s = arith.muli %i, %c{a} : index",
        f"%r = arith.addi %s, %c{b} : index",
        f"%ws = arith.muli %i, %c{c} : index",
        f"%wr = arith.addi %ws, %c{d} : index",
        f"%sp = pto.partition_view {source}v, offsets = [%r, %c0], sizes = [%c{R}, %c{C}] : {tensor_view(2, 'f32')}",
        f"%ip = pto.partition_view %idsv, offsets = [%r, %c0], sizes = [%c{ids_rows}, %c{ids_cols}] : {tensor_view(2, 'i32')}",
        f"%op = pto.partition_view %outv, offsets = [{store_row}, %c0], sizes = [%c{dr}, %c{dc}] : {tensor_view(2, dt)}",
        f"%ep = pto.partition_view %earlyv, offsets = [%wr, %c0], sizes = [%c{dr}, %c{dc}] : {tensor_view(2, dt)}",
        *body, *early, instr,
        f"pto.tstore ins(%dt : {dst_t}) outs(%op : {out_view})",
    ])
    if carried:
        loop = (f"%end = scf.for %i = %c{lb} to %c{ub} step %c{step} iter_args(%w = %c{d}) -> (index) {{\n"
                f"{loop_body}\n%next = arith.addi %w, %c{c} : index\nscf.yield %next : index\n}}")
    else:
        loop = f"scf.for %i = %c{lb} to %c{ub} step %c{step} {{\n{loop_body}\n}}"
    fins = []
    for name, t, (tr, tc), tdt in tiles:
        fins += [
            f"%f{name}v = pto.make_tensor_view %f{name}, shape = [%c{tr}, %c{tc}], strides = [%c{tc}, %c1] : {tensor_view(2, tdt)}",
            f"%f{name}p = pto.partition_view %f{name}v, offsets = [%c0, %c0], sizes = [%c{tr}, %c{tc}] : {tensor_view(2, tdt)}",
            f"pto.tstore ins(%{name} : {t}) outs(%f{name}p : {view((tr, tc), tdt)})",
        ]
    out_dt = "f32" if in_place else dt
    prologue = [
        constants(0, 1, a, b, c, d, lb, ub, step, R, C, dr, dc, ids_rows, ids_cols, X_ROWS, OUT_ROWS, TABLE_ROWS, IDS_ROWS),
        f"%xv = pto.make_tensor_view %x, shape = [%c{X_ROWS}, %c{C}], strides = [%c{C}, %c1] : {tensor_view(2, 'f32')}",
        f"%tv = pto.make_tensor_view %tab, shape = [%c{TABLE_ROWS}, %c{C}], strides = [%c{C}, %c1] : {tensor_view(2, 'f32')}",
        f"%tp = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c{TABLE_ROWS}, %c{C}] : {tensor_view(2, 'f32')}",
        f"%idsv = pto.make_tensor_view %ids, shape = [%c{IDS_ROWS}, %c{C}], strides = [%c{C}, %c1] : {tensor_view(2, 'i32')}",
        f"%outv = pto.make_tensor_view %out, shape = [%c{OUT_ROWS}, %c{dc}], strides = [%c{dc}, %c1] : {tensor_view(2, out_dt)}",
        *([f"%op_all = pto.partition_view %outv, offsets = [%c0, %c0], sizes = [%c{OUT_ROWS}, %c{C}] : {tensor_view(2, 'f32')}"]
          if in_place else []),
        f"%earlyv = pto.make_tensor_view %early, shape = [%c{OUT_ROWS}, %c{dc}], strides = [%c{dc}, %c1] : {tensor_view(2, dt)}",
        *(f"%{name} = pto.alloc_tile : {t}" for name, t, _, _ in tiles),
    ]
    args = [("x", "!pto.ptr<f32>"), ("tab", "!pto.ptr<f32>"), ("ids", "!pto.ptr<i32>"),
            ("out", f"!pto.ptr<{out_dt}>"), ("early", f"!pto.ptr<{dt}>")]
    args += [(f"f{name}", f"!pto.ptr<{tdt}>") for name, _, _, tdt in tiles]
    return func(args, "\n".join([*prologue, loop, *fins]))


def kernel_inputs(text: str, instruction: str, in_place: bool, rng: np.random.Generator) -> list[np.ndarray]:
    (dr, dc), dt = _dst_shape(instruction)
    np_dt = np.float32 if dt == "f32" else np.int32
    high = TABLE_ROWS if instruction == "mgather_row" else (OUT_ROWS if in_place else TABLE_ROWS) * C
    if instruction in INDEXED:
        high = R * C
    if instruction == "mgather_row" and in_place:
        high = OUT_ROWS
    ids = rng.integers(-2, high + 2, IDS_ROWS * C).astype(np.int32)
    ids[rng.random(ids.size) < 0.9] %= high  # mostly in range: faults and OOB policies now and then
    out_dt = np.float32 if in_place else np_dt
    arrays = [
        rng.integers(-50, 50, X_ROWS * C).astype(np.float32),
        rng.integers(-50, 50, TABLE_ROWS * C).astype(np.float32),
        ids,
        rng.integers(-50, 50, OUT_ROWS * dc).astype(out_dt),
        rng.integers(-50, 50, OUT_ROWS * dc).astype(np_dt),
    ]
    function = parse(text, "k.pto").body.block.first_op
    assert isinstance(function, FuncOp)
    for arg in function.args[len(arrays):]:
        shape_dtype = np.float32 if "f32" in str(arg.type) else np.int32
        arrays.append(np.full(R * 2 * C, -7, shape_dtype))  # room for the largest tile (tscatter_mask dst)
    return arrays


class IterationSeen(Interpreter.Listener):
    """The induction variable of the last iteration that started (the first body op reads it)."""

    def __init__(self) -> None:
        self.value: int | None = None

    def will_interpret_op(self, op, args) -> None:
        if op.name == "arith.muli" and op.operands[0].owner is op.parent_block() and op.parent_block().args:
            if op.parent_block().args[0] is op.operands[0]:
                self.value = args[0]


def run_both(text: str, target: str, arrays: list[np.ndarray], batchable: bool = True,
             batched: list[bool | str] | None = None) -> bool:
    """Batched and serial runs agree: same outputs, or the same fault plus its iteration
    (a loop batching never applies to, one with iter_args, reports as before). True: a fault.
    `batched`, when given, receives what the batched run's loops did (as batched_outcomes
    returns it): the kernel is then parsed, lowered and run batched once for both checks."""
    module = parse(text, "k.pto")

    def run_batched() -> list[np.ndarray]:
        with recording_batched() as seen:
            try:
                return interpreter.run(module, target, arrays)
            finally:
                if batched is not None:
                    batched.extend(seen)

    try:
        serial = interpreter.run(module, target, arrays, batch_loops=False)
    except PtoError as e:
        seen = IterationSeen()
        with pytest.raises(PtoError):
            interpreter.run(module, target, arrays, listeners=(seen,))
        with pytest.raises(PtoError) as batched_error:
            run_batched()
        message = str(batched_error.value)
        if not batchable:
            assert message == str(e)
            return True
        assert message.startswith(f"{e} (iteration "), (message, str(e))
        assert message.endswith(f", induction variable {seen.value})"), message
        loop_line = next(n for n, line in enumerate(text.splitlines(), 1) if "scf.for" in line)
        assert f"of the scf.for at k.pto:{loop_line}:" in message
        return True
    for s, b in zip(serial, run_batched()):
        assert np.array_equal(bits(s), bits(b))
    return False


@contextmanager
def recording_batched() -> Iterator[list[bool | str]]:
    """What each call of batch.run_batched did while inside (True: ran batched, False: left
    the loop to the serial run, "fault": ran batched into a fault)."""
    outcomes: list[bool | str] = []
    real = batch.run_batched

    def spy(*args):
        try:
            outcomes.append(real(*args))
        except PtoError:
            outcomes.append("fault")
            raise
        return outcomes[-1]

    batch.run_batched = spy
    try:
        yield outcomes
    finally:
        batch.run_batched = real


def batched_outcomes(text: str, target: str, arrays, batchable: bool = True) -> list[bool | str]:
    """What each batch.run_batched call of the batched run did (as recording_batched records it),
    once run_both has checked that run against the serial one: no fault, the same outputs."""
    outcomes: list[bool | str] = []
    assert not run_both(text, target, arrays, batchable, batched=outcomes), "the kernel faults"
    return outcomes


@settings(max_examples=120, deadline=None)
@given(
    target=st.sampled_from(TARGETS),
    instruction=st.sampled_from(INSTRUCTIONS),
    trips=st.sampled_from([1, 2, 3, 4, 5]),
    lb=st.integers(0, 2),
    step=st.integers(1, 2),
    load=st.tuples(st.integers(0, 2), st.integers(0, 1)),
    store=st.tuples(st.sampled_from([0, 1, 2, R, R, R + 1, 2 * R, 2 * R]), st.integers(0, 2)),
    carried=st.sampled_from([False, False, False, True]),
    in_place=st.sampled_from([False, False, True]),
    early_store=st.sampled_from([False, False, False, True]),
    oob=st.sampled_from(["clamp", "wrap", "zero", "undefined"]),
    seed=st.integers(0, 2**16),
)
def test_batched_loops_match_serial(target, instruction, trips, lb, step, load, store, carried, in_place,
                                    early_store, oob, seed) -> None:
    in_place = in_place and _dst_shape(instruction) == ((R, C), "f32")  # the output can be read as the input
    text = loop_kernel(instruction, target, (lb, lb + trips * step, step), load, store, carried, in_place,
                       early_store, oob)
    arrays = kernel_inputs(text, instruction, in_place, np.random.default_rng(seed))
    with recording_batched() as outcomes:
        faulted = run_both(text, target, arrays, not carried and (instruction, target) not in REGISTER_LEVEL)
    event(f"batched: {outcomes}, fault: {faulted}, carried: {carried}, one trip: {trips == 1}")  # --hypothesis-show-statistics: how often each way


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("instruction", INSTRUCTIONS)
@pytest.mark.parametrize(
    "store,carried,early_store",
    [
        ((R, 0), False, False),  # disjoint windows
        ((2 * R, 1), False, False),  # disjoint, with gaps
        ((1, 0), False, False),  # windows one row apart: overlapping unless dst has one row
        ((0, 0), False, False),  # every iteration writes the same window
        ((R, 0), True, False),  # a carried value
        ((R, 0), False, True),  # dst read before the iteration writes it
    ],
)
def test_which_loops_run_batched(target, instruction, store, carried, early_store) -> None:
    text = loop_kernel(instruction, target, (0, 4, 1), (1, 0), store, carried, False, early_store, "clamp")
    arrays = kernel_inputs(text, instruction, False, np.random.default_rng(1))
    arrays[2] = np.abs(arrays[2]) % (R * C if instruction == "tgather_index" else TABLE_ROWS)
    arrays[0][arrays[0] == 0] = 1  # no zero for TRECIP's cpu assert (the property test meets it)
    dst_rows = _dst_shape(instruction)[0][0]
    batched = store[0] >= dst_rows and not early_store and (instruction, target) not in KEEPS_DST
    tried = not carried and (instruction, target) not in REGISTER_LEVEL  # a loop with iter_args is never tried
    expected = [batched] if tried else []
    assert batched_outcomes(text, target, arrays, not carried) == expected


@pytest.mark.parametrize("target", TARGETS)
def test_scatter_indexes_loaded_before_the_loop(target) -> None:
    """TSCATTER by indexes loaded once, before the loop: every iteration scatters its own src
    by them, into a dst stored to strided windows."""
    lines = loop_kernel("tscatter_index", target, (0, 4, 1), (1, 0), (2 * R, 1), False, False, False, "clamp").splitlines()
    ids_lines = [line for line in lines if "%ip = pto.partition_view" in line or "pto.tload ins(%ip" in line]
    lines = [line for line in lines if line not in ids_lines]
    loop = next(n for n, line in enumerate(lines) if "scf.for" in line)
    text = "\n".join([*lines[:loop], *(line.replace("[%r,", "[%c0,") for line in ids_lines), *lines[loop:]])
    arrays = kernel_inputs(text, "tscatter_index", False, np.random.default_rng(6))
    arrays[2] = np.abs(arrays[2]) % (R * C)
    assert batched_outcomes(text, target, arrays) == [("tscatter_index", target) not in KEEPS_DST]


def test_gather_table_written_in_the_loop_runs_serially() -> None:
    text = loop_kernel("mgather_row", "a5", (0, 4, 1), (1, 0), (R, 0), False, True, False, "clamp")
    arrays = kernel_inputs(text, "mgather_row", True, np.random.default_rng(2))
    arrays[2] = np.abs(arrays[2]) % OUT_ROWS
    assert batched_outcomes(text, "a5", arrays) == [False]


def test_fault_names_its_iteration() -> None:
    """MGATHER with gatherOob = undefined: iteration 2 (i = 5) meets the first bad index."""
    text = loop_kernel("mgather_row", "a2a3", (1, 9, 2), (1, 0), (R, 0), False, False, False, "undefined")
    arrays = kernel_inputs(text, "mgather_row", False, np.random.default_rng(3))
    ids = np.zeros(IDS_ROWS * C, np.int32)
    ids[5 * C + 2] = TABLE_ROWS  # row 5 (i = 5), dst row 2
    ids[7 * C + 0] = -1
    arrays[2] = ids
    with pytest.raises(PtoError) as e:
        interpreter.run(parse(text, "k.pto"), "a2a3", arrays)
    loop_line = next(n for n, line in enumerate(text.splitlines(), 1) if "scf.for" in line)
    assert str(e.value).endswith(
        f"index {TABLE_ROWS} for dst row 2 is out of bounds for a table capacity of {TABLE_ROWS} "
        f"(gatherOob = undefined) (iteration 2 of the scf.for at k.pto:{loop_line}:3, induction variable 5)"
    )


@pytest.mark.parametrize("chunk_bytes", [1, 1000])
@pytest.mark.parametrize("instruction", ["mgather_row", "tcolargmin"])
def test_long_loops_run_in_chunks(monkeypatch, chunk_bytes, instruction) -> None:
    """With room for one iteration or a few at a time, chunks run one after the other: same
    results, and a fault in a later chunk names its iteration in the whole loop."""
    monkeypatch.setattr(batch, "CHUNK_BYTES", chunk_bytes)
    text = loop_kernel(instruction, "a5", (0, 5, 1), (1, 0), (R, 1), False, False, False, "undefined")
    arrays = kernel_inputs(text, instruction, False, np.random.default_rng(4))
    arrays[2] = np.abs(arrays[2]) % TABLE_ROWS
    assert batched_outcomes(text, "a5", arrays) == [True]
    if instruction == "mgather_row":
        arrays[2][3 * C + 1] = TABLE_ROWS + 3  # iteration 3, dst row 1
        assert run_both(text, "a5", arrays)
        with pytest.raises(PtoError) as e:
            interpreter.run(parse(text, "k.pto"), "a5", arrays)
        assert str(e.value).endswith(", induction variable 3)") and "(iteration 3 of the scf.for" in str(e.value)


class _EveryOp(Interpreter.Listener):
    """A listener that must see each op of each iteration (the default)."""


class _Coarse(Interpreter.Listener):
    SEES_EVERY_OP = False


@pytest.mark.parametrize("listener,batched", [(_EveryOp(), []), (_Coarse(), [True])])
def test_only_listeners_that_see_every_op_keep_loops_serial(listener, batched) -> None:
    """pto-run's progress bar (SEES_EVERY_OP = False) leaves batching on; a listener that
    sees every op turns it off (the loop is then not even tried)."""
    text = loop_kernel("mgather_row", "a5", (0, 4, 1), (1, 0), (R, 0), False, False, False, "clamp")
    arrays = kernel_inputs(text, "mgather_row", False, np.random.default_rng(4))
    arrays[2] = np.abs(arrays[2]) % TABLE_ROWS
    with recording_batched() as outcomes:
        with_listener = interpreter.run(parse(text, "k.pto"), "a5", arrays, listeners=[listener])
    assert outcomes == batched
    for got, want in zip(with_listener, interpreter.run(parse(text, "k.pto"), "a5", arrays, batch_loops=False)):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("instruction", ["mgather_row", "tcolargmin"])
def test_long_loops_run_slice_after_slice(monkeypatch, instruction) -> None:
    """A loop longer than SLICE_TRIPS batches a slice of iterations at a time, in order: 9
    trips in slices of 4 are three batched runs (4, 4, 1: the last runs alone), and the
    results are those of the iteration-by-iteration run."""
    monkeypatch.setattr(batch, "SLICE_TRIPS", 4)
    text = loop_kernel(instruction, "a5", (0, 9, 1), (1, 0), (R, 0), False, False, False, "clamp")
    arrays = kernel_inputs(text, instruction, False, np.random.default_rng(5))
    if instruction == "mgather_row":
        arrays[2] = np.abs(arrays[2]) % TABLE_ROWS
    assert batched_outcomes(text, "a5", arrays) == [True, True]


def test_fault_in_a_later_slice_names_its_iteration(monkeypatch) -> None:
    """The iteration a fault names counts from the loop's first, not the slice's."""
    monkeypatch.setattr(batch, "SLICE_TRIPS", 2)
    test_fault_names_its_iteration()


# ---------------------------------------------------------------------------
# MSCATTER: GM written at data-dependent places

SCATTER_ROWS = 6
"""The MSCATTER table's rows: few, so that iterations collide."""


def scatter_loop(target: str, mode: str, op: str, dtype: str, trips: int, oob: str = "skip",
                 inside: tuple[bool, bool] = (True, True), read_table: bool = False, conflict: str = "last") -> str:
    """trips x MSCATTER of an R x C block of %x (block i) by ids (row i of %ids) into the
    table; `inside`: src, idx loaded in the loop (else once before it); `read_table`: each
    iteration also loads the table's first rows (stored after the loop)."""
    src_t = tile((R, C), dtype)
    ids_shape = (1, R) if mode == "row" else (R, C)
    idx_t = tile(ids_shape, "i32")
    table_t = view((SCATTER_ROWS, C), dtype)
    attr_text = f"coalesce = #pto<coalesce {mode}>, scatterOob = #pto<scatter_oob {oob}>"
    if op != "none":
        attr_text += f", scatterAtomicOp = #pto<scatter_atomic_op {op}>"
    if target == "a5" and op == "none":
        attr_text += f", scatterConflict = #pto<scatter_conflict {conflict}>"
    ids_rows = ids_shape[0] * trips
    loads = {
        "src": f"pto.tload ins(%sp : {view((R, C), dtype)}) outs(%st : {src_t})",
        "idx": f"pto.tload ins(%ip : {view(ids_shape, 'i32')}) outs(%it : {idx_t})",
    }
    views = {
        "src": lambda at: f"%sp = pto.partition_view %xv, offsets = [{at}, %c0], "
                          f"sizes = [%c{R}, %c{C}] : {tensor_view(2, dtype)}",
        "idx": lambda at: f"%ip = pto.partition_view %idsv, offsets = [{at}, %c0], "
                          f"sizes = [%c{ids_shape[0]}, %c{ids_shape[1]}] : {tensor_view(2, 'i32')}",
    }
    body, before = [], []
    for name, in_loop, at in zip(("src", "idx"), inside, ("%r", "%q")):
        if in_loop:
            body.extend([views[name](at), loads[name]])
        else:
            before.extend([views[name]("%c0"), loads[name]])
    if read_table:
        body.append(f"pto.tload ins(%rp : {view((2, C), dtype)}) outs(%rt : {tile((2, C), dtype)})")
    body.append(f"pto.mscatter ins(%st, %it : {src_t}, {idx_t}) outs(%tp : {table_t}) {{{attr_text}}}")
    index_math = ["%r = arith.muli %i, %cR : index", f"%q = arith.muli %i, %c{ids_shape[0]} : index"]
    prologue = [
        constants(0, 1, 2, R, C, SCATTER_ROWS, trips, ids_rows, ids_shape[0], ids_shape[1], R * trips),
        f"%cR = arith.constant {R} : index",
        f"%xv = pto.make_tensor_view %x, shape = [%c{R * trips}, %c{C}], strides = [%c{C}, %c1] : {tensor_view(2, dtype)}",
        f"%idsv = pto.make_tensor_view %ids, shape = [%c{ids_rows}, %c{ids_shape[1]}], "
        f"strides = [%c{ids_shape[1]}, %c1] : {tensor_view(2, 'i32')}",
        f"%tv = pto.make_tensor_view %tab, shape = [%c{SCATTER_ROWS}, %c{C}], strides = [%c{C}, %c1] : {tensor_view(2, dtype)}",
        f"%tp = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c{SCATTER_ROWS}, %c{C}] : {tensor_view(2, dtype)}",
        f"%rp = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c2, %c{C}] : {tensor_view(2, dtype)}",
        f"%st = pto.alloc_tile : {src_t}",
        f"%it = pto.alloc_tile : {idx_t}",
        f"%rt = pto.alloc_tile : {tile((2, C), dtype)}",
    ]
    loop = "\n".join([f"scf.for %i = %c0 to %c{trips} step %c1 {{", *index_math, *body, "}"])
    after = [
        f"%ov = pto.make_tensor_view %o, shape = [%c2, %c{C}], strides = [%c{C}, %c1] : {tensor_view(2, dtype)}",
        f"%op = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [%c2, %c{C}] : {tensor_view(2, dtype)}",
        f"pto.tstore ins(%rt : {tile((2, C), dtype)}) outs(%op : {view((2, C), dtype)})",
    ]
    args = [("x", f"!pto.ptr<{dtype}>"), ("ids", "!pto.ptr<i32>"), ("tab", f"!pto.ptr<{dtype}>"),
            ("o", f"!pto.ptr<{dtype}>")]
    return func(args, "\n".join([*prologue, *before, loop, *after]))


def scatter_inputs(mode: str, dtype: str, trips: int, rng: np.random.Generator, bad: int = 0) -> list[np.ndarray]:
    """Random data (f16 values whose sums round), indices colliding within and across
    iterations; `bad` indices out of range (negative or past the table)."""
    np_dt = np.float16 if dtype == "f16" else np.float32
    high = SCATTER_ROWS if mode == "row" else SCATTER_ROWS * C
    per_iteration = R if mode == "row" else R * C
    ids = rng.integers(0, high, trips * per_iteration).astype(np.int32)
    for where in rng.choice(ids.size, bad, replace=False):
        ids[where] = rng.choice([-1, high, high + 5])
    return [
        (rng.standard_normal(trips * R * C) * 3).astype(np_dt),
        ids,
        (rng.standard_normal(SCATTER_ROWS * C) * 100).astype(np_dt),
        np.zeros(2 * C, np_dt),
    ]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", ["row", "elem"])
@pytest.mark.parametrize("op", ["none", "add"])
@pytest.mark.parametrize("dtype", ["f16", "f32"])
def test_scatter_loops_run_batched_in_serial_order(target, mode, op, dtype) -> None:
    """A loop of MSCATTERs into one table runs batched: colliding writes of different
    iterations land (or accumulate, an f16 sum rounding after each add) as one iteration after
    the other; out-of-range indices skipped."""
    rng = np.random.default_rng(seed("batch-scatter", target, mode, op, dtype))
    text = scatter_loop(target, mode, op, dtype, 5)
    arrays = scatter_inputs(mode, dtype, 5, rng, bad=3)
    assert batched_outcomes(text, target, arrays) == [True]


@pytest.mark.parametrize("target", TARGETS)
def test_scatter_fault_names_its_iteration(target) -> None:
    """scatterOob = undefined: the writes of the iterations before the bad index are made, as
    in the serial run, and the fault names the iteration."""
    rng = np.random.default_rng(seed("batch-scatter-fault", target))
    text = scatter_loop(target, "row", "add", "f32", 5, oob="undefined")
    arrays = scatter_inputs("row", "f32", 5, rng)
    arrays[1][3 * R + 4] = SCATTER_ROWS + 2  # iteration 3, src row 4
    assert run_both(text, target, arrays)
    with pytest.raises(PtoError, match=r"index 8 for src row 4 is out of bounds .* \(iteration 3 of the scf\.for"):
        interpreter.run(parse(text, "k.pto"), target, arrays)


def test_scatter_conflict_names_its_iteration() -> None:
    """a5 scatterConflict = default: the first iteration whose indices collide faults, after
    the earlier iterations' writes."""
    rng = np.random.default_rng(seed("batch-scatter-conflict"))
    text = scatter_loop("a5", "row", "none", "f32", 4, conflict="default")
    arrays = scatter_inputs("row", "f32", 4, rng)
    arrays[1][:] = np.tile(np.where(np.arange(R) < SCATTER_ROWS, np.arange(R), -1), 4)  # -1: skipped
    arrays[1][2 * R + 5] = 3  # iteration 2: src rows 3 and 5
    assert run_both(text, "a5", arrays)
    with pytest.raises(PtoError, match=r"src row 3 and src row 5 both write table row 3: .* \(iteration 2 of the scf"):
        interpreter.run(parse(text, "k.pto"), "a5", arrays)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("inside,read_table", [((False, False), False), ((True, True), True)])
def test_scatter_loops_that_run_serially(target, inside, read_table) -> None:
    """Serial: the same tiles scattered by every iteration (no operand carries the iteration:
    one batched call would add them once), or a loop that also reads the table."""
    rng = np.random.default_rng(seed("batch-scatter-serial", target, inside, read_table))
    text = scatter_loop(target, "row", "add", "f32", 4, inside=inside, read_table=read_table)
    arrays = scatter_inputs("row", "f32", 4, rng)
    assert batched_outcomes(text, target, arrays) == [False]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("inside", [(True, False), (False, True)])
def test_scatter_with_one_operand_loaded_in_the_loop(target, inside) -> None:
    """Only src or only idx changes per iteration: the other is spread along the iterations."""
    rng = np.random.default_rng(seed("batch-scatter-one", target, inside))
    text = scatter_loop(target, "row", "add", "f16", 4, inside=inside)
    arrays = scatter_inputs("row", "f16", 4, rng)
    assert batched_outcomes(text, target, arrays) == [True]
