"""
`pto-opt --estimate`: what a kernel costs on a target, op by op, before it runs.

The kernel is lowered for the target (on a copy, as pto-run does); each op of an
instruction is priced by its instruction's cost on the target's machine (pto_dialect/cost.py,
targets/<name>/costs.py) from its operands' static shapes, and counted through static
`scf.for` trip counts and calls. The same report serves `pto-run --profile`
(interpreter/profile.py), which counts what really ran.

    report.json()   {"target", "ops": [{"op", "loc", "pipe", "bytes", "cycles", "count", "model"}],
                     "pipes": {PIPE: cycles}, "serial_cycles", "bound_cycles",
                     "cores": {"count", "from"} (the calibrated model's contention) or null}
    report.table()  the same, one op a line, then the totals

`cycles` and `bytes` are one execution's, `count` the executions; null where a shape or a
trip count is not static. `serial_cycles` adds cycles x count over the ops (the pipes one
after the other), `bound_cycles` is the busiest pipe's (the pipes fully overlapped).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from pto_dialect.walk import clone, walk

import targets
from targets.rules import Operands
from pto_dialect.cost import CalibratedMachine, CostFn, Machine, NoCostModel, OpCost, VfMachine
from pto_dialect.diagnostics import PtoError, op_location
from pto_dialect.facts import UNKNOWN, TileFacts, ViewFacts, static_facts
from pto_dialect.instructions import instruction_of
from pto_dialect.lowered import operand_roles
from pto_dialect.instruction import Pipe
from pto_dialect.ops.memory import AllocTileOp, constant_index
from pto_dialect.vpto import VPTO_OPS
from pto_dialect.vpto.config import MTE_UB_UB_BLOCK_BYTES, CopyGmToUbufOp, CopyUbufToGmOp, MteUbUbOp
from pto_dialect.vpto.dma import MteOpBase


@dataclass
class OpRow:
    """One pto op of the source (its lowered ops together): one execution's cost, and how often."""

    op: str
    loc: str | None
    pipe: str
    bytes: int | float | None
    cycles: int | float | None
    count: int | None
    model: str
    counted_total: int | None = None
    """A profile's exact sum of its executions' cycles (its `cycles` is their mean)."""

    @property
    def total(self) -> int | float | None:
        if self.counted_total is not None:
            return self.counted_total
        return None if self.cycles is None or self.count is None else self.cycles * self.count


@dataclass(frozen=True)
class Cores:
    """Cores transferring at once, and what said so (the report's title)."""

    count: int
    said_by: str


@dataclass
class CostReport:
    target: str
    ops: list[OpRow] = field(default_factory=list)
    what: str = "estimate"
    """`estimate` (static) or `profile` (counted while running)."""
    priced_by: str = ""
    """How a non-default `--cost-model` priced it (`calibrated cost model, 48 cores transferring
    at once (--cores)`), for the table's title."""
    cores: Cores | None = None
    """The calibrated model's cores transferring at once (None: a model without contention)."""

    def pipes(self) -> dict[str, int | float | None]:
        totals: dict[str, int | float | None] = {}
        for row in self.ops:
            before = totals.get(row.pipe, 0)
            totals[row.pipe] = None if before is None or row.total is None else before + row.total
        return totals

    @property
    def serial_cycles(self) -> int | float | None:
        return _sum([row.total for row in self.ops])

    @property
    def bound_cycles(self) -> int | float | None:
        pipes = list(self.pipes().values())
        return None if None in pipes else max(pipes, default=0)  # type: ignore[type-var]

    def json(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "ops": [
                {"op": r.op, "loc": r.loc, "pipe": r.pipe, "bytes": r.bytes, "cycles": r.cycles, "count": r.count,
                 "model": r.model}
                for r in self.ops
            ],
            "pipes": self.pipes(),
            "serial_cycles": self.serial_cycles,
            "bound_cycles": self.bound_cycles,
            "cores": None if self.cores is None else {"count": self.cores.count, "from": self.cores.said_by},
        }

    def table(self) -> str:
        """One line per op, then the pipes, the serial and the bound cycles."""
        head = ("loc", "op", "pipe", "bytes", "cycles", "count", "total", "model")
        rows = [tuple(_text(v) for v in (r.loc, r.op, r.pipe, r.bytes, r.cycles, r.count, r.total, r.model)) for r in self.ops]
        by = f"{self.priced_by}; " if self.priced_by else ""
        lines = [f"{self.what} for target {self.target} ({by}cycles and bytes per execution; total = cycles x count)"]
        lines += _aligned([head, *rows], lambda i: i in (3, 4, 5, 6))
        pipes = self.pipes()
        busiest = max((p for p in pipes if pipes[p] is not None), key=lambda p: pipes[p], default=None)  # type: ignore[arg-type, return-value]
        lines.append("pipes: " + (", ".join(f"{p} {_text(c)}" for p, c in pipes.items()) or "-"))
        lines.append(f"serial cycles: {_text(self.serial_cycles)}")
        bound = _text(self.bound_cycles) + (f" ({busiest})" if self.bound_cycles is not None and busiest else "")
        lines.append(f"bound cycles (busiest pipe): {bound}")
        if any(r.total is None for r in self.ops):
            lines.append("?: not static (a dynamic shape, or a loop without a static trip count)")
        return "\n".join(lines) + "\n"


