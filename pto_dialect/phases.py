"""
On which pipes an instruction runs, and what each phase reads and writes: the facts the sync
checker (passes/sync_check.py), pto-insert-sync and the C++ emitter order pipes by.

The default needs nothing from an instruction: one phase on its record's `pipe` (pto-isa
include/pto/common/event.hpp maps each op to its pipe), reading the memory it reads and
writing what it writes (its memory effects, pto_dialect/ops/common.py OperandEffects). An
instruction that runs as several phases on one target says so on that target's lowered op
class (`PHASES`, by operand role), as PTOAS's SyncMacroModel.cpp describes it; where that
model and the headers disagree, the headers decide. `INTERNAL_FLAGS` are the set/wait pairs the
library code uses itself (pto-isa's fixed event ids): a flag of the kernel's own on one of them
still pending when the instruction runs would be taken by it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xdsl.ir import Operation, SSAValue
from xdsl.traits import MemoryEffectKind, get_effects

from pto_dialect.instruction import Pipe


@dataclass(frozen=True)
class Phase:
    """One phase of an instruction: its pipe and the operand roles it reads and writes."""

    pipe: Pipe
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()


SpanValue = Any
"""An integer, or (while the checker evaluates a loop for all its iterations at once) a NumPy array of them."""
ValueOf = Callable[[SSAValue], SpanValue]
"""The value of an operand at the access (raises when it is not known)."""


@dataclass(frozen=True)
class InternalFlag:
    """A set_flag / wait_flag pair the instruction's library code issues itself."""

    src: Pipe
    dst: Pipe
    event: int = 0


@dataclass(frozen=True)
class Step:
    """A phase of one op, its operands resolved: what the checker orders."""

    pipe: Pipe
    reads: tuple[SSAValue, ...]
    writes: tuple[SSAValue, ...]


def phases_of(op: Operation) -> tuple[Step, ...] | None:
    """The op's phases in order, or None for an op that is no instruction (scaffolding, sync)."""
    declared: tuple[Phase, ...] | None = getattr(type(op), "PHASES", None)
    if declared is not None:
        role = getattr(op, "role", None)  # an instruction's roles; a scaffolding op's operand names

        def resolve(roles: tuple[str, ...]) -> tuple[SSAValue, ...]:
            return tuple(v for v in (role(r) if role else getattr(op, r) for r in roles) if v is not None)

        return tuple(Step(p.pipe, resolve(p.reads), resolve(p.writes)) for p in declared)
    from pto_dialect import register_level_declared
    from pto_dialect.instructions import instruction_of  # the instructions' modules import Phase

    if register_level_declared():
        from pto_dialect.vpto.scope import VecScopeOp
        from pto_dialect.vpto.tile_handles import scope_tile_accesses

        if isinstance(op, VecScopeOp):  # a vector function: the tiles its register ops reach by tile_buf_addr
            reads, writes = scope_tile_accesses(op)
            return (Step(Pipe.VECTOR, reads, writes),) if reads or writes else None
    instruction = instruction_of(op)
    if instruction is None:
        return None
    effects = get_effects(op) or set()
    reads = tuple(e.value for e in effects if e.kind == MemoryEffectKind.READ and isinstance(e.value, SSAValue))
    writes = tuple(e.value for e in effects if e.kind == MemoryEffectKind.WRITE and isinstance(e.value, SSAValue))
    position = {v: i for i, v in reversed(list(enumerate(op.operands)))}
    return (Step(instruction.pipe, tuple(sorted(set(reads), key=position.__getitem__)),
                 tuple(sorted(set(writes), key=position.__getitem__))),)


def internal_flags(op: Operation) -> tuple[InternalFlag, ...]:
    return getattr(type(op), "INTERNAL_FLAGS", ())
