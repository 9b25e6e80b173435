"""
Walking an operation's nested ops in time proportional to their number.

xDSL's `Operation.walk` is a chain of generators, one per nesting level (op, region, block):
each op deep in a nest is handed up through every level above it, so a walk over a nest
D deep costs D^2, and 1,000 nested loops cost seconds per walk. This walk keeps an explicit
stack instead, and yields the same ops in the same order.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypeVar

from xdsl.ir import Operation, SSAValue

OpT = TypeVar("OpT", bound=Operation)


def walk(op: Operation, *, reverse: bool = False) -> Iterator[Operation]:
    """`op` and every op nested in it, in pre-order, as `op.walk(reverse=reverse)` yields them
    (reverse: each region, block and op list read backwards, a parent still before its ops)."""
    pending: list[Operation] = [op]
    while pending:
        current = pending.pop()
        yield current
        inner: list[Operation] = [o for region in current.regions for block in region.blocks for o in block.ops]
        # the stack pops last first: push in the opposite order to the one wanted
        pending.extend(inner if reverse else reversed(inner))


def clone(op: OpT) -> OpT:
    """`op.clone()` in time proportional to its ops: xDSL's clone maps the operands over a
    pair of its own walks, D^2 for a nest D deep (the copy each target's pipeline lowers)."""
    value_mapper: dict[SSAValue, SSAValue] = {}
    copy = op.clone(value_mapper, clone_operands=False)
    for old, new in zip(walk(op), walk(copy), strict=True):
        new.operands = tuple(value_mapper.get(v, v) for v in old.operands)
    return copy
