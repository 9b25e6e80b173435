"""The register level at run time (pto_dialect/vpto/): its memory model and its ops' implementations."""

from __future__ import annotations

from interpreter.vpto.functions import VptoFunctions
from interpreter.vpto.gather import GatherFunctions

REGISTER_LEVEL_FUNCTIONS = (VptoFunctions, GatherFunctions)
"""Every interpreter-functions class of the register level (interpreter.run registers each)."""

__all__ = ["REGISTER_LEVEL_FUNCTIONS"]
