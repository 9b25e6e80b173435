"""
The synchronization ops, in the syntax PTOAS writes (PTOAS include/PTO/IR/PTOOps.td, "Synchronization
Ops"): pipes run concurrently, and these are the only order between them.

    pto.set_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)
    pto.wait_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]       the V pipe waits until MTE2 reaches the set
    pto.set_flag_dyn[<PIPE_MTE2>, <PIPE_V>, %e]            ... with an index SSA event id
    pto.wait_flag_dyn[<PIPE_MTE2>, <PIPE_V>, %e]
    pto.barrier <PIPE_ALL>                                  pipe_barrier(PIPE_ALL): every pipe drains
    pto.sync.set <PIPE_MTE3>, 0 {ffts_mode = 2 : i32}      cross-core (cube <-> vector) signal
    pto.sync.wait <PIPE_V>, 0                               ... and its wait (wait_flag_dev)

Each pipe and event also reads in its long (`#pto.pipe<PIPE_V>`, `#pto.event<EVENT_ID0>`) and quoted
(`"PIPE_V"`) spellings, as PTOAS's parser takes them. Structure only here: which pipes and event ids
a target has is its own data (targets/<t>/sync.py), checked by pto-verify-target.
"""

from __future__ import annotations

from xdsl.dialects.builtin import I32, IndexType, IntegerAttr, IntegerType
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from pto_dialect.attributes import AngleBracketed
from pto_dialect.instruction import Pipe


class Event(StrEnum):
    """PTOAS's EVENT enum: the event ids a static set_flag / wait_flag names."""

    EVENT_ID0 = "EVENT_ID0"
    EVENT_ID1 = "EVENT_ID1"
    EVENT_ID2 = "EVENT_ID2"
    EVENT_ID3 = "EVENT_ID3"
    EVENT_ID4 = "EVENT_ID4"
    EVENT_ID5 = "EVENT_ID5"
    EVENT_ID6 = "EVENT_ID6"
    EVENT_ID7 = "EVENT_ID7"

    @property
    def number(self) -> int:
        return int(self.value.removeprefix("EVENT_ID"))

    @staticmethod
    def of(number: int) -> Event:
        return Event(f"EVENT_ID{number}")


@irdl_attr_definition
class PipeAttr(AngleBracketed, EnumAttribute[Pipe]):
    """`#pto.pipe<PIPE_MTE2>`: a hardware pipe."""

    name = "pto.pipe"


@irdl_attr_definition
class EventAttr(AngleBracketed, EnumAttribute[Event]):
    """`#pto.event<EVENT_ID0>`: a flag's event id."""

    name = "pto.event"


def _parse_enum(parser: Parser, attr_type: type[PipeAttr] | type[EventAttr]) -> Attribute:
    """`<X>`, `"X"` or the whole attribute `#pto.pipe<X>`."""
    enum = attr_type.enum_type
    if (quoted := parser.parse_optional_str_literal()) is not None:
        if quoted not in {e.value for e in enum}:
            parser.raise_error(f"invalid {attr_type.name.removeprefix('pto.')} token: {quoted}")
        return attr_type.new(enum(quoted))
    if parser.parse_optional_punctuation("<") is not None:
        value = parser.parse_str_enum(enum)
        parser.parse_punctuation(">")
        return attr_type.new(value)
    pos = parser.pos
    attr = parser.parse_attribute()
    if not isinstance(attr, attr_type):
        parser.raise_error(f"expected {attr_type.name} attribute, got {attr}", pos)
    return attr


def _print_short(printer: Printer, attr: PipeAttr | EventAttr) -> None:
    printer.print_string(f"<{attr.data.value}>")


