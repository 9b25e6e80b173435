"""
`arith.index_castui` (pto_dialect/mlir_arith.py), MLIR's zero-extending index cast: its operand
read as an unsigned number, extended to index or truncated to the result's width. Each test
checks it against the formula below, written from MLIR's definition with Python's integers.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects import func
from xdsl.dialects.builtin import IndexType, IntegerType, ModuleOp
from xdsl.interpreter import Interpreter
from xdsl.ir import Attribute
from xdsl.utils.test_value import create_ssa_value

from interpreter import run, run_with_results
from interpreter.loops import IndexArithFunctions
from interpreter.value_ranges import ValueRanges
from pto_dialect import parse
from pto_dialect.mlir_arith import IndexCastUIOp
from tests.budgets import examples
from tests.interpreter.harness import NP, TARGETS
from tests.interpreter.test_batch import batched_outcomes, run_both
from tests.interpreter.test_batch_scalar_reads import C, ROWS, TOKENS, inputs, lookup_kernel

WIDTHS = [1, 8, 16, 32, 64]


def castui(value: int, source_bits: int, result_bits: int) -> int:
    """MLIR's index_castui on a value of a `source_bits` type, held as a signed number of
    `result_bits`: the value modulo 2^source_bits (its unsigned reading), that modulo
    2^result_bits, above the signed range wrapped down."""
    unsigned = value % 2**source_bits % 2**result_bits
    return unsigned - 2**result_bits if unsigned >= 2 ** (result_bits - 1) else unsigned


def int_type(bits: int | None) -> Attribute:
    return IndexType() if bits is None else IntegerType(bits)


@st.composite
def casts(draw: st.DrawFn) -> tuple[int, int | None, int | None, int]:
    """(index width, operand bits or None for index, result bits or None, operand value held
    signed, negatives included)."""
    index_bits = draw(st.sampled_from([32, 64]))
    integer_bits = draw(st.sampled_from(WIDTHS))
    source, result = draw(st.sampled_from([(integer_bits, None), (None, integer_bits)]))
    bits = index_bits if source is None else source
    value = draw(st.integers(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) | st.sampled_from([-1, 0, 1, -(2 ** (bits - 1))]))
    return index_bits, source, result, value


@settings(max_examples=examples(300), deadline=None)
@given(casts())
def test_index_castui_reads_the_operand_as_unsigned(cast: tuple[int, int | None, int | None, int]) -> None:
    """An integer zero-extended to index, an index truncated to an integer, on an interpreter
    of either index width."""
    index_bits, source, result, value = cast
    machine = Interpreter(ModuleOp([]), index_bitwidth=index_bits)  # pyright: ignore[reportArgumentType]
    op = IndexCastUIOp(create_ssa_value(int_type(source)), int_type(result))
    (out,) = IndexArithFunctions().run_index_castui(machine, op, (value,)).values
    source_bits, result_bits = (index_bits if b is None else b for b in (source, result))
    assert out == castui(value, source_bits, result_bits)


SCALARS = """
func.func @k(%a: i8, %b: i16, %c: i32, %d: i64, %e: index) -> (index, index, index, index, i8, i16, i32) {
  %a1 = arith.index_castui %a : i8 to index
  %b1 = arith.index_castui %b : i16 to index
  %c1 = arith.index_castui %c : i32 to index
  %d1 = arith.index_castui %d : i64 to index
  %e1 = arith.index_castui %e : index to i8
  %e2 = arith.index_castui %e : index to i16
  %e3 = "arith.index_castui"(%e) : (index) -> i32
  return %a1, %b1, %c1, %d1, %e1, %e2, %e3 : index, index, index, index, i8, i16, i32
}
"""


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("sign", [-1, 1])
def test_kernel_results_are_the_unsigned_readings(target: str, sign: int) -> None:
    """A kernel's scalar arguments of each width, negative ones too, cast both ways (index is
    64 bits in the interpreter on every target)."""
    values = [sign * 100, sign * 30_000, sign * 2_000_000_000, sign * 2**62, sign * 1_234_567]
    args = [np.array(v, dtype) for v, dtype in zip(values, ["i1", "i2", "i4", "i8", "i8"])]
    _, results = run_with_results(parse(SCALARS, "k.pto"), target, args)
    expected = [castui(v, bits, 64) for v, bits in zip(values[:4], [8, 16, 32, 64])]
    expected += [castui(values[4], 64, bits) for bits in (8, 16, 32)]
    assert [int(r) for r in results] == expected
    assert [r.dtype for r in results[4:]] == [np.int8, np.int16, np.int32]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("id_type", ["i8", "i16", "i32"])
def test_token_ids_read_as_unsigned_run_batched(target: str, id_type: str) -> None:
    """A lookup whose ids go through index_castui: negative ids become large rows (clamped to
    the table's last), batched and serial alike."""
    ids = np.array([3, -1, 0, -128, ROWS, 7, -5, 11, 2, 2, 9, 1, 0, 5, 3, 127], NP[id_type])
    text = lookup_kernel(id_type).replace("arith.index_cast %id", "arith.index_castui %id")
    assert "arith.index_castui" in text
    arrays = inputs(ids)
    assert batched_outcomes(text, target, arrays) == [True]
    assert not run_both(text, target, arrays)
    bits = 8 * ids.itemsize
    rows = np.array([min(max(castui(int(i), bits, 64), 0), ROWS - 1) for i in ids])
    expected = arrays[0].reshape(ROWS, C)[rows].ravel()
    assert np.array_equal(run(parse(text, "k.pto"), target, arrays)[2], expected)
    assert len(ids) == TOKENS


def interval(source: int | None, result: int | None, low: int, high: int) -> tuple[int, int] | None:
    """The interval analysis's bounds on index_castui of an argument drawn in [low, high]."""
    module = parse(f"""
func.func @k(%v: {int_type(source)}) -> {int_type(result)} {{
  %r = arith.index_castui %v : {int_type(source)} to {int_type(result)}
  return %r : {int_type(result)}
}}""")
    function = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    argument = function.body.block.args[0]
    cast = next(op for op in function.walk() if isinstance(op, IndexCastUIOp))
    return ValueRanges({}, {argument: (low, high)}).of(cast.result)


@settings(max_examples=examples(200), deadline=None)
@given(st.sampled_from([(8, None), (16, None), (32, None), (None, 8), (None, 16), (None, 32)]), st.data())
def test_value_ranges_bound_every_unsigned_reading(types: tuple[int | None, int | None], data: st.DataObject) -> None:
    """The bounds hold every value the cast gives on the drawn interval (negatives, straddling
    zero, wider than the result), and are exact where the values form one run."""
    source, result = types
    source_bits, result_bits = (64 if b is None else b for b in types)
    low = data.draw(st.integers(-(2 ** (source_bits - 1)), 2 ** (source_bits - 1) - 1))
    high = data.draw(st.integers(low, min(low + 300, 2 ** (source_bits - 1) - 1)))
    bounds = interval(source, result, low, high)
    assert bounds is not None
    values = [castui(v, source_bits, result_bits) for v in range(low, high + 1)]
    assert bounds[0] <= min(values) and max(values) <= bounds[1]
    if max(values) - min(values) == high - low:  # no wrap inside the interval
        assert bounds == (min(values), max(values))
