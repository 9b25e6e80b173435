"""
The located parser's shortcuts (pto_dialect/parser.py): a type or attribute text seen before
is not parsed again, and an instruction signature verified once is not verified again.
Neither may change what a kernel means or where an error is reported.
"""

from typing import cast

import pytest
from xdsl.dialects import func

from pto_dialect import PtoError, parse
from pto_dialect.types import TileBufType

T = "!pto.tile_buf<vec, 8x32xf16>"
IDX = "!pto.tile_buf<vec, 1x8xi32>"
VIEW = "!pto.partition_tensor_view<64x32xf16>"


def arguments(types: list[str]) -> list[TileBufType]:
    params = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    module = parse(f"func.func @k({params}) {{\n  return\n}}\n")
    (function,) = module.body.ops
    assert isinstance(function, func.FuncOp)
    return cast(list[TileBufType], list(function.function_type.inputs))


def test_every_spelling_of_a_repeated_type_gives_the_same_type():
    legacy = (
        "!pto.tile_buf<loc=vec, dtype=f16, rows=8, cols=32, v_row=8, v_col=32, "
        "blayout=row_major, slayout=none_box, fractal=512, pad=0>"
    )
    quoted = legacy.replace("blayout=row_major", 'blayout="row_major"')  # a string: parsed in full
    types = arguments([T, T, "!pto.tile_buf<vec,8x32xf16>", legacy, legacy, quoted, T])
    assert all(t == types[0] for t in types)
    assert types[0] == TileBufType.get("vec", (8, 32), types[0].element_type)


def test_a_bad_type_after_repeats_is_reported_where_it_is():
    with pytest.raises(PtoError) as err:
        parse(f"func.func @k(%a: {T}, %b: {T}, %c: !pto.tile_buf<vec, 8x0xf16>) {{\n  return\n}}\n", "k.pto")
    column = len(f"func.func @k(%a: {T}, %b: {T}, %c: !pto.tile_buf") + 1  # at its `<`
    assert str(err.value).startswith(f"k.pto:1:{column}: error: tile_buf rows/cols must be positive")


def test_parsing_resumes_right_after_a_repeated_type():
    with pytest.raises(PtoError) as err:
        parse(f"func.func @k(%a: {T}, %b: {T} %c) {{\n  return\n}}\n", "k.pto")
    column = len(f"func.func @k(%a: {T}, %b: {T} ") + 1
    assert str(err.value).startswith(f"k.pto:1:{column}: error: ")


def mgathers(*attr_dicts: str) -> str:
    lines = "".join(
        f"  pto.mgather ins(%t, %i : {VIEW}, {IDX}) outs(%d : {T}){attrs}\n" for attrs in attr_dicts
    )
    return f"func.func @k(%t: {VIEW}, %i: {IDX}, %d: {T}) {{\n{lines}  return\n}}\n"


def test_an_instruction_like_a_verified_one_but_for_an_attribute_is_checked():
    row = " {coalesce = #pto<coalesce row>}"
    parse(mgathers(row, row, row))
    with pytest.raises(PtoError) as err:
        parse(mgathers(row, row, "", row), "k.pto")
    assert str(err.value) == "k.pto:4:3: error: 'pto.mgather' op requires attribute 'coalesce'"


def test_an_instruction_like_a_verified_one_is_checked_where_it_ends_its_block():
    row = " {coalesce = #pto<coalesce row>}"
    text = mgathers(row, row).replace("  return\n", "")
    with pytest.raises(PtoError) as err:
        parse(text, "k.pto")
    assert str(err.value).startswith("k.pto:3:3: error: ") and "terminator" in str(err.value)
