"""
PTO attributes, spelled as PTOAS reads and prints them.

Enums follow xDSL's `EnumAttribute` pattern, named by a class keyword `kind`: those that
PTOAS spells `#pto<kind value>` mix in `Spaced`, the others (`#pto.kind<value>`)
`AngleBracketed`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.str_enum import StrEnum


class MaskPattern(StrEnum):
    """TGATHER mask patterns; the rightmost character is element 0."""

    P0101 = "P0101"
    P1010 = "P1010"
    P0001 = "P0001"
    P0010 = "P0010"
    P0100 = "P0100"
    P1000 = "P1000"
    P1111 = "P1111"

    @property
    def period(self) -> int:
        """The expansion factor t: one element kept out of every t."""
        ones = self.value[1:].count("1")
        return 1 if ones == 4 else 4 // ones

    @property
    def offset(self) -> int:
        """The residue kept (i % period == offset); 0 for P1111."""
        return 0 if self.period == 1 else self.value[1:][::-1].index("1")


class Coalesce(StrEnum):
    ROW = "row"
    ELEM = "elem"


class GatherOob(StrEnum):
    UNDEFINED = "undefined"
    CLAMP = "clamp"
    WRAP = "wrap"
    ZERO = "zero"


class GatherExec(StrEnum):
    SCALAR = "scalar"
    SIMT = "simt"


class ScatterAtomicOp(StrEnum):
    NONE = "none"
    ADD = "add"
    MAX = "max"
    MIN = "min"


class ScatterOob(StrEnum):
    UNDEFINED = "undefined"
    SKIP = "skip"
    CLAMP = "clamp"
    WRAP = "wrap"


class ScatterConflict(StrEnum):
    DEFAULT = "default"
    LAST = "last"


class CmpMode(StrEnum):
    EQ = "eq"
    NE = "ne"
    LT = "lt"
    LE = "le"
    GT = "gt"
    GE = "ge"


class GmLayout(StrEnum):
    ND = "nd"
    DN = "dn"
    NZ = "nz"
    MX_A_ZZ = "mx_a_zz"
    MX_B_NN = "mx_b_nn"


class RoundMode(StrEnum):
    """TCVT's rounding mode, as PTOAS spells it (`#pto<round_mode ROUND>`); pto-isa's
    RoundMode::CAST_<mode> (RINT and CAST_RINT are both CAST_RINT, NONE is CAST_NONE)."""

    NONE = "NONE"
    RINT = "RINT"
    ROUND = "ROUND"
    FLOOR = "FLOOR"
    CEIL = "CEIL"
    TRUNC = "TRUNC"
    ODD = "ODD"
    CAST_RINT = "CAST_RINT"

    @property
    def cpp(self) -> str:
        return "RoundMode::CAST_" + ("RINT" if self is RoundMode.CAST_RINT else self.value)


class SaturationMode(StrEnum):
    """TCVT's saturation (`#pto<saturation_mode ON|OFF>`), pto-isa's SaturationMode."""

    ON = "ON"
    OFF = "OFF"


class Precision(StrEnum):
    """An instruction's precisionType (`#pto<exp_precision high_precision>`, `#pto<div_precision ...>`):
    pto-isa's <Op>Algorithm::DEFAULT or HIGH_PRECISION (the template argument selects a5's
    software-corrected sequences; a2a3 and the simulator ignore it)."""

    DEFAULT = "default"
    HIGH_PRECISION = "high_precision"


class PrintFormat(StrEnum):
    """TPRINT's number format (`#pto<print_format width8_precision4>`), pto-isa's PrintFormat
    (the printf field width and precision of its floats)."""

    WIDTH8_PRECISION4 = "width8_precision4"
    WIDTH8_PRECISION2 = "width8_precision2"
    WIDTH10_PRECISION6 = "width10_precision6"

    @property
    def cpp(self) -> str:
        return "pto::PrintFormat::" + self.value.capitalize().replace("_p", "_P")


class KernelKind(StrEnum):
    CUBE = "cube"
    VECTOR = "vector"


class AddressSpace(StrEnum):
    ZERO = "zero"
    GM = "gm"
    MAT = "mat"
    LEFT = "left"
    RIGHT = "right"
    ACC = "acc"
    VEC = "vec"
    BIAS = "bias"
    SCALING = "scaling"


class FenceScope(StrEnum):
    """What `pto.fence.barrier_all` orders (PTOAS's FenceScope)."""

    LOCAL_MEMORY = "local_memory"
    GM = "gm"
    ALL = "all"


class PtoEnumAttr:
    """An enum attribute of the pto dialect named by its class keyword `kind`, `pto.<kind>`;
    its docstring opens with its spelling, which lists the enum's values (mixed in first)."""

    SPELLING: ClassVar[str] = "#pto<{kind} {values}>"

    def __init_subclass__(cls, kind: str = "", **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if kind:
            values = "|".join(cls.enum_type)  # pyright: ignore[reportAttributeAccessIssue]
            cls.name = f"pto.{kind}"  # pyright: ignore[reportAttributeAccessIssue]
            cls.__doc__ = f"`{cls.SPELLING.format(kind=kind, values=values)}`: {cls.__doc__}"


class Spaced(PtoEnumAttr, SpacedOpaqueSyntaxAttribute):
    """Spelled `#pto<kind value>`, as PTOAS spells most enum attributes."""


class AngleBracketed(PtoEnumAttr):
    """Spelled `#pto.kind<value>`: the value in angle brackets."""

    SPELLING: ClassVar[str] = "#pto.{kind}<{values}>"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> StrEnum:
        with parser.in_angle_brackets():
            return parser.parse_str_enum(cls.enum_type)  # pyright: ignore[reportAttributeAccessIssue]

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.data.value)  # pyright: ignore[reportAttributeAccessIssue]


@irdl_attr_definition
class MaskPatternAttr(AngleBracketed, EnumAttribute[MaskPattern], kind="mask_pattern"):
    """which source columns a mask-form TGATHER keeps."""


@irdl_attr_definition
class CoalesceAttr(Spaced, EnumAttribute[Coalesce], kind="coalesce"):
    """MGATHER's row or element gather."""


@irdl_attr_definition
class GatherOobAttr(Spaced, EnumAttribute[GatherOob], kind="gather_oob"):
    """MGATHER's out-of-bounds policy."""


@irdl_attr_definition
class GatherExecAttr(Spaced, EnumAttribute[GatherExec], kind="gather_exec"):
    """a5 elem GM->L1 MGATHER executor (spec GatherExec)."""


@irdl_attr_definition
class ScatterAtomicOpAttr(Spaced, EnumAttribute[ScatterAtomicOp], kind="scatter_atomic_op"):
    """how MSCATTER combines with the table."""


@irdl_attr_definition
class ScatterOobAttr(Spaced, EnumAttribute[ScatterOob], kind="scatter_oob"):
    """MSCATTER's out-of-bounds policy."""


@irdl_attr_definition
class ScatterConflictAttr(Spaced, EnumAttribute[ScatterConflict], kind="scatter_conflict"):
    """which of MSCATTER's colliding writes survives (a5)."""


@irdl_attr_definition
class RoundModeAttr(Spaced, EnumAttribute[RoundMode], kind="round_mode"):
    """TCVT's rounding."""


@irdl_attr_definition
class PrintFormatAttr(Spaced, EnumAttribute[PrintFormat], kind="print_format"):
    """TPRINT's number format."""


@irdl_attr_definition
class SaturationModeAttr(Spaced, EnumAttribute[SaturationMode], kind="saturation_mode"):
    """whether TCVT saturates."""


def _precision_attr(kind: str, algorithm: str) -> type[EnumAttribute]:
    """`#pto<{kind} default|high_precision>`, whose C++ template argument is `pto::{algorithm}::...`."""

    @irdl_attr_definition
    class Attr(Spaced, EnumAttribute[Precision], kind=kind):
        __doc__ = f"pto-isa's {algorithm}."
        ALGORITHM = algorithm

    Attr.__name__ = Attr.__qualname__ = "".join(w.capitalize() for w in kind.split("_")) + "Attr"
    return Attr


PRECISION_ATTRS = {
    mnemonic: _precision_attr(f"{kind}_precision", f"{kind.capitalize()}Algorithm")
    for mnemonic, kind in (("texp", "exp"), ("tlog", "log"), ("tsqrt", "sqrt"), ("trsqrt", "rsqrt"), ("trecip", "recip"))
}
"""Each precision attribute by the instruction it configures."""

DivPrecisionAttr = _precision_attr("div_precision", "DivAlgorithm")
"""TDIV's and TDIVS's `precisionType`."""
RemPrecisionAttr = _precision_attr("rem_precision", "RemAlgorithm")
"""TREM's and TREMS's `precisionType`."""
FmodPrecisionAttr = _precision_attr("fmod_precision", "FmodAlgorithm")
"""TFMOD's and TFMODS's `precisionType`."""
PowPrecisionAttr = _precision_attr("pow_precision", "PowAlgorithm")
"""TPOW's and TPOWS's `precisionType`."""


@irdl_attr_definition
class CmpModeAttr(Spaced, EnumAttribute[CmpMode], kind="cmp"):
    """compare-form TGATHER's comparison."""


@irdl_attr_definition
class GmLayoutAttr(AngleBracketed, EnumAttribute[GmLayout], kind="layout"):
    """logical layout of a GM tensor view."""


@irdl_attr_definition
class KernelKindAttr(AngleBracketed, EnumAttribute[KernelKind], kind="kernel_kind"):
    """the cores a kernel runs on (a function or module attribute)."""


@irdl_attr_definition
class AddressSpaceAttr(AngleBracketed, EnumAttribute[AddressSpace], kind="address_space"):
    """the memory a `!pto.ptr` points into."""


@irdl_attr_definition
class FenceScopeAttr(AngleBracketed, EnumAttribute[FenceScope], kind="fence_scope"):
    """the memory whose accesses `pto.fence.barrier_all` orders."""


ATTRIBUTES = [
    DivPrecisionAttr,
    RemPrecisionAttr,
    FmodPrecisionAttr,
    PowPrecisionAttr,
    MaskPatternAttr,
    CoalesceAttr,
    GatherOobAttr,
    GatherExecAttr,
    ScatterAtomicOpAttr,
    ScatterOobAttr,
    ScatterConflictAttr,
    CmpModeAttr,
    RoundModeAttr,
    SaturationModeAttr,
    PrintFormatAttr,
    *PRECISION_ATTRS.values(),
    GmLayoutAttr,
    KernelKindAttr,
    AddressSpaceAttr,
    FenceScopeAttr,
]
