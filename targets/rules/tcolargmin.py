"""
TCOLARGMIN's rules per target (spec/tcolargmin.md, reference/semantics.md §3,
reference/syntax.md §5.3), as data, and the function that checks them.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil
from typing import TYPE_CHECKING

from targets.rules.common import (
    TileFacts,
    known,
    require,
    require_type,
    spell,
)

if TYPE_CHECKING:
    from targets.info import TargetInfo

REPEAT_BYTES = 256
BLOCK_BYTES = 32


@dataclass(frozen=True)
class TColArgMinRules:
    """One target's TCOLARGMIN rules."""

    src_types: frozenset[str]
    index_types: frozenset[str]
    """dstIdx element types, index-only form."""
    value_index_types_by_src_bytes: dict[int, frozenset[str]]
    """dstIdx element types with a dstVal, per src element width (absent width: rejected)."""
    value_form_src_blayouts: tuple[str, ...]
    tmp_same_type: bool
    """tmp holds src-typed values and must be large enough (a2a3)."""
    implicit_tmp: str | None
    """What pto-materialize-implicit-tmp adds when tmp is omitted: "like_src" (src's type,
    shape and valid shape: always legal), "smallest" (1 x 32 bytes: the tmp is unused), None."""
    note: str




def min_tmp_cols(src: TileFacts) -> int:
    """a2a3 tmp width (syntax.md §5.3): R = 2048/bits, B = 256/bits, rep = ceil(V/R),
    S = (ceil(2*rep/B) + ceil(rep/B)) * B; f32 V=256 -> 16, f16 V=300 -> 32, f32 V=1024 -> 48."""
    per_repeat = REPEAT_BYTES // src.elem.bytes
    per_block = BLOCK_BYTES // src.elem.bytes
    repeats = ceil(src.valid_col / per_repeat)
    return (ceil(2 * repeats / per_block) + ceil(repeats / per_block)) * per_block


def check_tcolargmin(
    target: TargetInfo,
    src: TileFacts,
    dst_idx: TileFacts,
    dst_val: TileFacts | None,
    tmp: TileFacts | None,
) -> None:
    rules = target.tcolargmin
    require(src.loc == "vec", f"expects src to be a Vec tile (loc=vec), got loc={src.loc}")
    require(src.slayout == "none_box", f"expects src to use the none_box slayout, got {src.slayout}")
    require_type("src", src.elem, rules.src_types)
    outs = [dst_idx] if dst_val is None else [dst_val, dst_idx]
    for t in outs:
        require(t.loc == "vec", f"expects {t.role} to be a Vec tile (loc=vec), got loc={t.loc}")
        require(t.is_nd, f"expects {t.role} to use the row-major ND layout, got {t.layout_text()}")
        if known(t.valid_row):
            require(t.valid_row == 1, f"expects {t.role} valid_shape[0] to be 1, got {t.valid_row}")
        if known(t.valid_col, src.valid_col):
            require(
                t.valid_col == src.valid_col,
                f"expects src and {t.role} to have the same valid_shape[1], got {src.valid_col} and {t.valid_col}",
            )
    if known(src.valid_row):
        require(src.valid_row != 0, "expects src valid_shape[0] to be non-zero")
    if known(src.valid_col):
        require(src.valid_col != 0, "expects src valid_shape[1] to be non-zero")
    if dst_val is None:
        require_type(dst_idx.role, dst_idx.elem, rules.index_types)
    else:
        by_width = rules.value_index_types_by_src_bytes
        allowed = by_width.get(src.elem.bytes)
        require(
            allowed is not None,
            f"expects a {'/'.join(map(str, sorted(by_width)))}-byte src in value+index mode, "
            f"got {src.elem.mlir} ({src.elem.bytes} byte)",
        )
        assert allowed is not None
        require(
            dst_idx.elem.mlir in allowed,
            f"expects dstIdx element type to be {spell(allowed)} for a {src.elem.bytes}-byte src "
            f"in value+index mode, got {dst_idx.elem.mlir}",
        )
        require(
            src.blayout in rules.value_form_src_blayouts,
            f"expects src to use blayout {' or '.join(rules.value_form_src_blayouts)} in value+index mode, got {src.blayout}",
        )
    if tmp is not None:
        _check_tmp(rules, src, tmp)


def _check_tmp(rules: TColArgMinRules, src: TileFacts, tmp: TileFacts) -> None:
    require(tmp.loc == "vec", f"expects tmp to be a Vec tile (loc=vec), got loc={tmp.loc}")
    require(tmp.blayout == "row_major", f"expects tmp to use the row_major blayout, got {tmp.blayout}")
    if not rules.tmp_same_type:
        return
    require(
        tmp.elem.mlir == src.elem.mlir,
        f"expects src and tmp to have the same element type, got {src.elem.mlir} and {tmp.elem.mlir}",
    )
    require(
        tmp.size_bytes >= 32,
        f"expects tmp capacity to be at least 32 bytes, but got {tmp.size_bytes} bytes",
    )
    same_valid = (tmp.valid_row, tmp.valid_col) == (src.valid_row, src.valid_col)
    if same_valid or not known(src.valid_col, tmp.valid_row, tmp.valid_col):
        return
    require(tmp.valid_row >= 1, f"expects A2/A3 tmp valid_shape[0] to be at least 1, got {tmp.valid_row}")
    need = min_tmp_cols(src)
    require(
        tmp.valid_col >= need,
        f"expects A2/A3 tmp valid_shape[1] to be at least {need} for src valid_shape[1] = "
        f"{src.valid_col}, got {tmp.valid_col}",
    )


def describe(t: dict[str, TColArgMinRules]) -> list[tuple[str, dict[str, str]]]:

    def per(f):  # noqa: ANN001
        return {name: f(r) for name, r in t.items()}

    return [
        ("src element type", per(lambda r: spell(r.src_types))),
        ("src layout", per(lambda r: "vec, none_box, row- or col-major")),
        ("dst (index-only) element type", per(lambda r: spell(r.index_types))),
        ("value+index: dstIdx element type per src width", per(lambda r: "; ".join(f"{b} B: {spell(s)}" for b, s in sorted(r.value_index_types_by_src_bytes.items())) + "; 1 B: rejected")),
        ("value+index: src blayout", per(lambda r: ", ".join(r.value_form_src_blayouts))),
        ("outputs: vec ND, valid [1, src valid cols]; src valid dims non-zero", per(lambda r: "yes")),
        ("tmp", per(lambda r: "vec, row_major, src's type, >= 32 B, wide enough unless same valid shape as src" if r.tmp_same_type else "vec, row_major; unused")),
        ("tmp added when omitted (pto-materialize-implicit-tmp)", per(lambda r: {"like_src": "src's type, shape and valid shape", "smallest": "1 x 32 bytes of src's type", None: "none (unused)"}[r.implicit_tmp])),
        ("why", per(lambda r: r.note)),
    ]
