"""
Printing SSA IR in the PTO assembly form, the inverse of reader.py.

The module holds one `func.func` whose body is SSA instructions that have an assembly
form (pto_dialect/asm/forms.py INSTRUCTIONS) and its return. Each becomes one line, in the short
spelling whenever that says the same (forms.py), GM views written `!pto.memref<...>`.
The function itself is not written: the reader takes its name from the file and its
arguments and results from the instructions. Value names are kept; values without
one are numbered %0, %1, ... in order of appearance. Anything the form cannot say
is a PtoError located at the op.
"""

from __future__ import annotations

from io import StringIO

from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.printer import Printer
from pto_dialect.walk import walk

from pto_dialect.asm.forms import INSTRUCTIONS, spell_type
from pto_dialect.diagnostics import PtoError, op_location
from pto_dialect.names import unique
from pto_dialect.ops.common import PtoInstructionOp

_OPS = tuple(i.op for i in INSTRUCTIONS.values())


def print_asm(module: ModuleOp) -> str:
    """The assembly text of the module's function (nothing for an empty module); PtoError if
    it cannot be written so."""
    if module.body.block.first_op is None:
        return ""
    function = _the_function(module)
    names = _Names()
    lines: list[str] = []
    for op in function.body.ops:
        if isinstance(op, ReturnOp):
            continue
        lines.append(_instruction(_writable(op, function), names))
    return "".join(line + "\n" for line in lines)


def _the_function(module: ModuleOp) -> FuncOp:
    ops = list(module.ops)
    extra = next((op for op in ops if not isinstance(op, FuncOp)), None) or (ops[1] if len(ops) > 1 else None)
    if extra is not None:
        raise PtoError.at_op(extra, "cannot be written in the PTO assembly form, which holds one func.func")
    function = ops[0]
    assert isinstance(function, FuncOp)
    if len(function.body.blocks) != 1:
        raise PtoError.at_op(function, "cannot be written in the PTO assembly form, whose functions have one block")
    return function


def _writable(op: Operation, function: FuncOp) -> PtoInstructionOp:
    if not isinstance(op, _OPS):
        raise PtoError.at_op(
            op, f"has no PTO assembly form (the form writes SSA instructions such as {', '.join(list(INSTRUCTIONS)[:3])}){_fitting(function)}"
        )
    assert isinstance(op, PtoInstructionOp)
    if op.outs:
        raise PtoError.at_op(op, "is in DPS form; the PTO assembly form writes instructions in SSA form")
    return op


def _fitting(function: FuncOp) -> str:
    """How to print the function's instructions anyway: each alone in a function of its operands."""
    instructions = [o for o in walk(function) if isinstance(o, _OPS)]
    lines = sorted({loc.rsplit(":", 2)[1] for o in instructions if (loc := op_location(o))}, key=int)
    where = f" (here: line {', '.join(lines)})" if lines else ""
    return (
        f"; to print instructions{where}, put them in a func.func that takes their operands as arguments "
        "and holds nothing else (examples/embedding_rows.ptoasm is such a function of examples/embedding_rows.pto)"
    )


def _instruction(op: PtoInstructionOp, names: _Names) -> str:
    mnemonic = op.name.removeprefix("pto.")
    form = INSTRUCTIONS[mnemonic].asm
    assert form is not None
    attrs = {k: v for k, v in op.printed_attributes().items() if form.implied.get(k) != v}
    short = form.omits_operand_type is not None and form.omits_operand_type(op)
    ins = [op.ins[k] for k in form.operand_order] if form.operand_order else list(op.ins)
    in_types = [ins[0].type] if short else [v.type for v in ins]
    results = ", ".join(names(r) for r in op.results)  # names in order of appearance
    text = (f"{results} = " if results else "") + f"{mnemonic} " + ", ".join(names(v) for v in ins)
    if attrs:
        text += " " + _attr_dict(attrs)
    text += " : " + ", ".join(spell_type(t) for t in in_types)
    if op.results:
        text += " -> " + ", ".join(spell_type(r.type) for r in op.results)
    return text


def _attr_dict(attrs: dict[str, Attribute]) -> str:
    stream = StringIO()
    Printer(stream).print_attr_dict(attrs)
    return stream.getvalue()


class _Names:
    """`%hint`, `%hint_1`, ... for named values, `%0`, `%1`, ... for the others."""

    def __init__(self):
        self.names: dict[SSAValue, str] = {}
        self.taken: set[str] = set()
        self.next_number = 0

    def __call__(self, value: SSAValue) -> str:
        if (name := self.names.get(value)) is None:
            name = self.names[value] = self._fresh(value.name_hint)
        return "%" + name

    def _fresh(self, hint: str | None) -> str:
        if hint is None:  # a number never clashes with a hint, which cannot start with a digit
            self.next_number += 1
            return str(self.next_number - 1)
        return unique(hint, self.taken)
