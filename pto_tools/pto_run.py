"""
`pto-run`: execute a PTO kernel on NumPy arrays with a target's exact semantics.

    pto-run KERNEL [--target cpu|a2a3|a5] [--entry NAME] [--out DIR] [--print] ARG0.npy ARG1.npy ...
    pto-run KERNEL --targets all [--out DIR] ARG0.npy ...     (every target, compared)
    pto-run KERNEL --profile[=json] ARG0.npy ...              (and what the run cost, docs/cost.md)

KERNEL is what pto-opt reads: a `.pto` file (DPS or SSA form, or the lowered IR that
`pto-opt -p pto-lower` prints) or a `.ptoasm` file. Without --target, the target
the lowered IR is for, else the module's pto.target_arch, else a2a3, as in pto-opt.

The i-th .npy binds the i-th argument of the module's public function (or
--entry). With --out, every argument's final contents go to DIR/argI.npy and
the K-th result of the function to DIR/resultK.npy, all renamed into place only
once the run succeeded and all were written; without it, an 8-element preview of
each is printed. Any bad input or run-time fault is `FILE:LINE:COL: error: ...`
on stderr with exit code 1; Ctrl-C exits with 130 and writes nothing. On a
terminal, a run longer than a couple of seconds shows a progress bar on stderr
(not with --quiet).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from xdsl.dialects.builtin import ModuleOp

from pto_dialect.diagnostics import PtoError
import targets
from pto_tools.usage import VersionAction, bare_flag_value, one_line_errors

from pto_tools.exits import run_main
from pto_tools.outputs import StagedOutputs
from pto_tools.progress import ProgressBar

EPILOG = """\
argument binding:
  !pto.ptr<T>                      an array of dtype exactly T (any shape; used flattened, row-major)
  !pto.partition_tensor_view<...>  an array of the view's shape and element type
  !pto.tile_buf<...>               an array of the tile's (padded) shape and element type
  index, iN, f32, ...              a 0-d array (np.save(path, np.array(3)))
  bf16 / f8E4M3FN / f8E5M2 arrays use ml_dtypes; !pto.hif8 is raw uint8 bits. np.save stores
  ml_dtypes arrays as raw data (np.load gives |V2 for bf16): such an array is read as the
  argument's declared type, and outputs read back the same way (.view(ml_dtypes.bfloat16)).

outputs:
  without --out  one line per argument (argI) and result (resultK): dtype, shape, first 8 elements
  --out DIR      DIR/argI.npy: the final contents of argument I; DIR/resultK.npy: result K
  --print        every argument the kernel may write, and every result, as a 2-D array

example:
  pto-run examples/embedding_lookup.pto --target a5 --out out/ table.npy ids.npy out.npy
