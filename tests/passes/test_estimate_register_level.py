"""
The a5 register level (pto_dialect/vpto/) priced before a run (`pto-opt --estimate`) as `pto-run
--profile` prices what ran: each op its row, from targets/a5/costs.py's REGISTER_LEVEL table. The
expected cycles are written here from the table's rule (an op runs as a `vf_ops` instruction, its
cycles each time; a copy moves len_burst x n_burst x loop counts bytes at its path's bandwidth,
floor(bytes / 2^30 / GiB/s * Hz); a scope costs VfSim's startup and drain), never from
passes/estimate.py.
"""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

import interpreter
from passes.estimate import estimate
from pto_dialect import PtoError, parse
from pto_dialect.cost import DmaPath
from targets.a5.costs import MACHINE
from tests.passes.test_estimate import ROOT

KERNEL = (ROOT / "tests" / "filecheck" / "cost" / "register_level.pto").read_text()
IN_BYTES = 64 * 4 * 2
"""Its mte_gm_ub: 4 bursts of 64 bytes in a loop of 2."""


def dma(path: DmaPath, nbytes: int) -> int:
    rate = Fraction(MACHINE.dma.bandwidth_gib_s[path].value) * 2**30
    return int(Fraction(nbytes) * Fraction(MACHINE.dma.frequency_hz.value) / rate)


def op(name: str) -> int:
    return int(MACHINE.vf_ops[name].value)


EXPECTED = [  # op, pipe, bytes, cycles, count
    ("pto.set_loop_size_outtoub", "S", 0, int(MACHINE.config_call.value), 1),
    ("pto.mte_gm_ub", "MTE2", IN_BYTES, dma(DmaPath.GM_TO_UB, IN_BYTES), 1),
    ("pto.vecscope", "V", 0, int(MACHINE.vf_startup.value + MACHINE.vf_drain.value), 1),
    ("pto.plt_b32", "V", 0, op("plt"), 3),
    ("pto.vlds", "V", 0, op("vlds"), 3),
    ("pto.vgather2", "V", 0, op("vgather2"), 3),
    ("pto.vsts", "V", 0, op("vsts"), 3),
    ("pto.mem_bar", "V", 0, op("mem_bar"), 1),
    ("pto.mte_ub_ub", "V", 2 * 4 * 32, dma(DmaPath.UB_TO_UB, 2 * 4 * 32), 1),
    ("pto.mte_ub_gm", "MTE3", 4 * 256, dma(DmaPath.UB_TO_GM, 4 * 256), 1),
]


def rows(report: dict) -> list[tuple]:
    return [(r["op"], r["pipe"], r["bytes"], r["cycles"], r["count"]) for r in report["ops"]]


def profile(text: str, args: list[np.ndarray]) -> dict:
    profiler = interpreter.Profiler("a5")
    interpreter.run_with_results(parse(text, "k.pto"), "a5", args, profiler=profiler)
    return profiler.report().json()


def test_each_register_op_is_priced_from_the_table_before_a_run():
    """Pointer and scalar ops have no row; the loop's ops count its 3 trips."""
    assert rows(estimate(parse(KERNEL, "k.pto"), "a5").json()) == EXPECTED


def test_the_estimate_is_what_the_profile_counts():
    static = estimate(parse(KERNEL, "k.pto"), "a5").json()
    ran = profile(KERNEL, [np.zeros(512, np.float32), np.zeros(512, np.float32)])
    assert rows(ran) == rows(static)
    assert ran["bound_cycles"] == static["bound_cycles"]


def test_a_lowered_tile_op_s_register_ops_are_priced_alike(capsys):
    """TGATHER's index form on a5 is the register gather its lowering writes: estimated and profiled
    row for row (a data-independent kernel)."""
    from pto_tools import pto_opt, pto_run
    from tests.pto_tools.cli import call

    kernel = str(ROOT / "examples" / "tgather_forms.pto")
    static = json.loads(call(pto_opt.main, [kernel, "--target", "a5", "--estimate=json"], capsys)[1])
    ran = json.loads(call(pto_run.main, [kernel, "--target", "a5", "--inputs", "random", "--profile=json"], capsys)[1])
    assert "pto.vgather2" in [r["op"] for r in static["ops"]]
    assert rows(ran) == rows(static)


def test_a_copy_of_counts_known_only_at_run_time_has_no_static_cost():
    text = KERNEL.replace("func.func @k(%x: !pto.ptr<f32, gm>, %y: !pto.ptr<f32, gm>)",
                          "func.func @k(%x: !pto.ptr<f32, gm>, %y: !pto.ptr<f32, gm>, %bursts: i64)")
    text = text.replace("nburst(%c4, %c256, %c256) :", "nburst(%bursts, %c256, %c256) :")
    report = estimate(parse(text, "k.pto"), "a5").json()
    (copy,) = [r for r in report["ops"] if r["op"] == "pto.mte_ub_gm"]
    assert (copy["pipe"], copy["bytes"], copy["cycles"]) == ("MTE3", None, None)
    assert report["serial_cycles"] is None


def test_the_register_level_elsewhere_is_a_located_error():
    with pytest.raises(PtoError, match=r"^k.pto:36:5: error: 'pto.castptr' op is a register-level op here, taken on a5 only \(not implemented"):
        estimate(parse(KERNEL.replace('"a5"', '"a2a3"'), "k.pto"), "a2a3")


def test_a_register_op_without_a_row_is_a_located_error_before_a_run(monkeypatch):
    """Never a silent 0: an op the table does not list has no cost model, in the estimate and before a
    profiled run starts."""
    monkeypatch.delitem(MACHINE.register_level, "pto.vgather2")  # pyright: ignore[reportArgumentType]
    line = next(i for i, text in enumerate(KERNEL.splitlines(), 1) if "= pto.vgather2" in text)
    message = rf"^k.pto:{line}:\d+: error: 'pto.vgather2' op has no cost model on target a5: pto.vgather2 has no row"
    with pytest.raises(PtoError, match=message):
        estimate(parse(KERNEL, "k.pto"), "a5")
    with pytest.raises(PtoError, match=message):
        profile(KERNEL, [np.zeros(512, np.float32), np.zeros(512, np.float32)])
