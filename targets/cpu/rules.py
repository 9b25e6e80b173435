"""What the cpu target (the pto-isa CPU simulator) accepts: its column of each table of
targets/rules/ (a row per instruction, a column per target)."""

from __future__ import annotations

from targets.rules import elementwise, families, instructions

TRANSFER = instructions.TRANSFER.cpu
PRINT = instructions.PRINT.cpu
MEMORY_SCATTER = instructions.MEMORY_SCATTER.cpu
"""The rows its lowering.py reads."""

RULES = {**instructions.column("cpu"), **families.column("cpu"), **elementwise.column("cpu")}