"""


def make_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pto-run",
        usage="%(prog)s KERNEL [--target T | --targets T1,T2|all] [--entry NAME] [--out DIR] [--print] "
        "[--profile[=json]] [ARG.npy ...]",
        description="Run a PTO kernel on NumPy arrays with the exact semantics of a target.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    one_line_errors(p)
    p.add_argument("-v", "--version", action=VersionAction)
    p.add_argument("kernel", help="a .pto file (any form pto-opt prints, lowered IR included) or a .ptoasm file")
    p.add_argument("arrays", nargs="*", help="one .npy file per function argument, in order")
    p.add_argument(
        "-t", "--target", choices=list(targets.SPELLINGS),
        help=f"hardware target ({targets.help_text()})",
    )
    p.add_argument(
        "--targets", metavar="T1,T2|all",
        help="run on each listed target that accepts the kernel and report where they differ "
        "(outputs in DIR/<target>/argI.npy); exit 1 unless every target ran and all agree",
    )
    p.add_argument("--entry", help="function to run (default: the module's only public function)")
    p.add_argument(
        "--out", help="directory for argI.npy (each argument's final contents) and resultK.npy (each result)"
    )
    p.add_argument("--print", action="store_true", help="print written arguments and results as 2-D arrays")
    p.add_argument(
        "--profile", choices=["table", "json"], metavar="[=json]",
        help="after the run, each op's cost as pto-opt --estimate prices it, counting what really ran "
        "(executions, rows gathered, bursts); =json: only the JSON on stdout; with --targets, side by side",
    )
    p.add_argument(
        "-q", "--quiet", action="store_true",
        help="no progress bar (shown on a terminal for runs longer than a couple of seconds)",
    )
    return p


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = make_parser()
    args = parser.parse_intermixed_args(bare_flag_value(sys.argv[1:] if argv is None else argv, "--profile", "table"))
    if args.targets is not None and args.target is not None:
        parser.error("--target and --targets exclude each other")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    run_main(lambda: _run(args), lambda: args.kernel)


def _run(args: argparse.Namespace) -> None:
    import interpreter

    module = _load_kernel(args.kernel)
    target = _lowered_for(module, args.target) or args.target
    arrays = [read_npy(path) for path in args.arrays]
    if args.targets is not None:
        _compare(interpreter, module, arrays, args)
        return
    profiler = interpreter.Profiler(targets.resolve(target, None, module)) if args.profile else None
    with ProgressBar.on_terminal(quiet=args.quiet) as progress:
        finals, results = interpreter.run_with_results(
            module, target, arrays, args.entry, listeners=progress.listeners, profiler=profiler
        )
    named = [(f"arg{i}", a) for i, a in enumerate(finals)] + [(f"result{k}", r) for k, r in enumerate(results)]
    if args.out:
        write_outputs(Path(args.out), {Path(f"{name}.npy"): array for name, array in named})
    elif not args.print and args.profile != "json":  # --profile=json: stdout holds the JSON only
        for name, array in named:
            print(f"{name}: {array.dtype} {list(array.shape)} {_preview(array)}")
    if profiler is not None:
        report = profiler.report()
        print(json.dumps(report.json(), indent=2) if args.profile == "json" else report.table(), end="\n" if args.profile == "json" else "")
    if args.print:
        for name, array in named:
            if array.flags.writeable:  # the kernel's inputs are read-only views
                print(f"{name}: {array.dtype} {list(array.shape)}\n{_as_2d(module, name, array)}")


def _load_kernel(path: str) -> ModuleOp:
    """Parse and verify what pto-opt reads: MLIR text (target dialects included) or the assembly form."""
    import pto_dialect
    from pto_dialect.asm import ASM_EXTENSION, read_asm
    from pto_dialect.parser import decode_source, verify_located

    from pto_dialect.instructions import LOWERING_DIALECTS

    ctx = pto_dialect.make_context()
    for dialect in (*LOWERING_DIALECTS, *(t.dialect for t in targets.REGISTRY)):
        ctx.load_dialect(dialect)
    text = decode_source(Path(path).read_bytes(), path, 0)
    if not path.endswith("." + ASM_EXTENSION):
        return pto_dialect.parse(text, path, ctx)
    module = read_asm(ctx, text, path, Path(path).stem)
    verify_located(module)
    return module


def _lowered_for(module: ModuleOp, flag: str | None) -> targets.TargetInfo | None:
    """The target whose dialect the module's ops are in, if it was lowered already."""
    dialects = {t.dialect_name: t for t in targets.REGISTRY}
    lowered = next((op for op in module.walk() if op.dialect_name() in dialects), None)
    if lowered is None:
        return None
    target = dialects[lowered.dialect_name()]
    if flag is not None and targets.get(flag) != target:
        raise PtoError.at_op(
            lowered, f"is lowered for {target}; run it with --target {target}, or run the kernel before pto-lower"
        )
    return target


def _as_2d(module: ModuleOp, name: str, array: np.ndarray) -> str:
    """NumPy's printing (summarised when large) of the array as rows x columns: an
    argument's flat buffer takes the shape of the tensor view the kernel makes of it."""
    if array.ndim == 1 and name.startswith("arg"):
        shape = _view_shape(module, int(name[3:]))
        if shape is not None and int(np.prod(shape)) == array.size:
            array = array.reshape(-1, shape[-1])
    if array.ndim != 2:
        array = array.reshape(-1, array.shape[-1]) if array.ndim > 2 else array.reshape(1, -1)
    return np.array2string(array, threshold=200, edgeitems=3)


