"""
The rewrite patterns of `pto-lower{target=T}`, driven by a target's lowering table
(`targets/<name>/lowering.py` provides one `TargetLowering`): per instruction, which
lowered op and which choices.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from xdsl.ir import Attribute, Dialect, Operation
from xdsl.irdl import IRDLOperation, irdl_op_definition
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from pto_dialect.choices import Choice, Numerics, choice
from pto_dialect.diagnostics import PtoError
from pto_dialect.family import Family, Member
from pto_dialect.instruction import Instruction
from pto_dialect.instructions import instruction_of
from pto_dialect.lowered import LoweredOp
from pto_dialect.ops.common import PtoInstructionOp

Lowered = tuple[type[LoweredOp] | None, Mapping[str, Choice | Attribute]] | None
"""The lowered op and the choices it records, with any other property of the target's op
(no op: the pto op stays and records the choices as attributes); None where the target
has no such instruction form."""


@dataclass(frozen=True)
class TargetLowering:
    """How one target lowers each instruction: which op, with which choices."""

    target: str
    table: Mapping[Instruction, Callable[[Any], Lowered]]
    """Each entry takes the op class of its instruction (which a Mapping's type cannot say)."""
    extra_patterns: tuple[RewritePattern, ...] = ()
    """Target patterns tried before the table-driven one (e.g. a5's register gather)."""
    approximate: Mapping[Instruction, str] = field(default_factory=dict)
    """The instructions whose values on this target come from a hardware intrinsic no public
    code fixes, each with the reference the interpreter computes instead (docs list them)."""

    def choose(self, op: PtoInstructionOp) -> tuple[type[LoweredOp] | None, Mapping[str, Choice | Attribute]]:
        """The table's entry for `op`; a located error where the target has none."""
        instruction = instruction_of(op)
        assert instruction is not None, op.name
        entry = self.table[instruction](op)
        if entry is None:
            form = f"{instruction.form(op)}-form " if instruction.form(op) else ""
            raise PtoError.at_op(op, f"{form}{op.name} has no lowering on target {self.target}")
        return entry


class LowerInstruction(RewritePattern):
    """A pto instruction becomes its target's op, keeping its operands and attributes (absent
    ones spelled out as their meaning) and recording the target's choices; an instruction
    without a lowered op records the choices on itself."""

    def __init__(self, lowering: TargetLowering):
        self.lowering = lowering

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, PtoInstructionOp):
            return
        if op.res:
            raise PtoError.at_op(op, "expects DPS form before lowering (run pto-ssa-to-dps first)")
        lowered, choices = self.lowering.choose(op)
        recorded = {name: choice(v) if isinstance(v, Choice) else v for name, v in choices.items()}
        if lowered is None:
            if any(op.attributes.get(k) != v for k, v in recorded.items()):
                op.attributes.update(recorded)
                rewriter.notify_op_modified(op)
            return
        kept: dict[str, Attribute] = {
            name: value
            for name in lowered.get_irdl_definition().properties
            if name != "operandSegmentSizes" and (value := op.properties.get(name, op.DEFAULTS.get(name))) is not None
        }
        rewriter.replace(op, lowered.create_from(op, op.ins, op.outs, **kept, **recorded), [])


Op = TypeVar("Op", bound=type[IRDLOperation])
Base = TypeVar("Base", bound=IRDLOperation)


