"""
Issue 27's deletion test: in each kernel that orders its pipes with flags, delete one `wait_flag`
(`_dyn` too) at a time and ask the static sync checker (`pto-opt --verify-sync`,
passes/sync_check.py) about the rest; it must report each deletion (a race or a deadlock) unless
the deleted wait was redundant; the wait_flag after a loop that takes its last iteration's
loop-carried flag (pto-insert-sync's, PTOAS's) may be reported instead as that flag left set at
the kernel's end (a warning: the next kernel on the core would find it set). The kernels: examples/*.pto (after pto-pipeline, which inserts
their sync: they have none of their own), and every `.pto` / `.mlir` file of a PTOAS checkout's
test/lit and test/samples that holds a `pto.wait_flag` and that this project parses and verifies
(its `// -----` chunks one by one; the target from its first `--pto-arch`, PTOAS's default a3).

    .venv/bin/python bench/sync_deletions.py --ptoas DIR [--show]

DIR is a PTOAS checkout (`git archive e32488c9 test | tar -x -C DIR`), only read. Prints, per
kernel whose deletions are not all reported (or every kernel with --show), each unreported
deletion's location; then the counts. A kernel the checker already rejects as written is
counted apart (its deletions say nothing).
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from xdsl.context import Context  # noqa: E402
from xdsl.dialects import scf  # noqa: E402
from xdsl.ir import Operation  # noqa: E402

import pto_dialect  # noqa: E402
import targets  # noqa: E402
from bench.ptoas_lit import ARCH, run_lines  # noqa: E402
from passes.pipeline import PipelinePass  # noqa: E402
from passes.sync_check import check_sync  # noqa: E402
from pto_dialect.diagnostics import PtoError, op_location  # noqa: E402
from pto_dialect.ops.sync import WaitFlagDynOp, WaitFlagOp  # noqa: E402


@dataclass
class Kernel:
    name: str
    target: str
    waits: int = 0
    unreported: list[str] = field(default_factory=list)
    left_set: list[str] = field(default_factory=list)
    """Deletions of a loop's last wait reported only by its flag left set at the end."""
    rejected: str = ""
    """The checker's first error on the kernel as written (then no deletion is tried)."""


def deletions(name: str, text: str, target: str) -> Kernel | None:
    """The kernel's deletions checked; None when the project does not parse or verify it."""
    try:
        module = pto_dialect.parse(text, name)
        PipelinePass(target).apply(Context(), module)
    except PtoError:
        return None
    info = targets.get(target)
    kernel = Kernel(name, target)
    report = check_sync(module, info)
    if report.errors:
        kernel.rejected = str(report.errors[0]).splitlines()[0]
        return kernel
    waits = [op for op in module.walk() if isinstance(op, WaitFlagOp | WaitFlagDynOp)]
    kernel.waits = len(waits)
    for k in range(len(waits)):
        copy = module.clone()
        wait = [op for op in copy.walk() if isinstance(op, WaitFlagOp | WaitFlagDynOp)][k]
        where, drain = op_location(wait) or "?", drains_a_loop(wait)
        wait.detach()
        wait.erase()
        report = check_sync(copy, info)
        if not report.errors:
            (kernel.left_set if drain and report.warnings else kernel.unreported).append(where)
    return kernel


def drains_a_loop(wait: Operation) -> bool:
    """`wait` follows a loop (past other wait_flags): it takes a flag the loop's last iteration set."""
    before = wait.prev_op
    while isinstance(before, WaitFlagOp | WaitFlagDynOp):
        before = before.prev_op
    return isinstance(before, scf.ForOp)


def ptoas_kernels(checkout: Path):
    """(name, text, target) of each chunk of a PTOAS test file holding a wait_flag."""
    for folder in ("lit", "samples"):
        for path in sorted((checkout / "test" / folder).rglob("*")):
            if path.suffix not in (".pto", ".mlir") or not path.is_file():
                continue
            text = path.read_text(errors="replace")
            if "pto.wait_flag" not in _code(text):  # not only in CHECK lines
                continue
            arch = next((m.group(1) for line in run_lines(text) if (m := re.search(r"--pto-arch[= ](\w+)", line))), "a3")
            target = ARCH.get(arch)
            if target is None:
                continue
            for k, chunk in enumerate(text.split("// -----")):
                if "pto.wait_flag" in _code(chunk):
                    yield f"{path.relative_to(checkout)}#{k}", chunk, target


def _code(text: str) -> str:
    return re.sub(r"//.*", "", text)


