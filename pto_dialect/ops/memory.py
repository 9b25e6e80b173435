"""
Kernel scaffolding, as PTOAS writes it: GM views, tile allocation,
loads/stores between them, and the vector/cube sections.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    I64,
    IndexType,
    IntegerAttr,
)
from xdsl.ir import Attribute, Block, OpResult, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import EffectInstance, MemoryEffect, MemoryEffectKind, NoTerminator, Pure, RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from pto_dialect.attributes import GmLayout, GmLayoutAttr
from pto_dialect.diagnostics import PtoError
from pto_dialect.ops.common import verify_tile_layout
from pto_dialect.types import (
    PartitionTensorViewType,
    PtrType,
    TensorViewType,
    TileBufType,
    TileTypeBase,
)

INDEX = IndexType()


def constant_index(value: SSAValue) -> int | None:
    """The value of an `arith.constant` index/integer operand, if it is one."""
    # while parsing, a use before the definition is a ForwardDeclaredValue, whose
    # `owner` raises: not (yet) known to be a constant
    if not isinstance(value, OpResult):
        return None
    owner = value.op
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _parse_value_list(parser: Parser, keyword: str) -> list[UnresolvedOperand]:
    """`keyword = [%a, %b]`"""
    parser.parse_keyword(keyword)
    parser.parse_punctuation("=")
    return parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE, parser.parse_unresolved_operand
    )


def _parse_view_head(parser: Parser, *keywords: str) -> tuple[UnresolvedOperand, list[list[UnresolvedOperand]], dict[str, Attribute]]:
    """`%src, keyword = [%a, %b], ... {attrs} :`: a GM view op's operands and attributes, up to its types."""
    source = parser.parse_unresolved_operand()
    lists: list[list[UnresolvedOperand]] = []
    for keyword in keywords:
        parser.parse_punctuation(",")
        lists.append(_parse_value_list(parser, keyword))
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    return source, lists, attrs


def _print_view_head(printer: Printer, source: SSAValue, attrs: Mapping[str, Attribute], **lists: Sequence[SSAValue]) -> None:
    """` %src, keyword = [%a, %b], ... {attrs} : `: what `_parse_view_head` reads."""
    printer.print_string(" ")
    printer.print_ssa_value(source)
    for keyword, values in lists.items():
        printer.print_string(f", {keyword} = [")
        printer.print_list(values, printer.print_ssa_value)
        printer.print_string("]")
    if attrs:
        printer.print_string(" ")
        printer.print_attr_dict(attrs)
    printer.print_string(" : ")


