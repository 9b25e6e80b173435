"""
The partial elementwise family: a binary operation whose sources' valid shapes may differ from
dst's (pto-isa docs/isa/TPARTADD.md, TPARTMUL.md, TPARTMAX.md, TPARTMIN.md). Over dst's valid
region: the operation where both sources are valid, the valid one's element where only one is.

      dst[i, j] = f(src0[i, j], src1[i, j])   where (i, j) is valid in both
                = src0[i, j] or src1[i, j]      where it is valid in one

        pto.tpartadd ins(%a, %b : T0, T1) outs(%d : Td)
        %d = pto.tpartadd %a, %b : (T0, T1) -> Td

A member is a row of the elementwise family's type (`Elementwise`, elementwise.py) made from
its binary elementwise operation's row: TPARTADD's formula, choices and price are TADD's. What the targets decide, as their lowered ops record: what they write
outside the sources' overlap (`part_fill`: the CPU simulator writes 0 where neither source is
valid; a2a3 copies the larger source in 32-byte blocks, its padding columns too, and computes
op(smaller, larger) when the smaller one is short of columns; a5 merges under predicates) and
the choices of the member's binary operation (TPARTMAX: TMAX's `unordered`, ...).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from math import ceil
from typing import Any, ClassVar

from xdsl.ir import Attribute

from pto_dialect.choices import Choice, PartFill
from pto_dialect.facts import TileFacts, known, require, require_type, spell
from pto_dialect.family import Family, FamilyLoweredOp, member_instruction, member_lowered_base, member_op
from pto_dialect.instruction import Instruction, per_target
from pto_dialect.instructions.elementwise import BINARY, COST, VECTOR_UNIT_REFERENCES, Elementwise, ElementwiseOp, emitter, in_place
from pto_dialect.ops.common import PtoInstructionOp
from pto_dialect.vector import BLOCK_BYTES
from pto_dialect.machine import RuntimeFault, Tile, np

# ---------------------------------------------------------------------------
# The op


class PartialOp(ElementwiseOp):
    """TPART*: two tile sources, one dst of their element type; valid shapes may differ."""

    INS: ClassVar[tuple[str, ...]] = ("src0", "src1")
    FORMS: ClassVar[tuple[tuple[int, int], ...]] = ((2, 1),)


# ---------------------------------------------------------------------------
# What each target accepts


@dataclass(frozen=True)
class PartialRules:
    """One target's rules for a partial instruction."""

    types: frozenset[str]
    """The element type of every tile; empty: the target's code has no such instruction."""
    row_major_only: bool
    """Every tile row-major: the target's code static_asserts it (or addresses rows by Cols)."""
    one_source_is_dst: bool
    """One source has dst's valid shape and the other's lies within it (the code asserts it);
    else any valid shapes (0 where neither source is valid)."""
    note: str


def check(rules: PartialRules, operands: dict, attrs: Mapping[str, Attribute]) -> None:
    src0, src1, dst = operands["src0"], operands["src1"], operands["dst"]
    require(bool(rules.types), f"is not implemented: {rules.note}")
    for t in (src0, src1, dst):
        require(t.loc == "vec", f"expects {t.role} to be a Vec tile (loc=vec), got loc={t.loc}")
        if rules.row_major_only:
            require(t.is_row_major and t.inner_box is None,
                    f"expects {t.role} to use the row-major ND layout, got {t.layout_text()}")
    require_type("dst", dst.elem, rules.types)
    if rules.one_source_is_dst:
        check_one_source_is_dst(src0, src1, dst)


def _shape(t: TileFacts) -> str:
    return f"{t.valid_row}x{t.valid_col}"


def check_one_source_is_dst(src0: TileFacts, src1: TileFacts, dst: TileFacts) -> None:
    if not known(src0.valid_row, src0.valid_col, src1.valid_row, src1.valid_col, dst.valid_row, dst.valid_col):
        return
    for src in (src0, src1):
        require(
            src.valid_row <= dst.valid_row and src.valid_col <= dst.valid_col,
            f"expects {src.role}'s valid shape within dst's, got {_shape(src)} for dst {_shape(dst)}",
        )
    require(
        dst.valid_shape in (src0.valid_shape, src1.valid_shape),
        f"expects src0 or src1 to have dst's valid shape, got {_shape(src0)} and {_shape(src1)} for dst {_shape(dst)}",
    )


