"""
The two spellings every PTO instruction op shares (docs/reference.md, "Syntax"):

    DPS: pto.NAME ins(%a, %b : Ta, Tb) outs(%d : Td) {attrs}
    SSA: %d = pto.NAME %a, %b {attrs} : (Ta, Tb) -> Td

`PtoInstructionOp` holds the operands as two variadic groups (`ins`, `outs`)
plus variadic results, parses and prints both forms, and names the role of each
operand (`operand_roles`), from which its memory effects follow (`OperandEffects`).
A subclass says which properties it has, its forms (`FORMS`, whose operand counts
`verify_` checks here), its roles and how to check its operands (`verify_operands`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, ClassVar

from xdsl.ir import Attribute, Operation, SSAValue, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    operand_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import EffectInstance, MemoryEffect, MemoryEffectKind, get_effects
from xdsl.utils.exceptions import VerifyException

from pto_dialect.diagnostics import CUBE_SIDE, PtoError, not_implemented
from pto_dialect.types import (
    PartitionTensorViewType,
    ShapedViewBase,
    TileBufType,
    TileType,
    TileTypeBase,
)

Roles = tuple[tuple[str, ...], tuple[str, ...]]
"""(roles of the ins, roles of the outs / results), in operand order."""


def is_memory(value: SSAValue) -> bool:
    """A tile buffer or a GM view: an operand whose contents an op reads or writes (an SSA
    `!pto.tile` is a value, without memory)."""
    return isinstance(value.type, TileBufType | ShapedViewBase)


class OperandEffects(MemoryEffect):
    """The memory effects of an op whose operands have roles (`role_lists`): it reads each
    memory input, writes each memory output, and writes the inputs its `WORKSPACE` and
    `WRITTEN_INS` name.
    An SSA instruction on value tiles has none, so `dce` drops it when its results are
    unused and `cse` merges two identical ones; a DPS instruction writes its outs, so both
    keep it."""

    @classmethod
    def get_effects(cls, op: Operation) -> set[EffectInstance]:
        ins_roles, _ = op.role_lists()  # pyright: ignore[reportAttributeAccessIssue]
        written_ins = op.WORKSPACE | op.WRITTEN_INS  # pyright: ignore[reportAttributeAccessIssue]
        effects: set[EffectInstance] = set()
        for role, value in zip(ins_roles, op.ins):  # pyright: ignore[reportAttributeAccessIssue]
            if is_memory(value):
                effects.add(EffectInstance(MemoryEffectKind.READ, value))
                if role in written_ins:
                    effects.add(EffectInstance(MemoryEffectKind.WRITE, value))
        for value in op.outs:  # pyright: ignore[reportAttributeAccessIssue]
            effects.add(EffectInstance(MemoryEffectKind.WRITE, value))
        return effects


class OperandEffectsByName(MemoryEffect):
    """An op reads or writes what its named operands hold (a scalar access its pointer, array
    or tile)."""

    def __init__(self, reads: tuple[str, ...] = (), writes: tuple[str, ...] = ()):
        super().__init__()
        self.reads, self.writes = reads, writes

    def get_effects(self, op: Operation) -> set[EffectInstance]:  # pyright: ignore[reportIncompatibleMethodOverride]
        return {EffectInstance(MemoryEffectKind.READ, getattr(op, n)) for n in self.reads} | {
            EffectInstance(MemoryEffectKind.WRITE, getattr(op, n)) for n in self.writes
        }


class ContainerEffect(MemoryEffect):
    """An element access reads or writes its container operand (`ElementAccessOp`)."""

    @classmethod
    def get_effects(cls, op: Operation) -> set[EffectInstance]:
        assert isinstance(op, ElementAccessOp)
        return {EffectInstance(op.EFFECT, getattr(op, op.CONTAINER))}


class ElementAccessOp(IRDLOperation):
    """One element moved between the operand named `CONTAINER` (a pointer, a local array, a tile) and
    the scalar unit: a read (`ElementReadOp`) gives it as its `value` result, a write
    (`ElementWriteOp`) takes it as its `value` operand. `check_element` checks the value's type
    (and the element's place) against the container."""

    CONTAINER: ClassVar[str]
    EFFECT: ClassVar[MemoryEffectKind]
    VALUE_ROLE: ClassVar[str]
    """How a message names the value: result or value."""
    if TYPE_CHECKING:
        value: SSAValue
    traits = traits_def(ContainerEffect())

    def verify_(self) -> None:
        self.check_element(self.value.type, self.VALUE_ROLE)

    def check_element(self, value_type: Attribute, what: str) -> None:
        raise NotImplementedError


class ElementReadOp(ElementAccessOp):
    EFFECT: ClassVar[MemoryEffectKind] = MemoryEffectKind.READ
    VALUE_ROLE: ClassVar[str] = "result"
    value = result_def()


class ElementWriteOp(ElementAccessOp):
    EFFECT: ClassVar[MemoryEffectKind] = MemoryEffectKind.WRITE
    VALUE_ROLE: ClassVar[str] = "value"
    value = operand_def()


def writes(op: Operation, value: SSAValue) -> bool:
    """Whether `op` declares a write of `value` (its memory effects; unknown ones: no)."""
    return any(e.kind == MemoryEffectKind.WRITE and e.value is value for e in get_effects(op) or ())


def written_operands(op: Operation) -> tuple[int, ...]:
    """The indices of the operands `op` declares it writes, in order (its memory effects, read
    once; unknown ones: none)."""
    written = {id(e.value) for e in get_effects(op) or () if e.kind == MemoryEffectKind.WRITE}
    return tuple(i for i, v in enumerate(op.operands) if id(v) in written)


def parse_operand_group(parser: Parser, what: str) -> tuple[list[UnresolvedOperand], list[TypeAttribute], int]:
    """`(%a, %b : Ta, Tb)`; returns names, types and the group's position."""
    names, types, pos, _ = parse_operand_group_with(parser, what, ())
    return names, types, pos


def parse_operand_group_with(
    parser: Parser, what: str, inline: tuple[str, ...]
) -> tuple[list[UnresolvedOperand], list[TypeAttribute], int, dict[str, Attribute]]:
    """`(%a, %b {name = ...} : Ta, Tb)`, the attributes named `inline` allowed before the colon
    (as PTOAS writes some); returns names, types, the group's position and those attributes."""
    pos = parser.pos
    parser.parse_punctuation("(")
    names = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
    attrs = parser.parse_optional_attr_dict() if inline else {}
    if set(attrs) - set(inline):
        parser.raise_error(f"expected only {' and '.join(inline)} inside {what}(...)", pos)
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(parser.Delimiter.NONE, lambda: _type_not_fp_operand(parser))
    fp = parser.pos
    if parser.parse_optional_keyword("fp") is not None:
        parser.raise_error(not_implemented(_FP_OPERAND, CUBE_SIDE), fp, parser.pos)
    parser.parse_punctuation(")")
    if len(names) != len(types):
        parser.raise_error(
            f"expects the number of {what} operands to match the number of {what} types", pos
        )
    return names, types, pos, attrs


def parse_dps_ins_with(parser: Parser, inline: tuple[str, ...]) -> tuple[list[SSAValue], dict[str, Attribute]]:
    """`(%a, %b {name = ...} : Ta, Tb)` after `ins`, resolved: the operands and the attributes
    (of those named `inline`) written before the colon."""
    names, types, pos, attrs = parse_operand_group_with(parser, "ins", inline)
    return list(parser.resolve_operands(names, types, pos)), attrs


_FP_OPERAND = "an acc tile's fp (scaling tile) operand, PTOAS's `fp %fp : T` or `%src : T, %fp : T`"


def _type_not_fp_operand(parser: Parser) -> TypeAttribute:
    """A type of an operand group, where PTOAS's TMOV_FP form may write `%fp : T` instead."""
    pos = parser.pos
    if parser.parse_optional_unresolved_operand() is not None:
        parser.raise_error(not_implemented(_FP_OPERAND, CUBE_SIDE), pos, parser.pos)
    return parser.parse_type()


def parse_type_list(parser: Parser) -> list[TypeAttribute]:
    """`T` or `(T, ...)` (possibly `()`)."""
    if parser.parse_optional_punctuation("(") is not None:
        if parser.parse_optional_punctuation(")") is not None:
            return []
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        parser.parse_punctuation(")")
        return types
    return [parser.parse_type()]


def parse_signature(parser: Parser) -> tuple[list[TypeAttribute], list[TypeAttribute]]:
    """`T -> R`, `(T, ...) -> R` or `(T, ...) -> (R, ...)` (pto-isa writes `T -> R`)."""
    inputs = parse_type_list(parser)
    parser.parse_punctuation("->")
    return inputs, parse_type_list(parser)


def print_type_list(printer: Printer, types: Sequence[Attribute]) -> None:
    if len(types) == 1:
        printer.print_attribute(types[0])
    else:
        printer.print_string("(")
        printer.print_list(types, printer.print_attribute)
        printer.print_string(")")


def print_operand_group(printer: Printer, keyword: str, values: Sequence[SSAValue], inline: Mapping[str, Attribute] = {}) -> None:
    """` keyword(%a, %b : Ta, Tb)`, with `inline` attributes (if any) before the colon."""
    printer.print_string(f" {keyword}(")
    printer.print_list(values, printer.print_ssa_value)
    if inline:
        printer.print_string(" ")
        printer.print_attr_dict(inline)
    printer.print_string(" : ")
    printer.print_list([v.type for v in values], printer.print_attribute)
    printer.print_string(")")


def operand_of_role(role: str, optional: bool = False) -> property:
    """An op's accessor for the operand (or SSA result) playing `role`: `mem =
    operand_of_role("mem")`; an optional role reads None when the op omits it."""
    if optional:
        return property(lambda self: self.role(role), doc=f"The {role} operand, if any.")
    return property(lambda self: self.operand(role), doc=f"The {role} operand.")


class PtoInstructionOp(IRDLOperation):
    """Base of the PTO instructions written in DPS or SSA form.

    Verification (IRDL constraints and `verify_`) reads only the op's signature: its
    class, operand and result types, properties and attributes; no traits, no defining
    ops. `verify_located` relies on it to check a repeated signature once."""

    ins = var_operand_def()
    outs = var_operand_def()
    res = var_result_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(OperandEffects())

    DEFAULTS: ClassVar[Mapping[str, Attribute]] = {}
    """Optional properties' meaning when absent: the lowering spells it out."""

    OMITS_DEFAULTS: ClassVar[bool] = False
    """The printer leaves out a property holding its default."""

    WORKSPACE: ClassVar[frozenset[str]] = frozenset()
    """Input roles the instruction writes as scratch space (not read-only inputs)."""

    WRITTEN_INS: ClassVar[frozenset[str]] = frozenset()
    """Input roles the instruction writes as its output (an SSA spelling without results)."""

    @classmethod
    def operand_roles(cls, n_ins: int, n_outs: int) -> Roles:
        """The role of each operand, from the operand counts alone: one map serves the SSA
        form (results in place of outs), the DPS form and every lowered op."""
        raise NotImplementedError(cls.name)

    FORMS: ClassVar[tuple[tuple[int, int], ...]] = ()
    """The (ins, outs) counts of each of its forms: with `operand_roles`, the roles every
    form has and those only some have (the builder's positional and keyword arguments).
    `verify_` accepts these counts only (SSA: results for outs; an out role in `WRITTEN_INS`
    may instead be the last operand)."""

    SSA_RESULTS: ClassVar[bool] = True
    """The SSA spelling returns the outs as results; an op whose out is GM memory has none."""

    BUILDER_NAMES: ClassVar[Mapping[str, str]] = {}
    """The builder's argument name of a role, where it is not the role in snake_case (PTOAS
    ptodsl's names; two roles of one name are one argument in different forms)."""

    SCALAR_LIKE: ClassVar[str | None] = None
    """The tile role whose element type a builder's Python-number operand takes (None: the
    first tile input's)."""

    HIDDEN_IN_DPS_ATTR_DICT: ClassVar[tuple[str, ...]] = ()
    """Properties printed inside `ins(...)` in DPS form rather than in the attr-dict."""

    # -- form -----------------------------------------------------------------

    @property
    def is_dps(self) -> bool:
        """DPS ops write their `outs`; SSA ops return one result per would-be out."""
        return not self.res

    @property
    def destinations(self) -> Sequence[SSAValue]:
        """The `outs` operands (DPS) or the results (SSA), in order."""
        return self.outs if self.is_dps else self.res

    def role_lists(self) -> Roles:
        return self.operand_roles(len(self.ins), len(self.destinations))

    def by_role(self) -> dict[str, SSAValue]:
        """Each operand (or SSA result) by its role."""
        ins_roles, out_roles = self.role_lists()
        return dict(zip(ins_roles, self.ins)) | dict(zip(out_roles, self.destinations))

    def role(self, name: str) -> SSAValue | None:
        """The operand (or SSA result) playing `name`."""
        ins_roles, out_roles = self.role_lists()
        for roles, values in ((ins_roles, self.ins), (out_roles, self.destinations)):
            if name in roles and roles.index(name) < len(values):
                return values[roles.index(name)]
        return None

    def operand(self, name: str) -> SSAValue:
        """A role every form of the op has; a malformed op is a verification error."""
        if (value := self.role(name)) is None:
            raise VerifyException(f"expects a {name} operand")
        return value

    # -- building -------------------------------------------------------------

    @classmethod
    def from_parts(
        cls,
        ins: Sequence[SSAValue],
        outs: Sequence[SSAValue],
        result_types: Sequence[Attribute],
        attributes: Mapping[str, Attribute],
    ):
        """Build the op, sorting a parsed attr-dict into properties and attributes."""
        prop_names = cls.get_irdl_definition().properties
        props = {k: v for k, v in attributes.items() if k in prop_names}
        attrs = {k: v for k, v in attributes.items() if k not in prop_names}
        return cls.build(
            operands=[ins, outs], result_types=[result_types], properties=props, attributes=attrs
        )

    # -- parsing --------------------------------------------------------------

    @classmethod
    def parse_dps_ins(cls, parser: Parser) -> tuple[list[SSAValue], dict[str, Attribute]]:
        """`(%a, ... : Ta, ...)` after `ins`; subclasses with inline attributes override."""
        names, types, pos = parse_operand_group(parser, "ins")
        return list(parser.resolve_operands(names, types, pos)), {}

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        if parser.parse_optional_keyword("ins") is not None:
            ins, attrs = cls.parse_dps_ins(parser)
            parser.parse_keyword("outs")
            names, types, outs_pos = parse_operand_group(parser, "outs")
            outs = parser.resolve_operands(names, types, outs_pos)
            attrs |= parser.parse_optional_attr_dict()
            return cls.from_parts(ins, outs, [], attrs)
        names: list[UnresolvedOperand] = []
        if (first := parser.parse_optional_unresolved_operand()) is not None:
            names = [first]
            while parser.parse_optional_punctuation(",") is not None:
                names.append(parser.parse_unresolved_operand())
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        in_types, result_types = parse_signature(parser)
        ins = parser.resolve_operands(names, in_types, pos)
        return cls.from_parts(ins, [], result_types, attrs)

    # -- printing -------------------------------------------------------------

    def print_dps_ins(self, printer: Printer) -> None:
        print_operand_group(printer, "ins", self.ins)

    def inline_properties(self) -> dict[str, Attribute]:
        """The properties printed inside `ins(...)` (HIDDEN_IN_DPS_ATTR_DICT) that do not hold their default."""
        return {
            name: value for name in self.HIDDEN_IN_DPS_ATTR_DICT
            if (value := self.properties.get(name)) is not None and value != self.DEFAULTS.get(name)
        }

    def printed_attributes(self) -> dict[str, Attribute]:
        """Discardable attributes first, then non-default properties in definition order."""
        hidden = self.HIDDEN_IN_DPS_ATTR_DICT if self.is_dps else ()
        out = dict(self.attributes)
        for name in type(self).get_irdl_definition().properties:
            value = self.properties.get(name)
            if value is None or name == "operandSegmentSizes" or name in hidden:
                continue
            if self.OMITS_DEFAULTS and self.DEFAULTS.get(name) == value:
                continue
            out[name] = value
        return out

    def print(self, printer: Printer) -> None:
        if AttrSizedOperandSegments.attribute_name not in self.properties:  # read unverified (--disable-verify)
            raise PtoError.at_op(self, "cannot be printed: its operandSegmentSizes property is missing")
        attrs = self.printed_attributes()
        if self.outs:
            self.print_dps_ins(printer)
            print_operand_group(printer, "outs", self.outs)
            if attrs:
                printer.print_string(" ")
                printer.print_attr_dict(attrs)
            return
        if self.ins:
            printer.print_string(" ")
            printer.print_list(self.ins, printer.print_ssa_value)
        if attrs:
            printer.print_string(" ")
            printer.print_attr_dict(attrs)
        printer.print_string(" : ")
        print_type_list(printer, [v.type for v in self.ins])
        printer.print_string(" -> ")
        print_type_list(printer, [r.type for r in self.res])

    # -- structural checks shared by the instructions --------------------------

    def verify_(self) -> None:
        self.verify_dps_or_ssa()
        self.verify_operand_counts()
        self.verify_operands()

    def verify_operands(self) -> None:
        """The op's own checks, on operands whose counts are one of its FORMS."""

    @classmethod
    @cache
    def operand_counts(cls) -> dict[tuple[int, int], str]:
        """Each (ins, outs or results) count the op accepts, with its roles as the message
        names them: `ins(src[, tmp]) outs(dst)`, `the operands src, idx, mem`."""
        by_outs: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
        counts: dict[tuple[int, int], str] = {}
        moved: dict[tuple[int, int], str] = {}
        for n_ins, n_outs in cls.FORMS:
            ins, outs = cls.operand_roles(n_ins, n_outs)
            by_outs.setdefault(outs, []).append(ins)
            written = [r for r in outs if r in cls.WRITTEN_INS]
            if written:
                spelled = cls.operand_roles(n_ins + len(written), n_outs - len(written))[0]
                moved[(n_ins + len(written), n_outs - len(written))] = "the operands " + ", ".join(spelled)
        for outs, ins_lists in by_outs.items():
            for ins, lengths in _optional_tails(ins_lists):
                text = f"ins({ins})" + (f" outs({', '.join(outs)})" if outs else "")
                counts |= {(n, len(outs)): text for n in lengths}
        return counts | moved

    def verify_operand_counts(self) -> None:
        n_ins, n_outs = len(self.ins), len(self.destinations)
        accepted = self.operand_counts()
        if (n_ins, n_outs) in accepted and (self.SSA_RESULTS or not self.res):
            return
        forms = " or ".join(dict.fromkeys(accepted.values()))
        if not self.SSA_RESULTS:
            forms += " (no results)"
        if self.is_dps:
            got = f"{n_ins} ins and {n_outs} outs"
        else:
            got = f"{_count(n_ins, 'operand')} and {_count(n_outs, 'result')}"
        raise VerifyException(f"expects {self.name.removeprefix('pto.')} {forms}, got {got}")

    def verify_dps_or_ssa(self) -> None:
        if self.outs and self.res:
            raise VerifyException("expects either outs operands (DPS form) or results (SSA form), not both")
        for r in self.res:
            if isinstance(r.type, TileTypeBase):
                verify_tile_layout(r.type)

    def expect_tile(self, role: str, value: SSAValue) -> TileTypeBase:
        """The tile type of an operand or result; tile_buf in DPS form, tile in SSA form."""
        wanted = TileBufType if self.is_dps else TileType
        if not isinstance(value.type, wanted):
            raise VerifyException(f"expects {role} to be a !{wanted.name}, got {value.type}")
        return value.type

    def expect_tile_in(self, role: str, value: SSAValue) -> TileTypeBase:
        """An input tile; `ACCEPTS_VALUE_TILES_IN_DPS` ops (tstore) also take a value tile."""
        if self.is_dps and self.ACCEPTS_VALUE_TILES_IN_DPS and isinstance(value.type, TileTypeBase):
            return value.type
        return self.expect_tile(role, value)

    ACCEPTS_VALUE_TILES_IN_DPS: ClassVar[bool] = False

    @staticmethod
    def expect_view(role: str, value: SSAValue) -> PartitionTensorViewType:
        if not isinstance(value.type, PartitionTensorViewType):
            raise VerifyException(f"expects {role} to be !pto.partition_tensor_view, got {value.type}")
        return value.type


class InlineAttributesOp(PtoInstructionOp):
    """An instruction whose HIDDEN_IN_DPS_ATTR_DICT properties PTOAS writes inside `ins(...)`,
    before the colon (`ins(%k0, ... {rounds = 7 : i32} : i32, ...)`), printed there unless default."""

    @classmethod
    def parse_dps_ins(cls, parser: Parser) -> tuple[list[SSAValue], dict[str, Attribute]]:
        return parse_dps_ins_with(parser, cls.HIDDEN_IN_DPS_ATTR_DICT)

    def print_dps_ins(self, printer: Printer) -> None:
        print_operand_group(printer, "ins", self.ins, self.inline_properties())


class SrcTmpDstOp(PtoInstructionOp):
    """An instruction of src, an optional tmp workspace and dst; `verify_src_dst` says how dst
    must relate to src."""

    WORKSPACE: ClassVar[frozenset[str]] = frozenset({"tmp"})
    FORMS: ClassVar[tuple[tuple[int, int], ...]] = ((1, 1), (2, 1))

    @classmethod
    def operand_roles(cls, n_ins: int, n_outs: int) -> Roles:
        return ("src", "tmp")[:n_ins], ("dst",)

    src = operand_of_role("src")
    tmp = operand_of_role("tmp", optional=True)

    def verify_operands(self) -> None:
        src = self.expect_tile_in("src", self.src)
        if self.tmp is not None:
            self.expect_tile_in("tmp", self.tmp)
        self.verify_src_dst(src, self.expect_tile("dst", self.destinations[0]))

    def verify_src_dst(self, src: TileTypeBase, dst: TileTypeBase) -> None:
        raise NotImplementedError


def _optional_tails(role_lists: list[tuple[str, ...]]) -> list[tuple[str, list[int]]]:
    """Role lists, each extending the one before it by a role, as one `a[, b[, c]]` (with
    their lengths); others apart."""
    chains: list[list[tuple[str, ...]]] = []
    for roles in sorted(role_lists, key=len):
        if chains and roles[:-1] == chains[-1][-1] and len(roles) == len(chains[-1][-1]) + 1:
            chains[-1].append(roles)
        else:
            chains.append([roles])
    texts = []
    for chain in chains:
        extra = [roles[-1] for roles in chain[1:]]
        text = ", ".join(chain[0]) + "".join(f"[, {r}" for r in extra) + "]" * len(extra)
        texts.append((text, [len(roles) for roles in chain]))
    return texts


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def same_element_type(role_a: str, a: Attribute, role_b: str, b: Attribute) -> None:
    if a != b:
        raise VerifyException(
            f"expects {role_a} and {role_b} to have the same element type, got {a} and {b}"
        )


def verify_tile_layout(tile: TileTypeBase) -> None:
    """Allocation layout rules of PTOAS: for an alloc_tile's buffer, and
    for an SSA result, which pto-ssa-to-dps turns into one."""
    rows, cols = tile.shape
    nbytes = tile.element.bytes
    if tile.inner_box is None:
        if tile.is_row_major and cols * nbytes % 32:
            raise VerifyException(
                "expects result row-major none_box tile row byte size (cols * sizeof(dtype)) "
                f"to be 32-byte aligned, but got {cols * nbytes} bytes"
            )
        if not tile.is_row_major and rows * nbytes % 32:
            raise VerifyException(
                "expects result col-major none_box tile column byte size (rows * sizeof(dtype)) "
                f"to be 32-byte aligned, but got {rows * nbytes} bytes"
            )
        return
    if (problem := tile.params.box_shape_problem()) is not None:
        raise VerifyException(f"expects result {problem[0]}")
