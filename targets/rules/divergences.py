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
        ("lit/pto/tmp_contract_a5_non_same_shape.pto",),
        ("a5",),
        "a5 index-form `tgather` of 4-byte data with 16-bit indices: npu/a5/TGather.hpp's CheckValid allows b16 "
        "indices, but TGather_b32 loads them 128 to a register and gathers through it as 64 u32 lanes "
        "(`(vector_u32&)index`), so each index it uses is two 16-bit ones side by side: rejected",
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
        ("lit/pto/issue646_pipev_repeat_prune.pto", "lit/pto/issue667_tload_overlap_no_mte2_barrier.pto"),
        ("cpu", "a2a3", "a5"),
        "an instruction writing its output over an input's bytes other than as the in-place table allows (a "
        "widening `tcvt` at its source's address, an output shifted against its input, as these inputs place "
        "tiles by hand): PTOAS accepts it, but whether the targets' code reads each input element before it "
        "overwrites it depends on the direction and repeat order of its loops, which this project does not "
        "model, so it is rejected",
    ),
    Divergence(
        (
            "lit/tile_fusion/fusion_plan_interleaved_join.pto", "lit/tile_fusion/fusion_plan_join.pto",
            "lit/tile_fusion/fusion_region_basic.pto", "lit/tile_fusion/op_scheduling_basic.pto",
            "lit/tile_fusion/op_scheduling_negative_region.pto", "lit/tile_fusion/op_scheduling_negative_ssa.pto",
            "lit/tile_fusion/op_scheduling_treshape.pto",
        ),
        ("a5",),
        "a5 `trowexpandmul` whose src1 is a row-major `32x1xf32` tile argument (PTOAS's tile-fusion inputs): "
        "PTOAS's TRowExpandMulOp::verify lacks the src1 column check its `trowexpandadd` has, but "
        "npu/a5/TRowExpandMul.hpp PTO_ASSERTs that a row-major src1 has 32 / sizeof(T) valid columns (a col-major "
        "one 1), and its vector code reads one 32-byte block per row of src1 (pto_tile.hpp does not even compile a "
        "row-major none_box Tile of 4-byte rows): rejected",
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
        ("lit/pto/issue708_zero_valid_subview.pto", "lit/pto/issue708_zero_valid_subview_inferred.pto"),
        ("a5",),
        "a5 `tstore` of a subview with no valid rows (or columns) into a 5x128 view (PTOAS issue 708 takes it as "
        "a no-op): npu/a5/TStore.hpp's ND store PTO_ASSERTs that the tile's valid rows and columns equal the "
        "view's rows and columns: rejected",
    ),
    Divergence(
        ("lit/pto/tilebuf_valid_positive.pto",),
        ("a2a3",),
        "a `!pto.tile_buf<left, 1x32xf16, slayout=row_major>`: pto_tile.hpp exempts a one-row boxed tile from "
        "its rows-divide-into-boxes static_assert, as PTOAS does, but its 16x16 boxes of 2-byte elements put "
        "element [0, 16] at storage element 256, past the tile's 32, so any access through `GetOffset` leaves the "
        "tile: every target refuses the type",
    ),
    Divergence(
        ("samples/TquantMx/tquant_mx.pto",),
        ("a2a3", "a5"),
        "a `!pto.tile_buf<vec, 16x2xui8, slayout=row_major>` (the TRESHAPE of a 1x32xui8 row-major-box tile): "
        "its 16x32 boxes (`getInnerRow`/`getInnerCol` for 1-byte elements in 512-byte fractals) do not divide its 2 "
        "columns, which pto_tile.hpp's `Cols % InnerCols == 0` static_assert refuses for every tile (rows of boxes "
        "would overlap in storage): every target refuses the type (that kernel's `tquant.mx` is not implemented "
        "here either)",
    ),
    Divergence(
        ("lit/pto/mgather_gm2l1_sync_a5.pto", "lit/pto/mgather_gm2l1_elem_sync_a5.pto"),
        ("a5",),
        "a5 `tmov` from a mat tile into a left tile of blayout=row_major, slayout=row_major (zZ, a2a3's TileLeft): "
        "PTOAS's TMovOp::verify does not check the left tile's layout, but npu/a5/TMov.hpp TMovToLeft "
        "static_asserts an NZ one (blayout=col_major, slayout=row_major; pto_tile.hpp's a5 TileLeft): rejected "
        "(the same kernels with an NZ left tile verify and run)",
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
    Divergence(
        ("lit/vpto/textract_verify_invalid_vec2vec_layout.pto",),
        ("a5",),
        "a5 Vec-to-Vec `textract` of NZ tiles under PTOAS's `--pto-backend=vpto`: that backend's expansion takes "
        "ND tiles only, but npu/a5/TExtract.hpp's TEXTRACT_IMPL copies both ND and both NZ tiles: accepted",
    ),
    Divergence(
        (
            "lit/vpto/normalize_uncovered_tile_sections_reject_residual_nested_mix.pto",
            "lit/vpto/normalize_uncovered_tile_sections_suggest_explicit.pto",
        ),
        ("a5",),
        "a kernel mixing explicit `pto.section.*` regions with tile ops outside them: PTOAS's vpto backend cannot "
        "wrap the uncovered ops into sections of their own and refuses it, a step of its own compilation; this "
        "project runs each op where it stands: accepted",
    ),
    Divergence(
        ("lit/pto/issue708_zero_valid_subview_inferred_invalid.pto",),
        ("a5",),
        "a `subview` whose result has a dynamic valid extent (`v_row=?`) and no `valid` operands: PTOAS refuses it "
        "(no value gives the extent), this project's subview takes the tile's valid region clipped to the window "
        "at run time (pto_dialect/ops/subview.py); no hardware code is involved: accepted",
    ),
    Divergence(
        (
            "lit/pto/alloc_tile_addr_level12_reject.pto", "lit/pto/implicit_tmp_optional_level3_invalid.pto",
            "lit/pto/reserve_buffer_level12_manual_base_reject.pto", "lit/pto/reserve_buffer_level3_auto_reject.pto",
            "lit/pto/subview_unresolved_tile_arg_invalid.pto", "lit/pto/tassign_level3_loop_rebind.pto",
            "lit/pto/tassign_level3_loop_rebind_gss.pto", "lit/pto/tassign_level3_missing_alloc_addr.pto",
            "lit/pto/tci_implicit_tmp_level3_invalid.pto",
        ),
        ("a2a3", "a5"),
        "PTOAS's `--pto-level` rules, modes of its own compilation, not of any hardware code: level 1 and 2 refuse "
        "an `alloc_tile addr`, a `tassign` and a `reserve_buffer` base; level 3 asks every tile for an address, an "
        "explicit tmp where planning would add one, a `reserve_buffer` with a base, cannot lower a `subview` of a "
        "tile argument, and refuses a `tassign` with `--enable-insert-sync`. pto-opt has no levels (pto_tools/pto_opt.py refuses the option): any kernel may place "
        "tiles, `-p pto-plan-memory` places the rest: accepted",
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
    Divergence(
        ("lit/vpto/ub/tile_to_ub/transfer/mte_gm_ub_expand.pto",),
        ("a2a3",),
        "`pto.mte_gm_ub` with a second loop group (`loop1(...)`) on a2a3: PTOAS expands it into its wrapper ops; "
        "this project reads one `loop` group and has the register-level copies on a5 only",
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
