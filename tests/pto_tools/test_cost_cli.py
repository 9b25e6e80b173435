"""`pto-opt --estimate` and `pto-run --profile` on the command line (docs/cost.md)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pto_tools import pto_opt, pto_run
from tests.pto_tools.cli import ROOT, call, save

DATA = ROOT / "examples" / "data"
WRAP = str(ROOT / "examples" / "embedding_wrap.pto")
LOOKUP = str(ROOT / "examples" / "embedding_lookup.pto")
WRAP_INPUTS = [str(DATA / f"wrap_{name}.npy") for name in ("table", "ids", "out")]
REPORT_KEYS = ["target", "ops", "pipes", "serial_cycles", "bound_cycles", "cores"]
OP_KEYS = ["op", "loc", "pipe", "bytes", "cycles", "count", "model"]


def assert_schema(report: dict) -> None:
    assert list(report) == REPORT_KEYS
    assert report["ops"] and all(list(op) == OP_KEYS for op in report["ops"])


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_estimate_json_is_the_schema_alone(target, capsys):
    code, out, err = call(pto_opt.main, [WRAP, "--target", target, "--estimate=json"], capsys)
    assert (code, err) == (0, "")
    report = json.loads(out)
    assert_schema(report)
    assert report["target"] == target
    assert report["serial_cycles"] == sum(op["cycles"] * op["count"] for op in report["ops"])


def test_a_bare_estimate_takes_no_value_from_the_next_argument(capsys):
    code, out, _ = call(pto_opt.main, ["--estimate", WRAP, "--target", "a5"], capsys)
    assert code == 0 and out.startswith("estimate for target a5")


def test_profile_table_follows_the_previews(capsys):
    code, out, err = call(pto_run.main, [WRAP, "--target", "a2a3", "--profile", *WRAP_INPUTS], capsys)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "target: a2a3 (--target a2a3)"
    assert lines[1].startswith("arg2: float32 [64], as 8 x 8")  # the only argument the kernel writes
    assert lines[2 + 8].startswith("profile for target a2a3")  # after arg2's 8 rows


def test_profile_json_is_the_only_output(capsys):
    code, out, err = call(pto_run.main, [WRAP, "--target", "a5", "--profile=json", *WRAP_INPUTS], capsys)
    assert (code, err) == (0, "")
    report = json.loads(out)
    assert_schema(report)
    static = json.loads(call(pto_opt.main, [WRAP, "--target", "a5", "--estimate=json"], capsys)[1])
    # one pass through the kernel, whose ops depend on no data: what ran is what was estimated
    assert [(o["op"], o["cycles"], o["count"]) for o in report["ops"]] == [(o["op"], o["cycles"], o["count"]) for o in static["ops"]]


def test_profiles_side_by_side_on_every_target(capsys):
    code, out, err = call(pto_run.main, [WRAP, "--targets", "all", "--profile", *WRAP_INPUTS], capsys)
    assert (code, err) == (1, "")  # every target ran; they disagree on arg2 (negative ids), so exit 1
    assert "arg2: 48 elements differ" in out
    assert "profile side by side" in out and "cpu cycles" in out and "a5 total" in out
    code_json, out_json, err_json = call(pto_run.main, [WRAP, "--targets", "all", "--profile=json", *WRAP_INPUTS], capsys)
    assert code_json == code
    reports = json.loads(out_json)
    assert [r["target"] for r in reports] == ["cpu", "a2a3", "a5"]
    for r in reports:
        assert_schema(r)
    assert "cpu: ran" in err_json  # the comparison goes to stderr, the JSON alone to stdout


def test_estimate_and_profile_take_the_calibrated_model_and_cores(capsys):
    pto_isa = json.loads(call(pto_opt.main, [WRAP, "--target", "a2a3", "--estimate=json"], capsys)[1])
    code, out, err = call(
        pto_opt.main, [WRAP, "--target", "a2a3", "--estimate=json", "--cost-model=calibrated", "--cores", "48"], capsys
    )
    assert (code, err) == (0, "")
    calibrated = json.loads(out)
    assert_schema(calibrated)
    loads = [(p, c) for p, c in zip(pto_isa["ops"], calibrated["ops"]) if p["op"] == "pto.tload"]
    assert loads and all(c["model"] == "a2a3-calibrated" and c["cycles"] > p["cycles"] for p, c in loads)
    code, out, err = call(
        pto_run.main, [WRAP, "--target", "a2a3", "--profile=json", "--cost-model=calibrated", "--cores=48", *WRAP_INPUTS],
        capsys,
    )
    assert (code, err) == (0, "")
    assert [(o["op"], o["cycles"]) for o in json.loads(out)["ops"]] == [(o["op"], o["cycles"]) for o in calibrated["ops"]]


@pytest.mark.parametrize("tool", ["pto-opt", "pto-run"])
def test_a_target_without_a_calibrated_model_is_an_error(tool, capsys):
    if tool == "pto-opt":
        code, out, err = call(pto_opt.main, [WRAP, "--target", "a5", "--estimate", "--cost-model=calibrated"], capsys)
    else:
        code, out, err = call(pto_run.main, [WRAP, "--target", "a5", "--profile", "--cost-model=calibrated", *WRAP_INPUTS], capsys)
    assert code == 1 and out == ""
    assert "error: " in err and "target a5 has no calibrated cost model: no public hardware figure" in err
    assert "Traceback" not in err


def test_profile_trace_is_a_chrome_trace_of_the_pipes(tmp_path, capsys):
    """One track per pipe; each op execution a complete slice with its location, cycles and bytes,
    named after its loop iteration; a pipe runs one op at a time, and an op starts after the ops
    whose tiles it reads (the gather after the load of its indices, the store after the gather)."""
    inputs = save(tmp_path, [
        np.arange(1024 * 64, dtype=np.float16).reshape(1024, 64), np.arange(32, dtype=np.int32) * 37 % 1100,
        np.zeros((32, 64), np.float16),
    ])
    code, out, err = call(
        pto_run.main, [LOOKUP, "--target", "a2a3", "--profile=trace", "--cost-model=calibrated", *inputs], capsys
    )
    assert (code, err) == (0, "")
    trace = json.loads(out)
    events = trace["traceEvents"]
    tracks = {e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    slices = [e for e in events if e["ph"] == "X"]
    assert {tracks[s["tid"]] for s in slices} == {"MTE2", "MTE3"}  # S: only the flags' markers
    marks = [e for e in events if e["ph"] == "i"]
    assert marks and {m["name"].split()[0] for m in marks} == {"set_flag", "wait_flag"}
    assert all(tracks[s["tid"]] == s["cat"] for s in slices)
    profile = json.loads(call(pto_run.main, [LOOKUP, "--target", "a2a3", "--profile=json", "--cost-model=calibrated",
                                             *inputs], capsys)[1])
    assert len(slices) == sum(o["count"] for o in profile["ops"])
    by_op = {o["op"]: o for o in profile["ops"]}
    for s in slices:
        assert set(s["args"]) == {"op", "loc", "cycles", "bytes", "iteration"}
        assert s["dur"] == s["args"]["cycles"] == by_op[s["args"]["op"]]["cycles"]
        assert s["args"]["loc"].startswith(LOOKUP) and s["args"]["bytes"] == by_op[s["args"]["op"]]["bytes"]
    for tid in tracks:
        on_track = sorted((s["ts"], s["ts"] + s["dur"]) for s in slices if s["tid"] == tid)
        assert all(end <= next_start for (_, end), (next_start, _) in zip(on_track, on_track[1:]))
    iterations = [s["args"]["iteration"] for s in slices if s["args"]["op"] == "pto.tstore"]
    assert len({tuple(i.items()) for i in iterations}) == len(iterations) > 1  # each iteration its own slice
    for iteration in iterations:
        same = {s["args"]["op"]: s for s in slices if s["args"]["iteration"] == iteration}
        assert same["pto.tload"]["ts"] + same["pto.tload"]["dur"] <= same["pto.mgather"]["ts"]
        assert same["pto.mgather"]["ts"] + same["pto.mgather"]["dur"] <= same["pto.tstore"]["ts"]
        assert f"({next(iter(iteration))}=" in same["pto.tstore"]["name"]
    assert trace["otherData"]["cycles"] == max(s["ts"] + s["dur"] for s in slices)


@pytest.mark.parametrize(("flags", "message"), [
    (["--cores", "4"], "pto-isa's cost model has no contention between cores: --cores needs --cost-model=calibrated"),
    (["--cost-model=calibrated", "--cores", "0"], "--cores expects at least 1 core transferring at once, got 0"),
])
def test_cores_without_the_calibrated_model_or_below_one_are_errors(flags, message, capsys):
    for main, args in ((pto_opt.main, [WRAP, "--target", "a2a3", "--estimate", *flags]),
                       (pto_run.main, [WRAP, "--target", "a2a3", "--profile", *flags, *WRAP_INPUTS])):
        code, out, err = call(main, args, capsys)
        assert (code, out) == (1, "")
        assert "error: " in err and message in err and "Traceback" not in err


def test_cost_model_flags_without_estimate_or_profile_are_errors(capsys):
    code, out, err = call(pto_opt.main, [WRAP, "--target", "a2a3", "--cost-model=calibrated"], capsys)
    assert (code, out) == (1, "") and "--cost-model and --cores price --estimate: add --estimate" in err
    code, out, err = call(pto_run.main, [WRAP, "--target", "a2a3", "--cores", "2", *WRAP_INPUTS], capsys)
    assert (code, out) == (1, "") and "--cost-model and --cores price --profile: add --profile" in err
    code, out, err = call(pto_run.main, [WRAP, "--targets", "all", "--profile=trace", *WRAP_INPUTS], capsys)
    assert (code, out) == (1, "") and "--profile=trace takes one --target" in err


def bench_kernel(script: str, name: str, smaller: dict[str, str]) -> str:
    """A bench script's kernel text (bench/ is no package), its loop shortened by `smaller`'s edits."""
    import importlib.util
    import sys

    sys.path.insert(0, str(ROOT / "bench"))
    try:
        spec = importlib.util.spec_from_file_location(f"bench_{script}", ROOT / "bench" / f"{script}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "bench"))
    text = getattr(module, name)
    for old, new in smaller.items():
        assert old in text
        text = text.replace(old, new)
    return text


@pytest.mark.parametrize(("script", "name", "smaller", "inputs", "ops", "bound"), [
    ("softmax", "KERNEL", {"%ctiles = arith.constant 1024": "%ctiles = arith.constant 4",
                           "%nrows = arith.constant 65536": "%nrows = arith.constant 256"}, None,
     ["pto.tload", "pto.trowmax", "pto.trowexpandsub", "pto.texp", "pto.trowsum", "pto.trowexpanddiv", "pto.tstore"], "V"),
    ("run", "PTOAS_KERNEL", {"%ctiles = arith.constant 1024": "%ctiles = arith.constant 4", "100000": "512",
                             "%nids = arith.constant 65536": "%nids = arith.constant 256"}, None,
     ["pto.tload", "pto.mgather", "pto.tstore"], "MTE2"),
    ("embedding", "SCALAR_IDS", {"%ctokens = arith.constant 1024": "%ctokens = arith.constant 4"}, "scalar_ids",
     ["pto.tload", "pto.tstore"], "MTE2"),
])
def test_the_benches_profiled_with_the_calibrated_model_show_each_op_and_the_bounding_pipe(
    tmp_path, capsys, script, name, smaller, inputs, ops, bound,
):
    """Issue 28: `pto-run --profile --cost-model=calibrated` on the embedding and softmax benches
    prints each op's cycles (every loop trip counted) and which pipe bounds the kernel."""
    kernel = tmp_path / f"{script}.pto"
    kernel.write_text(bench_kernel(script, name, smaller))
    if inputs is None:
        given = ["--inputs", "random"]
    else:  # token ids read by load_scalar: arrays, the vocabulary a scalar
        import ml_dtypes

        given = save(tmp_path, [
            np.ones((16, 7168), ml_dtypes.bfloat16), np.array([3, -1, 40, 7], np.int32),
            np.zeros((4, 7168), ml_dtypes.bfloat16), np.array(16, np.int64),
        ])
    code, out, err = call(pto_run.main, [str(kernel), "--target", "a2a3", *given, "--profile", "--cost-model=calibrated"], capsys)
    assert (code, err) == (0, "")
    table = out[out.index("profile for target a2a3 (calibrated cost model"):].splitlines()
    rows = [line.split() for line in table[2:2 + len(ops)]]
    assert [r[1] for r in rows] == ops
    assert all(r[4].isdigit() and int(r[4]) > 0 and r[5] == "4" for r in rows)  # cycles, and 4 loop trips
    pipes = json.loads(call(pto_run.main, [str(kernel), "--target", "a2a3", *given, "--profile=json",
                                           "--cost-model=calibrated"], capsys)[1])["pipes"]
    assert table[len(ops) + 4] == f"bound cycles (busiest pipe): {max(pipes.values())} ({bound})"
    assert max(pipes, key=pipes.__getitem__) == bound
