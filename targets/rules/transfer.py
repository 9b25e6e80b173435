"""
TLOAD / TSTORE shape rules per target, from pto-isa's TLoad/TStore code, as data,
and the functions that check them (statically in pto-verify-target, on the actual
view and valid shapes in the interpreter).

A GM view's 5-D shape `S0..S4` (a rank-k view right-aligned) gives the tile's
valid shape per GM layout, as every target's code computes it:
  ND: rows = S0*S1*S2*S3, cols = S4;  DN: rows = S3, cols = S0*S1*S2*S4;
  NZ: rows = S2*S3, cols = S0*S1*S4.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from pto_dialect.attributes import GmLayout
from pto_dialect.ops import TLoadOp
from pto_dialect.types import TileTypeBase

from lowering.ops import Choice, PadFill, PadValue
from targets.rules.common import UNKNOWN, RuleViolation, TileFacts, ViewFacts, known, spell

if TYPE_CHECKING:
    from targets.info import TargetInfo


class ShapeMatch(Enum):
    EQUAL = "equal"
    """The view gives exactly the tile's valid shape."""
    COVERS = "covers"
    """The view gives at least the valid shape; the valid region goes to its top-left corner."""


@dataclass(frozen=True)
class TransferRules:
    """One target's TLOAD / TSTORE rules: shapes, and what TLOAD writes beyond the valid region."""

    tload: ShapeMatch
    tstore: ShapeMatch
    pad_fill: PadFill
    """UB (vec) tiles. WHOLE_TILE: every element of the Rows x Cols storage gets the pad
    value (null: 0) before the valid region is copied (pto-isa cpu/TLoad.hpp, "Filling
    padding"). BLOCK_TAIL: only with pad != null, each valid row (row-major ND tile; valid
    column of a col-major DN tile) is completed with the pad value up to its next 32-byte
    boundary, the DMA's right padding (a2a3: ubPad = (Cols - validCol) % (32 / sizeof(T))
    elements after pto_set_tload_pad_val; a5: enableUBPad, copy_gm_to_ubuf_align_v2's data
    select bit); the further 32-byte blocks of a row, the rows past the valid ones and NZ
    tiles are untouched. NOTHING: nothing beyond the valid region is written."""
    pad_fill_mat: PadFill
    """L1 (mat) tiles."""
    zero_pad_types: frozenset[str]
    """Element types whose pad value is 0 whatever `pad` says (pto-isa's PadValueMap)."""
    contiguous_rows: bool
    """The DMA copies each row (DN: column) as one contiguous burst and never reads the
    innermost stride (ND: Stride[4], DN: Stride[3]), so that stride must be 1."""
    note: str


def _product(*dims: int) -> int:
    total = 1
    for d in dims:
        if d == UNKNOWN:
            return UNKNOWN
        total *= d
    return total


def view_valid_shape(view: ViewFacts) -> tuple[int, int]:
    """The (rows, cols) a view transfers to or from a tile, per its GM layout."""
    s0, s1, s2, s3, s4 = view.shape5
    if view.layout == GmLayout.DN:
        return s3, _product(s0, s1, s2, s4)
    if view.layout == GmLayout.NZ:
        return _product(s2, s3), _product(s0, s1, s4)
    return _product(s0, s1, s2, s3), s4


def _check(op: str, match: ShapeMatch, view: ViewFacts, tile: TileFacts, target: TargetInfo) -> None:
    rows, cols = view_valid_shape(view)
    layout = (view.layout or GmLayout.ND).value
    for what, gm, valid in (("rows", rows, tile.valid_row), ("cols", cols, tile.valid_col)):
        if not known(gm, valid):
            continue
        ok = gm == valid if match == ShapeMatch.EQUAL else gm >= valid
        if not ok:
            relation = "equal" if match == ShapeMatch.EQUAL else "cover"
            raise RuleViolation(
                f"{op} expects the {view.role} view ({layout} shape {list(view.shape)}: {rows} rows x "
                f"{cols} cols) to {relation} the {tile.role} valid shape {tile.valid_row}x{tile.valid_col} "
                f"on target {target}"
            )


def _check_contiguous(op: str, view: ViewFacts, target: TargetInfo) -> None:
    if not target.transfer.contiguous_rows or view.strides is None or view.layout == GmLayout.NZ:
        return
    dn = view.layout == GmLayout.DN
    stride = view.row_stride if dn else view.inner_stride
    if known(stride) and stride != 1:
        what = "column (rows dim)" if dn else "row (last dim)"
        raise RuleViolation(
            f"{op} expects a unit stride along each {what} of the {view.role} view: the DMA copies "
            f"contiguous bursts, got stride {stride} on target {target}"
        )


def check_tload(target: TargetInfo, src: ViewFacts, dst: TileFacts) -> None:
    _check("tload", target.transfer.tload, src, dst, target)
    _check_contiguous("tload", src, target)


def check_tstore(target: TargetInfo, src: TileFacts, dst: ViewFacts) -> None:
    _check("tstore", target.transfer.tstore, dst, src, target)
    _check_contiguous("tstore", dst, target)


def describe(t: dict[str, TransferRules]) -> list[tuple[str, dict[str, str]]]:
    shapes = "ND: S0*S1*S2*S3 x S4; DN: S3 x S0*S1*S2*S4; NZ: S2*S3 x S0*S1*S4"
    return [
        ("view shape -> rows x cols", {name: shapes for name in t}),
        ("tload: view vs dst valid shape", {name: r.tload.value for name, r in t.items()}),
        ("tstore: view vs src valid shape", {name: r.tstore.value for name, r in t.items()}),
        ("tload: written beyond the valid region (vec / mat tiles)",
         {name: f"{r.pad_fill.value} / {r.pad_fill_mat.value}" for name, r in t.items()}),
        ("unit innermost stride (ND: last dim, DN: rows dim)", {name: "yes" if r.contiguous_rows else "no (strided reads)" for name, r in t.items()}),
        ("tload: pad value 0 whatever pad says", {name: spell(r.zero_pad_types) or "none" for name, r in t.items()}),
        ("why", {name: r.note for name, r in t.items()}),
    ]


def tload_choices(rules: TransferRules, op: TLoadOp) -> dict[str, Choice]:
    """What a target's TLOAD does beyond the valid region, recorded on the lowered pto.tload."""
    tile = op.dst.type
    assert isinstance(tile, TileTypeBase)
    return {
        "pad_fill": rules.pad_fill if tile.loc.data == "vec" else rules.pad_fill_mat,
        "pad_value": PadValue.ALWAYS_ZERO if tile.element.mlir in rules.zero_pad_types else PadValue.TILE_PAD,
    }