class TargetOps:
    """A target dialect's ops, each declared once: a written class by `@ops.declare`, a family's
    members by `ops.family(...)`, which also gives their lowering-table entries; `ops.dialect()`
    is the target's dialect."""

    def __init__(self, dialect_name: str, class_prefix: str):
        self.dialect_name = dialect_name
        self.class_prefix = class_prefix
        """`A2A3`: the start of each op class's name."""
        self.ops: list[type[Operation]] = []
        self.approximate: dict[Instruction, str] = {}

    def declare(self, cls: Op) -> Op:
        """`@ops.declare` on a lowered op class: an IRDL op of the target's dialect."""
        op = irdl_op_definition(cls)
        self.ops.append(op)
        return op

    def family(
        self,
        family: Family,
        choose: Callable[[Member, PtoInstructionOp], Mapping[str, Choice]] = lambda row, op: {},
        approximate: Mapping[str, str] = {},
    ) -> dict[Instruction, Callable[[PtoInstructionOp], Lowered]]:
        """The target's lowered op of each member of `family` (`<dialect>.<mnemonic>`, on the
        member's lowered-op base) and the lowering-table entries choosing it with `choose`'s
        choices; `approximate` names the members whose values no public code fixes on this
        target, each with the reference the interpreter computes (their ops record
        `numerics = approximate`, the others `exact`)."""
        unknown = set(approximate) - {row.mnemonic for row in family.rows}
        assert not unknown, f"{self.dialect_name}: not members of the {family.name} family: {unknown}"
        entries: dict[Instruction, Callable[[PtoInstructionOp], Lowered]] = {}
        for row, instruction in family:
            (base,) = instruction.lowered
            op = self._lowered_op(base, row.class_name, row.mnemonic)
            numerics = Numerics.APPROXIMATE if row.mnemonic in approximate else Numerics.EXACT
            if row.mnemonic in approximate:
                self.approximate[instruction] = approximate[row.mnemonic]
            entries[instruction] = _family_entry(op, row, numerics, choose)
        return entries

    def single(
        self,
        instruction: Instruction,
        choose: Mapping[str, Choice] | Callable[[Any], Mapping[str, Choice]],
        doc: str | None = None,
    ) -> dict[Instruction, Callable[[PtoInstructionOp], Lowered]]:
        """The target's lowered op of an instruction with one lowered-op base (`<dialect>.<mnemonic>`,
        documented by `doc` or the base) and its lowering-table entry recording `choose`'s choices:
        fixed ones, or those a function of the op picks."""
        (base,) = instruction.lowered
        op = self._lowered_op(base, base.__name__.removesuffix("Base"), instruction.mnemonic, doc)
        pick = choose if callable(choose) else lambda source: choose
        return {instruction: lambda source: (op, pick(source))}  # pyright: ignore[reportReturnType]

    def op(self, base: type[Base], mnemonic: str, doc: str | None = None, **class_vars: Any) -> type[Base]:
        """The op `<dialect>.<mnemonic>` of the target's dialect on `base`, documented by `doc`
        (or the base's docs), with `class_vars` (a `LAUNCH`, `PHASES`, a target's own property)."""
        stem = "".join(word.capitalize() for word in mnemonic.split("_"))
        return self._lowered_op(base, stem, mnemonic, doc, class_vars)

    def _lowered_op(
        self, base: type[Base], class_stem: str, mnemonic: str, doc: str | None = None, class_vars: Mapping[str, Any] = {}
    ) -> type[Base]:
        """`<prefix><stem>Op`, the op `<dialect>.<mnemonic>` of the target's dialect, on `base`."""
        namespace = {
            "name": f"{self.dialect_name}.{mnemonic}", "__doc__": doc or base.__doc__, "__module__": base.__module__,
            "__annotations__": {var: ClassVar for var in class_vars if var.isupper()}, **class_vars,
        }
        return self.declare(type(f"{self.class_prefix}{class_stem}Op", (base,), namespace))  # pyright: ignore[reportReturnType]

    def dialect(self) -> Dialect:
        return Dialect(self.dialect_name, list(self.ops))


def _family_entry(
    op: type[Operation], row: Member, numerics: Numerics, choose: Callable[[Member, PtoInstructionOp], Mapping[str, Choice]]
) -> Callable[[PtoInstructionOp], Lowered]:
    def entry(source: PtoInstructionOp) -> Lowered:
        return op, {"numerics": numerics, **choose(row, source)}  # pyright: ignore[reportReturnType]

    return entry


def patterns(lowering: TargetLowering) -> list[RewritePattern]:
    return [*lowering.extra_patterns, LowerInstruction(lowering)]
