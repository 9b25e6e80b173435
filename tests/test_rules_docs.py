"""docs/verification.md, docs/instructions.md and docs/register-gathers.md are generated from the code and must be current."""

from pathlib import Path

from targets import instructions_doc, register_gather_doc
from targets.rules.docs import render

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_verification_doc_is_generated_from_rule_tables():
    assert (DOCS / "verification.md").read_text() == render(), "run: python -m targets.rules.docs > docs/verification.md"


def test_instructions_doc_is_generated_from_the_registry():
    assert (DOCS / "instructions.md").read_text() == instructions_doc.render(), (
        "run: python -m targets.instructions_doc > docs/instructions.md"
    )


def test_register_gathers_doc_is_generated_from_their_tables():
    assert (DOCS / "register-gathers.md").read_text() == register_gather_doc.render(), (
        "run: python -m targets.register_gather_doc > docs/register-gathers.md"
    )
