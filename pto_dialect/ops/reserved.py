"""
Reserved buffers: a consumer's slot buffer in its own local memory, and the producer's handle on
it (PTOAS's ReserveBufferOp, ImportReservedBufferOp; the cube <-> vector pipes' FIFOs):

    %b = pto.reserve_buffer {name = "c2v_fifo", size = 4096, location = #pto.address_space<vec>, auto = false, base = 0} -> i32
    %p = pto.import_reserved_buffer {name = "c2v_fifo", peer_func = @vector_kernel} -> i32

The result is the buffer's byte address in `location` (vec: UB, mat: L1). PTOAS's rules: inside
a func.func; size > 0; location vec or mat; `base` given when `auto = false` (only then), not negative;
one reserve_buffer per name in a function; an import names an existing function holding a
reserve_buffer of that name, once per (name, peer_func). With `auto = true` PTOAS's memory
planning picks the address; pto-frontend does not plan it, so such a buffer's address is a
located error where it is needed (a run, C++). Here the address is only a value: the pipes that
use it (TPUSH / TPOP) are not implemented.
"""

from __future__ import annotations

from typing import TypeVar

from xdsl.dialects.builtin import I32, BoolAttr, IntegerAttr, IntegerType, ModuleOp, StringAttr, SymbolRefAttr, i32
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation
from xdsl.irdl import IRDLOperation, irdl_op_definition, opt_prop_def, prop_def, result_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from pto_dialect.attributes import AddressSpace, AddressSpaceAttr

_Op = TypeVar("_Op", bound=IRDLOperation)
LOCATIONS = (AddressSpace.VEC, AddressSpace.MAT)
INTEGER_FIELDS = ("size", "base")
"""Fields PTOAS types I32Attr, written as bare integers."""


def _parse_fields(parser: Parser, names: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict[str, Attribute]:
    """`{name = A, size = B, ...}` in PTOAS's fixed order; `optional` fields may follow."""
    fields: dict[str, Attribute] = {}
    parser.parse_punctuation("{")
    for i, key in enumerate(names + optional):
        if i:
            if key in optional and parser.parse_optional_punctuation(",") is None:
                break
            if key not in optional:
                parser.parse_punctuation(",")
        parser.parse_keyword(key)
        parser.parse_punctuation("=")
        fields[key] = IntegerAttr(parser.parse_integer(), i32) if key in INTEGER_FIELDS else parser.parse_attribute()
    parser.parse_punctuation("}")
    return fields


def _parse_buffer_op(cls: type[_Op], parser: Parser, names: tuple[str, ...], optional: tuple[str, ...] = ()) -> _Op:
    """`{fields} attr-dict -> i32`"""
    fields = _parse_fields(parser, names, optional)
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation("->")
    op = cls.create(properties=fields, result_types=[parser.parse_type()])
    op.attributes.update(attrs)
    return op


def _print_fields(printer: Printer, fields: list[tuple[str, str]]) -> None:
    printer.print_string(" {" + ", ".join(f"{k} = {v}" for k, v in fields) + "}")


def _function_of(op: Operation) -> FuncOp:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, FuncOp):
        parent = parent.parent_op()
    if parent is None:
        raise VerifyException("must be nested under a func.func")
    return parent


def reserve_named(function: FuncOp, name: str) -> ReserveBufferOp | None:
    return next((o for o in function.walk() if isinstance(o, ReserveBufferOp) and o.buffer_name == name), None)


@irdl_op_definition
class ReserveBufferOp(IRDLOperation):
    """A slot buffer of `size` bytes in `location`; its address is the result."""

    name = "pto.reserve_buffer"

    buffer = prop_def(StringAttr, prop_name="name")
    size = prop_def(IntegerAttr[I32])
    space = prop_def(AddressSpaceAttr, prop_name="location")
    auto = prop_def(BoolAttr)
    base = opt_prop_def(IntegerAttr[I32])
    addr = result_def(IntegerType(32))

    @property
    def buffer_name(self) -> str:
        return self.buffer.data

    @classmethod
    def parse(cls, parser: Parser) -> ReserveBufferOp:
        return _parse_buffer_op(cls, parser, ("name", "size", "location", "auto"), ("base",))

    def print(self, printer: Printer) -> None:
        fields = [("name", f'"{self.buffer_name}"'), ("size", str(self.size.value.data)),
                  ("location", str(self.space)), ("auto", "true" if self.auto.value.data else "false")]
        if self.base is not None:
            fields.append(("base", str(self.base.value.data)))
        _print_fields(printer, fields)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" -> ")
        printer.print_attribute(self.addr.type)

    def verify_(self) -> None:
        function = _function_of(self)
        if self.size.value.data <= 0:
            raise VerifyException("expects 'size' to be greater than 0")
        if self.space.data not in LOCATIONS:
            raise VerifyException("expects 'location' to be #pto.address_space<vec> or #pto.address_space<mat>")
        if not self.auto.value.data and self.base is None:
            raise VerifyException("expects 'base' when 'auto' is false")
        if self.auto.value.data and self.base is not None:
            raise VerifyException("unexpected 'base' when 'auto' is true (planning chooses the address)")
        if self.base is not None and self.base.value.data < 0:
            raise VerifyException("expects 'base' to be non-negative when present")
        if sum(1 for o in function.walk() if isinstance(o, ReserveBufferOp) and o.buffer_name == self.buffer_name) > 1:
            raise VerifyException("requires 'name' to be unique within the function")

    def planned_base(self) -> int | None:
        """The address: `base`, or None where PTOAS's planning would choose it (auto = true)."""
        return None if self.base is None or self.auto.value.data else self.base.value.data


@irdl_op_definition
class ImportReservedBufferOp(IRDLOperation):
    """The address of `peer_func`'s reserve_buffer of the same name."""

    name = "pto.import_reserved_buffer"

    buffer = prop_def(StringAttr, prop_name="name")
    peer_func = prop_def(SymbolRefAttr)
    addr = result_def(IntegerType(32))

    @classmethod
    def parse(cls, parser: Parser) -> ImportReservedBufferOp:
        return _parse_buffer_op(cls, parser, ("name", "peer_func"))

    def print(self, printer: Printer) -> None:
        _print_fields(printer, [("name", f'"{self.buffer.data}"'), ("peer_func", f"@{self.peer_func.root_reference.data}")])
        printer.print_op_attributes(self.attributes)
        printer.print_string(" -> ")
        printer.print_attribute(self.addr.type)

    def peer(self) -> FuncOp | None:
        module = self.parent_op()
        while module is not None and not isinstance(module, ModuleOp):
            module = module.parent_op()
        if module is None:
            return None
        name = self.peer_func.root_reference.data
        return next((o for o in module.walk() if isinstance(o, FuncOp) and o.sym_name.data == name), None)

    def verify_(self) -> None:
        function = _function_of(self)
        peer = self.peer()
        if peer is None:
            raise VerifyException("expects 'peer_func' to reference an existing func.func")
        same = [o for o in function.walk() if isinstance(o, ImportReservedBufferOp)
                and o.buffer.data == self.buffer.data and o.peer_func == self.peer_func]
        if len(same) > 1:
            raise VerifyException("requires (name, peer_func) to be unique within the function")
        if reserve_named(peer, self.buffer.data) is None:
            raise VerifyException("expects matching peer reserve_buffer to exist")

    def reserved(self) -> ReserveBufferOp:
        peer = self.peer()
        assert peer is not None, "verified"
        found = reserve_named(peer, self.buffer.data)
        assert found is not None, "verified"
        return found


RESERVED_OPS = [ReserveBufferOp, ImportReservedBufferOp]
