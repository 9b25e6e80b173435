"""
PTOAS's register-level (vpto) micro-op cases, run on pto-run --target a5 and judged by each case's own
oracle: its `golden.py` makes the inputs and the expected outputs, `pto-run` runs `kernel.pto`, its
`compare.py` compares.

    .venv/bin/python bench/vpto_cases.py --ptoas /path/to/PTOAS [--commit e32488c9] [--folder F ...] [--case NAME]

--ptoas names a PTOAS git directory (a bare mirror) or work tree. With --commit (or for a bare git
directory, whose HEAD is read otherwise), the cases come from `git archive` of that commit; a work tree
without --commit is read as it is on disk. Everything is copied to a temporary directory: nothing of
PTOAS enters this repository. Folders (under test/vpto/cases/micro-op/): gather-scatter,
vector-load-store, predicate-load-store, materialization-predicate (all four unless --folder is given).

Per case: `golden.py --output-dir .` in the case's copy makes the .bin files; the kernel's arguments are
what main.cpp passes through launch.cpp, in order: a buffer read from the `<file>.bin` its ReadFile fills
it from, as the element type of its `!pto.ptr<T, gm>`, or a constant; `pto-run --target a5 --out` runs
it; the buffers main.cpp writes back (`WriteFile("./<file>.bin", ...)`) are written from pto-run's outputs; `compare.py` runs in the copy and
its exit code is the verdict. Prints a table (case, verdict, reason) and the counts per folder.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CASES = "test/vpto/cases/micro-op"
FOLDERS: tuple[str, ...] = ("gather-scatter", "vector-load-store", "predicate-load-store", "materialization-predicate")
STEP_SECONDS = 600
"""The longest one step of a case (golden, pto-run, compare) may take."""


@dataclass
class Verdict:
    folder: str
    case: str
    verdict: str
    reason: str


def fetch_cases(ptoas: Path, commit: str | None, folders: list[str], into: Path) -> Path:
    """The case folders of `ptoas` (at `commit`) copied under `into`; their common root."""
    is_work_tree = (ptoas / CASES).is_dir()
    if is_work_tree and commit is None:
        for folder in folders:
            source = ptoas / CASES / folder
            if source.is_dir():
                _copy_tree(source, into / CASES / folder)
        return into / CASES
    paths = [f"{CASES}/{folder}" for folder in folders]
    listed = subprocess.run(
        ["git", "-C", str(ptoas), "ls-tree", "-d", "--name-only", commit or "HEAD", *paths],
        capture_output=True, text=True, check=True,
    ).stdout.split()
    archive = subprocess.run(
        ["git", "-C", str(ptoas), "archive", "--format=tar", commit or "HEAD", *listed],
        capture_output=True, check=True,
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / CASES


def _copy_tree(source: Path, target: Path) -> None:
    for path in source.rglob("*"):
        if path.is_file():
            destination = target / path.relative_to(source)
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_bytes(path.read_bytes())


@dataclass
class Argument:
    """One kernel argument as the case's host code passes it: a buffer read from (and maybe written back to)
    `<file>.bin`, or a scalar constant."""

    file: str | None = None
    written: bool = False
    scalar: int | None = None


def _split_arguments(text: str) -> list[str]:
    return [a.strip() for a in text.split(",") if a.strip()]


def case_arguments(case: Path) -> list[Argument]:
    """The kernel's arguments in order: launch.cpp's kernel launch names its launch function's parameters,
    main.cpp's call of that function passes a device buffer (copied from and to a host buffer that
    ReadFile / WriteFile fill from and save to `<file>.bin`) or a constant for each."""
    launch = (case / "launch.cpp").read_text()
    main = (case / "main.cpp").read_text()
    kernel_call = re.search(r"<<<[^>]*>>>\s*\((.*?)\);", launch, re.S)
    definition = re.search(r"void\s+(Launch\w*)\s*\((.*?)\)\s*\{", launch, re.S)
    if kernel_call is None or definition is None:
        raise ValueError("launch.cpp has no launch function with a kernel launch")
    parameters = [p.split()[-1].lstrip("*") for p in _split_arguments(definition.group(2))]
    main_call = re.search(rf"\b{definition.group(1)}\s*\((.*?)\);", main.split("int main", 1)[-1], re.S)
    if main_call is None:
        raise ValueError(f"main.cpp does not call {definition.group(1)}")
    passed = dict(zip(parameters, _split_arguments(main_call.group(1))))
    arguments = []
    for launched in _split_arguments(kernel_call.group(1)):
        given = passed.get(re.sub(r"\(.*?\)", "", launched).strip(), "")
        arguments.append(_host_argument(main, given))
    return arguments


def _host_argument(main: str, given: str) -> Argument:
    constant = re.search(rf"\b{re.escape(given)}\s*=\s*(-?\d+)\s*;", main)
    if constant is not None:
        return Argument(scalar=int(constant.group(1)))
    host = _host_of(main, given)
    read = re.search(rf'ReadFile\("(?:\./)?(\w+)\.bin",[^;]*?\b{re.escape(host)}\b', main)
    written = re.search(rf'WriteFile\("(?:\./)?(\w+)\.bin",\s*\(?[^;]*?\b{re.escape(host)}\b', main)
    file = read.group(1) if read else written.group(1) if written else None
    return Argument(file=file, written=written is not None)


def _host_of(main: str, device: str) -> str:
    """The host buffer main.cpp copies to `device` (aclrtMemcpy(device, ..., host, ...))."""
    copy = re.search(rf"aclrtMemcpy\(\s*{re.escape(device)}\s*,[^,]*,\s*(\w+)", main)
    return copy.group(1) if copy else re.sub(r"Device$", "Host", device)


def argument_types(kernel: Path) -> list[tuple[np.dtype, bool]]:
    """Each kernel argument's NumPy type and whether it is a pointer (`!pto.ptr<T, gm>`: its element type)
    rather than a scalar, from the project's parser."""
    import interpreter
    import pto_dialect
    from pto_dialect.types import PtrType
    from xdsl.dialects.builtin import IntegerType

    function = interpreter.entry_function(pto_dialect.load(kernel), None)
    types = []
    for arg in function.args:
        if isinstance(arg.type, PtrType):
            types.append((arg.type.element.numpy, True))
        elif isinstance(arg.type, IntegerType):
            types.append((np.dtype(f"int{arg.type.width.data}"), False))
        else:
            raise ValueError(f"argument {arg.name_hint or arg.index} is {arg.type}: neither a !pto.ptr nor an integer")
    return types


