"""Ascend 950PR/950DT."""

from __future__ import annotations

from targets.a5 import rules
from targets.a5.dialect import PTO_A5
from targets.a5.lowering import LOWERING
from targets.info import SimtBudget, TargetInfo

A5 = TargetInfo(
    name="a5",
    aliases=(),
    summary="Ascend 950PR/950DT",
    on_chip_bytes={"vec": 253952, "mat": 524288},  # syntax.md §7: UB 248 KiB, L1 512 KiB
    mgather=rules.MGATHER,
    tgather=rules.TGATHER,
    tcolargmin=rules.TCOLARGMIN,
    lowering=LOWERING,
    dialect=PTO_A5,
    # 256 KiB - 8 KiB reserved - 32 KiB data cache; 128 KiB without pto.dyn_ubuf_size
    simt_budget=SimtBudget(max_bytes=216 * 1024, default_bytes=128 * 1024),
    device_spec_prefixes=("Ascend950", "Ascend910_95"),
)
