"""
MLIR's binary integer ops and cmpi (pto_dialect/integer_arith.py) in the sync checker
(passes/sync_check.py), of one value and of a batched loop's int64 array of them, against formulas
written here on Python ints: each operand read at the op's width as signed or unsigned, the exact
result reduced modulo 2^width (held signed); a zero divisor or a shift by the width or more is
unknown. The value ranges (interpreter/value_ranges.py) bound unsigned division by what it gives.
A tile placed at an address that wraps (or that an unsigned op reads as unsigned) races where the
address lands.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter
from xdsl.ir import Operation

import pto_dialect
from pto_dialect.machine import RuntimeFault
import targets
from interpreter.loops import IndexArithFunctions
from interpreter.value_ranges import ValueRanges
from passes.sync_check import PipeState, SyncChecker, check_sync
from tests.budgets import examples
from tests.passes.test_integer_casts import bits, lowered_without_sync, race_kernel, type_name, wrapped
from tests.passes.test_sync_check_batched import found

WIDTHS = [1, 8, 16, 32, 64, None]
"""Integer widths; None: index, 64 bits in the interpreter."""


def truncated(a: int, b: int) -> int:
    return int(Fraction(a, b))  # int() rounds a fraction toward zero


# name: (operands read as unsigned, the exact result, what faults: "divisor" zero / "shift" >= width)
OPS: dict[str, tuple[bool, Callable[[int, int], int], str | None]] = {
    "addi": (False, lambda a, b: a + b, None),
    "subi": (False, lambda a, b: a - b, None),
    "muli": (False, lambda a, b: a * b, None),
    "andi": (False, lambda a, b: a & b, None),
    "ori": (False, lambda a, b: a | b, None),
    "xori": (False, lambda a, b: a ^ b, None),
    "minsi": (False, min, None),
    "maxsi": (False, max, None),
    "minui": (True, min, None),
    "maxui": (True, max, None),
    "divsi": (False, truncated, "divisor"),
    "remsi": (False, lambda a, b: a - b * truncated(a, b), "divisor"),
    "floordivsi": (False, lambda a, b: a // b, "divisor"),
    "ceildivsi": (False, lambda a, b: -(-a // b), "divisor"),
    "divui": (True, lambda a, b: a // b, "divisor"),
    "remui": (True, lambda a, b: a % b, "divisor"),
    "ceildivui": (True, lambda a, b: -(-a // b), "divisor"),
    "shli": (False, lambda a, b: a * 2**b, "shift"),
    "shrsi": (False, lambda a, b: a // 2**b, "shift"),
    "shrui": (True, lambda a, b: a // 2**b, "shift"),
}
PREDICATES = {
    "eq": (False, lambda a, b: a == b), "ne": (False, lambda a, b: a != b),
    "slt": (False, lambda a, b: a < b), "sle": (False, lambda a, b: a <= b),
    "sgt": (False, lambda a, b: a > b), "sge": (False, lambda a, b: a >= b),
    "ult": (True, lambda a, b: a < b), "ule": (True, lambda a, b: a <= b),
    "ugt": (True, lambda a, b: a > b), "uge": (True, lambda a, b: a >= b),
}


def expected(name: str, a: int, b: int, width: int) -> int | None:
    """The op's result by the formulas above; None where MLIR faults or gives poison."""
    if name in PREDICATES:
        is_unsigned, compare = PREDICATES[name]
    else:
        is_unsigned, formula, fault = OPS[name]
    x, y = ((v % (1 << width)) if is_unsigned else wrapped(v, width) for v in (a, b))
    if name in PREDICATES:
        return int(compare(x, y))
    if fault == "divisor" and y == 0 or fault == "shift" and not 0 <= y < width:
        return None
    return wrapped(formula(x, y), width)


