"""
MLIR's integer casts (extsi, extui, trunci, index_cast, index_castui) in the two analyses that
follow integer values without running the kernel: the sync checker (passes/sync_check.py) gives
each cast's exact value, of one value or of a batched loop's array of them; the value ranges
(interpreter/value_ranges.py) bound every value the cast gives on an interval, exactly where no
value in it wraps. Each is checked against NumPy's casts of the same bits (a two's-complement
`astype`, read unsigned first for extui / index_castui), after an `arith.addi` that may wrap.
A trunci whose wrap-around places a tile on another's bytes makes a race the checker reports.
An integer tile holds what the value ranges say it does: converted by tcvt to a narrower type
(wrapping or saturating), or its bytes read as another type through a reshape (unknown).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

import pto_dialect
import targets
from interpreter import run_with_results
from interpreter.value_ranges import ValueRanges
from passes.pipeline import PipelinePass
from passes.sync_check import PipeState, SyncChecker, check_sync
from tests.budgets import examples
from tests.passes.test_sync_check_batched import HEAD, PART, TILE, found

INDEX = None
"""The index type, 64 bits in the interpreter."""

CASTS: list[tuple[str, int | None, int | None]] = [
    *((op, s, r) for op in ("extsi", "extui") for s, r in ((8, 16), (8, 64), (16, 32), (32, 64))),
    *(("trunci", s, r) for s, r in ((16, 8), (32, 8), (32, 16), (64, 16), (64, 32))),
    *((op, s, r) for op in ("index_cast", "index_castui") for s, r in ((8, INDEX), (32, INDEX), (64, INDEX), (INDEX, 8), (INDEX, 32), (INDEX, 64))),
]


def bits(width: int | None) -> int:
    return 64 if width is None else width


def type_name(width: int | None) -> str:
    return "index" if width is INDEX else f"i{width}"


def wrapped(value: int, width: int) -> int:
    """`value` as a signed `width`-bit integer holds it (what arith.addi leaves)."""
    half = 1 << (width - 1)
    return (value + half) % (1 << width) - half


def numpy_cast(op: str, values: np.ndarray, source: int, result: int) -> np.ndarray:
    """What the cast gives on each of `values` (signed `source`-bit integers), by NumPy."""
    held = values.astype(f"int{source}")
    if op in ("extui", "index_castui"):
        held = held.view(f"uint{source}")
    return held.astype(f"int{result}").astype(np.int64)


def kernel(op: str, source: int | None, result: int | None) -> tuple[func.FuncOp, Operation, Operation]:
    """`%r = op (%v + %shift)`: the function, its addi and its cast."""
    s, r = type_name(source), type_name(result)
    module = pto_dialect.parse(f"""
func.func @k(%v: {s}, %shift: {s}) -> {r} {{
  %sum = arith.addi %v, %shift : {s}
  %r = arith.{op} %sum : {s} to {r}
  return %r : {r}
}}""")
    function = next(o for o in module.walk() if isinstance(o, func.FuncOp))
    addi, cast = list(function.body.block.ops)[:2]
    return function, addi, cast


@st.composite
def intervals(draw: st.DrawFn) -> tuple[str, int | None, int | None, int, int, int]:
    """A cast, an interval of its operand's type (up to 300 values, often around where the cast
    wraps) and a shift the addi adds (0 half the time)."""
    op, source, result = draw(st.sampled_from(CASTS))
    width, kept = bits(source), min(bits(source), bits(result))
    least, most = -(1 << (width - 1)), (1 << (width - 1)) - 1
    anchor = draw(st.sampled_from([0, -1, least, most, 1 << (kept - 1), -(1 << (kept - 1)), 1 << kept]) | st.integers(least, most))
    low = min(max(anchor + draw(st.integers(-300, 300)), least), most)
    high = min(low + draw(st.integers(0, 300)), most)
    shift = draw(st.sampled_from([0]) | st.integers(least, most))
    return op, source, result, low, high, shift


@settings(max_examples=examples(300), deadline=None)
@given(intervals())
def test_value_ranges_bound_every_value_of_a_cast(case: tuple[str, int | None, int | None, int, int, int]) -> None:
    """Every value the cast gives on the interval lies in the analysed bounds; they are exact
    where the values form one run (no wrap inside the interval), the result type's range at most."""
    op, source, result, low, high, shift = case
    function, _, cast = kernel(op, source, result)
    v, shift_arg = function.body.block.args
    bounds = ValueRanges({shift_arg: shift}, {v: (low, high)}).of(cast.results[0])
    assert bounds is not None
    sums = np.array([wrapped(x + shift, bits(source)) for x in range(low, high + 1)], np.int64)
    values = numpy_cast(op, sums, bits(source), bits(result))
    assert bounds[0] <= values.min() and values.max() <= bounds[1]
    assert -(1 << (bits(result) - 1)) <= bounds[0] and bounds[1] < 1 << (bits(result) - 1)
    least, most = int(values.min()), int(values.max())
    if most - least == high - low:  # one run: no wrap inside the interval (or one that fills the type)
        assert bounds == (least, most)


