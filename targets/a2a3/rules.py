"""What Atlas A2/A3 accepts: its column of each table of targets/rules/ (a row per instruction, a
column per target)."""

from __future__ import annotations

from targets.rules import elementwise, families, instructions

TRANSFER = instructions.TRANSFER.a2a3
PRINT = instructions.PRINT.a2a3
MEMORY_SCATTER = instructions.MEMORY_SCATTER.a2a3
"""The rows its lowering.py reads."""

RULES = {**instructions.column("a2a3"), **families.column("a2a3"), **elementwise.column("a2a3")}
