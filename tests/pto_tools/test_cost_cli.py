"""`pto-opt --estimate` and `pto-run --profile` on the command line (docs/cost.md)."""

from __future__ import annotations

import json

import pytest

from pto_tools import pto_opt, pto_run
from tests.pto_tools.cli import ROOT, call

DATA = ROOT / "examples" / "data"
WRAP = str(ROOT / "examples" / "embedding_wrap.pto")
WRAP_INPUTS = [str(DATA / f"wrap_{name}.npy") for name in ("table", "ids", "out")]
REPORT_KEYS = ["target", "ops", "pipes", "serial_cycles", "bound_cycles"]
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