@settings(max_examples=examples(300), deadline=None)
@given(intervals())
def test_sync_checker_gives_each_cast_exactly(case: tuple[str, int | None, int | None, int, int, int]) -> None:
    """The checker's value of the cast, of one value (the interval's ends) and of a batched
    loop's array of all of them, is NumPy's."""
    op, source, result, low, high, shift = case
    function, addi, cast = kernel(op, source, result)
    v, shift_arg = function.body.block.args
    sums = np.array([wrapped(x + shift, bits(source)) for x in range(low, high + 1)], np.int64)
    expected = numpy_cast(op, sums, bits(source), bits(result))
    for value, want in ((low, expected[0]), (high, expected[-1])):
        checker = SyncChecker(targets.get("a2a3"), {v: value, shift_arg: shift})
        for o in (addi, cast):
            checker.op(o, PipeState())
        assert checker.values[cast.results[0]] == want
    checker = SyncChecker(targets.get("a2a3"), {v: np.arange(low, high + 1, dtype=np.int64), shift_arg: shift})
    checker.vector = True
    for o in (addi, cast):
        checker.op(o, PipeState())
    batched = checker.values[cast.results[0]]
    assert isinstance(batched, np.ndarray) and np.array_equal(batched, expected)


def race_kernel(address: str, loaded_at: int, loop: bool = False) -> str:
    """A tload into a tile at `loaded_at` and, with no flag between, a tstore of a tile at %addr
    (i64, computed by the `address` lines from %c65536 : i32, or from %k : i32, the iteration
    count, in a loop): a race where the two tiles overlap."""
    store = f"""\
{address}
  %stored = pto.alloc_tile addr = %addr : {TILE}
  pto.tstore ins(%stored : {TILE}) outs(%all : {PART})
"""
    if loop:
        store = f"""\
  scf.for %t = %c1 to %ctrips step %c1 {{
    %k = arith.index_cast %t : index to i32
{store}\
  }}
"""
    return HEAD + f"""\
  %at = arith.constant {loaded_at} : i64
  %c65536 = arith.constant 65536 : i32
  %ip = pto.partition_view %idv, offsets = [%c0, %c0], sizes = [%c1, %c64] : !pto.tensor_view<?x?xi32>
  %loaded = pto.alloc_tile addr = %at : {TILE}
  pto.tload ins(%ip : {PART}) outs(%loaded : {TILE})
{store}\
  return
}}
"""


# name: (the lines giving %addr, where the loaded tile is, whether the tiles overlap). Each
# address is not what the cast's operand is: read unchanged, the store's tile would lie elsewhere
# (65536 instead of 0, -32768 instead of 32768), or anywhere (an index_castui not followed).
ADDRESSES = {
    "trunci": ("  %low = arith.trunci %c65536 : i32 to i16\n  %addr = arith.extui %low : i16 to i64", 0, True),
    "extui": ("  %m = arith.constant -32768 : i16\n  %addr = arith.extui %m : i16 to i64", 32768, True),
    "extsi": ("  %m = arith.constant 65792 : i32\n  %low = arith.trunci %m : i32 to i16\n"
              "  %addr = arith.extsi %low : i16 to i64", 256, True),
    "index_cast": ("  %x = arith.index_cast %c65536 : i32 to index\n"
                   "  %low = arith.index_cast %x : index to i16\n  %addr = arith.extsi %low : i16 to i64", 0, True),
    "index_castui": ("  %m = arith.constant -32768 : i16\n  %x = arith.index_castui %m : i16 to index\n"
                     "  %addr = arith.index_cast %x : index to i64", 0, False),
    "index_castui_overlap": ("  %m = arith.constant -32768 : i16\n  %x = arith.index_castui %m : i16 to index\n"
                             "  %addr = arith.index_cast %x : index to i64", 32768, True),
}
# in a loop of 23 iterations (batched): (k * 65536) truncated to i16 is 0 in every one
LOOP_ADDRESS = "    %s = arith.muli %k, %c65536 : i32\n    %low = arith.trunci %s : i32 to i16\n    %addr = arith.extui %low : i16 to i64"