def example_kernels():
    for path in sorted((ROOT / "examples").glob("*.pto")):
        module = pto_dialect.load(path)
        yield str(path.relative_to(ROOT)), path.read_text(), targets.module_target(module).name


def insert_sync_counts(checkout: Path) -> list[tuple[str, str, str, int, int, int, int]]:
    """Per test/lit file with a `--enable-insert-sync` RUN line that this project parses and
    verifies: (file, target, how PTOAS's CHECK lines count, PTOAS's set_flag and wait_flag
    counts, pto-insert-sync's). PTOAS's count is its CHECK lines naming pto.set_flag /
    pto.wait_flag (a CHECK-COUNT-N line N times; CHECK-NOT and CHECK-DAG lines not counted)."""
    rows = []
    for path in sorted((checkout / "test" / "lit").rglob("*.pto")):
        text = path.read_text(errors="replace")
        lines = [line for line in run_lines(text) if "--enable-insert-sync" in line]
        if not lines or "split-file" in text:
            continue
        arch = next((m.group(1) for m in [re.search(r"--pto-arch[= ](\w+)", lines[0])] if m), "a3")
        target = ARCH.get(arch)
        if target is None:
            continue
        counts = {"set_flag": 0, "wait_flag": 0}
        exact = True
        for match in re.finditer(r"//\s*[\w-]*?CHECK(-[\w-]+)?:(.*)", text):
            kind, rest = match.group(1) or "", match.group(2)
            for flag in counts:
                if f"pto.{flag}" in rest or f"{flag}(" in rest:
                    if kind.startswith("-NOT") or kind.startswith("-DAG"):
                        exact = exact and not kind.startswith("-DAG")
                        continue
                    n = re.match(r"-COUNT-(\d+)", kind)
                    counts[flag] += int(n.group(1)) if n else 1
        if not any(counts.values()):
            continue
        try:
            module = pto_dialect.parse(text, str(path))
            PipelinePass(target).apply(Context(), module)
        except PtoError:
            continue
        ours = {flag: sum(op.name.removesuffix("_dyn") == f"pto.{flag}" for op in module.walk()) for flag in counts}
        how = "CHECK lines" if exact else "CHECK lines (some CHECK-DAG)"
        rows.append((str(path.relative_to(checkout)), target, how, counts["set_flag"], counts["wait_flag"], ours["set_flag"], ours["wait_flag"]))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ptoas", type=Path, required=True, help="a PTOAS checkout (its test/ is read)")
    parser.add_argument("--show", action="store_true", help="every kernel, not only those with unreported deletions")
    parser.add_argument("--insert-sync-counts", action="store_true", help="instead: the flags PTOAS's and our insert-sync insert")
    args = parser.parse_args()
    if args.insert_sync_counts:
        print("| PTOAS lit file | target | PTOAS set_flag / wait_flag (its CHECK lines) | pto-insert-sync set_flag / wait_flag |")
        print("|---|---|---|---|")
        for name, target, how, set_ptoas, wait_ptoas, set_ours, wait_ours in insert_sync_counts(args.ptoas):
            note = "" if how == "CHECK lines" else " (some CHECK-DAG: at least)"
            print(f"| {name} | {target} | {set_ptoas} / {wait_ptoas}{note} | {set_ours} / {wait_ours} |")
        return 0
    kernels, out_of_scope = [], 0
    for name, text, target in [*example_kernels(), *ptoas_kernels(args.ptoas)]:
        kernel = deletions(name, text, target)
        if kernel is None:
            out_of_scope += 1
            continue
        kernels.append(kernel)
        if kernel.rejected:
            print(f"rejected as written  {name} ({target}): {kernel.rejected}")
        elif kernel.unreported or args.show:
            print(f"{name} ({target}): {kernel.waits} waits, {len(kernel.unreported)} deletions unreported, "
                  f"{len(kernel.left_set)} reported as a flag left set")
            for where in kernel.unreported:
                print(f"    unreported: wait_flag at {where}")
    checked = [k for k in kernels if not k.rejected]
    waits = sum(k.waits for k in checked)
    unreported = sum(len(k.unreported) for k in checked)
    left_set = sum(len(k.left_set) for k in checked)
    print(
        f"\n{len(checked)} kernels checked ({len(kernels) - len(checked)} rejected as written, {out_of_scope} out of scope): "
        f"{waits - unreported} of {waits} deletions reported ({left_set} of them as a loop's carried flag left set), "
        f"{unreported} unreported"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
