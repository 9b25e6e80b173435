"""
`pto-run`: execute a PTO kernel on NumPy arrays with a target's exact semantics.

    pto-run KERNEL [--target cpu|a2a3|a5] [--entry NAME] [--out DIR] [--print[=all]] ARG0.npy ARG1.npy ...
    pto-run KERNEL --targets all [--out DIR] ARG0.npy ...     (every target, compared)
    pto-run KERNEL --profile[=json] ARG0.npy ...              (and what the run cost, docs/cost.md)

KERNEL is what pto-opt reads: a `.pto` file (DPS or SSA form, or the lowered IR that
`pto-opt -p pto-lower` prints) or a `.ptoasm` file. Without --target, the target
the lowered IR is for, else the module's pto.target_arch, else a2a3, as in pto-opt.
The first line of output, once the run succeeded, names the target and why
(`target: a5 (--target a5)`).

The i-th .npy binds the i-th argument of the module's public function (or
--entry). With --out, every argument's final contents go to DIR/argI.npy and
the K-th result of the function to DIR/resultK.npy, all renamed into place only
once the run succeeded and all were written; without it, what the kernel wrote
is printed: each argument it may write (the rows and columns it stored to) and each
result, as 2-D arrays. Any bad input or run-time fault is `FILE:LINE:COL: error: ...`
on stderr with exit code 1; Ctrl-C exits with 130 and writes nothing. On a
terminal, a run longer than a couple of seconds shows a progress bar on stderr
(not with --quiet).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from xdsl.dialects.builtin import ModuleOp

from pto_dialect.diagnostics import PtoError
import targets
from pto_tools.usage import VersionAction, bare_flag_value, one_line_errors

from pto_tools.exits import run_main
from pto_tools.npy import read_npy
from pto_tools.outputs import StagedOutputs
from pto_tools.progress import ProgressBar

if TYPE_CHECKING:
    from xdsl.dialects import func

EPILOG = """\
argument binding:
  !pto.ptr<T>                      an array of dtype exactly T (any shape; used flattened, row-major)
  !pto.partition_tensor_view<...>  an array of the view's shape and element type
  !pto.tile_buf<...>               an array of the tile's (padded) shape and element type
  index, iN, f32, ...              a 0-d array (np.save(path, np.array(3)))
  bf16 / f8E4M3FN / f8E5M2 arrays use ml_dtypes; !pto.hif8 is raw uint8 bits. np.save stores
  most ml_dtypes arrays as raw data (np.load gives |V2 for bf16; f8E5M2 is <f1): such an array
  is read as the argument's declared type, and outputs read back the same way
  (.view(ml_dtypes.bfloat16)). A .npy may come through a pipe (<(python make.py)).

outputs:
  first line     the target it ran for and why: the flag, the module's attribute, or the default
  without --out  per argument the kernel may write (argI) and result (resultK): a header (dtype,
                 shape, as R x C, the region stored to), then that region as a 2-D array
  --out DIR      DIR/argI.npy: the final contents of argument I; DIR/resultK.npy: result K
  --print        every argument the kernel may write, and every result, as a 2-D array

