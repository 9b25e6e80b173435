"""
`pto-opt`: parse a `.pto` file, verify it, run a pass pipeline, print the result.

Built on xDSL's `xDSLOptMain` (which brings `-p`, `-o`, `--split-input-file`,
`--verify-diagnostics`, ...). What it changes:
- every error is `FILE:LINE:COL: error: MESSAGE` on stderr with exit code 1,
  never a traceback (with `--verify-diagnostics`/`--parsing-diagnostics` the
  diagnostics go to stdout and the exit code is 0, as in xDSL, unless the input
  holds `expected-error` annotations: those are checked as mlir-opt checks them);
- usage errors are one line with exit code 1; `--help` ends with every pass;
  `--version` is pto-frontend's; PTOAS's and mlir-opt's spellings of our flags
  are accepted (`--pto-arch`, `--mlir-print-ir-after-all`, ...);
- `--target cpu|a2a3|a5` (aliases a2, a3) selects the hardware target, which
  otherwise comes from the module's `pto.target_arch`, else a2a3; xDSL's own
  output-format option of that name is not offered;
- `--from=mlir|asm` names the input's syntax (default: `asm` for a `.ptoasm` file,
  else MLIR text); `--to=mlir|asm|cpp` the output's (default: `cpp` when the
  pipeline ends with `pto-emit-cpp`, else MLIR text). An assembly file becomes a
  function named after the file's stem (`main` on stdin).

What only some commands need (the memory planner, the assembly reader, the C++
emitter) is imported where it is used, so that `--help` and a plain parse start
about as fast as `xdsl-opt` (bench/startup.py).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    ParseError,
    PassFailedException,
    VerifyException,
)
from xdsl.utils.target import Target
from xdsl.xdsl_opt_main import xDSLOptMain

from pto_dialect import asm, make_context
from pto_dialect.diagnostics import PtoError
from pto_dialect.parser import parse_module, verify_located
import targets
from backends.cpp.emit_pass import EmitCppPass

from pto_tools.expected_diagnostics import check as check_expected
from pto_tools.expected_diagnostics import expectations, has_annotations
from pto_tools.usage import VersionAction, build_pipeline, one_line_errors, passes_help

DESCRIPTION = """\
Parse, verify, transform and print PTO kernels (.pto, MLIR syntax as PTOAS reads it).

examples:
  pto-opt kernel.pto                       parse + verify + print (compact tile syntax)
  pto-opt kernel.pto --target a5           ... checking against the a5 target
  pto-opt kernel.pto --targets all         which ops each target rejects, side by side
  pto-opt kernel.pto -p PASS1,PASS2 -o out.pto
  pto-opt bad.pto --split-input-file --verify-diagnostics
                                           with `// expected-error @+1 {{...}}` annotations: check
                                           them as mlir-opt does; without: print the diagnostics
  pto-opt kernel.ptoasm                    read the PTO assembly form (also --from=asm)
  pto-opt kernel.pto --to=asm              print SSA instructions in the PTO assembly form
  pto-opt kernel.pto -p pto-emit-cpp       print a DPS kernel as pto-isa C++ (also --to=cpp)
"""


MEMORY_PLAN_HELP = """\
--print-memory-plan: after the module, as `//` comments (the output still parses), one table per
function, then the peak use of each memory against the target's budget; with -o FILE the module
goes to FILE and the plan to standard output. Columns:
  tile     the tile's SSA name (`%t of @f`: a tile of callee @f, held while the call runs)
  space    its memory: vec (UB), mat (L1), left/right (L0A/L0B), acc (L0C), bias, scaling
  bytes    its size: rows x cols x element bytes
  address  its byte offset in that memory; `-`: not placed yet (run -p pto-plan-memory)
  live     the first..last op position (a pre-order walk of the function) where it is live
