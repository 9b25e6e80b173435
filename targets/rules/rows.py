"""
A family's rules as one table: a row per member naming the rule row each target applies to it
(`Row`), each target's rules.py taking its column (`column`). A new member is one row; a target's
rules for it are the cell in that target's column.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from pto_dialect.family import Family
from pto_dialect.instruction import Instruction

R = TypeVar("R")


@dataclass(frozen=True)
class Row(Generic[R]):
    """One instruction's rule row on each target."""

    cpu: R
    a2a3: R
    a5: R


def column(families: Iterable[Family], rows: Mapping[str, Row], target: str) -> dict[Instruction, object]:
    """`target`'s rule row of every member of `families`, from their rows by mnemonic (every
    member has one, nothing else does)."""
    families = tuple(families)
    members = {row.mnemonic for family in families for row in family.rows}
    assert members == set(rows), f"members without a row: {members - set(rows)}; rows of no member: {set(rows) - members}"
    return {instruction: getattr(rows[row.mnemonic], target) for family in families for row, instruction in family}
