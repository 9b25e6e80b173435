"""
The long fuzz campaign: `python -m tests.fuzz_campaign` (from the repository root).

Runs the mutation kinds of tests/test_fuzz.py on 10,000 generated kernels (`pto-opt FILE
-o FILE`, three flag sets in turn), 1,000 corrupt `.npy` files through `pto-run`, and 100
runs interrupted by Ctrl-C, then prints the figures: inputs, tracebacks, internal errors,
unlocated errors, hangs, files changed, temporary files left. Exit 1 if any is not zero.
`--keep DIR` keeps every failing input there. Takes about 25 minutes on a busy 2-core machine.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from tests.test_fuzz import SEED, generate_cases, generate_npy_cases, run_case, run_interrupted, run_npy_case

PROBLEM_NAMES = {
    "Python traceback": "tracebacks",
    "internal error": "internal errors",
    "located": "unlocated errors",
    "names neither": "unlocated errors",
    "hang": "hangs",
    "changed": "files changed",
    "temporary": "temporary files left",
    "exit": "interrupts not quiet / not 130",
}


def tally(problem: str) -> str:
    return next((name for key, name in PROBLEM_NAMES.items() if key in problem), problem)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.fuzz_campaign", description=__doc__.split("\n\n")[1])
    p.add_argument("--cases", type=int, default=10_000, help="mutated kernels (default 10000)")
    p.add_argument("--npy", type=int, default=1_000, help="corrupt .npy files (default 1000)")
    p.add_argument("--interrupts", type=int, default=100, help="interrupted pto-run runs (default 100)")
    p.add_argument("--seed", type=int, default=SEED + 1, help="differs from the CI slice's seed by default")
    p.add_argument("--keep", type=Path, help="directory for the failing inputs")
    args = p.parse_args(argv)

    problems: Counter[str] = Counter()
    failures: list[str] = []
    exits: Counter[str] = Counter()
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="pto-fuzz-") as tmp:
        work = Path(tmp)

        def record(problem: str, label: str, stderr: str, keep_name: str, data: bytes) -> None:
            problems[tally(problem)] += 1
            failures.append(f"{label}: {problem}: {stderr.splitlines()[:1]}")
            if args.keep:
                args.keep.mkdir(parents=True, exist_ok=True)
                (args.keep / keep_name).write_bytes(data)

        cases = generate_cases(args.cases, args.seed)
        for n, (case_id, data) in enumerate(cases, 1):
            problem, code, _, stderr = run_case(case_id, data, work)
            exits["pto-opt exit 0" if code == 0 else "pto-opt exit 1"] += 1
            if problem is not None:
                record(problem, f"{case_id}", stderr, f"{case_id}.pto", data)
            (work / f"{case_id}.pto").unlink(missing_ok=True)
            if n % 500 == 0:
                print(f"  {n} kernels, {sum(problems.values())} problems, {time.monotonic() - start:.0f} s", file=sys.stderr)
        for case_id, data in generate_npy_cases(args.npy, args.seed):
            problem, stderr = run_npy_case(case_id, data, work)
            exits["pto-run .npy error" if stderr else "pto-run .npy accepted"] += 1
            if problem is not None:
                record(problem, f"npy {case_id}", stderr, f"{case_id}.npy", data)
        for case in range(args.interrupts):
            problem = run_interrupted(case, work, args.seed)
            if problem is not None:
                problems[tally(problem)] += 1
                failures.append(f"interrupt {case}: {problem}")
            shutil.rmtree(work / f"out{case}", ignore_errors=True)

    print(f"inputs: {args.cases} kernels (pto-opt FILE -o FILE), {args.npy} .npy files (pto-run), "
          f"{args.interrupts} interrupted runs; seed {args.seed}; {time.monotonic() - start:.0f} s")
    for name, count in sorted(exits.items()):
        print(f"  {name}: {count}")
    for name in dict.fromkeys(PROBLEM_NAMES.values()):
        print(f"{name}: {problems.pop(name, 0)}")
    for name, count in problems.items():
        print(f"{name}: {count}")
    for line in failures[:30]:
        print("  " + line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