"""

_UNSUPPORTED_PTOAS_FLAGS = {
    "--pto-level": "pto-opt has no levels: alloc_tile takes addr and tassign is accepted in every kernel, "
    "and -p pto-plan-memory places only the tiles without an address",
    "--enable-insert-sync": "pto-opt inserts no sync into the IR; its C++ (--to=cpp) always places "
    "set_flag/wait_flag between pipes",
}


class _Unsupported(argparse.Action):
    """A PTOAS flag pto-opt does not offer: one line saying why, exit 1."""

    def __init__(self, option_strings: Sequence[str], dest: str, why: str, **kwargs: Any):
        super().__init__(option_strings, dest, **kwargs)
        self.why = why

    def __call__(self, parser: argparse.ArgumentParser, namespace: Any, values: Any, option: str | None = None):
        parser.error(f"{option} is a PTOAS option that pto-opt does not take: {self.why}")


class _HelpWithPasses(argparse.Action):
    """`--help`, ending with every pass, its one-line description and options."""

    def __init__(self, option_strings: Sequence[str], dest: str, available: dict[str, Any], **kwargs: Any):
        super().__init__(option_strings, dest, nargs=0, help="show this help message and exit")
        self.available = available

    def __call__(self, parser: argparse.ArgumentParser, *_: Any):
        parser.epilog = passes_help(self.available) + "\n" + MEMORY_PLAN_HELP
        parser.print_help()
        parser.exit()


@dataclass(frozen=True)
class AsmTarget(Target):
    """`--to=asm`: the PTO assembly form (pto_dialect/asm)."""

    name = "asm"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(asm.print_asm(module))


@dataclass(frozen=True)
class CppTarget(Target):
    """`--to=cpp`: pto-isa C++ (pto_dialect/cpp)."""

    name = "cpp"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        from backends.cpp.emitter import emit_cpp

        output.write(emit_cpp(module))


def _lowering_dialect(name: str):  # noqa: ANN202
    from lowering.ops import LOWERING_DIALECTS

    return next(d for d in LOWERING_DIALECTS if d.name == name)


class PtoOptMain(xDSLOptMain):
    rejected = False
    """`--targets`: some target rejects the input."""

    def __init__(self, args: Sequence[str] | None = None):
        super().__init__(description=DESCRIPTION, args=args)

    # -- registration -----------------------------------------------------------

    def register_all_dialects(self):
        self.ctx = make_context()
        # lowered IR's dialects, each imported when parsed IR first names it
        for name in ("pto_choice", "pto_reg"):
            self.ctx.register_dialect(name, lambda name=name: _lowering_dialect(name))
        for target in targets.REGISTRY:
            self.ctx.register_dialect(target.dialect_name, lambda t=target: t.dialect)

    def register_all_frontends(self):
        super().register_all_frontends()
        self.available_frontends["pto"] = self.available_frontends["mlir"]

    def register_all_targets(self):
        super().register_all_targets()
        self.available_targets[AsmTarget.name] = lambda: AsmTarget
        self.available_targets[CppTarget.name] = lambda: CppTarget

    def register_all_passes(self):
        from backends import get_backend_passes
        from passes import get_all_passes

        for name, factory in (get_all_passes() | get_backend_passes()).items():
            self.register_pass(name, factory)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser):
        super().register_all_arguments(arg_parser)
        arg_parser.prog = "pto-opt"
        arg_parser.formatter_class = argparse.RawDescriptionHelpFormatter
        one_line_errors(arg_parser)
        # xDSL's -t/--target names an output format; ours names the hardware.
        arg_parser._optionals.conflict_handler = "resolve"  # pyright: ignore[reportPrivateUsage]
        arg_parser.add_argument("-h", "--help", action=_HelpWithPasses, available=self.available_passes)
        arg_parser.add_argument("-v", "--version", action=VersionAction)
        arg_parser.add_argument(
            "-t",
            "--target",
            dest="pto_target",
            choices=list(targets.SPELLINGS),
            default=None,
            help="hardware target (a2 and a3 mean a2a3); default: the module's "
            "pto.target_arch attribute, else a2a3",
        )
        arg_parser.set_defaults(target="mlir")
        arg_parser.add_argument(
            "--targets",
            dest="pto_targets",
            metavar="T1,T2|all",
            default=None,
            help="verify on each listed target and print a verdict matrix (one row per rejected "
            "op, one column per target) instead of the IR; exit 1 unless every target accepts",
        )
        arg_parser.add_argument(
            "--from",
            dest="input_format",
            choices=["mlir", "asm"],
            default=None,
            help=f"input syntax: MLIR text or the PTO assembly form; default: asm for a .{asm.ASM_EXTENSION} file",
        )
        arg_parser.add_argument(
            "--to",
            dest="output_format",
            choices=["mlir", "asm", "cpp"],
            default=None,
            help="output: MLIR text, the PTO assembly form or pto-isa C++; default: cpp when the "
            "pipeline ends with pto-emit-cpp, else mlir",
        )
        arg_parser.add_argument(
            "--print-memory-plan",
            action="store_true",
            help="after the passes, print each function's tile addresses, sizes, live ranges and peak use",
        )
        ptoas = arg_parser.add_argument_group("PTOAS and mlir-opt spellings")
        ptoas.add_argument(
            "--pto-arch", dest="pto_target", choices=list(targets.SPELLINGS), help="same as --target (PTOAS)"
        )
        ptoas.add_argument(
            "--mlir-print-ir-before-all", action="store_true", help="print the IR before each pass, on stderr"
        )
        ptoas.add_argument(
            "--mlir-print-ir-after-all", action="store_true", help="print the IR after each pass, on stderr"
        )
        ptoas.add_argument(
            "--mlir-print-debuginfo", dest="print_debuginfo", action="store_true", help="same as --print-debuginfo"
        )
        for flag, why in _UNSUPPORTED_PTOAS_FLAGS.items():
            ptoas.add_argument(flag, nargs="?", action=_Unsupported, why=why, help=argparse.SUPPRESS)

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        # every input is MLIR text whatever its extension (.pto, .mlir, .out, ...)
        stream, extension = super().get_input_stream()
        return stream, extension if extension in self.available_frontends else "mlir"

    def setup_pipeline(self):
        def verify_between(
            previous: ModulePass | None, module: ModuleOp, following: ModulePass | None
        ) -> None:
            if previous is not None and self.args.mlir_print_ir_after_all:
                print(f"// -----// IR Dump After {previous.name} //----- //\n{module}\n", file=sys.stderr)
            if previous is not None and not self.args.disable_verify:
                verify_located(module)
            if previous and following and self.args.print_between_passes:
                print(f"IR after {previous.name}:\n{module}\n\n\n")
            if following is not None and self.args.mlir_print_ir_before_all:
                print(f"// -----// IR Dump Before {following.name} //----- //\n{module}\n", file=sys.stderr)

        self.pipeline = build_pipeline(self.available_passes, self.args.passes, verify_between)
        passes = self.pipeline.passes
        ends_with_cpp = bool(passes) and isinstance(passes[-1], EmitCppPass)
        self.args.target = self.args.output_format or ("cpp" if ends_with_cpp else "mlir")

    # -- running ----------------------------------------------------------------

    def parse_text(self, text: str, offset: int) -> ModuleOp:
        if self.reads_asm():
            function = Path(self.args.input_file).stem if self.args.input_file else "main"
            return asm.read_asm(self.ctx, text, self.get_input_name(), function, offset)
        if _is_blank(text):
            return ModuleOp([])
        return parse_module(self.ctx, text, self.get_input_name(), offset)

    def reads_asm(self) -> bool:
        if self.args.input_format is not None:
            return self.args.input_format == "asm"
        return (self.args.input_file or "").endswith("." + asm.ASM_EXTENSION)

    def process_chunk(self, text: str, offset: int) -> str:
        from passes.memory_plan import check_manual_addresses, memory_plan_report
        from passes.verify_target import verdict_matrix, verify_target

        module = self.parse_text(text, offset)
        if not self.args.disable_verify:
            verify_located(module)
        if self.args.pto_targets is not None:
            matrix, accepted = verdict_matrix(module, targets.parse_list(self.args.pto_targets))
            self.rejected |= not accepted
            return matrix
        self.target = targets.resolve(None, self.args.pto_target, module)
        if not self.args.disable_verify:
            verify_target(module, self.target)
            check_manual_addresses(module, self.target)
        self.apply_passes(module)
        output = self.output_resulting_program(module)
        if self.args.print_memory_plan:
            report = memory_plan_report(module, self.target).splitlines()
            plan = "".join(f"// {line}\n" if line else "\n" for line in report)  # comments: the output still parses
            if self.args.output_file is None:
                output += plan
            else:
                print(plan, end="")
        return output

    def apply_passes(self, prog: ModuleOp) -> None:
        """Passes with a `target` option left unset run for the resolved target."""
        passes = tuple(
            replace(p, target=self.target.name) if getattr(p, "target", "") is None else p
            for p in self.pipeline.passes
        )
        replace(self.pipeline, passes=passes).apply(self.ctx, prog)

    def run(self):
        chunks, _ = self.prepare_input()
        contents = [(chunk.read(), offset) for chunk, offset in chunks]
        self.diagnostics: list[str] | None = None
        if self.args.verify_diagnostics and any(has_annotations(c.decode(errors="replace")) for c, _ in contents):
            self.diagnostics = []
        output: IO[str] | None = None
        failed = False
        try:
            output = self.prepare_output()
            for i, ((content, offset), (chunk, _)) in enumerate(zip(contents, chunks)):
                if i > 0:
                    output.write("// -----\n")
                try:
                    text = content.decode()
                    if self.diagnostics is not None:
                        self.diagnostics.clear()
                        expected = expectations(text, offset + 1)
                    output.write(self.process_chunk(text, offset))
                except UnicodeDecodeError as e:
                    failed |= self.report(_utf8_error(self.get_input_name(), e, offset))
                except ParseError as e:
                    failed |= self.report(str(PtoError.from_parse_error(e)))
                except PtoError as e:
                    failed |= self.report(e.text)
                except (PassFailedException, DiagnosticException, VerifyException) as e:
                    failed |= self.report(f"{self.get_input_name()}: error: {e}")
                finally:
                    chunk.close()
                if self.diagnostics is not None:
                    for problem in check_expected(self.get_input_name(), expected, self.diagnostics):
                        failed |= self.report(problem, checked=True)
                output.flush()
        finally:
            if output is not None and output is not sys.stdout:
                output.close()
        if failed or self.rejected:
            sys.exit(1)

    def report(self, text: str, checked: bool = False) -> bool:
        """Print a diagnostic (or keep it for the input's expected-* annotations); True if it makes the run fail."""
        if self.diagnostics is not None and not checked:
            self.diagnostics.append(text)
            return False
        if (self.args.verify_diagnostics or self.args.parsing_diagnostics) and not checked:
            print(text)
            return False
        print(text, file=sys.stderr)
        return True


def _utf8_error(name: str, e: UnicodeDecodeError, line_offset: int) -> str:
    """`FILE:LINE:COL: error: ...` at the first byte that is not UTF-8 (COL counts characters)."""
    before = e.object[: e.start]
    line_start = before.rfind(b"\n") + 1
    line = before.count(b"\n") + 1 + line_offset
    col = len(before[line_start:].decode()) + 1
    return f"{name}:{line}:{col}: error: input is not valid UTF-8 ({e.reason})"


def _is_blank(text: str) -> bool:
    """Only whitespace and `//` comments (MLIR accepts such input; xDSL does not)."""
    return all(not line.strip() or line.lstrip().startswith("//") for line in text.splitlines())


def main(args: Sequence[str] | None = None) -> None:
    try:
        PtoOptMain(args).run()
    except (FileNotFoundError, IsADirectoryError, PermissionError) as e:
        _fail(f"{e.filename}: error: cannot open: {e.strerror}")
    except (ValueError, ArgSpecParseError) as e:  # bad -p pipeline or pass option, unknown file extension
        _fail(f"error: {e}")
    except PtoError as e:
        _fail(e.text)
    except Exception as e:  # a bug of ours: say so, without a traceback
        _fail(f"error: internal error: {type(e).__name__}: {e}")


def _fail(text: str) -> None:
    print(text, file=sys.stderr)
    sys.exit(1)


if __name__ == "__main__":
    main()
