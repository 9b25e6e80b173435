"""What the register-level ops share: operand checks worded as PTOAS's verifier words them, and the
tokens (distributions, patterns) each op family takes, as tables the verifier, interpreter and docs read."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, TypeVar, cast

from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException

from pto_dialect.dtypes import element_info
from pto_dialect.types import PtrType
from pto_dialect.vpto.types import MaskType, VRegType, mask_of_lanes

UB = "ub"
GM = "gm"


class RegisterOp(IRDLOperation):
    """A register-level op in the syntax PTOAS gives most of them, `pto.NAME %a, %b {attrs} : Ta, Tb -> R`:
    its operands, their types and, where it has results, `->` theirs. An op written otherwise (a token,
    brackets, no results) declares its own `assembly_format`."""

    assembly_format = "operands attr-dict `:` type(operands) (`->` type(results)^)?"


NO_RESULTS_FORMAT = "operands attr-dict `:` type(operands)"
"""`RegisterOp`'s syntax for an op that has no results."""
DIST_LOAD_FORMAT = "$source `[` $offset `]` `,` $dist attr-dict `:` type($source) `,` type($offset) `->` type(results)"
"""A load from `source[offset]` in a distribution token (vldsx2, plds, pldi): `%r.. = pto.NAME %ub[%o], "DIST" : P, index -> R..`."""


class PureRegisterOp(RegisterOp):
    """A register-level op without side effects: only its results' values (so `dce` drops it unused and
    `cse` merges two alike)."""

    traits = traits_def(Pure())


class MaskedLaneOp(PureRegisterOp):
    """A pure lane-wise op whose last operand is the governing `mask`, giving one register."""

    mask = operand_def(MaskType)
    result = result_def(VRegType)


def ptr_type(value: SSAValue, what: str) -> PtrType:
    """`value`'s pointer type; a VerifyException naming `what` if it is not a `!pto.ptr`."""
    if not isinstance(value.type, PtrType):
        raise VerifyException(f"requires a pointer-like {what}, got {value.type}")
    return value.type


def require_space(value: SSAValue, space: str, what: str) -> PtrType:
    """A `!pto.ptr` into `space` (ub or gm)."""
    pointer = ptr_type(value, what)
    if pointer.space.data != space:
        backed = "UB" if space == UB else "GM"
        raise VerifyException(f"requires a {backed}-backed {what}, got {pointer}")
    return pointer


def require_updated_base(op: Operation, base: SSAValue, updated: SSAValue | None) -> None:
    """A post-update result has its base's pointer type."""
    if updated is not None and updated.type != base.type:
        raise VerifyException(f"requires updated base result to match base type {base.type}, got {updated.type}")


OpT = TypeVar("OpT", bound=IRDLOperation)


def row_op(base: type[OpT], class_name: str, op_name: str, doc: str | None = None, **constants: object) -> type[OpT]:
    """The op `pto.<op_name>` of a family declared as a table: `base` with one row's class constants."""
    attrs = {"name": f"pto.{op_name}", "__module__": base.__module__, "__annotations__": dict.fromkeys(constants, ClassVar),
             **constants}
    if doc is not None:
        attrs["__doc__"] = doc
    return irdl_op_definition(cast(type[OpT], type(class_name, (base,), attrs)))


class CopyOpBase(RegisterOp):
    """A copy from its `source` pointer to its `destination` pointer: each into its space (GM -> UB
    unless the op says otherwise), their elements of one byte width."""

    if TYPE_CHECKING:  # each copy defines them, in PTOAS's operand order
        source: SSAValue
        destination: SSAValue

    SPACES: ClassVar[tuple[str, str]] = (GM, UB)
    """(source, destination)."""
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = NO_RESULTS_FORMAT

    def verify_(self) -> None:
        source_space, destination_space = self.SPACES
        source = require_space(self.source, source_space, "source")
        destination = require_space(self.destination, destination_space, "destination")
        if source.element.bytes != destination.element.bytes:
            raise VerifyException(f"requires source and destination element byte widths to match, got {source} and {destination}")


class UbToGmCopyOp(CopyOpBase):
    """A copy from UB out to GM (the MTE3 direction)."""

    SPACES: ClassVar[tuple[str, str]] = (UB, GM)


class UbAccessOp(RegisterOp):
    """An op that reads or writes UB through its pointer operand named `POINTER` and, where it has the
    post-update result named `UPDATED`, returns that pointer advanced (so of the pointer's type)."""

    POINTER: ClassVar[str] = "source"
    UPDATED: ClassVar[str] = "updated_base"
    DIRECTION: ClassVar[str]
    """How a message names the access: load or store."""

    @property
    def pointer_type(self) -> PtrType:
        """The verified op's pointer type."""
        pointer = getattr(self, self.POINTER).type
        assert isinstance(pointer, PtrType)
        return pointer

    def verify_(self) -> None:
        pointer = getattr(self, self.POINTER)
        require_space(pointer, UB, self.POINTER)
        require_updated_base(self, pointer, getattr(self, self.UPDATED, None))


class UbReadOp(UbAccessOp):
    """An op that reads UB through its `source` pointer (a load)."""

    DIRECTION: ClassVar[str] = "load"
    traits = traits_def(MemoryReadEffect())


class UbWriteOp(UbAccessOp):
    """An op that writes UB through its `destination` pointer (a store)."""

    POINTER: ClassVar[str] = "destination"
    DIRECTION: ClassVar[str] = "store"
    traits = traits_def(MemoryWriteEffect())


def element_bytes(attr: Attribute) -> int:
    info = element_info(attr)
    assert info is not None, "a verified type"
    return info.bytes


def require_mask_for(vreg: VRegType, mask: Attribute, what: str = "mask", granularity: str | None = None) -> None:
    """The mask a vector op over `vreg` takes: the granularity of its element width (or `granularity`)."""
    want = granularity or mask_of_lanes(vreg.element.bytes)
    if not isinstance(mask, MaskType) or mask.granularity.data != want:
        raise VerifyException(f"requires {what} type !pto.mask<{want}> for {vreg}, got {mask}")


def require_token(token: str, allowed: object, what: str) -> None:
    """`token` is one of `allowed` (a table keyed by token)."""
    if token not in allowed:  # pyright: ignore[reportOperatorIssue]
        raise VerifyException(f"{what} must be one of {', '.join(allowed)}, got \"{token}\"")  # pyright: ignore[reportCallIssue, reportArgumentType]


def require_same(first: Attribute, second: Attribute, what: str) -> None:
    if first != second:
        raise VerifyException(f"requires {what} to share one type, got {first} and {second}")
