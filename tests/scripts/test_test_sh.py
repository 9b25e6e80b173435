"""scripts/test.sh: a failing static check (ruff, basedpyright) fails the run as pytest or lit
would, and its report is shown. Run on a copy of the script, with a venv.sh that puts
stand-ins for every tool it calls first on PATH."""

import subprocess
from pathlib import Path

import pytest

from tests.pto_tools.cli import ROOT

TOOLS = ("python", "lit", "ruff", "basedpyright")

STAND_IN_VENV = """\
export PATH="{bin}:$PATH"
cd "{root}"
"""


def run_test_sh(tmp_path: Path, failing: str | None) -> subprocess.CompletedProcess[str]:
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "test.sh").write_text((ROOT / "scripts" / "test.sh").read_text())
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (tmp_path / "scripts" / "venv.sh").write_text(STAND_IN_VENV.format(bin=bin_dir, root=tmp_path))
    for tool in TOOLS:
        status = 1 if tool == failing else 0
        (bin_dir / tool).write_text(f'#!/usr/bin/env bash\necho "{tool} ran: $*"\nexit {status}\n')
        (bin_dir / tool).chmod(0o755)
    return subprocess.run(["bash", str(tmp_path / "scripts" / "test.sh")], capture_output=True, text=True, cwd=tmp_path)


@pytest.mark.parametrize("failing", TOOLS)
def test_any_failing_check_fails_the_run(tmp_path: Path, failing: str) -> None:
    result = run_test_sh(tmp_path, failing)
    assert result.returncode != 0, result.stdout
    assert f"{failing} ran:" in result.stdout


def test_every_check_runs_and_passing_ones_pass(tmp_path: Path) -> None:
    result = run_test_sh(tmp_path, None)
    assert result.returncode == 0, result.stdout + result.stderr
    for tool in TOOLS:
        assert f"{tool} ran:" in result.stdout
