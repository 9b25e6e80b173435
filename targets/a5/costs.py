"""
Ascend 950's cost parameters: a documented model, not a reproduction. pto-isa's a5 cost
model prices vector functions with VfSim (include/pto/costmodel/a5/VfSim/params/) and, for
programs VfSim cannot simulate (a gather, a squeeze, an unaligned store), with a per-instruction
table (a5/cce_costmodel/vec_cycle_generated.hpp); it has no DMA mock. Here an instruction costs
its VfSim throughput where VfSim has a row for it, else that table's cycles; a vector function
adds VfSim's startup and drain; transfers use the only bandwidth table the cost model has.
Paths below are in pto-isa's include/pto/costmodel/.
"""

from __future__ import annotations

from pto_dialect.cost import DmaPath, DmaTable, Param, VfMachine, VfOp

ARCH = "arch_config.hpp kA2A3ArchConfig (the cost model has no a5 DMA table)"
VFSIM = "a5/VfSim/params/isa.csv throughput"
FALLBACK = "a5/cce_costmodel/vec_cycle_generated.hpp VecCycle (no VfSim row)"

MACHINE = VfMachine(
    model="a5-vf-model",
    dma=DmaTable(
        frequency_hz=Param(1.85e9, "arch_config.hpp kMainFrequencyHz"),
        bandwidth_gib_s={
            DmaPath.GM_TO_UB: Param(100.9, ARCH),
            DmaPath.GM_TO_L1: Param(135.0, ARCH),
            DmaPath.UB_TO_GM: Param(188.46, ARCH),
            DmaPath.L1_TO_GM: Param(32.0, ARCH),
        },
    ),
    config_call=Param(1, "a2a3/cce_costmodel/cce_costmodel_core.hpp EstimateConstCycles (no a5 mock)"),
    vf_startup=Param(23, "a5/VfSim/params/isa_defaults.csv vf_startup_cost"),
    vf_drain=Param(12, "a5/VfSim/params/isa_defaults.csv vf_drain_cost"),
    vf_ops={
        "vlds": VfOp(1, f"{VFSIM} VLDS"),
        "vsts": VfOp(1, f"{VFSIM} VSTS"),
        "vadd": VfOp(2, f"{VFSIM} VADD"),
        "vadds": VfOp(1, f"{VFSIM} VADDS"),
        "vmuls": VfOp(1, f"{VFSIM} VMULS"),
        "vdup": VfOp(1, f"{VFSIM} VDUP"),
        "vsel": VfOp(1, f"{VFSIM} VSEL"),
        "vbr": VfOp(1, f"{VFSIM} VBR"),
        "vcmp": VfOp(1, f"{VFSIM} VCMP_EQ (its only compare)"),
        "vcmps": VfOp(1, f"{VFSIM} VCMP_EQ (its only compare)"),
        "vcvt": VfOp(1, f"{VFSIM} VCVT_F32_TO_S32"),
        "plt": VfOp(2, FALLBACK),
        "pset": VfOp(2, FALLBACK),
        "pand": VfOp(6, FALLBACK),
        "vgather2": VfOp(5, FALLBACK),
        "vgather2_bc": VfOp(5, FALLBACK),
        "vsqz": VfOp(5, FALLBACK),
        "vstur": VfOp(5, FALLBACK),
        "vstar": VfOp(5, FALLBACK),
        "vci": VfOp(5, FALLBACK),
        "vintlv": VfOp(5, FALLBACK),
        "sprclr": VfOp(5, FALLBACK),
        "sprsts": VfOp(5, FALLBACK),
    },
    warp_lanes=Param(32, "pto-isa docs/isa/MGATHER.md (A5: dim3{32, warps})"),
    burst_bytes=Param(128, "pto-isa docs/isa/MGATHER.md (A5: lanes coalesce into 128 B GM bursts)"),
)