def side_by_side(reports: list[CostReport]) -> str:
    """Several targets' reports as one table: per op, each target's cycles, count and total,
    then each target's serial and bound cycles and the models its numbers come from."""
    if not reports:
        return "no target accepts the kernel\n"
    keys: dict[tuple[str | None, str], None] = {}
    for report in reports:
        keys.update(dict.fromkeys((r.loc, r.op) for r in report.ops))
    by_target = [{(r.loc, r.op): r for r in report.ops} for report in reports]
    head = ["loc", "op"] + [f"{report.target} {what}" for report in reports for what in ("cycles", "count", "total")]
    lines = []
    for loc, op in keys:
        cells = [_text(loc), op]
        for rows in by_target:
            row = rows.get((loc, op))
            cells += ["-", "-", "-"] if row is None else [_text(row.cycles), _text(row.count), _text(row.total)]
        lines.append(cells)
    for name, value in (("serial cycles", lambda r: r.serial_cycles), ("bound cycles", lambda r: r.bound_cycles)):
        lines.append([name, ""] + [c for report in reports for c in ("", "", _text(value(report)))])
    out = [f"{reports[0].what} side by side (cycles per execution; total = cycles x count)"]
    out += _aligned([head, *lines], lambda i: i >= 2)
    for report in reports:
        out.append(f"{report.target}: {', '.join(dict.fromkeys(r.model for r in report.ops)) or '-'}")
    return "\n".join(out) + "\n"


def _aligned(lines: Sequence[Sequence[str]], right: Callable[[int], bool]) -> list[str]:
    """Text columns two spaces apart, padded to their widest cell; column i flush right where
    right(i)."""
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    return [
        "  ".join(c.rjust(w) if right(i) else c.ljust(w) for i, (c, w) in enumerate(zip(line, widths))).rstrip()
        for line in lines
    ]


def _sum(values: list[int | float | None]) -> int | float | None:
    return None if None in values else sum(values)  # type: ignore[arg-type]


def _text(value: object) -> str:
    if value is None:
        return "?"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def cost_machine(
    target: str | targets.TargetInfo, cost_model: str = "pto-isa", cores: int | None = None, at: Operation | None = None
) -> Machine:
    """The machine pricing ops for `--cost-model` on `target`, with `cores` cores transferring
    at once (the calibrated model's contention; pto-isa's model has none, and takes only 1; None:
    not given, 1 until `kernel_cores` says otherwise); a located error (at `at`) where the target
    has no such model."""
    info = targets.get(target)
    if cost_model not in targets.COST_MODELS:
        raise PtoError.at_op(at, f"unknown cost model '{cost_model}' (expected one of {', '.join(targets.COST_MODELS)})")
    if cores is not None and cores < 1:
        raise PtoError.at_op(at, f"--cores expects at least 1 core transferring at once, got {cores}")
    if cost_model == "pto-isa":
        if cores not in (None, 1):
            raise PtoError.at_op(at, "pto-isa's cost model has no contention between cores: --cores needs --cost-model=calibrated")
        return info.costs
    calibrated = info.calibrated
    if isinstance(calibrated, str):
        raise PtoError.at_op(at, f"target {info} has no calibrated cost model: {calibrated}")
    return calibrated.with_cores(cores or 1)


