"""The pto-isa CPU simulator (it models a5's memories)."""

from __future__ import annotations

from targets.a5 import A5
from targets.info import TargetInfo

CPU = TargetInfo(
    name="cpu",
    summary="the pto-isa CPU simulator",
    on_chip_bytes=A5.on_chip_bytes,  # the simulator models a5's memories
    tile_capacity_bytes=A5.tile_capacity_bytes,
)