def _view_shape(module: ModuleOp, index: int) -> list[int] | None:
    from xdsl.dialects import func

    from pto_dialect.ops import MakeTensorViewOp
    from pto_dialect.ops.memory import constant_index

    functions = [f for f in module.walk() if isinstance(f, func.FuncOp) and f.body.blocks]
    for f in functions:
        if index >= len(f.args):
            continue
        for use in f.args[index].uses:
            if isinstance(use.operation, MakeTensorViewOp):
                shape = [constant_index(d) for d in use.operation.shape]
                if len(shape) >= 2 and None not in shape:
                    return shape
    return None


def _compare(interpreter, module, arrays: list[np.ndarray], args: argparse.Namespace) -> None:  # noqa: ANN001
    """`--targets`: print the report (and the profiles side by side), write each target's
    outputs, exit 1 unless all agree."""
    from passes.estimate import side_by_side

    try:
        report = interpreter.compare(module, args.targets, arrays, args.entry, profile=args.profile is not None)
    except targets.UnknownTarget as e:
        raise PtoError(f"pto-run: error: {e}") from e
    if args.out:
        write_outputs(
            Path(args.out),
            {
                Path(t) / f"{kind}{i}.npy": array
                for kind, per_target in (("arg", report.outputs), ("result", report.results))
                for t, arrays in per_target.items()
                for i, array in enumerate(arrays)
            },
        )
    profiles = list(report.profiles.values())
    if args.profile == "json":  # stdout holds the JSON only
        print(report.text(), end="", file=sys.stderr)
        print(json.dumps([p.json() for p in profiles], indent=2))
    else:
        print(report.text(), end="")
        if args.profile:
            print(side_by_side(profiles), end="")
    if not report.agree:
        sys.exit(1)


def write_outputs(directory: Path, files: Mapping[Path, np.ndarray]) -> None:
    """Each array to its path under `directory`, all renamed into place once all were written."""
    if directory.exists() and not directory.is_dir():
        raise PtoError(f"{directory}: error: --out names a file; expected a directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise PtoError(f"{directory}: error: cannot create the --out directory: {e.strerror}") from e
    with StagedOutputs() as staged:
        for path, array in files.items():
            (directory / path).parent.mkdir(exist_ok=True)
            with staged.open(directory / path, "wb") as f:
                np.save(f, array)
        staged.commit()


def read_npy(path: str) -> np.ndarray:
    """A .npy array; its header is checked against the file's size before anything is allocated."""
    try:
        with open(path, "rb") as f:
            try:
                version = np.lib.format.read_magic(f)
                read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
                shape, _, dtype = read_header(f)
            except Exception as e:  # numpy raises many kinds (ValueError, SyntaxError, TokenError...) on a bad header
                raise PtoError(f"{path}: error: not a .npy array file ({type(e).__name__}: {e})") from e
            data_bytes = os.fstat(f.fileno()).st_size - f.tell()
    except IsADirectoryError:
        raise PtoError(f"{path}: error: cannot open: Is a directory") from None
    if dtype.hasobject:
        raise PtoError(f"{path}: error: the array holds Python objects; pto-run reads numeric arrays only")
    needed = math.prod(shape) * dtype.itemsize
    if needed != data_bytes:
        raise PtoError(
            f"{path}: error: the header declares shape {shape} of {dtype} ({needed} bytes) "
            f"but the file holds {data_bytes} bytes of data"
        )
    return np.load(path, allow_pickle=False)


def _preview(array: np.ndarray) -> str:
    flat = array.reshape(-1)
    head = np.array2string(flat[:8], separator=", ")
    return head[:-1] + ", ...]" if flat.size > 8 else head


if __name__ == "__main__":
    main()
