"""
`pto-run`: execute a PTO kernel on NumPy arrays with a target's exact semantics.

    pto-run KERNEL [--target cpu|a2a3|a5] [--entry NAME] [--out DIR] [--print[=all]] ARG0.npy ARG1.npy ...
    pto-run KERNEL --targets all [--out DIR] ARG0.npy ...     (every target, compared)
    pto-run KERNEL --profile[=json] ARG0.npy ...              (and what the run cost, docs/cost.md)
    pto-run KERNEL --inputs random[:SEED] [--arg NAME=VALUE ...] [--indices table|wide]

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
result, as 2-D arrays. `--inputs random[:SEED]` draws the arrays instead (interpreter/inputs.py:
sized from the signature and the kernel's views, integer scalars given with --arg, indices
inside the table they index); with --out they are saved as DIR/inputs/argI.npy, which
repeat the run when given as the ARG.npy files. Any bad input or run-time fault is `FILE:LINE:COL: error: ...`
on stderr with exit code 1; Ctrl-C exits with 130 and writes nothing. On a
terminal, a run longer than a couple of seconds shows a progress bar on stderr
(not with --quiet).
"""

from __future__ import annotations

import argparse
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
  bf16 / f8E4M3FN / f8E5M2 arrays use ml_dtypes; !pto.hif8 is raw uint8 bits, a packed pair
  (!pto.f4E2M1x2, ...) the raw bits of its width (uint8, uint16 for hif8x2, uint32 for bf16x2). np.save stores
  most ml_dtypes arrays as raw data (np.load gives |V2 for bf16; f8E5M2 is <f1): such an array
  is read as the argument's declared type, and outputs read back the same way
  (.view(ml_dtypes.bfloat16)). A .npy may come through a pipe (<(python make.py)).

outputs:
  first line     the target it ran for and why: the flag, the module's attribute, or the default
  without --out  per argument the kernel may write (argI) and result (resultK): a header (dtype,
                 shape, as R x C, the region stored to), then that region as a 2-D array
  --out DIR      DIR/argI.npy: the final contents of argument I; DIR/resultK.npy: result K
  --print        every argument the kernel may write, and every result, as a 2-D array

