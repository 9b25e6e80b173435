"""
Ascend 950's cost parameters. pto-isa's a5 cost model builds thirteen tile ops (VFSIM_TABLE.tile_ops)
and prices their vector functions with VfSim (include/pto/costmodel/a5/VfSim/params/), or, where
VfSim has no row for a body's intrinsic in its element type, with a per-instruction table
(a5/cce_costmodel/vec_cycle_generated.hpp); it has no DMA mock. Those thirteen are priced here as
it prices them (VFSIM_TABLE; bench/vfsim_diff.py runs both). Every other instruction is a documented
model, not a reproduction: an instruction costs its VfSim throughput where VfSim has a row for it,
else that table's cycles; a vector function adds VfSim's startup and drain; transfers use the
only bandwidth table the cost model has. Paths below are in pto-isa's include/pto/costmodel/.
"""

from __future__ import annotations

from pto_dialect.cost import DmaPath, Param, VfMachine, VfSimLoop, VfSimRow
from targets.a2a3.costs import DMA  # the cost model's only bandwidth table (it has no a5 DMA mock)
from targets.a2a3.costs import MACHINE as A2A3

VFSIM = "a5/VfSim/params/isa.csv throughput"
FALLBACK = "a5/cce_costmodel/vec_cycle_generated.hpp VecCycle (no VfSim row)"

PARAMS = "a5/VfSim/params/"
SWEPT = "(its role found by sweeping VfSim's loops, bench/vfsim_diff.py)"


def _row(op: str, form: str, store_forward: int, interval: int, recorded_as: str = "") -> VfSimRow:
    """A VfSim row: every one of the intrinsics here takes its loads' results after 6 cycles and
    stores at data_store_cost 9. `recorded_as`: why an element type takes another's row."""
    return VfSimRow(
        load_forward=Param(6, f"{PARAMS}forwarding.csv VLDS.{form},{op}.{form}{recorded_as}"),
        store_forward=Param(store_forward, f"{PARAMS}forwarding.csv {op}.{form},VSTS.{form}{recorded_as}"),
        initiation_interval=Param(interval, f"{PARAMS}initiation_interval.csv {op}.{form},{op}.{form}{recorded_as}"),
        store_cost=Param(9, f"{PARAMS}isa.csv {op},{form} data_store_cost{recorded_as}"),
    )


BF16_AS_FP16 = (
    " (bf16: common/type.hpp makes bfloat16_t _Float16 in a cost-model build whose C++ library has no"
    " std::bfloat16_t, as libstdc++ 12; the stubs then record its registers as fp16)"
)


def _rows(op: str, fp32: tuple[int, int], fp16: tuple[int, int]) -> dict[str, VfSimRow]:
    """An intrinsic's rows by element type: (store forward, initiation interval) in each form."""
    return {"f32": _row(op, "fp32", *fp32), "f16": _row(op, "fp16", *fp16), "bf16": _row(op, "fp16", *fp16, BF16_AS_FP16)}


VFSIM_TABLE = VfSimLoop(
    tile_ops=frozenset({"tadd", "tadds", "tand", "tdiv", "tmax", "tmin", "tmins", "tmul", "tmuls", "tshls", "tshrs", "tsub", "tsubs"}),
    startup=Param(23, f"{PARAMS}isa_defaults.csv vf_startup_cost"),
    drain=Param(12, f"{PARAMS}isa_defaults.csv vf_drain_cost"),
    ports=Param(2, f"{PARAMS}uarch.csv issue_ports (isa.csv dispatch_exu EXU01)"),
    row_gap=Param(7, f"{PARAMS}uarch.csv loop1_min_feedback_gap {SWEPT}"),
    nested_start=Param(1, f"{PARAMS}uarch.csv nested_vloop_initial_start_gap {SWEPT}"),
    rows={
        "vadd": _rows("VADD", (5, 1), (5, 1)),
        "vsub": _rows("VSUB", (5, 1), (5, 1)),
        "vmul": _rows("VMUL", (6, 1), (6, 1)),
        "vdiv": _rows("VDIV", (15, 4), (20, 8)),
        "vmax": _rows("VMAX", (4, 1), (4, 1)),
        "vmin": _rows("VMIN", (4, 1), (4, 1)),
        "vadds": _rows("VADDS", (5, 1), (5, 1)),
        "vmuls": _rows("VMULS", (6, 1), (6, 1)),
        "vmins": _rows("VMINS", (4, 1), (4, 1)),
    },
    fallback={
        name: Param(cycles, f"a5/cce_costmodel/vec_cycle_generated.hpp VecCycle {name}")
        for name, cycles in (
            ("vlds", 4), ("vsts", 4), ("vadd", 6), ("vsub", 6), ("vmul", 6), ("vmax", 6), ("vmin", 6), ("vand", 6),
            ("vshls", 6), ("vshrs", 6), ("vadds", 6), ("vmins", 6), ("vdiv", 10), ("vmuls", 10),
        )
    },
)


