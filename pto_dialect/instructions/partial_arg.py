"""
The partial arg-select family: TPARTARGMAX and TPARTARGMIN (pto-isa docs/isa/TPARTARGMAX.md,
TPARTARGMIN.md) pick, element by element, the larger (smaller) of two value tiles and carry the
picked one's index along; the sources' valid shapes may differ from dst's, as in the partial
family (partial.py), whose fill rules they follow.

      dst[i, j], dstIdx[i, j] = (src0, src0Idx)[i, j] if src0 wins at (i, j) else (src1, src1Idx)[i, j]

        pto.tpartargmax ins(%v0, %v1, %i0, %i1 : Tv, Tv, Ti, Ti) outs(%v, %i : Tv, Ti)

What the targets decide, as their lowered ops record: who wins a tie or a NaN (`arg_pick`: the
CPU simulator takes src0 only where it is strictly better, a2a3 where it is not worse (vcmp_ge /
vcmp_le), a5 unless src1 is strictly better), what they write outside the overlap (`part_fill`)
and, on a2a3 with half values and 32-bit indices, the lanes its mask leaves out (`arg_lanes`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar

from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

from pto_dialect.choices import ArgLanes, ArgPick, PartFill
from pto_dialect.cost import CceMachine, InstructionCost, OpCost, SimulatorMachine, VfMachine, Work, simulator_loop
from pto_dialect.facts import TileFacts, known, require, require_type, spell
from pto_dialect.family import Family, FamilyLoweredOp, Member, member_instruction, member_lowered_base, member_op, member_row
from pto_dialect.instruction import Emission, Instruction, Pipe, per_target
from pto_dialect.instructions.partial import _copy_blocks, check_one_source_is_dst
from pto_dialect.machine import RuntimeFault, Tile, np
from pto_dialect.instructions.operands import taking
from pto_dialect.vector import REPEAT_BYTES, vector_repeats

VALUES = ("src0", "src1", "dst")
INDICES = ("src0Idx", "src1Idx", "dstIdx")

# ---------------------------------------------------------------------------
# The op


class PartialArgOp(taking("src0", "src1", "src0Idx", "src1Idx", outs=("dst", "dstIdx"))):
    """Two value tiles and their index tiles in; the picked values and indices out."""

    BUILDER_NAMES: ClassVar[dict[str, str]] = {"src0Idx": "src0_idx", "src1Idx": "src1_idx", "dstIdx": "dst_idx"}

    def verify_operands(self) -> None:
        roles = self.by_role()
        types = {r: (self.expect_tile_in(r, v) if r not in ("dst", "dstIdx") else self.expect_tile(r, v)).element_type
                 for r, v in roles.items()}
        for group in (VALUES, INDICES):
            for role in group[1:]:
                if types[role] != types[group[0]]:
                    raise VerifyException(
                        f"expects {group[0]} and {role} to have the same element type, got {types[group[0]]} and {types[role]}"
                    )


# ---------------------------------------------------------------------------
# What each target accepts


@dataclass(frozen=True)
class PartialArgRules:
    """One target's rules for TPARTARGMAX / TPARTARGMIN."""

    index_types_by_value: Mapping[str, frozenset[str]]
    """Per value element type, the index element types; empty: not implemented."""
    row_major_only: bool
    one_source_is_dst: bool
    """As the partial family's: one source's valid shape is dst's, the other's within it."""
    note: str


def check(rules: PartialArgRules, operands: dict, attrs: Mapping[str, Attribute]) -> None:
    require(bool(rules.index_types_by_value), f"is not implemented: {rules.note}")
    tiles = [operands[r] for r in (*VALUES, *INDICES)]
    for t in tiles:
        require(t.loc == "vec", f"expects {t.role} to be a Vec tile (loc=vec), got loc={t.loc}")
        if rules.row_major_only:
            require(t.is_row_major and t.inner_box is None, f"expects {t.role} to use the row-major ND layout, got {t.layout_text()}")
    dst, dst_idx = operands["dst"], operands["dstIdx"]
    require_type("dst", dst.elem, frozenset(rules.index_types_by_value))
    allowed = rules.index_types_by_value[dst.elem.mlir]
    require(
        dst_idx.elem.mlir in allowed,
        f"expects dstIdx element type to be {spell(allowed)} with {dst.elem.mlir} values, got {dst_idx.elem.mlir}",
    )
    for value, index in zip(VALUES, INDICES):
        _same_tile(operands[value], operands[index])
    if rules.one_source_is_dst:
        check_one_source_is_dst(operands["src0"], operands["src1"], dst)


def _same_tile(value: TileFacts, index: TileFacts) -> None:
    """An index tile is addressed as its value tile (the simulator takes the value tile's offsets)."""
    require(value.shape == index.shape, f"expects {value.role} and {index.role} to have the same shape, got "
            f"{value.rows}x{value.cols} and {index.rows}x{index.cols}")
    if known(value.valid_row, value.valid_col, index.valid_row, index.valid_col):
        require(value.valid_shape == index.valid_shape, f"expects {value.role} and {index.role} to have the same valid "
                f"shape, got {value.valid_row}x{value.valid_col} and {index.valid_row}x{index.valid_col}")


