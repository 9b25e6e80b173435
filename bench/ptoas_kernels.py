"""
PTOAS's kernels end to end: each kernel of a PTOAS checkout in one of two groups is parsed,
verified (`pto-opt FILE --target T`) and run (`pto-run FILE --target T --inputs random --entry F`,
for each function F with a body) for every target it names, and counted by how far it gets.

    .venv/bin/python bench/ptoas_kernels.py --ptoas DIR [--group gather|pypto|all] [--jobs 2]
                                            [--timeout 120] [--size 64] [--list]

DIR is a PTOAS checkout (`git -C PTOAS archive HEAD test | tar -x -C DIR`), only read.

- `gather`: every `test/lit` and `test/samples` kernel (`.pto`, `.mlir`) that uses a
  gather-family op (GATHER_FAMILY).
- `pypto`: PyPTO's generated samples (`test/samples/Deepseek*`, `Qwen*`, `PyPTOIRParser`) that use
  no cube instruction and no cross-core communication (CUBE_OR_COMM).

A kernel's targets are those its `ptoas` RUN lines name (`--pto-arch=a3|a2|a5`, PTOAS's default
a3; a `not ptoas` line expects a rejection, and ptoas_lit.NEUTRAL_OPTIONS says which rejecting
lines are about the kernel) and its module's `pto.target_arch`; a kernel naming none is run for
a2a3, PTOAS's default. A rejected kernel counts as right when PTOAS rejects it too. Kernels that
fail are listed by the first op (in text order) this project does not implement, else by the
error's message with its location removed. Prints the tables; --list prints every failing
(kernel, target) with its first error line. Each kernel runs in a worker process (fork) with a
--timeout in seconds. An integer scalar argument pto-run cannot draw is given: PyPTO's SPMD
block index 0 of 1 block, any other --size (64); when that run goes out of a view, an array or a
tile, the run is repeated with those scalars 1, then 0 (a row or token index, not a length), then
32 (a length within a 32-row view), then 256 (a length offsets reach past 64).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import multiprocessing
import os
import re
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.ptoas_lit import ARCH, OP, cases, implemented_ops  # noqa: E402
from bench.time_limit import time_limit  # noqa: E402

GATHER_FAMILY = frozenset(
    f"pto.{m}" for m in ("mgather", "mscatter", "tgather", "tgatherb", "tscatter", "tcolargmin", "tcolargmax",
                         "trowargmin", "trowargmax")
)
"""The gather / scatter / arg-reduce instructions (issue 25's family)."""
CUBE_OR_COMM = re.compile(r"\bpto\.(tmatmul|tgemv|comm\.|tpush|tpop)")
"""Cube instructions (TMATMUL and kin, TGEMV) and cross-core communication (pto.comm.*, TPUSH/TPOP)."""
PYPTO_DIRS = re.compile(r"^(Deepseek|Qwen|PyPTOIRParser)")
GENERIC_OP = re.compile(r"\"(pto\.[a-z_][a-z0-9_.]*)\"\s*\(")
TARGET_ARCH = re.compile(r"pto\.target_arch\s*=\s*\"(\w+)\"")
LOCATION = re.compile(r"^\S+:\d+:\d+: ")
STAGES = ("parse", "verify", "run")


@dataclass(frozen=True)
class Job:
    path: Path
    target: str
    expect_reject: bool


@dataclass(frozen=True)
class Outcome:
    job: Job
    reached: int
    """How many STAGES passed (0: did not parse; 3: ran)."""
    error: str


class KernelTimeout(BaseException):
    """Raised by the alarm: a BaseException, so the tools' error handling lets it through."""


def ops_in(text: str) -> list[str]:
    """The pto op names of a kernel, in text order (generic `"pto.x"(...)` ones too), comments removed."""
    code = re.sub(r"//.*", "", text)
    found = sorted((m.start(), m.group(1)) for pattern in (OP, GENERIC_OP) for m in pattern.finditer(code))
    return list(dict.fromkeys(name for _, name in found))


def jobs_of(path: Path, text: str) -> list[Job]:
    """One job per target the kernel names (RUN lines, pto.target_arch), a2a3 if none."""
    found = [Job(path, c.target, c.expect_reject) for c in cases(path, text)]
    arch = TARGET_ARCH.search(text)
    if arch and ARCH.get(arch.group(1)) and not any(j.target == ARCH[arch.group(1)] for j in found):
        found.append(Job(path, ARCH[arch.group(1)], False))
    if not found:
        found.append(Job(path, "a2a3", False))
    # a target both accepted and rejected by different RUN lines: the rejection is about an option
    accepted = {j.target for j in found if not j.expect_reject}
    return list(dict.fromkeys(j for j in found if not (j.expect_reject and j.target in accepted)))


def selected(ptoas: Path, group: str) -> list[Path]:
    files = []
    for top in ("lit", "samples"):
        for path in sorted((ptoas / "test" / top).rglob("*")):
            if path.suffix not in (".pto", ".mlir") or not path.is_file():
                continue
            text = path.read_text(errors="replace")
            if "split-file" in text:
                continue
            in_pypto = top == "samples" and PYPTO_DIRS.match(path.relative_to(ptoas / "test" / "samples").parts[0])
            if group == "gather" and GATHER_FAMILY & set(ops_in(text)):
                files.append(path)
            elif group == "pypto" and in_pypto and not CUBE_OR_COMM.search(text):
                files.append(path)
    return files


def _tool(main, args: list[str]) -> str | None:  # noqa: ANN001
    """Run a CLI's main in this process: None when it exits 0, else its first error line."""
    err = io.StringIO()
    code = 0
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            main(args)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
    if code == 0:
        return None
    lines = err.getvalue().splitlines()
    return next((line for line in lines if "error" in line), lines[0] if lines else f"exit {code}")


ASKED_SCALAR = re.compile(r"\(pto-run: --arg (\w+)=VALUE\)")
SPMD_SCALARS = {"__pypto_spmd_block_idx": 0, "__pypto_spmd_block_num": 1}
"""PyPTO's SPMD arguments: run block 0 of 1."""


SIZES_TRIED = (1, 0, 32, 256)
"""After `size`, the values an asked scalar is given when the run goes out of a view, an array or
a tile: PyPTO's scalars are as often a row or token index (offsets into a small view) as a length,
some lengths must stay within a 32-row view (a loop over it in steps of 8) and some must exceed
offsets of 64 and more."""
OUT_OF_RANGE = re.compile(r"\boutside\b")


def _run(main, args: list[str], size: int) -> str | None:  # noqa: ANN001
    """pto-run, giving each integer scalar it asks for: SPMD block 0 of 1, else `size`; when that
    run reads or writes outside a view, array or tile, again with each such scalar set to each of
    SIZES_TRIED in turn, whatever the error of the one before."""
    first: str | None = None
    for value in (size, *SIZES_TRIED):
        given: list[str] = []
        while True:
            error = _tool(main, args + given)
            asked = ASKED_SCALAR.search(error or "")
            if asked is None or any(g.startswith(asked.group(1) + "=") for g in given[1::2]):
                break
            given += ["--arg", f"{asked.group(1)}={SPMD_SCALARS.get(asked.group(1), value)}"]
        if error is None:
            return None
        first = first or error
        if not given or not OUT_OF_RANGE.search(first):  # a retry's own error (an empty view at 0) ends none
            break
    return first  # the error with --size: the retries' (an empty view at 0, ...) say less


def attempt(job: Job, timeout: int, size: int) -> Outcome:
    from xdsl.dialects.func import FuncOp
    from xdsl.utils.exceptions import ParseError

    from pto_dialect import make_context
    from pto_dialect.diagnostics import PtoError
    from pto_dialect.parser import parse_module
    from pto_tools import pto_opt, pto_run

    name = str(job.path)
    try:
        with time_limit(timeout, KernelTimeout()):
            try:
                module = parse_module(make_context(), job.path.read_text(errors="replace"), name)
            except ParseError as e:
                return Outcome(job, 0, PtoError.from_parse_error(e).text.splitlines()[0])
            except Exception as e:  # noqa: BLE001 (a parser bug is a failure to parse)
                return Outcome(job, 0, f"internal error: {type(e).__name__}: {e}")
            error = _tool(pto_opt.main, [name, "--target", job.target, "-o", os.devnull])
            if error is not None or job.expect_reject:
                return Outcome(job, 1, error or "accepted")
            entries = [f.sym_name.data for f in module.walk() if isinstance(f, FuncOp) and f.body.blocks]
            for entry in entries:  # every function with a body, a module of several (or private ones) too
                error = _run(pto_run.main, [name, "--target", job.target, "--inputs", "random", "--entry", entry], size)
                if error is not None:
                    return Outcome(job, 2, error)
            return Outcome(job, 3, "")
    except KernelTimeout:
        return Outcome(job, -1, f"timeout after {timeout} s")


def _attempt(args: tuple[Job, int, int]) -> Outcome:
    return attempt(*args)


def first_missing(text: str, ours: set[str]) -> str | None:
    return next((op for op in ops_in(text) if op not in ours), None)


def reason(outcome: Outcome, ours: set[str]) -> str:
    """What stops a kernel: the first op we lack, else the error with its location removed."""
    missing = first_missing(outcome.job.path.read_text(errors="replace"), ours)
    if missing is not None:
        return missing
    message = LOCATION.sub("", outcome.error.strip())
    message = re.sub(r"\S+\.(pto|mlir):\d+:\d+", "FILE", message)  # other ops' locations
    message = re.sub(r"%[\w.]+", "%_", message)
    message = re.sub(r"\b\d+\b", "N", message)
    return message[:110]


def report(title: str, outcomes: list[Outcome], ours: set[str], ptoas: Path, listing: bool) -> None:
    kernels = sorted({o.job.path for o in outcomes})
    rejecting = [o for o in outcomes if o.job.expect_reject]
    accepting = [o for o in outcomes if not o.job.expect_reject]
    parsed = sum(1 for k in kernels if all(o.reached > 0 for o in outcomes if o.job.path == k))
    print(f"\n## {title}: {len(kernels)} kernels, {len(outcomes)} (kernel, target) pairs")
    print(f"kernels that parse: {parsed} of {len(kernels)}")
    print("| stage | pairs passing | of |")
    print("| --- | --- | --- |")
    for i, stage in enumerate(STAGES):
        print(f"| {stage} | {sum(1 for o in accepting if o.reached > i)} | {len(accepting)} |")
    if rejecting:
        right = sum(1 for o in rejecting if o.reached == 1 and o.error != "accepted")
        print(f"| rejected as PTOAS rejects (`not ptoas`) | {right} | {len(rejecting)} |")
    stopped = Counter(
        reason(o, ours)
        for o in outcomes
        if (o.reached < 3 and not o.job.expect_reject) or (o.job.expect_reject and o.reached != 1)
    )
    if stopped:
        print("\n| what stops it (first missing op, else the error) | pairs |")
        print("| --- | --- |")
        for why, n in stopped.most_common():
            print(f"| {why.replace('|', '/')} | {n} |")
    if listing:
        for o in outcomes:
            if o.reached < 3 and not (o.job.expect_reject and o.reached == 1 and o.error != "accepted"):
                stage = STAGES[o.reached] if 0 <= o.reached < 3 else "timeout"
                print(f"  {o.job.path.relative_to(ptoas)} {o.job.target} [{stage}] {o.error}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ptoas", type=Path, required=True, help="a PTOAS checkout (its test/ is read)")
    parser.add_argument("--group", choices=("gather", "pypto", "all"), default="all")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=120, help="seconds per (kernel, target)")
    parser.add_argument("--list", action="store_true", help="print every failing (kernel, target)")
    parser.add_argument("--size", type=int, default=64, help="the value of an integer scalar pto-run asks for")
    args = parser.parse_args()
    import interpreter  # noqa: F401 (imported before the workers fork: each starts warm)
    import pto_tools.pto_opt  # noqa: F401
    import pto_tools.pto_run  # noqa: F401

    ours = implemented_ops()
    groups = {"gather": "gather-family kernels (test/lit, test/samples)",
              "pypto": "PyPTO-generated samples without cube or cross-core ops"}
    for group in groups if args.group == "all" else [args.group]:
        jobs = [j for path in selected(args.ptoas, group) for j in jobs_of(path, path.read_text(errors="replace"))]
        with ProcessPoolExecutor(args.jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            outcomes = list(pool.map(_attempt, [(j, args.timeout, args.size) for j in jobs]))
        report(groups[group], outcomes, ours, args.ptoas, args.list)
    return 0


if __name__ == "__main__":
    sys.exit(main())
