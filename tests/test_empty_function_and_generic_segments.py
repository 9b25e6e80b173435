"""
Issue 30's unlocated failures: a function with arguments and no ops, and PTOAS's generic-form
`pto.tscatter` without operandSegmentSizes (verified, and printed with --disable-verify).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pto_tools import pto_opt
from tests.pto_tools.cli import call

TILE = "!pto.tile_buf<loc=vec, dtype=f16, rows=1, cols=32, v_row=1, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>"
GENERIC_TSCATTER = f"""\
func.func @tscatter_missing_mode() {{
  %src = pto.alloc_tile : {TILE}
  %dst = pto.alloc_tile : {TILE}
  "pto.tscatter"(%src, %dst) <{{}}> : ({TILE}, {TILE}) -> ()
  func.return
}}
"""


@pytest.mark.parametrize("flags", [[], ["-p", "pto-lower"]])
def test_a_function_with_arguments_and_no_ops_is_located(flags, tmp_path: Path, capsys) -> None:
    kernel = tmp_path / "k.pto"
    kernel.write_text("func.func @k(%t: !pto.tile_buf<vec, 8x32xf16>) {\n}\n")
    code, out, err = call(pto_opt.main, [str(kernel), *flags], capsys)
    assert (code, out) == (1, "")
    assert err.startswith(
        f"{kernel}:1:1: error: 'func.func' op has an empty block in a single-block region that expects at least a terminator\n"
    ), err


def test_generic_tscatter_without_segment_sizes_says_what_is_missing(tmp_path: Path, capsys) -> None:
    kernel = tmp_path / "k.pto"
    kernel.write_text(GENERIC_TSCATTER)
    code, _, err = call(pto_opt.main, [str(kernel)], capsys)
    assert code == 1
    assert err.startswith(
        f"{kernel}:4:3: error: 'pto.tscatter' op in the generic form needs the operandSegmentSizes property, the sizes "
        "of its operand groups (ins, outs); the custom form (`ins(...) outs(...)`) needs none\n"
    ), err


def test_generic_tscatter_printed_unverified_is_located(tmp_path: Path, capsys) -> None:
    kernel = tmp_path / "k.pto"
    kernel.write_text(GENERIC_TSCATTER)
    code, _, err = call(pto_opt.main, [str(kernel), "--disable-verify"], capsys)
    assert code == 1
    assert err == f"{kernel}:4:3: error: 'pto.tscatter' op cannot be printed: its operandSegmentSizes property is missing\n"


@pytest.mark.parametrize("flags", [["-p", "pto-lower"], ["--estimate"], ["-p", "pto-emit-cpp"], ["--targets", "all"]])
def test_a_pass_on_an_unverified_generic_tscatter_reports_the_verifier_s_error(flags, tmp_path: Path, capsys) -> None:
    """--disable-verify lets the op through; a pass that then fails on it reports why, at the op."""
    kernel = tmp_path / "k.pto"
    kernel.write_text(GENERIC_TSCATTER)
    code, out, err = call(pto_opt.main, [str(kernel), "--disable-verify", *flags], capsys)
    assert (code, out) == (1, "")
    assert err.startswith(f"{kernel}:4:3: error: 'pto.tscatter' op in the generic form needs the operandSegmentSizes property"), err
