"""
`pto-opt`: parse a `.pto` file, verify it, run a pass pipeline, print the result.

Built on xDSL's `xDSLOptMain`, whose run loop drives it (and brings `-p`, `-o`,
`--split-input-file`, `--verify-diagnostics`, `--time-passes`, ...). What it changes:
- every error is `FILE:LINE:COL: error: MESSAGE` on stderr with exit code 1,
  never a traceback (with `--verify-diagnostics`/`--parsing-diagnostics` the
  diagnostics go to stdout and the exit code is 0, as in xDSL, unless the input
  holds `expected-error` annotations: those are checked as mlir-opt checks them);
  a failing `--split-input-file` chunk does not stop the others, as in mlir-opt;
- the input is read whole before anything is written, and `-o FILE` appears only
  when the whole run succeeded (pto_tools/outputs.py); `-` means standard input
  as the input file and standard output as `-o`;
- usage errors are one line with exit code 1; `--help` ends with every pass;
  `--version` is pto-frontend's; PTOAS's and mlir-opt's spellings of our flags
  are accepted (`--pto-arch`, `--mlir-print-ir-after-all`, ...);
- `--target cpu|a2a3|a5` (aliases a2, a3) selects the hardware target, which
  otherwise comes from a pass option (`-p 'pto-lower{target=a5}'`), else the
  module's `pto.target_arch`, else a2a3; one invocation has one target (two
  different ones are a usage error), and a target it names is written back into
  the printed module's `pto.target_arch`, as PTOAS does; xDSL's own output-format
  option of that name is not offered;
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
import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from io import BytesIO
from pathlib import Path
from typing import IO, Any, ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError, VerifyException
from xdsl.utils.target import Target
from xdsl.xdsl_opt_main import xDSLOptMain

from pto_dialect import asm
from pto_dialect.diagnostics import PtoError
from pto_dialect.files import KERNEL_BYTES, read_kernel, read_stream
from pto_dialect.parser import decode_source, parse_module, split_input, verify_located
import targets
from backends.cpp.emit_pass import EmitCppPass

from pto_tools.context import kernel_context
from pto_tools.exits import run_main
from pto_tools.expected_diagnostics import Expected, has_annotations
from pto_tools.expected_diagnostics import check as check_expected
from pto_tools.expected_diagnostics import expectations
from pto_tools.outputs import StagedOutputs
from pto_tools.usage import VersionAction, bare_flag_value, build_pipeline, usage_as_our_commands, passes_help

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
  pto-opt kernel.pto --target a2a3 --estimate[=json] [--cost-model=calibrated --cores N]
                                           each op's pipe, bytes and cycles, and the kernel's totals
"""


MEMORY_PLAN_HELP = """\
--print-memory-plan: after the module, as `//` comments (the output still parses), one table per
function, then the peak use of each memory against the target's budget; with -o FILE the module
goes to FILE and the plan to standard output. Columns:
  tile     the tile's SSA name (`%t of @f`: a tile of callee @f, held while the call runs)
  space    its memory: vec (UB), mat (L1), left/right (L0A/L0B), acc (L0C), bias, scaling
  bytes    its size: rows x cols x element bytes
  address  its byte offset in that memory; `-`: not placed yet (run -p pto-plan-memory)
  live     the first..last op position (a pre-order walk of the function) where it is live;
           `none`: every use ignores it (a tmp the target's code does not use)
"""

