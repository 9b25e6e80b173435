"""
The register-level types PTOAS's vpto dialect writes (include/PTO/IR/VPTOTypeDefs.td, lib/PTO/IR/VPTO.cpp):

    !pto.vreg<64xf32>    a vector register: N lanes of T, exactly 256 bytes
    !pto.mask<b32>       a predicate register (256 bits, one per register byte) viewed at a granularity
    !pto.align           the alignment-buffer state of an unaligned load or store stream

Pointers are the existing `!pto.ptr<T, ub|gm>` (pto_dialect/types.py).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntAttr, StringAttr
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from pto_dialect.dtypes import ElementType, element_info
from pto_dialect.types import verified_element
from pto_dialect.vector import REPEAT_BYTES

VECTOR_BYTES = REPEAT_BYTES
"""A vector register's width (CCE_VL): every `!pto.vreg<NxT>` holds N * sizeof(T) == 256 bytes."""

PREDICATE_BITS = VECTOR_BYTES
"""A predicate register: one bit per byte of a vector register."""

GRANULARITY_BYTES = {"b8": 1, "b16": 2, "b32": 4}
"""Each `!pto.mask<G>` view: how many register bytes one logical lane spans (its lanes: 256 / that)."""


@irdl_attr_definition
class VRegType(ParametrizedAttribute, TypeAttribute):
    """`!pto.vreg<NxT>`: a vector register of N lanes of T; N * sizeof(T) is 256 bytes."""

    name = "pto.vreg"

    count: IntAttr
    element_type: Attribute

    @staticmethod
    def of(element_type: Attribute) -> VRegType:
        """The register of `element_type` lanes (as many as 256 bytes hold)."""
        info = element_info(element_type)
        assert info is not None
        return VRegType(IntAttr(VECTOR_BYTES // info.bytes), element_type)

    @property
    def lanes(self) -> int:
        return self.count.data

    @property
    def element(self) -> ElementType:
        return verified_element(self.element_type)

    def verify(self) -> None:
        spelled = f"'!pto.vreg<{self.count.data}x{self.element_type}>'"
        if self.count.data <= 0:
            raise VerifyException(f"{spelled} expected a positive element count")
        info = element_info(self.element_type)
        if info is None:
            raise VerifyException(f"{spelled} expected an integer, floating-point, or PTO low-precision element type")
        if self.count.data * info.bytes != VECTOR_BYTES:
            raise VerifyException(
                f"{spelled} expected exactly {VECTOR_BYTES} bytes (it holds {self.count.data * info.bytes})"
            )

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        parser.parse_punctuation("<")
        pos = parser.pos
        shape, element_type = parser.parse_ranked_shape()
        if len(shape) != 1:
            parser.raise_error("!pto.vreg takes one dimension: !pto.vreg<NxT>", pos, parser.pos)
        parser.parse_punctuation(">")
        return [IntAttr(shape[0]), element_type]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.count.data}x")
        printer.print_attribute(self.element_type)
        printer.print_string(">")


@irdl_attr_definition
class MaskType(ParametrizedAttribute, TypeAttribute):
    """`!pto.mask<b8|b16|b32>`: the 256-bit predicate register, viewed with one lane per G bytes."""

    name = "pto.mask"

    granularity: StringAttr

    @staticmethod
    def of(granularity: str) -> MaskType:
        return MaskType(StringAttr(granularity))

    @property
    def lane_bytes(self) -> int:
        return GRANULARITY_BYTES[self.granularity.data]

    @property
    def lanes(self) -> int:
        return PREDICATE_BITS // self.lane_bytes

    def verify(self) -> None:
        if self.granularity.data not in GRANULARITY_BYTES:
            raise VerifyException(
                f"'!pto.mask<{self.granularity.data}>' expected granularity to be one of {', '.join(GRANULARITY_BYTES)}"
            )

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        parser.parse_punctuation("<")
        word = parser.parse_identifier()
        parser.parse_punctuation(">")
        return [StringAttr(word)]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.granularity.data}>")


@irdl_attr_definition
class AlignType(ParametrizedAttribute, TypeAttribute):
    """`!pto.align`: the alignment buffer of an unaligned load or store stream (state, not data)."""

    name = "pto.align"


def mask_of_lanes(lane_bytes: int) -> str:
    """The mask granularity whose lanes span `lane_bytes` register bytes (b8, b16, b32)."""
    return f"b{8 * lane_bytes}"


VPTO_TYPES = [VRegType, MaskType, AlignType]