REGISTER_LEVEL = {
    **dict.fromkeys(("pto.vlds", "pto.vldsx2", "pto.vsldb", "pto.vldas", "pto.vldus"), "vlds"),
    **dict.fromkeys(("pto.vsts", "pto.vstsx2", "pto.vsstb", "pto.vstus", "pto.vstas"), "vsts"),
    **dict.fromkeys(("pto.plds", "pto.pldi"), "plds"),
    **dict.fromkeys(("pto.psts", "pto.psti", "pto.pstu"), "psts"),
    **dict.fromkeys(("pto.pset_b8", "pto.pset_b16", "pto.pset_b32", "pto.pge_b8", "pto.pge_b16", "pto.pge_b32"), "pset"),
    **dict.fromkeys(("pto.plt_b8", "pto.plt_b16", "pto.plt_b32"), "plt"),
    # predicate logic and shuffles have no rows of their own: priced as pand (the table's predicate op)
    **dict.fromkeys(("pto.pand", "pto.por", "pto.pxor", "pto.pnot", "pto.psel", "pto.ppack", "pto.punpack",
                     *(f"pto.p{k}intlv_b{w}" for k in ("", "d") for w in (8, 16, 32))), "pand"),
    **{f"pto.{name}": name for name in ("vbr", "vdup", "vsel", "vcmps", "vcvt", "vsqz", "vstur", "vstar", "sprclr",
                                        "sprsts", "mem_bar")},
    "pto.sprsti": "sprsts",
    **{f"pto.{name}": name for name in ("vgather2", "vgather2_bc", "vgatherb", "vscatter", "vintlv", "vdintlv",
                                        "vadd", "vsub", "vmul", "vadds", "vmuls")},
    **dict.fromkeys(("pto.mte_gm_ub", "pto.copy_gm_to_ubuf"), DmaPath.GM_TO_UB),
    **dict.fromkeys(("pto.mte_ub_gm", "pto.copy_ubuf_to_gm"), DmaPath.UB_TO_GM),
    "pto.mte_ub_ub": DmaPath.UB_TO_UB,
    **dict.fromkeys((*(f"pto.set_{r}_{d}" for r in ("loop_size", "loop1_stride", "loop2_stride") for d in ("outtoub", "ubtoout")),
                     *(f"pto.set_atomic_{m}" for m in ("none", "add", "max", "min", "f32", "f16", "bf16", "s32", "s16", "s8"))),
                    "config"),
    "pto.vecscope": "scope",
    # pointer arithmetic and handles are scalar-unit bookkeeping; init_align clears alignment state
    **dict.fromkeys(("pto.castptr", "pto.addptr", "pto.init_align", "pto.tile_buf_addr", "pto.tile_valid_rows"), "free"),
}
"""How `pto-opt --estimate` and `pto-run --profile` price each register-level op: as the `vf_ops`
instruction it runs as, a copy on a DMA path, a configuration call, or a vector scope's startup and drain
(VfMachine.register_op)."""

