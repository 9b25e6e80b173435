"""
What the two CLIs share about their usage: the version line, one-line usage errors
(exit 1, like every other error), and the `-p` pipeline: its parsing with messages
in words and the pass list that `pto-opt --help` and docs/reference.md show.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import types
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, NoReturn, Union, get_args, get_origin, get_type_hints

from xdsl.passes import ModulePass, PassPipeline, PassPipelineCallbackType
from xdsl.utils.arg_spec import ArgSpec, parse_pipeline

import targets

if TYPE_CHECKING:
    from _typeshed import SupportsWrite


def version_line(prog: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        own = version("pto-frontend")
    except PackageNotFoundError:  # run from a source tree that was never installed
        own = "unknown"
    return f"{prog} (pto-frontend) {own}, built on xDSL {version('xdsl')}"


class VersionAction(argparse.Action):
    """`--version`: pto-frontend's version (computed only when asked for)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any):
        super().__init__(option_strings, dest, nargs=0, help="print pto-frontend's version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> NoReturn:
        print(version_line(parser.prog))
        parser.exit()


def usage_as_our_commands(parser: argparse.ArgumentParser) -> None:
    """A usage error prints `PROG: error: MESSAGE` (no usage dump) and exits 1; `--help` is
    written as every other output is, so a failed write of it is an error (exit 1), where
    argparse's own printing ignores one."""

    def error(message: str) -> NoReturn:
        print(f"{parser.prog}: error: {message} (see {parser.prog} --help)", file=sys.stderr)
        sys.exit(1)

    def print_help(file: SupportsWrite[str] | None = None) -> None:
        (file or sys.stdout).write(parser.format_help())

    parser.error = error  # argparse reports every usage error through this method
    parser.print_help = print_help  # and prints --help's text through this one


def bare_flag_value(argv: Sequence[str], flag: str, value: str) -> list[str]:
    """`--flag` alone as `--flag=value`: a flag whose value is optional (`--estimate`,
    `--estimate=json`) then never takes the next argument (the kernel, an .npy) for its value."""
    return [f"{flag}={value}" if a == flag else a for a in argv]


# -- the pass pipeline ----------------------------------------------------------------


class PipelineError(ValueError):
    """A `-p` pipeline that names an unknown pass or gives a pass a bad option."""


def build_pipeline(
    available: dict[str, Callable[[], type[ModulePass]]],
    spec: str,
    callback: PassPipelineCallbackType | None = None,
) -> PassPipeline:
    """`PassPipeline.parse_spec`, saying in words what is wrong with a pass name or option."""
    passes: list[ModulePass] = []
    for pass_spec in parse_pipeline(spec):
        if pass_spec.name not in available:
            raise PipelineError(f"unknown pass '{pass_spec.name}'; available: {', '.join(available)}")
        pass_class = available[pass_spec.name]()
        parameters = pass_spec.normalize_parameter_names().parameters
        options = {f.name: f for f in _options(pass_class)}
        for option, value in parameters.items():
            if option not in options:
                raise PipelineError(
                    f"pass '{pass_spec.name}' has no option '{option}'; "
                    + (f"its options: {', '.join(options)}" if options else "it takes none")
                )
            if option == "target":  # the registry words what a target spelling may be
                try:
                    targets.get(",".join(map(str, value)))
                except targets.UnknownTarget as e:
                    raise PipelineError(f"pass '{pass_spec.name}': option 'target': {e}") from None
        try:
            passes.append(pass_class.from_pass_spec(ArgSpec(pass_spec.name, parameters)))
        except ValueError:
            raise PipelineError(_bad_option(pass_spec.name, pass_class, parameters)) from None
    return PassPipeline(tuple(passes), callback)


def _options(pass_class: type[ModulePass]) -> list[dataclasses.Field[Any]]:
    return [f for f in dataclasses.fields(pass_class) if f.init and f.name != "name"]


def _bad_option(pass_name: str, pass_class: type[ModulePass], parameters: dict[str, Any]) -> str:
    hints = get_type_hints(pass_class)
    for field in _options(pass_class):
        if field.name in parameters:
            given = ",".join(str(v).lower() if isinstance(v, bool) else str(v) for v in parameters[field.name])
            return (
                f"pass '{pass_name}': option '{field.name}' expects {option_values(field.name, hints[field.name])}, "
                f"got '{given}'"
            )
    missing = [f.name for f in _options(pass_class) if f.name not in parameters]
    return f"pass '{pass_name}' needs the option(s) {', '.join(missing)}"


def option_values(name: str, hint: Any) -> str:
    """An option type in words: `one of cpu, a2a3, a5 (or a2, a3)`, `an integer`, ..."""
    if name == "target":
        aliases = [a for t in targets.REGISTRY for a in t.aliases]
        return f"one of {', '.join(targets.names())} (or {', '.join(aliases)})"
    if get_origin(hint) in (Union, types.UnionType):
        choices = [a for a in get_args(hint) if a is not type(None)]
        if len(choices) == 1:
            return option_values(name, choices[0])
    if get_origin(hint) is Literal:
        return f"one of {', '.join(str(v) for v in get_args(hint))}"
    if hint is bool:
        return "true or false"
    if hint is int:
        return "an integer"
    if hint is float:
        return "a number"
    if hint is str:
        return "a string"
    return f"a value of type {hint}"


_UNDOCUMENTED_XDSL_PASSES = {
    "dce": "Remove operations whose results are unused and that have no side effects (xDSL).",
    "cse": "Merge operations that compute the same value (xDSL).",
}


def pass_summary(pass_class: type[ModulePass]) -> str:
    """The first line of the pass's docstring."""
    doc = (pass_class.__doc__ or "").strip()
    return doc.splitlines()[0].strip() if doc else _UNDOCUMENTED_XDSL_PASSES[pass_class.name]


def pass_options(pass_class: type[ModulePass]) -> list[str]:
    """`name = VALUES (default: D)` for each option."""
    hints = get_type_hints(pass_class)
    lines = []
    for field in _options(pass_class):
        default = field.default
        if default is None and field.name == "target":
            shown = f"--target, else the module's pto.target_arch, else {targets.DEFAULT.name}"
        elif default is dataclasses.MISSING:
            shown = "none: required"
        else:
            shown = str(default).lower() if isinstance(default, bool) else str(default)
        lines.append(f"{field.name} = {option_values(field.name, hints[field.name])} (default: {shown})")
    return lines


def passes_help(available: dict[str, Callable[[], type[ModulePass]]]) -> str:
    """The `passes:` section of `pto-opt --help`."""
    lines = ["passes (-p 'NAME{option=value},NAME'):"]
    for name, load in available.items():
        pass_class = load()
        lines.append(f"  {name:30} {pass_summary(pass_class)}")
        lines += [f"  {'':30}   {option}" for option in pass_options(pass_class)]
    return "\n".join(lines) + "\n"
