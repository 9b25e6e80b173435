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
from pto_dialect.cost import CceTrace, NoCostModel
from pto_dialect.instructions import REGISTRY
from targets.cost_docs import render
from tests.interpreter.harness import constants, func, tensor_view, tile, view

ROOT = Path(__file__).resolve().parents[2]
GIB = 1 << 30
HZ = Fraction(1_850_000_000)
GM_TO_UB, UB_TO_GM = Fraction("100.9"), Fraction("188.46")
SIZE = {"i8": 1, "f16": 2, "bf16": 2, "i16": 2, "f32": 4, "i32": 4}


def dma(nbytes: int, gib_per_s: Fraction) -> int:
    """pto-isa EstimateBandwidthCycles: floor(bytes / 2^30 / bandwidth * 1.85e9)."""
    return int(Fraction(nbytes) / GIB / gib_per_s * HZ)


def kernel(*functions: str) -> str:
    return 'module attributes {pto.target_arch = "a2a3"} {\n' + "".join(functions) + "}\n"


def report(text: str, target: str = "a2a3"):  # noqa: ANN201
    return estimate(parse(text, "k.pto"), target)


def transfer_kernel(rows: int, cols: int, dtype: str, pad: int = 0) -> str:
    t = tile((rows, cols), dtype, **({"pad": str(pad)} if pad else {}))
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
    t = CceTrace(targets.get("a2a3").costs)
    t.vector("vmuls")  # head 11 + 1
    t.vector("vmuls")  # 1 (queue busy)
    t.barrier()  # tail 15 + 1
    t.vector("vgather")  # head 24 + 2 (queue emptied)
    assert t.cycles == 12 + 1 + 16 + 26


def test_a_loop_is_its_first_trip_then_its_steady_trips():
    machine = targets.get("a2a3").costs
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
    for row in estimate(module, target).ops:
        assert row.cycles is None or row.cycles > 0, f"{row.loc} {row.op}: 0 cycles on {target}"


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
