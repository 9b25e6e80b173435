"""
What the rule tables reason about: the facts of a tile or GM view operand
(static from the types, or the actual valid shape at run time), and the
violation they raise. Nothing here knows a target; each target's folder has its rows.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.ir import SSAValue

from pto_dialect.attributes import GmLayout
from pto_dialect.dtypes import ELEMENT_TYPES, ElementType
from pto_dialect.ops.memory import MakeTensorViewOp, PartitionViewOp, constant_index
from pto_dialect.types import ShapedViewBase, TileParams, TileTypeBase, gm_shape5

UNKNOWN = DYNAMIC_INDEX
"""A dimension not known statically (`?`); rules on it are checked at run time."""


class RuleViolation(Exception):
    """A target rule does not hold; the message says what is wrong, found and expected."""


def require(condition: bool, message: str) -> None:
    if not condition:
        raise RuleViolation(message)


# ---------------------------------------------------------------------------
# element type sets, by their PTO spelling


def types_named(*names: str) -> frozenset[str]:
    known = {info.mlir for info in ELEMENT_TYPES.values()}
    unknown = set(names) - known
    assert not unknown, f"not element types: {unknown}"
    return frozenset(names)


INT8 = types_named("i8", "si8", "ui8")
INT16 = types_named("i16", "si16", "ui16")
INT32 = types_named("i32", "si32", "ui32")
INT64 = types_named("i64", "si64", "ui64")
SIGNED32 = types_named("i32", "si32")
UNSIGNED16 = types_named("ui16")
UNSIGNED32 = types_named("ui32")
INTEGERS = INT8 | INT16 | INT32 | INT64
FP8 = types_named("f8E4M3FN", "f8E5M2")
HIF8 = types_named("!pto.hif8")
STANDARD = INT8 | INT16 | INT32 | types_named("f16", "bf16", "f32")
"""int8/uint8/int16/uint16/int32/uint32/half/bfloat16/float: every target's common list."""


def spell(types: Iterable[str]) -> str:
    """`i8/ui8/...` in the table's canonical order."""
    order = [info.mlir for info in ELEMENT_TYPES.values()]
    return "/".join(sorted(types, key=order.index))


def require_type(role: str, elem: ElementType, allowed: frozenset[str]) -> None:
    require(
        elem.mlir in allowed,
        f"expects {role} element type to be {spell(allowed)}, got {elem.mlir}",
    )


# ---------------------------------------------------------------------------
# operand facts


@dataclass(frozen=True)
class TileFacts(TileParams):
    """A tile operand as the rules see it: the tile's one description (TileParams) and
    its role; valid dims are UNKNOWN when dynamic."""

    role: str = ""

    @staticmethod
    def of(role: str, tile: TileTypeBase) -> TileFacts:
        return TileFacts(**vars(tile.params), role=role)

    def with_valid(self, valid_row: int, valid_col: int) -> TileFacts:
        """The same tile with its run-time valid shape."""
        return replace(self, valid_row=valid_row, valid_col=valid_col)


@dataclass(frozen=True)
class ViewFacts:
    """A GM view operand: its shape right-aligned to pto-isa's 5-D GM shape."""

    role: str
    elem: ElementType
    shape: tuple[int, ...]
    layout: GmLayout | None
    """The logical layout of the tensor it views, when it can be inferred."""
    strides: tuple[int, ...] | None = None
    """Element strides per dim (UNKNOWN where dynamic), when they can be inferred."""

    @staticmethod
    def of(role: str, value: SSAValue) -> ViewFacts:
        view = value.type
        assert isinstance(view, ShapedViewBase)
        return ViewFacts(role, view.element, view.shape, inferred_layout(value), inferred_strides(value))

    @property
    def row_stride(self) -> int:
        """Elements between consecutive rows (the stride of dim -2), or UNKNOWN."""
        if self.strides is None or len(self.strides) < 2:
            return UNKNOWN
        return self.strides[-2]

    @property
    def inner_stride(self) -> int:
        """The stride of the last dim, or UNKNOWN."""
        return UNKNOWN if not self.strides else self.strides[-1]

    @property
    def shape5(self) -> tuple[int, ...]:
        """`Shape<S0..S4>`: a rank-k view right-aligned, leading dims 1."""
        return gm_shape5(self.shape)

    @property
    def element_count(self) -> int:
        """All elements, or UNKNOWN when a dim is dynamic."""
        total = 1
        for d in self.shape:
            if d == UNKNOWN:
                return UNKNOWN
            total *= d
        return total


def inferred_layout(value: SSAValue) -> GmLayout | None:
    """The layout of the `make_tensor_view` a partition view comes from, if traceable."""
    owner = value.owner
    if isinstance(owner, PartitionViewOp):
        owner = owner.source.owner
    if isinstance(owner, MakeTensorViewOp):
        return owner.gm_layout
    return None


def inferred_strides(value: SSAValue) -> tuple[int, ...] | None:
    """The element strides of the `make_tensor_view` a view comes from (a partition keeps
    them), UNKNOWN for a dynamic one; None if not traceable."""
    owner = value.owner
    if isinstance(owner, PartitionViewOp):
        owner = owner.source.owner
    if isinstance(owner, MakeTensorViewOp):
        return tuple(UNKNOWN if (c := constant_index(s)) is None else c for s in owner.strides)
    return None


def known(*dims: int) -> bool:
    """True when every dim is statically known; rules on unknown dims wait for run time."""
    return UNKNOWN not in dims


def static_facts(role: str, value: SSAValue) -> TileFacts | ViewFacts | str:
    """An operand's facts from its type; a scalar's is its type's spelling."""
    if isinstance(value.type, TileTypeBase):
        return TileFacts.of(role, value.type)
    if isinstance(value.type, ShapedViewBase):
        return ViewFacts.of(role, value)
    return str(value.type)