def describe(t: dict[str, PartialRules]) -> list[tuple[str, dict[str, str]]]:
    return per_target(t, [
        ("element type (every tile)", lambda r: spell(r.types) if r.types else "not implemented"),
        ("tiles", lambda r: "vec, row-major ND" if r.row_major_only else "vec, any layout"),
        ("valid shapes", lambda r: "one source's is dst's, the other's within it" if r.one_source_is_dst else "any"),
        ("why", lambda r: r.note),
    ])


# ---------------------------------------------------------------------------
# The kernel


def _assertion(name: str, src0: Tile, src1: Tile, dst: Tile) -> RuntimeFault:
    def shape(t: Tile) -> str:
        return f"{t.valid_row}x{t.valid_col}"

    return RuntimeFault(
        f"{name}'s assertion fails: one of src0 ({shape(src0)}) and src1 ({shape(src1)}) must have dst's valid "
        f"shape ({shape(dst)}) and the other lie within it"
    )


def _one_is_dst(src0: Tile, src1: Tile, dst: Tile) -> bool:
    within = all(s.valid_row <= dst.valid_row and s.valid_col <= dst.valid_col for s in (src0, src1))
    return within and dst.valid_shape in (src0.valid_shape, src1.valid_shape)


def _copy_blocks(dst: Tile, big: Tile, first_row: int, rows: int, cols: int) -> None:
    """a2a3's TPartCopyInstr: rows [first_row, rows) of `big` into dst, 32-byte blocks: one run
    of whole rows when both have as many columns, else each row's `cols` elements rounded up."""
    size = dst.flat.itemsize
    dst_cols, big_cols = dst.type.shape[1], big.type.shape[1]
    if rows <= first_row:
        return
    if dst_cols == big_cols:
        count = ceil(dst_cols * (rows - first_row) * size / BLOCK_BYTES) * BLOCK_BYTES // size
        to = first_row * dst_cols + np.arange(count)
        of = first_row * big_cols + np.arange(count)
    else:
        per_row = ceil(cols * size / BLOCK_BYTES) * BLOCK_BYTES // size
        r = np.arange(first_row, rows)[:, None]
        k = np.arange(per_row)[None, :]
        to, of = (r * dst_cols + k).reshape(-1), (r * big_cols + k).reshape(-1)
    if to.size and (int(to[-1]) >= dst.flat.size or int(of[-1]) >= big.flat.size):
        raise RuntimeFault("the 32-byte block copy of the larger source runs past a tile's storage")
    dst.flat[to] = big.flat[of]


