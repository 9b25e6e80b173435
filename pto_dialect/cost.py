"""
What an op costs on a target (`pto-opt --estimate`, `pto-run --profile`): the vocabulary.

Each instruction declares its cost (`Instruction.cost`): per machine model, the sequence
its target's code issues for a lowered op (or a pto op that stays, tload/tstore), priced
with that machine's parameters. Each target's folder holds one machine
(`targets/<name>/costs.py`): every number, with its source. Three machine models:

    CceMachine        pto-isa's own cost model (include/pto/costmodel/, a2a3): every CCE
                      intrinsic a mock that charges cycles to a pipe (CceTrace replays them)
    VfMachine         the a5 code: the tile ops pto-isa's a5 cost model builds as its VfSim
                      prices them; else a documented model: DMA by bandwidth, vector
                      functions by the VfSim parameters, SIMT gathers by 128-byte bursts
    SimulatorMachine  the CPU simulator: the steps of its loops, not a hardware estimate
    CalibratedMachine a machine's transfers priced by parameters fitted to public hardware
                      figures (`--cost-model=calibrated`); everything else by the machine
                      it is based on

A cost is for one execution of the op. What depends on the data (rows an out-of-range
mode skips, the bursts an element gather needs) is a `Work` count: the estimate assumes
the case the comment of each count names, `pto-run --profile` measures it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from xdsl.utils.str_enum import StrEnum

from pto_dialect.instruction import Pipe


class DmaPath(StrEnum):
    """A transfer's path (pto-isa's cost model PipeKey names)."""

    GM_TO_UB = "GM_TO_UB"
    GM_TO_L1 = "GM_TO_L1"
    UB_TO_GM = "UB_TO_GM"
    L1_TO_GM = "L1_TO_GM"
    UB_TO_UB = "UB_TO_UB"
    L1_TO_L0A = "L1_TO_L0A"
    L1_TO_L0B = "L1_TO_L0B"
    L1_FILL = "L1_FILL"
    """create_cbuf_matrix: L1 written with an immediate."""


@dataclass(frozen=True)
class Param:
    """A number of a machine model and where it comes from."""

    value: float
    source: str


@dataclass(frozen=True)
class Linear:
    """A vector intrinsic's mock cost: `slope * repeat`, plus `head` when its pipe's queue
    is empty, and `tail` charged by the next barrier on that pipe."""

    head: int
    slope: int
    tail: int
    source: str


@dataclass(frozen=True)
class OpCost:
    """One execution of an op: the unit it keeps busy, the bytes its transfers move (GM <->
    UB/L1 and UB <-> UB; 0 for vector work), and its cycles."""

    pipe: Pipe
    bytes: int
    cycles: int
    model: str
    """Where the numbers come from (the machine's model name)."""


class NoCostModel(Exception):
    """An instruction (or one of its forms) has no cost model on a target's machine."""


Work = Mapping[str, int]
"""Data-dependent counts of one execution (e.g. `rows_read`), by name."""


@dataclass(frozen=True)
class DmaTable:
    """Transfers priced by bandwidth: `floor(bytes / 2^30 / GiB_per_s * frequency)` cycles
    per transfer call (pto-isa's EstimateBandwidthCycles)."""

    frequency_hz: Param
    bandwidth_gib_s: Mapping[DmaPath, Param]

    def cycles(self, path: DmaPath, nbytes: int) -> int:
        # exact rational arithmetic: the C++ computes in long double, whose rounding cannot
        # move a quotient across an integer for these magnitudes
        rate = Fraction(self.bandwidth_gib_s[path].value) * (1 << 30)
        return int(Fraction(nbytes) * Fraction(self.frequency_hz.value) / rate)


@dataclass(frozen=True)
class IdleFallback:
    """What the cost model reports for an instruction its mocks charge nothing (a transfer
    too small for one cycle): its lightweight fallback `base + elements * per // every`,
    `elements` the first tile argument's valid ones (perf_sim FallbackCycles)."""

    base: int
    per: int
    every: int
    source: str

    def cycles(self, elements: int) -> int:
        return self.base + elements * self.per // self.every


@dataclass(frozen=True)
class CceMachine:
    """pto-isa's a2a3 cost model: the a2a3 headers run with every CCE intrinsic replaced by a
    mock that charges cycles (include/pto/costmodel/a2a3/cce_costmodel/)."""

    model: str
    """The cost model's name, for the forms it builds and this reproduces exactly."""
    derived_model: str
    """For the forms it cannot build: the a2a3 header's sequence with the same mock costs."""
    dma: DmaTable
    scalar_call: Param
    """A configuration or scalar intrinsic (set_vector_mask, pipe_barrier, ...)."""
    vector: Mapping[str, Linear]
    """Each vector intrinsic a sequence issues."""
    scalar_line_bytes: Param
    """The GM line a scalar read fills (elem-mode gathers)."""
    idle_transfer: IdleFallback
    """TLOAD / TSTORE (a GM-access pipe stage)."""
    idle_vector: IdleFallback
    """Any other instruction (the vector stage)."""

    def trace(self) -> CceTrace:
        return CceTrace(self)


class CceTrace:
    """One instruction under the cost model's mocks (trace.hpp, cce_costmodel_core.hpp): a
    vector intrinsic pays its head only on an empty vector queue and leaves its tail pending;
    `pipe_barrier(PIPE_V)` charges the pending tail, empties the queue and costs one call;
    a transfer costs its bytes at its path's bandwidth. Each instruction starts with empty
    queues, and the vector tail pending at its end is not charged (EndPtoInstr)."""

    def __init__(self, machine: CceMachine):
        self.machine = machine
        self.cycles = 0
        self.bytes = 0
        self._vector_busy = False
        self._tail = 0

    def call(self, times: int = 1) -> None:
        """Configuration or scalar intrinsics (set_mask_count, set_vector_mask, ...)."""
        self.cycles += int(self.machine.scalar_call.value) * times

    def vector(self, name: str, repeat: int = 1) -> None:
        """One call of a vector intrinsic of `repeat` repeats."""
        cost = self.machine.vector[name]
        self.cycles += cost.slope * repeat + (0 if self._vector_busy else cost.head)
        self._vector_busy, self._tail = True, cost.tail

    def barrier(self) -> None:
        """`pipe_barrier(PIPE_V)`."""
        self.cycles += self._tail + int(self.machine.scalar_call.value)
        self._vector_busy, self._tail = False, 0

    def dma(self, path: DmaPath, nbytes: int, times: int = 1, bursts: int = 1) -> None:
        """`times` transfer calls of `nbytes` each, in `bursts` equal bursts (a transfer leaves
        no tail; the cost model prices bytes, blind to the bursts)."""
        self.cycles += self.machine.dma.cycles(path, nbytes) * times
        self.bytes += nbytes * times

    def loop(self, trips: int, body: Callable[[], None]) -> None:
        """`for (i = 0; i < trips; i++) body();`: the first trip from the current queues, the
        second from the state the first leaves, every later one as the second (the state a
        trip leaves is then the one it started from)."""
        if trips <= 0:
            return
        body()
        if trips == 1:
            return
        start = (self.cycles, self.bytes, self._vector_busy, self._tail)
        body()
        assert (self._vector_busy, self._tail) == start[2:], "a loop body must leave the queues as it found them"
        self.cycles += (self.cycles - start[0]) * (trips - 2)
        self.bytes += (self.bytes - start[1]) * (trips - 2)

    def cost(self, pipe: Pipe, exact: bool, idle: IdleFallback | None = None, elements: int = 0) -> OpCost:
        """The instruction's cost; `idle` says what the cost model reports when the mocks
        charged nothing (`elements`: its first tile's valid elements)."""
        model = self.machine.model if exact else self.machine.derived_model
        cycles = idle.cycles(elements) if self.cycles == 0 and idle is not None else self.cycles
        return OpCost(pipe, self.bytes, cycles, model)


@dataclass(frozen=True)
class VfSimRow:
    """One intrinsic in one element type as pto-isa's a5 VfSim prices it
    (a5/VfSim/params/): the cycles from its loads to it, from it to the store, between two of
    it on one issue port, and its store's cost."""

    load_forward: Param
    store_forward: Param
    initiation_interval: Param
    store_cost: Param


@dataclass(frozen=True)
class VfSimLoop:
    """pto-isa's a5 cost model on a vector function that is one loop (a tile op's registers;
    rows x registers of a row where its rows are not contiguous) of the same body: loads, one
    intrinsic, a store. Iteration k is ready at R(k): the k-th cycle of a flat loop; in a nested
    loop of M rows of N > 1 registers, row o's register i at `nested_start + o * max(row_gap,
    N + nested_start) + i` (an inner loop of one iteration is straight code: a flat loop of M).
    Its intrinsic issues at t(k) = max(R(k), t(k - ports) + initiation_interval) (`ports` issue
    ports, each taking the next intrinsic when free). The function takes `startup +
    load_forward + store_forward + store_cost + drain + t(last)`. A body whose intrinsic has no
    row in its element type VfSim does not simulate: the cost model then charges each executed
    intrinsic its `fallback` cycles, no startup nor drain (VfSimCostModel.cpp FallbackNodes)."""

    tile_ops: frozenset[str]
    """The tile ops pto-isa's a5 cost model builds (those a5_vf_stub.hpp includes the header of)."""
    startup: Param
    drain: Param
    ports: Param
    row_gap: Param
    nested_start: Param
    rows: Mapping[str, Mapping[str, VfSimRow]]
    """Intrinsic -> element type -> its row."""
    fallback: Mapping[str, Param]
    """Intrinsic -> cycles per execution where VfSim is not run."""

    def cycles(self, intrinsic: str, elem: str, loads: int, rows: int, per_row: int, nested: bool) -> int:
        """One vector function: `rows` x `per_row` iterations (`nested`: a loop over rows of a
        loop over a row's registers; else one loop of rows x per_row) of `loads` loads, the
        intrinsic and a store."""
        row = self.rows.get(intrinsic, {}).get(elem)
        if row is None:
            per_iteration = loads * self.fallback["vlds"].value + self.fallback[intrinsic].value + self.fallback["vsts"].value
            return int(per_iteration) * rows * per_row
        if nested and per_row > 1:
            start, gap = int(self.nested_start.value), max(int(self.row_gap.value), per_row + int(self.nested_start.value))
            ready = [start + o * gap + i for o in range(rows) for i in range(per_row)]
        else:
            ready = list(range(rows * per_row))
        ports, interval = int(self.ports.value), int(row.initiation_interval.value)
        last = len(ready) - 1
        # t(last) unrolled: the ready time of each iteration on the same port, plus its intervals
        issue = max(ready[last - j * ports] + j * interval for j in range(last // ports + 1))
        fixed = self.startup.value + row.load_forward.value + row.store_forward.value + row.store_cost.value + self.drain.value
        return int(fixed) + issue


@dataclass(frozen=True)
class VfMachine:
    """A model of the a5 code: the tile ops pto-isa's a5 cost model builds as it prices them
    (`vfsim`); otherwise transfers by bandwidth, a vector function (one `__VEC_SCOPE__`) its
    startup, each executed instruction's issue cycles, and its drain, a SIMT gather the 128-byte
    GM bursts its warps issue, at the GM read bandwidth."""

    model: str
    dma: DmaTable
    config_call: Param
    """A configuration intrinsic (set_loop_size_outtoub, set_mov_pad_val, ...)."""
    vf_startup: Param
    vf_drain: Param
    vf_ops: Mapping[str, Param]
    """Each vector-function instruction's cycles per execution."""
    warp_lanes: Param
    burst_bytes: Param
    vfsim: VfSimLoop
    """The tile ops pto-isa's a5 cost model prices with VfSim: priced as it does."""
    register_level: Mapping[str, str | DmaPath] = field(default_factory=dict)
    """Each register-level op (pto_dialect/vpto/) by name: the `vf_ops` instruction it is priced as, a
    `DmaPath` (its bytes at that path's bandwidth), `config` (`config_call`), `scope` (startup and drain),
    `free` (no cost, no report row). An op absent here has no cost model."""

    def issue(self, body: Mapping[str, int]) -> int:
        """Executing each instruction of `body` that many times."""
        return sum(int(self.vf_ops[name].value) * count for name, count in body.items())

    def vector_function(self, body: Mapping[str, int]) -> int:
        """One vector function: startup, `body`, drain."""
        return int(self.vf_startup.value) + self.issue(body) + int(self.vf_drain.value)

    def cost(self, pipe: Pipe, nbytes: int, cycles: int) -> OpCost:
        return OpCost(pipe, nbytes, cycles, self.model)

    def register_op(self, name: str, nbytes: int) -> OpCost | None:
        """One execution of the register-level op `name` as `register_level` prices it (`nbytes`: a
        DMA's bytes); None for a `free` one."""
        kind = self.register_level.get(name)
        if kind is None:
            raise NoCostModel(f"{name} has no row in the {self.model} machine's register-level table")
        if kind == "free":
            return None
        if isinstance(kind, DmaPath):
            return self.cost(REGISTER_DMA_PIPES[kind], nbytes, self.dma.cycles(kind, nbytes))
        if kind == "config":
            return self.cost(Pipe.SCALAR, 0, int(self.config_call.value))
        if kind == "scope":
            return self.cost(Pipe.VECTOR, 0, int(self.vf_startup.value) + int(self.vf_drain.value))
        return self.cost(Pipe.VECTOR, 0, int(self.vf_ops[kind].value))


REGISTER_DMA_PIPES = {DmaPath.GM_TO_UB: Pipe.MTE2, DmaPath.UB_TO_GM: Pipe.MTE3, DmaPath.UB_TO_UB: Pipe.VECTOR}
"""The pipe a register-level copy on each path keeps busy (UB -> UB as the tile-level TMOV's)."""


@dataclass(frozen=True)
class SimulatorMachine:
    """The CPU simulator (pto-isa's cpu/ headers): an op costs the steps of its C++ loops,
    one per element visited. Not a hardware estimate: the count says how much work the
    simulator does, for comparing kernels, nothing about an NPU."""

    model: str

    def cost(self, pipe: Pipe, nbytes: int, steps: int) -> OpCost:
        return OpCost(pipe, nbytes, steps, self.model)


@dataclass(frozen=True)
class PathTiming:
    """A transfer path as the hardware figures show it: each transfer call (one DMA
    instruction) costs `latency`, and each 32-byte block its bursts move `per_block` (a
    burst of at most a GM line) or `per_long_block` (a longer one)."""

    latency: Param
    per_block: Param
    per_long_block: Param | None = None
    """None: no figure of the path has bursts longer than a line; they cost `per_block`."""


@dataclass(frozen=True)
class CalibratedMachine:
    """A cost model fitted to public hardware measurements (`--cost-model=calibrated`):
    a transfer call costs its path's latency, its 32-byte blocks at the path's rate for its
    burst length, and `contention` for each other core transferring at the same time
    (`cores`, `--cores N`). An instruction without a calibrated price, or a transfer on a
    path no figure measures, costs what the machine it is based on (`base`) says."""

    model: str
    base: CceMachine | VfMachine
    paths: Mapping[DmaPath, PathTiming]
    contention: Param
    """Cycles a GM transfer call waits per other core transferring at once."""
    block_bytes: Param
    line_bytes: Param
    """The longest burst priced at a path's `per_block`."""
    scalar_call: Param
    """A configuration call a transfer issues (set_mov_pad_val)."""
    cores: int = 1
    """Cores transferring at once."""

    def with_cores(self, cores: int) -> CalibratedMachine:
        return replace(self, cores=cores)

    def trace(self) -> CalibratedTrace:
        return CalibratedTrace(self)


class CalibratedTrace:
    """One instruction's transfer calls priced by a CalibratedMachine (the interface of
    CceTrace's calls and transfers, so one description of an instruction's calls serves
    both); cycles are summed exactly and rounded once."""

    def __init__(self, machine: CalibratedMachine):
        self.machine = machine
        self.cycles = Fraction(0)
        self.bytes = 0

    def call(self, times: int = 1) -> None:
        self.cycles += Fraction(self.machine.scalar_call.value) * times

    def dma(self, path: DmaPath, nbytes: int, times: int = 1, bursts: int = 1) -> None:
        """`times` transfer calls of `nbytes` each, in `bursts` equal bursts."""
        m = self.machine
        timing = m.paths[path]
        burst = -(-nbytes // bursts)
        blocks = -(-burst // int(m.block_bytes.value)) * bursts
        rate = timing.per_block if burst <= m.line_bytes.value or timing.per_long_block is None else timing.per_long_block
        per_call = (
            Fraction(timing.latency.value)
            + Fraction(m.contention.value) * (m.cores - 1)
            + Fraction(rate.value) * blocks
        )
        self.cycles += per_call * times
        self.bytes += nbytes * times

    def cost(self, pipe: Pipe) -> OpCost:
        return OpCost(pipe, self.bytes, round(self.cycles), self.machine.model)


Machine = CceMachine | VfMachine | SimulatorMachine | CalibratedMachine

CostFn = Callable[[Any, dict[str, Any], Any, Work], OpCost]
"""(the op, its operands' facts by role, the target's machine, the data-dependent counts)
-> one execution's cost. Counts absent from `work` take their static assumption."""

MeasureFn = Callable[[Any, dict[str, Any], Any], dict[str, Any]]
"""(the op, its run-time operands by role, the machine) -> each data-dependent count, an int
or (in a batched loop) one int per iteration; called before the op runs."""


def by_op(*cases: tuple[type, CostFn]) -> CostFn:
    """A cost function choosing by the op's class (the first case it is an instance of),
    documented by its cases' docstrings."""

    def cost(op: Any, o: dict[str, Any], machine: Any, work: Work) -> OpCost:
        for kind, price in cases:
            if isinstance(op, kind):
                return price(op, o, machine, work)
        raise NoCostModel(f"{op.name} on the {machine.model} machine")

    cost.__doc__ = "\n".join(price.__doc__ or "" for _, price in cases)
    return cost


def simulator_loop(role: str, doc: str, pipe: Pipe = Pipe.VECTOR) -> CostFn:
    """The simulator's cost of a C++ loop over the valid elements of the `role` tile, one step
    each; `doc` cites the loop."""

    def cost(op: Any, o: dict[str, Any], machine: SimulatorMachine, work: Work) -> OpCost:
        tile = o[role]
        return machine.cost(pipe, 0, tile.valid_row * tile.valid_col)

    cost.__doc__ = doc
    return cost


@dataclass(frozen=True)
class InstructionCost:
    """An instruction's cost: per machine model, the function pricing its ops."""

    on: Mapping[type, CostFn]
    """Machine class -> cost function; a machine absent here has no model for it."""
    measure: Mapping[type, MeasureFn] = field(default_factory=dict)
    """Machine class -> the data-dependent counts of a running op (absent: its cost on that
    machine does not depend on the data)."""

    def of(self, machine: Machine) -> CostFn:
        """The function pricing the instruction on `machine`; on a calibrated machine
        without its own price, its base machine's (called with the base machine)."""
        price = self.on.get(type(machine))
        if price is not None:
            return price
        if isinstance(machine, CalibratedMachine):
            on_base = self.of(machine.base)
            return lambda op, o, calibrated, work: on_base(op, o, calibrated.base, work)
        raise NoCostModel(f"no cost model on the {machine.model} machine")

    def measure_of(self, machine: Machine) -> MeasureFn | None:
        """The data-dependent counts on `machine` (a calibrated machine: its base's)."""
        found = self.measure.get(type(machine))
        if found is None and isinstance(machine, CalibratedMachine) and type(machine) not in self.on:
            on_base = self.measure_of(machine.base)
            if on_base is not None:
                return lambda op, operands, calibrated: on_base(op, operands, calibrated.base)
        return found
