"""
The instruction registry: one declaration per PTO instruction (pto_dialect/instruction.py
says what each holds), in one module per instruction. Every layer that lists
instructions reads this registry: the pto dialect's ops, the verifier, the implicit-tmp
pass, the lowering, the interpreter, the C++ emitter, the assembly form and the docs.

Adding an instruction: a module here that declares its `Instruction`, listed below, its rule
row in targets/rules/ (a cell per target: instructions.py, or families.py / elementwise.py for a
family's member) and its lowering in each target's lowering.py.
"""

from __future__ import annotations

from xdsl.ir import Dialect, Operation

from pto_dialect.instruction import Instruction
from pto_dialect.choices import ChoiceAttr
from pto_dialect.instructions.elementwise import BINARY, FILL, TILE_SCALAR, UNARY
from pto_dialect.instructions.reduction import COL_REDUCTIONS, ROW_REDUCTIONS
from pto_dialect.instructions.broadcast import COL_BROADCASTS, ROW_BROADCASTS
from pto_dialect.instructions.compare import COMPARE_SELECT
from pto_dialect.instructions.partial import PARTIAL
from pto_dialect.instructions.partial_arg import PARTIAL_ARG
from pto_dialect.instructions.mgather import MGATHER
from pto_dialect.instructions.tci import TCI
from pto_dialect.instructions.tcvt import TCVT
from pto_dialect.instructions.mscatter import MSCATTER
from pto_dialect.instructions.movement import TCONCAT, TMOV, WINDOW_COPIES
from pto_dialect.instructions.fillpad import TFILLPAD
from pto_dialect.instructions.ttrans import TTRANS
from pto_dialect.instructions.thistogram import THISTOGRAM
from pto_dialect.instructions.trandom import TRANDOM
from pto_dialect.instructions.ttri import TTRI
from pto_dialect.instructions.tcolargmax import TCOLARGMAX
from pto_dialect.instructions.tcolargmin import TCOLARGMIN
from pto_dialect.instructions.tgather import TGATHER
from pto_dialect.instructions.tgatherb import TGATHERB
from pto_dialect.instructions.tprint import TPRINT
from pto_dialect.instructions.transfer import TLOAD, TSTORE
from pto_dialect.instructions.tscatter import TSCATTER
from pto_dialect.instructions.trowargmax import TROWARGMAX
from pto_dialect.instructions.trowargmin import TROWARGMIN

REGISTRY: tuple[Instruction, ...] = (
    TLOAD, TSTORE, MGATHER, MSCATTER, TGATHER, TGATHERB, TCOLARGMIN, TCOLARGMAX, TROWARGMIN, TROWARGMAX, TSCATTER, TPRINT,
    *BINARY.instructions, *TILE_SCALAR.instructions, *FILL.instructions,
    *UNARY.instructions,
    TCVT,
    *ROW_REDUCTIONS.instructions,
    *COL_REDUCTIONS.instructions,
    *ROW_BROADCASTS.instructions,
    *COL_BROADCASTS.instructions,
    *COMPARE_SELECT.instructions,
    *PARTIAL.instructions,
    *PARTIAL_ARG.instructions,
    TCI,
    TMOV, *WINDOW_COPIES.instructions, TCONCAT,
    TFILLPAD, TTRANS, THISTOGRAM, TRANDOM, TTRI,
)
"""Every instruction, in the order docs and reports list them."""

FAMILIES = (
    BINARY, TILE_SCALAR, FILL, UNARY, ROW_REDUCTIONS, COL_REDUCTIONS, ROW_BROADCASTS, COL_BROADCASTS, COMPARE_SELECT,
    PARTIAL, PARTIAL_ARG, WINDOW_COPIES,
)
"""The instruction families (pto_dialect/family.py), whose members REGISTRY lists too."""


_BY_OP: dict[type[Operation], Instruction] = {i.op: i for i in REGISTRY}


def instruction_of(op: Operation) -> Instruction | None:
    """The instruction a pto op or a lowered op belongs to (None for other ops)."""
    found = _BY_OP.get(type(op))
    if found is None and (source := getattr(op, "SOURCE", None)) is not None:
        found = _BY_OP.get(source)
    return found


def by_mnemonic(mnemonic: str) -> Instruction | None:
    """`mgather` -> MGATHER."""
    return next((i for i in REGISTRY if i.mnemonic == mnemonic), None)


PTO_CHOICE = Dialect("pto_choice", [], list(ChoiceAttr.KINDS.values()))
"""The choice attributes, shared by every target dialect."""

LOWERING_DIALECTS = (PTO_CHOICE,)
"""The dialects of lowered IR that every target shares."""

__all__ = ["FAMILIES", "LOWERING_DIALECTS", "PTO_CHOICE", "REGISTRY", "by_mnemonic", "instruction_of"]
