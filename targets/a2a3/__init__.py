"""Atlas A2/A3 (aliases a2, a3)."""

from __future__ import annotations

from targets.info import TargetInfo

A2A3 = TargetInfo(
    name="a2a3",
    aliases=("a2", "a3"),
    summary="Atlas A2/A3",
    on_chip_bytes={"vec": 196608, "mat": 524288},  # UB 192 KiB, L1 512 KiB
    # L0A/L0B 64 KiB, L0C 128 KiB, bias 64 KiB, scaling as large as UB
    tile_capacity_bytes={"left": 65536, "right": 65536, "acc": 131072, "bias": 65536, "scaling": 196608},
)
