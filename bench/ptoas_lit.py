"""
PTOAS's lit inputs against this project's verdicts: for each `test/lit` file of a PTOAS checkout
whose `pto.*` ops this project implements (or that uses one of `--ops`), each RUN line's target
(`--pto-arch=a3|a2|a5`, PTOAS's default a3) and PTOAS's expected outcome (`not ptoas`: rejected,
else accepted), against `pto-opt FILE --target T -p pto-pipeline` (verification, planning,
lowering; its `main` in a forked worker): exit 1 with a located error is a rejection, exit 0 an acceptance. A row that differs
is a documented divergence when targets/rules/divergences.py lists its file and target (the
hardware code that decides is in docs/verification.md), else undocumented.

    .venv/bin/python bench/ptoas_lit.py --ptoas DIR [--ops tadd,tsub] [--jobs 2] [--show-agreeing]

DIR is a PTOAS checkout (`git archive HEAD test | tar -x -C DIR`), only read. Prints one row per
(file, target) that disagrees (and every row with --show-agreeing), then the counts (agree / documented / undocumented); files that
use an op this project does not implement are counted as out of scope, with the ops that most
often put a file out of scope. `split-file` inputs and rejecting RUN lines that test another option (NEUTRAL_OPTIONS) are out of scope,
and so is a RUN line that this project refuses as valid PTO it does not implement (its error says "not implemented in
pto-frontend: FEATURE"; each such row is printed and counted by FEATURE). `--files GLOB` keeps the files whose path under
test/lit matches. Exit 0 when every in-scope row agrees or is a documented divergence.
"""

from __future__ import annotations

import argparse
import re
import io
import signal
import sys
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from fnmatch import fnmatch
from multiprocessing import get_context
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OP = re.compile(r"(?<![!#\w.\"])(pto\.[a-z_][a-z0-9_.]*)\b(?!\s*[=<,}]|\")")
"""An op name: not a type (`!pto.`), an attribute (`#pto.`, `pto.x = ...`) or inside a string."""
RUN = re.compile(r"//\s*RUN:\s*(.*)")
ARCH = {"a2": "a2a3", "a3": "a2a3", "a5": "a5"}
NEUTRAL_OPTIONS = (
    "--pto-arch", "--pto-level", "--pto-backend", "--emit-pto-ir", "--mlir-print-ir", "--enable-insert-sync",
    "--enable-graph-sync-solver", "--plan-memory-impl", "-o",
)
"""PTOAS options that choose a target, an output or a pass to run: a `not ptoas` RUN line with any
other option (`--enable-op-fusion=true` on a3, ...) may test that option, not the kernel's validity,
and is out of scope; an accepting one says the kernel is valid whatever its options."""


@dataclass(frozen=True)
class Case:
    path: Path
    target: str
    expect_reject: bool


def implemented_ops() -> set[str]:
    """Every op name of the project's pto dialect (instructions and scaffolding)."""
    from pto_dialect.dialect import PTO

    return {op.name for op in PTO.operations}


def run_lines(text: str) -> list[str]:
    """The RUN lines, continuation lines (`\\` at the end) joined."""
    lines, current = [], ""
    for match in RUN.finditer(text):
        part = match.group(1).rstrip()
        current += " " + part.rstrip("\\").strip()
        if not part.endswith("\\"):
            lines.append(current.strip())
            current = ""
    return lines


def cases(path: Path, text: str) -> list[Case]:
    found = []
    for line in run_lines(text):
        command = line.split("|")[0].split()
        if not command:
            continue
        reject = command[0] == "not"
        if reject:
            command = command[1:]
        if not command or command[0] != "ptoas":
            continue
        if reject and any(a.startswith("-") and a != "-" and not a.startswith(NEUTRAL_OPTIONS) for a in command[1:]):
            continue
        arch = next((a.split("=", 1)[1] for a in command if a.startswith("--pto-arch=")), "a3")
        target = ARCH.get(arch)
        if target is not None:
            found.append(Case(path, target, reject))
    return list(dict.fromkeys(found))


TIMEOUT_SECONDS = 300


