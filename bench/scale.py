"""
The commands on kernels large in one direction, timed with their peak memory (issue 30,
"Scale"): each case is one command in a child process, its wall time and maximum resident
set taken from the kernel (os.wait4).

    .venv/bin/python bench/scale.py                  # every case
    .venv/bin/python bench/scale.py nest loop        # the cases named
    .venv/bin/python bench/scale.py --bin DIR ...    # the pto-opt / pto-run in DIR (another checkout's .venv/bin)
    .venv/bin/python bench/scale.py --timeout 120    # kill a command after 120 s (default 600)

Cases (the kernels from tests/kernel_text.py nested_loops, written to a scratch folder):
  nest      pto-run --target a5 on 600, 800 and 1,000 nested one-trip scf.for loops
  loop      pto-run --targets all on one loop of 1,000, 4,000 and 16,000 trips (peak memory
            should not grow with the trip count)
  estimate  pto-opt --estimate on 4 and on 600 nested loops of 10^9 trips each (counts of
            37 and of 5,400 digits)
  wide      pto-opt --estimate and pto-run --targets all on 30, 60 and 120 nested loops with
            two instructions at each level (17, 34 and 68 KB of text)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.kernel_text import nested_loops  # noqa: E402 (after the path to the checkout)


def measure(command: list[str], timeout: float) -> tuple[float, float, str, str]:
    """(wall seconds, peak resident MiB, exit code or "killed", last line of output) of one
    command, killed after `timeout` seconds."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        killer = threading.Timer(timeout, child.kill)
        killer.start()
        _, status, usage = os.wait4(child.pid, 0)
        killer.cancel()
        child.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        wall = time.perf_counter() - start
        out.seek(0)
        lines = out.read().decode(errors="replace").strip().splitlines()
    code = f"killed after {timeout:.0f} s" if child.returncode < 0 else str(child.returncode)
    return wall, usage.ru_maxrss / 1024, code, (lines[-1] if lines else "")[:100]


def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text)
    return str(path)


def cases(folder: Path, tools: Path) -> dict[str, Callable[[], list[tuple[str, list[str]]]]]:
    x, y = folder / "x.npy", folder / "y.npy"
    np.save(x, np.arange(16, dtype=np.float32))
    np.save(y, np.zeros(16, np.float32))
    run, opt = str(tools / "pto-run"), str(tools / "pto-opt")

    def nest() -> list[tuple[str, list[str]]]:
        return [
            (f"{d} nested loops, pto-run --target a5",
             [run, write(folder, f"nest{d}.pto", nested_loops(d)), "--target", "a5", str(x), str(y)])
            for d in (600, 800, 1000)
        ]

    def loop() -> list[tuple[str, list[str]]]:
        return [
            (f"a loop of {n} trips, pto-run --targets all",
             [run, write(folder, f"loop{n}.pto", nested_loops(1, trips=n, ops_per_level=1)), "--targets", "all", str(x), str(y)])
            for n in (1000, 4000, 16000)
        ]

    def estimate() -> list[tuple[str, list[str]]]:
        return [
            (f"{d} nested loops of 10^9 trips, pto-opt --estimate",
             [opt, write(folder, f"huge{d}.pto", nested_loops(d, trips=10**9)), "--estimate"])
            for d in (4, 600)
        ]

    def wide() -> list[tuple[str, list[str]]]:
        out = []
        for d in (30, 60, 120):
            text = nested_loops(d, ops_per_level=1)
            path = write(folder, f"wide{d}.pto", text)
            size = f"{len(text) // 1000} KB"
            out.append((f"{d} levels, 2 ops each ({size}), pto-opt --estimate", [opt, path, "--estimate"]))
            out.append((f"{d} levels, 2 ops each ({size}), pto-run --targets all", [run, path, "--targets", "all", str(x), str(y)]))
        return out

    return {"nest": nest, "loop": loop, "estimate": estimate, "wide": wide}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cases", nargs="*", help="nest, loop, estimate, wide (default: all)")
    parser.add_argument("--bin", type=Path, default=ROOT / ".venv" / "bin", help="where pto-opt and pto-run are")
    parser.add_argument("--timeout", type=float, default=600, help="seconds before a command is killed (default 600)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        table = cases(Path(scratch), args.bin)
        chosen = args.cases or list(table)
        unknown = [c for c in chosen if c not in table]
        if unknown:
            parser.error(f"unknown case {', '.join(unknown)} (cases: {', '.join(table)})")
        print(f"load average: {os.getloadavg()[0]:.1f}")
        print("| case | wall | peak memory | exit | last line |")
        print("|---|---|---|---|---|")
        for name in chosen:
            for what, command in table[name]():
                wall, peak, code, last = measure(command, args.timeout)
                print(f"| {what} | {wall:.1f} s | {peak:.0f} MiB | {code} | {last} |", flush=True)


if __name__ == "__main__":
    main()
