"""
`pto-run`: execute a PTO kernel on NumPy arrays with a target's exact semantics.

    pto-run kernel.pto --target cpu|a2a3|a5 [--entry NAME] --out DIR ARG0.npy ARG1.npy ...
    pto-run kernel.pto --targets all [--out DIR] ARG0.npy ...     (every target, compared)

Without --target, the module's pto.target_arch (else a2a3), as in pto-opt.

The i-th .npy binds the i-th argument of the module's public function (or
--entry). With --out, every argument's final contents go to DIR/argI.npy;
without it, a short summary per argument is printed. Any bad input or
run-time fault is `FILE:LINE:COL: error: ...` on stderr with exit code 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from pto_dialect.diagnostics import PtoError
import targets

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
    args = p.parse_intermixed_args(argv)
    if args.targets is not None and args.target is not None:
        p.error("--target and --targets exclude each other")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    try:
        import interpreter
        import pto_dialect

        module = pto_dialect.load(args.kernel)
        arrays = [_load(path) for path in args.arrays]
        if args.targets is not None:
            _compare(interpreter.compare(module, args.targets, arrays, args.entry), args.out)
            return
        results = interpreter.run(module, args.target, arrays, args.entry)
    except targets.UnknownTarget as e:
        _fail(f"pto-run: error: {e}")
    except PtoError as e:
        _fail(e.text)
    except OSError as e:
        _fail(f"{e.filename or args.kernel}: error: cannot open: {e.strerror}")
    except Exception as e:  # a bug of ours: say so, without a traceback
        _fail(f"{args.kernel}: error: internal error: {type(e).__name__}: {e}")
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        for i, array in enumerate(results):
            np.save(out / f"arg{i}.npy", array)
    else:
        for i, array in enumerate(results):
            print(f"arg{i}: {array.dtype} {list(array.shape)} {_preview(array)}")


def _compare(report, out: str | None) -> None:  # noqa: ANN001
    """`--targets`: print the report, write each target's outputs, exit 1 unless all agree."""
    if out:
        for target, results in report.outputs.items():
            folder = Path(out) / target
            folder.mkdir(parents=True, exist_ok=True)
            for i, array in enumerate(results):
                np.save(folder / f"arg{i}.npy", array)
    print(report.text(), end="")
    if not report.agree:
        sys.exit(1)


def _load(path: str) -> np.ndarray:
    try:
        return np.load(path, allow_pickle=False)
    except (ValueError, EOFError) as e:
        raise PtoError(f"{path}: error: not a .npy array file ({e})") from e


def _preview(array: np.ndarray) -> str:
    flat = array.reshape(-1)
    head = np.array2string(flat[:8], separator=", ")
    return head[:-1] + ", ...]" if flat.size > 8 else head


def _fail(text: str) -> None:
    print(text, file=sys.stderr)
    sys.exit(1)


if __name__ == "__main__":
    main()
