"""
Target choices: how a target executes an instruction where targets differ. Each kind of
choice is an enum whose members carry their meaning in words (for the cross-target
report), and an attribute that records it on a lowered op, printed
`#pto_choice<kind value>`. Each instruction module declares the choices it records.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Operation
from xdsl.utils.str_enum import StrEnum


class Choice(StrEnum):
    """A target choice, declared as `NAME = "value", "what the target then does"`."""

    phrase: str

    def __new__(cls, value: str, phrase: str):
        member = str.__new__(cls, value)
        member._value_ = value
        member.phrase = phrase
        return member


class ChoiceAttr:
    """Mixin of the attribute recording one kind of choice, declared beside its enum:

        @irdl_attr_definition
        class IndexReadAttr(ChoiceAttr, EnumAttribute[IndexRead], SpacedOpaqueSyntaxAttribute):
            name = "pto_choice.index_read"

    which prints `#pto_choice<index_read unsigned_32>`."""

    KINDS: ClassVar[dict[type[Choice], type[EnumAttribute]]] = {}
    """Every declared kind's attribute, by its enum."""

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        ChoiceAttr.KINDS[cls.enum_type] = cls  # pyright: ignore[reportAttributeAccessIssue]


def choice(value: Choice) -> Attribute:
    """The attribute holding a choice."""
    return ChoiceAttr.KINDS[type(value)](value)


def choices_of(op: Operation) -> dict[str, Choice]:
    """Every target choice an op records, by property or attribute name."""
    return {
        name: value.data  # pyright: ignore[reportAttributeAccessIssue]
        for name, value in (*op.properties.items(), *op.attributes.items())
        if isinstance(value, ChoiceAttr)
    }
