"""Atlas A2/A3 (aliases a2, a3)."""

from __future__ import annotations

from targets.a2a3 import rules
from targets.a2a3.dialect import PTO_A2A3
from targets.a2a3.lowering import LOWERING
from targets.info import TargetInfo

A2A3 = TargetInfo(
    name="a2a3",
    aliases=("a2", "a3"),
    summary="Atlas A2/A3",
    on_chip_bytes={"vec": 196608, "mat": 524288},  # syntax.md §7: UB 192 KiB, L1 512 KiB
    mgather=rules.MGATHER,
    tgather=rules.TGATHER,
    tcolargmin=rules.TCOLARGMIN,
    lowering=LOWERING,
    dialect=PTO_A2A3,
)
