"""
Print docs/verification.md from the rule tables, so the docs cannot drift from
the behaviour: `python -m targets.rules.docs > docs/verification.md`
(tests/test_rules_docs.py checks the file is current).
"""

from __future__ import annotations

import targets
from pto_dialect.instructions import REGISTRY
from targets.rules import aliasing, divergences

HEADER = """\
# Target verification rules

Generated from the rule tables (each instruction's rules in `pto_dialect/instructions/`,
each target's rows in the tables of `targets/rules/`) by `python -m targets.rules.docs`; do not edit.

`pto-opt --target T` (and the pass `pto-verify-target{target=T}`) rejects, at the
op's `FILE:LINE:COL`, what the toolchain and hardware of target T would reject.
Sources, in order of authority: the pto-isa implementations' checks (the
per-target headers under `include/pto/`), the instruction specs (pto-isa's
`docs/isa/`), then PTOAS's verifier. Where PTOAS is looser than the hardware the
hardware rule is applied; where a spec text omits what the hardware accepts, it
is accepted. The "why" row of each table records those decisions.

Rules on dimensions that are dynamic (`?`) are skipped statically and checked
again by the interpreter on the actual valid shapes, through the same functions.
pto-isa's own checks of valid shapes are static_asserts, which a dynamic valid shape
skips; its code then runs on the dst's valid shape whatever the operands' are. An
elem-coalesce MGATHER with a 16x8 index tile of valid shape 16x1 and a 16x32 dst (PTOAS's
`mgather_padded_valid_shape_coalesce_sync`, which PTOAS compiles to `MGATHER<Elem>`) thus
reads index element `r * 8 + c` for each of the 16x32 dst elements (a2a3/MGather.hpp,
MGatherElemImpl): other rows' elements and, from row 13 on, bytes past the index tile.
That is no result anyone asked for, so it is refused by the rule the static shapes meet
(index valid shape = dst valid shape): valid dims set at run time (`pto.alloc_tile
valid_col = %c1`, a constant included) are checked when the kernel runs, with the same
message.

Also applied, on every target: fp8 and hif8 exist only in AI Core builds, so the
cpu target rejects them everywhere; the `tcolargmin`, `tcolargmax`, `trowargmin` and
`trowargmax` tmp is optional (a missing one is added by `pto-materialize-implicit-tmp`);
a DPS mask-form `tgather` or `tscatter` without an axis string means the row axis, as in
pto-isa and the spec's own DPS example (PTOAS requires the string); an `mscatter` without
`coalesce` takes the mode of the target's untemplated C++ call (the simulator: elem; a2a3,
a5: row).

MSCATTER's colliding writes and atomic updates reach the table in each target's serial
order: row-major on the simulator and a2a3 (a2a3's NZ elem path column block by column
block), and on a5 (whose SIMT atomics leave the order open: a choice); a5 with
`scatterConflict = default` has no defined winner, so a run with colliding indices is a
run-time error naming them. Each f16/bf16 atomic add rounds to the element type
(round-to-nearest-even), one write after the other in that order, as the simulator's
`+=`, a2a3's MTE3 atomic unit and scalar read-add-write, and (choice) a5's atomicAdd do.
A NaN sum is the first NaN operand, quieted, the table's before src's (x86's addss, which the
simulator's `+=` runs on; inf + -inf the negative default NaN); the NPUs' NaN bits are not
documented, and the same is taken.

"""


def _tables() -> list[tuple[str, list[tuple[str, dict[str, str]]]]]:
    """(title, rows) per instruction; instructions sharing their rows on every target (tload and
    tstore) share one table."""
    tables: dict[tuple, tuple[list[str], list[tuple[str, dict[str, str]]]]] = {}
    for instruction in REGISTRY:
        rows = {t.name: t.rules[instruction] for t in targets.REGISTRY}
        key = (instruction.describe, *(id(r) for r in rows.values()))
        if key in tables:
            tables[key][0].append(instruction.name)
        else:
            tables[key] = ([instruction.name], instruction.describe(rows))
    return [(" / ".join(names), rows) for names, rows in tables.values()]


def render() -> str:
    out = [HEADER + divergences.describe() + "\n"]
    names = targets.names()
    for title, rows in _tables():
        out.append(f"\n## `{title}`\n")
        out.append("| rule | " + " | ".join(names) + " |")
        out.append("|---|" + "---|" * len(names))
        for rule, per_target in rows:
            cells = [per_target[t].replace("|", "\\|") for t in names]
            out.append(f"| {rule} | " + " | ".join(cells) + " |")
    out.append("\n## In place: an output exactly over an input (same tile, or same address, shape, layout, element size)\n")
    out.append("The same on every target.\n")
    out.append("| instruction form | computed in place |")
    out.append("|---|---|")
    for form, cell in aliasing.describe():
        out.append(f"| {form} | {cell.replace('|', chr(92) + '|')} |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(render(), end="")
