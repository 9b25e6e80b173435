"""
TCI: a one-row tile of consecutive integers (pto-isa docs/isa/TCI.md): over dst's valid columns

      dst[0, j] = S + j        (descending: S - j)

in dst's element type, wrapping. PTOAS writes

    pto.tci ins(%s : i32) outs(%dst : T) {descending = true}
    pto.tci ins(%s, %tmp : i32, Ttmp) outs(%dst : T)

and emits `TCI<T, int32_t, descending>(dst, s[, tmp])`. Every target's code static_asserts a
one-row dst whose element type is S's. cpu (cpu/TCI.hpp) and the NPUs without tmp (a2a3 TCI.hpp's
scalar loop, a5 Tci.hpp) compute `start +- i` in C++ integers; a2a3's tmp form builds the
sequence with vector instructions through a float tmp (npu/a2a3/TCI.hpp TCI_b32_repeat, ...),
whose values public code does not fix for every start: approximate there. cpu has no tmp form
(pto_instr.hpp declares it; cpu/TCI.hpp does not define it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import BoolAttr, IntegerAttr, IntegerType
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, opt_prop_def
from xdsl.utils.exceptions import VerifyException

from pto_dialect.cost import CceMachine, InstructionCost, OpCost, SimulatorMachine, VfMachine, Work
from pto_dialect.facts import TileFacts, require, require_type, spell
from pto_dialect.instruction import DocsCells, Emission, Instruction, Pipe, RuleRow, tmp_untouched_unless_row_uses_it
from pto_dialect.lowered import LoweredOp, lowered_base
from pto_dialect.machine import np
from pto_dialect.instructions.operands import taking


@irdl_op_definition
class TCIOp(taking("start", optional="tmp")):
    """dst[0, j] = S + j (descending: S - j) over dst's valid columns, in dst's element type."""

    name = "pto.tci"
    descending = opt_prop_def(IntegerAttr)

    WORKSPACE: ClassVar[frozenset[str]] = frozenset({"tmp"})
    DEFAULTS: ClassVar[dict[str, Attribute]] = {"descending": BoolAttr(False, IntegerType(1))}
    OMITS_DEFAULTS: ClassVar[bool] = True

    def verify_operands(self) -> None:
        dst = self.expect_tile("dst", self.destinations[0])
        start = self.ins[0].type
        if not isinstance(start, IntegerType):
            raise VerifyException(f"expects S to be an integer, got {start}")
        if start != dst.element_type:
            raise VerifyException(
                f"expects S and dst element type to be exactly the same type, got {start} and {dst.element_type}"
            )
        if len(self.ins) == 2:
            self.expect_tile_in("tmp", self.ins[1])

    @property
    def is_descending(self) -> bool:
        attr = self.descending or self.DEFAULTS["descending"]
        return bool(attr.value.data)  # pyright: ignore[reportAttributeAccessIssue]


# ---------------------------------------------------------------------------
# What each target accepts


@dataclass(frozen=True)
class TCIRules(RuleRow):
    types: frozenset[str]
    """dst's (and S's) element types."""
    tmp_types: frozenset[str] | None
    """A tmp's element types; None: the target has no tmp form."""
    tmp_bytes: Mapping[int, int]
    """The least tmp bytes by dst element bytes (empty: any)."""
    tmp_used: bool
    """Its code reads or writes a tmp (a2a3); else it ignores one (npu/a5/Tci.hpp), which takes no
    UB at the op (`untouched`)."""
    note: str

    def check(self, operands: dict, attrs: Mapping[str, Attribute]) -> None:
        dst, tmp = operands["dst"], operands.get("tmp")
        require(dst.loc == "vec", f"expects dst to be a Vec tile (loc=vec), got loc={dst.loc}")
        require_type("dst", dst.elem, self.types)
        require(dst.rows == 1, f"expects dst to have one row, got {dst.rows} (every target's code static_asserts it)")
        require(dst.cols != 1, "expects dst cols to be different from 1")
        if isinstance(tmp, TileFacts):
            require(self.tmp_types is not None, f"takes no tmp: {self.note}")
            assert self.tmp_types is not None
            require(tmp.loc == "vec", f"expects tmp to be a Vec tile (loc=vec), got loc={tmp.loc}")
            require_type("tmp", tmp.elem, self.tmp_types)
            require(tmp.is_row_major, f"expects tmp to use the row-major layout, got {tmp.layout_text()}")
            least = self.tmp_bytes.get(dst.elem.bytes, 0)
            size = tmp.rows * tmp.cols * tmp.elem.bytes
            require(size >= least, f"expects tmp capacity to be at least {least} bytes for a {8 * dst.elem.bytes}-bit dst, got {size}")

    DOCS: ClassVar[DocsCells] = (
        ("dst (and S) element type", lambda r: spell(r.types)),
        ("dst", lambda r: "a Vec tile of one row, more than one column"),
        ("tmp", lambda r: "none" if r.tmp_types is None else f"{spell(r.tmp_types)}, row-major"
         + "".join(f"; at least {b} bytes for {8 * k}-bit dst" for k, b in sorted(r.tmp_bytes.items()))
         + ("" if r.tmp_used else "; unused")),
        ("why", lambda r: r.note),
    )


# ---------------------------------------------------------------------------
# The kernel


def tci_kernel(o: dict, *, descending: IntegerAttr | int | bool) -> None:
    dst, start = o["dst"], int(o["start"])
    step = -1 if descending else 1
    values = start + step * np.arange(dst.valid_col, dtype=np.int64)
    dst.write(1, dst.valid_col, values.astype(dst.flat.dtype))  # wraps to dst's bits, as C++'s conversion


TCIBase = lowered_base(TCIOp, tci_kernel, "dst[0, j] = S +- j over dst's valid columns.", descending=IntegerAttr)


# ---------------------------------------------------------------------------
# What it costs


def _cce(op: LoweredOp, o: dict, machine: CceMachine, work: Work) -> OpCost:
    """npu/a2a3/TCI.hpp TCI: a scalar loop, one scalar step per valid column (the tmp form's
    vector sequence is priced as that loop too: not modelled)."""
    t = machine.trace()
    t.call(o["dst"].valid_col)
    return t.cost(Pipe.SCALAR, exact=False)


def _vf(op: LoweredOp, o: dict, machine: VfMachine, work: Work) -> OpCost:
    """npu/a5/Tci.hpp: one step per valid column (not modelled closer)."""
    return machine.cost(Pipe.SCALAR, 0, o["dst"].valid_col)


def _simulated(op: LoweredOp, o: dict, machine: SimulatorMachine, work: Work) -> OpCost:
    """pto-isa cpu/TCI.hpp: a loop over dst's valid columns."""
    return machine.cost(Pipe.SCALAR, 0, o["dst"].valid_col)


COST = InstructionCost(on={CceMachine: _cce, VfMachine: _vf, SimulatorMachine: _simulated})


# ---------------------------------------------------------------------------
# C++


def emit(e: Emission, op: TCIOp) -> None:
    """`TCI<Tile, T, descending>(dst, S[, tmp])`."""
    dst = op.outs[0]
    template = [e.alias(dst.type), e.scalar(op.ins[0].type), "1" if op.is_descending else "0"]
    if len(op.ins) == 2:
        template.insert(1, e.alias(op.ins[1].type))
    e.issue(op, e.call("TCI", [dst, *op.ins], template))


TCI = Instruction(
    rules=TCIRules,
    lowered=(TCIBase,),
    emit=emit,
    pipe=Pipe.SCALAR,
    untouched=tmp_untouched_unless_row_uses_it,
    cost=COST,
)