SPMD_BLOCK_COUNT = "__pypto_spmd_block_num"
"""The argument by which a PyPTO SPMD kernel receives its block count (PTOAS test/samples kernels:
`%__pypto_spmd_block_idx: i32, %__pypto_spmd_block_num: i32`): its launch's, so a run's value."""


def kernel_cores(
    kernel: ModuleOp | func.FuncOp | None, given: int | None, arguments: Sequence[object] | None = None
) -> Cores:
    """The cores a kernel's transfers contend with: `--cores` when given, else its SPMD block
    count (the `SPMD_BLOCK_COUNT` argument: `arguments`' value in a run; unknown before one, so
    1), else 1. `kernel`: the function run, a module (its kernels: the functions no call names), or
    None (none seen yet)."""
    if given is not None:
        return Cores(given, "--cores")
    functions = [kernel] if isinstance(kernel, func.FuncOp) else [] if kernel is None else _kernels(kernel)
    for function in functions:
        names = [arg.name_hint for arg in function.args]
        if SPMD_BLOCK_COUNT not in names:
            continue
        if arguments is None:
            return Cores(1, f"default: the kernel's SPMD block count %{SPMD_BLOCK_COUNT} is its launch's; --cores N sets it")
        count = int(arguments[names.index(SPMD_BLOCK_COUNT)])  # pyright: ignore[reportArgumentType]
        if count < 1:
            raise PtoError.at_op(function, f"%{SPMD_BLOCK_COUNT} is {count}: a launch has at least 1 block")
        return Cores(count, f"the kernel's SPMD block count, %{SPMD_BLOCK_COUNT}")
    return Cores(1, "default")


def with_cores(machine: Machine, cores: Cores) -> Machine:
    """`machine` with `cores` transferring at once (only the calibrated model has contention)."""
    return machine.with_cores(cores.count) if isinstance(machine, CalibratedMachine) else machine


def priced_by(machine: Machine, cores: Cores) -> dict[str, Any]:
    """A report's `priced_by` and `cores` for `machine` (nothing of pto-isa's model): the
    calibrated model's cores, and what said how many."""
    if not isinstance(machine, CalibratedMachine):
        return {}
    count = machine.cores
    title = f"calibrated cost model, {count} core{'s' if count > 1 else ''} transferring at once ({cores.said_by})"
    return {"priced_by": title, "cores": Cores(count, cores.said_by)}


def estimate(
    module: ModuleOp, target: str | targets.TargetInfo, cost_model: str = "pto-isa", cores: int | None = None,
    machine: Machine | None = None,
) -> CostReport:
    """The cost report of `module` on `target`: lowered on a copy, priced statically by the
    `cost_model` machine (`cost_machine`; its cores as `kernel_cores` says), or by `machine`
    when given."""
    from passes.pipeline import PipelinePass

    info = targets.get(target)
    counted = kernel_cores(module, cores)
    if machine is None:
        machine = with_cores(cost_machine(info, cost_model, cores, at=module), counted)
    lowered = clone(module)
    if not _lowered_for(lowered, info):
        PipelinePass(info.name).apply(Context(), lowered)
    report = CostReport(info.name, **priced_by(machine, counted))
    for op, count in counted_ops(lowered):
        if not isinstance(op, REGISTER_OPS):
            _add(report, op, static_cost(op, info, machine), count, machine.model)
            continue
        cost = register_op_cost(op, info, machine, constant_index)
        if cost is not None:  # a copy of counts not constant: not static
            static = register_copy_bytes(op, constant_index) is not None
            _add(report, op, cost if static else None, count, cost.model, cost.pipe)
    return report


def _lowered_for(module: ModuleOp, target: targets.TargetInfo) -> bool:
    """Whether the module was lowered already (an op of a target dialect): for `target`, or
    a located error."""
    found = targets.lowered_for(module)
    if found is None:
        return False
    lowered_target, op = found
    if lowered_target is not target:
        raise PtoError.at_op(op, f"is lowered for {lowered_target}; estimate it for {lowered_target}, or before pto-lower")
    return True


