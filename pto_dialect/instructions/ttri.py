"""
TTRI (pto-isa docs/isa/TTRI.md): a triangular mask over dst's valid region, with d = diagonal:

      lower (upperOrLower = 0):  dst[i, j] = 1 if j <= i + d else 0
      upper (upperOrLower = 1):  dst[i, j] = 0 if j <  i + d else 1

PTOAS writes `pto.ttri ins(%d {upperOrLower = 1 : i32} : i32) outs(%dst : T)` (upperOrLower 0 when
omitted) and emits `TTRI<T, upperOrLower>(dst, d)`. Every target's code fills each valid row with
the value past the run, then writes the run (lower: the ones of j <= i + d; upper: the zeros of
j < i + d) from column 0, each row at i * RowStride. Where they differ (the `tri_run` choice): cpu
(cpu/TTRI.hpp loops) and a2a3 (npu/a2a3/TTri.hpp, counter-mode vector_dup of min(run, valid cols))
stop the run at the valid columns; a5 (npu/a5/TTri.hpp) stores it through predicates of its length
over the row's ceil(valid cols / E) registers (E = 256 bytes / element size), so a run longer than
the valid columns goes on past them, into the storage after the row (the next row's run holds the
same value there; past the tile's storage: a run-time fault here). a5's 64-bit types go through
another path (Int64Tri), not taken here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import IntegerAttr, IntegerType, i32
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, opt_prop_def
from xdsl.utils.exceptions import VerifyException

from pto_dialect.choices import Numerics, TriRun
from pto_dialect.cost import CceMachine, InstructionCost, OpCost, SimulatorMachine, VfMachine, Work
from pto_dialect.facts import require, require_type, spell
from pto_dialect.instruction import DocsCells, Emission, Instruction, Pipe, RuleRow
from pto_dialect.lowered import LoweredOp, lowered_base
from pto_dialect.machine import RuntimeFault, np
from pto_dialect.instructions.operands import taking
from pto_dialect.ops.common import InlineAttributesOp
from pto_dialect.vector import REPEAT_BYTES, vector_repeats


def upper_of(properties: Mapping[str, Attribute]) -> bool:
    attr = properties.get("upperOrLower")
    return isinstance(attr, IntegerAttr) and attr.value.data == 1


@irdl_op_definition
class TTriOp(InlineAttributesOp, taking("diagonal")):
    """A lower (upperOrLower 0) or upper (1) triangular mask of ones and zeros in dst's valid region."""

    name = "pto.ttri"
    upper_or_lower = opt_prop_def(IntegerAttr, prop_name="upperOrLower")

    DEFAULTS: ClassVar[dict[str, Attribute]] = {"upperOrLower": IntegerAttr(0, i32)}
    OMITS_DEFAULTS: ClassVar[bool] = True
    HIDDEN_IN_DPS_ATTR_DICT: ClassVar[tuple[str, ...]] = ("upperOrLower",)

    def verify_operands(self) -> None:
        self.expect_tile("dst", self.destinations[0])
        if not isinstance(self.ins[0].type, IntegerType):
            raise VerifyException(f"expects diagonal to be an integer operand, got {self.ins[0].type}")
        if self.upper_or_lower is not None and self.upper_or_lower.value.data not in (0, 1):
            raise VerifyException(f"expects upperOrLower to be 0 (lower) or 1 (upper), got {self.upper_or_lower.value.data}")


# ---------------------------------------------------------------------------
# What each target accepts


@dataclass(frozen=True)
class TTriRules(RuleRow):
    types: frozenset[str]
    """dst's element types."""
    note: str

    def check(self, operands: dict, attrs: Mapping[str, Attribute]) -> None:
        dst = operands["dst"]
        require(dst.loc == "vec", f"expects dst to be a Vec tile (loc=vec), got loc={dst.loc}")
        require_type("dst", dst.elem, self.types)
        require(
            dst.is_nd,
            f"expects dst to be row-major ND (its code writes row i at i * RowStride), got {dst.layout_text()}",
        )

    DOCS: ClassVar[DocsCells] = (
        ("dst", lambda r: f"a row-major ND Vec tile of {spell(r.types)}"),
        ("diagonal", lambda r: "an integer scalar"),
        ("why", lambda r: r.note),
    )


# ---------------------------------------------------------------------------
# The kernel


