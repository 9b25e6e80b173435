"""
Print docs/cost.md from the cost tables, so the docs cannot drift from the estimator:
`python -m targets.cost_docs > docs/cost.md` (tests/passes/test_estimate.py checks it is current).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator, Mapping
from dataclasses import fields, is_dataclass
from pathlib import Path

import targets
from pto_dialect.cost import CalibratedMachine, DmaPath, IdleFallback, Linear, Param, VfMachine
from pto_dialect.instructions import REGISTRY

ROOT = Path(__file__).resolve().parent.parent

HEADER = """\
# Cost estimates

Generated from the cost tables (each instruction's `cost` in `pto_dialect/instructions/`, each
target's machine in `targets/<name>/costs.py`) by `python -m targets.cost_docs`; do not edit.

    pto-opt K.pto --target T --estimate[=json]     before running: static shapes and trip counts
    pto-run K.pto ARGS... --target T --profile[=json]  what really ran (--targets all: side by side)
    pto-run K.pto ARGS... --target T --profile=trace   a per-pipe timeline (Chrome trace JSON)
        --cost-model=pto-isa|calibrated  pto-isa's own model (the default), or the target's model
                                         fitted to public hardware figures (below)
        --cores N                        cores transferring at once (calibrated: contention); default:
                                         a run's SPMD block count (the kernel's
                                         %__pypto_spmd_block_num argument, as PyPTO's kernels
                                         take their launch's), else 1; the title says which

Each source op gets one row (the lowered ops it became count together): its pipe, the bytes its
transfers move (GM <-> UB/L1 and UB <-> UB; 0 for vector work), the cycles of one execution, and
its executions (`count`: static `scf.for` trip counts times the calls of its function; `null` where
not static). `--estimate=json` prints exactly

    {"target": T, "ops": [{"op": "pto.mgather", "loc": "FILE:LINE:COL", "pipe": "MTE2", "bytes": B,
      "cycles": C, "count": N, "model": "..."}], "pipes": {PIPE: cycles}, "serial_cycles": S,
      "bound_cycles": M, "cores": {"count": N, "from": "--cores"}}

(`cores`: the calibrated model's cores transferring at once and what said so; null for a model
without contention).

`pipes` adds cycles x count per pipe, `serial_cycles` over every op (the pipes one after the
other), `bound_cycles` is the busiest pipe's (the pipes fully overlapped): the kernel takes between
the two. A value that depends on something not static is `null` (`?` in the table), and so is a
total it enters. `--profile` has the same schema; its `count` is the executions that ran, its
`cycles` and `bytes` the mean per execution (an integer when all cost the same), and its totals
the exact sums; it lists the ops that ran, in the order they first ran. A kernel that does not verify, or an op without a cost model on the target, is a
located error (exit 1), never a 0.

`model` says where the numbers come from:
- `pto-isa-costmodel`: equal to pto-isa's own cost model (`include/pto/costmodel/`, built with
  `-D__COSTMODEL -D__NPU_ARCH__=2201`) for every shape and type it builds: a2a3 TLOAD and TSTORE
  (vec ND/DN/NZ, mat NZ), index-form TGATHER, row-mode MGATHER without an out-of-range mode,
  row-mode MSCATTER without an atomic op or out-of-range mode (ND and NZ tables), index-only
  TROWARGMIN / TROWARGMAX of at most one repeat per row. When its mocks charge an instruction
  nothing (a transfer under one cycle), the cost model reports its lightweight fallback
  instead, and so does the estimate.
