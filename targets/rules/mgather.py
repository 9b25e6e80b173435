"""
MGATHER's rules per target (spec/mgather.md, reference/semantics.md §1.3-1.6,
reference/syntax.md §5.1), as data, and the one function that checks them.

`check_mgather` is called by the verifier on static types and by the
interpreter on the actual valid shapes; dims UNKNOWN statically are skipped,
as pto-isa's MGatherCheck skips `-1` dims.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pto_dialect.attributes import Coalesce, GatherExec, GmLayout
from targets.rules.common import (
    INT32,
    INTEGERS,
    UNKNOWN,
    RuleViolation,
    TileFacts,
    ViewFacts,
    known,
    require,
    require_type,
    spell,
)

if TYPE_CHECKING:
    from targets.info import TargetInfo

FRACTAL_NZ_ROW = 16
C0_BYTES = 32


@dataclass(frozen=True)
class MGatherRules:
    """One target's MGATHER rules."""

    data_types: frozenset[str]
    """dst / table element types."""
    index_types: frozenset[str]
    table_layouts: tuple[GmLayout, ...]
    """GM table layouts (GM->UB); a2a3 pairs an NZ table with an NZ dst tile."""
    dst_blayouts: tuple[str, ...]
    """dst tile blayouts for an ND table (slayout none_box)."""
    index_blayouts: tuple[str, ...]
    row_index_shapes: tuple[str, ...]
    """Row-mode index valid shapes: "1xR" (a row-major tile) and/or "Rx1" (a col-major tile),
    R = dst valid rows: either way idx_r is storage element r (semantics.md §1.1)."""
    alignment_dim: str
    """"cols": padded Cols*sizeof(T) % 32 == 0; "major": Cols if row-major, Rows if col-major."""
    packed_table_rows: bool
    """Row mode reads the table with row stride = dst valid cols: Shape[4] == dst ValidCol."""
    nonempty_dst: bool
    """dst valid rows and cols must be >= 1."""
    gather_exec: bool
    """`gatherExec` chooses the elem GM->L1 executor."""
    note: str
    """Why this row differs from the others or from PTOAS, for the docs."""




def check_mgather(
    target: TargetInfo,
    coalesce: Coalesce,
    dst: TileFacts,
    table: ViewFacts,
    idx: TileFacts | ViewFacts,
    scratch: ViewFacts | None,
    gather_exec: GatherExec | None,
) -> None:
    """Raise RuleViolation for the first MGATHER rule of `target` that does not hold.

    `gather_exec` is the op's explicit executor choice; the default (scalar) counts as none,
    as the printer leaves it out.
    """
    rules = target.mgather
    require_type("dst", dst.elem, rules.data_types)
    if gather_exec not in (None, GatherExec.SCALAR):
        require(
            rules.gather_exec and dst.loc == "mat" and coalesce == Coalesce.ELEM,
            "expects gatherExec = simt only on elem-mode GM->L1 (loc=mat) mgather, which only "
            f"a5 has; got {coalesce.value} mode with a loc={dst.loc} dst",
        )
    if dst.loc == "mat":
        _check_gm_to_l1(coalesce, dst, table, idx, scratch)
        return
    assert isinstance(idx, TileFacts), "structural verification: GM->UB idx is a tile"
    require(dst.loc == "vec", f"expects dst to be a Vec tile (loc=vec), got loc={dst.loc}")
    require(idx.loc == "vec", f"expects idx to be a Vec tile (loc=vec), got loc={idx.loc}")
    require_type("idx", idx.elem, rules.index_types)
    require(
        idx.blayout in rules.index_blayouts and idx.slayout == "none_box",
        f"expects idx to use blayout {' or '.join(rules.index_blayouts)} with slayout=none_box, "
        f"got {idx.layout_text()}",
    )
    layout = table.layout or GmLayout.ND
    require(
        layout in rules.table_layouts,
        f"expects the table to use layout {' or '.join(l.value for l in rules.table_layouts)}, "
        f"got {layout.value}",
    )
    if layout == GmLayout.NZ:
        _check_nz_table(dst, table)
    else:
        require(
            dst.blayout in rules.dst_blayouts and dst.slayout == "none_box",
            f"expects dst to use blayout {' or '.join(rules.dst_blayouts)} with slayout=none_box "
            f"for an ND table, got {dst.layout_text()}",
        )
    _check_alignment(rules, dst)
    if rules.nonempty_dst:
        for name, dim in (("rows", dst.valid_row), ("cols", dst.valid_col)):
            if known(dim):
                require(dim >= 1, f"expects dst valid {name} to be at least 1, got {dim}")
    if coalesce == Coalesce.ROW:
        _check_row_index(rules, dst, idx)
        if rules.packed_table_rows and known(table.shape5[4], dst.valid_col):
            require(
                table.shape5[4] == dst.valid_col,
                "expects the table's inner dim (Shape[4]) to equal dst valid cols "
                f"(no inter-row padding), got {table.shape5[4]} and {dst.valid_col}",
            )
        if rules.packed_table_rows and len(table.shape) >= 2 and known(table.row_stride, table.shape[-1]):
            require(
                table.row_stride == table.shape[-1],
                "expects the table's rows packed (row stride == its cols, no inter-row padding: the "
                f"kernel reads rows at the valid-column stride), got row stride {table.row_stride} "
                f"for {table.shape[-1]} cols",
            )
    else:
        _check_elem_index(dst, idx)


