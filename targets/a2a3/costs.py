"""
Atlas A2/A3's cost parameters: pto-isa's own cost model (include/pto/costmodel/, built with
`-D__COSTMODEL -D__NPU_ARCH__=2201`), whose mocks charge every CCE intrinsic the a2a3 headers
issue. Paths below are in pto-isa's include/pto/costmodel/.
"""

from __future__ import annotations

from pto_dialect.cost import CalibratedMachine, CceMachine, DmaPath, DmaTable, IdleFallback, Linear, Param, PathTiming

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
        DmaPath.L1_TO_L0A: Param(441.0, ARCH),
        DmaPath.L1_TO_L0B: Param(220.5, ARCH),
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
        "vgatherb": Linear(6, 2, 0, f"{CORE} EstimateLinearCycles defaults ({COMPUTE} vgatherb)"),
        "vadd": Linear(10, 2, 14, COMPUTE),
        "vsub": Linear(10, 2, 14, COMPUTE),
        "vmul": Linear(10, 2, 15, COMPUTE),
        "vcadd": Linear(14, 7, 32, COMPUTE),
        "vcgadd": Linear(14, 1, 24, COMPUTE),
        "vbrcb": Linear(0, 0, 18, COMPUTE),
        "vabs": Linear(13, 1, 16, COMPUTE),
        "vnot": Linear(8, 2, 12, COMPUTE),
        "vexp": Linear(13, 2, 18, COMPUTE),
        "vln": Linear(13, 2, 20, COMPUTE),
        "vsqrt": Linear(14, 2, 25, COMPUTE),
        "vrsqrt": Linear(10, 1, 14, COMPUTE),
        "vrelu": Linear(10, 1, 13, COMPUTE),
        "vsubrelu": Linear(6, 2, 0, f"{CORE} EstimateLinearCycles defaults (no vsubrelu mock: TSUBRELU)"),
        "vdiv": Linear(11, 4, 19, f"{COMPUTE} (its count-mode floor aside)"),
        "vmaxs": Linear(10, 1, 13, COMPUTE),
        "vmins": Linear(14, 1, 16, COMPUTE),
        "vand": Linear(8, 2, 12, COMPUTE),
        "vor": Linear(8, 2, 12, COMPUTE),
        "vshl": Linear(6, 2, 0, f"{CORE} EstimateLinearCycles defaults ({COMPUTE} vshl)"),
        "vshr": Linear(6, 2, 0, f"{CORE} EstimateLinearCycles defaults ({COMPUTE} vshr)"),
        "vshls": Linear(6, 2, 0, f"{CORE} EstimateLinearCycles defaults ({COMPUTE} vshl, its scalar overload)"),
        "vshrs": Linear(6, 2, 0, f"{CORE} EstimateLinearCycles defaults ({COMPUTE} vshr, its scalar overload)"),
        "vlrelu": Linear(11, 1, 15, COMPUTE),
        "vmuls": Linear(11, 1, 15, COMPUTE),
        "vadds": Linear(13, 1, 18, COMPUTE),
        "vmin": Linear(10, 2, 14, COMPUTE),
        "vmax": Linear(10, 2, 14, COMPUTE),
        "vsel": Linear(13, 2, 14, COMPUTE),
        "vcopy": Linear(11, 1, 13, COMPUTE),
        "scatter_vnchwconv_b8": Linear(6, 2, 0, f"{CORE} EstimateLinearCycles defaults ({COMPUTE} scatter_vnchwconv_b8)"),
        "scatter_vnchwconv_b16": Linear(6, 2, 0, f"{CORE} EstimateLinearCycles defaults ({COMPUTE} scatter_vnchwconv_b16)"),
        "scatter_vnchwconv_b32": Linear(6, 2, 0, f"{CORE} EstimateLinearCycles defaults ({COMPUTE} scatter_vnchwconv_b32)"),
        "vector_dup": Linear(11, 1, 13, COMPUTE),
        "vreducev2": Linear(14, 14, 20, COMPUTE),
        "vcmax": REDUCE,
        "vcmin": REDUCE,
        "vcmpvs_gt": DEFAULTS,
        "vcmpvs_eq": DEFAULTS,
        # vcmp_le / vcmp_ge (TCOLARGMIN / TCOLARGMAX) have no mock: priced as the mocked compare of the same kind
        "vcmp_le": DEFAULTS,
        "vcmp_ge": Linear(14, 2, 22, f"no mock: {COMPARE} vcmpv_ge"),
        "vconv": VCONV,  # TCVT: whichever vconv_* its pair and mode take
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
    },
    scalar_line_bytes=Param(64, "pto-isa include/pto/npu/a2a3/MGather.hpp kCacheLineBytes"),
    # pto_instr.hpp RecordInstr: an instruction whose mocks charged nothing reports perf_sim's estimate instead
    idle_transfer=IdleFallback(3, 2, 64, f"{FALLBACK} (a GM-access stage: kGMLatencyBase, kGMCycleMultiplier, kGMElemsPerUnit)"),
    idle_vector=IdleFallback(2, 1, 32, f"{FALLBACK} (any other stage: kDefaultLatencyBase, kDefaultElemsPerUnit)"),
)

TLOAD_TEST = "pto-isa tests/costmodel/st/testcase/tload/main.cpp EXPECT_CYCLE_NEAR"
TOPK = "pto-isa kernels/manual/a2a3/topk/README.md (A3, 48 cores: mte2 / mte3 ratio x task_duration)"
GEMM = "pto-isa kernels/manual/a2a3/gemm_performance/README.md (A3, 24 cores: TLOAD ratio x execution time)"
FIT = "fitted by bench/cost_calibration.py (least squares of the relative error, parameters >= 0) to"

CALIBRATED = CalibratedMachine(
    model="a2a3-calibrated",
    base=MACHINE,
    paths={
        DmaPath.GM_TO_UB: PathTiming(
            latency=Param(262.8, f"{FIT} {TLOAD_TEST} c01-c10 (one core) and {TOPK} loads; shared by the GM read paths"),
            per_block=Param(0.2479, f"{FIT} {TLOAD_TEST} c01-c09 (bursts of 127-512 B)"),
            per_long_block=Param(2.892, f"{FIT} {TLOAD_TEST} c10 (1020-B bursts) and {TOPK} loads (2-4 KiB bursts)"),
        ),
        DmaPath.GM_TO_L1: PathTiming(
            latency=Param(262.8, "the GM_TO_UB latency (no figure of a lone GM->L1 transfer)"),
            per_block=Param(0.2354, f"{FIT} {GEMM} four sizes (512-B bursts)"),
        ),
        DmaPath.UB_TO_GM: PathTiming(
            latency=Param(0, f"{FIT} {TOPK} stores: they leave no latency beside the contention"),
            per_block=Param(0.3195, f"{FIT} {TOPK} stores (bursts of 2-4 KiB)"),
        ),
    },
    contention=Param(11.59, f"{FIT} {TOPK} loads and stores, {GEMM}"),
    block_bytes=Param(32, "pto-isa include/pto/costmodel/arch_config.hpp kBlockBytes (a DMA moves whole blocks)"),
    line_bytes=Param(
        512,
        f"{TLOAD_TEST}: bursts up to 512 B (c01-c09) at one rate, of 1020 B (c10) at another; "
        "gemm_performance/README.md keeps GM writes 512-byte aligned",
    ),
    scalar_call=MACHINE.scalar_call,
)
"""`--cost-model=calibrated`: transfers as the public A2/A3 figures show them (docs/cost.md,
"Calibration"); every other instruction, and L1->GM stores no figure measures, as MACHINE."""