def _last_error(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower() or "mismatch" in line.lower()]
    return (errors or lines or ["(no output)"])[0][:300]


def run_case(folder: str, case: Path, pto_run: Path) -> Verdict:
    def verdict(word: str, reason: str) -> Verdict:
        return Verdict(folder, case.name, word, reason.replace(f"{case}/", ""))

    if not (case / "kernel.pto").exists() or not (case / "compare.py").exists():
        return verdict("skip", "no kernel.pto / compare.py (not a runnable case at this commit)")
    golden = _run([sys.executable, "golden.py", "--output-dir", "."], case)
    if golden.returncode == 2 and "usage" in golden.stderr:  # a golden.py without --output-dir writes to its folder
        golden = _run([sys.executable, "golden.py"], case)
    if golden.returncode != 0:
        return verdict("error", f"golden.py: {_last_error(golden.stderr + golden.stdout)}")
    try:
        arguments = case_arguments(case)
        types = argument_types(case / "kernel.pto")
    except Exception as e:  # noqa: BLE001 (any failure to read the case is its verdict)
        return verdict("fail", _last_error(str(e)))
    if len(arguments) != len(types):
        return verdict("error", f"launch.cpp passes {len(arguments)} arguments to a kernel of {len(types)}")
    arrays = case / "npy"
    arrays.mkdir()
    paths = []
    for index, (argument, (dtype, is_pointer)) in enumerate(zip(arguments, types)):
        path = arrays / f"arg{index}.npy"
        paths.append(str(path))
        if not is_pointer:
            if argument.scalar is None:
                return verdict("error", f"main.cpp passes no constant for scalar argument {index}")
            np.save(path, np.array(argument.scalar, dtype=dtype))
        elif argument.file is None or not (case / f"{argument.file}.bin").exists():
            return verdict("error", f"no .bin file found for argument {index} ({argument.file})")
        else:
            np.save(path, np.fromfile(case / f"{argument.file}.bin", dtype=dtype))
    out = case / "out"
    run = _run([str(pto_run), "--target", "a5", "--quiet", "--out", str(out), "kernel.pto", *paths], case)
    if run.returncode != 0:
        return verdict("fail", _last_error(run.stderr + run.stdout))
    for index, argument in enumerate(arguments):
        if argument.written:
            np.load(out / f"arg{index}.npy").tofile(case / f"{argument.file}.bin")
    compare = _run([sys.executable, "compare.py"], case)
    if compare.returncode != 0:
        return verdict("fail", f"compare.py: {_last_error(compare.stdout + compare.stderr)}")
    return verdict("pass", "")


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=STEP_SECONDS)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(command, 124, "", f"error: timed out after {STEP_SECONDS} s")


def table(verdicts: list[Verdict]) -> str:
    lines = ["| folder | case | verdict | reason |", "|---|---|---|---|"]
    lines += [f"| {v.folder} | {v.case} | {v.verdict} | {v.reason.replace('|', '/')} |" for v in verdicts]
    lines += ["", "| folder | pass | total |", "|---|---|---|"]
    for folder in dict.fromkeys(v.folder for v in verdicts):
        mine = [v for v in verdicts if v.folder == folder]
        lines.append(f"| {folder} | {sum(v.verdict == 'pass' for v in mine)} | {len(mine)} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ptoas", type=Path, required=True, help="a PTOAS git directory or work tree")
    parser.add_argument("--commit", help="the commit to read the cases at (default: the work tree, else HEAD)")
    parser.add_argument("--folder", action="append", choices=FOLDERS, help="a case folder (repeatable; default: all four)")
    parser.add_argument("--case", action="append", help="only the cases of this name (repeatable)")
    args = parser.parse_args(argv)
    pto_run = Path(sys.executable).parent / "pto-run"
    folders = args.folder or list(FOLDERS)
    verdicts: list[Verdict] = []
    with tempfile.TemporaryDirectory(prefix="vpto-cases-") as scratch:
        root = fetch_cases(args.ptoas, args.commit, folders, Path(scratch))
        for folder in folders:
            cases = sorted(p for p in (root / folder).iterdir() if p.is_dir()) if (root / folder).is_dir() else []
            for case in cases:
                if args.case and case.name not in args.case:
                    continue
                result = run_case(folder, case, pto_run)
                print(f"{folder}/{case.name}: {result.verdict} {result.reason}", file=sys.stderr, flush=True)
                verdicts.append(result)
    print(table(verdicts))
    return 0 if all(v.verdict in ("pass", "skip") for v in verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