MACHINE = VfMachine(
    model="a5-vf-model",
    dma=DMA,
    config_call=A2A3.scalar_call,  # no a5 mock: the a2a3 mocks' price of a call
    vf_startup=Param(23, "a5/VfSim/params/isa_defaults.csv vf_startup_cost"),
    vf_drain=Param(12, "a5/VfSim/params/isa_defaults.csv vf_drain_cost"),
    vf_ops={
        "vlds": Param(1, f"{VFSIM} VLDS"),
        "vsts": Param(1, f"{VFSIM} VSTS"),
        "vadd": Param(2, f"{VFSIM} VADD"),
        "vsub": Param(2, f"{VFSIM} VSUB"),
        "vmul": Param(2, f"{VFSIM} VMUL"),
        "vdiv": Param(4, f"{VFSIM} VDIV"),
        "vmax": Param(2, f"{VFSIM} VMAX"),
        "vmin": Param(2, f"{VFSIM} VMIN"),
        "vmaxs": Param(1, f"{VFSIM} VMAXS"),
        "vmins": Param(1, f"{VFSIM} VMINS"),
        "vector_dup": Param(1, f"{VFSIM} VDUP (a2a3's vector_dup is a5's vdup)"),
        "vand": Param(1, f"{VFSIM} VAND"),
        "vshls": Param(1, f"{VFSIM} VSHLS"),
        "vshrs": Param(1, f"{VFSIM} VSHRS"),
        "vor": Param(6, FALLBACK),
        "vxor": Param(6, FALLBACK),
        "vshl": Param(6, FALLBACK),
        "vshr": Param(6, FALLBACK),
        "vlrelu": Param(6, FALLBACK),
        "vnot": Param(6, FALLBACK),
        "vexp": Param(4, f"{VFSIM} VEXP"),
        "vln": Param(10, FALLBACK),
        "vadds": Param(1, f"{VFSIM} VADDS"),
        "vmuls": Param(1, f"{VFSIM} VMULS"),
        "vabs": Param(1, f"{VFSIM} VABS"),
        "vsqrt": Param(10, FALLBACK),
        "vrelu": Param(6, FALLBACK),
        "vdup": Param(1, f"{VFSIM} VDUP"),
        "vsel": Param(1, f"{VFSIM} VSEL"),
        "vbr": Param(1, f"{VFSIM} VBR"),
        "vcmp": Param(1, f"{VFSIM} VCMP_EQ (its only compare)"),
        "vcmps": Param(1, f"{VFSIM} VCMP_EQ (its only compare)"),
        "vcvt": Param(1, f"{VFSIM} VCVT_F32_TO_S32"),
        "vcmax": Param(1, f"{VFSIM} VCMAX"),
        "vcmin": Param(1, f"{VFSIM} VCMIN"),
        "vcadd": Param(1, f"{VFSIM} VCADD"),
        "psts": Param(1, f"{VFSIM} VSTS (no PSTS row: priced as the vector store)"),
        "plds": Param(1, f"{VFSIM} VLDS (no PLDS row: priced as the vector load)"),
        "plt": Param(2, FALLBACK),
        "pset": Param(2, FALLBACK),
        "pand": Param(6, FALLBACK),
        "vgather2": Param(5, FALLBACK),
        "vgather2_bc": Param(5, FALLBACK),
        "vgatherb": Param(5, FALLBACK),
        "vsqz": Param(5, FALLBACK),
        "vstur": Param(5, FALLBACK),
        "vstar": Param(5, FALLBACK),
        "vci": Param(5, FALLBACK),
        "vintlv": Param(5, FALLBACK),
        "sprclr": Param(5, FALLBACK),
        "sprsts": Param(5, FALLBACK),
        "vdintlv": Param(5, FALLBACK),
        "chistv2": Param(5, FALLBACK),
        "vmull": Param(5, FALLBACK),
        "vaddc": Param(5, FALLBACK),
        "vaddcs": Param(5, FALLBACK),
        "vscatter": Param(5, FALLBACK),
        "mem_bar": Param(20, "a5/cce_costmodel/vec_cycle_generated.hpp kMemBarPenaltyPlaceholder (what VfSimCostModel.cpp charges a memory barrier)"),
    },
    warp_lanes=Param(32, "pto-isa docs/isa/MGATHER.md (A5: dim3{32, warps})"),
    register_level=REGISTER_LEVEL,
    burst_bytes=Param(128, "pto-isa docs/isa/MGATHER.md (A5: lanes coalesce into 128 B GM bursts)"),
    vfsim=VFSIM_TABLE,
)
NOT_CALIBRATED = "no public hardware figure for Ascend 950 to fit a calibrated model to"