- `a2a3-header-sequence`: the a2a3 header's intrinsic sequence priced with the same mocks, for
  the forms the cost model cannot build as PTOAS writes them: it has no TCOLARGMIN / TCOLARGMAX
  wrapper nor a mock for `vcmp_le` / `vcmp_ge` (priced as its `vcmpv_le` / `vcmpv_ge`), no
  value+index TROWARGMIN / TROWARGMAX nor mask-form TSCATTER wrapper, its MGATHER and MSCATTER
  wrappers take no coalesce, atomic or out-of-range mode, its mask-form TGATHER no axis, its
  compare-form TGATHER has pto-isa's older signature and, built anyway, writes through a null
  pointer (its `get_imm` stub returns 0). Run through the same `*_IMPL` code (a wrapper per
  missing one in `bench/costmodel_shims.hpp`; `bench/costmodel_diff.py`'s forms `tgather_mask`,
  `tgather_compare`, `tcolarg`, `mgather_modes`, `mscatter_row`, `tscatter_index`, `tscatter_mask`
  and `trowarg`), the cost model gives these numbers for mask and compare TGATHER, TCOLARGMIN /
  TCOLARGMAX, row MGATHER and MSCATTER in every mode, mask-form TSCATTER on the col axis and
  P1111, and the other TSCATTER forms and TROWARGMIN / TROWARGMAX up to their scalar loops, which
  that script adds to the cost model's cycles as charged here. A scalar loop the mocks charge
  nothing (elem-mode MGATHER and MSCATTER, TSCATTER's index and row-axis mask forms, the loops
  writing TROWARGMIN / TROWARGMAX's results from tmp) costs here one scalar cycle per element it
  handles, a lower bound; the cost model charges it nothing (and reports its fallback, 2 +
  elements / 32, blind to the data, when nothing else is charged). An elem-mode MGATHER (MSCATTER)
  also costs each GM line its loop moves to: one line transfer GM->UB (a store's UB->GM, an atomic
  add's both).
- `a5-vf-model`: for the thirteen tile ops pto-isa's a5 cost model builds (TADD TSUB TMUL TDIV
  TMAX TMIN TAND TADDS TSUBS TMULS TMINS TSHLS TSHRS: the headers its a5_vf_stub.hpp includes),
  equal to it: VfSim's pipeline on the op's loop where VfSim has a row for its intrinsic and
  element type (f32, f16; bf16 as f16), else its per-instruction VecCycle table (`vfsim` below;
  `bench/vfsim_diff.py` builds that cost model with clang, its LLVM loop pass and VfSim, and
  compares). Every other a5 instruction: a documented model of the a5 code, below; pto-isa's
  cost model builds none of them, has no a5 DMA mock and no VfSim row for the gathers, squeezes
  and unaligned stores they issue.
- `cpu-simulator-steps (not a hardware estimate)`: the steps of the CPU simulator's loops.
- `a2a3-calibrated` (`--cost-model=calibrated`): a2a3's TLOAD and TSTORE priced by parameters
  fitted to public hardware figures (below, "a2a3 `--cost-model=calibrated`"); the other rows of
  that report keep the model that prices them.

What depends on the data is counted by `--profile` and assumed by `--estimate`: the rows a
zero (skip) out-of-range mode leaves out of a gather (scatter) (estimate: none), the GM lines an
a2a3 elem gather (scatter) reads (writes) (estimate: one per element), the 128-byte bursts an a5
SIMT gather's (scatter's) warps issue (estimate: one per element; row mode: aligned rows; a
scatter with scatterConflict = last, whose lanes own table rows: one per element).
"""


def _paragraph(doc: str | None) -> str:
    return " ".join(inspect.cleandoc(doc or "").split())


def parameters(value: object, name: str = "") -> Iterator[tuple[str, str, str]]:
    """(name, value, source) of every number of a machine."""
    match value:
        case Param(value=v, source=source):
            yield name, _number(v), source
        case Linear(head=head, slope=slope, tail=tail, source=source):
            yield name, f"head {head}, slope {slope} per repeat, tail {tail}", source
        case IdleFallback(base=base, per=per, every=every, source=source):
            yield name, f"{base} + elements x {per} / {every}", source
        case Mapping():
            for key, item in value.items():
                yield from parameters(item, f"{name}.{key}")
        case CalibratedMachine():  # its own numbers: its base machine has its own table
            for f in fields(value):
                if f.name not in ("base", "cores"):
                    yield from parameters(getattr(value, f.name), f"{name}.{f.name}".lstrip("."))
        case _ if is_dataclass(value):
            for f in fields(value):
                yield from parameters(getattr(value, f.name), f"{name}.{f.name}".lstrip("."))


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)


def render() -> str:
    out = [HEADER]
    for target in targets.REGISTRY:
        machine = target.costs
        out.append(f"\n## {target.name}: `{machine.model}` ({type(machine).__name__})\n")
        out.append(_paragraph(type(machine).__doc__) + "\n")
        rows = list(parameters(machine))
        if rows:
            out.append("| parameter | value | source |")
            out.append("|---|---|---|")
            out += [f"| {n} | {v} | {s} |" for n, v, s in rows]
        out.append("")
        for instruction in REGISTRY:
            assert instruction.cost is not None
            charge = instruction.cost.on.get(type(machine))
            out.append(f"- `{instruction.name}`: " + (_paragraph(charge.__doc__) if charge else "no cost model"))
        out += _register_level(machine)
        out += _calibrated(target)
    return "\n".join(out) + "\n"


def _register_level(machine: object) -> list[str]:
    """How the machine prices each register-level op (VfMachine.register_op): `--estimate` and
    `--profile` alike, one row per op; ops absent here (pointers, scalars) cost nothing."""
    table = getattr(machine, "register_level", None)
    if not table:
        return []
    assert isinstance(machine, VfMachine)
    by_kind: dict[str, list[str]] = {}
    for name, kind in table.items():
        by_kind.setdefault(kind, []).append(f"`{name}`")
    out = [
        "\nThe register level (pto_dialect/vpto/), one row per op in `--estimate` and `--profile` alike "
        "(an op not listed has no cost model: a located error):\n"
    ]
    for kind, names in by_kind.items():
        if isinstance(kind, DmaPath):
            what = f"a copy on {kind}: len_burst x n_burst x loop counts bytes at that path's bandwidth"
        elif kind == "config":
            what = f"a configuration call, {_number(machine.config_call.value)} cycle(s)"
        elif kind == "free":
            what = "no cost and no row (scalar-unit bookkeeping)"
        elif kind == "scope":
            what = "a vector function's startup and drain, " + _number(machine.vf_startup.value + machine.vf_drain.value) + " cycles"
        else:
            what = f"as `{kind}`, {_number(machine.vf_ops[kind].value)} cycle(s) each execution"
        out.append(f"- {', '.join(names)}: {what}.")
    return out


def _calibrated(target: targets.TargetInfo) -> list[str]:
    """The target's `--cost-model=calibrated` section: its parameters, the instructions it
    prices itself, and the fit's table (targets/<name>/calibration.md, bench/cost_calibration.py)."""
    machine = target.calibrated
    out = [f"\n### {target.name} `--cost-model=calibrated`\n"]
    if isinstance(machine, str):
        return [*out, f"None: {machine}."]
    out += [f"`{machine.model}` ({type(machine).__name__}): " + _paragraph(type(machine).__doc__) + "\n"]
    out += ["| parameter | value | source |", "|---|---|---|"]
    out += [f"| {n} | {v} | {s} |" for n, v, s in parameters(machine)]
    out.append("")
    hz = machine.base.dma.frequency_hz.value
    for path, timing in machine.paths.items():
        rates = [(timing.per_block, "")] if timing.per_long_block is None else [
            (timing.per_block, f" for bursts up to {_number(machine.line_bytes.value)} B"),
            (timing.per_long_block, " for longer ones"),
        ]
        speeds = ", ".join(
            f"{machine.block_bytes.value / rate.value * hz / (1 << 30):.1f} GiB/s{label}" for rate, label in rates
        )
        out.append(f"- {path}: {_number(timing.latency.value)} cycles a call, then {speeds} (at {hz / 1e9:g} GHz).")
    out.append("")
    for instruction in REGISTRY:
        assert instruction.cost is not None
        charge = instruction.cost.on.get(type(machine))
        if charge is not None:
            out.append(f"- `{instruction.name}`: " + _paragraph(charge.__doc__))
    out.append(f"- every other instruction: as `{machine.base.model}` above.")
    table = ROOT.joinpath(*target.package.split("."), "calibration.md")
    if table.exists():
        out += [
            f"\n#### Calibration (`bench/cost_calibration.py`, {table.relative_to(ROOT)})\n",
            "Each public figure's kernel rebuilt as .pto and estimated; `left out`: predicted by the "
            "parameters fitted without that figure.\n",
            table.read_text().rstrip("\n"),
        ]
    return out


if __name__ == "__main__":
    print(render(), end="")
