"""The README is short and says first what the tool does; every command the README and the user
guides (docs/usage.md, docs/forms.md) show runs as written, in order, from the repository's
root, on bundled files."""

import re
import shlex
import shutil
import subprocess

import pytest

import targets
from pto_dialect.instructions import FAMILIES, REGISTRY
from pto_tools import pto_opt, pto_run
from tests.pto_tools.cli import ROOT, call

README = (ROOT / "README.md").read_text()
GUIDES = {name: (ROOT / name).read_text() for name in ("README.md", "docs/usage.md", "docs/forms.md")}
TOOLS = {"pto-opt": pto_opt.main, "pto-run": pto_run.main}
README_LINES = 300
FIRST_SCREEN = 24
"""Lines a reader sees before scrolling."""


def commands_in(text: str) -> list[str]:
    """Lines of indented code blocks that start with a command, and inline code spans that are
    whole commands on bundled files; synopses (`pto-run KERNEL [--target ...]`) left out."""
    block_lines = [line.strip() for line in text.splitlines() if line.startswith("    ")]
    spans = re.findall(r"`((?:pto-opt|pto-run) [^`]*examples/[^`]*)`", text)
    commands = [c for c in block_lines + spans if c.split()[0] in (*TOOLS, "bash")]
    synopsis = [c for c in commands if c.split()[1].isupper()]
    return [c for c in dict.fromkeys(commands) if c not in synopsis]


COMMANDS = {name: commands_in(text) for name, text in GUIDES.items()}


def test_readme_is_short_and_says_first_what_the_tool_covers():
    lines = README.splitlines()
    assert len(lines) <= README_LINES
    first_screen = "\n".join(lines[:FIRST_SCREEN])
    for instruction in REGISTRY:
        if not instruction.summary:  # a family's members: the family is named
            assert instruction.mnemonic.upper() in first_screen, instruction.name
    for family in FAMILIES:
        assert family.name in " ".join(first_screen.split()), family.name
    for target in targets.REGISTRY:
        assert f"`{target.name}`" in first_screen, target.name
    for tool in TOOLS:
        assert f"`{tool}`" in first_screen


def test_readme_links_the_docs():
    for doc in sorted((ROOT / "docs").glob("*.md")) + [ROOT / "bench" / "README.md"]:
        assert f"`{doc.relative_to(ROOT)}`" in README, doc


def test_guides_show_commands():
    assert all(len(commands) >= 4 for commands in COMMANDS.values()), COMMANDS


@pytest.mark.parametrize("guide", sorted(GUIDES))
def test_guide_commands_run_as_written_in_order(guide, tmp_path, monkeypatch, capsys):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    for command in COMMANDS[guide]:
        if command.startswith("bash"):
            continue
        tool, *args = shlex.split(command, comments=True)
        code, _, err = call(TOOLS[tool], args, capsys)
        expected = 1 if "(exit 1)" in command else 0
        assert code == expected, f"{command}\n{err}"
        shown = command.split("# ")[-1].replace("(exit 1)", "").split(" ...")[0].strip() if expected else ""
        if shown:
            assert err.startswith(shown), f"{command}\n{err}"  # the error the comment shows


def test_readme_scripts_are_the_two_commands():
    assert [c.split("#")[0].strip() for c in COMMANDS["README.md"] if c.startswith("bash")] == [
        "bash scripts/example.sh",
        "bash scripts/test.sh",
    ]


def test_readme_names_every_installed_package():
    import tomllib

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    section = README.split("## Installing with pip")[1].split("\n## ")[0]
    for pattern in pyproject["tool"]["setuptools"]["packages"]["find"]["include"]:
        assert f"`{pattern.rstrip('*')}`" in section


def test_example_script_shows_targets_differ():
    """`bash scripts/example.sh` (test.sh is the command running this test)."""
    done = subprocess.run(["bash", "scripts/example.sh"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    report = done.stdout.split("== pto-run examples/embedding_wrap.pto --targets all")[1]
    assert "arg2: 48 elements differ" in report
    assert "[16]: cpu=0.0, a2a3=7.0, a5=0.0" in report
    assert (
        "first divergent op: examples/embedding_wrap.pto:29:7 pto.mgather: index sign-extended to 64 bits, "
        "then bounds-checked as unsigned (cpu) / read as 32-bit unsigned (a2a3, a5)"
    ) in report
    assert "(pto-run exited 1: 0 when every target agrees, 1 when they differ)" in report
    assert "the targets that ran agree bit for bit (cpu, a2a3, a5)" in report.split("examples/routed_combine.pto --targets all")[1]
