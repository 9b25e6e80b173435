"""
`--cost-model=calibrated` (pto_dialect/cost.py CalibratedMachine, targets/a2a3/costs.py
CALIBRATED): each expected figure is written here from the model's rule (a transfer call costs
its path's latency, (cores - 1) x contention, and its 32-byte blocks at the rate of its burst
length), with the parameters read from the table, never from pto_dialect/instructions/.
"""

from __future__ import annotations

import pytest

from passes.estimate import estimate
from pto_dialect import PtoError, parse
from pto_dialect.cost import DmaPath
from targets.a2a3.costs import CALIBRATED
from tests.interpreter.harness import constants, func, tensor_view, tile, view
from tests.passes.test_estimate import ROOT, transfer_kernel

GM_TO_UB, UB_TO_GM, GM_TO_L1 = (CALIBRATED.paths[p] for p in (DmaPath.GM_TO_UB, DmaPath.UB_TO_GM, DmaPath.GM_TO_L1))


def call(timing, bursts: int, burst_bytes: int, cores: int = 1) -> float:
    """One transfer call of `bursts` bursts of `burst_bytes` each."""
    long = burst_bytes > 512 and timing.per_long_block is not None
    rate = (timing.per_long_block if long else timing.per_block).value
    return timing.latency.value + CALIBRATED.contention.value * (cores - 1) + bursts * -(-burst_bytes // 32) * rate


def rows_of(text: str, cores: int = 1, target: str = "a2a3") -> dict[str, dict]:
    report = estimate(parse(text, "k.pto"), target, "calibrated", cores)
    return {r["op"]: r for r in report.json()["ops"]}


@pytest.mark.parametrize("cores", [1, 48])
@pytest.mark.parametrize(("rows", "cols", "dtype"), [(128, 128, "f32"), (16, 48, "f16"), (8, 1024, "f32")])
def test_a_vec_load_and_store_cost_their_calls_blocks_and_contention(rows, cols, dtype, cores):
    size = {"f32": 4, "f16": 2}[dtype]
    ops = rows_of(transfer_kernel(rows, cols, dtype), cores)
    assert ops["pto.tload"]["cycles"] == round(call(GM_TO_UB, rows, cols * size, cores))
    assert ops["pto.tstore"]["cycles"] == round(call(UB_TO_GM, rows, cols * size, cores))
    assert ops["pto.tload"]["bytes"] == rows * cols * size
    assert {op["model"] for op in ops.values()} == {"a2a3-calibrated"}


def test_a_longer_burst_than_a_line_costs_the_long_rate():
    ops = rows_of(transfer_kernel(2, 1024, "f32"))
    assert ops["pto.tload"]["cycles"] == round(
        GM_TO_UB.latency.value + 2 * (4096 // 32) * GM_TO_UB.per_long_block.value  # type: ignore[union-attr]
    )


def test_a_load_of_several_calls_pays_the_latency_per_call():
    """A 3-D view (2 x 8 x 64 f16) into a 16 x 64 tile: one call per leading index."""
    t = tile((16, 64), "f16")
    body = f"""
    {constants(0, 1, 2, 8, 64, 512)}
    %av = pto.make_tensor_view %a, shape = [%c2, %c8, %c64], strides = [%c512, %c64, %c1] : {tensor_view(3, "f16")}
    %ap = pto.partition_view %av, offsets = [%c0, %c0, %c0], sizes = [%c2, %c8, %c64] : {tensor_view(3, "f16")}
    %t = pto.alloc_tile : {t}
    pto.tload ins(%ap : {view((2, 8, 64), "f16")}) outs(%t : {t})
    """
    text = 'module attributes {pto.target_arch = "a2a3"} {\n' + func([("a", "!pto.ptr<f16, gm>")], body) + "}\n"
    assert rows_of(text)["pto.tload"]["cycles"] == round(2 * call(GM_TO_UB, 8, 128))


def test_an_l1_load_uses_the_gm_to_l1_rate_and_a_path_without_figures_the_base_model():
    """An ND view into an NZ L1 tile (a burst per GM row); its store back to GM (L1 -> GM) has no
    figure, so pto-isa's model prices it, and says so."""
    t = tile((32, 64), "f16", loc="mat", blayout="col_major", slayout="row_major")
    body = f"""
    {constants(0, 1, 32, 64)}
    %av = pto.make_tensor_view %a, shape = [%c32, %c64], strides = [%c64, %c1] : {tensor_view(2, "f16")}
    %ap = pto.partition_view %av, offsets = [%c0, %c0], sizes = [%c32, %c64] : {tensor_view(2, "f16")}
    %t = pto.alloc_tile : {t}
    pto.tload ins(%ap : {view((32, 64), "f16")}) outs(%t : {t})
    """
    text = 'module attributes {pto.target_arch = "a2a3"} {\n' + func([("a", "!pto.ptr<f16, gm>")], body) + "}\n"
    assert rows_of(text, cores=24)["pto.tload"]["cycles"] == round(call(GM_TO_L1, 32, 128, cores=24))
    assert DmaPath.L1_TO_GM not in CALIBRATED.paths


def test_other_instructions_cost_what_the_base_model_says():
    text = (ROOT / "examples" / "embedding_lookup.pto").read_text()
    calibrated = estimate(parse(text, "e.pto"), "a2a3", "calibrated").json()["ops"]
    pto_isa = estimate(parse(text, "e.pto"), "a2a3").json()["ops"]
    gather = [(c, p) for c, p in zip(calibrated, pto_isa) if c["op"] == "pto.mgather"]
    assert gather and all(c == p for c, p in gather)


def test_the_default_is_pto_isa():
    text = transfer_kernel(16, 64, "f16")
    assert {r["model"] for r in estimate(parse(text, "k.pto"), "a2a3").json()["ops"]} == {"pto-isa-costmodel"}


@pytest.mark.parametrize(("target", "reason"), [("a5", "no public hardware figure"), ("cpu", "not hardware")])
def test_a_target_without_a_calibrated_model_says_why(target, reason):
    with pytest.raises(PtoError, match=f"target {target} has no calibrated cost model: .*{reason}"):
        estimate(parse(transfer_kernel(16, 64, "f16"), "k.pto"), target, "calibrated")


@pytest.mark.parametrize(("model", "cores", "message"), [
    ("guess", 1, "unknown cost model 'guess' \\(expected one of pto-isa, calibrated\\)"),
    ("calibrated", 0, "--cores expects at least 1 core transferring at once, got 0"),
    ("pto-isa", 48, "pto-isa's cost model has no contention between cores: --cores needs --cost-model=calibrated"),
])
def test_a_bad_cost_model_or_core_count_is_a_located_error(model, cores, message):
    with pytest.raises(PtoError, match=f"^k.pto:1:1: error: .*{message}"):
        estimate(parse(transfer_kernel(16, 64, "f16"), "k.pto"), "a2a3", model, cores)


SPMD_KERNEL = ROOT / "tests" / "filecheck" / "cost" / "spmd_cores.pto"


def spmd_profile(block_num: int, cores: int | None) -> dict:
    import numpy as np

    import interpreter

    profiler = interpreter.Profiler("a2a3", "calibrated", cores)
    src = np.arange(16 * 256, dtype=np.float32)
    args = [src, np.zeros_like(src), np.int32(0), np.int32(block_num)]
    interpreter.run_with_results(str(SPMD_KERNEL), "a2a3", args, profiler=profiler)
    return profiler.report().json()


def test_the_cores_default_to_the_kernel_s_spmd_block_count_in_a_run():
    """A PyPTO SPMD kernel's %__pypto_spmd_block_num is its launch's block count: a run reads it (each
    block's transfers contend with the others'), --cores overrides it, and an estimate, before any
    launch, assumes 1 and says why."""
    load = {"pto.tload": (16, 256 * 4)}
    for block_num, cores, expected, said in ((24, None, 24, "the kernel's SPMD block count"), (24, 3, 3, "--cores")):
        report = spmd_profile(block_num, cores)
        assert report["cores"]["count"] == expected and report["cores"]["from"].startswith(said)
        (tload,) = [r for r in report["ops"] if r["op"] in load]
        assert tload["cycles"] == round(call(GM_TO_UB, *load["pto.tload"], expected))
    static = estimate(parse(SPMD_KERNEL.read_text(), "k.pto"), "a2a3", "calibrated").json()
    assert static["cores"] == {
        "count": 1, "from": "default: the kernel's SPMD block count %__pypto_spmd_block_num is its launch's; --cores N sets it"
    }
    assert estimate(parse(transfer_kernel(16, 64, "f16"), "k.pto"), "a2a3").json()["cores"] is None  # no contention
    assert estimate(parse(transfer_kernel(16, 64, "f16"), "k.pto"), "a2a3", "calibrated").json()["cores"] == {
        "count": 1, "from": "default"
    }
