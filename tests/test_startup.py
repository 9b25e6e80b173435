"""
What `pto-opt` imports: a plain parse-verify-print and `--help` leave out what they do not
use (bench/startup.py measures the time; this checks the cause, without timing).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).parent.parent / "examples" / "embedding_lookup.pto"

HEAVY = ("ml_dtypes", "numpy", "lark", "interpreter", "backends.cpp.emitter", "pto_dialect.asm.reader")

PROBE = """
import sys
from pto_tools.pto_opt import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
sys.stdout.flush()
print("\\nIMPORTED", *sorted(m for m in {heavy!r} if m in sys.modules))
"""


def imported_heavy_modules(*args: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY), *args],
        capture_output=True, text=True, check=True,
    )
    return done.stdout.rsplit("IMPORTED", 1)[1].split()


def test_help_imports_nothing_heavy():
    assert imported_heavy_modules("--help") == []


def test_parse_verify_print_imports_nothing_heavy():
    assert imported_heavy_modules(str(EXAMPLE), "--target", "a5") == []


def test_the_probe_sees_heavy_imports():
    assert imported_heavy_modules(str(EXAMPLE), "--to=cpp", "-p", "pto-ssa-to-dps") == ["backends.cpp.emitter"]


def test_import_pto_frontend_leaves_the_interpreter_out():
    """Building and printing a kernel do not run it: the interpreter comes with run/compare."""
    probe = "import sys, pto_frontend; print(sorted(m for m in sys.modules if m.partition('.')[0] == 'interpreter'))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
