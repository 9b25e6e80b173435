"""
PTOAS's own inputs on which this project's verdict is not PTOAS's, each with the target(s) and
the code that decides: docs/verification.md lists them (targets/rules/docs.py) and
bench/ptoas_lit.py counts a differing (file, target) listed here as a documented divergence.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Divergence:
    files: tuple[str, ...]
    """Paths under PTOAS's test/ (lit/..., samples/...)."""
    targets: tuple[str, ...]
    why: str
    """What is refused or accepted, and the hardware code (or the project's own limit) that
    decides; one sentence or two, Markdown."""


STRICTER = (
    Divergence(
        ("lit/pto/tgather_three_forms_emitc.pto", "lit/pto/tgather_compare_macro_sync_model.pto"),
        ("a2a3",),
        "a2a3 compare-form `tgather` with a 32-byte tmp: the a2a3 code keeps the compare bitmap, an index table and "
        "the converted thresholds in tmp, so a smaller tmp is rejected (the spec's minimum is not enough)",
    ),
    Divergence(
        ("lit/pto/tgather_low_precision_a5_emitc.pto",),
        ("a5",),
        "a5 index-form `tgather` of 1-byte data with 32-bit indices: the a5 register gather reads the indices of b8 "
        "data as 16-bit lanes, so 32-bit indices are rejected",
    ),
    Divergence(
        ("lit/pto/mgather_mscatter_base_a3_emitc.pto", "lit/pto/mgather_mscatter_low_precision_a5_emitc.pto"),
        ("a2a3", "a5"),
        "`mscatter` without `coalesce` on a2a3 (an [R, 1] row-major index) and a5 (an index shaped like src): PTOAS "
        "accepts either shape, but the untemplated MSCATTER of the NPU builds is row mode, whose static_assert asks "
        "for a [1, R] (a5 also [R, 1]) index, and which reads the index tile's storage elements 0..R-1: both are "
        "rejected",
    ),
    Divergence(
        (),
        ("cpu", "a2a3", "a5"),
        "an instruction writing its output over an input's bytes other than as the in-place table allows (a "
        "widening `tcvt` at its source's address, an output shifted against its input): PTOAS accepts it, but the "
        "targets' code would overwrite input elements before reading them, so it is rejected",
    ),
    Divergence(
        ("lit/pto/issue558_trowargmax_vec_overflow_a5.pto", "lit/pto/issue558_trowargmin_vec_overflow_a5.pto"),
        ("a5",),
        "a5 `trowargmin`/`trowargmax` with a tmp as large as src (PTOAS issue 558): verification accepts it, but "
        "the memory planner places the tmp a5's code does not use, so a kernel whose src and tmp together overflow "
        "UB fails at planning",
    ),
    Divergence(
        (
            "lit/tile_fusion/fusion_plan_interleaved_join.pto", "lit/tile_fusion/fusion_plan_join.pto",
            "lit/tile_fusion/fusion_region_basic.pto", "lit/tile_fusion/op_scheduling_basic.pto",
            "lit/tile_fusion/op_scheduling_negative_region.pto", "lit/tile_fusion/op_scheduling_negative_ssa.pto",
            "lit/tile_fusion/op_scheduling_treshape.pto",
        ),
        ("a5",),
        "a5 `trowexpandmul` whose src1 is a row-major `32x1xf32` tile (PTOAS's tile-fusion inputs): PTOAS's "
        "TRowExpandMulOp::verify lacks the src1 column check its `trowexpandadd` has, but npu/a5/TRowExpandMul.hpp "
        "PTO_ASSERTs that a row-major src1 has 32 / sizeof(T) valid columns (a col-major one 1), and its vector code "
        "reads one 32-byte block per row of src1: rejected",
    ),
    Divergence(
        ("lit/pto/issue708_zero_valid_reductions.pto", "lit/pto/issue708_zero_valid_rowexpand_a5_tmp_invalid.pto"),
        ("a5",),
        "a5 row reductions and row-expand binaries on 0x0 valid shapes (PTOAS issue 708 takes them as no-ops; the "
        "hardware guarantee is pto-isa#143, open): npu/a5/TRowReduce.hpp PTO_ASSERTs `srcValidRows != 0 && "
        "srcValidCols != 0`, npu/a5/TRowExpandMax.hpp (and its siblings) that a col-major src1 has one valid "
        "column: rejected",
    ),
    Divergence(
        ("samples/TquantMx/tquant_mx.pto",),
        ("a2a3", "a5"),
        "a `!pto.tile_buf<vec, 16x2xui8, slayout=row_major>` (the TRESHAPE of a 1x32xui8 row-major-box tile): "
        "pto-isa's `Tile` accepts the type (pto_tile.hpp has no static_assert on a boxed Vec tile's shape), but its "
        "16x32 boxes (`getInnerRow`/`getInnerCol` for 1-byte elements in 512-byte fractals) put element [1, 0] at "
        "byte 32, past the tile's 32 bytes, so any access through `GetOffset` leaves the tile: every target refuses "
        "the type (that kernel's `tquant.mx` is not implemented here either)",
    ),
)
"""Where the hardware code is stricter than PTOAS's verifier (or PTOAS's tile describes storage
that its own addressing leaves)."""

