"""scripts/venv.sh: the Python is checked before anything is installed, and a .venv made by
another Python, or one that no longer runs, is rebuilt. Run on a copy of the script and
pyproject.toml, with stand-in Pythons that record what they are asked to do."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.pto_tools.cli import ROOT

FAKE_PYTHON = """\
#!/usr/bin/env bash
# A stand-in Python {version}: reports its version, makes venvs of itself, logs everything else.
echo "$0 $*" >> "{log}"
case "$1" in
  -c) echo {version} ;;
  -m) if [ "$2" = venv ]; then mkdir -p "$3/bin" && cp "$0" "$3/bin/python"; fi ;;
esac
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "venv.sh", tmp_path / "scripts")
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    return tmp_path


def fake_python(project: Path, name: str, version: str) -> Path:
    path = project / "bin" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(FAKE_PYTHON.format(version=version, log=project / "log"))
    path.chmod(0o755)
    return path


def source_venv(project: Path, python: Path | None) -> subprocess.CompletedProcess[str]:
    """Source venv.sh with only the stand-ins and the few tools it uses on PATH (no real Python)."""
    tools = project / "tools"
    if not tools.exists():
        tools.mkdir()
        for tool in ("bash", "dirname", "sed", "tr", "mkdir", "cp", "rm", "touch"):
            found = shutil.which(tool)
            assert found is not None, f"{tool} is not on PATH"
            (tools / tool).symlink_to(found)
    env = {"PATH": f"{project / 'bin'}:{tools}", "HOME": os.environ.get("HOME", "/")}
    if python is not None:
        env["PYTHON"] = str(python)
    return subprocess.run(
        [str(tools / "bash"), "-c", f"source {project / 'scripts' / 'venv.sh'}"], env=env, capture_output=True, text=True
    )


@pytest.mark.parametrize("version", ["3.10.13", "3.14.0", "3.9.18"])
def test_unsupported_python_stops_before_installing(version, project):
    python = fake_python(project, "python3", version)
    done = source_venv(project, python)
    assert done.returncode == 1
    assert done.stderr == f"error: PYTHON={python} is Python {version}; pto-frontend needs Python 3.11, 3.12 or 3.13\n"
    assert not (project / ".venv").exists()
    assert "-m" not in (project / "log").read_text()


def test_without_python_set_the_first_supported_one_is_taken(project):
    fake_python(project, "python3", "3.10.13")
    fake_python(project, "python3.12", "3.12.1")
    done = source_venv(project, None)
    assert done.returncode == 0, done.stderr
    log = (project / "log").read_text()
    assert f"{project}/bin/python3.12 -m venv {project}/.venv" in log
    assert f"{project}/.venv/bin/python -m pip install -q -e {project}[test]" in log
    packages = "pto_dialect targets passes lowering interpreter backends pto_tools pto_frontend"
    assert f"{project}/.venv/bin/python -m compileall -q {packages}" in log  # the bytecode, written once


def test_no_supported_python_says_which_were_found(project):
    fake_python(project, "python3", "3.10.13")
    done = source_venv(project, None)
    assert done.returncode == 1
    assert done.stderr.startswith(
        "error: pto-frontend needs Python 3.11, 3.12 or 3.13 (found: python3 is 3.10.13; none supported);"
    )


def test_venv_of_another_python_is_rebuilt(project):
    fake_python(project, "python3", "3.12.1")
    assert source_venv(project, None).returncode == 0
    python313 = fake_python(project, "python3.13", "3.13.0")
    done = source_venv(project, python313)
    assert done.returncode == 0
    assert done.stderr == "note: rebuilding .venv (made by Python 3.12.1) with Python 3.13.0\n"
    assert "3.13.0" in (project / ".venv" / "bin" / "python").read_text()


def test_broken_venv_is_rebuilt(project):
    python = fake_python(project, "python3", "3.11.7")
    assert source_venv(project, python).returncode == 0
    (project / ".venv" / "bin" / "python").write_text("#!/bin/false\n")
    done = source_venv(project, python)
    assert done.returncode == 0
    assert done.stderr == "note: rebuilding .venv (it does not run) with Python 3.11.7\n"


def test_a_working_venv_is_kept_and_not_reinstalled(project):
    python = fake_python(project, "python3", "3.11.7")
    assert source_venv(project, python).returncode == 0
    (project / "log").unlink()
    (project / ".venv" / ".pto-installed").touch()
    done = source_venv(project, None)
    assert (done.returncode, done.stderr) == (0, "")
    assert "-m" not in (project / "log").read_text()
