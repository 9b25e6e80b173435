"""
The register level of a5 (PTOAS's "vpto" ops, in the `pto` namespace as PTOAS writes them): vector
registers, predicate registers and typed pointers, the DMA micro-ops between GM and UB, vector and
predicate loads and stores, predicate logic, inside `pto.vecscope` regions. Structure only here; that
only a5 has a register level is the target's fact (targets/info.py `register_level`).
"""

from __future__ import annotations

from pto_dialect.vpto.arithmetic import ARITHMETIC_OPS
from pto_dialect.vpto.config import CONFIG_OPS
from pto_dialect.vpto.dma import DMA_OPS
from pto_dialect.vpto.gather import GATHER_OPS
from pto_dialect.vpto.load_store import LOAD_STORE_OPS
from pto_dialect.vpto.pointers import POINTER_OPS
from pto_dialect.vpto.predicates import PREDICATE_OPS
from pto_dialect.vpto.scope import SCOPE_OPS
from pto_dialect.vpto.tile_handles import TILE_HANDLE_OPS
from pto_dialect.vpto.types import VPTO_TYPES, AlignType, MaskType, VRegType
from pto_dialect.vpto.vector import VECTOR_OPS

VPTO_OPS = [*POINTER_OPS, *SCOPE_OPS, *DMA_OPS, *CONFIG_OPS, *LOAD_STORE_OPS, *PREDICATE_OPS, *VECTOR_OPS, *ARITHMETIC_OPS, *GATHER_OPS, *TILE_HANDLE_OPS]
"""Every register-level op (the target layer refuses them where a target has no register level)."""

__all__ = ["VPTO_OPS", "VPTO_TYPES", "AlignType", "MaskType", "VRegType"]
