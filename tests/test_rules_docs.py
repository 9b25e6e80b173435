"""docs/verification.md is generated from the rule tables and must be current."""

from pathlib import Path

from targets.rules.docs import render

DOC = Path(__file__).resolve().parent.parent / "docs" / "verification.md"


def test_verification_doc_is_generated_from_rule_tables():
    assert DOC.read_text() == render(), "run: python -m targets.rules.docs > docs/verification.md"
