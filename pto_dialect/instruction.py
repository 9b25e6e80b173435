"""
The entry type of the instruction registry (pto_dialect/instructions/): everything each
layer needs of one PTO instruction, declared once in the instruction's module.

    rules        the type of the per-target rule row; each target's folder gives one row
    check        the verifier rule (the rule row's `check` method unless `check_rule` is
                 given): raises RuleViolation (pto_dialect/facts.py) for a row, the
                 operands' facts by role, and the op's attributes (a pto op's or a
                 lowered op's: the lowering keeps their names)
    describe     the rows of the generated docs table (the rule row type's `describe`
                 unless `docs_table` is given)
    lowered      the lowered-op bases a target lowers it to; each holds the interpreter
                 kernel that runs it and the target choices it records
    op           its pto op (SSA and DPS forms), which names its operand roles and so its
                 memory effects (xDSL traits: `dce`, `cse` and the memory planner read them):
                 the op its lowered bases implement (their `SOURCE`), or `stays`, the op
                 of an instruction every target keeps as a pto op
    emit         its C++ (pto-isa's built-in API call)
    pipe         the hardware pipe it issues on (the vector pipe unless said)
    in_place     per form, which input an output may exactly alias
    implicit_tmp the tmp tile `pto-materialize-implicit-tmp` adds when the op omits it
    untouched    the operands a target's code ignores (no live range there: memory plan)
    asm          its PTO assembly form (the plain one unless said), None if it has none
    cost         what a lowered op (or a pto op that stays) costs on each machine model
                 (pto_dialect/cost.py); each target's folder holds its machine's numbers
    summary      a family member's one-line formula (pto_dialect/family.py)

A target's folder holds, per instruction, its rule row (`RULES`) and how it lowers it
(`LOWERING`); a target missing either fails when the target's tables are first read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.str_enum import StrEnum

if TYPE_CHECKING:
    from pto_dialect.cost import InstructionCost
    from pto_dialect.facts import TileFacts, ViewFacts
    from pto_dialect.lowered import LoweredOp
    from pto_dialect.ops.common import PtoInstructionOp
    from pto_dialect.ops.memory import AllocTileOp

class Pipe(StrEnum):
    """The hardware pipe an instruction issues on (pto-isa's `PIPE_*`)."""

    MTE2 = "PIPE_MTE2"
    """GM -> on-chip transfers."""
    VECTOR = "PIPE_V"
    """Vector unit."""
    MTE3 = "PIPE_MTE3"
    """On-chip -> GM transfers."""
    SCALAR = "PIPE_S"
    """The scalar unit (a scalar loop's work)."""
    MTE1 = "PIPE_MTE1"
    """L1 -> L0A/L0B transfers (cube core)."""
    CUBE = "PIPE_M"
    """The cube unit (matrix multiply)."""
    FIX = "PIPE_FIX"
    """L0C -> L1/GM transfers (cube core)."""
    MTE4 = "PIPE_MTE4"
    MTE5 = "PIPE_MTE5"
    VECTOR2 = "PIPE_V2"
    """(PTOAS's PIPE enum names these too; no target here has them.)"""
    ALL = "PIPE_ALL"
    """Every pipe: what `pto.barrier #pto.pipe<PIPE_ALL>` waits for."""

    @property
    def short(self) -> str:
        """`MTE2`, `V`, ...: the name reports print."""
        return self.value.removeprefix("PIPE_")


def camel(word: str) -> str:
    """`row_major` -> `RowMajor`: our spelling of an enum case -> pto-isa's C++."""
    return "".join(part.capitalize() for part in word.split("_"))


class Emission(Protocol):
    """What an instruction's `emit` writes its C++ with (backends/cpp/emitter.py)."""

    def issue(self, op: Operation, statement: str) -> None:
        """Write `statement`, the op's C++, on its instruction's pipe (the kernel's sync ops,
        its own or pto-insert-sync's, order the pipes)."""
        ...

    def synchronised(self, statement: str) -> None:
        """Write `statement`, which waits for every pipe itself (pipe_barrier(PIPE_ALL))."""
        ...

    def call(self, name: str, args: Sequence[SSAValue], template: Sequence[str] = (), extra: Sequence[str] = ()) -> str:
        """`NAME<template...>(args..., extra...)`."""
        ...

    def alias(self, tile_type: Attribute) -> str:
        """The C++ type name of a tile type."""
        ...

    def expression(self, value: SSAValue) -> str:
        """The C++ expression of an operand (a scalar's variable or literal)."""
        ...

    def scalar(self, value_type: Attribute) -> str:
        """The C++ type of a scalar type."""
        ...

    def require(self, op: Operation, role: str) -> SSAValue:
        """The operand playing `role`; a located error when the op omits it."""
        ...


@dataclass(frozen=True)
class InPlace:
    """Which input an output of one instruction form may exactly alias (the same tile, or
    another tile at the same address with the same shape, layout and element size), decided
    from every target's code: safe means the code reads each element of that input before
    it writes the output element over it."""

    safe: frozenset[str]
    """The input roles an output may lie exactly over."""
    how: str
    """How every target's code reads them before writing over them (nothing when none is safe)."""
    refused: str
    """Why any other alias is refused."""
    refused_by: Callable[[Any], str | None] | None = None
    """Given a target's rule row of the instruction: why that target does not compute even the
    safe aliases in place (None: it does), where targets differ (a2a3's TRECIP)."""
    forward: str = ""
    """Why an output of narrower elements at a safe input's address (same shape and layout, no
    fractal boxes) is computed in place too: every target goes through the elements in
    increasing address order, and each output element lies at or before the bytes of the input
    element it is computed from (empty: only exact aliases are)."""
    leading: Callable[[Any], str | None] | None = None
    """Given the op: why a smaller output lying over `src`'s leading elements (element (r, c) of
    both at the same bytes) is not computed right, None when every target's code computes it
    right (None for the field: no op of the form is)."""
    leading_how: str = ""
    """Why it is, where `leading` allows it (for the docs)."""


@dataclass(frozen=True)
class AsmForm:
    """The instruction's spelling in the PTO assembly form (pto_dialect/asm/)."""

    implied: Mapping[str, Attribute] = field(default_factory=dict)
    """Attributes it has unless its dictionary says otherwise."""
    short_operand: Callable[[Attribute, Mapping[str, Attribute]], Attribute | str | None] | None = None
    """A short spelling with two operands and one result that names no type for the second
    operand: (result type, attributes) -> that operand's type, or why it cannot be implied,
    or None where the spelling does not apply."""
    omits_operand_type: Callable[[Any], bool] | None = None
    """Whether the printer may use that short spelling for an op."""
    operand_order: tuple[int, ...] = ()
    """The SSA spelling's operands in the order the assembly form writes them (their
    positions in the SSA list); empty: the same order."""


DocsCells = Sequence[tuple[str, Callable[[Any], str]]]
"""A docs table's rows: what each says, and its cell of one target's rule row."""


def per_target(rows: Mapping[str, Any], cells: DocsCells) -> list[tuple[str, dict[str, str]]]:
    """A docs table: for each (rule, cell) pair, the rule and the cell of each target's row."""
    return [(rule, {name: cell(row) for name, row in rows.items()}) for rule, cell in cells]


class RuleRow:
    """The base of an instruction's rule-row type: what a target accepts, the rule that checks
    it (`check`) and the docs table that shows it (`DOCS`, one row per rule)."""

    DOCS: ClassVar[DocsCells] = ()

    def check(self, operands: dict[str, TileFacts | ViewFacts | str], attrs: Mapping[str, Attribute]) -> None:
        """Raise RuleViolation for the first rule of the row the operands' facts break."""
        raise NotImplementedError(type(self).__name__)

    @classmethod
    def describe(cls, rows: Mapping[str, Any]) -> list[tuple[str, dict[str, str]]]:
        """The docs table of each target's row (by target name)."""
        return per_target(rows, cls.DOCS)


CheckRule = Callable[[Any, "dict[str, TileFacts | ViewFacts | str]", Mapping[str, Attribute]], None]
"""(the target's rule row, the operands' facts by role, the op's attributes)."""


DocsTable = Callable[[dict[str, Any]], list[tuple[str, dict[str, str]]]]
"""(each target's rule row by target name) -> the docs table's rows: (what, the cell per target)."""


@dataclass(frozen=True, eq=False)  # one object per instruction: compared and hashed by identity
class Instruction:
    rules: type[Any]
    emit: Callable[[Emission, Any], None]
    lowered: tuple[type[LoweredOp], ...] = ()
    stays: type[PtoInstructionOp] | None = None
    """The op of an instruction that no target lowers (no lowered bases to name it)."""
    pipe: Pipe = Pipe.VECTOR
    check_rule: CheckRule | None = None
    """The verifier rule where it is not the rule row's `check` (a family whose members check
    differently)."""
    docs_table: DocsTable | None = None
    """The docs table where it is not the rule row type's `describe`."""
    in_place: Mapping[str, InPlace] = field(default_factory=dict)
    """Per form (`form(op)`), which input an output may exactly alias; a form not listed
    computes nothing in place."""
    implicit_tmp: Callable[[Any, Any], AllocTileOp | None] | None = None
    """(op, the target's rule row) -> the tile to add, or None."""
    untouched: Callable[[Any, Any], frozenset[str]] | None = None
    """(op, the target's rule row) -> the operand roles the target's code neither reads nor
    writes (a tmp it ignores): the memory plan gives them no live range at the op. The rule
    rows say it (`tmp_untouched_unless` reads their fact), so each target's column is its answer."""
    asm: AsmForm | None = AsmForm()
    form: Callable[[Any], str] = lambda op: ""
    """The op's form, where the instruction has several (`index`, `mask`, ...): messages
    and the in-place table name it."""
    cost: InstructionCost | None = None
    """Its cost per machine model; None fails tests/test_registry.py and any estimate."""
    summary: str = ""
    """What it computes in one line, for a member of a family (whose module's docstring
    describes the whole family)."""
    op: type[PtoInstructionOp] = field(init=False)
    check: CheckRule = field(init=False)
    describe: DocsTable = field(init=False)

    def __post_init__(self) -> None:
        sources = {base.SOURCE for base in self.lowered} | ({self.stays} if self.stays else set())
        assert len(sources) == 1, f"an instruction implements one pto op, got {sources}"
        object.__setattr__(self, "op", sources.pop())
        object.__setattr__(self, "check", self.check_rule or self.rules.check)
        object.__setattr__(self, "describe", self.docs_table or self.rules.describe)

    @property
    def name(self) -> str:
        return self.op.name

    @property
    def mnemonic(self) -> str:
        """`tcolargmin`: the name without the `pto.` prefix (the assembly form's opcode)."""
        return self.name.removeprefix("pto.")

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"<instruction {self.name}>"


def tmp_untouched_unless(used: bool) -> frozenset[str]:
    """`Instruction.untouched` of an instruction whose tmp is the one operand a target's code may
    ignore: the tmp, unless the target's rule row says its code reads or writes it (`used`)."""
    return frozenset() if used else frozenset({"tmp"})


def tmp_untouched_unless_row_uses_it(op: Any, rules: Any) -> frozenset[str]:  # noqa: ANN401
    """`Instruction.untouched` read from a rule row's `tmp_used` field."""
    return tmp_untouched_unless(rules.tmp_used)
