"""The pto-isa CPU simulator (it models a5's memories)."""

from __future__ import annotations

from targets.cpu import rules
from targets.cpu.dialect import PTO_CPU
from targets.cpu.lowering import LOWERING
from targets.info import TargetInfo

CPU = TargetInfo(
    name="cpu",
    aliases=(),
    summary="the pto-isa CPU simulator",
    on_chip_bytes={"vec": 253952, "mat": 524288},
    mgather=rules.MGATHER,
    tgather=rules.TGATHER,
    tcolargmin=rules.TCOLARGMIN,
    lowering=LOWERING,
    dialect=PTO_CPU,
)
