"""
Element types of PTO tiles and views, and the one table that describes them.

Every other module (type verification, rule tables, interpreter, C++ emission)
asks this table for an element type's width, family, NumPy dtype and C++ name;
nothing restates those facts. Spellings as PTOAS reads them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from importlib import import_module
from typing import TYPE_CHECKING, Literal

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    Float8E3M4Type,
    Float8E4M3B11FNUZType,
    Float8E4M3FNType,
    Float8E4M3FNUZType,
    Float8E4M3Type,
    Float8E5M2FNUZType,
    Float8E5M2Type,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition

if TYPE_CHECKING:
    import numpy as np


@irdl_attr_definition
class HiF8Type(ParametrizedAttribute, TypeAttribute):
    """`!pto.hif8`: Ascend HiFloat8, carried as raw 8-bit patterns."""

    name = "pto.hif8"


@irdl_attr_definition
class F8E8M0Type(ParametrizedAttribute, TypeAttribute):
    """`!pto.f8E8M0`: Ascend 950's MX scale (an 8-bit power of two, E8M0 with no sign)."""

    name = "pto.f8E8M0"


class _PackedType(ParametrizedAttribute, TypeAttribute):
    """A PTOAS element type that packs two values into one element (PTOAS's PTO.cpp sizes: hif8x2 two
    bytes, the f4 pairs one, bf16x2 four). Carried as raw bit patterns of that width: the register level
    moves them whole; an op that reads the values inside decodes the halves itself."""


@irdl_attr_definition
class HiF8x2Type(_PackedType):
    name = "pto.hif8x2"


@irdl_attr_definition
class F4E1M2x2Type(_PackedType):
    name = "pto.f4E1M2x2"


@irdl_attr_definition
class F4E2M1x2Type(_PackedType):
    name = "pto.f4E2M1x2"


@irdl_attr_definition
class BF16x2Type(_PackedType):
    name = "pto.bf16x2"


ELEMENT_TYPE_ATTRIBUTES = [HiF8Type, F8E8M0Type, HiF8x2Type, F4E1M2x2Type, F4E2M1x2Type, BF16x2Type]
"""The element types the pto dialect itself defines (PTOAS's PTOTypeDefs.td)."""

Family = Literal["int", "uint", "float", "fp8", "hif8", "packed"]


@dataclass(frozen=True)
class ElementType:
    """What the project knows about one element type."""

    mlir: str
    """Spelling in PTO text."""
    bytes: int
    family: Family
    numpy_name: str
    """NumPy dtype name; `ml_dtypes.NAME` for bf16 and fp8."""
    cpp: str
    """pto-isa C++ name, for emission."""

    @cached_property
    def numpy(self) -> np.dtype:
        """The NumPy dtype. NumPy, and ml_dtypes for bf16/fp8, are imported on first use: a
        command that only reads and checks IR needs neither (ml_dtypes 0.7 takes seconds)."""
        import numpy as np

        module, _, name = self.numpy_name.rpartition(".")
        return np.dtype(getattr(import_module(module), name) if module else name)

    @property
    def dtype_name(self) -> str:
        """`numpy.name`, known without importing ml_dtypes."""
        return self.numpy_name.rpartition(".")[2]

    @property
    def bits(self) -> int:
        return 8 * self.bytes

    @property
    def is_integer(self) -> bool:
        return self.family in ("int", "uint")


def _int(width: int, signedness: Signedness) -> IntegerType:
    return IntegerType(width, signedness)


_TABLE: list[tuple[Attribute, ElementType]] = []
for _w in (8, 16, 32, 64):
    for _s, _prefix in ((Signedness.SIGNLESS, "i"), (Signedness.SIGNED, "si")):
        _TABLE.append((_int(_w, _s), ElementType(f"{_prefix}{_w}", _w // 8, "int", f"int{_w}", f"int{_w}_t")))
    _TABLE.append((_int(_w, Signedness.UNSIGNED), ElementType(f"ui{_w}", _w // 8, "uint", f"uint{_w}", f"uint{_w}_t")))
_TABLE += [
    (Float16Type(), ElementType("f16", 2, "float", "float16", "half")),
    (BFloat16Type(), ElementType("bf16", 2, "float", "ml_dtypes.bfloat16", "bfloat16_t")),
    (Float32Type(), ElementType("f32", 4, "float", "float32", "float")),
    (Float8E4M3FNType(), ElementType("f8E4M3FN", 1, "fp8", "ml_dtypes.float8_e4m3fn", "float8_e4m3_t")),
    (Float8E5M2Type(), ElementType("f8E5M2", 1, "fp8", "ml_dtypes.float8_e5m2", "float8_e5m2_t")),
    (HiF8Type(), ElementType("!pto.hif8", 1, "hif8", "uint8", "hifloat8_t")),
    (Float64Type(), ElementType("f64", 8, "float", "float64", "double")),
    (F8E8M0Type(), ElementType("!pto.f8E8M0", 1, "fp8", "ml_dtypes.float8_e8m0fnu", "float8_e8m0_t")),
    # PTOAS's other 8-bit floats (isPTOFloat8Type): ml_dtypes holds them; pto-isa names no C++ type
    (Float8E4M3Type(), ElementType("f8E4M3", 1, "fp8", "ml_dtypes.float8_e4m3", "")),
    (Float8E4M3FNUZType(), ElementType("f8E4M3FNUZ", 1, "fp8", "ml_dtypes.float8_e4m3fnuz", "")),
    (Float8E4M3B11FNUZType(), ElementType("f8E4M3B11FNUZ", 1, "fp8", "ml_dtypes.float8_e4m3b11fnuz", "")),
    (Float8E5M2FNUZType(), ElementType("f8E5M2FNUZ", 1, "fp8", "ml_dtypes.float8_e5m2fnuz", "")),
    (Float8E3M4Type(), ElementType("f8E3M4", 1, "fp8", "ml_dtypes.float8_e3m4", "")),
    # packed pairs, as raw bits (no NumPy dtype holds two values in one element; pto-isa's C++ names)
    (HiF8x2Type(), ElementType("!pto.hif8x2", 2, "packed", "uint16", "")),
    (F4E1M2x2Type(), ElementType("!pto.f4E1M2x2", 1, "packed", "uint8", "float4_e1m2x2_t")),
    (F4E2M1x2Type(), ElementType("!pto.f4E2M1x2", 1, "packed", "uint8", "float4_e2m1x2_t")),
    (BF16x2Type(), ElementType("!pto.bf16x2", 4, "packed", "uint32", "")),
]

ELEMENT_TYPES: dict[Attribute, ElementType] = dict(_TABLE)
"""Every element type a PTO tile or view may hold, keyed by its xDSL attribute."""


FLOAT_DTYPE_NAMES = frozenset(i.dtype_name for i in ELEMENT_TYPES.values() if i.family in ("float", "fp8"))
"""Names of the NumPy dtypes with NaN (ml_dtypes' bf16 and fp8 have no kind 'f')."""


def element_info(attr: Attribute) -> ElementType | None:
    return ELEMENT_TYPES.get(attr)


def unsupported_element(attr: Attribute) -> str:
    return f"element type {attr}"


def element_type_names() -> str:
    return ", ".join(info.mlir for info in ELEMENT_TYPES.values())