def _check_alignment(rules: MGatherRules, dst: TileFacts) -> None:
    by_rows = rules.alignment_dim == "major" and dst.blayout == "col_major"
    extent, name = (dst.rows, "Rows") if by_rows else (dst.cols, "Cols")
    require(
        extent * dst.elem.bytes % 32 == 0,
        f"expects dst padded {name} * sizeof(T) to be 32-byte aligned, got "
        f"{extent} * {dst.elem.bytes} = {extent * dst.elem.bytes} bytes",
    )


def _check_row_index(rules: MGatherRules, dst: TileFacts, idx: TileFacts) -> None:
    """[1, R] in a row-major tile or [R, 1] in a col-major one (as each target allows)."""
    r, ir, ic = dst.valid_row, idx.valid_row, idx.valid_col
    forms = {"1xR": ("row_major", ir, ic, f"[1, {_dim(r)}]"), "Rx1": ("col_major", ic, ir, f"[{_dim(r)}, 1]")}
    allowed = [forms[s] for s in rules.row_index_shapes]
    wanted = " or ".join(f"{text} ({blayout})" for blayout, _, _, text in allowed)
    found = f"[{_dim(ir)}, {_dim(ic)}] ({idx.blayout})"
    for blayout, one, length, _ in allowed:
        if idx.blayout == blayout and (not known(one) or one == 1) and (not known(length, r) or length == r):
            return
    raise RuleViolation(f"expects row-coalesce idx valid shape {wanted} (R = dst valid rows), got {found}")


def _dim(d: int) -> str:
    return "?" if d == UNKNOWN else str(d)


def _check_elem_index(dst: TileFacts, idx: TileFacts | ViewFacts) -> None:
    if isinstance(idx, ViewFacts):
        ir, ic = idx.shape5[3], idx.shape5[4]
    else:
        ir, ic = idx.valid_row, idx.valid_col
    for name, i, d in (("rows", ir, dst.valid_row), ("cols", ic, dst.valid_col)):
        if known(i, d):
            require(
                i == d,
                f"expects elem-coalesce idx valid {name} to equal dst valid {name}, got {i} and {d}",
            )


def _check_nz_table(dst: TileFacts, table: ViewFacts) -> None:
    c0 = C0_BYTES // dst.elem.bytes
    require(
        dst.loc == "vec" and dst.is_nz,
        "expects dst to be NZ (blayout=col_major, slayout=row_major, fractal=512) "
        f"for an NZ table, got {dst.layout_text()}",
    )
    s3, s4 = table.shape5[3], table.shape5[4]
    if known(s3):
        require(s3 == FRACTAL_NZ_ROW, f"expects NZ table Shape[3] to be {FRACTAL_NZ_ROW}, got {s3}")
    if known(s4):
        require(s4 == c0, f"expects NZ table Shape[4] to be C0 = 32 / sizeof(T) = {c0}, got {s4}")
    _check_nz_tile(dst, c0)