def _add(
    report: CostReport, op: Operation, cost: OpCost | None, count: int | None, model: str, pipe: Pipe | None = None
) -> None:
    """One lowered op's row (`pipe`: a register-level op's, where its cost is not static); the lowered
    ops of one source op (same place, same instruction, one after the other) share it."""
    instruction = instruction_of(op)
    name, pipe = (instruction.name, instruction.pipe) if instruction is not None else (op.name, pipe or Pipe.VECTOR)
    loc = op_location(op)
    last = report.ops[-1] if report.ops else None
    if last is not None and loc is not None and (last.loc, last.op, last.count) == (loc, name, count):
        last.cycles = None if last.cycles is None or cost is None else last.cycles + cost.cycles
        last.bytes = None if last.bytes is None or cost is None else last.bytes + cost.bytes
        return
    if cost is None:  # a dynamic shape: the pipe the instruction issues on, the machine's model
        row = OpRow(name, loc, pipe.short, None, None, count, model)
    else:
        row = OpRow(name, loc, cost.pipe.short, cost.bytes, cost.cycles, count, cost.model)
    report.ops.append(row)


def cost_function(op: Operation, target: targets.TargetInfo, machine: Machine | None = None) -> CostFn:
    """The function pricing `op` on `machine` (default: `target`'s pto-isa one); a located
    error where there is none."""
    instruction = instruction_of(op)
    assert instruction is not None
    machine = machine if machine is not None else target.costs
    try:
        if instruction.cost is None:
            raise NoCostModel("its instruction declares no cost")
        return instruction.cost.of(machine)
    except NoCostModel as e:
        raise PtoError.at_op(op, f"has no cost model on target {target}: {e}") from e


def price(
    op: Operation, target: targets.TargetInfo, facts: Operands, work: dict[str, int],
    machine: Machine | None = None,
) -> OpCost:
    """One execution of `op` with these operand facts and data-dependent counts, on
    `machine` (default: `target`'s pto-isa one)."""
    machine = machine if machine is not None else target.costs
    try:
        return cost_function(op, target, machine)(op, facts, machine, work)
    except NoCostModel as e:
        raise PtoError.at_op(op, f"has no cost model on target {target}: {e}") from e


def static_cost(op: Operation, target: targets.TargetInfo, machine: Machine | None = None) -> OpCost | None:
    """One execution of `op` from its operands' types (a tile's dynamic valid dims from the
    constants its alloc_tile names); None when a shape is dynamic."""
    facts = {role: _static_facts(role, value) for role, value in zip(operand_roles(op), op.operands)}
    cost_function(op, target, machine)  # an op without a cost model fails even when its shapes are dynamic
    if any(_dynamic(f) for f in facts.values()):
        return None
    return price(op, target, facts, {}, machine)


def register_op_cost(
    op: Operation, target: targets.TargetInfo, machine: Machine, value_of: Callable[[SSAValue], object]
) -> OpCost | None:
    """One execution of a register-level op (pto_dialect/vpto/) as `machine`'s `register_level` table
    prices it, a copy's bytes from `value_of` its count operands (a constant's value before a run, the
    run's in one; a count not known counts 0: see `register_copy_bytes`); None for a `free` op (no
    report row). A located error for an op without a row, or on a machine without the table."""
    pricing = machine.base if isinstance(machine, CalibratedMachine) else machine
    try:
        if not isinstance(pricing, VfMachine):
            raise NoCostModel("the register level is priced by a vector-function model")
        nbytes = register_copy_bytes(op, value_of)
        cost = pricing.register_op(op.name, nbytes or 0)
    except NoCostModel as e:
        raise PtoError.at_op(op, f"has no cost model on target {target}: {e}") from e
    return cost


def register_copy_bytes(op: Operation, value_of: Callable[[SSAValue], object]) -> int | None:
    """The bytes a register-level copy moves: its burst length times its burst and loop counts (a register-
    configured copy's loop registers are not counted: one pass of its bursts); 0 for any other op."""
    if not isinstance(op, COPY_OPS):
        return 0
    unit = MTE_UB_UB_BLOCK_BYTES if isinstance(op, MteUbUbOp) else 1
    counts = [value_of(v) for v in (op.len_burst, op.n_burst, *getattr(op, "loop_counts", ()))]
    if any(c is None for c in counts):
        return None
    return math.prod(int(c) for c in counts) * unit  # pyright: ignore[reportArgumentType]


