"""
TGATHER's rules per target, for its index, mask and compare forms
(spec/tgather.md, reference/semantics.md §2, reference/syntax.md §5.2), as
data, and the functions that check them (on static types in the verifier, on
actual valid shapes in the interpreter).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pto_dialect.attributes import CmpMode, MaskPattern
from targets.rules.common import (
    INT32,
    RuleViolation,
    TileFacts,
    known,
    require,
    require_type,
    spell,
    types_named,
)

if TYPE_CHECKING:
    from targets.info import TargetInfo

F16_F32 = types_named("f16", "f32")


@dataclass(frozen=True)
class TGatherRules:
    """One target's TGATHER rules."""

    index_data_types: frozenset[str]
    """Index form: src / dst element types."""
    index_types_by_data_bytes: dict[int, frozenset[str]]
    """Index form: indices element types, per data element width."""
    index_needs_tmp: bool
    """Index form: tmp required, of the indices' type, shape = indices valid shape."""
    implicit_index_tmp: bool
    """pto-materialize-implicit-tmp adds the smallest tile when the index form omits tmp."""
    mask_types: frozenset[str]
    """Mask form: src / dst element types (equal sizes)."""
    mask_col_axis_types: frozenset[str]
    """Mask form, col axis: element types (b64 is row-only on a5)."""
    mask_col_axis_dst_full: bool
    """Mask form, col axis: dst valid rows (= the selected src rows) must be dst's Rows."""
    compare: bool
    """The compare form exists on this target."""
    compare_src_types: frozenset[str]
    compare_src_types_eq_only: frozenset[str]
    """Compare-form src types allowed only with cmpMode = eq."""
    threshold_tile_types: frozenset[str]
    """Compare form: element types of a per-row threshold tile."""
    compare_tmp_layout: bool
    """Compare form: tmp holds [bitmap][index table][converted k] and must be that large."""
    note: str


NO_TYPES: frozenset[str] = frozenset()



def check_tgather_index(
    target: TargetInfo, src: TileFacts, indices: TileFacts, dst: TileFacts, tmp: TileFacts | None
) -> None:
    rules = target.tgather
    require_type("src/dst", src.elem, rules.index_data_types)
    allowed = rules.index_types_by_data_bytes[src.elem.bytes]  # every listed data type has a width row
    require(
        indices.elem.mlir in allowed,
        f"expects indices element type to be {spell(allowed)} for {src.elem.bytes}-byte data, "
        f"got {indices.elem.mlir}",
    )
    _require_full_width(dst)
    _require_full_width(indices)
    if rules.index_needs_tmp:
        require(tmp is not None, "index-form tgather expects both indices and tmp")
        assert tmp is not None
        require(
            tmp.elem.mlir == indices.elem.mlir,
            f"expects tmp and indices to have the same element type, got {tmp.elem.mlir} and {indices.elem.mlir}",
        )
        if known(indices.valid_row, indices.valid_col):
            require(
                (tmp.rows, tmp.cols) == (indices.valid_row, indices.valid_col),
                f"expects tmp shape to equal indices valid shape, got [{tmp.rows}, {tmp.cols}] "
                f"and [{indices.valid_row}, {indices.valid_col}]",
            )
        if known(indices.valid_row, indices.valid_col, tmp.valid_row, tmp.valid_col):
            require(
                (tmp.valid_row, tmp.valid_col) == (indices.valid_row, indices.valid_col),
                "expects indices and tmp to have the same valid_shape, got "
                f"[{indices.valid_row}, {indices.valid_col}] and [{tmp.valid_row}, {tmp.valid_col}]",
            )


def check_tgather_mask(
    target: TargetInfo, pattern: MaskPattern, axis: str, src: TileFacts, dst: TileFacts
) -> None:
    rules = target.tgather
    for t in (src, dst):
        require(t.loc == "vec", f"expects {t.role} to be a Vec tile (loc=vec), got loc={t.loc}")
        require(t.blayout == "row_major", f"expects {t.role} to use the row_major blayout, got {t.blayout}")
    allowed = rules.mask_types if axis == "row" else rules.mask_col_axis_types
    require_type(f"mask-pattern ({axis} axis) src", src.elem, allowed)
    require_type(f"mask-pattern ({axis} axis) dst", dst.elem, allowed)
    _require_full_width(dst)
    t = pattern.period
    if axis == "row":
        pairs = (("rows", src.valid_row, dst.valid_row, 1), ("cols", src.valid_col, dst.valid_col, t))
    else:
        pairs = (("cols", src.valid_col, dst.valid_col, 1), ("rows", src.valid_row, dst.valid_row, t))
    if axis == "col" and rules.mask_col_axis_dst_full and known(dst.valid_row):
        require(
            dst.valid_row == dst.rows,
            f"expects dst valid_shape[0] (the selected src rows) to equal dst rows for col direction, "
            f"got {dst.valid_row} and {dst.rows}",
        )
    for name, s, d, factor in pairs:
        if known(s, d):
            if factor == 1:
                require(
                    s == d,
                    f"expects dst valid {name} to equal src valid {name} for {axis} direction, "
                    f"got {d} and {s}",
                )
            else:
                require(
                    s == d * factor,
                    f"expects src valid {name} to equal dst valid {name} times the mask expansion "
                    f"factor {factor} for {axis} direction, got {s} and {d}",
                )


