"""docs/reference.md is generated from the code and must be current."""

from pto_tools.reference import render
from tests.pto_tools.cli import ROOT


def test_reference_doc_is_generated_from_the_code():
    doc = ROOT / "docs" / "reference.md"
    assert doc.read_text() == render(), "run: python -m pto_tools.reference > docs/reference.md"