def verdict(case: Case) -> tuple[bool, str]:
    """(rejected?, the first line of pto-opt's stderr naming an error): `pto-opt FILE --target T -p
    pto-pipeline` run by its `main` in a worker forked for this case alone (the modules imported
    once, in the parent), so that nothing one case leaves behind reaches another."""
    from pto_tools.pto_opt import main as pto_opt

    def too_long(*_: object) -> None:
        raise TimeoutError(f"pto-opt took over {TIMEOUT_SECONDS} s")

    signal.signal(signal.SIGALRM, too_long)
    signal.alarm(TIMEOUT_SECONDS)
    stderr, code = io.StringIO(), 0
    with redirect_stdout(io.StringIO()), redirect_stderr(stderr):
        try:
            pto_opt([str(case.path), "--target", case.target, "-p", "pto-pipeline"])
        except SystemExit as e:
            code = e.code
    text = stderr.getvalue()
    error = next((line for line in text.splitlines() if "error" in line), text.strip()[:200])
    return code not in (0, None), error


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ptoas", type=Path, required=True, help="a PTOAS checkout (its test/lit is read)")
    parser.add_argument("--ops", default="", help="only files using one of these mnemonics (tadd,tsub)")
    parser.add_argument("--files", default="*", help="only files whose path under test/lit matches this glob (pto/tmov*)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--show-agreeing", action="store_true")
    args = parser.parse_args()
    ours = implemented_ops()
    wanted = {f"pto.{m}" for m in args.ops.split(",") if m}
    missing: Counter[str] = Counter()
    selected: list[Case] = []
    out_of_scope = 0
    for path in sorted((args.ptoas / "test" / "lit").rglob("*")):
        if path.suffix not in (".pto", ".mlir") or not path.is_file():
            continue
        if not fnmatch(path.relative_to(args.ptoas / "test" / "lit").as_posix(), args.files):
            continue
        text = path.read_text(errors="replace")
        used = set(OP.findall(re.sub(r"//.*", "", text)))
        if wanted and not used & wanted:
            continue
        if not used & ours:
            continue
        unknown = used - ours
        if unknown or "split-file" in text:
            out_of_scope += 1
            missing.update(unknown)
            continue
        selected.extend(cases(path, text))
    import pto_tools.pto_opt  # noqa: F401  (imported once, before the workers fork)

    with get_context("fork").Pool(args.jobs, maxtasksperchild=1) as pool:
        results = pool.map(verdict, selected, chunksize=1)
    from targets.rules.divergences import documented

    from pto_dialect.diagnostics import NOT_IMPLEMENTED

    feature_refused = re.compile(re.escape(f"({NOT_IMPLEMENTED}: ") + r"([^()]*)\)")
    """What a refusal of valid PTO names as not implemented (pto_dialect.diagnostics.not_implemented)."""
    counts: Counter[str] = Counter()
    unimplemented: Counter[str] = Counter()
    for case, (rejected, error) in zip(selected, results):
        if rejected and (feature := feature_refused.search(error)) is not None:
            counts["out of scope"] += 1
            unimplemented[feature.group(1)] += 1
            print(f"out-of-scope  {case.path.relative_to(args.ptoas)}  {case.target}: {error}")
            continue
        same = rejected == case.expect_reject
        listed = None if same else documented(case.path.relative_to(args.ptoas / "test").as_posix(), case.target)
        mark = "agree" if same else "documented" if listed else "DIFFER"
        counts[mark] += 1
        if not same or args.show_agreeing:
            ptoas = "rejects" if case.expect_reject else "accepts"
            print(f"{mark}  {case.path.relative_to(args.ptoas)}  {case.target}: PTOAS {ptoas}; ours: {error or 'accepted'}")
    print(f"\n{len(selected) - counts['out of scope']} RUN lines in scope: {counts['agree']} get PTOAS's verdict, "
          f"{counts['documented']} are documented divergences (docs/verification.md), {counts['DIFFER']} differ "
          f"undocumented; {out_of_scope} files out of scope, and {counts['out of scope']} RUN lines refused as {NOT_IMPLEMENTED}")
    if unimplemented:
        print("RUN lines refused as not implemented, by what: " + "; ".join(f"{f} ({n})" for f, n in unimplemented.most_common()))
    if missing:
        print("ops putting files out of scope: " + ", ".join(f"{op} ({n})" for op, n in missing.most_common(15)))
    return 0 if not counts["DIFFER"] else 1


if __name__ == "__main__":
    sys.exit(main())