@irdl_op_definition
class MakeTensorViewOp(IRDLOperation):
    """
    A GM tensor over a pointer, with one index shape and stride value per dim.

        %tv = pto.make_tensor_view %p, shape = [%r, %c], strides = [%c, %c1] {layout = #pto.layout<nd>} : !pto.tensor_view<?x?xf32>
    """

    name = "pto.make_tensor_view"

    ptr = operand_def(PtrType)
    shape = var_operand_def(IndexType)
    strides = var_operand_def(IndexType)
    result = result_def(TensorViewType)
    layout = opt_prop_def(GmLayoutAttr)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())

    @property
    def gm_layout(self) -> GmLayout:
        return self.layout.data if self.layout is not None else GmLayout.ND

    @classmethod
    def parse(cls, parser: Parser):
        ptr, (shape, strides), attrs = _parse_view_head(parser, "shape", "strides")
        type_pos = parser.pos
        view = parser.parse_type()
        if not isinstance(view, TensorViewType):
            parser.raise_error(f"expected !pto.tensor_view result type, got {view}", type_pos)
        defined = parser.ssa_values.get(ptr.operand_name)
        if defined and isinstance(defined[0].type, PtrType):
            if defined[0].type.element_type != view.element_type:
                parser.raise_error(
                    "ptr element type must match tensor_view element type, but got "
                    f"ptr={defined[0].type.element_type} view={view.element_type}",
                    ptr.span,
                )
            ptr_type = defined[0].type
        else:
            ptr_type = PtrType.get(view.element_type)
        props = {"layout": attrs.pop("layout")} if "layout" in attrs else {}
        return cls.build(
            operands=[
                parser.resolve_operand(ptr, ptr_type),
                [parser.resolve_operand(v, INDEX) for v in shape],
                [parser.resolve_operand(v, INDEX) for v in strides],
            ],
            result_types=[view],
            properties=props,
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        attrs = dict(self.attributes)
        if self.layout is not None:
            attrs["layout"] = self.layout
        _print_view_head(printer, self.ptr, attrs, shape=self.shape, strides=self.strides)
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        view = self.result.type
        assert isinstance(view, TensorViewType)
        assert isinstance(self.ptr.type, PtrType)
        if self.ptr.type.element_type != view.element_type:
            raise VerifyException(
                "ptr element type must match tensor_view element type, but got "
                f"ptr={self.ptr.type.element_type} view={view.element_type}"
            )
        rank = len(view.shape)
        if len(self.shape) != rank or len(self.strides) != rank:
            raise VerifyException(f"shape/strides operand counts must match tensor_view rank={rank}")
        for dim, value in zip(view.shape, self.shape):
            if dim != DYNAMIC_INDEX and (c := constant_index(value)) is not None and c != dim:
                raise VerifyException(f"shape operand {c} does not match tensor_view dim {dim}")


@irdl_op_definition
class PartitionViewOp(IRDLOperation):
    """
    A window of a tensor view, at index offsets with index sizes.

        %pv = pto.partition_view %tv, offsets = [%i, %c0], sizes = [%c8, %c32] : !pto.tensor_view<?x?xf32>
    The result type is inferred from constant sizes (`?` otherwise); `-> T` spells it out.
    """

    name = "pto.partition_view"

    source = operand_def(TensorViewType)
    offsets = var_operand_def(IndexType)
    sizes = var_operand_def(IndexType)
    result = result_def(PartitionTensorViewType)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())

    @staticmethod
    def inferred_type(source: TensorViewType, sizes: Sequence[SSAValue]) -> PartitionTensorViewType:
        dims = [c if (c := constant_index(s)) is not None else DYNAMIC_INDEX for s in sizes]
        return PartitionTensorViewType.get(dims, source.element_type)

    @classmethod
    def parse(cls, parser: Parser):
        source, index_lists, attrs = _parse_view_head(parser, "offsets", "sizes")
        offsets, sizes = ([parser.resolve_operand(v, INDEX) for v in values] for values in index_lists)
        type_pos = parser.pos
        source_type = parser.parse_type()
        if not isinstance(source_type, TensorViewType):
            parser.raise_error(f"expected !pto.tensor_view source type, got {source_type}", type_pos)
        if parser.parse_optional_punctuation("->") is not None:
            result_type = parser.parse_type()
        else:
            result_type = cls.inferred_type(source_type, sizes)
        return cls.build(
            operands=[parser.resolve_operand(source, source_type), offsets, sizes],
            result_types=[result_type],
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        _print_view_head(printer, self.source, self.attributes, offsets=self.offsets, sizes=self.sizes)
        printer.print_attribute(self.source.type)
        source = self.source.type
        assert isinstance(source, TensorViewType)
        if self.result.type != self.inferred_type(source, self.sizes):
            printer.print_string(" -> ")
            printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        source = self.source.type
        result = self.result.type
        assert isinstance(source, TensorViewType) and isinstance(result, PartitionTensorViewType)
        rank = len(source.shape)
        if len(self.offsets) != rank or len(self.sizes) != rank:
            raise VerifyException(f"offsets/sizes operand counts must match tensor_view rank={rank}")
        if len(result.shape) != rank:
            raise VerifyException(
                f"result rank {len(result.shape)} must match tensor_view rank={rank}"
            )
        if result.element_type != source.element_type:
            raise VerifyException(
                f"result element type {result.element_type} must match source element type {source.element_type}"
            )
        for i, (off, size, src_dim, res_dim) in enumerate(
            zip(self.offsets, self.sizes, source.shape, result.shape)
        ):
            o, s = constant_index(off), constant_index(size)
            if o is not None and o < 0:
                raise VerifyException(f"offset at dim {i} must be non-negative, got {o}")
            if s is not None and s <= 0:
                raise VerifyException(f"size at dim {i} must be positive, got {s}")
            if s is not None and res_dim != DYNAMIC_INDEX and s != res_dim:
                raise VerifyException(f"size at dim {i} ({s}) must match result dim {res_dim}")
            if o is not None and s is not None and src_dim != DYNAMIC_INDEX and o + s > src_dim:
                raise VerifyException(
                    f"offset + size at dim {i} ({o} + {s}) exceeds source dim {src_dim}"
                )


TILE_ADDRESS_ALIGNMENT = {"left": 512, "right": 512, "acc": 512}
"""Byte alignment of a tile address per loc; every other local space uses 32 bytes."""


class AllocatesResult(MemoryEffect):
    """An alloc_tile allocates its result and nothing else: `dce` drops an unused one, `cse`
    never merges two (each is a tile of its own)."""

    @classmethod
    def get_effects(cls, op: Operation) -> set[EffectInstance]:
        return {EffectInstance(MemoryEffectKind.ALLOC, op.results[0])}


@irdl_op_definition
class AllocTileOp(IRDLOperation):
    """
    A tile buffer, optionally at a byte address, with dynamic valid dims as operands.

        %t = pto.alloc_tile addr = %a valid_row = %r valid_col = %c : !pto.tile_buf<vec, 8x8xf32, valid=?x?>
    """

    name = "pto.alloc_tile"

    addr = opt_operand_def(I64)
    valid_row = opt_operand_def(IndexType)
    valid_col = opt_operand_def(IndexType)
    result = result_def(TileBufType)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(AllocatesResult())

    assembly_format = (
        "(`addr` `=` $addr^)? (`valid_row` `=` $valid_row^)? (`valid_col` `=` $valid_col^)? "
        "attr-dict `:` type($result)"
    )

    def __init__(self, tile: TileBufType, addr: SSAValue | None = None,
                 valid_row: SSAValue | None = None, valid_col: SSAValue | None = None):
        super().__init__(
            operands=[addr, valid_row, valid_col], result_types=[tile]
        )

    @property
    def tile(self) -> TileBufType:
        assert isinstance(self.result.type, TileBufType)
        return self.result.type

    def verify_(self) -> None:
        tile = self.tile
        for name, operand, dim in (
            ("valid_row", self.valid_row, tile.valid_row.data),
            ("valid_col", self.valid_col, tile.valid_col.data),
        ):
            key = "v_row" if name == "valid_row" else "v_col"
            if dim == DYNAMIC_INDEX and operand is None:
                raise VerifyException(f"{name} operand is required because result type {key} is ?")
            if dim != DYNAMIC_INDEX and operand is not None:
                raise VerifyException(
                    f"{name} operand must be absent because result type {key} is {dim}"
                )
        verify_tile_layout(tile)
        if self.addr is not None:
            verify_tile_address(self.addr, tile)


def verify_tile_address(value: SSAValue, tile: TileBufType) -> None:
    """A constant tile address non-negative and aligned for the tile's memory."""
    if (addr := constant_index(value)) is None:
        return
    if addr < 0:
        raise VerifyException(f"addr must be non-negative, got {addr}")
    align = TILE_ADDRESS_ALIGNMENT.get(tile.loc.data, 32)
    if addr % align:
        raise VerifyException(f"addr must be aligned to {align} bytes for local tile memory space, got {addr}")


def smallest_tile(like: TileTypeBase) -> TileBufType:
    """A 1 x 32-byte vec tile of `like`'s element type: the least a tmp can be."""
    return TileBufType.get("vec", (1, 32 // like.element.bytes), like.element_type)


def alloc_like(op: Operation, value: SSAValue) -> AllocTileOp:
    """A tile with `value`'s element type, shape and valid shape (dynamic dims: the values of
    the alloc_tile that made it); a located error for `op` when that alloc is not known."""
    tile = value.type
    assert isinstance(tile, TileTypeBase)
    buffer = TileBufType.from_params(tile.params)
    if DYNAMIC_INDEX not in tile.valid_shape:
        return AllocTileOp(buffer)
    if not isinstance(value.owner, AllocTileOp):
        raise PtoError.at_op(
            op, "cannot add an implicit tmp: src's dynamic valid shape is not that of a pto.alloc_tile"
        )
    return AllocTileOp(buffer, valid_row=value.owner.valid_row, valid_col=value.owner.valid_col)


@irdl_op_definition
class TAssignOp(IRDLOperation):
    """
    The same tile buffer placed at a byte address.

        %t2 = pto.tassign %t, %addr : !pto.tile_buf<...> -> !pto.tile_buf<...>
    """

    name = "pto.tassign"

    tile = operand_def(TileBufType)
    addr = operand_def(I64)
    result = result_def(TileBufType)

    assembly_format = "$tile `,` $addr attr-dict `:` type($tile) `->` type($result)"

    def verify_(self) -> None:
        if self.tile.type != self.result.type:
            raise VerifyException(
                f"expects result type to equal tile type, got {self.result.type} and {self.tile.type}"
            )
        tile = self.tile.type
        assert isinstance(tile, TileBufType)
        verify_tile_address(self.addr, tile)


class SectionOp(IRDLOperation):
    """Code for one core kind; one block, no terminator. `{}` is an empty block, as in MLIR."""

    body = region_def("single_block")
    traits = traits_def(NoTerminator(), RecursiveMemoryEffect())

    @classmethod
    def parse(cls, parser: Parser) -> SectionOp:
        body = parser.parse_region()
        if not body.blocks:
            body.add_block(Block())
        return cls.create(regions=[body], attributes=parser.parse_optional_attr_dict())

    def verify_(self) -> None:
        if self.body.blocks and self.body.block.args:
            raise VerifyException("expects a body block without arguments (nothing passes them)")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class SectionVectorOp(SectionOp):
    """`pto.section.vector { ... }`: runs on the vector core (AIV)."""

    name = "pto.section.vector"


@irdl_op_definition
class SectionCubeOp(SectionOp):
    """`pto.section.cube { ... }`: runs on the cube core (AIC)."""

    name = "pto.section.cube"

