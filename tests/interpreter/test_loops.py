"""
The loop executor and index math of interpreter/loops.py do what xDSL's own
scf and arith functions do, only faster: same results, same listener events,
same located faults, same wrap-around integers.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type, IndexType, IntegerType, ModuleOp
from xdsl.interpreter import Interpreter
from xdsl.interpreters.arith import ArithFunctions
from xdsl.interpreters.scf import ScfFunctions
from xdsl.ir import Operation
from xdsl.utils.test_value import create_ssa_value

import interpreter
from interpreter.loops import IndexArithFunctions
from pto_dialect.machine import RuntimeFault
from pto_dialect import PtoError, parse

from tests.budgets import examples
from tests.interpreter.harness import TARGETS, constants
from tests.kernel_text import copy_block

BLOCKS = 6

# Copies x's 8-row blocks into y in reverse order. The x offset is a loop-carried
# value (iter_args), the y offset index math on the induction variable.
REVERSE_BLOCKS = f"""
func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) {{
{constants(0, 1, 8, 16)}
  %nb = arith.constant {BLOCKS} : index
  %last = arith.constant {BLOCKS - 1} : index
  %rows = arith.constant {BLOCKS * 8} : index
  %xv = pto.make_tensor_view %x, shape = [%rows, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %yv = pto.make_tensor_view %y, shape = [%rows, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %t = pto.alloc_tile : !pto.tile_buf<vec, 8x16xf32>
  %end = scf.for %b = %c0 to %nb step %c1 iter_args(%xo = %c0) -> (index) {{
    %rb = arith.subi %last, %b : index
    %yo = arith.muli %rb, %c8 : index
{copy_block("x", "y", ("%xo", "%yo"), (8, 16))}
    %next = arith.addi %xo, %c8 : index
    scf.yield %next : index
  }}
  return
}}
"""


def reverse_blocks(x: np.ndarray) -> np.ndarray:
    return x.reshape(BLOCKS, 8, 16)[::-1].reshape(-1)


def inputs() -> list[np.ndarray]:
    return [np.arange(BLOCKS * 8 * 16, dtype=np.float32), np.zeros(BLOCKS * 8 * 16, np.float32)]


class Recorder(Interpreter.Listener):
    def __init__(self) -> None:
        self.events: list[tuple[str, str, tuple]] = []

    def will_interpret_op(self, op: Operation, args: tuple) -> None:
        self.events.append(("will", op.name, tuple(a for a in args if isinstance(a, int))))

    def did_interpret_op(self, op: Operation, results: tuple) -> None:
        self.events.append(("did", op.name, tuple(r for r in results if isinstance(r, int))))


def run_with_xdsl_functions(monkeypatch: pytest.MonkeyPatch, text: str, target: str, args, listeners=()):
    """interpreter.run with xDSL's own scf and arith functions in place of ours."""
    with monkeypatch.context() as m:
        m.setattr(interpreter, "LoopFunctions", ScfFunctions)
        m.setattr(interpreter, "IndexArithFunctions", ArithFunctions)
        return interpreter.run(parse(text, "k.pto"), target, args, listeners=listeners)


@pytest.mark.parametrize("target", TARGETS)
def test_loop_with_carried_values(target: str) -> None:
    x, y = inputs()
    out = interpreter.run(parse(REVERSE_BLOCKS, "k.pto"), target, [x, y])
    assert np.array_equal(out[1], reverse_blocks(x))


def test_listeners_see_what_xdsl_dispatch_shows(monkeypatch: pytest.MonkeyPatch) -> None:
    ours, theirs = Recorder(), Recorder()
    a = interpreter.run(parse(REVERSE_BLOCKS, "k.pto"), "a2a3", inputs(), listeners=(ours,))
    b = run_with_xdsl_functions(monkeypatch, REVERSE_BLOCKS, "a2a3", inputs(), listeners=(theirs,))
    assert np.array_equal(a[1], b[1])
    assert ours.events == theirs.events
    body_ops = 8  # subi, muli, 2 partition_view, tload, tstore, addi, yield
    assert sum(1 for e in ours.events if e[0] == "will" and e[1] == "arith.subi") == BLOCKS
    assert sum(1 for e in ours.events if e[0] == "will") >= BLOCKS * body_ops


NESTED = f"""
func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) {{
{constants(0, 1, 2, 3, 4, 16)}
  %rows = arith.constant 12 : index
  %xv = pto.make_tensor_view %x, shape = [%rows, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %yv = pto.make_tensor_view %y, shape = [%rows, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %t = pto.alloc_tile : !pto.tile_buf<vec, 2x16xf32>
  scf.for %i = %c0 to %c3 step %c1 {{
    %ri = arith.muli %i, %c4 : index
    scf.for %j = %c0 to %c2 step %c1 {{
      %rj = arith.muli %j, %c2 : index
      %r = arith.addi %ri, %rj : index
      %s = arith.subi %c2, %rj : index
      %w = arith.addi %ri, %s : index
{copy_block("x", "y", ("%r", "%w"), (2, 16), indent="      ")}
    }}
  }}
  return
}}
"""


@pytest.mark.parametrize("target", TARGETS)
def test_nested_loops(target: str) -> None:
    """The outer body holds a loop (run by the generic walk), the inner one is straight-line:
    each 4-row group swaps its two 2-row halves."""
    x = np.arange(12 * 16, dtype=np.float32)
    out = interpreter.run(parse(NESTED, "k.pto"), target, [x, np.zeros_like(x)])
    expected = x.reshape(3, 2, 2, 16)[:, ::-1].reshape(-1)
    assert np.array_equal(out[1], expected)


def test_fault_in_loop_is_located_at_the_op(monkeypatch: pytest.MonkeyPatch) -> None:
    """One block too many: the partition of the last iteration leaves x, as xDSL's dispatch reports it."""
    text = REVERSE_BLOCKS.replace(f"%nb = arith.constant {BLOCKS} :", f"%nb = arith.constant {BLOCKS + 1} :")
    text = text.replace(f"%last = arith.constant {BLOCKS - 1} :", f"%last = arith.constant {BLOCKS} :")
    with pytest.raises(PtoError) as ours:
        interpreter.run(parse(text, "k.pto"), "a5", inputs())
    with pytest.raises(PtoError) as theirs:
        run_with_xdsl_functions(monkeypatch, text, "a5", inputs())
    assert str(ours.value) == str(theirs.value)
    line = text.splitlines().index(next(ln for ln in text.splitlines() if "%yp = pto.partition_view" in ln)) + 1
    assert str(ours.value).startswith(f"k.pto:{line}:5: error:")
    assert f"partition at dim 0 (offset {BLOCKS * 8}, size 8) is outside the source dim {BLOCKS * 8}" in str(ours.value)


WIDTHS = (IndexType(), IntegerType(64), IntegerType(32), IntegerType(8))
INTS = st.one_of(st.integers(-(2**70), 2**70), st.sampled_from([0, -1, 2**31 - 1, -(2**31), 2**63 - 1, -(2**63), 127, -128]))


@settings(max_examples=examples(300), deadline=None)
@given(st.sampled_from(WIDTHS), st.sampled_from((arith.AddiOp, arith.SubiOp, arith.MuliOp)), INTS, INTS)
def test_index_arith_wraps_as_xdsl_does(width, op_type, lhs: int, rhs: int) -> None:
    op = op_type(create_ssa_value(width), create_ssa_value(width))
    name = {arith.AddiOp: "run_addi", arith.SubiOp: "run_subi", arith.MuliOp: "run_muli"}[op_type]
    machine = Interpreter(op)
    ours = getattr(IndexArithFunctions(), name)(machine, op, (lhs, rhs))
    theirs = getattr(ArithFunctions(), name)(machine, op, (lhs, rhs))
    assert ours == theirs


UNSIGNED = {
    arith.MinUIOp: ("run_minui", min),
    arith.MaxUIOp: ("run_maxui", max),
    arith.CeilDivUIOp: ("run_ceildivui", lambda a, b: (a + b - 1) // b),
    arith.DivUIOp: ("run_divui", lambda a, b: a // b),
    arith.RemUIOp: ("run_remui", lambda a, b: a % b),
}
SIGNED = {
    arith.MinSIOp: ("run_minsi", min),
    arith.MaxSIOp: ("run_maxsi", max),
    arith.CeilDivSIOp: ("run_ceildivsi", lambda a, b: -((-a) // b)),
    arith.DivSIOp: ("run_divsi", lambda a, b: sign(a) * sign(b) * (abs(a) // abs(b))),  # rounds toward zero
    arith.RemSIOp: ("run_remsi", lambda a, b: sign(a) * (abs(a) % abs(b))),  # takes the dividend's sign
    arith.FloorDivSIOp: ("run_floordivsi", lambda a, b: a // b),
}


def sign(value: int) -> int:
    return (value > 0) - (value < 0)


def as_signed(value: int, width: int) -> int:
    value &= (1 << width) - 1
    return value - (1 << width) if value >> (width - 1) else value


@settings(max_examples=examples(400), deadline=None)
@given(st.sampled_from(WIDTHS), st.sampled_from([*UNSIGNED, *SIGNED]), INTS, INTS)
def test_min_max_div_follow_mlir(width, op_type, lhs: int, rhs: int) -> None:
    """MLIR's semantics, written out: operands read at the result's width as unsigned
    (…ui) or signed (…si) numbers; the result wraps to that width."""
    bits = 64 if isinstance(width, IndexType) else width.width.data
    name, formula = {**UNSIGNED, **SIGNED}[op_type]
    read = (lambda v: v & ((1 << bits) - 1)) if op_type in UNSIGNED else (lambda v: as_signed(v, bits))
    a, b = read(lhs), read(rhs)
    op = op_type(create_ssa_value(width), create_ssa_value(width))
    run = getattr(IndexArithFunctions(), name)
    if b == 0 and name not in ("run_minui", "run_maxui", "run_minsi", "run_maxsi"):
        with pytest.raises(RuntimeFault, match="division by zero"):
            run(Interpreter(op), op, (lhs, rhs))
        return
    (result,) = run(Interpreter(op), op, (lhs, rhs)).values
    assert result == as_signed(formula(a, b), bits)


def run_error(body: str, n: int, target: str = "a5") -> str:
    """Run a kernel that copies row %q of an 8x8 x onto itself, %q computed by `body` from %n."""
    text = f"""func.func @k(%n: index, %x: !pto.ptr<f32>) {{
{constants(0, 1, 8)}
  %xv = pto.make_tensor_view %x, shape = [%c8, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
  %t = pto.alloc_tile : !pto.tile_buf<vec, 1x8xf32>
{body}
  return
}}
"""
    with pytest.raises(PtoError) as e:
        interpreter.run(parse(text, "k.pto"), target, [np.array(n), np.zeros(64, np.float32)])
    return str(e.value)


COPY_ROW_Q = """  %xp = pto.partition_view %xv, offsets = [%q, %c0], sizes = [%c1, %c8] : !pto.tensor_view<?x?xf32>
  pto.tload ins(%xp : !pto.partition_tensor_view<1x8xf32>) outs(%t : !pto.tile_buf<vec, 1x8xf32>)
  pto.tstore ins(%t : !pto.tile_buf<vec, 1x8xf32>) outs(%xp : !pto.partition_tensor_view<1x8xf32>)"""


def test_loop_step_must_be_positive() -> None:
    body = "  scf.for %q = %c0 to %c8 step %n {\n" + COPY_ROW_Q + "\n  }"
    assert run_error(body, 0) == "k.pto:7:3: error: 'scf.for' op step must be positive, got 0"
    assert run_error(body, -1) == "k.pto:7:3: error: 'scf.for' op step must be positive, got -1"


def test_failures_of_other_ops_are_located() -> None:
    """An op without an implementation here, a division by zero and a shift by the width (MLIR:
    poison), each at its op."""
    product = "  %q, %high = arith.mului_extended %n, %c1 : index\n" + COPY_ROW_Q
    assert run_error(product, 8).startswith(
        "k.pto:7:3: error: 'arith.mului_extended' op Could not find interpretation function for op arith.mului_extended"
    )
    shift = "  %q = arith.shrui %c8, %n : index\n" + COPY_ROW_Q
    assert run_error(shift, 64) == "k.pto:7:3: error: 'arith.shrui' op a shift by the width (64 bits) or more (MLIR: poison)"
    divide = "  %q = arith.ceildivsi %c8, %n : index\n" + COPY_ROW_Q
    assert run_error(divide, 0) == "k.pto:7:3: error: 'arith.ceildivsi' op division by zero"


CASTS = [(IntegerType(32), IntegerType(8)), (IntegerType(64), IntegerType(16)), (IntegerType(16), IntegerType(32)),
         (IntegerType(8), IntegerType(64)), (IntegerType(1), IntegerType(32))]


@settings(max_examples=examples(200), deadline=None)
@given(st.sampled_from(CASTS), INTS)
def test_integer_casts_follow_mlir(types, value: int) -> None:
    """trunci keeps the low bits; extsi sign-extends, extui zero-extends the operand's bits
    (values held as signed numbers of their width)."""
    wide, narrow = sorted(types, key=lambda t: t.width.data, reverse=True)
    held = as_signed(value, types[0].width.data)  # a value of the operand's type
    machine = Interpreter(ModuleOp([]))
    functions = IndexArithFunctions()
    if types[0] is wide:
        (out,) = functions.run_trunci(machine, arith.TruncIOp(create_ssa_value(wide), narrow), (held,)).values
        assert out == as_signed(held, narrow.width.data)
    else:
        (signed,) = functions.run_extsi(machine, arith.ExtSIOp(create_ssa_value(narrow), wide), (held,)).values
        (unsigned,) = functions.run_extui(machine, arith.ExtUIOp(create_ssa_value(narrow), wide), (held,)).values
        assert signed == held
        assert unsigned == held & ((1 << narrow.width.data) - 1)


@settings(max_examples=examples(200), deadline=None)
@given(st.floats(width=32), st.sampled_from([8, 16, 32, 64]))
def test_fptosi_truncates_toward_zero_and_faults_where_mlir_gives_poison(value: float, width: int) -> None:
    """arith.fptosi: the integer part (toward zero) when it fits the result type; NaN, the
    infinities and integer parts outside it are a fault naming the value."""
    machine = Interpreter(ModuleOp([]))
    op = arith.FPToSIOp(create_ssa_value(Float32Type()), IntegerType(width))
    expected = np.trunc(np.float64(value))
    fits = bool(np.isfinite(expected)) and -(2 ** (width - 1)) <= expected < 2 ** (width - 1)
    if fits:
        (out,) = IndexArithFunctions().run_fptosi(machine, op, (value,)).values
        assert out == int(expected)
    else:
        with pytest.raises(RuntimeFault, match=rf"has no integer part that fits i{width} \(MLIR: poison\)"):
            IndexArithFunctions().run_fptosi(machine, op, (value,))
