"""Every pass that takes a target resolves it the same way (targets.resolve): its own
option, else pto-opt's --target, else the module's pto.target_arch, else a2a3; one
invocation has one target, so a pass option and --target that name two are a usage error."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import targets
from passes import get_all_passes
from pto_tools import pto_opt

KERNEL = (Path(__file__).resolve().parent.parent / "examples" / "embedding_lookup.pto").read_text()

TARGET_PASSES = sorted(
    name
    for name, load in get_all_passes().items()
    if "target" in {f.name for f in dataclasses.fields(load())}
)

WAYS = [
    # (how the target is given, pass option, pto-opt flags, module's pto.target_arch, expected)
    ("pass option", "{target=a5}", [], "a2a3", "a5"),
    ("pass option alias", "{target=a3}", [], "cpu", "a2a3"),
    ("pass option and --target alike", "{target=a3}", ["--target", "a2"], "a5", "a2a3"),
    ("--target", "", ["--target", "a5"], "cpu", "a5"),
    ("module attribute", "", [], "cpu", "cpu"),
    ("none", "", [], None, "a2a3"),
]


def test_the_target_taking_passes_are_known():
    assert TARGET_PASSES == [
        "pto-insert-sync",
        "pto-lower",
        "pto-materialize-implicit-tmp",
        "pto-pipeline",
        "pto-plan-memory",
        "pto-verify-target",
    ]


def kernel_for(arch: str | None) -> str:
    header = 'module attributes {pto.target_arch = "a2a3"} {'
    return KERNEL.replace(header, "module {" if arch is None else header.replace("a2a3", arch))


@pytest.mark.parametrize("pass_name", TARGET_PASSES)
@pytest.mark.parametrize("way,option,flags,arch,expected", WAYS, ids=[w[0] for w in WAYS])
def test_pass_resolves_its_target(pass_name, way, option, flags, arch, expected, tmp_path, monkeypatch, capsys):
    kernel = tmp_path / "k.pto"
    kernel.write_text(kernel_for(arch))
    resolved: list[str] = []
    real_resolve = targets.resolve

    def spy(option, module):
        target = real_resolve(option, module)
        resolved.append(target.name)
        return target

    monkeypatch.setattr(targets, "resolve", spy)
    pipeline = f"pto-ssa-to-dps,{pass_name}{option}" if pass_name != "pto-pipeline" else f"{pass_name}{option}"
    pto_opt.main([str(kernel), "-p", pipeline, *flags])
    out = capsys.readouterr().out
    assert set(resolved) == {expected}, (way, resolved)
    if pass_name in ("pto-lower", "pto-pipeline"):
        assert f"pto_{expected}.mgather_row" in out
        assert not any(f"pto_{t}." in out for t in targets.names() if t != expected)


def test_pass_option_names_the_targets_when_unknown(tmp_path, capsys):
    kernel = tmp_path / "k.pto"
    kernel.write_text(kernel_for(None))
    with pytest.raises(SystemExit) as exit:
        pto_opt.main([str(kernel), "-p", "pto-lower{target=a4}"])
    assert exit.value.code == 1
    err = capsys.readouterr().err
    assert "unknown target 'a4'; expected one of cpu, a2a3, a2, a3, a5" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "pipeline, flags, first, second",
    [
        ("pto-lower{target=a5}", ["--target", "cpu"], "cpu (--target cpu)", "a5 (pto-lower{target=a5})"),
        ("pto-plan-memory{target=a3},pto-lower{target=a5}", [], "a2a3 (pto-plan-memory{target=a3})", "a5 (pto-lower{target=a5})"),
        ("convert-pto-to-a5", ["--target", "a3"], "a2a3 (--target a3)", "a5 (convert-pto-to-a5)"),
    ],
)
def test_two_targets_in_one_invocation_are_a_usage_error(pipeline, flags, first, second, tmp_path, capsys):
    kernel = tmp_path / "k.pto"
    kernel.write_text(kernel_for(None))
    with pytest.raises(SystemExit) as exit:
        pto_opt.main([str(kernel), "-p", f"pto-ssa-to-dps,{pipeline}", *flags])
    assert exit.value.code == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"error: two targets in one invocation: {first} and {second}; an invocation has one target\n"