def describe(t: dict[str, PartialArgRules]) -> list[tuple[str, dict[str, str]]]:
    return per_target(t, [
        ("value type: index types", lambda r: "; ".join(f"{v}: {spell(i)}" for v, i in sorted(r.index_types_by_value.items()))
         or "not implemented"),
        ("tiles", lambda r: "vec, row-major ND" if r.row_major_only else "vec, any layout"),
        ("shapes", lambda r: "each index tile shaped as its value tile"),
        ("valid shapes", lambda r: "one source's is dst's, the other's within it" if r.one_source_is_dst else "any"),
        ("why", lambda r: r.note),
    ])


# ---------------------------------------------------------------------------
# The kernel


def src0_wins(v0: np.ndarray, v1: np.ndarray, maximum: bool, pick: ArgPick) -> np.ndarray:
    """Where src0's value is picked over src1's."""
    with np.errstate(invalid="ignore"):
        match pick:
            case ArgPick.SRC0_IF_BETTER:
                return v0 > v1 if maximum else v0 < v1
            case ArgPick.SRC0_IF_NOT_WORSE:
                return v0 >= v1 if maximum else v0 <= v1
            case ArgPick.SRC0_UNLESS_SRC1_BETTER:
                return ~(v1 > v0) if maximum else ~(v1 < v0)


def _active_lanes(rows: int, cols: int, lanes: ArgLanes, values: Tile, indices: Tile) -> tuple[np.ndarray, np.ndarray]:
    """(value lanes, index lanes) the target computes in rows x cols."""
    every = np.ones((rows, cols), bool)
    if lanes == ArgLanes.ALL or values.flat.itemsize == indices.flat.itemsize:
        return every, every
    per_repeat = REPEAT_BYTES // values.flat.itemsize
    j = np.broadcast_to(np.arange(cols)[None, :], (rows, cols))
    low_half = j % per_repeat < per_repeat // 2
    tail = j >= cols // per_repeat * per_repeat
    return low_half | tail, low_half


