"""
The register-level gathers and scatter of a5 (PTOAS docs/isa/micro-isa/03-vector-load-store.md,
lib/PTO/IR/VPTO.cpp; pto-isa npu/a5/TGather.hpp):

    %r = pto.vgather2 %src, %offsets, %mask : !pto.ptr<T, ub>, !pto.vreg<NxI>, !pto.mask<G> -> !pto.vreg<NxR>
    %r = pto.vgather2_bc %src, %offsets, %mask : !pto.ptr<T, ub>, !pto.vreg<64xI32>, !pto.mask<b32> -> !pto.vreg<..>
    %r = pto.vgatherb %src, %offsets, %mask : !pto.ptr<T, ub>, !pto.vreg<64xI32>, !pto.mask<b32> -> !pto.vreg<NxT>
    pto.vscatter %value, %dst, %offsets, %mask : !pto.vreg<NxT>, !pto.ptr<T, ub>, !pto.vreg<MxI>, !pto.mask<G>

Each form (the offset width, mask granularity and result a source element width takes) is a row of
the tables below, read by the verifier and the docs; what the ops compute is gather_kernels.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import IntegerType, Signedness
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, result_def
from xdsl.utils.exceptions import VerifyException

from pto_dialect.dtypes import element_info
from pto_dialect.types import PtrType
from pto_dialect.vpto.common import NO_RESULTS_FORMAT, UbReadOp, UbWriteOp
from pto_dialect.vpto.types import VECTOR_BYTES, MaskType, VRegType


@dataclass(frozen=True)
class GatherForm:
    """What a gather or scatter over source elements of one width takes."""

    sources: tuple[str, ...]
    """The source (or scattered) element types of this width."""
    offset_bits: int
    """The offset lanes' width (integer, read unsigned: ui or signless i)."""
    mask: str
    """The mask granularity: one predicate lane per offset lane."""
    result: str
    """The result register, in words (docs)."""


VGATHER2_FORMS: dict[int, GatherForm] = {
    1: GatherForm(("i8", "ui8"), 16, "b16", "!pto.vreg<128xi16> (ui8: ui16): the byte zero-extended"),
    2: GatherForm(("i16", "ui16", "f16", "bf16"), 16, "b16", "!pto.vreg<128xT>"),
    4: GatherForm(("i32", "ui32", "f32"), 32, "b32", "!pto.vreg<64xT>"),
}
"""`pto.vgather2` by source element width (VPTO.cpp Vgather2Op::verify)."""

VGATHER2_BC_FORMS: dict[int, GatherForm] = {
    2: GatherForm(("i16", "ui16", "f16", "bf16"), 32, "b32",
                  "!pto.vreg<64xi32> or <64xui32>: the element in each lane's low half (a PK_B32 store packs them)"),
    4: GatherForm(("i32", "ui32", "f32"), 32, "b32", "!pto.vreg<64xT>"),
}
"""`pto.vgather2_bc` by source element width (Vgather2BcOp::verify; pto-isa TGather_b16_bc for b16 data)."""

VGATHERB_FORM = GatherForm(("any",), 32, "b32", "!pto.vreg<NxT>, T the source's: 8 blocks of 32 bytes")
"""`pto.vgatherb`: 32-bit byte offsets of 32-byte blocks, the first VL/32 = 8 lanes (VgatherbOp::verify)."""

VSCATTER_FORMS: dict[int, GatherForm] = {
    1: GatherForm(("i8", "ui8"), 16, "b16", "128 requests, request i stores value lane 2i"),
    2: GatherForm(("i16", "ui16", "f16", "bf16"), 16, "b16", "128 requests"),
    4: GatherForm(("i32", "ui32", "f32"), 32, "b32", "64 requests"),
}
"""`pto.vscatter` by value element width (VscatterOp::verify)."""


def _spell(types: tuple[str, ...]) -> str:
    return "/".join(types)


def source_form(forms: dict[int, GatherForm], element_type: Attribute, what: str) -> GatherForm:
    """The form of `element_type`; an error listing every type the op takes."""
    element = element_info(element_type)
    form = forms.get(element.bytes) if element is not None else None
    if form is None or element is None or element.mlir not in form.sources:
        every = tuple(t for f in forms.values() for t in f.sources)
        raise VerifyException(f"requires {what} element type {_spell(every)}, got {element_type}")
    return form


def require_offsets(offsets: Attribute, form: GatherForm, lanes: int) -> VRegType:
    """`lanes` offset lanes of a ui or signless integer of the form's width."""
    assert isinstance(offsets, VRegType)
    bits = form.offset_bits
    element = offsets.element_type
    if not isinstance(element, IntegerType) or element.width.data != bits or \
            element.signedness.data == Signedness.SIGNED:
        raise VerifyException(f"requires ui{bits}/i{bits} offset vector elements, got {offsets}")
    if offsets.lanes != lanes:  # only vscatter's b8 form can get here: 256 bytes of i16 are 128 lanes
        raise VerifyException(f"requires {lanes} offsets, got {offsets}")
    return offsets


def require_mask(mask: Attribute, form: GatherForm) -> None:
    assert isinstance(mask, MaskType)
    if mask.granularity.data != form.mask:
        raise VerifyException(f"requires mask type !pto.mask<{form.mask}> (one lane per offset), got {mask}")


def same_integer_kind(source: Attribute, result: Attribute, width: int) -> bool:
    """An integer result of `width` bits, unsigned exactly where the source is (PTOAS's rule)."""
    if not isinstance(source, IntegerType) or not isinstance(result, IntegerType) or result.width.data != width:
        return False
    return (source.signedness.data == Signedness.UNSIGNED) == (result.signedness.data == Signedness.UNSIGNED)


