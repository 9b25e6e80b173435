"""
Target choices: how a target executes an instruction where targets differ. Each kind of
choice is an enum whose members carry their meaning in words (for the cross-target
report), and an attribute that records it on a lowered op, printed
`#pto_choice<kind value>`. Each instruction module declares the choices it records.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Operation, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
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
    """What the attribute recording one kind of choice is (`choice_attr` makes them)."""

    KINDS: ClassVar[dict[type[Choice], type[EnumAttribute]]] = {}
    """Every declared kind's attribute, by its enum."""


def choice_attr(enum: type[Choice], kind: str) -> type[EnumAttribute]:
    """The attribute recording an enum's choices, `#pto_choice<kind value>`: a class named
    `<Enum>Attr` in the enum's module, declared beside it as
    `IndexReadAttr = choice_attr(IndexRead, "index_read")`."""

    @irdl_attr_definition
    class Attr(ChoiceAttr, EnumAttribute[enum], SpacedOpaqueSyntaxAttribute):  # pyright: ignore[reportGeneralTypeIssues]
        name = f"pto_choice.{kind}"
        __doc__ = f"`#pto_choice<{kind} {'|'.join(enum)}>`: {enum.__doc__ or ''}"

    Attr.__name__ = Attr.__qualname__ = f"{enum.__name__}Attr"
    Attr.__module__ = enum.__module__
    ChoiceAttr.KINDS[enum] = Attr
    return Attr


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
