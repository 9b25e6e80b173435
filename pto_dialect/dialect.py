"""
The `pto` dialect objects. `PTO` holds every op, type and attribute of the PTO instruction set;
a context loads it in two parts (pto_dialect/__init__.py `make_context`): `TILE_LEVEL`, all but
the register level, when parsed IR first names a pto op, type or attribute, and the register
level (pto_dialect/vpto) when it first names one `TILE_LEVEL` lacks. A kernel without register
ops never declares their ~90 classes, a good part of a command's start-up (bench/startup.py).
"""

from __future__ import annotations

from functools import cache

from xdsl.ir import Attribute, Dialect, Operation

from pto_dialect.attributes import ATTRIBUTES
from pto_dialect.dtypes import ELEMENT_TYPE_ATTRIBUTES
from pto_dialect.instructions import REGISTRY
from pto_dialect.ops import SCAFFOLDING
from pto_dialect.ops.sync import SYNC_ATTRIBUTES, SYNC_OPS
from pto_dialect.types import TYPES

TILE_LEVEL = Dialect("pto", [*(i.op for i in REGISTRY), *SCAFFOLDING, *SYNC_OPS],
    [*TYPES, *ELEMENT_TYPE_ATTRIBUTES, *ATTRIBUTES, *SYNC_ATTRIBUTES])


@cache
def register_level() -> tuple[tuple[type[Operation], ...], tuple[type[Attribute], ...]]:
    """The register level's ops and types (importing pto_dialect.vpto declares them)."""
    from pto_dialect.vpto import VPTO_OPS, VPTO_TYPES

    return tuple(VPTO_OPS), tuple(VPTO_TYPES)


def __getattr__(name: str) -> Dialect:
    if name != "PTO":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    ops, types = register_level()
    whole = Dialect("pto", [*TILE_LEVEL.operations, *ops], [*TILE_LEVEL.attributes, *types])
    globals()["PTO"] = whole
    return whole


PTO: Dialect
"""The whole dialect, the register level included (declared on first use)."""
