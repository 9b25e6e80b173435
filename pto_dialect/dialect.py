"""The `pto` dialect object: every op, type and attribute of the PTO instruction set."""

from __future__ import annotations

from xdsl.ir import Dialect

from pto_dialect.attributes import ATTRIBUTES
from pto_dialect.dtypes import ELEMENT_TYPE_ATTRIBUTES
from pto_dialect.instructions import REGISTRY
from pto_dialect.ops import SCAFFOLDING
from pto_dialect.ops.sync import SYNC_ATTRIBUTES, SYNC_OPS
from pto_dialect.types import TYPES
from pto_dialect.vpto import VPTO_OPS, VPTO_TYPES

PTO = Dialect("pto", [*(i.op for i in REGISTRY), *SCAFFOLDING, *SYNC_OPS, *VPTO_OPS],
    [*TYPES, *VPTO_TYPES, *ELEMENT_TYPE_ATTRIBUTES, *ATTRIBUTES, *SYNC_ATTRIBUTES])
