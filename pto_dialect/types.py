"""
PTO types, in PTOAS's syntax: tile buffers, value tiles, GM views, pointers.

Each type parses and prints itself, and checks its parameters while parsing so
that a bad type is reported at its own `FILE:LINE:COL` (xDSL reports an error
raised from `Attribute.verify` during parsing without a location).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, ClassVar, cast

from xdsl.dialects.builtin import DYNAMIC_INDEX, IntAttr, StringAttr
from xdsl.ir import Attribute, Data, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.mlir_lexer import MLIRTokenKind

from pto_dialect.attributes import AddressSpace
from pto_dialect.dtypes import ElementType, element_info, unsupported_element


def verified_element(element_type: Attribute) -> ElementType:
    """The element facts of a type parameter that its type verified at construction."""
    info = element_info(element_type)
    assert info is not None, "verified at construction"
    return info


# ---------------------------------------------------------------------------
# Tile parameters

TILE_LOCS = ("mat", "left", "right", "acc", "vec", "bias", "scaling")
BLAYOUTS = ("row_major", "col_major")
SLAYOUTS = ("none_box", "row_major", "col_major")
FRACTALS = (32, 512, 1024)
PADS = {0: "null", 1: "zero", 2: "max", 3: "min"}
COMPACTS = {0: "null", 1: "normal", 2: "row_plus_one"}



@dataclass(frozen=True)
class TileParams:
    """The parameters of a tile type, as plain Python values (DYNAMIC_INDEX = dynamic)."""

    loc: str
    element_type: Attribute
    rows: int
    cols: int
    valid_row: int
    valid_col: int
    blayout: str = "row_major"
    slayout: str = "none_box"
    fractal: int = 512
    pad: int = 0
    compact: int = 0

    @property
    def shape(self) -> tuple[int, int]:
        return (self.rows, self.cols)

    @property
    def valid_shape(self) -> tuple[int, int]:
        """Valid rows and cols; DYNAMIC_INDEX where dynamic."""
        return (self.valid_row, self.valid_col)

    @property
    def elem(self) -> ElementType:
        return verified_element(self.element_type)

    @property
    def is_row_major(self) -> bool:
        return self.blayout == "row_major"

    @property
    def is_nd(self) -> bool:
        """Row-major, no fractal boxes: the standard ND tile."""
        return self.blayout == "row_major" and self.slayout == "none_box"

    @property
    def is_nz(self) -> bool:
        return self.blayout == "col_major" and self.slayout == "row_major" and self.fractal == 512

    @property
    def inner_box(self) -> tuple[int, int] | None:
        """(rows, cols) of a fractal box, None for none_box: 16x16 (fractal
        1024), 16x2 (32), 16 x 32/elemBytes (512, slayout row_major), 32/elemBytes x 16 (512, col_major)."""
        if self.slayout == "none_box":
            return None
        if self.fractal == 1024:
            return (16, 16)
        if self.fractal == 32:
            return (16, 2)
        per_32_bytes = 32 // self.elem.bytes
        return (16, per_32_bytes) if self.slayout == "row_major" else (per_32_bytes, 16)

    def storage_offset(self, r, c):  # noqa: ANN001, ANN201 (ints, or NumPy arrays broadcasting)
        """Where logical element (r, c) of a boxed tile lives in its storage: boxes of
        `inner_box`, a row of boxes Cols x box-rows elements long (blayout row_major) or a column
        of boxes Rows x box-cols long (col_major), elements inside a box by slayout (pto-isa's
        cpu/tile_offsets.hpp GetTileElementOffsetSubfractals). NZ (col_major + row_major boxes of
        16 x C0) gives (c // C0)*Rows*C0 + r*C0 + c % C0, also where Rows is not a multiple of 16
        (a one-row tile: column c at c), as TLOAD lays it out (a2a3 TLoad.hpp: Rows x C0 per
        column of boxes); counting whole boxes per column (Rows // 16) would put every column of
        boxes of such a tile on the first."""
        box = self.inner_box
        assert box is not None, "a boxed layout"
        br, bc = box
        box_row, in_r = divmod(r, br)
        box_col, in_c = divmod(c, bc)
        if self.is_row_major:
            box_start = box_row * self.cols * br + box_col * br * bc
        else:
            box_start = box_col * self.rows * bc + box_row * br * bc
        inner = in_r * bc + in_c if self.slayout == "row_major" else in_c * br + in_r
        return box_start + inner

    def box_shape_problem(self) -> tuple[str, str] | None:
        """What pto-isa's Tile (pto_tile.hpp, common to the CPU simulator and the NPUs)
        static_asserts of a boxed tile's shape and this one breaks, as (what is expected, why),
        or None. Its rows split into whole boxes, `Rows % InnerRows == 0` (pto_tile.hpp:1516),
        unless it is a vec tile, an Mx one (fractal=32) or a one-row one; its columns always do,
        `Cols % InnerCols == 0` (pto_tile.hpp:1520). PTOAS's verifier checks both, in that order,
        for an allocated tile only."""
        box = self.inner_box
        if box is None:
            return None
        inner_rows, inner_cols = box
        rows_may_be_partial = self.loc == "vec" or self.fractal == 32 or self.rows == 1
        if not rows_may_be_partial and self.rows % inner_rows:
            return (
                f"boxed tile rows to be a multiple of innerRows ({inner_rows}), but got {self.rows}",
                f"pto_tile.hpp's Tile static_asserts it for a boxed {self.loc} tile (a partial box of rows "
                "only for vec, fractal=32 or one-row tiles)",
            )
        if self.cols % inner_cols:
            return (
                f"boxed tile cols to be a multiple of innerCols ({inner_cols}), but got {self.cols}",
                "rows of boxes would overlap in storage (pto_tile.hpp's Tile static_asserts it)",
            )
        return None

    def get_tile_offset_problem(self) -> str | None:
        """Where pto_tile.hpp's GetTileOffset (pto_tile.hpp:1834; the NPUs' TPRINT reads a vec
        tile through it) misses this boxed tile's elements, or None. It static_asserts an Nz, Zn
        or Zz layout, and counts a column of boxes of an Nz tile as Rows / InnerRows whole boxes:
        with a partial box of rows, every column of boxes but the first is read from storage
        before its own (cpu/tile_offsets.hpp, `storage_offset`, puts it Rows x InnerCols on)."""
        box = self.inner_box
        if box is None:
            return None
        if not self.is_row_major and self.slayout == "col_major":
            return "GetTileOffset (pto_tile.hpp) static_asserts an Nz, Zn or Zz layout (a compile error), got blayout=col_major, slayout=col_major"
        inner_rows, inner_cols = box
        if self.is_row_major or self.rows % inner_rows == 0 or self.cols <= inner_cols:
            return None
        read_at = self.rows // inner_rows * inner_rows * inner_cols
        return (
            f"GetTileOffset (pto_tile.hpp) counts whole {inner_rows}-row boxes per column of boxes of an Nz tile, so for "
            f"this {self.rows}-row one it reads element [0, {inner_cols}] at storage element {read_at}, where the tile "
            f"keeps it at {self.storage_offset(0, inner_cols)}"
        )

    def element_outside_storage(self) -> tuple[int, int, int] | None:
        """The first element (r, c) whose storage offset is past the tile's rows x cols
        elements (boxes that do not tile the shape), with that offset; None if every one fits."""
        box = self.inner_box
        if box is None or (self.rows % box[0] == 0 and self.cols % box[1] == 0):
            return None
        for r in range(self.rows):
            for c in range(self.cols):
                if (at := self.storage_offset(r, c)) >= self.rows * self.cols:
                    return r, c, at
        return None

    @property
    def size_bytes(self) -> int:
        """Physical storage, padding included: the one size of a tile that
        the rules, the planner and the interpreter all use."""
        if self.compact == 2 and self.is_row_major:
            return ((self.rows - 1) * (self.cols + 1) + self.cols) * self.elem.bytes
        return self.rows * self.cols * self.elem.bytes

    def layout_text(self) -> str:
        return f"blayout={self.blayout}, slayout={self.slayout}, fractal={self.fractal}"

    def problem(self, MNEMONIC: str) -> str | None:
        """The first parameter error, in PTOAS's order, or None."""
        if self.rows <= 0 or self.cols <= 0:
            return f"{MNEMONIC} rows/cols must be positive"
        if self.valid_row > self.rows:
            return f"{MNEMONIC} valid_row ({self.valid_row}) exceeds row ({self.rows})"
        if self.valid_col > self.cols:
            return f"{MNEMONIC} valid_col ({self.valid_col}) exceeds col ({self.cols})"
        for what, value, known in (("loc", self.loc, TILE_LOCS), ("blayout", self.blayout, BLAYOUTS),
                                   ("slayout", self.slayout, SLAYOUTS), ("pad", self.pad, PADS),
                                   ("compact", self.compact, COMPACTS)):
            if value not in known:
                return f"unknown {what}: {value}"
        if self.fractal not in FRACTALS:
            return (
                f"unsupported s_fractal_size: {self.fractal}, must be one of {{32, 512, 1024}}"
            )
        if element_info(self.element_type) is None:
            return f"unsupported {MNEMONIC} {unsupported_element(self.element_type)}"
        return None


class _Key(Enum):
    """Compact-syntax keys after the shape, in printing order."""

    valid = "valid"
    blayout = "blayout"
    slayout = "slayout"
    fractal = "fractal"
    pad = "pad"
    compact = "compact"


_LEGACY_FIELDS = (
    "loc", "dtype", "rows", "cols", "v_row", "v_col", "blayout", "slayout", "fractal", "pad"
)


# a dataclass, as xDSL declares parameter-holding bases (RegisterType): otherwise
# the subclasses' generated __eq__/__hash__ see no fields and all instances compare equal
@dataclass(frozen=True, init=False)
class TileTypeBase(ParametrizedAttribute, TypeAttribute):
    """Parameters, parser and printer shared by `!pto.tile_buf` and `!pto.tile`."""

    MNEMONIC: ClassVar[str]
    ALLOW_DYNAMIC_VALID: ClassVar[bool]

    loc: StringAttr
    element_type: Attribute
    rows: IntAttr
    cols: IntAttr
    valid_row: IntAttr
    valid_col: IntAttr
    blayout: StringAttr
    slayout: StringAttr
    fractal: IntAttr
    pad: IntAttr
    compact: IntAttr

    # -- construction -------------------------------------------------------

    @classmethod
    def from_params(cls, p: TileParams):
        return cls(
            StringAttr(p.loc),
            p.element_type,
            IntAttr(p.rows),
            IntAttr(p.cols),
            IntAttr(p.valid_row),
            IntAttr(p.valid_col),
            StringAttr(p.blayout),
            StringAttr(p.slayout),
            IntAttr(p.fractal),
            IntAttr(p.pad),
            IntAttr(p.compact),
        )

    @classmethod
    def get(
        cls,
        loc: str,
        shape: Sequence[int],
        element_type: Attribute,
        valid: Sequence[int] | None = None,
        **layout: str | int,
    ):
        rows, cols = shape
        vr, vc = valid if valid is not None else shape
        return cls.from_params(TileParams(loc, element_type, rows, cols, vr, vc, **layout))  # pyright: ignore[reportArgumentType]

    @property
    def params(self) -> TileParams:
        """The tile's one description as plain values (computed once per type: kept in the
        instance dict, which the frozen dataclass's fields do not use)."""
        instance_dict = cast(dict[str, Any], self.__dict__)  # typeshed: a class's MappingProxy
        if (known := instance_dict.get("_params")) is not None:
            return known
        params = instance_dict["_params"] = TileParams(
            self.loc.data,
            self.element_type,
            self.rows.data,
            self.cols.data,
            self.valid_row.data,
            self.valid_col.data,
            self.blayout.data,
            self.slayout.data,
            self.fractal.data,
            self.pad.data,
            self.compact.data,
        )
        return params

    # -- queries: the description's ------------------------------------------

    @property
    def shape(self) -> tuple[int, int]:
        return self.params.shape

    @property
    def valid_shape(self) -> tuple[int, int]:
        """Valid rows and cols; DYNAMIC_INDEX where dynamic."""
        return self.params.valid_shape

    @property
    def element(self) -> ElementType:
        return self.params.elem

    @property
    def is_row_major(self) -> bool:
        return self.params.is_row_major

    @property
    def is_nd(self) -> bool:
        return self.params.is_nd

    @property
    def inner_box(self) -> tuple[int, int] | None:
        return self.params.inner_box

    @property
    def size_bytes(self) -> int:
        return self.params.size_bytes

    def verify(self) -> None:
        super().verify()
        if (msg := self.params.problem(self.MNEMONIC)) is not None:
            raise VerifyException(msg)
        if not self.ALLOW_DYNAMIC_VALID and DYNAMIC_INDEX in self.valid_shape:
            raise VerifyException(f"{self.MNEMONIC} valid shape must be static")

    # -- parsing ------------------------------------------------------------

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        start = parser.pos
        parser.parse_punctuation("<")
        if parser._current_token.text == "loc":  # pyright: ignore[reportPrivateUsage]
            params = cls._parse_legacy(parser)
        else:
            params = cls._parse_compact(parser)
        parser.parse_punctuation(">")
        if (msg := params.problem(cls.MNEMONIC)) is not None:
            parser.raise_error(msg, start, parser.pos)
        if not cls.ALLOW_DYNAMIC_VALID and DYNAMIC_INDEX in (params.valid_row, params.valid_col):
            parser.raise_error(f"{cls.MNEMONIC} valid shape must be static", start, parser.pos)
        return list(cls.from_params(params).parameters)

    @classmethod
    def _parse_compact(cls, parser: AttrParser) -> TileParams:
        loc = _parse_word(parser)
        parser.parse_punctuation(",")
        shape_pos = parser.pos
        dims = parser.parse_dimension_list()
        if len(dims) != 2 or DYNAMIC_INDEX in dims:
            parser.raise_error(
                f"{cls.MNEMONIC} compact syntax expects exactly two shape dims", shape_pos
            )
        parser.parse_shape_delimiter()
        element_type = parser.parse_type()
        values: dict[_Key, object] = {}
        while parser.parse_optional_punctuation(",") is not None:
            key_pos = parser.pos
            key_text = _parse_word(parser)
            if key_text not in _Key.__members__:
                parser.raise_error(
                    f"unknown key in {cls.MNEMONIC} compact syntax: {key_text}", key_pos
                )
            key = _Key[key_text]
            if key in values:
                parser.raise_error(
                    f"duplicate {key_text} in {cls.MNEMONIC} compact syntax", key_pos
                )
            parser.parse_punctuation("=")
            if key is _Key.valid:
                valid_pos = parser.pos
                valid = parser.parse_dimension_list()
                if parser._current_token.text == "-":  # pyright: ignore[reportPrivateUsage]
                    parser.raise_error(f"{cls.MNEMONIC} compact valid dims must be '?' or non-negative integers")
                if len(valid) != 2:
                    parser.raise_error(f"{cls.MNEMONIC} valid must have exactly two dims", valid_pos)
                values[key] = valid
            elif key in (_Key.blayout, _Key.slayout):
                values[key] = _parse_word(parser)
            else:
                values[key] = _parse_u32(parser, key_text)
        valid = values.pop(_Key.valid, dims)
        return TileParams(
            loc,
            element_type,
            dims[0],
            dims[1],
            valid[0],  # pyright: ignore[reportIndexIssue]
            valid[1],  # pyright: ignore[reportIndexIssue]
            **{k.value: v for k, v in values.items()},  # pyright: ignore[reportArgumentType]
        )

    @classmethod
    def _parse_legacy(cls, parser: AttrParser) -> TileParams:
        fields: dict[str, object] = {}
        for i, name in enumerate((*_LEGACY_FIELDS, "compact")):
            if i > 0 and parser.parse_optional_punctuation(",") is None:
                if name == "compact":
                    break
                parser.raise_error(f"expected ',' before '{name}' in {cls.MNEMONIC}")
            parser.parse_keyword(name, f" in legacy {cls.MNEMONIC} syntax")
            parser.parse_punctuation("=")
            if name == "dtype":
                fields[name] = parser.parse_type()
            elif name in ("rows", "cols"):
                fields[name] = parser.parse_integer(allow_boolean=False)
            elif name in ("v_row", "v_col"):
                fields[name] = _parse_valid_dim(parser, name)
            elif name in ("fractal", "pad", "compact"):
                fields[name] = _parse_u32(parser, name)
            else:
                fields[name] = _parse_word(parser)
        return TileParams(
            fields["loc"],  # pyright: ignore[reportArgumentType]
            fields["dtype"],  # pyright: ignore[reportArgumentType]
            fields["rows"],  # pyright: ignore[reportArgumentType]
            fields["cols"],  # pyright: ignore[reportArgumentType]
            fields["v_row"],  # pyright: ignore[reportArgumentType]
            fields["v_col"],  # pyright: ignore[reportArgumentType]
            fields["blayout"],  # pyright: ignore[reportArgumentType]
            fields["slayout"],  # pyright: ignore[reportArgumentType]
            fields["fractal"],  # pyright: ignore[reportArgumentType]
            fields["pad"],  # pyright: ignore[reportArgumentType]
            fields.get("compact", 0),  # pyright: ignore[reportArgumentType]
        )

    # -- printing -----------------------------------------------------------

    def print_parameters(self, printer: Printer) -> None:
        p = self.params
        printer.print_string(f"<{p.loc}, {p.rows}x{p.cols}x")
        printer.print_attribute(p.element_type)
        if (p.valid_row, p.valid_col) != (p.rows, p.cols):
            printer.print_string(f", valid={dim_text(p.valid_row)}x{dim_text(p.valid_col)}")
        if p.blayout != "row_major":
            printer.print_string(f", blayout={p.blayout}")
        if p.slayout != "none_box":
            printer.print_string(f", slayout={p.slayout}")
        if p.fractal != 512:
            printer.print_string(f", fractal={p.fractal}")
        if p.pad != 0:
            printer.print_string(f", pad={p.pad}")
        if p.compact != 0:
            printer.print_string(f", compact={p.compact}")
        printer.print_string(">")


def dim_text(d: int) -> str:
    """A dimension as PTO text writes it: `?` when dynamic."""
    return "?" if d == DYNAMIC_INDEX else str(d)


def _parse_word(parser: AttrParser) -> str:
    """An identifier or a quoted string (PTOAS accepts layouts in quotes)."""
    if (s := parser.parse_optional_str_literal()) is not None:
        return s
    return parser.parse_identifier()


def _parse_u32(parser: AttrParser, key: str) -> int:
    pos = parser.pos
    value = parser.parse_optional_integer(allow_boolean=False, allow_negative=True)
    if value is None or not 0 <= value < 2**32:
        parser.raise_error(f"{key} must be a non-negative 32-bit integer", pos)
    return value


def _parse_valid_dim(parser: AttrParser, key: str) -> int:
    if parser.parse_optional_punctuation("?") is not None:
        return DYNAMIC_INDEX
    pos = parser.pos
    value = parser.parse_optional_integer(allow_boolean=False, allow_negative=True)
    if value is None or value < -1:
        parser.raise_error(f"{key} must be '?', -1, or a non-negative integer", pos)
    return DYNAMIC_INDEX if value == -1 else value


@irdl_attr_definition
class TileBufType(TileTypeBase):
    """`!pto.tile_buf<...>`: a tile buffer written through `outs` (DPS form)."""

    name = "pto.tile_buf"
    MNEMONIC = "tile_buf"
    ALLOW_DYNAMIC_VALID = True


@irdl_attr_definition
class TileType(TileTypeBase):
    """`!pto.tile<...>`: a value-semantics tile (SSA form); valid shape is static."""

    name = "pto.tile"
    MNEMONIC = "tile"
    ALLOW_DYNAMIC_VALID = False


# ---------------------------------------------------------------------------
# GM views and pointers


@irdl_attr_definition
class IntAttrList(Data[tuple[int, ...]]):
    """A compact tuple of ints (view shapes); printed `[a, b]` in generic form."""

    name = "pto.dims"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> tuple[int, ...]:
        return tuple(
            parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
        )

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string("[" + ", ".join(map(str, self.data)) + "]")


GM_RANK = 5
"""pto-isa's GlobalTensor rank: `Shape<S0, S1, S2, S3, S4>`."""


def gm_shape5(shape: Sequence[int]) -> tuple[int, ...]:
    """A view's shape right-aligned to the 5-D GM shape, leading dims 1."""
    return (1,) * (GM_RANK - len(shape)) + tuple(shape[-GM_RANK:])


def gm_strides5(shape: Sequence[int], strides: Sequence[int]) -> tuple[int, ...]:
    """The matching strides: padded leading dims (extent 1) get tight strides."""
    dims, inner = tuple(shape[-GM_RANK:]), tuple(strides[-GM_RANK:])
    lead = inner[0] * dims[0] if dims else 1
    return (lead,) * (GM_RANK - len(dims)) + inner


@dataclass(frozen=True, init=False)  # fields visible to __eq__, see TileTypeBase
class ShapedViewBase(ParametrizedAttribute, TypeAttribute):
    """`<d0 x d1 x ... x T>`, dims an integer or `?`."""

    shape_attr: IntAttrList
    element_type: Attribute

    @classmethod
    def get(cls, shape: Sequence[int], element_type: Attribute):
        return cls(IntAttrList(tuple(shape)), element_type)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.shape_attr.data

    @property
    def element(self) -> ElementType:
        return verified_element(self.element_type)

    def verify(self) -> None:
        super().verify()
        if element_info(self.element_type) is None:
            raise VerifyException(f"unsupported {self.name} {unsupported_element(self.element_type)}")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        start = parser.pos
        with parser.in_angle_brackets():
            dims, element_type = parser.parse_ranked_shape()
        if element_info(element_type) is None:
            parser.raise_error(
                f"unsupported !{cls.name} {unsupported_element(element_type)}", start, parser.pos
            )
        return [IntAttrList(tuple(dims)), element_type]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<" + "".join(f"{dim_text(d)}x" for d in self.shape))
        printer.print_attribute(self.element_type)
        printer.print_string(">")


@irdl_attr_definition
class TensorViewType(ShapedViewBase):
    """`!pto.tensor_view<?x?xT>`: a GM tensor made from a pointer, shape and strides."""

    name = "pto.tensor_view"


@irdl_attr_definition
class PartitionTensorViewType(ShapedViewBase):
    """`!pto.partition_tensor_view<AxBxT>`: a window of a tensor view (a GM table)."""

    name = "pto.partition_tensor_view"


@irdl_attr_definition
class LocalArrayType(ShapedViewBase):
    """`!pto.local_array<16xi32>`, `<8x8xf32>`: a stack array of the scalar unit (C++ `T a[16];`),
    static positive dims, an integer or float element (PTOAS's DeclareLocalArrayOp)."""

    name = "pto.local_array"

    def verify(self) -> None:
        super().verify()
        if not self.shape or min(self.shape) <= 0:
            raise VerifyException(f"!pto.local_array needs static positive dims, got {list(map(dim_text, self.shape))}")
        if self.element.family not in ("int", "uint", "float"):
            raise VerifyException(f"!pto.local_array holds integers or floats, got {self.element_type}")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        start = parser.pos
        params = super().parse_parameters(parser)
        shape = cast(IntAttrList, params[0]).data
        if not shape or min(shape) <= 0:
            parser.raise_error(f"!pto.local_array needs static positive dims, got {list(map(dim_text, shape))}", start, parser.pos)
        return params


_POINTED_MEMORY = {
    AddressSpace.GM: "gm",
    AddressSpace.MAT: "l1",
    AddressSpace.LEFT: "l0a",
    AddressSpace.RIGHT: "l0b",
    AddressSpace.ACC: "l0c",
    AddressSpace.VEC: "ub",
    AddressSpace.BIAS: "bt",
    AddressSpace.SCALING: "fb",
}
"""The memory a `!pto.ptr` into each address space points at, as the type prints it."""

PTR_SPACES = {space.value: memory for space, memory in _POINTED_MEMORY.items()} | {
    memory: memory for memory in _POINTED_MEMORY.values()
}
"""Accepted `!pto.ptr` address-space spellings, each mapped to the printed one."""


@irdl_attr_definition
class PtrType(ParametrizedAttribute, TypeAttribute):
    """`!pto.ptr<T[, space]>`: a pointer; the space defaults to gm and is always printed."""

    name = "pto.ptr"

    element_type: Attribute
    space: StringAttr

    @classmethod
    def get(cls, element_type: Attribute, space: str = "gm"):
        return cls(element_type, StringAttr(PTR_SPACES[space]))

    def verify(self) -> None:
        super().verify()
        if self.space.data not in PTR_SPACES.values():
            raise VerifyException(f"unknown !pto.ptr address space {self.space.data}")

    @property
    def element(self) -> ElementType:
        return verified_element(self.element_type)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        start = parser.pos
        parser.parse_punctuation("<")
        element_type = parser.parse_type()
        space = "gm"
        if parser.parse_optional_punctuation(",") is not None:
            space_pos = parser.pos
            space = _parse_word(parser) if parser._current_token.kind != MLIRTokenKind.GREATER else ""  # pyright: ignore[reportPrivateUsage]
            if space not in PTR_SPACES:
                parser.raise_error(  # PTOAS's words
                    "!pto.ptr address space must be one of "
                    "`gm|ub|mat|l1|left|l0a|right|l0b|acc|l0c|vec|bias|bt|scaling|fb`",
                    space_pos,
                )
        parser.parse_punctuation(">")
        if element_info(element_type) is None:
            parser.raise_error(f"unsupported !pto.ptr {unsupported_element(element_type)}", start, parser.pos)
        return [element_type, StringAttr(PTR_SPACES[space])]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_attribute(self.element_type)
        printer.print_string(f", {self.space.data}>")


TYPES = [TileBufType, TileType, TensorViewType, PartitionTensorViewType, PtrType, LocalArrayType, IntAttrList]