def check_tgather_compare(
    target: TargetInfo,
    cmp_mode: CmpMode,
    src: TileFacts,
    threshold: TileFacts | str,
    dst: TileFacts,
    cdst: TileFacts,
    tmp: TileFacts,
) -> None:
    """`threshold` is a per-row tile, or the PTO spelling of a scalar's type."""
    rules = target.tgather
    require(rules.compare, f"compare-form tgather is not supported on target {target}")
    require(cmp_mode in (CmpMode.EQ, CmpMode.GT), f"expects compare-form tgather cmpMode to be eq or gt, got {cmp_mode.value}")
    for t in (src, dst, cdst, tmp):
        require(t.loc == "vec", f"expects {t.role} to be a Vec tile (loc=vec), got loc={t.loc}")
        require(t.blayout == "row_major", f"expects {t.role} to use the row_major blayout, got {t.blayout}")
    allowed = rules.compare_src_types | (rules.compare_src_types_eq_only if cmp_mode == CmpMode.EQ else frozenset())
    if src.elem.mlir in rules.compare_src_types_eq_only and cmp_mode != CmpMode.EQ:
        raise RuleViolation(
            f"expects cmpMode = eq for a compare-form tgather src of type {src.elem.mlir}, "
            f"got {cmp_mode.value}"
        )
    require_type("compare-form src", src.elem, allowed)
    require_type("dst", dst.elem, INT32)
    if isinstance(threshold, TileFacts):
        require_type("threshold tile", threshold.elem, rules.threshold_tile_types)
        _check_threshold_shape(threshold, src)
    if rules.compare_tmp_layout:
        need = tmp.rows * tmp.cols + src.rows * src.cols * dst.elem.bytes + src.rows * src.elem.bytes
        require(
            tmp.size_bytes >= need,
            "expects tmp to hold the compare bitmap, index table and converted thresholds: "
            f"at least {tmp.rows}*{tmp.cols} + {src.rows}*{src.cols}*{dst.elem.bytes} + "
            f"{src.rows}*{src.elem.bytes} = {need} bytes, got {tmp.size_bytes} bytes",
        )


def _check_threshold_shape(k: TileFacts, src: TileFacts) -> None:
    """One threshold per src row: [R, 1] col-major or [1, R] row-major, R = src valid rows."""
    if k.blayout == "col_major":
        length, other, shape = k.valid_row, k.valid_col, "[R, 1]"
    else:
        length, other, shape = k.valid_col, k.valid_row, "[1, R]"
    if known(other):
        require(other == 1, f"expects a {k.blayout} threshold tile to be {shape}, got valid [{k.valid_row}, {k.valid_col}]")
    if known(length, src.valid_row):
        require(
            length == src.valid_row,
            f"expects one threshold per src valid row ({src.valid_row}), got {length}",
        )


def _require_full_width(t: TileFacts) -> None:
    """Contiguous storage: valid cols equal padded cols."""
    if known(t.valid_col):
        require(
            t.valid_col == t.cols,
            f"expects {t.role} valid_shape[1] to equal {t.role} cols, got {t.valid_col} and {t.cols}",
        )


def describe(t: dict[str, TGatherRules]) -> list[tuple[str, dict[str, str]]]:

    def per(f):  # noqa: ANN001
        return {name: f(r) for name, r in t.items()}

    return [
        ("index: src/dst element type", per(lambda r: spell(r.index_data_types))),
        ("index: indices element type per data width", per(lambda r: "; ".join(f"{b} B: {spell(s)}" for b, s in sorted(r.index_types_by_data_bytes.items())))),
        ("index: dst and indices valid cols == cols", per(lambda r: "yes")),
        ("index: tmp (indices' type, shape = indices valid shape)", per(lambda r: "required" if r.index_needs_tmp else "optional, unused")),
        ("index: tmp added when omitted (pto-materialize-implicit-tmp)", per(lambda r: "1 x 32 bytes of the indices' type" if r.implicit_index_tmp else "none")),
        ("mask: src/dst element type (row axis)", per(lambda r: spell(r.mask_types))),
        ("mask: src/dst element type (col axis)", per(lambda r: spell(r.mask_col_axis_types))),
        ("mask: vec, row-major ND, dst valid cols == cols, valid shapes match the pattern factor", per(lambda r: "yes")),
        ("mask, col axis: dst valid rows == dst rows", per(lambda r: "required" if r.mask_col_axis_dst_full else "no")),
        ("compare form", per(lambda r: "supported" if r.compare else "rejected (no implementation)")),
        ("compare: cmpMode", per(lambda r: "eq, gt" if r.compare else "-")),
        ("compare: src element type", per(lambda r: (spell(r.compare_src_types) + (f"; {spell(r.compare_src_types_eq_only)} with eq" if r.compare_src_types_eq_only else "")) if r.compare else "-")),
        ("compare: dst/cdst element type", per(lambda r: spell(INT32) if r.compare else "-")),
        ("compare: threshold tile element type", per(lambda r: spell(r.threshold_tile_types) if r.compare else "-")),
        ("compare: tmp size (bitmap + index table + converted k)", per(lambda r: "checked" if r.compare_tmp_layout else "-")),
        ("why", per(lambda r: r.note)),
    ]
