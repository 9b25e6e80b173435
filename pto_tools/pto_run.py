"""
`pto-run`: execute a PTO kernel on NumPy arrays with a target's exact semantics.

    pto-run kernel.pto --target cpu|a2a3|a5 [--entry NAME] --out DIR ARG0.npy ARG1.npy ...
    pto-run kernel.pto --targets all [--out DIR] ARG0.npy ...     (every target, compared)

Without --target, the module's pto.target_arch (else a2a3), as in pto-opt.

The i-th .npy binds the i-th argument of the module's public function (or
--entry). With --out, every argument's final contents go to DIR/argI.npy, all
renamed into place only once the run succeeded and all were written; without
it, a short summary per argument is printed. Any bad input or run-time fault is
`FILE:LINE:COL: error: ...` on stderr with exit code 1; Ctrl-C exits with 130
and writes nothing. On a terminal, a run longer than a couple of seconds shows
a progress bar on stderr (not with --quiet).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from pto_dialect.diagnostics import PtoError
import targets

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

example:
  pto-run examples/embedding_lookup.pto --target a5 --out out/ table.npy ids.npy out.npy
"""


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="pto-run",
        description="Run a PTO kernel on NumPy arrays with the exact semantics of a target.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("kernel", help="the .pto file")
    p.add_argument("arrays", nargs="*", help="one .npy file per function argument, in order")
    p.add_argument(
        "-t", "--target", choices=list(targets.SPELLINGS),
        help="hardware target (a2 and a3 mean a2a3; default: the module's pto.target_arch, else a2a3)",
    )
    p.add_argument(
        "--targets", metavar="T1,T2|all",
        help="run on each listed target that accepts the kernel and report where they differ "
        "(outputs in DIR/<target>/argI.npy); exit 1 unless every target ran and all agree",
    )
    p.add_argument("--entry", help="function to run (default: the module's only public function)")
    p.add_argument("--out", help="directory for argI.npy, the final contents of each argument")
    p.add_argument(
        "-q", "--quiet", action="store_true",
        help="no progress bar (shown on a terminal for runs longer than a couple of seconds)",
    )
    args = p.parse_intermixed_args(argv)
    if args.targets is not None and args.target is not None:
        p.error("--target and --targets exclude each other")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    run_main(lambda: _run(args), lambda: args.kernel)


def _run(args: argparse.Namespace) -> None:
    import interpreter
    import pto_dialect

    module = pto_dialect.load(args.kernel)
    arrays = [read_npy(path) for path in args.arrays]
    if args.targets is not None:
        _compare(interpreter, module, arrays, args)
        return
    with ProgressBar.on_terminal(quiet=args.quiet) as progress:
        results = interpreter.run(module, args.target, arrays, args.entry, listeners=progress.listeners)
    if args.out:
        write_outputs(Path(args.out), {Path(f"arg{i}.npy"): array for i, array in enumerate(results)})
    else:
        for i, array in enumerate(results):
            print(f"arg{i}: {array.dtype} {list(array.shape)} {_preview(array)}")


def _compare(interpreter, module, arrays: list[np.ndarray], args: argparse.Namespace) -> None:  # noqa: ANN001
    """`--targets`: print the report, write each target's outputs, exit 1 unless all agree."""
    try:
        report = interpreter.compare(module, args.targets, arrays, args.entry)
    except targets.UnknownTarget as e:
        raise PtoError(f"pto-run: error: {e}") from e
    if args.out:
        write_outputs(
            Path(args.out),
            {Path(t) / f"arg{i}.npy": array for t, results in report.outputs.items() for i, array in enumerate(results)},
        )
    print(report.text(), end="")
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
