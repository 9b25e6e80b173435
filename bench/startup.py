"""
Start-up cost of `pto-opt` and `pto-run` against `xdsl-opt`, side by side in one run.

Runs, interleaved round after round so that every command sees the same machine load:

- `xdsl-opt --help`, `pto-opt --help` and `pto-run --help`;
- `pto-run` on a small kernel (examples/embedding_lookup.pto, its inputs drawn with
  `--inputs random`: parse, verify, lower for a2a3, run, print), against `xdsl-opt --help`
  (issue 30: at most 1.5x its wall time);
- the dependencies' floor under that run: a process that imports exactly the modules of the
  project's dependencies (xDSL, NumPy, ml_dtypes, lark) that the run above has imported when it
  ends, and nothing of the project's (the list is taken once, before the rounds, from that run
  in a probe process; imported in the order the run imported them), as pto-run imports them:
  through the project's four xDSL adapters (XDSL_ADAPTERS, loaded by path: nominal isinstance
  checks, ops' formats and definitions built on first use, `xdsl.interpreters` without its
  `__init__`) with BLAS asked for one thread (pto_tools/cli.py), against `xdsl-opt --help`: what no
  change to the rest of the project's code can get under. Beside it, the same modules imported
  plainly (each xDSL dialect defining all its ops at import, `xdsl.interpreters`' `__init__`
  importing every dialect's interpreter);
- `xdsl-opt` on a builtin-only file of N ops (a chain of arith.addi/arith.muli in a
  func.func) and `pto-opt` on a pto kernel of N ops (bench/parse.py's generator: mgather,
  tgather, tcolargmin, tload, tstore, every tile type spelled out), each parsed, verified and
  printed (pto-opt also checks the a2a3 target's rules and manual addresses);
- with `--baseline DIR`, the same pto-opt and pto-run commands of another source tree (for example
  an older commit unpacked with `git archive REV | tar -x -C DIR`), run by this venv's Python
  with DIR first on sys.path; repeated, one set per tree (rows named by DIR's last part), so
  that each step of a branch is measured under the same load.

With `--dtypes PYTHON...`, it also measures `import ml_dtypes` (NumPy already imported, CPU
time in-process) with this venv's Python and with each Python given (other venvs, so that
several ml_dtypes versions and CPython versions are compared in one run).

Every command runs once before the rounds, and with PYTHONDONTWRITEBYTECODE unset, so that
each reads its modules' bytecode from the cache as an installed command does (a process
compiling ~100 modules each time measures the compiler).

Each process's CPU time (user + system, from the kernel's child accounting, which a busy
machine disturbs much less than wall time) and wall time are recorded; the table shows the
medians and the ratio to xdsl-opt doing the same thing (a pto-run against `xdsl-opt --help`).

    .venv/bin/python bench/startup.py [--rounds 10] [--ops 30] [--baseline DIR ...] [--dtypes PYTHON...]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from parse import builtin_kernel, machine_note, pto_kernel
from pto_tools.cli import BLAS_THREAD_COUNTS

BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parent.parent
SMALL_KERNEL = ROOT / "examples" / "embedding_lookup.pto"
LAUNCH_SOURCE_TREE = (
    "import sys; sys.path.insert(0, sys.argv.pop(1)); sys.argv[0] = sys.argv.pop(1); "
    "from pto_tools import cli; getattr(cli, sys.argv[0].replace('-', '_'))()"
)
CACHED_BYTECODE = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

DEPENDENCIES = ("xdsl", "numpy", "ml_dtypes", "lark")
"""The project's run-time dependencies (pyproject.toml), by top-level package."""

IMPORTED_DEPENDENCIES = """
import contextlib, io, sys
from pto_tools.pto_run import main
with contextlib.redirect_stdout(io.StringIO()):
    main(sys.argv[1:])
print(*(m for m in sys.modules if m.partition('.')[0] in {dependencies!r}))
"""
"""Run pto-run's main on the arguments given, then print the dependencies' modules it imported."""


XDSL_ADAPTERS = tuple(
    ROOT / "pto_dialect" / f"{name}.py" for name in ("nominal_checks", "op_formats", "op_definitions", "xdsl_interpreter")
)
"""How the project imports xDSL (each imports only xDSL and the standard library): isinstance
checks answered from the MRO, ops' formats read and definitions built on first use, the package
`xdsl.interpreters` without its `__init__` (every dialect's interpreter)."""

LOAD_ADAPTERS = """
import importlib.util, sys
for path in {paths!r}:
    spec = importlib.util.spec_from_file_location(path.rpartition('/')[2][:-3], path)
    sys.modules[spec.name] = module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
"""


def dependency_floors(run_args: list[str]) -> list[Command]:
    """Processes importing what `pto-run RUN_ARGS` imports of the dependencies, and nothing of
    the project's: as pto-run imports them (through XDSL_ADAPTERS, BLAS asked for one thread),
    and as a plain process does."""
    probe = IMPORTED_DEPENDENCIES.format(dependencies=DEPENDENCIES)
    done = subprocess.run(
        [sys.executable, "-c", probe, *run_args], capture_output=True, text=True, env=CACHED_BYTECODE
    )
    if done.returncode != 0:
        sys.exit(f"the probe of pto-run's imports failed:\n{done.stderr}")
    modules = done.stdout.split()
    imports = "import " + ", ".join(modules)
    adapted = LOAD_ADAPTERS.format(paths=[str(p) for p in XDSL_ADAPTERS]) + imports
    floor = f"dependency floor: the {len(modules)} modules of {', '.join(DEPENDENCIES)} pto-run imports"
    one_thread = dict.fromkeys(BLAS_THREAD_COUNTS, "1")
    return [
        Command(f"{floor}, as it imports them", [sys.executable, "-c", adapted], env=CACHED_BYTECODE | one_thread),
        Command("the same modules, plain imports", [sys.executable, "-c", imports]),
    ]


