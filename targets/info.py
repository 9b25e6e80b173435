"""What the project knows about one hardware target: the registry's entry type."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from xdsl.ir import Dialect

from lowering.convert import TargetLowering
from targets.rules.mgather import MGatherRules
from targets.rules.tcolargmin import TColArgMinRules
from targets.rules.tgather import TGatherRules


@dataclass(frozen=True)
class SimtBudget:
    """UB a kernel that launches a SIMT MGATHER may use (the rest is the SIMT data cache)."""

    max_bytes: int
    default_bytes: int
    """... of which a kernel may use more than this only by declaring `pto.dyn_ubuf_size`."""


@dataclass(frozen=True, eq=False)  # one object per target: compared and hashed by identity
class TargetInfo:
    """One target: names, memories, rule tables, lowering table and lowered dialect.

    The interpreter runs the ops of `dialect` (each subclasses a lowering/ops.py base,
    which names the interpreter function that runs it)."""

    name: str
    aliases: tuple[str, ...]
    summary: str
    on_chip_bytes: Mapping[str, int]
    """Bytes of each on-chip memory that tiles are placed in, by tile loc."""
    mgather: MGatherRules
    tgather: TGatherRules
    tcolargmin: TColArgMinRules
    lowering: TargetLowering
    dialect: Dialect
    simt_budget: SimtBudget | None = None
    """Set where MGATHER can run as a SIMT launch that shrinks the UB."""
    device_spec_prefixes: tuple[str, ...] = ()
    """`pto.device-spec` values (prefixes) that name this target, as PTOAS reads them."""

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"<target {self.name}>"