example (the repository's files):
  pto-run examples/embedding_wrap.pto --target a5 --out out/ examples/data/wrap_table.npy examples/data/wrap_ids.npy examples/data/wrap_out.npy
"""


def make_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pto-run",
        usage="%(prog)s KERNEL [--target T | --targets T1,T2|all] [--entry NAME] [--out DIR] [--print[=all]] "
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
    p.add_argument(
        "--print", action="store_const", const="written",
        help="print every argument the kernel may write, and every result, whole, as 2-D arrays",
    )
    p.add_argument(
        "--print=all", dest="print", action="store_const", const="all",
        help="... and the arguments it only reads too",
    )
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
    if args.targets is not None:
        _compare(interpreter, module, [read_npy(path) for path in args.arrays], args)
        return
    chosen = targets.resolution(targets.named_target([(args.target, f"--target {args.target}")]), module)
    arrays = [read_npy(path) for path in args.arrays]
    stored = interpreter.GmWrites()
    profiler = interpreter.Profiler(chosen.target) if args.profile else None
    with ProgressBar.on_terminal(quiet=args.quiet) as progress:
        finals, results = interpreter.run_with_results(
            module, chosen.target, arrays, args.entry, listeners=progress.listeners, gm_writes=stored,
            profiler=profiler, sources=args.arrays,
        )
    named = [(f"arg{i}", a) for i, a in enumerate(finals)] + [(f"result{k}", r) for k, r in enumerate(results)]
    if args.out:
        write_outputs(Path(args.out), {Path(f"{name}.npy"): array for name, array in named})
    if profiler is not None and args.profile == "json":  # stdout holds the JSON only (its "target" says which)
        print(json.dumps(profiler.report().json(), indent=2))
        return
    print(f"target: {chosen.target} ({chosen.why})")  # once it ran: an interrupted run prints nothing
    function = interpreter.entry_function(module, args.entry)
    scratch = interpreter.scratch_arguments(function)
    shown = [
        _Shown(f"arg{i}", a, _view_shape(function, i), stored.per_argument[i], scratch.get(i))
        for i, a in enumerate(finals)
    ] + [_Shown(f"result{k}", r) for k, r in enumerate(results)]
    if args.print is not None:
        for s in shown:
            if s.array.flags.writeable or args.print == "all":  # the kernel's inputs are read-only views
                print(f"{s.header}\n{_printed(s.grid)}")
    elif not args.out:
        for s in shown:
            if s.array.flags.writeable:
                print(s.preview())
    if profiler is not None:
        print(profiler.report().table(), end="")


def _load_kernel(path: str) -> ModuleOp:
    """Parse and verify what pto-opt reads: MLIR text (target dialects included) or the assembly form."""
    import pto_dialect
    from pto_dialect.asm import ASM_EXTENSION, read_asm
    from pto_dialect.files import read_kernel
    from pto_dialect.parser import decode_source, verify_located

    from pto_dialect.instructions import LOWERING_DIALECTS

    ctx = pto_dialect.make_context()
    for dialect in (*LOWERING_DIALECTS, *(t.dialect for t in targets.REGISTRY)):
        ctx.load_dialect(dialect)
    text = decode_source(read_kernel(path), path, 0)
    if not path.endswith("." + ASM_EXTENSION):
        return pto_dialect.parse(text, path, ctx)
    module = read_asm(ctx, text, path, Path(path).stem)
    verify_located(module)
    return module


class _Shown:
    """An argument or result as pto-run prints it: 2-D (a flat buffer takes the shape of the
    tensor view the kernel makes of it), with what the run stored to it when it is GM."""

    def __init__(
        self, name: str, array: np.ndarray, view_shape: tuple[int, ...] | None = None,
        stored: np.ndarray | None = None, scratch: str | None = None,
    ):
        self.name, self.array, self.scratch = name, array, scratch
        reshaped = view_shape is not None and array.ndim == 1 and math.prod(view_shape) == array.size
        self.grid = _as_2d(array.reshape(view_shape) if reshaped else array)
        self.stored = None if stored is None else stored.reshape(self.grid.shape)
        as_grid = f", as {self.grid.shape[0]} x {self.grid.shape[1]}" if self.grid.shape != array.shape else ""
        self.header = f"{name}: {array.dtype} {list(array.shape)}{as_grid}"

    def preview(self) -> str:
        """What the kernel wrote: a GM argument's stored region (the rows and columns that hold
        every stored element), a tile argument or a result whole."""
        if self.scratch is not None:
            return f"{self.name}: scratch ({self.scratch}): not shown"
        if self.stored is None:
            return f"{self.header}\n{_printed(self.grid)}"
        rows, cols = np.nonzero(self.stored.any(axis=1))[0], np.nonzero(self.stored.any(axis=0))[0]
        if rows.size == 0:
            return f"{self.header}; nothing stored to it"
        r0, r1, c0, c1 = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
        whole = (r0, c0, r1, c1) == (0, 0, *self.grid.shape)
        region = "all of it" if whole else f"[{r0}:{r1}, {c0}:{c1}]"
        return f"{self.header}; stored to: {region}\n{_printed(self.grid[r0:r1, c0:c1])}"


def _as_2d(array: np.ndarray) -> np.ndarray:
    """Rows x columns: leading dims folded into rows; a vector is one row; a scalar stays 0-d."""
    if array.ndim == 0 or array.ndim == 2:
        return array
    return array.reshape(-1, array.shape[-1]) if array.ndim > 2 else array.reshape(1, -1)


def _printed(array: np.ndarray) -> str:
    """NumPy's printing, summarised when large."""
    return np.array2string(array, threshold=200, edgeitems=3)


def _view_shape(function: func.FuncOp, index: int) -> tuple[int, ...] | None:
    """The static shape of the first tensor view the function makes of argument `index`."""
    from pto_dialect.ops import MakeTensorViewOp
    from pto_dialect.ops.memory import constant_index

    for use in function.args[index].uses:
        if isinstance(use.operation, MakeTensorViewOp):
            shape = [constant_index(d) for d in use.operation.shape]
            if len(shape) >= 2 and None not in shape:
                return tuple(shape)  # type: ignore[arg-type]
    return None


def _compare(interpreter, module, arrays: list[np.ndarray], args: argparse.Namespace) -> None:
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


if __name__ == "__main__":
    main()
