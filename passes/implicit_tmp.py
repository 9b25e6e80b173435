"""`pto-materialize-implicit-tmp{target=T}`: add the tmp tile an instruction omitted."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from pto_dialect.walk import walk

import targets


@dataclass(frozen=True)
class MaterializeImplicitTmpPass(ModulePass):
    """
    Add the `tmp` tile a target needs where an instruction (tcolargmin, index tgather) omits it.

    What each target needs is in its rule rows (targets/rules/), the tile each
    instruction adds in its module: a2a3's tcolargmin gets a tile like src (always legal);
    where the hardware ignores tmp (a5), the smallest tile. Implicit tmps are unaddressed:
    the planner places them.
    Option: target (default: pto-opt's --target, else the module's pto.target_arch, else a2a3).
    """

    name = "pto-materialize-implicit-tmp"

    target: str | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from pto_dialect.instructions import instruction_of  # when the pass runs
        from pto_dialect.ops.common import PtoInstructionOp

        target = targets.resolve(self.target, op)
        for inst in [o for o in walk(op) if isinstance(o, PtoInstructionOp) and o.is_dps]:
            instruction = instruction_of(inst)
            if instruction is None or instruction.implicit_tmp is None:
                continue
            alloc = instruction.implicit_tmp(inst, target.rules[instruction])
            if alloc is None:
                continue
            alloc.location = inst.location
            Rewriter.insert_op(alloc, InsertPoint.before(inst))
            attrs = {**inst.attributes, **inst.properties}
            attrs.pop("operandSegmentSizes", None)
            ins = list(inst.ins)
            with_tmp, _ = inst.operand_roles(len(ins) + 1, len(inst.outs))
            ins.insert(with_tmp.index("tmp") if "tmp" in with_tmp else len(ins), alloc.result)  # the tmp's place
            new = type(inst).from_parts(ins, inst.outs, [], attrs)
            new.location = inst.location
            Rewriter.replace_op(inst, new, [])
