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
    # syntax.md §7: L0A/L0B 64 KiB, L0C 256 KiB, bias 64 KiB, scaling as large as UB
    tile_capacity_bytes={"left": 65536, "right": 65536, "acc": 262144, "bias": 65536, "scaling": 253952},
)
