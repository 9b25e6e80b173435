"""
GM visibility for the scalar unit (PTOAS's CmoCacheInvalidOp, FenceBarrierAllOp):

    pto.cmo.cacheinvalid all #pto.address_space<gm>           dcci((__gm__ void*)0, cache_line_t::ENTIRE_DATA_CACHE)
    pto.cmo.cacheinvalid %p single_cache_line : !pto.ptr<i32>   dcci(p, cache_line_t::SINGLE_CACHE_LINE)
    pto.fence.barrier_all #pto.fence_scope<gm>                 pipe_barrier(PIPE_ALL); dsb(DSB_DDR)

What they mean for one core's view of memory. The scalar unit reads GM (pto.load_scalar)
through a data cache that the DMA pipes (TLOAD, TSTORE, MSCATTER) bypass, and other cores write
GM behind it: `cmo.cacheinvalid` drops cached lines so the next scalar read fetches GM again;
`fence.barrier_all` waits until every earlier access of the scope (gm, all: GM; local_memory:
the core's own buffers) is done before any later one starts. pto-run runs one core in program
order and models no data cache: every scalar read sees GM as the last write in program order
left it, every pipe's work is finished before the next op. That is the view these two ops
establish, so on one core they change no value and the run executes them as no-ops; what they
guard against (a stale cached line after a DMA write, another core's write arriving late) does
not arise in the run. A kernel that needs them on hardware (a load_scalar of a line a TSTORE
wrote) runs the same with or without them here: a missing invalidation is not detected.
"""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr
from xdsl.irdl import IRDLOperation, irdl_op_definition, opt_operand_def, prop_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from pto_dialect.attributes import AddressSpace, AddressSpaceAttr, FenceScope, FenceScopeAttr
from pto_dialect.types import PartitionTensorViewType, PtrType, TensorViewType

GM_SPACES = (AddressSpace.GM, AddressSpace.ZERO)
"""PTOAS's isGmOrDefaultAddressSpace: gm, or the default (zero) space."""


@irdl_op_definition
class CmoCacheInvalidOp(IRDLOperation):
    """Invalidate the scalar data cache: all of it, or the line holding `%addr`."""

    name = "pto.cmo.cacheinvalid"

    addr = opt_operand_def()
    space = prop_def(AddressSpaceAttr)

    @classmethod
    def parse(cls, parser: Parser) -> CmoCacheInvalidOp:
        if parser.parse_optional_keyword("all") is not None:
            space = parser.parse_attribute()
            attrs = parser.parse_optional_attr_dict()
            op = cls.create(properties={"space": space})
        else:
            addr = parser.parse_unresolved_operand()
            parser.parse_keyword("single_cache_line")
            parser.parse_punctuation(":")
            addr_type = parser.parse_type()
            attrs = parser.parse_optional_attr_dict()
            space = attrs.pop("space", AddressSpaceAttr(AddressSpace.GM))
            op = cls.create(operands=[parser.resolve_operand(addr, addr_type)], properties={"space": space})
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        if self.addr is not None:
            printer.print_string(" ")
            printer.print_ssa_value(self.addr)
            printer.print_string(" single_cache_line : ")
            printer.print_attribute(self.addr.type)
        else:
            printer.print_string(" all ")
            printer.print_attribute(self.space)
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        if not isinstance(self.space, AddressSpaceAttr) or self.space.data not in GM_SPACES:
            raise VerifyException("only supports GM cache maintenance")
        if self.addr is None:
            return
        kind = self.addr.type
        gm_pointer = isinstance(kind, PtrType) and kind.space == StringAttr("gm")
        if not (gm_pointer or isinstance(kind, TensorViewType | PartitionTensorViewType)):
            raise VerifyException(f"single_cache_line address expects a GM pointer or GM tensor view, got {kind}")


@irdl_op_definition
class FenceBarrierAllOp(IRDLOperation):
    """Every earlier memory access of the scope completes before any later one starts."""

    name = "pto.fence.barrier_all"

    scope = prop_def(FenceScopeAttr)

    @classmethod
    def parse(cls, parser: Parser) -> FenceBarrierAllOp:
        scope = parser.parse_attribute()
        if not isinstance(scope, FenceScopeAttr):
            parser.raise_error(f"expects a #pto.fence_scope<local_memory|gm|all>, got {scope}")
        op = cls.create(properties={"scope": scope})
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.scope)
        printer.print_op_attributes(self.attributes)

    @property
    def orders_gm(self) -> bool:
        return self.scope.data in (FenceScope.GM, FenceScope.ALL)


COHERENCE_OPS = [CmoCacheInvalidOp, FenceBarrierAllOp]