def part_arg_kernel(maximum: bool) -> Callable[..., None]:
    def kernel(o: dict, *, arg_pick: ArgPick, part_fill: PartFill, arg_lanes: ArgLanes) -> None:
        v0, v1, dv = o["src0"], o["src1"], o["dst"]
        i0, i1, di = o["src0Idx"], o["src1Idx"], o["dstIdx"]
        dvr, dvc = dv.valid_shape

        def picked(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
            a, b = v0.values[:rows, :cols], v1.values[:rows, :cols]
            wins = src0_wins(a, b, maximum, arg_pick)
            return np.where(wins, a, b), np.where(wins, i0.values[:rows, :cols], i1.values[:rows, :cols])

        match part_fill:
            case PartFill.REGIONS:
                r, c = np.arange(dvr)[:, None], np.arange(dvc)[None, :]
                in0 = (r < v0.valid_row) & (c < v0.valid_col)
                in1 = (r < v1.valid_row) & (c < v1.valid_col)
                val = np.zeros((dvr, dvc), dv.flat.dtype)
                idx = np.zeros((dvr, dvc), di.flat.dtype)
                both = in0 & in1
                for source, index, inside in ((v0, i0, in0 & ~in1), (v1, i1, in1 & ~in0)):
                    rows, cols = min(dvr, source.valid_row), min(dvc, source.valid_col)
                    val[:rows, :cols] = np.where(inside[:rows, :cols], source.values[:rows, :cols], val[:rows, :cols])
                    idx[:rows, :cols] = np.where(inside[:rows, :cols], index.values[:rows, :cols], idx[:rows, :cols])
                rows, cols = min(dvr, v0.valid_row, v1.valid_row), min(dvc, v0.valid_col, v1.valid_col)
                pv, pi = picked(rows, cols)
                val[:rows, :cols] = np.where(both[:rows, :cols], pv, val[:rows, :cols])
                idx[:rows, :cols] = np.where(both[:rows, :cols], pi, idx[:rows, :cols])
                dv.write_valid(val)
                di.write_valid(idx)
                return
            case PartFill.COPY_THEN_OP | PartFill.MERGE:
                if not _one_is_dst(v0, v1, dv):
                    raise RuntimeFault(
                        f"the target's assertion fails: one of src0 ({v0.valid_row}x{v0.valid_col}) and src1 "
                        f"({v1.valid_row}x{v1.valid_col}) must have dst's valid shape ({dvr}x{dvc}) and the other lie within it"
                    )
        big, big_idx = (v1, i1) if v0.valid_row < v1.valid_row or v0.valid_col < v1.valid_col else (v0, i0)
        rows, cols = min(v0.valid_row, v1.valid_row), min(v0.valid_col, v1.valid_col)
        if part_fill == PartFill.COPY_THEN_OP and big.valid_shape != (rows, cols):
            short_of_rows = v0.valid_col == v1.valid_col
            first = rows if short_of_rows else 0
            _copy_blocks(dv, big, first, dvr, dvc)
            _copy_blocks(di, big_idx, first, dvr, dvc)
        elif part_fill == PartFill.MERGE:
            dv.write_valid(big.values[:dvr, :dvc])
            di.write_valid(big_idx.values[:dvr, :dvc])
        if rows == 0 or cols == 0:
            return
        pv, pi = picked(rows, cols)
        value_lanes, index_lanes = _active_lanes(rows, cols, arg_lanes, dv, di)
        dv.write(rows, cols, np.where(value_lanes, pv, dv.values[:rows, :cols]))
        di.write(rows, cols, np.where(index_lanes, pi, di.values[:rows, :cols]))

    kernel.__doc__ = f"dst, dstIdx = the {'larger' if maximum else 'smaller'} of src0 and src1, with its index"
    return kernel


def _one_is_dst(src0: Tile, src1: Tile, dst: Tile) -> bool:
    within = all(s.valid_row <= dst.valid_row and s.valid_col <= dst.valid_col for s in (src0, src1))
    return within and dst.valid_shape in (src0.valid_shape, src1.valid_shape)


class PartialArgBase(FamilyLoweredOp):
    """dst, dstIdx from the overlap's winners and the larger source."""


# ---------------------------------------------------------------------------
# What it costs


def _cce(op: FamilyLoweredOp, o: dict, machine: CceMachine, work: Work) -> OpCost:
    """npu/a2a3/TPartArgOp.hpp TPartArgOps: per repeat of each row of the overlap a compare,
    a barrier, two vsel and a barrier (the copies outside the overlap are not priced)."""
    src0, src1 = o["src0"], o["src1"]
    rows, cols = min(src0.valid_row, src1.valid_row), min(src0.valid_col, src1.valid_col)
    row = member_row(op, PartialArg)
    compare = "vcmp_ge" if row.maximum else "vcmp_le"
    t = machine.trace()
    t.call(2)

    def one() -> None:
        t.vector(compare, repeat=1)
        t.barrier()
        t.vector("vsel", repeat=1)
        t.vector("vsel", repeat=1)
        t.barrier()

    t.loop(rows * vector_repeats(cols, src0.elem.bytes), one)
    t.call(1)
    return t.cost(Pipe.VECTOR, exact=False, idle=machine.idle_vector, elements=rows * cols)


def _vf(op: FamilyLoweredOp, o: dict, machine: VfMachine, work: Work) -> OpCost:
    """npu/a5/TPartArgBinOps.hpp: per register of dst's valid rows the loads, a compare, the
    selects and the stores of values and indices."""
    dst = o["dst"]
    registers = dst.valid_row * vector_repeats(dst.valid_col, dst.elem.bytes)
    body = {"plt": 2 * registers, "vlds": 6 * registers, "vcmp": registers, "vsel": 2 * registers, "vsts": 2 * registers}
    return machine.cost(Pipe.VECTOR, 0, machine.vector_function(body))


COST = InstructionCost(on={CceMachine: _cce, VfMachine: _vf, SimulatorMachine: simulator_loop("dst", "cpu/TPartOp.hpp TPartInstr2: a loop over dst's valid elements.")})


# ---------------------------------------------------------------------------
# The family


@dataclass(frozen=True)
class PartialArg(Member):
    maximum: bool = True
    """TPARTARGMAX (True) or TPARTARGMIN."""


def emitter(row: PartialArg) -> Callable[[Emission, PartialArgOp], None]:
    def emit(e: Emission, op: PartialArgOp) -> None:
        """`TPARTARGMAX(dst, src0, src1, dstIdx, src0Idx, src1Idx)`: pto-isa's argument order."""
        r = op.by_role()
        e.issue(op, e.call(row.cpp_name, [r["dst"], r["src0"], r["src1"], r["dstIdx"], r["src0Idx"], r["src1Idx"]]))

    return emit


def declare(row: PartialArg) -> Instruction:
    op = member_op(PartialArgOp, row)
    lowered = member_lowered_base(PartialArgBase, op, row, part_arg_kernel(row.maximum), None)
    return member_instruction(row, lowered, rules=PartialArgRules, check_rule=check, docs_table=describe, emit=emitter(row), cost=COST)


CHOICES = {"arg_pick": ArgPick, "part_fill": PartFill, "arg_lanes": ArgLanes}

PARTIAL_ARG = Family.of(
    "partial arg-select",
    (
        PartialArg("tpartargmax", "dst, dstIdx = the larger of src0 and src1 with its index, where both are valid",
                   choices=CHOICES, maximum=True),
        PartialArg("tpartargmin", "dst, dstIdx = the smaller of src0 and src1 with its index, where both are valid",
                   choices=CHOICES, maximum=False),
    ),
    declare,
)
"""Value-and-index picks over sources of different valid shapes."""
