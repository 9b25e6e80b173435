"""The `pto` dialect object: every op, type and attribute of the PTO instruction set."""

from __future__ import annotations

from xdsl.ir import Dialect

from pto_dialect.attributes import ATTRIBUTES
from pto_dialect.dtypes import HiF8Type
from pto_dialect.ops import OPS
from pto_dialect.types import TYPES

PTO = Dialect("pto", OPS, [*TYPES, HiF8Type, *ATTRIBUTES])