ML_DTYPES_IMPORT = (
    "import sys, time, numpy; start = time.process_time(); import ml_dtypes; "
    "took = time.process_time() - start; "
    "print(f'{sys.version.split()[0]} {ml_dtypes.__version__} {numpy.__version__} {took}')"
)


def ml_dtypes_imports(pythons: list[str], rounds: int) -> None:
    """Median CPU time of `import ml_dtypes` under each Python, interleaved."""
    seconds: dict[str, list[float]] = {p: [] for p in pythons}
    versions: dict[str, str] = {}
    for _ in range(rounds):
        for python in pythons:
            out = subprocess.run([python, "-c", ML_DTYPES_IMPORT], capture_output=True, text=True, check=True)
            *names, took = out.stdout.split()
            versions[python] = " | ".join(names)
            seconds[python].append(float(took))
    print("\n`import ml_dtypes` after `import numpy`, CPU time, median:\n")
    print("| CPython | ml_dtypes | NumPy | import ml_dtypes (s) |")
    print("|---|---|---|---:|")
    for python in pythons:
        print(f"| {versions[python]} | {statistics.median(seconds[python]):.3f} |")


@dataclass
class Command:
    name: str
    argv: list[str]
    env: dict[str, str] = field(default_factory=lambda: CACHED_BYTECODE)
    cpu: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)

    def run(self) -> None:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(self.argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=self.env)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            sys.exit(f"{' '.join(self.argv)} failed:\n{done.stderr.decode()}")
        self.wall.append(wall)
        self.cpu.append(
            after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        )


def commands(workdir: Path, n_ops: int, baselines: list[Path]) -> list[tuple[Command, Command]]:
    """(xdsl-opt command, pto-opt command) pairs; each baseline adds a pair per task."""
    pto_file, builtin_file = workdir / f"kernel_{n_ops}.pto", workdir / f"builtin_{n_ops}.mlir"
    pto_file.write_text(pto_kernel(n_ops, legacy=False))
    builtin_file.write_text(builtin_kernel(n_ops))
    xdsl_help = Command("xdsl-opt --help", [str(BIN / "xdsl-opt"), "--help"])
    xdsl_file = Command(f"xdsl-opt {n_ops}-op builtin file", [str(BIN / "xdsl-opt"), str(builtin_file)])
    small_run = [str(SMALL_KERNEL), "--inputs", "random"]
    pairs = [
        (xdsl_help, Command("pto-opt --help", [str(BIN / "pto-opt"), "--help"])),
        (xdsl_help, Command("pto-run --help", [str(BIN / "pto-run"), "--help"])),
        (xdsl_help, Command("pto-run small kernel", [str(BIN / "pto-run"), *small_run])),
        *((xdsl_help, floor) for floor in dependency_floors(small_run)),
        (xdsl_file, Command(f"pto-opt {n_ops}-op kernel", [str(BIN / "pto-opt"), str(pto_file)])),
    ]
    for baseline in baselines:
        def launch(tool: str, tree: Path = baseline) -> list[str]:
            return [sys.executable, "-c", LAUNCH_SOURCE_TREE, str(tree), tool]

        pairs += [
            (xdsl_help, Command(f"{baseline.name}: pto-opt --help", [*launch("pto-opt"), "--help"])),
            (xdsl_help, Command(f"{baseline.name}: pto-run small kernel", [*launch("pto-run"), *small_run])),
            (xdsl_file, Command(f"{baseline.name}: pto-opt {n_ops}-op kernel", [*launch("pto-opt"), str(pto_file)])),
        ]
    return pairs


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=10, help="runs of each command (median taken)")
    ap.add_argument("--ops", type=int, default=30, help="ops in the kernel and the builtin file")
    ap.add_argument(
        "--baseline", type=Path, action="append", default=[], help="another source tree whose commands run too (repeatable)"
    )
    ap.add_argument(
        "--dtypes", nargs="*", metavar="PYTHON",
        help="also time `import ml_dtypes` under this venv's Python and these ones",
    )
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="pto-startup-") as tmp:
        pairs = commands(Path(tmp), args.ops, args.baseline)
        unique = list({id(c): c for pair in pairs for c in pair}.values())
        for command in unique:  # the bytecode cache filled, the files in the page cache
            command.run()
            command.cpu.clear()
            command.wall.clear()
        for i in range(args.rounds):
            if sys.stderr.isatty():
                print(f"\rround {i + 1}/{args.rounds}", end="", file=sys.stderr, flush=True)
            for command in unique:
                command.run()
    if sys.stderr.isatty():
        print(file=sys.stderr)

    print(f"Start-up, median of {args.rounds} interleaved runs ({machine_note()})\n")
    print("| command | CPU time (s) | wall time (s) | CPU vs xdsl-opt | wall vs xdsl-opt |")
    print("|---|---:|---:|---:|---:|")
    med = statistics.median
    for reference, command in pairs:
        print(
            f"| {command.name} | {med(command.cpu):.2f} | {med(command.wall):.2f} "
            f"| **{med(command.cpu) / med(reference.cpu):.2f}x** "
            f"| {med(command.wall) / med(reference.wall):.2f}x |"
        )
    for reference in {id(ref): ref for ref, _ in pairs}.values():
        print(f"| {reference.name} | {med(reference.cpu):.2f} | {med(reference.wall):.2f} | 1 | 1 |")
    if args.dtypes is not None:
        ml_dtypes_imports([sys.executable, *args.dtypes], args.rounds)


if __name__ == "__main__":
    main()