class FlagOpBase(IRDLOperation):
    """set_flag / wait_flag between two pipes: `[src, dst, event]`."""

    src_pipe = prop_def(PipeAttr)
    dst_pipe = prop_def(PipeAttr)

    @property
    def pair(self) -> tuple[Pipe, Pipe]:
        return self.src_pipe.data, self.dst_pipe.data

    @classmethod
    def _parse_event(cls, parser: Parser) -> tuple[list[SSAValue], dict[str, Attribute]]:
        """The event: (operands, properties) of the op."""
        raise NotImplementedError

    def _print_event(self, printer: Printer) -> None:
        raise NotImplementedError

    @classmethod
    def parse(cls, parser: Parser):
        parser.parse_punctuation("[")
        src = _parse_enum(parser, PipeAttr)
        parser.parse_punctuation(",")
        dst = _parse_enum(parser, PipeAttr)
        parser.parse_punctuation(",")
        operands, event = cls._parse_event(parser)
        parser.parse_punctuation("]")
        attrs = parser.parse_optional_attr_dict()
        return cls.create(operands=operands, properties={"src_pipe": src, "dst_pipe": dst, **event}, attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string("[")
        _print_short(printer, self.src_pipe)
        printer.print_string(", ")
        _print_short(printer, self.dst_pipe)
        printer.print_string(", ")
        self._print_event(printer)
        printer.print_string("]")
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        src, dst = self.pair
        if Pipe.ALL in (src, dst):
            raise VerifyException("expects two single pipes, got PIPE_ALL (pto.barrier <PIPE_ALL> waits for every pipe)")
        if src == dst:
            raise VerifyException(
                f"expects two different pipes, got {src.value} twice (a pipe runs in order: "
                f"pto.barrier <{src.value}> drains it)"
            )


class StaticFlagOp(FlagOpBase):
    event_id = prop_def(EventAttr)

    def __init__(self, src: Pipe, dst: Pipe, event: int):
        super().__init__(
            properties={"src_pipe": PipeAttr(src), "dst_pipe": PipeAttr(dst), "event_id": EventAttr(Event.of(event))}
        )

    @property
    def event(self) -> int:
        return self.event_id.data.number

    @classmethod
    def _parse_event(cls, parser: Parser) -> tuple[list[SSAValue], dict[str, Attribute]]:
        return [], {"event_id": _parse_enum(parser, EventAttr)}

    def _print_event(self, printer: Printer) -> None:
        _print_short(printer, self.event_id)


class DynFlagOp(FlagOpBase):
    event_id = operand_def(IndexType)

    @property
    def event(self) -> None:
        """Known only when it runs."""
        return None

    @classmethod
    def _parse_event(cls, parser: Parser) -> tuple[list[SSAValue], dict[str, Attribute]]:
        return [parser.resolve_operand(parser.parse_unresolved_operand(), IndexType())], {}

    def _print_event(self, printer: Printer) -> None:
        printer.print_ssa_value(self.event_id)

@irdl_op_definition
class SetFlagOp(StaticFlagOp):
    """`set_flag(src, dst, event)`: src signals, once everything it issued before has completed."""

    name = "pto.set_flag"


@irdl_op_definition
class WaitFlagOp(StaticFlagOp):
    """`wait_flag(src, dst, event)`: dst stalls until src's matching set_flag (and consumes it)."""

    name = "pto.wait_flag"


@irdl_op_definition
class SetFlagDynOp(DynFlagOp):
    """set_flag with an index event id."""

    name = "pto.set_flag_dyn"


@irdl_op_definition
class WaitFlagDynOp(DynFlagOp):
    """wait_flag with an index event id."""

    name = "pto.wait_flag_dyn"


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """`pipe_barrier(pipe)`: the pipe's earlier work completes before its later work starts;
    `<PIPE_ALL>`: every pipe's."""

    name = "pto.barrier"
    pipe = prop_def(PipeAttr)

    def __init__(self, pipe: Pipe):
        super().__init__(properties={"pipe": PipeAttr(pipe)})

    @classmethod
    def parse(cls, parser: Parser):
        pipe = _parse_enum(parser, PipeAttr)
        return cls.create(properties={"pipe": pipe}, attributes=parser.parse_optional_attr_dict())

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_short(printer, self.pipe)
        printer.print_op_attributes(self.attributes)


FFTS_MODES = range(3)
"""sync.set's FFTS modes: 0 inter-block, 1 sub-block, 2 block (the default)."""


class CrossCoreBase(IRDLOperation):
    """`pto.sync.set <PIPE>, ID` / `pto.sync.wait <PIPE>, %id`: a cross-core (cube <-> vector)
    flag, static or dynamic id, optional `ffts_mode`."""

    pipe = prop_def(PipeAttr)
    event_id = opt_prop_def(IntegerAttr[I32])
    ffts_mode = opt_prop_def(IntegerAttr[I32])
    event_id_dyn = opt_operand_def(IndexType)

    @classmethod
    def parse(cls, parser: Parser):
        pipe = _parse_enum(parser, PipeAttr)
        parser.parse_punctuation(",")
        props: dict[str, Attribute] = {"pipe": pipe}
        operands: list[SSAValue] = []
        if (dynamic := parser.parse_optional_unresolved_operand()) is not None:
            operands.append(parser.resolve_operand(dynamic, IndexType()))
        else:
            props["event_id"] = IntegerAttr(parser.parse_integer(), IntegerType(32))
        attrs = parser.parse_optional_attr_dict()
        if (mode := attrs.pop("ffts_mode", None)) is not None:
            props["ffts_mode"] = mode
        return cls.create(operands=operands, properties=props, attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_short(printer, self.pipe)
        printer.print_string(", ")
        if self.event_id_dyn is not None:
            printer.print_ssa_value(self.event_id_dyn)
        elif self.event_id is not None:
            printer.print_string(str(self.event_id.value.data))
        extra = dict(self.attributes)
        if self.ffts_mode is not None:
            extra["ffts_mode"] = self.ffts_mode
        printer.print_op_attributes(extra)

    def verify_(self) -> None:
        if (self.event_id is None) == (self.event_id_dyn is None):
            raise VerifyException("expects exactly one event-id form: static attr or dynamic index operand")
        if self.ffts_mode is not None and self.ffts_mode.value.data not in FFTS_MODES:
            raise VerifyException(f"requires ffts_mode in range [0, 2], but got {self.ffts_mode.value.data}")
        if self.pipe.data == Pipe.ALL:
            raise VerifyException("expects a single pipe, got PIPE_ALL")

    @property
    def mode(self) -> int:
        return self.ffts_mode.value.data if self.ffts_mode is not None else 2


@irdl_op_definition
class SyncSetOp(CrossCoreBase):
    """`ffts_cross_core_sync(pipe, getFFTSMsg(mode, id))`: signal the other core kind once the pipe is done."""

    name = "pto.sync.set"


@irdl_op_definition
class SyncWaitOp(CrossCoreBase):
    """`wait_flag_dev(id)`: wait for the other core kind's signal."""

    name = "pto.sync.wait"


FLAG_OPS = (SetFlagOp, WaitFlagOp, SetFlagDynOp, WaitFlagDynOp)
SYNC_OPS = [*FLAG_OPS, BarrierOp, SyncSetOp, SyncWaitOp]
SYNC_ATTRIBUTES = [PipeAttr, EventAttr]
