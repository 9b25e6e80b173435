"""Ascend 950PR/950DT."""

from __future__ import annotations

from targets.info import RegisterLevel, SimtBudget, TargetInfo

A5 = TargetInfo(
    name="a5",
    summary="Ascend 950PR/950DT",
    # UB 248 KiB, L1 512 KiB, L0A / L0B 64 KiB (planned: TMOV loads mat tiles into left / right ones)
    on_chip_bytes={"vec": 253952, "mat": 524288, "left": 65536, "right": 65536},
    # L0C 256 KiB, bias 64 KiB, scaling as large as UB
    tile_capacity_bytes={"acc": 262144, "bias": 65536, "scaling": 253952},
    # 256 KiB - 8 KiB reserved - 32 KiB data cache; 128 KiB without pto.dyn_ubuf_size
    simt_budget=SimtBudget(max_bytes=216 * 1024, default_bytes=128 * 1024),
    device_spec_prefixes=("Ascend950", "Ascend910_95"),
    # PTOAS docs/vpto-spec.md: the vpto micro instructions are A5's (Ascend 950) register level
    register_level=RegisterLevel(ub_loc="vec", source="PTOAS docs/vpto-spec.md, \"PTO micro Instruction Spec (A5)\""),
)
