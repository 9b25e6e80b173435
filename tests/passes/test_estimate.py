"""
`pto-opt --estimate` (passes/estimate.py): the cost of each op and how often it runs.

The a2a3 figures are pto-isa's own cost model's (include/pto/costmodel/, measured with it for
the issue and by the scratch differential run): the formulas here are written from its mocks
(EstimateBandwidthCycles, EstimateLinearCycles), never from pto_dialect/instructions/.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

import targets
from passes.estimate import estimate, trip_count
from pto_dialect import PtoError, parse
from pto_dialect.cost import CceMachine, CceTrace, NoCostModel
from pto_dialect.instructions import REGISTRY
from targets.cost_docs import render
from tests.interpreter.harness import constants, func, tensor_view, tile, view

ROOT = Path(__file__).resolve().parents[2]
GIB = 1 << 30
HZ = Fraction(1_850_000_000)
GM_TO_UB, UB_TO_GM = Fraction("100.9"), Fraction("188.46")
SIZE = {"i8": 1, "f16": 2, "bf16": 2, "i16": 2, "f32": 4, "i32": 4, "i64": 8}


def dma(nbytes: int, gib_per_s: Fraction) -> int:
    """pto-isa EstimateBandwidthCycles: floor(bytes / 2^30 / bandwidth * 1.85e9)."""
    return int(Fraction(nbytes) / GIB / gib_per_s * HZ)


def kernel(*functions: str) -> str:
    return 'module attributes {pto.target_arch = "a2a3"} {\n' + "".join(functions) + "}\n"


def report(text: str, target: str = "a2a3"):
    return estimate(parse(text, "k.pto"), target)


def transfer_kernel(rows: int, cols: int, dtype: str, pad: int = 0) -> str:
    t = tile((rows, cols), dtype, pad=str(pad)) if pad else tile((rows, cols), dtype)
    pv = view((rows, cols), dtype)
    body = f"""
    {constants(0, 1, rows, cols)}
    %av = pto.make_tensor_view %a, shape = [%c{rows}, %c{cols}], strides = [%c{cols}, %c1] : {tensor_view(2, dtype)}
    %bv = pto.make_tensor_view %b, shape = [%c{rows}, %c{cols}], strides = [%c{cols}, %c1] : {tensor_view(2, dtype)}
    %ap = pto.partition_view %av, offsets = [%c0, %c0], sizes = [%c{rows}, %c{cols}] : {tensor_view(2, dtype)}
    %bp = pto.partition_view %bv, offsets = [%c0, %c0], sizes = [%c{rows}, %c{cols}] : {tensor_view(2, dtype)}
    %t = pto.alloc_tile : {t}
    pto.tload ins(%ap : {pv}) outs(%t : {t})
    pto.tstore ins(%t : {t}) outs(%bp : {pv})
    """
    return kernel(func([("a", f"!pto.ptr<{dtype}, gm>"), ("b", f"!pto.ptr<{dtype}, gm>")], body))


def index_gather_kernel(src: tuple[int, int], dst: tuple[int, int], dtype: str) -> str:
    s, i, d = tile(src, dtype), tile(dst, "i32"), tile(dst, dtype)
    body = f"""
    %s = pto.alloc_tile : {s}
    %i = pto.alloc_tile : {i}
    %t = pto.alloc_tile : {i}
    %d = pto.alloc_tile : {d}
    pto.tgather ins(%s, %i, %t : {s}, {i}, {i}) outs(%d : {d})
    """
    return kernel(func([], body))


def row_gather_kernel(rows: int, vc: int, dtype: str, table_rows: int = 512, oob: str = "") -> str:
    cols = -(-vc * SIZE[dtype] // 32) * 32 // SIZE[dtype]
    i, d = tile((1, -(-rows // 8) * 8), "i32", valid=(1, rows)), tile((rows, cols), dtype, valid=(rows, vc))
    mode = f", gatherOob = #pto<gather_oob {oob}>" if oob else ""
    body = f"""
    {constants(0, 1, vc, table_rows)}
    %tv = pto.make_tensor_view %a, shape = [%c{table_rows}, %c{vc}], strides = [%c{vc}, %c1] : {tensor_view(2, dtype)}
    %tp = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c{table_rows}, %c{vc}] : {tensor_view(2, dtype)}
    %i = pto.alloc_tile : {i}
    %d = pto.alloc_tile : {d}
    pto.mgather ins(%tp, %i : {view((table_rows, vc), dtype)}, {i}) outs(%d : {d}) {{coalesce = #pto<coalesce row>{mode}}}
    """
    return kernel(func([("a", f"!pto.ptr<{dtype}, gm>")], body))


# ---------------------------------------------------------------------------
# the reference figures, measured with pto-isa's cost model


def test_tload_tstore_f32_32x1024():
    ops = report(transfer_kernel(32, 1024, "f32")).json()["ops"]
    assert [(o["op"], o["pipe"], o["bytes"], o["cycles"], o["count"], o["model"]) for o in ops] == [
        ("pto.tload", "MTE2", 131072, 2238, 1, "pto-isa-costmodel"),
        ("pto.tstore", "MTE3", 131072, 1198, 1, "pto-isa-costmodel"),
    ]


@pytest.mark.parametrize(("src", "dst", "dtype", "cycles"), [
    ((32, 1024), (16, 64), "f32", 718),
    # 1024 x 16 f32 indices, tmp and dst leave no UB for the 32 x 1024 src: the index form's
    # cost depends on dst rows only (one vgather a row), so a smaller src gives the same figure
    ((16, 64), (1024, 16), "f16", 45070),
])
def test_index_tgather(src, dst, dtype, cycles):
    # per dst row: set_vector_mask 1, vmuls 1 (+ head 11 on the first), barrier 1 + vmuls' tail 15,
    # vgather 2 + head 24 (the barrier emptied the queue); set_mask_count/norm, set_vector_mask 3
    assert 3 + 11 + dst[0] * (1 + 1 + 16 + 26) == cycles
    (op,) = report(index_gather_kernel(src, dst, dtype)).json()["ops"]
    assert (op["pipe"], op["bytes"], op["cycles"], op["model"]) == ("V", 0, cycles, "pto-isa-costmodel")


def test_row_mgather_f32_16x64():
    (op,) = report(row_gather_kernel(16, 64, "f32")).json()["ops"]
    assert (op["pipe"], op["bytes"], op["cycles"], op["model"]) == ("MTE2", 16 * 256, 64, "pto-isa-costmodel")


# ---------------------------------------------------------------------------
# the a2a3 formulas, on other shapes


@pytest.mark.parametrize(("rows", "cols", "dtype", "pad"), [(1, 8, "f32", 0), (7, 96, "f16", 2), (64, 256, "i8", 1), (3, 16, "bf16", 0)])
def test_transfers_cost_their_bytes(rows, cols, dtype, pad):
    ops = report(transfer_kernel(rows, cols, dtype, pad)).json()["ops"]
    nbytes = rows * cols * SIZE[dtype]
    # a pad value costs set_mov_pad_val; a transfer under one cycle reports the cost model's
    # fallback for an instruction its mocks charged nothing: 3 + elements * 2 / 64
    load = dma(nbytes, GM_TO_UB) + (pad != 0) or 3 + rows * cols * 2 // 64
    store = dma(nbytes, UB_TO_GM) or 3 + rows * cols * 2 // 64
    assert [(o["bytes"], o["cycles"]) for o in ops] == [(nbytes, load), (nbytes, store)]


@pytest.mark.parametrize(("rows", "vc", "dtype", "oob"), [(1, 8, "f16", ""), (100, 3, "i8", "clamp"), (33, 500, "bf16", "zero")])
def test_row_mgather_is_one_transfer_a_row(rows, vc, dtype, oob):
    (op,) = report(row_gather_kernel(rows, vc, dtype, oob=oob)).json()["ops"]
    per_row = dma(vc * SIZE[dtype], GM_TO_UB)
    assert op["cycles"] == (rows * per_row or 2 + rows * vc // 32)
    assert op["model"] == ("pto-isa-costmodel" if not oob else "a2a3-header-sequence")


def test_the_vector_queue_pays_head_once_and_tails_at_barriers():
    machine = targets.get("a2a3").costs
    assert isinstance(machine, CceMachine)
    t = CceTrace(machine)
    t.vector("vmuls")  # head 11 + 1
    t.vector("vmuls")  # 1 (queue busy)
    t.barrier()  # tail 15 + 1
    t.vector("vgather")  # head 24 + 2 (queue emptied)
    assert t.cycles == 12 + 1 + 16 + 26


def test_a_loop_is_its_first_trip_then_its_steady_trips():
    machine = targets.get("a2a3").costs
    assert isinstance(machine, CceMachine)
    looped, unrolled = CceTrace(machine), CceTrace(machine)

    def body(t: CceTrace) -> None:
        t.vector("vadds")
        t.vector("vcmp_le")
        t.barrier()

    looped.loop(50, lambda: body(looped))
    for _ in range(50):
        body(unrolled)
    assert looped.cycles == unrolled.cycles


# ---------------------------------------------------------------------------
# how often each op runs


def loop_kernel(lower: str, upper: str, inner: int | None = None) -> str:
    t = tile((8, 64), "f32")
    body = f"""
    {constants(0, 1, 8, 16, 64)}
    %t = pto.alloc_tile : {t}
    %av = pto.make_tensor_view %a, shape = [%c8, %c64], strides = [%c64, %c1] : {tensor_view(2, "f32")}
    %ap = pto.partition_view %av, offsets = [%c0, %c0], sizes = [%c8, %c64] : {tensor_view(2, "f32")}
    scf.for %i = {lower} to {upper} step %c1 {{
      pto.tload ins(%ap : {view((8, 64), "f32")}) outs(%t : {t})
    """
    if inner is not None:
        body += f"""
      scf.for %j = %c0 to %c{inner} step %c1 {{
        pto.tstore ins(%t : {t}) outs(%ap : {view((8, 64), "f32")})
      }}
    """
    body += "}"
    return kernel(func([("a", "!pto.ptr<f32, gm>"), ("n", "index")], body))


def test_counts_multiply_through_static_loops():
    data = report(loop_kernel("%c1", "%c16", inner=8)).json()
    assert [(o["op"], o["count"]) for o in data["ops"]] == [("pto.tload", 15), ("pto.tstore", 120)]
    load, store = data["ops"]
    assert data["serial_cycles"] == load["cycles"] * 15 + store["cycles"] * 120
    assert data["pipes"] == {"MTE2": load["cycles"] * 15, "MTE3": store["cycles"] * 120}
    assert data["bound_cycles"] == max(data["pipes"].values())


def test_a_dynamic_trip_count_is_null_and_so_are_the_totals_it_enters():
    data = report(loop_kernel("%c0", "%n")).json()
    assert [o["count"] for o in data["ops"]] == [None]
    assert data["ops"][0]["cycles"] is not None
    assert (data["pipes"], data["serial_cycles"], data["bound_cycles"]) == ({"MTE2": None}, None, None)


def test_an_op_under_a_condition_has_no_static_count():
    t = tile((8, 64), "f32")
    body = f"""
    %t = pto.alloc_tile : {t}
    scf.if %p {{
      pto.tgather ins(%t, {{maskPattern = #pto.mask_pattern<P1111>}} : {t}, "row") outs(%t : {t})
    }}
    """
    (op,) = report(kernel(func([("p", "i1")], body))).json()["ops"]
    assert (op["count"], op["cycles"] is not None) == (None, True)


def test_calls_add_their_counts():
    t = tile((8, 64), "f32")
    callee = func([("t", t)], f"pto.tgather ins(%t, {{maskPattern = #pto.mask_pattern<P1111>}} : {t}, \"row\") outs(%t : {t})", "g")
    callee = callee.replace("func.func @g", "func.func private @g")
    body = f"""
    {constants(0, 1, 3)}
    %t = pto.alloc_tile : {t}
    func.call @g(%t) : ({t}) -> ()
    scf.for %i = %c0 to %c3 step %c1 {{
      func.call @g(%t) : ({t}) -> ()
    }}
    """
    data = report(kernel(callee, func([], body))).json()
    assert [(o["op"], o["count"]) for o in data["ops"]] == [("pto.tgather", 4)]


def test_trip_counts():
    for lower, upper, step, trips in ((0, 10, 3, 4), (5, 5, 1, 0), (7, 3, 1, 0)):
        text = kernel(func([], f"{constants(lower, upper, step)}\nscf.for %i = %c{lower} to %c{upper} step %c{step} {{\n}}"))
        loop = next(op for op in parse(text, "k.pto").walk() if op.name == "scf.for")
        assert trip_count(loop) == trips  # pyright: ignore[reportArgumentType]


def test_constant_valid_dims_of_a_dynamic_tile_are_static_and_argument_ones_are_not():
    s, i, d = tile((8, 64), "f32"), tile((8, 64), "i32", valid=("?", "?")), tile((8, 64), "f32", valid=("?", "?"))
    body = f"""
    {constants(4, 64)}
    %s = pto.alloc_tile : {s}
    %i = pto.alloc_tile valid_row = %c4 valid_col = %c64 : {i}
    %t = pto.alloc_tile valid_row = %c4 valid_col = %c64 : {i}
    %d = pto.alloc_tile valid_row = %c4 valid_col = %c64 : {d}
    %d2 = pto.alloc_tile valid_row = %r valid_col = %c64 : {d}
    pto.tgather ins(%s, %i, %t : {s}, {i}, {i}) outs(%d : {d})
    pto.tgather ins(%s, %i, %t : {s}, {i}, {i}) outs(%d2 : {d})
    """
    ops = report(kernel(func([("r", "index")], body))).json()["ops"]
    assert [o["cycles"] for o in ops] == [3 + 11 + 4 * 44, None]


# ---------------------------------------------------------------------------
# every target, every example: no silent 0, no op without a model


KERNELS = sorted([*(ROOT / "examples").glob("*.pto"), *(ROOT / "tests/filecheck/kernels").glob("*.pto")])


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.name)
@pytest.mark.parametrize("target", targets.names())
def test_every_example_is_priced_on_every_target_that_accepts_it(path: Path, target: str):
    from passes.verify_target import rejections

    module = parse(path.read_text(), str(path))
    if rejections(module, targets.get(target)):
        pytest.skip(f"{target} rejects {path.name}")
    for row in estimate(module, target).ops:  # an op without a model is a PtoError; None: a dynamic shape, which no example has
        assert row.cycles is not None, f"{row.loc} {row.op}: no static price on {target}"
        assert row.cycles > 0, f"{row.loc} {row.op}: 0 cycles on {target}"


def test_an_op_without_a_cost_model_is_a_located_error(monkeypatch: pytest.MonkeyPatch):
    from pto_dialect.cost import CceMachine
    from pto_dialect.instructions.transfer import TLOAD

    assert TLOAD.cost is not None
    monkeypatch.delitem(TLOAD.cost.on, CceMachine)  # pyright: ignore[reportArgumentType]
    with pytest.raises(PtoError, match=r"k.pto:\d+:\d+: error: 'pto.tload' op has no cost model on target a2a3"):
        report(transfer_kernel(8, 64, "f32"))


def test_a_machine_an_instruction_has_no_model_for_raises():
    tgather = next(i for i in REGISTRY if i.name == "pto.tgather")
    assert tgather.cost is not None
    with pytest.raises(NoCostModel):
        replace(tgather.cost, on={}).of(targets.get("a5").costs)


def test_cost_doc_is_generated_from_the_cost_tables():
    assert (ROOT / "docs" / "cost.md").read_text() == render(), "run: python -m targets.cost_docs > docs/cost.md"


# ---------------------------------------------------------------------------
# TPRINT: the wait for every pipe; the prints themselves are not priced


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("a2a3", ("S", 0, 1, "a2a3-header-sequence")),  # one pipe_barrier(PIPE_ALL): EstimateConstCycles
        ("a5", ("S", 0, 1, "a5-vf-model")),  # the same call, at the a2a3 mocks' price
        ("cpu", ("S", 0, 2 * 5, "cpu-simulator-steps (not a hardware estimate)")),  # one step per valid element printed
    ],
)
def test_tprint_costs_its_barrier_or_its_simulated_loop(target, expected):
    t = tile((4, 8), "f32", valid=(2, 5))
    body = f"""
    %t = pto.alloc_tile : {t}
    pto.tprint ins(%t : {t})
    """
    (op,) = report(kernel(func([], body)).replace('"a2a3"', f'"{target}"'), target).json()["ops"]
    assert (op["pipe"], op["bytes"], op["cycles"], op["model"]) == expected


# ---------------------------------------------------------------------------
# TROWARGMIN / TROWARGMAX, TSCATTER, MSCATTER: each figure from the mocks (a2a3:
# EstimateLinearCycles' head on an empty vector queue, slope per repeat, tail at the next
# barrier; EstimateConstCycles 1 a call), VfSim's parameters (a5: startup 23, drain 12, each
# executed instruction's throughput or VecCycle's fallback) or the simulator's loops (cpu)

A5_FUNCTION = 23 + 12  # vf_startup_cost + vf_drain_cost (a5/VfSim/params/isa_defaults.csv)
A2A3_VCMAX, A2A3_VREDUCEV2, A2A3_VCONV = (6, 2, 0), (14, 14, 20), (14, 2, 18)  # (head, slope, tail)


def on_target(text: str, target: str) -> dict:
    (op,) = report(text.replace('"a2a3"', f'"{target}"'), target).json()["ops"]
    return op


def row_arg_kernel(op: str, rows: int, cols: int, dtype: str, value: bool, outputs: str, index: str = "i32") -> str:
    """src [rows, cols] with tmp of its shape; outputs "dn" ([R, 1] col-major) or "nd" (row-major, one valid col)."""
    s = tile((rows, -(-cols * SIZE[dtype] // 32) * 32 // SIZE[dtype]), dtype, valid=(rows, cols))

    def out(t: str) -> str:
        if outputs == "dn":
            return tile((-(-rows * SIZE[t] // 32) * 32 // SIZE[t], 1), t, valid=(rows, 1), blayout="col_major")
        return tile((rows, 32 // SIZE[t]), t, valid=(rows, 1))

    i, v = out(index), out(dtype)
    outs = f"%v, %i : {v}, {i}" if value else f"%i : {i}"
    body = f"""
    %s = pto.alloc_tile : {s}
    %t = pto.alloc_tile : {s}
    %i = pto.alloc_tile : {i}
    %v = pto.alloc_tile : {v}
    pto.{op} ins(%s, %t : {s}, {s}) outs({outs})
    """
    return kernel(func([], body))


def a2a3_row_blocks(rows: int) -> int:
    """OneRepeatProc*: a vcmax of up to 255 rows (2 cycles a repeat, head 6 on the queue a
    barrier emptied) and a barrier (tail 0 + 1) per call."""
    calls = [255] * (rows // 255) + [rows % 255]
    return sum(6 + 2 * r + 1 for r in calls)


A2A3_GROUP = 1 + 6 + 1 + 1 + (14 + 14) + (20 + 1) + (14 + 14) + (20 + 1)
"""ReduceThenGroupValIdx: set_vector_mask, vcmax of 0 repeats (counter mode), barrier,
set_vector_mask, two vreducev2 of one repeat, each after an emptied queue, each barrier
paying its tail 20."""
A2A3_FINAL = 1 + (6 + 2) + 1
"""set_vector_mask, the last vcmax (one repeat), barrier."""


@pytest.mark.parametrize("op", ["trowargmin", "trowargmax"])
@pytest.mark.parametrize(("rows", "cols", "dtype", "value", "outputs", "index", "cycles", "model"), [
    # exactly one repeat: counter mode, one vcmax of 0 repeats; masks set and restored
    (16, 64, "f32", False, "dn", "i32", 2 + 6 + 1 + 2, "pto-isa-costmodel"),
    # less than a repeat: 255 rows a vcmax
    (300, 100, "f16", False, "nd", "i32", 2 + a2a3_row_blocks(300) + 2, "pto-isa-costmodel"),
    # value form, one-column DN outputs: each split by a vreducev2 of one repeat; 32-bit
    # indices of 2-byte data converted by two vconv of 0 repeats (set_vector_mask between)
    (8, 100, "f16", True, "dn", "i32",
     1 + a2a3_row_blocks(8) + 2 + (28 + 21) + (28 + 21) + 1 + (14 + 19) + (14 + 19) + 2, "a2a3-header-sequence"),
    # value form, row-major outputs: two scalar loops of one cycle per row
    (8, 30, "f32", True, "nd", "i32", 1 + a2a3_row_blocks(8) + 2 + 2 * 8, "a2a3-header-sequence"),
    # two stages, then the scalar loop writing one index a row
    (6, 197, "i32", False, "nd", "i32", 1 + 6 * (A2A3_GROUP + A2A3_FINAL) + 2 + 6, "a2a3-header-sequence"),
    # three stages, value form: two elements written a row
    (3, 5000, "f32", True, "dn", "i32", 1 + 3 * (2 * A2A3_GROUP + A2A3_FINAL) + 2 + 2 * 3, "a2a3-header-sequence"),
])
def test_a2a3_row_arg_reduction(op, rows, cols, dtype, value, outputs, index, cycles, model):
    got = on_target(row_arg_kernel(op, rows, cols, dtype, value, outputs, index), "a2a3")
    assert (got["pipe"], got["bytes"], got["cycles"], got["model"]) == ("V", 0, cycles, model)


@pytest.mark.parametrize(("rows", "cols", "dtype", "value"), [(16, 64, "f32", False), (5, 300, "f16", True), (40, 7, "i32", True)])
def test_a5_and_cpu_row_arg_reduction(rows, cols, dtype, value):
    n = rows * -(-cols // (256 // SIZE[dtype]))  # 256-byte chunks
    stores = rows * (2 if value else 1)
    # vbr: the zeros, two a row (1 each); plt (2): one-lane predicate and one a chunk; vdup a row (1);
    # a chunk: vlds 1, vcmax/vcmin 1, vdintlv 5 (no VfSim row), vadd 2, vcmp 1, vsel 2 x 1, vadds 1
    body = (1 + 2 * rows) + 2 * (1 + n) + rows + n * (1 + 1 + 5 + 2 + 1 + 2 + 1) + stores
    text = row_arg_kernel("trowargmax", rows, cols, dtype, value, "nd")
    assert on_target(text, "a5")["cycles"] == A5_FUNCTION + body
    assert on_target(text, "cpu")["cycles"] == rows * cols


def tscatter_kernel(src: str, dst: str, indexes: str | None = None, mask: str = "", axis: str = "row") -> str:
    if indexes is not None:
        op = f"pto.tscatter ins(%s, %i : {src}, {indexes}) outs(%d : {dst})"
    else:
        op = f'pto.tscatter ins(%s, {{maskPattern = #pto.mask_pattern<{mask}>}} : {src}, "{axis}") outs(%d : {dst})'
    body = f"""
    %s = pto.alloc_tile : {src}
    %i = pto.alloc_tile : {indexes or src}
    %d = pto.alloc_tile : {dst}
    {op}
    """
    return kernel(func([], body))


A2A3_ZERO_FILL = 2 + 11 + 2
"""InitUBBuffer: set_mask_count, set_vector_mask, vector_dup of 0 repeats (head 11, its tail
never charged: no barrier follows), set_mask_norm, set_vector_mask."""


@pytest.mark.parametrize(("text", "cycles", "nbytes"), [
    # index form: the scalar loop, one cycle per index
    (tscatter_kernel(tile((16, 64), "f32", valid=(16, 60)), tile((32, 64), "f32"), tile((16, 64), "i32", valid=(16, 60))),
     A2A3_ZERO_FILL + 16 * 60, 0),
    # row axis: a scalar loop over src's valid elements
    (tscatter_kernel(tile((8, 32), "i16", valid=(8, 30)), tile((8, 64), "i16", valid=(8, 60)), mask="P1010"), A2A3_ZERO_FILL + 8 * 30, 0),
    # col axis: one vcopy a src row, the queue still busy from vector_dup (no head)
    (tscatter_kernel(tile((9, 16), "i16", valid=(9, 3)), tile((40, 16), "i16", valid=(36, 3)), mask="P0100", axis="col"),
     A2A3_ZERO_FILL + 2 + 9 + 2, 0),
    # P1111, valid cols filling the rows: one UB->UB copy of the valid rows' blocks
    (tscatter_kernel(tile((64, 256), "f32", valid=(60, 256)), tile((64, 256), "f32", valid=(60, 256)), mask="P1111"),
     dma(60 * 256 * 4, Fraction(1024)), 60 * 256 * 4),
    # P1111, partial rows: a copy of 8 blocks a row, under a cycle: the idle fallback 2 + elements / 32
    (tscatter_kernel(tile((16, 64), "f32", valid=(16, 60)), tile((16, 64), "f32", valid=(16, 60)), mask="P1111"),
     2 + 16 * 60 // 32, 16 * 256),
])
def test_a2a3_tscatter(text, cycles, nbytes):
    got = on_target(text, "a2a3")
    assert (got["pipe"], got["bytes"], got["cycles"], got["model"]) == ("V", nbytes, cycles, "a2a3-header-sequence")


def a5_zero_fill(dst_bytes: int) -> int:
    """InitUBBuffer: vbr 1, a predicate (2) and vsts (1) a register, two mem_bar (20 each)."""
    registers = -(-dst_bytes // 256)
    return 1 + 3 * registers + 2 * 20


@pytest.mark.parametrize(("text", "cycles"), [
    # index: per row and register of 32-bit indices a predicate (2), two vlds, vscatter (5)
    (tscatter_kernel(tile((16, 64), "f32"), tile((32, 64), "f32"), tile((16, 64), "i32")),
     A5_FUNCTION + a5_zero_fill(32 * 64 * 4) + 16 * (2 + 2 + 5)),
    # 16-bit indices: 128 a register
    (tscatter_kernel(tile((4, 160), "f16", valid=(4, 150)), tile((8, 160), "f16"), tile((4, 160), "i16", valid=(4, 150))),
     A5_FUNCTION + a5_zero_fill(8 * 160 * 2) + 4 * 2 * (2 + 2 + 5)),
    # 8-byte data: Int64Scatter's own zeroing (no mem_bar), a predicate, per row two vlds, vadd 2, vadds 1, two vscatter
    (tscatter_kernel(tile((4, 8), "i64"), tile((8, 8), "i64"), tile((4, 8), "i32")),
     A5_FUNCTION + 1 + 3 * 2 + 2 + 4 * (2 + 2 + 1 + 10)),
    # row axis, period 2: the zeros (vbr), per row and register vlds, vintlv (5), two predicates and vsts
    (tscatter_kernel(tile((8, 64), "f32"), tile((8, 128), "f32"), mask="P0101"),
     A5_FUNCTION + a5_zero_fill(8 * 128 * 4) + 1 + 8 * (1 + 5 + 2 * 3)),
    # col axis, period 4: per row and register a predicate, vlds, vsts
    (tscatter_kernel(tile((4, 64), "f32"), tile((16, 64), "f32"), mask="P1000", axis="col"),
     A5_FUNCTION + a5_zero_fill(16 * 64 * 4) + 1 + 4 * (2 + 1 + 1)),
    # P1111: TMovVecToVec, per row and register a predicate, vlds, vsts
    (tscatter_kernel(tile((8, 128), "f16"), tile((8, 128), "f16"), mask="P1111"),
     A5_FUNCTION + 8 * (2 + 1 + 1)),
])
def test_a5_tscatter(text, cycles):
    assert on_target(text, "a5")["cycles"] == cycles


def test_cpu_tscatter_counts_the_indexes_or_dst_elements():
    index = tscatter_kernel(tile((16, 64), "f32", valid=(16, 60)), tile((32, 64), "f32"), tile((16, 64), "i32", valid=(16, 60)))
    col = tscatter_kernel(tile((9, 16), "i16", valid=(9, 3)), tile((40, 16), "i16", valid=(36, 3)), mask="P0100", axis="col")
    assert [on_target(t, "cpu")["cycles"] for t in (index, col)] == [16 * 60, 36 * 3]


def mscatter_kernel(rows: int, vc: int, dtype: str, attrs: str, table_rows: int = 512, elem: bool = False) -> str:
    cols = -(-vc * SIZE[dtype] // 32) * 32 // SIZE[dtype]
    src = tile((rows, cols), dtype, valid=(rows, vc))
    if elem:
        idx, shape = tile((rows, -(-vc // 8) * 8), "i32", valid=(rows, vc)), (1, table_rows * vc)
        attrs = "coalesce = #pto<coalesce elem>" + attrs
    else:
        idx, shape = tile((1, -(-rows // 8) * 8), "i32", valid=(1, rows)), (table_rows, vc)
        attrs = "coalesce = #pto<coalesce row>" + attrs
    body = f"""
    {constants(0, 1, *shape)}
    %tv = pto.make_tensor_view %a, shape = [%c{shape[0]}, %c{shape[1]}], strides = [%c{shape[1]}, %c1] : {tensor_view(2, dtype)}
    %tp = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c{shape[0]}, %c{shape[1]}] : {tensor_view(2, dtype)}
    %s = pto.alloc_tile : {src}
    %i = pto.alloc_tile : {idx}
    pto.mscatter ins(%s, %i : {src}, {idx}) outs(%tp : {view(shape, dtype)}) {{{attrs}}}
    """
    return kernel(func([("a", f"!pto.ptr<{dtype}, gm>")], body))


ADD = ", scatterAtomicOp = #pto<scatter_atomic_op add>"
SKIP = ", scatterOob = #pto<scatter_oob skip>"


@pytest.mark.parametrize(("text", "pipe", "cycles", "nbytes", "model"), [
    # a copy_ubuf_to_gm a row: floor(bytes / 2^30 / 188.46 GiB/s * 1.85 GHz)
    (mscatter_kernel(156, 443, "f16", ""), "MTE3", 156 * dma(443 * 2, UB_TO_GM), 156 * 443 * 2, "pto-isa-costmodel"),
    # atomic add: set_atomic_f32, set_atomic_add before, set_atomic_none after
    (mscatter_kernel(16, 64, "f32", ADD), "MTE3", 2 + 16 * dma(256, UB_TO_GM) + 1, 16 * 256, "a2a3-header-sequence"),
    # rows under a cycle each: the idle fallback 2 + src valid elements / 32
    (mscatter_kernel(8, 23, "i32", SKIP), "MTE3", 2 + 8 * 23 // 32, 8 * 23 * 4, "a2a3-header-sequence"),
    # elem mode: one scalar cycle an element; each GM line (64 bytes) written back, under a cycle
    (mscatter_kernel(18, 15, "i8", "", elem=True), "S", 18 * 15 + 18 * 15 * dma(64, UB_TO_GM), 18 * 15 * 64, "a2a3-header-sequence"),
    # an atomic add also fills each line GM->UB (1 cycle)
    (mscatter_kernel(4, 16, "f32", ADD, elem=True), "S", 64 + 64 * (dma(64, UB_TO_GM) + dma(64, GM_TO_UB)), 64 * 128,
     "a2a3-header-sequence"),
])
def test_a2a3_mscatter(text, pipe, cycles, nbytes, model):
    got = on_target(text, "a2a3")
    assert (got["pipe"], got["bytes"], got["cycles"], got["model"]) == (pipe, nbytes, cycles, model)


def test_a2a3_nz_row_mscatter_copies_each_column_block_of_a_row():
    c0, s1, s2 = 16, 3, 2  # f16: a [1, 3, 2, 16, 16] NZ table, 32 x 48 logical
    src = tile((32, 48), "f16", valid=(20, 48), blayout="col_major", slayout="row_major")
    idx = tile((1, 24), "i32", valid=(1, 20))
    body = f"""
    {constants(0, 1, s1, s2, 16, c0, s1 * s2 * 16 * c0, s2 * 16 * c0, 16 * c0)}
    %tv = pto.make_tensor_view %a, shape = [%c1, %c{s1}, %c{s2}, %c16, %c{c0}], strides = [%c{s1 * s2 * 16 * c0}, %c{s2 * 16 * c0}, %c{16 * c0}, %c{c0}, %c1] {{layout = #pto.layout<nz>}} : {tensor_view(5, "f16")}
    %tp = pto.partition_view %tv, offsets = [%c0, %c0, %c0, %c0, %c0], sizes = [%c1, %c{s1}, %c{s2}, %c16, %c{c0}] : {tensor_view(5, "f16")}
    %s = pto.alloc_tile : {src}
    %i = pto.alloc_tile : {idx}
    pto.mscatter ins(%s, %i : {src}, {idx}) outs(%tp : {view((1, s1, s2, 16, c0), "f16")}) {{coalesce = #pto<coalesce row>}}
    """
    got = on_target(kernel(func([("a", "!pto.ptr<f16, gm>")], body)), "a2a3")
    # a multi-burst copy of S1 32-byte blocks a row (S0 = 1): 96 bytes, under a cycle: the fallback
    assert dma(s1 * 32, UB_TO_GM) == 0
    assert (got["bytes"], got["cycles"], got["model"]) == (20 * s1 * 32, 2 + 20 * 48 // 32, "pto-isa-costmodel")


@pytest.mark.parametrize(("text", "segments"), [
    # atomic add: warps over a row's columns, each row its aligned 128-byte segments
    (mscatter_kernel(16, 64, "f32", ADD), 16 * 2),
    (mscatter_kernel(8, 100, "f16", ADD, table_rows=64), 8 * 2),
    # no atomic op, scatterConflict last (the default): a lane per table row stores its row column
    # by column, each store its own segment
    (mscatter_kernel(16, 64, "f32", SKIP), 16 * 64),
    # elem mode: a lane an element, each its own segment
    (mscatter_kernel(4, 40, "f32", ADD, elem=True), 4 * 40),
])
def test_a5_mscatter_costs_its_bursts(text, segments):
    got = on_target(text, "a5")
    assert (got["pipe"], got["bytes"], got["cycles"]) == ("V", segments * 128, dma(segments * 128, UB_TO_GM))


def test_cpu_mscatter_counts_the_elements_its_loops_visit():
    assert [on_target(mscatter_kernel(16, 64, "f32", SKIP, elem=elem), "cpu")["cycles"] for elem in (False, True)] == [16 * 64] * 2
