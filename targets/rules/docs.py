"""
Print docs/verification.md from the rule tables, so the docs cannot drift from
the behaviour: `python -m targets.rules.docs > docs/verification.md`
(tests/test_rules_docs.py checks the file is current).
"""

from __future__ import annotations

import targets
from pto_dialect.instructions import REGISTRY
from targets.rules import aliasing

HEADER = """\
# Target verification rules

Generated from the rule tables (each instruction's rules in `pto_dialect/instructions/`,
each target's rows in `targets/<name>/rules.py`) by `python -m targets.rules.docs`; do not edit.

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

Hand-placed tiles (`pto.alloc_tile addr = ...`, `pto.tassign`) may share bytes, as PTOAS
takes them (its only check of explicit addresses is of the operands one op needs apart: TMOV's
fp form and TQUANT's outputs, which are not implemented here) and as PyPTO's kernels place them:
a tile reusing the bytes of a dead one, an accumulator carried from one tile to the next at one
address. A tile reads what was last written to its bytes, and so does the interpreter; races
between pipes on shared bytes are pto-insert-sync's to order and `pto-run --check-sync`'s (or
`pto-opt --verify-sync`'s) to report. `pto-opt --strict-addresses` also rejects a tile written
over the bytes of another that is read later (what pto-plan-memory guarantees of the tiles it
places). Always checked: each tile inside its memory, and one instruction reading a tile and
writing another over its bytes, which must be an alias that instruction computes in place
(the last table).

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

Deliberate divergences from PTOAS's verdict on its own lit inputs (`test/lit/pto/`
and `test/lit/vpto/` kernels that use only the ops implemented here), where the
hardware code is stricter than PTOAS's verifier:
- a2a3 compare-form `tgather` with a 32-byte tmp: the a2a3 code keeps the compare
  bitmap, an index table and the converted thresholds in tmp, so a smaller tmp is
  rejected (the spec's minimum is not enough);
- a5 index-form `tgather` of 1-byte data with 32-bit indices: the a5 register gather
  reads the indices of b8 data as 16-bit lanes, so 32-bit indices are rejected;
- `mscatter` without `coalesce` on a2a3 (an [R, 1] row-major index) and a5 (an index
  shaped like src): PTOAS accepts either shape, but the untemplated MSCATTER of the NPU
  builds is row mode, whose static_assert asks for a [1, R] (a5 also [R, 1]) index, and
  which reads the index tile's storage elements 0..R-1: both are rejected;
- an instruction writing its output over an input's bytes other than as the in-place table
  allows (a widening `tcvt` at its source's address, an output shifted against its input):
  PTOAS accepts it, but the targets' code would overwrite input elements before reading them,
  so it is rejected;
- a5 `trowargmin`/`trowargmax` with a tmp as large as src (PTOAS issue 558): verification
  accepts it, but the memory planner places the tmp a5's code does not use, so a kernel
  whose src and tmp together overflow UB fails at planning.
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
    out = [HEADER]
    names = targets.names()
    for title, rows in _tables():
        out.append(f"\n## `{title}`\n")
        out.append("| rule | " + " | ".join(names) + " |")
        out.append("|---|" + "---|" * len(names))
        for rule, per_target in rows:
            cells = [per_target[t].replace("|", "\\|") for t in names]
            out.append(f"| {rule} | " + " | ".join(cells) + " |")
    out.append("\n## In place: an output over an input (exactly: same tile, or same address, shape, layout, element size; forward: narrower elements at the same address, where said)\n")
    out.append("The same on every target.\n")
    out.append("| instruction form | computed in place |")
    out.append("|---|---|")
    for form, cell in aliasing.describe():
        out.append(f"| {form} | {cell.replace('|', chr(92) + '|')} |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(render(), end="")