def _check_nz_tile(dst: TileFacts, c0: int) -> None:
    require(
        dst.cols % c0 == 0,
        f"expects dst padded cols to be a multiple of {c0} (C0 = 32 / sizeof(T)), got {dst.cols}",
    )
    require(
        dst.rows % FRACTAL_NZ_ROW == 0,
        f"expects dst padded rows to be a multiple of {FRACTAL_NZ_ROW} (FRACTAL_NZ_ROW), got {dst.rows}",
    )


def _check_gm_to_l1(
    coalesce: Coalesce,
    dst: TileFacts,
    table: ViewFacts,
    idx: TileFacts | ViewFacts,
    scratch: ViewFacts | None,
) -> None:
    require(
        dst.blayout == "col_major" and dst.slayout == "row_major",
        "expects GM->L1 mgather dst (loc=mat) to use blayout=col_major and slayout=row_major (NZ), "
        f"got {dst.layout_text()}",
    )
    require(dst.fractal == 512, f"expects GM->L1 mgather dst fractal size to be 512, got {dst.fractal}")
    _check_nz_tile(dst, C0_BYTES // dst.elem.bytes)
    assert isinstance(idx, ViewFacts), "structural verification: GM->L1 idx is a view"
    require_type("GM->L1 mgather idx", idx.elem, INT32)
    layout = table.layout or GmLayout.ND
    require(layout == GmLayout.ND, f"expects the GM->L1 table to use layout nd, got {layout.value}")
    if coalesce == Coalesce.ELEM:
        require(scratch is not None, "expects GM->L1 mgather with coalesce=elem to provide a GM scratch operand")
        assert scratch is not None
        need, have = dst.rows * dst.cols, scratch.element_count
        if have != UNKNOWN:
            require(
                have >= need,
                f"expects GM->L1 mgather scratch to hold at least Rows * Cols = {need} elements, got {have}",
            )
        _check_elem_index(dst, idx)
    else:
        require(scratch is None, "expects GM->L1 mgather with coalesce=row to omit the scratch operand")


def describe(t: dict[str, MGatherRules]) -> list[tuple[str, dict[str, str]]]:
    """Rows of the docs table: rule, then what each target requires."""

    def per(f):  # noqa: ANN001
        return {name: f(r) for name, r in t.items()}

    return [
        ("dst / table element type", per(lambda r: spell(r.data_types))),
        ("idx element type", per(lambda r: spell(r.index_types) if r.index_types != INTEGERS else "any integer")),
        ("GM table layout (GM->UB)", per(lambda r: ", ".join(l.value for l in r.table_layouts))),
        ("dst blayout (ND table)", per(lambda r: ", ".join(r.dst_blayouts) + " (slayout none_box)")),
        ("idx blayout", per(lambda r: ", ".join(r.index_blayouts) + " (slayout none_box)")),
        ("row-mode idx valid shape", per(lambda r: ", ".join({"1xR": "[1, R] row-major", "Rx1": "[R, 1] col-major"}[s] for s in r.row_index_shapes))),
        ("32-byte aligned dim", per(lambda r: "padded Cols*sizeof(T)" if r.alignment_dim == "cols" else "Cols*sizeof(T) row-major, Rows*sizeof(T) col-major")),
        ("row mode: table Shape[4] == dst valid cols, rows packed (row stride == cols)", per(lambda r: "yes" if r.packed_table_rows else "no")),
        ("dst valid shape non-empty", per(lambda r: "yes (static dims)" if r.nonempty_dst else "no (empty is a no-op)")),
        ("elem mode: idx valid shape == dst valid shape", per(lambda r: "yes")),
        ("NZ table (a2a3): Shape[3] = 16, Shape[4] = C0, dst NZ, Cols % C0 = 0, Rows % 16 = 0", per(lambda r: "yes" if GmLayout.NZ in r.table_layouts else "n/a")),
        ("GM->L1 (loc=mat): NZ dst, fractal 512, Cols % C0, Rows % 16, GM i32/ui32 idx, ND table, scratch iff elem (>= Rows*Cols)", per(lambda r: "yes")),
        ("gatherExec = simt", per(lambda r: "elem GM->L1 only" if r.gather_exec else "rejected")),
        ("why", per(lambda r: r.note)),
    ]
