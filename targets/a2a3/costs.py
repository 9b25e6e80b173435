"""
Atlas A2/A3's cost parameters: pto-isa's own cost model (include/pto/costmodel/, built with
`-D__COSTMODEL -D__NPU_ARCH__=2201`), whose mocks charge every CCE intrinsic the a2a3 headers
issue. Paths below are in pto-isa's include/pto/costmodel/.
"""

from __future__ import annotations

from pto_dialect.cost import CceMachine, DmaPath, DmaTable, IdleFallback, Linear, Param

CORE = "a2a3/cce_costmodel/cce_costmodel_core.hpp"
COMPUTE = "a2a3/cce_costmodel/cce_costmodel_vector_compute.hpp"
COMPARE = "a2a3/cce_costmodel/cce_costmodel_vector_compare.hpp"
ARCH = "arch_config.hpp kA2A3ArchConfig"
FALLBACK = "perf_sim/costmodel_provider.hpp FallbackCycles"
VCONV = Linear(14, 2, 18, f"{CORE} EstimateVconvCycles (every vconv_*)")
DEFAULTS = Linear(6, 2, 0, f"{CORE} EstimateLinearCycles defaults ({COMPARE} vcmpvs_*, vcmpv_le)")
REDUCE = Linear(6, 2, 0, f"{CORE} EstimateLinearCycles defaults ({COMPUTE} vcmax, vcmin)")

DMA = DmaTable(
    frequency_hz=Param(1.85e9, "arch_config.hpp kMainFrequencyHz"),
    bandwidth_gib_s={
        DmaPath.GM_TO_UB: Param(100.9, ARCH),
        DmaPath.GM_TO_L1: Param(135.0, ARCH),
        DmaPath.UB_TO_GM: Param(188.46, ARCH),
        DmaPath.L1_TO_GM: Param(32.0, ARCH),
        DmaPath.UB_TO_UB: Param(1024.0, ARCH),
        DmaPath.L1_FILL: Param(32.0, ARCH),
    },
)
"""Transfers by bandwidth (arch_config.hpp), for every target a model prices them on."""

MACHINE = CceMachine(
    model="pto-isa-costmodel",
    derived_model="a2a3-header-sequence",
    dma=DMA,
    scalar_call=Param(1, f"{CORE} EstimateConstCycles (set_mask_count, set_vector_mask, pipe_barrier, ...)"),
    vector={
        "vgather": Linear(24, 2, 0, COMPUTE),
        "vadd": Linear(10, 2, 14, COMPUTE),
        "vmuls": Linear(11, 1, 15, COMPUTE),
        "vadds": Linear(13, 1, 18, COMPUTE),
        "vmin": Linear(10, 2, 14, COMPUTE),
        "vmax": Linear(10, 2, 14, COMPUTE),
        "vsel": Linear(13, 2, 14, COMPUTE),
        "vcopy": Linear(11, 1, 13, COMPUTE),
        "vector_dup": Linear(11, 1, 13, COMPUTE),
        "vreducev2": Linear(14, 14, 20, COMPUTE),
        "vcmax": REDUCE,
        "vcmin": REDUCE,
        "vcmpvs_gt": DEFAULTS,
        "vcmpvs_eq": DEFAULTS,
        # vcmp_le / vcmp_ge (TCOLARGMIN / TCOLARGMAX) have no mock: priced as the mocked compare of the same kind
        "vcmp_le": DEFAULTS,
        "vcmp_ge": Linear(14, 2, 22, f"no mock: {COMPARE} vcmpv_ge"),
        "vconv_s162f16": VCONV,
        "vconv_s162f16a": VCONV,
        "vconv_f162s32a": VCONV,
        "vconv_s322f32": VCONV,
        "vconv_s162f32": VCONV,
        "vconv_f322s32z": VCONV,
        "vcmpv_eq": DEFAULTS,
        "vcmpv_lt": DEFAULTS,
        "vcmpv_gt": DEFAULTS,
        "vcmpv_le": DEFAULTS,
        "vcmpv_ge": Linear(14, 2, 22, COMPARE),
        "vcmpvs_lt": DEFAULTS,
        "vcmpvs_ge": DEFAULTS,
        "vcmpvs_le": DEFAULTS,
        "vnot": Linear(8, 2, 12, COMPUTE),
        "vmul": Linear(10, 2, 15, COMPUTE),
    },
    scalar_line_bytes=Param(64, "pto-isa include/pto/npu/a2a3/MGather.hpp kCacheLineBytes"),
    # pto_instr.hpp RecordInstr: an instruction whose mocks charged nothing reports perf_sim's estimate instead
    idle_transfer=IdleFallback(3, 2, 64, f"{FALLBACK} (a GM-access stage: kGMLatencyBase, kGMCycleMultiplier, kGMElemsPerUnit)"),
    idle_vector=IdleFallback(2, 1, 32, f"{FALLBACK} (any other stage: kDefaultLatencyBase, kDefaultElemsPerUnit)"),
)