def tri_kernel(o: dict, *, upperOrLower: IntegerAttr | int, tri_run: TriRun) -> None:  # noqa: N803 (PTOAS's attribute name)
    dst = o["dst"]
    rows, cols = dst.valid_shape
    if rows == 0 or cols == 0:
        return
    upper = (upperOrLower.value.data if isinstance(upperOrLower, IntegerAttr) else upperOrLower) == 1
    run_value, other = (0, 1) if upper else (1, 0)
    run_end = np.arange(rows, dtype=np.int64)[:, None] + int(o["diagonal"]) + (0 if upper else 1)  # the run: j < run_end
    columns = np.arange(cols, dtype=np.int64)[None, :]
    dst.write(rows, cols, np.where(columns < run_end, run_value, other).astype(dst.flat.dtype))
    if tri_run is TriRun.CLIPPED:
        return
    reach = vector_repeats(cols, dst.flat.dtype.itemsize) * (REPEAT_BYTES // dst.flat.dtype.itemsize)
    past = np.arange(cols, reach, dtype=np.int64)[None, :]
    storage = np.arange(rows, dtype=np.int64)[:, None] * dst.type.shape[1] + past
    written = past < run_end
    outside = written & (storage >= dst.flat.shape[-1])
    if outside.any():
        raise RuntimeFault(
            f"the run of row {int(np.nonzero(outside)[0][0])} reaches storage element {int(storage[outside].max())}, "
            f"outside dst's {dst.flat.shape[-1]} (a5 stores it over whole registers past the valid columns)"
        )
    at = storage[written]
    dst.flat[..., at] = run_value


TTriBase = lowered_base(
    TTriOp, tri_kernel, "A triangular mask in dst's valid region; a5's run past the valid columns (tri_run).",
    upperOrLower=IntegerAttr, tri_run=TriRun.Attr,
)


def lowering_choices(run: TriRun) -> dict[str, TriRun | Numerics]:
    """What a target's lowering records (it keeps `upperOrLower`, spelled out when omitted)."""
    return {"tri_run": run, "numerics": Numerics.EXACT}


# ---------------------------------------------------------------------------
# What it costs


def _cce(op: LoweredOp, o: dict, machine: CceMachine, work: Work) -> OpCost:
    """npu/a2a3/TTri.hpp: per valid row a vector_dup of the fill and a barrier, then (where the row
    has a run) a vector_dup of the run and a barrier (counter mode: one repeat each)."""
    dst = o["dst"]
    rows = dst.valid_row
    t = machine.trace()
    for _ in range(2 * rows):  # a row without a run (the diagonal decides) priced as one with
        t.vector("vector_dup")
        t.barrier()
    return t.cost(Pipe.VECTOR, exact=False, idle=machine.idle_vector, elements=rows * dst.valid_col)


def _vf(op: LoweredOp, o: dict, machine: VfMachine, work: Work) -> OpCost:
    """npu/a5/TTri.hpp: one vector function; two vbr, then per register of each valid row a
    predicate and a vsts for the fill and again for the run."""
    dst = o["dst"]
    registers = dst.valid_row * vector_repeats(dst.valid_col, dst.elem.bytes)
    return machine.cost(Pipe.VECTOR, 0, machine.vector_function({"vbr": 2, "plt": 2 * registers, "vsts": 2 * registers}))


def _simulated(op: LoweredOp, o: dict, machine: SimulatorMachine, work: Work) -> OpCost:
    """pto-isa cpu/TTRI.hpp: per valid row a loop over its valid columns (the run, then the rest)."""
    dst = o["dst"]
    return machine.cost(Pipe.VECTOR, 0, dst.valid_row * dst.valid_col)


COST = InstructionCost(on={CceMachine: _cce, VfMachine: _vf, SimulatorMachine: _simulated})


# ---------------------------------------------------------------------------
# C++


def emit(e: Emission, op: TTriOp) -> None:
    """`TTRI<Tile, upperOrLower>(dst, diagonal)`."""
    dst = op.destinations[0]
    e.issue(op, e.call("TTRI", [dst, op.ins[0]], [e.alias(dst.type), "1" if upper_of(op.properties) else "0"]))


TTRI = Instruction(
    rules=TTriRules,
    lowered=(TTriBase,),
    emit=emit,
    cost=COST,
)