def kernel(name: str, width: int | None) -> tuple[func.FuncOp, Operation]:
    """`%r = arith.<name> %a, %b`: the function and the op."""
    t = type_name(width)
    op = f"arith.cmpi {name}, %a, %b : {t}" if name in PREDICATES else f"arith.{name} %a, %b : {t}"
    result = "i1" if name in PREDICATES else t
    module = pto_dialect.parse(f"""
func.func @k(%a: {t}, %b: {t}) -> {result} {{
  %r = {op}
  return %r : {result}
}}""")
    function = next(o for o in module.walk() if isinstance(o, func.FuncOp))
    return function, next(iter(function.body.block.ops))


def checked(function: func.FuncOp, op: Operation, a: int | np.ndarray, b: int | np.ndarray) -> int | np.ndarray | None:
    """The sync checker's value of `op` given its operands (int64 arrays: a batched loop's)."""
    first, second = function.body.block.args
    checker = SyncChecker(targets.get("a2a3"), {first: a, second: b})
    checker.vector = isinstance(a, np.ndarray) or isinstance(b, np.ndarray)
    checker.op(op, PipeState())
    value = checker.values[op.results[0]]
    assert value is None or isinstance(value, int | np.ndarray)
    return value


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, int | None, list[tuple[int, int]]]:
    """An op or predicate, a width and up to 20 operand pairs: values of the width read either
    way (often its edges, 0, -1 and shift counts around the width), each fitting int64."""
    name = draw(st.sampled_from([*OPS, *PREDICATES]))
    width = draw(st.sampled_from(WIDTHS))
    w = bits(width)
    least, most = -(1 << (w - 1)), min((1 << w) - 1, (1 << 63) - 1)
    edges = sorted({0, 1, -1, least, (1 << (w - 1)) - 1, most, w - 1, w, w + 1, 2, -2})
    value = st.sampled_from([e for e in edges if least <= e <= most]) | st.integers(least, most)
    pairs = draw(st.lists(st.tuples(value, value), min_size=1, max_size=20))
    return name, width, pairs


@settings(max_examples=examples(400), deadline=None)
@given(cases())
def test_sync_checker_evaluates_integer_ops_exactly(case: tuple[str, int | None, list[tuple[int, int]]]) -> None:
    """Each pair alone (and in the interpreter: the value, or a fault), then all of them as a
    batched loop's arrays (and the first operands as an array with one second operand): the
    formula's value, or unknown (None) where it faults (an array: if any element does)."""
    name, width, pairs = case
    w = bits(width)
    function, op = kernel(name, width)
    wants = [expected(name, a, b, w) for a, b in pairs]
    run = getattr(IndexArithFunctions(), f"run_{'cmpi' if name in PREDICATES else name}")
    module = function.parent_op()
    assert isinstance(module, ModuleOp)
    machine = Interpreter(module)
    for (a, b), want in zip(pairs, wants):
        got = checked(function, op, a, b)
        assert (None if got is None else int(got)) == want, (a, b)
        if want is None:
            with pytest.raises(RuntimeFault):
                run(machine, op, (a, b))
        else:
            assert run(machine, op, (a, b)).values == (want if name not in PREDICATES else bool(want),)
    firsts, seconds = (np.array([p[i] for p in pairs], np.int64) for i in (0, 1))
    for second, want_all in ((seconds, wants), (pairs[0][1], [expected(name, a, pairs[0][1], w) for a, _ in pairs])):
        got = checked(function, op, firsts, second)
        if None in want_all:
            assert got is None
        else:
            assert isinstance(got, np.ndarray) and got.astype(np.int64).tolist() == want_all