_UNSUPPORTED_PTOAS_FLAGS = {
    "--pto-level": "pto-opt has no levels: alloc_tile takes addr and tassign is accepted in every kernel, "
    "and -p pto-plan-memory places only the tiles without an address",
    "--enable-insert-sync": "pto-opt inserts sync with -p pto-insert-sync (pto-pipeline ends with it), "
    "and its C++ (--to=cpp) has it in every kernel without sync of its own",
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
    """`--to=cpp`: pto-isa C++ (backends/cpp), a kernel without sync of its own synchronised by
    pto-insert-sync for the invocation's target."""

    name = "cpp"

    target: ClassVar[str | None] = None

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        from backends.cpp.emitter import emit_cpp

        output.write(emit_cpp(module, self.target))


class PtoOptMain(xDSLOptMain):
    rejected = False
    """`--targets`: some target rejects the input."""
    verdicts = ""
    """`--targets`: the current chunk's verdict matrix, printed instead of the IR."""
    annotated = False
    """--verify-diagnostics on an input with expected-* annotations: they are checked."""
    expected: list[Expected] | None = None
    """The current chunk's annotations (when checked), and the diagnostics it gave."""

    def __init__(self, args: Sequence[str] | None = None):
        argv = bare_flag_value(sys.argv[1:] if args is None else args, "--estimate", "table")
        super().__init__(description=DESCRIPTION, args=argv)
        if self.args.estimate is None and (self.args.cost_model != "pto-isa" or self.args.cores is not None):
            raise PtoError("error: --cost-model and --cores price --estimate: add --estimate")

    # -- registration -----------------------------------------------------------

    def register_all_dialects(self):
        self.ctx = kernel_context()

    def register_all_targets(self):
        super().register_all_targets()
        self.available_targets[AsmTarget.name] = lambda: AsmTarget
        self.available_targets[CppTarget.name] = lambda: type("CppTarget", (CppTarget,), {"target": self.target.name})

    def register_all_passes(self):
        from backends import get_backend_passes
        from passes import get_all_passes

        for name, factory in (get_all_passes() | get_backend_passes()).items():
            self.register_pass(name, factory)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser):
        super().register_all_arguments(arg_parser)
        arg_parser.prog = "pto-opt"
        arg_parser.formatter_class = argparse.RawDescriptionHelpFormatter
        usage_as_our_commands(arg_parser)
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
            help=f"hardware target, written into the printed module's pto.target_arch ({targets.help_text()}); "
            "a pass option naming a target sets it too",
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
            "--estimate",
            choices=["table", "json"],
            metavar="[=json]",
            default=None,
            help="instead of the IR, each op's cost on the target (pipe, bytes moved, cycles of one "
            "execution, executions through static loop trip counts) and the kernel's totals; "
            "=json: as JSON; with --targets, every accepting target side by side (docs/cost.md)",
        )
        arg_parser.add_argument(
            "--cost-model",
            choices=list(targets.COST_MODELS),
            default="pto-isa",
            help="--estimate's prices: pto-isa's own cost model (default), or the target's model "
            "calibrated on public hardware figures (docs/cost.md)",
        )
        arg_parser.add_argument(
            "--cores",
            type=int,
            metavar="N",
            help="cores transferring at once, for the calibrated model's contention (needs "
            "--cost-model=calibrated; default 1: the kernel's SPMD block count, %%__pypto_spmd_block_num, "
            "is its launch's)",
        )
        arg_parser.add_argument(
            "--verify-sync",
            action="store_true",
            help="check the kernel's pipe synchronization on the lowered kernel (passes/sync_check.py): "
            "a race between pipes on overlapping bytes, a wait_flag no set_flag satisfies on some path "
            "(deadlock) are located errors, a flag left set at the end a warning",
        )
        arg_parser.add_argument(
            "--strict-addresses",
            action="store_true",
            help="also reject a hand-placed tile written over bytes of another tile read later (PTOAS "
            "accepts that: tiles at one address share its bytes, as PyPTO's kernels reuse them; "
            "docs/verification.md)",
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

    # -- input and output ----------------------------------------------------------

    def get_input_name(self) -> str:
        return "<stdin>" if self.reads_stdin() else self.args.input_file

    def reads_stdin(self) -> bool:
        return self.args.input_file in (None, "-")

    def prepare_input(self) -> tuple[list[tuple[IO[bytes], int]], str]:
        """Read the whole input (a file, or standard input for `-`) before anything is written,
        since `-o` may name the input file; --split-input-file splits it as MLIR does. Every
        input is MLIR text (or the assembly form) whatever its extension."""
        if self.reads_stdin():
            data = read_stream(sys.stdin.buffer, "<stdin>", KERNEL_BYTES, "a kernel")
        else:
            data = read_kernel(self.args.input_file)
        self.annotated = self.args.verify_diagnostics and has_annotations(data.decode(errors="replace"))
        pieces = split_input(data) if self.args.split_input_file else [(data, 0)]
        return [(BytesIO(chunk), line_offset) for chunk, line_offset in pieces], "mlir"

    def prepare_output(self) -> IO[str]:
        """Standard output for `-`; else a temporary file that `run` renames into place only
        when every chunk succeeded."""
        if self.args.output_file in (None, "-"):
            return sys.stdout
        return self.staged.open(self.args.output_file)

    # -- running (xDSL's own loop calls these per chunk) ------------------------------

    def setup_pipeline(self):
        build_pipeline(self.available_passes, self.args.passes)  # a bad -p says what is wrong, in words
        super().setup_pipeline()  # --time-passes, --print-between-passes as in xdsl-opt
        xdsl_between = self.pipeline.callback
        assert xdsl_between is not None

        def verify_between(previous: ModulePass | None, module: ModuleOp, following: ModulePass | None) -> None:
            if previous is not None and self.args.mlir_print_ir_after_all:
                print(f"// -----// IR Dump After {previous.name} //----- //\n{module}\n", file=sys.stderr)
            if previous is not None or self.args.time_passes:  # parse_chunk verified the parsed module
                try:
                    xdsl_between(previous, module, following)
                except VerifyException:
                    verify_located(module)  # the same failure, at its op
                    raise
            if following is not None and self.args.mlir_print_ir_before_all:
                print(f"// -----// IR Dump Before {following.name} //----- //\n{module}\n", file=sys.stderr)

        self.pipeline = replace(self.pipeline, callback=verify_between)
        passes = self.pipeline.passes
        flag = self.args.pto_target
        self.named_target = targets.named_target(
            [(flag, f"--target {flag}"), *(_target_named_by(p) for p in passes)]
        )
        ends_with_cpp = bool(passes) and isinstance(passes[-1], EmitCppPass)
        self.args.target = self.args.output_format or ("cpp" if ends_with_cpp else "mlir")

    def run(self):
        self.failed = False
        self.expected, self.diagnostics = None, []
        with StagedOutputs() as self.staged:
            super().run()
            self.check_annotations()
            if self.failed:
                sys.exit(1)
            self.staged.commit()
        if self.rejected:
            sys.exit(1)

    def parse_chunk(self, chunk: IO[bytes], file_extension: str, offset: int = 0) -> ModuleOp | None:
        """Parse and verify one chunk, also for its target; None if it failed (reported)."""
        from passes.memory_plan import check_manual_addresses
        from passes.verify_target import verdict_matrix, verify_target

        self.check_annotations()  # of the chunk before
        self.chunk_failed = False
        data = chunk.read()
        if self.annotated:
            self.expected = expectations(data.decode(errors="replace"), offset + 1)
        with self.diagnosing():
            module = self.parse_text(decode_source(data, self.get_input_name(), offset), offset)
            if not self.args.disable_verify:
                verify_located(module)
            with self.blaming_unverified_input(module):
                if self.args.pto_targets is not None:
                    targets.check_comparable(module)
                    chosen = targets.parse_list(self.args.pto_targets)
                    self.verdicts, accepting = verdict_matrix(module, chosen)
                    self.rejected |= len(accepting) < len(chosen)
                    if self.args.estimate is not None:
                        self.verdicts = self.estimates(module, chosen, accepting)
                    return module
                self.target = targets.resolution(self.named_target, module).target
                if self.named_target is not None:  # as PTOAS does: the output says which target it is for
                    module.attributes["pto.target_arch"] = StringAttr(self.target.name)
                if not self.args.disable_verify:
                    verify_target(module, self.target)
                    check_manual_addresses(module, self.target, strict=self.args.strict_addresses)
                return module
        return None

    def parse_text(self, text: str, offset: int) -> ModuleOp:
        if self.reads_asm():
            function = "main" if self.reads_stdin() else Path(self.args.input_file).stem
            return asm.read_asm(self.ctx, text, self.get_input_name(), function, offset)
        if _is_blank(text):
            return ModuleOp([])
        return parse_module(self.ctx, text, self.get_input_name(), offset)

    def reads_asm(self) -> bool:
        if self.args.input_format is not None:
            return self.args.input_format == "asm"
        return (self.args.input_file or "").endswith("." + asm.ASM_EXTENSION)

    def apply_passes(self, prog: ModuleOp) -> None:
        """Passes with a `target` option left unset run for the resolved target."""
        if self.args.pto_targets is not None:
            return
        passes = tuple(
            replace(p, target=self.target.name) if getattr(p, "target", "") is None else p
            for p in self.pipeline.passes
        )
        from passes.pipeline import PipelinePass

        # a pipeline pass runs as its stages, each seen by --mlir-print-ir-after-all and --time-passes
        passes = tuple(stage for p in passes for stage in (p.stages(prog) if isinstance(p, PipelinePass) else (p,)))
        with self.diagnosing(), self.blaming_unverified_input(prog):
            replace(self.pipeline, passes=passes).apply(self.ctx, prog)

    def output_resulting_program(self, prog: ModuleOp) -> str:
        if self.chunk_failed:
            return ""
        if self.args.pto_targets is not None:
            return self.verdicts
        with self.diagnosing(), self.blaming_unverified_input(prog):
            if self.args.estimate is not None:
                return self.estimates(prog, (self.target,), (self.target,))
            if self.args.verify_sync and not self.verify_sync(prog):
                return ""
            output = super().output_resulting_program(prog)
            if self.args.print_memory_plan:
                from passes.memory_plan import memory_plan_report

                report = memory_plan_report(prog, self.target).splitlines()
                plan = "".join(f"// {line}\n" if line else "\n" for line in report)  # comments: the output still parses
                if self.args.output_file in (None, "-"):
                    output += plan
                else:
                    print(plan, end="")  # never inside -o's file
            return output
        return ""

    def verify_sync(self, module: ModuleOp) -> bool:
        """`--verify-sync`: every error and warning to stderr; False (the run fails) on an error."""
        from passes.pipeline import PipelinePass
        from passes.sync_check import check_sync
        from pto_dialect.walk import clone

        lowered = clone(module)
        PipelinePass(self.target.name).apply(self.ctx, lowered)
        report = check_sync(lowered, self.target)
        for line in [*report.warnings, *(str(e) for e in report.errors)]:
            print(line, file=sys.stderr)
        if report.errors:
            self.chunk_failed = self.failed = True
        return not report.errors

    def estimates(
        self, module: ModuleOp, chosen: Sequence[targets.TargetInfo], accepting: Sequence[targets.TargetInfo]
    ) -> str:
        """`--estimate`: the module's cost on one target, or on each target of `--targets`
        that accepts it (side by side; the verdict matrix goes to stderr)."""
        from passes.estimate import estimate, side_by_side

        if len(chosen) == 1:  # its own errors, located, rather than no report
            accepting = chosen
        if len(chosen) > 1:
            print(self.verdicts, end="", file=sys.stderr)
        reports = [estimate(module, t, self.args.cost_model, self.args.cores) for t in accepting]
        if self.args.estimate == "json":
            found = [r.json() for r in reports]
            return json.dumps(found[0] if len(chosen) == 1 else found, indent=2) + "\n"
        return reports[0].table() if len(chosen) == 1 else side_by_side(reports)

    @contextmanager
    def diagnosing(self) -> Iterator[None]:
        """Report a chunk's failure. With expected-* annotations in the input, keep it for
        them; else under --verify-diagnostics xDSL's loop prints it (stdout) and goes on;
        otherwise it goes to stderr, the run fails, and the other chunks still run, as in
        mlir-opt."""
        try:
            yield
        except (ParseError, DiagnosticException) as e:
            located = _located(e, self.get_input_name())
            self.chunk_failed = True
            if self.expected is not None:
                self.diagnostics.append(located.text)
                return
            if self.args.verify_diagnostics:
                raise located from e
            if self.args.parsing_diagnostics:
                print(located)
            else:
                print(located, file=sys.stderr)
                self.failed = True

    @contextmanager
    def blaming_unverified_input(self, module: ModuleOp) -> Iterator[None]:
        """Under --disable-verify, a pass, the estimate or the printer that fails on a module
        the verifier rejects reports the verifier's located error (the cause) instead of an
        internal error; a module that verifies leaves the failure as it was."""
        try:
            yield
        except (ParseError, DiagnosticException):
            raise
        except Exception:
            if self.args.disable_verify:
                verify_located(module)
            raise

    def check_annotations(self) -> None:
        """The finished chunk's diagnostics against its expected-* annotations."""
        if self.expected is not None:
            for problem in check_expected(self.get_input_name(), self.expected, self.diagnostics):
                print(problem, file=sys.stderr)
                self.failed = True
        self.expected, self.diagnostics = None, []


def _target_named_by(p: ModulePass) -> tuple[str | None, str]:
    """(the target a pass names, how), for `targets.named_target`: its `target` option, or
    the target of a `convert-pto-to-T`."""
    if (option := getattr(p, "target", None)) is not None:
        return option, f"{p.name}{{target={option}}}"
    return getattr(p, "names_target", None), p.name


def _located(e: ParseError | DiagnosticException, name: str) -> PtoError:
    if isinstance(e, PtoError):
        return e
    if isinstance(e, ParseError):
        return PtoError.from_parse_error(e)
    return PtoError(f"{name}: error: {e}")  # unlocated, from one of xDSL's own passes


def _is_blank(text: str) -> bool:
    """Only whitespace and `//` comments (MLIR accepts such input; xDSL does not)."""
    return all(not line.strip() or line.lstrip().startswith("//") for line in text.splitlines())


def main(args: Sequence[str] | None = None) -> None:
    opt: PtoOptMain | None = None

    def run() -> None:
        nonlocal opt
        try:
            opt = PtoOptMain(args)
        except (ValueError, ArgSpecParseError) as e:  # bad -p pipeline or pass option
            raise PtoError(f"error: {e}") from e
        try:
            opt.run()
        except targets.UnknownTarget as e:  # in --targets
            raise PtoError(f"error: {e}") from e

    run_main(run, lambda: opt.get_input_name() if opt else None)


if __name__ == "__main__":
    main()
