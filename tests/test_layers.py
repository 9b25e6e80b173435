"""Imports point down only (README.md, "Layout"): a module may import its own
package and the packages of lower layers, never a higher layer or a sibling of its own."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

LAYERS = {
    "pto_dialect": 1,  # what can be written
    "lowering": 2,  # the vocabulary of target dialects, the table-driven rewrite patterns
    "targets": 3,  # the registry: rules, lowering tables, target dialects
    "passes": 4,
    "interpreter": 5,
    "backends": 5,
    "pto_tools": 6,  # the CLIs
    "pto_frontend": 6,  # the Python API users import
}


def project_imports(path: Path) -> list[tuple[int, str]]:
    """(line, top-level package) of every import of a project package, function-level ones included."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found += [(node.lineno, n.split(".")[0]) for n in names if n.split(".")[0] in LAYERS]
    return found


MODULES = sorted(p for package in LAYERS for p in (ROOT / package).rglob("*.py"))


def test_every_layer_has_modules():
    assert {p.relative_to(ROOT).parts[0] for p in MODULES} == set(LAYERS)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_point_down(path: Path):
    package = path.relative_to(ROOT).parts[0]
    upward = [
        f"{path.relative_to(ROOT)}:{line} imports {imported} (layer {LAYERS[imported]}) from layer {LAYERS[package]}"
        for line, imported in project_imports(path)
        if imported != package and LAYERS[imported] >= LAYERS[package]
    ]
    assert not upward, "\n".join(upward)


def test_the_check_sees_an_upward_import(tmp_path: Path):
    bad = tmp_path / "m.py"
    bad.write_text("def f():\n    from interpreter import run\n")
    assert project_imports(bad) == [(2, "interpreter")]