REGISTER_OPS = tuple(VPTO_OPS)
COPY_OPS = (MteOpBase, CopyGmToUbufOp, CopyUbufToGmOp, MteUbUbOp)
"""The register-level copies (their bytes: `register_copy_bytes`)."""


def _static_facts(role: str, value: SSAValue) -> TileFacts | ViewFacts | str:
    facts = static_facts(role, value)
    owner = value.owner
    if isinstance(facts, TileFacts) and UNKNOWN in facts.valid_shape and isinstance(owner, AllocTileOp):
        row, col = (
            static if static != UNKNOWN else _constant_or_unknown(operand)
            for static, operand in ((facts.valid_row, owner.valid_row), (facts.valid_col, owner.valid_col))
        )
        facts = facts.with_valid(row, col)
    return facts


def _constant_or_unknown(value: SSAValue | None) -> int:
    found = None if value is None else constant_index(value)
    return UNKNOWN if found is None else found


def _dynamic(facts: object) -> bool:
    if isinstance(facts, TileFacts):
        return UNKNOWN in facts.valid_shape
    if isinstance(facts, ViewFacts):
        return UNKNOWN in facts.shape
    return False


# ---------------------------------------------------------------------------
# How often each op runs


def counted_ops(module: ModuleOp) -> Iterator[tuple[Operation, int | None]]:
    """Each op of an instruction in program order, with how often it runs: the product of
    its enclosing loops' static trip counts, summed over the calls of its function (None
    where a count is not static). Functions no call names are the kernels, run once each."""
    functions = {f.sym_name.data: f for f in walk(module) if isinstance(f, func.FuncOp) and f.body.blocks}
    calls = _function_counts(functions, [f.sym_name.data for f in _kernels(module)])
    for name, function in functions.items():
        for op, count in _ops_in(function.body.blocks[0], 1):
            yield op, _times(calls.get(name, 0), count)


def _kernels(module: ModuleOp) -> list[func.FuncOp]:
    """The functions with a body that no call names."""
    called = {c.callee.root_reference.data for c in walk(module) if isinstance(c, func.CallOp)}
    return [
        f for f in walk(module)
        if isinstance(f, func.FuncOp) and f.body.blocks and f.sym_name.data not in called
    ]


def _function_counts(functions: dict[str, func.FuncOp], roots: list[str]) -> dict[str, int | None]:
    """How often each function runs when each root runs once (None: not static, or recursive)."""
    counts: dict[str, int | None] = dict.fromkeys(roots, 1)

    def visit(name: str, times: int | None, path: tuple[str, ...]) -> None:
        for call, count in _calls_in(functions[name].body.blocks[0], 1):
            callee = call.callee.root_reference.data
            if callee not in functions:
                continue
            runs = None if callee in path else _times(times, count)
            before = counts.get(callee, 0)
            counts[callee] = None if before is None or runs is None else before + runs
            if callee not in path:
                visit(callee, runs, (*path, callee))

    for root in roots:
        visit(root, 1, (root,))
    return counts


def _times(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a * b


def _walk(block: Block, count: int | None) -> Iterator[tuple[Operation, int | None]]:
    """Every op in `block` and the blocks nested in it, with its count relative to the block."""
    for op in block.ops:
        yield op, count
        inner = count
        if isinstance(op, scf.ForOp):
            inner = _times(count, trip_count(op))
        elif isinstance(op, scf.IfOp | scf.WhileOp):
            inner = None
        for region in op.regions:
            for nested in region.blocks:
                yield from _walk(nested, inner)


def _ops_in(block: Block, count: int | None) -> Iterator[tuple[Operation, int | None]]:
    """The priced ops: an instruction's, and the register level's."""
    return ((op, c) for op, c in _walk(block, count) if instruction_of(op) is not None or isinstance(op, REGISTER_OPS))


def _calls_in(block: Block, count: int | None) -> Iterator[tuple[func.CallOp, int | None]]:
    return ((op, c) for op, c in _walk(block, count) if isinstance(op, func.CallOp))


def trip_count(loop: scf.ForOp) -> int | None:
    """The loop's trip count when its bounds and step are constants."""
    lower, upper, step = (constant_index(v) for v in (loop.lb, loop.ub, loop.step))
    if lower is None or upper is None or step is None or step <= 0:
        return None
    return max(0, -(-(upper - lower) // step))
