"""`pto-materialize-implicit-tmp{target=T}`: add the tmp tile an instruction omitted."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from xdsl.context import Context
from xdsl.dialects.builtin import DYNAMIC_INDEX, ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from pto_dialect.diagnostics import PtoError
from pto_dialect.types import TileBufType, TileTypeBase

import targets

if TYPE_CHECKING:
    from pto_dialect.ops import AllocTileOp
    from pto_dialect.ops.common import PtoInstructionOp


def smallest_tile(like: TileTypeBase) -> TileBufType:
    """A 1 x 32-byte vec tile of `like`'s element type: the least a tmp can be."""
    return TileBufType.get("vec", (1, 32 // like.element.bytes), like.element_type)


def _like_src(op: PtoInstructionOp, src: SSAValue) -> AllocTileOp:
    """A tile with src's element type, shape and valid shape (dynamic dims: src's own values)."""
    from pto_dialect.ops import AllocTileOp
    src_type = src.type
    assert isinstance(src_type, TileTypeBase)
    tile = TileBufType.from_params(src_type.params)
    if DYNAMIC_INDEX not in src_type.valid_shape:
        return AllocTileOp(tile)
    if not isinstance(src.owner, AllocTileOp):
        raise PtoError.at_op(
            op, "cannot add an implicit tmp: src's dynamic valid shape is not that of a pto.alloc_tile"
        )
    return AllocTileOp(tile, valid_row=src.owner.valid_row, valid_col=src.owner.valid_col)


def _add_tmp(op: PtoInstructionOp, alloc: AllocTileOp) -> None:
    alloc.location = op.location
    Rewriter.insert_op(alloc, InsertPoint.before(op))
    attrs = {**op.attributes, **op.properties}
    attrs.pop("operandSegmentSizes", None)
    new = type(op).from_parts([*op.ins, alloc.result], op.outs, [], attrs)
    new.location = op.location
    Rewriter.replace_op(op, new, [])


@dataclass(frozen=True)
class MaterializeImplicitTmpPass(ModulePass):
    """
    Add the `tmp` tile a target needs where `tcolargmin` / index `tgather` omit it.

    Where a DPS `tcolargmin` omits tmp, add the tile the target needs (a2a3: like src,
    always legal; a5: the smallest tile, as the hardware ignores it); where an index-form
    `tgather` omits it on a5, add the smallest tile. What each target needs is in its
    rule table (targets/<name>/rules.py). Implicit tmps are unaddressed: the planner places them.
    Option: target (default: pto-opt's --target, else the module's pto.target_arch, else a2a3).
    """

    name = "pto-materialize-implicit-tmp"

    target: str | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from pto_dialect.ops import AllocTileOp, TColArgMinOp, TGatherForm, TGatherOp  # when the pass runs
        from pto_dialect.ops.common import PtoInstructionOp

        target = targets.resolve(self.target, None, op)
        for inst in [o for o in op.walk() if isinstance(o, PtoInstructionOp) and o.is_dps]:
            if isinstance(inst, TColArgMinOp) and inst.tmp is None:
                how = target.tcolargmin.implicit_tmp
                if how == "like_src":
                    _add_tmp(inst, _like_src(inst, inst.src))
                elif how == "smallest":
                    src = inst.src.type
                    assert isinstance(src, TileTypeBase)
                    _add_tmp(inst, AllocTileOp(smallest_tile(src)))
            elif (
                isinstance(inst, TGatherOp)
                and inst.form == TGatherForm.INDEX
                and inst.role("tmp") is None
                and target.tgather.implicit_index_tmp
            ):
                indices = inst.operand("indices").type
                assert isinstance(indices, TileTypeBase)
                _add_tmp(inst, AllocTileOp(smallest_tile(indices)))
