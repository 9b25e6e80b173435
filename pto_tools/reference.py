"""
Print docs/reference.md, the user reference, from the code it describes (tile type
parameters, attributes, passes, both CLIs' options), so it cannot drift:
`python -m pto_tools.reference > docs/reference.md` (tests/pto_tools/test_reference_docs.py checks it).
"""

from __future__ import annotations

import argparse
import dataclasses

from pto_dialect.attributes import ATTRIBUTES, MaskPattern
from pto_dialect.dtypes import element_type_names
from pto_dialect.types import BLAYOUTS, COMPACTS, FRACTALS, PADS, SLAYOUTS, TILE_LOCS, TileParams
from pto_tools.usage import pass_options, pass_summary

HEADER = """\
# pto-frontend user reference

Generated from the code by `python -m pto_tools.reference`; do not edit. The target rules
each op is checked against are in `verification.md`; how to run things is in the README and
`usage.md`.
"""

# (parameter, legacy key, compact spelling, values)
_TILE_PARAMETERS = [
    ("loc", "loc=L", "first: `L`", " ".join(TILE_LOCS)),
    ("element_type", "dtype=T", "`RxCxT`", "see below"),
    ("rows", "rows=R", "`RxCxT`", "integer > 0"),
    ("cols", "cols=C", "`RxCxT`", "integer > 0"),
    ("valid_row", "v_row=V", "`valid=VxV`", "integer >= 0, or `?` (legacy also -1): dynamic"),
    ("valid_col", "v_col=V", "`valid=VxV`", "integer >= 0, or `?` (legacy also -1): dynamic"),
    ("blayout", "blayout=B", "`blayout=B`", " ".join(BLAYOUTS)),
    ("slayout", "slayout=S", "`slayout=S`", " ".join(SLAYOUTS)),
    ("fractal", "fractal=F", "`fractal=F`", " ".join(map(str, FRACTALS))),
    ("pad", "pad=P", "`pad=P`", ", ".join(f"{k} {v}" for k, v in PADS.items())),
    ("compact", "compact=K", "`compact=K`", ", ".join(f"{k} {v}" for k, v in COMPACTS.items())),
]


def _tile_section() -> list[str]:
    defaults = {f.name: f.default for f in dataclasses.fields(TileParams)}
    lines = [
        "## Tile types: `!pto.tile_buf` and `!pto.tile`",
        "",
        "Two spellings of the same parameters. **Legacy** (PTOAS's printer): every key, in this",
        "order, only `compact` may be left out. **Compact** (ours prints it): `<L, RxCxT, KEY=VALUE...>`,",
        "keys in any order, each at most once, a key left out takes its default.",
        "",
        "    !pto.tile_buf<loc=vec, dtype=f16, rows=8, cols=64, v_row=8, v_col=50, blayout=row_major, slayout=none_box, fractal=512, pad=1>",
        "    !pto.tile_buf<vec, 8x64xf16, valid=8x50, pad=1>",
        "",
        "| parameter | legacy | compact | values | compact default |",
        "|---|---|---|---|---|",
    ]
    for name, legacy, compact, values in _TILE_PARAMETERS:
        default = defaults[name]
        if default is dataclasses.MISSING:
            shown = "rows / cols" if name.startswith("valid") else "required"
        else:
            shown = str(default)
        lines.append(f"| {name} | `{legacy}` | {compact} | {values} | {shown} |")
    lines += ["", f"Element types: {element_type_names()}.", ""]
    return lines


def _attribute_section() -> list[str]:
    lines = ["## Attributes", "", "| attribute | values | meaning |", "|---|---|---|"]
    for attr in ATTRIBUTES:
        doc = (attr.__doc__ or "").strip().splitlines()[0]
        spelling, _, meaning = doc.partition(":")
        values = " ".join(f"`{v.value}`" for v in attr.enum_type)
        escaped = spelling.strip().replace("|", "\\|")  # a `|` in a code span still ends the cell
        lines.append(f"| {escaped} | {values} | {meaning.strip()} |")
    lines += [
        "",
        "### Mask patterns (`tgather` mask form)",
        "",
        "Which source columns a pattern keeps (`#`) out of the first 8; the kept ones, in order,",
        "fill the destination's columns. The rightmost character of the name is column 0.",
        "",
        "| pattern | columns 0..7 | keeps |",
        "|---|---|---|",
    ]
    for p in MaskPattern:
        picture = " ".join("#" if i % p.period == p.offset else "." for i in range(8))
        keeps = "every column" if p.period == 1 else f"column c with c mod {p.period} = {p.offset}"
        lines.append(f"| `{p.value}` | `{picture}` | {keeps} |")
    return [*lines, ""]


def _pass_section() -> list[str]:
    from pto_tools.pto_opt import PtoOptMain

    lines = [
        "## Passes",
        "",
        "`pto-opt -p 'NAME{option=value},NAME'`. A `target` option takes every spelling `--target` takes.",
        "",
        "| pass | what it does | options |",
        "|---|---|---|",
    ]
    for name, load in PtoOptMain(args=[]).available_passes.items():
        pass_class = load()
        options = "<br>".join(f"`{o}`" for o in pass_options(pass_class)) or "-"
        lines.append(f"| `{name}` | {pass_summary(pass_class)} | {options} |")
    return [*lines, ""]


def _options_table(parser: argparse.ArgumentParser) -> list[str]:
    lines = ["| option | meaning |", "|---|---|"]
    for action in parser._actions:  # pyright: ignore[reportPrivateUsage]
        if action.help == argparse.SUPPRESS:
            continue
        if action.option_strings:
            value = ""
            if isinstance(action.metavar, str) and action.metavar.startswith("[="):  # an optional `=value` only
                value = action.metavar
            elif action.nargs != 0:
                value = " {" + ",".join(map(str, action.choices)) + "}" if action.choices else f" {action.dest.upper()}"
            spelled = ", ".join(action.option_strings) + value
        else:
            spelled = {"?": "[{}]", "*": "[{}...]"}.get(str(action.nargs), "{}").format(action.dest.upper())
        meaning = (action.help or "").replace("|", "\\|").replace("%%", "%")
        cell = spelled.replace("|", "\\|")  # a table cell: `|` would end it
        lines.append(f"| `{cell}` | {meaning} |")
    return lines


def _cli_section() -> list[str]:
    from pto_tools import pto_run
    from pto_tools.pto_opt import MEMORY_PLAN_HELP, PtoOptMain

    opt_parser = argparse.ArgumentParser(prog="pto-opt")
    PtoOptMain(args=[]).register_all_arguments(opt_parser)
    run_parser = pto_run.make_parser()
    return [
        "## `pto-opt`",
        "",
        "    pto-opt [FILE] [options]",
        "",
        *_options_table(opt_parser),
        "",
        "```",
        MEMORY_PLAN_HELP.rstrip(),
        "```",
        "",
        "## `pto-run`",
        "",
        f"    {run_parser.format_usage().removeprefix('usage: ').strip()}",
        "",
        *_options_table(run_parser),
        "",
        "```",
        pto_run.EPILOG.rstrip(),
        "```",
        "",
    ]


def render() -> str:
    return "\n".join([HEADER, *_tile_section(), *_attribute_section(), *_pass_section(), *_cli_section()])


if __name__ == "__main__":
    print(render(), end="")