@pytest.mark.parametrize(
    "name, a, b, want",
    [("remui", -1, 2, 1), ("divui", -1, 2, 2**63 - 1), ("shrui", -1, 60, 15), ("addi", 2**63 - 1, 1, -(2**63)),
     ("ult", -1, 0, 0), ("divsi", -(2**63), -1, -(2**63)), ("shli", 1, 64, None), ("remsi", 7, 0, None)],
)
def test_i64_examples(name: str, a: int, b: int, want: int | None) -> None:
    """The issue's examples at i64, one value and batched."""
    function, op = kernel(name, 64)
    got = checked(function, op, a, b)
    assert (None if got is None else int(got)) == want
    batched = checked(function, op, np.array([a, a], np.int64), b)
    assert batched is None if want is None else isinstance(batched, np.ndarray) and batched.tolist() == [want, want]


UNSIGNED_DIVISIONS = {"divui": lambda a, b: a // b, "ceildivui": lambda a, b: -(-a // b), "remui": lambda a, b: a % b}


@settings(max_examples=examples(200), deadline=None)
@given(st.sampled_from(list(UNSIGNED_DIVISIONS)), st.integers(-300, 300), st.integers(0, 300),
       st.integers(-300, 300), st.integers(0, 300))
def test_value_ranges_bound_unsigned_division(name: str, low_a: int, span_a: int, low_b: int, span_b: int) -> None:
    """divui, ceildivui and remui of i64 intervals: unknown, or bounds holding every value the op
    gives on the operands read as unsigned (a negative one is near 2^64)."""
    function, op = kernel(name, 64)
    a, b = function.body.block.args
    high_a, high_b = low_a + span_a, low_b + span_b
    bounds = ValueRanges({}, {a: (low_a, high_a), b: (low_b, high_b)}).of(op.results[0])
    if bounds is None:
        return
    values = [wrapped(UNSIGNED_DIVISIONS[name](x % 2**64, y % 2**64), 64)
              for x in range(low_a, high_a + 1) for y in range(low_b, high_b + 1) if y % 2**64]
    assert all(bounds[0] <= v <= bounds[1] for v in values)


def test_value_ranges_of_division_by_a_negative_unsigned_divisor() -> None:
    """divui and ceildivui of [0, 100] by -1 (2^64 - 1 unsigned) are 0 and 0 or 1, never
    negative (signed division's (-100, 0)): unknown here."""
    for name, values in (("divui", {0}), ("ceildivui", {0, 1})):
        function, op = kernel(name, 64)
        a, b = function.body.block.args
        bounds = ValueRanges({b: -1}, {a: (0, 100)}).of(op.results[0])
        assert bounds is None or bounds == (min(values), max(values))


# name: (the lines giving %addr : i64, where the loaded tile is). Read as unbounded signed numbers,
# each address lies away from the loaded tile (2^64, -65536, -2^62 / 2^47, a select of the far one).
ADDRESSES = {
    "addi_wraps": ("  %big = arith.constant 9223372036854775807 : i64\n  %two = arith.constant 2 : i64\n"
                   "  %s = arith.addi %big, %big : i64\n  %addr = arith.addi %s, %two : i64", 0),
    "remui": ("  %m = arith.constant -256 : i64\n  %c = arith.constant 65536 : i64\n"
              "  %addr = arith.remui %m, %c : i64", 65280),
    "divui": ("  %m = arith.constant -4611686018427387904 : i64\n  %d = arith.constant 140737488355328 : i64\n"
              "  %addr = arith.divui %m, %d : i64", 98304),
    "shrui": ("  %m = arith.constant -4611686018427387904 : i64\n  %s = arith.constant 47 : i64\n"
              "  %addr = arith.shrui %m, %s : i64", 98304),
    "cmpi_ult": ("  %m = arith.constant -1 : i64\n  %z = arith.constant 0 : i64\n  %far = arith.constant 4096 : i64\n"
                 "  %below = arith.cmpi ult, %m, %z : i64\n  %addr = arith.select %below, %far, %z : i64", 0),
}
# in a loop (batched or not): k * 2^62 * 4 wraps to 0 in every iteration
LOOP_ADDRESS = ("    %k64 = arith.extsi %k : i32 to i64\n    %q = arith.constant 4611686018427387904 : i64\n"
                "    %four = arith.constant 4 : i64\n    %s = arith.muli %k64, %q : i64\n    %addr = arith.muli %s, %four : i64")


@pytest.mark.parametrize("target", ["a2a3", "a5"])
@pytest.mark.parametrize("name", list(ADDRESSES))
def test_a_tile_at_a_wrapped_address_races(name: str, target: str) -> None:
    """The store's tile lies where MLIR's arithmetic puts it, on the loaded tile: a race naming
    both ops, statically and in a run."""
    address, loaded_at = ADDRESSES[name]
    module = lowered_without_sync(race_kernel(address, loaded_at), target)
    for errors in ([e.text for e in check_sync(module, targets.get(target)).errors], found(module, target, True)[0]):
        assert len(errors) == 1 and all("tstore" in e and "tload" in e for e in errors), errors


@pytest.mark.parametrize("target", ["a2a3", "a5"])
@pytest.mark.parametrize("batch_loops", [True, False])
def test_a_wrapped_address_in_a_loop_races(target: str, batch_loops: bool) -> None:
    module = lowered_without_sync(race_kernel(LOOP_ADDRESS, 0, loop=True), target)
    errors, _ = found(module, target, batch_loops)
    assert errors and all("tstore" in e and "tload" in e for e in errors), errors


WRAPPING = ["addi", "subi", "muli", "divsi", "maxsi", "minsi"]


@settings(max_examples=examples(200), deadline=None)
@given(st.sampled_from(WRAPPING), st.sampled_from([8, 16, 64]), st.data())
def test_value_ranges_bound_wrapping_arithmetic(name: str, width: int, data: st.DataObject) -> None:
    """addi, subi, muli, divsi, maxsi and minsi of two intervals of the width (often at its edges):
    bounds holding every result wrapped to the width, exact where none wraps."""
    least, most = -(1 << (width - 1)), (1 << (width - 1)) - 1
    ends = st.sampled_from([least, most, least + 1, most - 1, 0, -1]) | st.integers(least, most)
    intervals = []
    for _ in range(2):
        low = data.draw(ends)
        intervals.append((low, min(low + data.draw(st.integers(0, 40)), most)))
    function, op = kernel(name, width)
    a, b = function.body.block.args
    bounds = ValueRanges({}, {a: intervals[0], b: intervals[1]}).of(op.results[0])
    _, formula, _ = OPS[name]
    exact = [formula(x, y) for x in range(intervals[0][0], intervals[0][1] + 1)
             for y in range(intervals[1][0], intervals[1][1] + 1) if name != "divsi" or y != 0]
    if bounds is None:
        assert name == "divsi"  # a divisor that may be 0
        return
    assert all(bounds[0] <= wrapped(v, width) <= bounds[1] for v in exact)
    if all(least <= v <= most for v in exact):
        assert bounds == (min(exact), max(exact))


@pytest.mark.parametrize("low, high", [(120, 127), (127, 127), (-128, -120), (0, 10)])
def test_value_ranges_divide_a_wrapped_sum(low: int, high: int) -> None:
    """(%a + 1) / 2 at i8: the sum wraps before the division reads it (127 + 1 is -128, halved -64)."""
    function = next(o for o in pto_dialect.parse("""
func.func @k(%a: i8) -> i8 {
  %one = arith.constant 1 : i8
  %two = arith.constant 2 : i8
  %s = arith.addi %a, %one : i8
  %q = arith.divsi %s, %two : i8
  return %q : i8
}""").walk() if isinstance(o, func.FuncOp))
    (a,) = function.body.block.args
    quotient = list(function.body.block.ops)[3].results[0]
    bounds = ValueRanges({}, {a: (low, high)}).of(quotient)
    values = [truncated(wrapped(x + 1, 8), 2) for x in range(low, high + 1)]
    assert bounds is not None and bounds[0] <= min(values) and max(values) <= bounds[1]