random inputs (--inputs random[:SEED], seed 0 by default; the same seed, the same arrays):
  !pto.ptr<T>                      as many elements as the furthest make_tensor_view of it reaches
                                   (its shape and strides from constants and --arg values), or any
                                   fixed load_scalar / store_scalar offset into it
  views and tiles                  their static shape
  index, iN scalars                --arg NAME=VALUE (NAME: the argument's name without %, or its position);
                                   drawn when they only serve as an offset or index
  float scalars                    drawn unless given with --arg
  values                           floats uniform in [-1, 1); integers in [-100, 100]; an integer array
                                   whose values become offsets or indices (through arithmetic, tiles,
                                   loops): where every such offset stays inside what it indexes
                                   (--indices wide: a range as wide again on each side, for the
                                   out-of-range modes)

examples:
  pto-run examples/embedding_wrap.pto --target a5 --out out/ examples/data/wrap_table.npy examples/data/wrap_ids.npy examples/data/wrap_out.npy
  pto-run examples/embedding_lookup.pto --targets all --inputs random:7 --out out/
"""


def make_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pto-run",
        usage="%(prog)s KERNEL [--target T | --targets T1,T2|all] [--entry NAME] [--out DIR] [--print[=all]] "
        "[--profile[=json|=trace] [--cost-model M] [--cores N]] [--inputs random[:SEED] [--arg NAME=VALUE] [--indices table|wide] | ARG.npy ...]",
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
        "--inputs", metavar="random[:SEED]",
        help="draw every argument instead of reading .npy files (seed 0 unless given); with --out, "
        "saved as DIR/inputs/argI.npy",
    )
    p.add_argument(
        "--arg", action="append", default=[], metavar="NAME=VALUE",
        help="with --inputs: the value of a scalar argument (by name without %%, or position); repeatable",
    )
    p.add_argument(
        "--indices", choices=["table", "wide"], default="table",
        help="with --inputs: draw index arrays inside the table they index (default) or in [-n, 2n)",
    )
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
        "--profile", choices=["table", "json", "trace"], metavar="[=json|=trace]",
        help="after the run, each op's cost as pto-opt --estimate prices it, counting what really ran "
        "(executions, rows gathered, bursts); =json: only the JSON on stdout; =trace: only a per-pipe "
        "timeline on stdout, Chrome trace JSON for Perfetto or chrome://tracing (loops run iteration by "
        "iteration); with --targets, side by side",
    )
    p.add_argument(
        "--cost-model", choices=list(targets.COST_MODELS), default="pto-isa",
        help="--profile's prices: pto-isa's own cost model (default), or the target's model calibrated "
        "on public hardware figures (docs/cost.md)",
    )
    p.add_argument(
        "--cores", type=int, metavar="N",
        help="cores transferring at once, for the calibrated model's contention (needs "
        "--cost-model=calibrated; default: the kernel's SPMD block count, %%__pypto_spmd_block_num, else 1)",
    )
    p.add_argument(
        "--check-sync", action="store_true",
        help="also check the pipe synchronization on this run's control flow, every loop iteration with its "
        "index (passes/sync_check.py): a race between pipes or a deadlock is a located error (exit 1), a flag "
        "left set at the end a warning",
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
    if args.profile == "trace" and args.targets is not None:
        parser.error("--profile=trace takes one --target")
    if args.profile is None and (args.cost_model != "pto-isa" or args.cores is not None):
        parser.error("--cost-model and --cores price --profile: add --profile")
    if args.inputs is not None and args.arrays:
        parser.error("--inputs random draws every argument: give no .npy files with it")
    if args.inputs is None and (args.arg or args.indices != "table"):
        parser.error("--arg and --indices go with --inputs random")
    named: dict[str, str] = {}
    for given in args.arg:
        if "=" not in given:
            parser.error(f"--arg takes NAME=VALUE, got '{given}'")
        name = given.split("=", 1)[0]
        if name in named:
            parser.error(f"--arg gives {name} twice: '{named[name]}' and '{given}'")
        named[name] = given
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args: argparse.Namespace | None = None

    def run() -> None:  # the arguments parsed inside run_main: --help and --version write to stdout too
        nonlocal args
        args = parse_args(argv)
        _run(args)

    run_main(run, lambda: args.kernel if args is not None else None)


def _run(args: argparse.Namespace) -> None:
    import interpreter

    module = _load_kernel(args.kernel)
    arrays = _inputs(interpreter, module, args)
    if args.targets is not None:
        _compare(interpreter, module, arrays, args)
        return
    chosen = targets.resolution(targets.named_target([(args.target, f"--target {args.target}")]), module)
    stored = interpreter.GmWrites()
    profiler = (
        interpreter.Profiler(chosen.target, args.cost_model, args.cores, trace=args.profile == "trace")
        if args.profile
        else None
    )
    sync = interpreter.SyncReport() if args.check_sync else None
    with ProgressBar.on_terminal(quiet=args.quiet) as progress:
        finals, results = interpreter.run_with_results(
            module, chosen.target, arrays, args.entry, listeners=progress.listeners, gm_writes=stored,
            profiler=profiler, sync_report=sync, sources=args.arrays or None,
        )
    if sync is not None:
        for line in sync.warnings:
            print(line, file=sys.stderr)
        if sync.errors:
            raise PtoError("\n".join(e.text for e in sync.errors))
    named = [(f"arg{i}", a) for i, a in enumerate(finals)] + [(f"result{k}", r) for k, r in enumerate(results)]
    if args.out:
        write_outputs(Path(args.out), {Path(f"{name}.npy"): array for name, array in named} | _saved_inputs(args, arrays))
    if profiler is not None and args.profile == "json":  # stdout holds the JSON only (its "target" says which)
        print(_json(profiler.report().json(), indent=2))
        return
    if profiler is not None and profiler.timeline is not None:  # stdout holds the trace only
        print(_json(profiler.timeline.chrome_trace()))
        return
    print(f"target: {chosen.target} ({chosen.why})")  # once it ran: an interrupted run prints nothing
    if args.inputs is not None:
        print(f"inputs: drawn ({args.inputs}{'' if ':' in args.inputs else ':0'})")
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


def _inputs(interpreter, module: ModuleOp, args: argparse.Namespace) -> list[np.ndarray]:  # noqa: ANN001
    """The .npy files given, or the arrays --inputs draws."""
    if args.inputs is None:
        return [read_npy(path) for path in args.arrays]
    scalars = dict(given.split("=", 1) for given in args.arg)
    try:
        return interpreter.draw_inputs(module, args.inputs, args.entry, scalars, args.indices)
    except PtoError as e:
        message = str(e)  # a message without a location comes from the flags
        raise PtoError(f"pto-run: {message}" if message.startswith("error:") else message) from e


def _json(data: object, indent: int | None = None) -> str:
    """`--profile=json` and `=trace`'s output (json imported by the runs that print it)."""
    import json

    return json.dumps(data, indent=indent)


def _saved_inputs(args: argparse.Namespace, arrays: list[np.ndarray]) -> dict[Path, np.ndarray]:
    """Drawn inputs, to be written under --out (given .npy files are the user's already)."""
    if args.inputs is None:
        return {}
    return {Path("inputs") / f"arg{i}.npy": a for i, a in enumerate(arrays)}


def _load_kernel(path: str) -> ModuleOp:
    """Parse and verify what pto-opt reads: MLIR text (target dialects included) or the assembly form."""
    import pto_dialect
    from pto_dialect import asm  # its reader (lark, a grammar) only for the assembly form
    from pto_dialect.files import read_kernel
    from pto_dialect.parser import decode_source, verify_located
    from pto_tools.context import kernel_context

    ctx = kernel_context()
    text = decode_source(read_kernel(path), path, 0)
    if not path.endswith("." + asm.ASM_EXTENSION):
        return pto_dialect.parse(text, path, ctx)
    module = asm.read_asm(ctx, text, path, Path(path).stem)
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
        report = interpreter.compare(
            module, args.targets, arrays, args.entry, profile=args.profile is not None, cost_model=args.cost_model,
            cores=args.cores,
        )
    except targets.UnknownTarget as e:
        raise PtoError(f"pto-run: error: {e}") from e
    if args.out:
        write_outputs(
            Path(args.out),
            {
                Path(t) / f"{kind}{i}.npy": array
                for kind, per_target in (("arg", report.outputs), ("result", report.results))
                for t, outputs in per_target.items()
                for i, array in enumerate(outputs)
            } | _saved_inputs(args, arrays),
        )
    profiles = list(report.profiles.values())
    if args.profile == "json":  # stdout holds the JSON only
        print(report.text(), end="", file=sys.stderr)
        print(_json([p.json() for p in profiles], indent=2))
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