def lowered_without_sync(text: str, target: str) -> ModuleOp:
    module = pto_dialect.parse(text)
    for stage in PipelinePass(target).stages(module)[:-1]:  # all but pto-insert-sync
        stage.apply(Context(), module)
    return module


@pytest.mark.parametrize("target", ["a2a3", "a5"])
@pytest.mark.parametrize("name", list(ADDRESSES))
def test_a_tile_placed_by_a_cast_address_races_where_it_lands(name: str, target: str) -> None:
    """The store's tile lies where the cast puts it: on the loaded tile (a race reported, naming
    both ops), or away from it (none), statically and in a run alike."""
    address, loaded_at, overlap = ADDRESSES[name]
    module = lowered_without_sync(race_kernel(address, loaded_at), target)
    for errors in ([e.text for e in check_sync(module, targets.get(target)).errors], found(module, target, True)[0]):
        if overlap:
            assert len(errors) == 1 and all("tstore" in e and "tload" in e for e in errors), errors
        else:
            assert not errors


@pytest.mark.parametrize("target", ["a2a3", "a5"])
@pytest.mark.parametrize("batch_loops", [True, False])
def test_a_wrapped_address_in_a_loop_races(target: str, batch_loops: bool) -> None:
    """Each iteration's store tile is at (k * 65536) truncated to i16, 0: on the loaded tile,
    batched or replayed iteration by iteration."""
    module = lowered_without_sync(race_kernel(LOOP_ADDRESS, 0, loop=True), target)
    errors, _ = found(module, target, batch_loops)
    assert errors and all("tstore" in e and "tload" in e for e in errors), errors


T32, T16, T16_WIDE = "!pto.tile_buf<vec, 1x32xi32>", "!pto.tile_buf<vec, 1x32xi16>", "!pto.tile_buf<vec, 1x64xi16>"


def tile_casts(saturation: str) -> str:
    """%v : i32 set into an i32 tile; read back converted to i16 (tcvt) and through a reshape of
    the i32 tile as i16 (its bytes reinterpreted: a bitcast)."""
    return f"""
func.func @k(%v: i32, %at: index) -> (i16, i16) {{
  %c0 = arith.constant 0 : index
  %wide = pto.alloc_tile : {T32}
  %narrow = pto.alloc_tile : {T16}
  pto.tsetval ins(%c0, %v : index, i32) outs(%wide : {T32})
  pto.tcvt ins(%wide {{rmode = #pto<round_mode TRUNC>, satmode = #pto<saturation_mode {saturation}>}} : {T32}) outs(%narrow : {T16})
  %converted = pto.tgetval ins(%narrow, %c0 : {T16}, index) outs : i16
  %halves = pto.treshape %wide : {T32} -> {T16_WIDE}
  %half = pto.tgetval ins(%halves, %at : {T16_WIDE}, index) outs : i16
  return %converted, %half : i16, i16
}}"""


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("saturation", ["ON", "OFF"])
@pytest.mark.parametrize("low, high", [(-100, 30_000), (30_000, 40_000), (-40_000, -30_000), (65_536, 65_540)])
def test_value_ranges_of_tile_conversions_hold_what_runs_give(target: str, saturation: str, low: int, high: int) -> None:
    """An i32 -> i16 tcvt reads back within its bounds (exact where every value fits i16, else
    i16's range, wrapping or saturating); the i32's bytes read as i16 are unknown."""
    text = tile_casts(saturation)
    function = next(o for o in pto_dialect.parse(text).walk() if isinstance(o, func.FuncOp))
    v, at = function.body.block.args
    converted, half = (op.results[0] for op in function.walk() if op.name == "pto.tgetval")
    ranges = ValueRanges({at: 0}, {v: (low, high)})
    bounds = ranges.of(converted)
    assert bounds == ((low, high) if -(2**15) <= low and high < 2**15 else (-(2**15), 2**15 - 1))
    assert ranges.of(half) is None
    for value in sorted({low, high, max(low, min(high, 2**15 - 1)), max(low, min(high, 2**15))}):
        _, results = run_with_results(pto_dialect.parse(text, "k.pto"), target, [np.int32(value), np.int64(0)])
        assert bounds[0] <= int(results[0]) <= bounds[1]