LENIENT = (
    Divergence(
        ("lit/pto/issue708_zero_valid_rowexpand_invalid.pto",),
        ("a5",),
        "a5 `trowexpand` into a dst with no valid columns: PTOAS refuses a one-sided empty (PTOAS issue 708), but "
        "npu/a5/TRowExpand.hpp PTO_ASSERTs only `srcValidRow != 0 && srcValidCol != 0` (a2a3's also dst's) and "
        "writes dst's valid columns, none: accepted, a no-op",
    ),
    Divergence(
        ("lit/pto/tpow_int_with_tmp_invalid.pto", "lit/pto/tpows_int_with_tmp_invalid.pto"),
        ("a2a3",),
        "a2a3 integer `tpow` / `tpows` with a tmp: PTOAS refuses it (its emitter writes a 3-operand TPOW for "
        "integers), but pto_instr.hpp's TPOW and TPOWS always take a tmp, which npu/a2a3/TPow.hpp's TPow / TPows "
        "leave unused for integers: accepted",
    ),
    Divergence(
        ("lit/pto/tpow_a2a3_hp_invalid.pto",),
        ("a2a3",),
        "a2a3 `tpow` with `precisionType = high_precision`: PTOAS refuses it, but pto_instr.hpp's TPOW<PrecisionType> "
        "hands it to npu/a2a3/TPow.hpp's TPOW_IMPL<algo>, which compiles and computes the default path: accepted",
    ),
    Divergence(
        ("lit/pto/trowexpanddiv_high_precision_requires_tmp.pto",),
        ("a5",),
        "a5 `trowexpanddiv` with `precisionType = high_precision` and no tmp: PTOAS asks for a tmp, but "
        "npu/a5/TRowExpandDiv.hpp's 3-operand TROWEXPANDDIV_IMPL<HIGH_PRECISION> divides without one (its "
        "4-operand form ignores the tmp): accepted",
    ),
)
"""Where PTOAS's verifier refuses what the targets' code runs."""

NOT_IMPLEMENTED = (
    Divergence(
        ("lit/pto/texpands_bf16.pto",),
        ("a2a3", "a5"),
        "`texpands` into a Mat tile: a2a3's and a5's TEXPANDS_IMPL fill a Mat tile's whole storage with "
        "`create_cbuf_matrix` (Rows x Cols x bytes / 32 repeats of one block, from 1 to 32767; a conv tile by its "
        "shape), so PTOAS accepts it rightly; this project implements `texpands` into Vec tiles only and refuses a "
        "Mat dst with a located error",
    ),
)
"""Where PTOAS accepts what the hardware code does and this project does not implement."""


def documented(path: str, target: str) -> Divergence | None:
    """The divergence listed for a PTOAS input (its path under test/) on a target, if any."""
    return next((d for d in (*STRICTER, *LENIENT, *NOT_IMPLEMENTED) if path in d.files and target in d.targets), None)


def describe() -> str:
    """The Markdown list for docs/verification.md."""

    def item(d: Divergence) -> str:
        where = ", ".join(f"`test/{f}`" for f in d.files) or "none of PTOAS e32488c9's inputs"
        return f"- {d.why}. PTOAS inputs: {where};"

    return "\n".join([
        "Deliberate divergences from PTOAS's verdict on its own inputs (`test/lit/pto/`, `test/lit/vpto/` and",
        "`test/samples/` kernels that use only the ops implemented here; bench/ptoas_lit.py counts them), where",
        "the hardware code is stricter than PTOAS's verifier:",
        *map(item, STRICTER),
        "",
        "where PTOAS's verifier is stricter than the hardware code:",
        *map(item, LENIENT),
        "",
        "and where PTOAS accepts what the hardware code implements and this project does not:",
        *map(item, NOT_IMPLEMENTED),
    ])