def require_result(result: VRegType, pointer: PtrType, allowed: bool, expected: str) -> None:
    if not allowed:
        raise VerifyException(f"requires result type {expected} for a {pointer} source, got {result}")


class RegisterGatherOp(UbReadOp):
    """A gather from UB through an offset register under a mask."""

    source = operand_def(PtrType)
    offsets = operand_def(VRegType)
    mask = operand_def(MaskType)
    result = result_def(VRegType)

    def __init__(self, source: SSAValue, offsets: SSAValue, mask: SSAValue, result: VRegType):
        super().__init__(operands=[source, offsets, mask], result_types=[result])

    @classmethod
    def result_for(cls, source: PtrType) -> VRegType:
        """The register a gather from `source` gives: lanes of the source's element type."""
        return VRegType.of(source.element_type)


@irdl_op_definition
class VGather2Op(RegisterGatherOp):
    """lane i = the source element at offsets[i] (elements, unsigned) where the mask is on, else 0;
    b8 data zero-extends into 16-bit lanes."""

    name = "pto.vgather2"

    @classmethod
    def result_for(cls, source: PtrType) -> VRegType:
        """b8 data: 16-bit lanes, unsigned exactly where the source is."""
        if source.element.bytes != 1:
            return VRegType.of(source.element_type)
        return VRegType.of(IntegerType(16, Signedness.UNSIGNED if source.element.family == "uint" else Signedness.SIGNLESS))

    def verify_(self) -> None:
        super().verify_()
        pointer = self.pointer_type
        form = source_form(VGATHER2_FORMS, pointer.element_type, "source")
        result = self.result.type
        source = pointer.element_type
        width = pointer.element.bytes
        lanes = VECTOR_BYTES // (form.offset_bits // 8)
        if width == 1:
            kind = "ui16" if pointer.element.family == "uint" else "i16"
            require_result(result, pointer, same_integer_kind(source, result.element_type, 16), f"!pto.vreg<{lanes}x{kind}>")
        else:
            same = source == result.element_type or same_integer_kind(source, result.element_type, 8 * width)
            require_result(result, pointer, same, f"!pto.vreg<{lanes}x{source}>")
        require_offsets(self.offsets.type, form, lanes)
        require_mask(self.mask.type, form)


@irdl_op_definition
class VGather2BcOp(RegisterGatherOp):
    """Request i (32-bit offsets, elements) = the source element where the mask is on, else 0, in
    32-bit lane i (16-bit data: its low half)."""

    name = "pto.vgather2_bc"

    @classmethod
    def result_for(cls, source: PtrType) -> VRegType:
        """16-bit data: 32-bit unsigned lanes (what a PK_B32 store packs)."""
        if source.element.bytes != 2:
            return VRegType.of(source.element_type)
        return VRegType.of(IntegerType(32, Signedness.UNSIGNED))

    def verify_(self) -> None:
        super().verify_()
        pointer = self.pointer_type
        form = source_form(VGATHER2_BC_FORMS, pointer.element_type, "source")
        result, source = self.result.type, pointer.element_type
        if pointer.element.bytes == 4:
            same = source == result.element_type or same_integer_kind(source, result.element_type, 32)
            require_result(result, pointer, same, f"!pto.vreg<64x{source}>")
        else:
            words = isinstance(result.element_type, IntegerType) and result.element.bytes == 4
            require_result(result, pointer, words, "!pto.vreg<64xi32> or !pto.vreg<64xui32>")
        require_offsets(self.offsets.type, form, 64)
        require_mask(self.mask.type, form)


@irdl_op_definition
class VGatherBOp(RegisterGatherOp):
    """Block b < 8 of the result = the 32 bytes at offsets[b] (bytes, 32-byte aligned) where the mask
    is on, else zeros."""

    name = "pto.vgatherb"

    def verify_(self) -> None:
        super().verify_()
        pointer = self.pointer_type
        result = self.result.type
        if result.element_type != pointer.element_type:
            raise VerifyException(f"requires the result element type to be the source's ({pointer.element_type}), got {result}")
        require_offsets(self.offsets.type, VGATHERB_FORM, 64)
        require_mask(self.mask.type, VGATHERB_FORM)


@irdl_op_definition
class VScatterOp(UbWriteOp):
    """The destination element at offsets[i] (elements, unsigned) = value[i] (b8: value[2i]) where
    the mask is on; where active offsets collide the lowest lane wins."""

    name = "pto.vscatter"

    value = operand_def(VRegType)
    destination = operand_def(PtrType)
    offsets = operand_def(VRegType)
    mask = operand_def(MaskType)
    assembly_format = NO_RESULTS_FORMAT

    def __init__(self, value: SSAValue, destination: SSAValue, offsets: SSAValue, mask: SSAValue):
        super().__init__(operands=[value, destination, offsets, mask])

    def verify_(self) -> None:
        super().verify_()
        pointer = self.pointer_type
        value = self.value.type
        assert isinstance(value, VRegType)
        form = source_form(VSCATTER_FORMS, value.element_type, "value")
        if pointer.element_type != value.element_type:
            raise VerifyException(
                f"requires destination element type to match value element type {value.element_type}, got {pointer}"
            )
        require_offsets(self.offsets.type, form, VECTOR_BYTES // (form.offset_bits // 8))
        require_mask(self.mask.type, form)


GATHER_OPS = [VGather2Op, VGather2BcOp, VGatherBOp, VScatterOp]
