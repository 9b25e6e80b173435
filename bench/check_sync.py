"""
The cost of `pto-run --check-sync` (issue 27: at most 2x a plain run) on bench/run.py's
embedding lookup (an scf.for over 1024 tiles: tload 64 ids, row-mode MGATHER of 64 rows, tstore),
both spellings (tiles without addresses; PTOAS's, with `addr =` in `pto.section.vector`), with
the sync pto-insert-sync gives them. In one process, alternating: interpreter.run_with_results
without and with a SyncReport (what `pto-run` and `pto-run --check-sync` call), each round
timing both; reported: the best and the median of the rounds, and the median of the per-round
ratios.

    .venv/bin/python bench/check_sync.py [--target a2a3] [--repeat 15]
"""

from __future__ import annotations

import statistics
import time


import interpreter
import pto_dialect
from run import KERNEL, PTOAS_KERNEL, inputs, options


def timed(f) -> float:
    start = time.perf_counter()
    f()
    return time.perf_counter() - start


def main() -> None:
    args = options()
    arrays = list(inputs())
    print("| target | kernel | plain run (best / median) | with --check-sync (best / median) | ratio (median of rounds) |")
    print("|---|---|---|---|---|")
    for name, text in (("embedding", KERNEL), ("PTOAS style", PTOAS_KERNEL)):
        module = pto_dialect.parse(text, f"{name}.pto")
        report = interpreter.SyncReport()
        interpreter.run_with_results(module, args.target, arrays, sync_report=report)
        assert not report.errors and not report.warnings, [e.text for e in report.errors] + report.warnings

        def plain() -> None:
            interpreter.run_with_results(module, args.target, arrays)

        def checked() -> None:
            interpreter.run_with_results(module, args.target, arrays, sync_report=interpreter.SyncReport())

        rounds = [(timed(plain), timed(checked)) for _ in range(args.repeat)]
        p, c = [r[0] for r in rounds], [r[1] for r in rounds]
        ratio = statistics.median(b / a for a, b in rounds)
        print(
            f"| {args.target} | {name} | {min(p) * 1e3:.1f} / {statistics.median(p) * 1e3:.1f} ms "
            f"| {min(c) * 1e3:.1f} / {statistics.median(c) * 1e3:.1f} ms | {ratio:.2f}x |"
        )


if __name__ == "__main__":
    main()
