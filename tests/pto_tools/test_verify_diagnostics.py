"""`--verify-diagnostics` with expected-error/-warning/-note annotations, as mlir-opt checks them."""

import pytest

from pto_tools import pto_opt
from pto_tools.expected_diagnostics import expectations
from tests.pto_tools.cli import ROOT, call

# One op a2a3 rejects (i16 indices), at line 5 of each text below.
FUNCTION = """\
func.func @f(%m: !pto.partition_tensor_view<64x32xf16>, %i: !pto.tile_buf<vec, 1x16xi16>,
             %d: !pto.tile_buf<vec, 16x32xf16>) {{
{before}
{annotation}
  pto.mgather ins(%m, %i : !pto.partition_tensor_view<64x32xf16>, !pto.tile_buf<vec, 1x16xi16>) outs(%d : !pto.tile_buf<vec, 16x32xf16>) {{coalesce = #pto<coalesce row>}}{same_line}
{after}
  return
}}
"""
MESSAGE = "'pto.mgather' op expects idx element type to be i32/si32/ui32, got i16"


def kernel(tmp_path, before="", annotation="", same_line="", after=""):
    path = tmp_path / "k.pto"
    path.write_text(FUNCTION.format(before=before, annotation=annotation, same_line=same_line, after=after))
    return str(path)


@pytest.mark.parametrize(
    "where",
    [
        {"annotation": "  // expected-error @+1 {{idx element type}}"},
        {"before": "  // expected-error @+2 {{idx element type}}"},
        {"after": "  // expected-error @-1 {{idx element type}}"},
        {"annotation": "  // expected-error @below {{idx element type}}"},
        {"after": "  // expected-error @above {{idx element type}}"},
        {"same_line": "  // expected-error {{" + MESSAGE + "}}"},
    ],
)
def test_announced_diagnostic_passes(where, tmp_path, capsys):
    code, out, err = call(pto_opt.main, [kernel(tmp_path, **where), "--verify-diagnostics"], capsys)
    assert (code, err) == (0, "")
    assert MESSAGE not in out  # a met expectation is not printed


def test_below_and_above_skip_annotation_lines():
    text = "a\n// expected-error @above {{1}}\n// expected-note @below {{2}}\n// expected-warning @above {{3}}\nb\n"
    assert [(e.severity, e.line) for e in expectations(text, 10)] == [("error", 10), ("note", 14), ("warning", 10)]


def test_wrong_line_reports_both_the_unexpected_and_the_missing(tmp_path, capsys):
    path = kernel(tmp_path, annotation="  // expected-error @+2 {{idx element type}}")
    code, _, err = call(pto_opt.main, [path, "--verify-diagnostics"], capsys)
    assert code == 1
    assert err.splitlines() == [
        f"{path}:5:3: error: unexpected error: {MESSAGE} (target a2a3)",
        f'{path}:4:6: error: expected error "idx element type" was not produced',
    ]


@pytest.mark.parametrize("severity", ["warning", "note", "error"])
def test_expected_diagnostic_never_produced(severity, tmp_path, capsys):
    path = kernel(tmp_path, annotation=f"  // expected-{severity} @+1 {{{{something else}}}}")
    code, _, err = call(pto_opt.main, [path, "--verify-diagnostics", "--target", "cpu"], capsys)
    assert code == 1
    assert err == f'{path}:4:6: error: expected {severity} "something else" was not produced\n'


def test_split_chunks_keep_file_lines(tmp_path, capsys):
    path = kernel(tmp_path, annotation="  // expected-error @+1 {{idx element type}}")
    body = (tmp_path / "k.pto").read_text()
    (tmp_path / "k.pto").write_text("func.func @ok() {\n  return\n}\n// -----\n" + body)
    code, out, err = call(pto_opt.main, [path, "--verify-diagnostics", "--split-input-file"], capsys)
    assert (code, err) == (0, "")
    assert "func.func @ok()" in out


def test_without_annotations_diagnostics_are_printed_for_filecheck(tmp_path, capsys):
    code, out, err = call(pto_opt.main, [kernel(tmp_path), "--verify-diagnostics"], capsys)
    assert (code, err) == (0, "")
    assert f"k.pto:5:3: error: {MESSAGE}" in out


def test_bundled_bad_kernel_is_annotated(capsys):
    path = str(ROOT / "examples" / "bad" / "mgather_a2a3.pto")
    assert call(pto_opt.main, [path, "--verify-diagnostics"], capsys)[:3:2] == (0, "")
    code, _, err = call(pto_opt.main, [path], capsys)
    assert code == 1
    assert err.startswith(f"{path}:14:7: error: {MESSAGE}")
