"""
What the PTO assembly form spells differently from the SSA form (pto-isa's docs/isa,
"PTO Assembly Form"): mnemonics without the `pto.` prefix, `!pto.memref` for GM views,
and short spellings that leave out an attribute or a type, which each instruction's
`asm` declares (pto_dialect/instruction.py AsmForm).

The reader fills in what a short spelling omits; the printer omits it exactly when
the filled-in value is the one the op holds, so no information is lost either way.
"""

from __future__ import annotations

from collections.abc import Mapping

from xdsl.ir import Attribute

from pto_dialect.instruction import Instruction
from pto_dialect.instructions import REGISTRY
from pto_dialect.types import PartitionTensorViewType

INSTRUCTIONS: Mapping[str, Instruction] = {i.mnemonic: i for i in REGISTRY if i.asm is not None}
"""Assembly mnemonic -> instruction (`mgather` -> MGATHER), for those with an assembly form."""

MEMREF = "!pto.memref"
"""The assembly form's name for a GM view, `!pto.partition_tensor_view`."""

VIEW = f"!{PartitionTensorViewType.name}"


def spell_type(type_: Attribute) -> str:
    """A type as the assembly form writes it (GM views as `!pto.memref<...>`)."""
    text = str(type_)
    return MEMREF + text[len(VIEW):] if isinstance(type_, PartitionTensorViewType) else text
