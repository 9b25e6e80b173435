"""The pto-isa CPU simulator (it models a5's memories)."""

from __future__ import annotations

from targets.info import TargetInfo

CPU = TargetInfo(
    name="cpu",
    aliases=(),
    package=__name__,
    dialect_name="pto_cpu",
    summary="the pto-isa CPU simulator",
    on_chip_bytes={"vec": 253952, "mat": 524288},
)
