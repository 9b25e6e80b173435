"""What the Ascend 950 accepts: its column of each table of targets/rules/ (a row per instruction, a
column per target)."""

from __future__ import annotations

from targets.rules import elementwise, families, instructions

TRANSFER = instructions.TRANSFER.a5
PRINT = instructions.PRINT.a5
MEMORY_SCATTER = instructions.MEMORY_SCATTER.a5
"""The rows its lowering.py reads."""

RULES = {**instructions.column("a5"), **families.column("a5"), **elementwise.column("a5")}
