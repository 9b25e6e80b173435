"""
docs/register-level.md, generated from the register-level ops (pto_dialect/vpto/), their token tables
and the targets' `register_level`:

    python -m targets.register_level_doc > docs/register-level.md
"""

from __future__ import annotations

import inspect

from pto_dialect.vpto import VPTO_OPS, load_store, predicates, scope, vector
from pto_dialect.vpto.types import GRANULARITY_BYTES, VECTOR_BYTES
from targets import REGISTRY
from targets.info import MEMORY_NAMES


def _summary(op: type) -> str:
    doc = inspect.getdoc(op) or ""
    return " ".join(doc.split("\n\n")[0].split())


def render() -> str:
    owners = [t for t in REGISTRY if t.register_level is not None]
    lines = [
        "# The register level (PTOAS's vpto ops)",
        "",
        "<!-- generated: python -m targets.register_level_doc > docs/register-level.md -->",
        "",
        f"Targets with a register level: {', '.join(f'{t.name} ({t.register_level.source})' for t in owners if t.register_level)}; "
        "every other target refuses these ops with a located error.",
        "",
        f"- `!pto.vreg<NxT>`: N lanes of T, N * sizeof(T) = {VECTOR_BYTES} bytes.",
        f"- `!pto.mask<G>`: the {VECTOR_BYTES}-bit predicate register, one bit per register byte; lane i of "
        + ", ".join(f"`{g}` is bit {b}i" for g, b in GRANULARITY_BYTES.items()) + ".",
        "- `!pto.ptr<T, ub|gm>`: a byte address. `ub`: into "
        + ", ".join(f"{MEMORY_NAMES[t.register_level.ub_loc]} ({t.on_chip_bytes[t.register_level.ub_loc]} bytes on {t.name})"
                    for t in owners if t.register_level)
        + "; `gm`: into a kernel argument's array (pto-run: the .npy given for it, flat). Offsets count the pointer's "
        "elements unless the op says bytes; in a post-update form the access is at the base and the result is the "
        "base advanced. An access outside its memory is a run-time error naming the bytes.",
        "- `!pto.align`: an unaligned stream's state (its waiting tail).",
        "",
        "## Ops",
        "",
        "| op | what it does |",
        "|---|---|",
        *(f"| `{op.name}` | {_summary(op)} |" for op in sorted(VPTO_OPS, key=lambda o: o.name)),
        "",
        "## Tokens",
        "",
        "| op | token | lane widths | what it does |",
        "|---|---|---|---|",
        *(f"| vlds | `{k}` | {_widths(d.widths)} | {d.summary} |" for k, d in load_store.VLDS_DISTS.items()),
        *(f"| vsts | `{k}` | {_widths(d.widths)} | {d.summary}{f' (mask read as {d.mask})' if d.mask else ''} |"
          for k, d in load_store.VSTS_DISTS.items()),
        *(f"| vldsx2 | `{k}` | | |" for k in load_store.VLDSX2_DISTS),
        *(f"| vstsx2 | `{k}` | | |" for k in load_store.VSTSX2_DISTS),
        *(f"| pldi / psti | `{k}` | | one immediate offset = {b} bytes |" for k, b in predicates.ALIGNMENT_UNIT_BYTES.items()),
        f"| plds / pldi | {', '.join(f'`{k}`' for k in predicates.PLDS_DISTS)} | | |",
        f"| psts / psti | {', '.join(f'`{k}`' for k in predicates.PSTS_DISTS)} | | |",
        f"| pset / pge | {', '.join(f'`{k}`' for k in predicates.PATTERNS)} | | |",
        f"| vcmps | {', '.join(f'`{k}`' for k in vector.COMPARISONS)} | | |",
        f"| vcvt rnd | {', '.join(f'`{k}`' for k in vector.ROUNDINGS)} | | to an integer R, A, F, C, Z (TCVT's a5 model: NaN to 0; without `sat`, a lane out of range is a run-time error); to a float pto-run runs `R` (and exact widenings) |",
        f"| vcvt part | {', '.join(f'`{k}`' for k in vector.PARTS)} | | |",
        f"| mem_bar | {', '.join(f'`{k}`' for k in scope.MEM_BAR_KINDS)} | | |",
        "",
        "pto-run does not run yet: the vlds distributions SPLT*CHN and the vsts distributions MRG*CHN (PTOAS's docs "
        "describe them as channel splits and merges within each 32-byte block, pto-isa's vlds.md as every 4th or 2nd "
        "element, and PTOAS notes a5 hardware reports MRG*CHN unsupported), vcvt to a float with roundings other than "
        "R, mte_gm_ub pad counts and copy_gm_to_ubuf padding (each a located run-time error).",
        "",
    ]
    return "\n".join(lines)


def _widths(widths: frozenset[int] | None) -> str:
    return "any" if widths is None else "/".join(f"b{8 * w}" for w in sorted(widths))


if __name__ == "__main__":
    print(render(), end="")
