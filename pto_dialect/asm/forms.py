"""
What the PTO assembly form spells differently from the SSA form
(spec/{mgather,tgather,tcolargmin}.md, "PTO Assembly Form"): mnemonics without the
`pto.` prefix, `!pto.memref` for GM views, and short spellings that leave out an
attribute or a type.

The reader fills in what a short spelling omits; the printer omits it exactly when
the filled-in value is the one the op holds, so no information is lost either way.
"""

from __future__ import annotations

from collections.abc import Mapping

from xdsl.dialects.builtin import i32
from xdsl.ir import Attribute

from pto_dialect.attributes import Coalesce, CoalesceAttr
from pto_dialect.ops import MGatherOp, TColArgMinOp, TGatherForm, TGatherOp
from pto_dialect.ops.common import PtoInstructionOp
from pto_dialect.types import PartitionTensorViewType, TileType

INSTRUCTIONS: Mapping[str, type[PtoInstructionOp]] = {
    op.name.removeprefix("pto."): op for op in (MGatherOp, TGatherOp, TColArgMinOp)
}
"""Assembly mnemonic -> SSA op (`mgather` -> `pto.mgather`)."""

IMPLIED_ATTRIBUTES: Mapping[str, Mapping[str, Attribute]] = {
    "mgather": {"coalesce": CoalesceAttr(Coalesce.ROW)},
}
"""Attributes an instruction has unless its dictionary says otherwise (`gatherOob` is
already `undefined` when absent)."""


def implied_tgather_indices(dst: Attribute) -> TileType | None:
    """`tgather %s, %i : Ts -> Td` names no type for %i: `!pto.tile<vec, RxCxi32>` with Td's shape."""
    return TileType.get("vec", dst.shape, i32) if isinstance(dst, TileType) else None


def omits_indices_type(op: PtoInstructionOp) -> bool:
    """Whether the printer may write index-form `tgather %s, %i : Ts -> Td`."""
    return (
        isinstance(op, TGatherOp)
        and op.form == TGatherForm.INDEX
        and len(op.ins) == 2
        and op.ins[1].type == implied_tgather_indices(op.dst.type)
    )


MEMREF = "!pto.memref"
"""The assembly form's name for a GM view, `!pto.partition_tensor_view`."""

VIEW = f"!{PartitionTensorViewType.name}"


def spell_type(type_: Attribute) -> str:
    """A type as the assembly form writes it (GM views as `!pto.memref<...>`)."""
    text = str(type_)
    return MEMREF + text[len(VIEW):] if isinstance(type_, PartitionTensorViewType) else text
