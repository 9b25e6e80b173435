"""The CPU simulator's cost: the steps of its loops (pto-isa include/pto/cpu/), not a hardware estimate."""

from __future__ import annotations

from pto_dialect.cost import SimulatorMachine

MACHINE = SimulatorMachine(model="cpu-simulator-steps (not a hardware estimate)")
NOT_CALIBRATED = "the CPU simulator is not hardware: its steps have no measured counterpart"