def part_kernel(row: Elementwise) -> Callable[..., None]:
    name = row.mnemonic.upper()

    def kernel(o: dict, *, part_fill: PartFill, **choices: object) -> None:
        src0, src1, dst = o["src0"], o["src1"], o["dst"]
        dvr, dvc = dst.valid_shape
        if dvr == 0 or dvc == 0:
            return

        def f(a: np.ndarray, b: np.ndarray) -> np.ndarray:
            with np.errstate(all="ignore"):  # overflow and NaN are values here
                return np.asarray(row.compute(a, b, **choices)).astype(dst.flat.dtype, copy=False)

        def region(t: Tile, rows: int, cols: int) -> np.ndarray:
            return t.values[:rows, :cols]

        match part_fill:
            case PartFill.REGIONS:
                r = np.arange(dvr)[:, None]
                c = np.arange(dvc)[None, :]
                in0 = (r < src0.valid_row) & (c < src0.valid_col)
                in1 = (r < src1.valid_row) & (c < src1.valid_col)
                a = np.zeros((dvr, dvc), dst.flat.dtype)
                b = np.zeros((dvr, dvc), dst.flat.dtype)
                r0, c0 = min(dvr, src0.valid_row), min(dvc, src0.valid_col)
                r1, c1 = min(dvr, src1.valid_row), min(dvc, src1.valid_col)
                a[:r0, :c0] = region(src0, r0, c0)
                b[:r1, :c1] = region(src1, r1, c1)
                dst.write_valid(np.where(in0 & in1, f(a, b), np.where(in0, a, np.where(in1, b, np.zeros((), a.dtype)))))
            case PartFill.COPY_THEN_OP:
                if not _one_is_dst(src0, src1, dst):
                    raise _assertion(name, src0, src1, dst)
                big, small = (src0, src1) if src0.valid_shape == dst.valid_shape else (src1, src0)
                sr, sc = small.valid_shape
                if sc == dvc and sr < dvr:  # short of rows: the op over its rows, then the rest copied
                    if sr:
                        dst.write(sr, dvc, f(region(big, sr, dvc), region(small, sr, dvc)))
                    _copy_blocks(dst, big, sr, dvr, dvc)
                elif sc < dvc:  # short of columns: big copied, then op(small, dst) over small's region
                    _copy_blocks(dst, big, 0, dvr, dvc)
                    if sc:
                        dst.write(sr, sc, f(region(small, sr, sc), region(dst, sr, sc).copy()))
                else:
                    dst.write_valid(f(region(big, dvr, dvc), region(small, dvr, dvc)))
            case PartFill.MERGE:
                if not _one_is_dst(src0, src1, dst):
                    raise _assertion(name, src0, src1, dst)
                if 0 in src0.valid_shape or 0 in src1.valid_shape:
                    other = src1 if 0 in src0.valid_shape else src0
                    dst.write_valid(region(other, dvr, dvc))
                    return
                big = src1 if src0.valid_row < src1.valid_row or src0.valid_col < src1.valid_col else src0
                sr, sc = min(src0.valid_row, src1.valid_row), min(src0.valid_col, src1.valid_col)
                result = region(big, dvr, dvc).copy()
                result[:sr, :sc] = f(region(src0, sr, sc), region(src1, sr, sc))
                dst.write_valid(result)

    kernel.__doc__ = row.summary
    return kernel


class PartialBase(FamilyLoweredOp):
    """dst over its valid region from the sources' overlap and the larger source."""


# ---------------------------------------------------------------------------
# The family


def declare(row: Elementwise) -> Instruction:
    roles = PartialOp.INS
    op = member_op(PartialOp, row)
    lowered = member_lowered_base(PartialBase, op, row, part_kernel(row), None)
    # in place: dst exactly over a source: that source has dst's valid shape, so it is the larger
    return member_instruction(
        row, lowered, rules=PartialRules, check_rule=check, docs_table=describe, emit=emitter(row, roles), cost=COST,
        in_place=in_place(row, roles, refused_by=None),
    )


OPERATIONS = {"tpartadd": "tadd", "tpartmul": "tmul", "tpartmax": "tmax", "tpartmin": "tmin"}
"""Each member's operation: the binary elementwise member whose row (formula, choices, price) it takes."""
_BINARY: dict[str, Elementwise] = {r.mnemonic: r for r in BINARY.rows}


def _member(mnemonic: str, formula: str) -> Elementwise:
    binary = _BINARY[OPERATIONS[mnemonic]]
    return Elementwise(mnemonic, f"dst = {formula} where both are valid, else the valid one", compute=binary.compute,
                       priced_as=binary.priced_as, choices={"part_fill": PartFill, **binary.choices})


PARTIAL = Family.of(
    "partial elementwise",
    (
        _member("tpartadd", "src0 + src1"),
        _member("tpartmul", "src0 * src1"),
        _member("tpartmax", "max(src0, src1)"),
        _member("tpartmin", "min(src0, src1)"),
    ),
    declare,
)
"""Binary operations over sources of different valid shapes."""

ON_VECTOR_UNIT = {m: VECTOR_UNIT_REFERENCES[b] for m, b in OPERATIONS.items() if b in VECTOR_UNIT_REFERENCES}
"""The members whose values no public code fixes where the vector unit computes them (a target's `approximate`)."""


def filling(fill: PartFill, arithmetic: Callable[[Any, PtoInstructionOp], Mapping[str, Choice]]) -> Callable[..., dict]:
    """A target's `choose` for the family: `fill`, and the choices `arithmetic` (its binary
    elementwise `choose`) makes for the member's operation."""

    def choose(row: Elementwise, op: PtoInstructionOp) -> dict[str, Choice]:
        operation = replace(row, choices={k: v for k, v in row.choices.items() if k != "part_fill"})
        return {"part_fill": fill, **arithmetic(operation, op)}

    return choose
