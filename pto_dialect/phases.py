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

from collections.abc import Callable, Mapping
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


def ignored_operands(op: Operation, rules: Mapping[Any, Any]) -> frozenset[int]:
    """The indices of the operands the target's code for `op` (a pto instruction or its lowered op)
    neither reads nor writes, under the target's rule rows `rules` (Instruction.untouched: a tmp it
    ignores). The memory plan gives them no live range; the sync checker, pto-insert-sync and the
    profiler count no access to them."""
    from pto_dialect.instructions import instruction_of

    role_lists = getattr(op, "role_lists", None)
    if role_lists is None:
        return frozenset()
    instruction = instruction_of(op)
    if instruction is None or instruction.untouched is None:
        return frozenset()
    roles = instruction.untouched(op, rules[instruction])
    ins_roles = role_lists()[0] if roles else ()
    return frozenset(i for i, role in enumerate(ins_roles[: len(op.ins)]) if role in roles)  # pyright: ignore[reportAttributeAccessIssue]


def phases_of(op: Operation, rules: Mapping[Any, Any] | None = None) -> tuple[Step, ...] | None:
    """The op's phases in order, or None for an op that is no instruction (scaffolding, sync).
    With the target's rule rows `rules`, an operand its code ignores (`ignored_operands`) is no access."""
    steps = _phases(op)
    return steps if steps is None or rules is None else without_ignored(op, steps, rules)


def without_ignored(op: Operation, steps: tuple[Step, ...], rules: Mapping[Any, Any]) -> tuple[Step, ...]:
    """`op`'s steps without the operands its target's code ignores (`ignored_operands`; a value
    also passed as another operand stays)."""
    ignored = ignored_operands(op, rules)
    if not ignored:
        return steps
    dropped = {op.operands[i] for i in ignored} - {v for i, v in enumerate(op.operands) if i not in ignored}
    return tuple(
        Step(s.pipe, tuple(v for v in s.reads if v not in dropped), tuple(v for v in s.writes if v not in dropped))
        for s in steps
    )


def _phases(op: Operation) -> tuple[Step, ...] | None:
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
