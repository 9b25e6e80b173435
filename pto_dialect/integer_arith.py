"""
MLIR's integer arithmetic (`arith`'s binary integer ops and `cmpi`), exactly: one definition for
the interpreter (interpreter/loops.py, one value at a time) and the sync checker
(passes/sync_check.py, one value or a batched loop's int64 array of them).

Integers are signless: each op reads its operands' low `width` bits as signed or unsigned numbers
(index: the interpreter's width, 64 bits), combines them exactly and keeps the low `width` bits of the
result, held as a signed number (`arith.addi` of 2^63 - 1 and 1 : i64 is -2^63; `arith.remui` of
-1 and 2 : i64 is 1; `arith.shrui` of -1 and 60 : i64 is 15). A zero divisor, and a shift by the
width or more (MLIR: poison), are a RuntimeFault. The combining functions below work alike on
Python ints and on NumPy arrays (int64 for operands read as signed, uint64 for unsigned ones), so
an array's values are exact wherever the width is at most 64.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.ir import Attribute, Operation

from pto_dialect.machine import RuntimeFault

def type_bits(int_type: Attribute, index_bits: int | None = None) -> int | None:
    """The bits of an integer or index type (index: `index_bits`, by default the interpreter's
    width); None for any other type (a vector, a float)."""
    if isinstance(int_type, IntegerType):
        return int_type.width.data
    if not isinstance(int_type, IndexType):
        return None
    if index_bits is not None:
        return index_bits
    from xdsl.interpreter import Interpreter  # only for its index width: not loaded until an index is met

    return Interpreter.DEFAULT_BITWIDTH


def _minimum(a: Any, b: Any) -> Any:
    return np.minimum(a, b) if isinstance(a, np.ndarray) or isinstance(b, np.ndarray) else min(a, b)


def _maximum(a: Any, b: Any) -> Any:
    return np.maximum(a, b) if isinstance(a, np.ndarray) or isinstance(b, np.ndarray) else max(a, b)


def _truncated_quotient(a: Any, b: Any) -> Any:
    """a / b rounded toward zero (divsi): the floor quotient, one up where it was rounded down
    past zero (a and b of opposite signs, a remainder)."""
    return a // b + ((a % b != 0) & ((a < 0) != (b < 0)))


def _truncated_remainder(a: Any, b: Any) -> Any:
    """remsi: the remainder of the quotient rounded toward zero (the sign of a)."""
    return a - b * _truncated_quotient(a, b)


def _ceiling_quotient(a: Any, b: Any) -> Any:
    return a // b + (a % b != 0)


@dataclass(frozen=True)
class IntegerBinary:
    """A binary integer op: its operands read as `unsigned` (else signed) numbers at the width,
    `combine`d exactly; `divides`: a zero second operand faults; `shifts`: a second operand of
    the width or more faults."""

    combine: Callable[[Any, Any], Any]
    unsigned: bool = False
    divides: bool = False
    shifts: bool = False

    def __call__(self, a: Any, b: Any, width: int) -> Any:
        """The op at `width` bits on two ints, or elementwise where either is an int64 array
        (OverflowError where the width exceeds 64: an array cannot hold the operands)."""
        if not (isinstance(a, np.ndarray) or isinstance(b, np.ndarray)):
            read = unsigned if self.unsigned else signed
            x, y = read(int(a), width), read(int(b), width)
            self._check(y == 0, not 0 <= y < width, width)
            return signed(self.combine(x, y), width)
        if width > 64:
            raise OverflowError(f"an int64 array cannot hold i{width} values")
        x, y = read_array(a, width, self.unsigned), read_array(b, width, self.unsigned)
        self._check(bool(np.any(y == 0)), bool(np.any((y < 0) | (y >= width))), width)
        with np.errstate(over="ignore", divide="ignore"):  # wrap-around is the semantics
            result = np.asarray(self.combine(x, y))
        return wrap_array(result.astype(x.dtype).view(np.int64), width)

    def _check(self, zero: bool, beyond_width: bool, width: int) -> None:
        """Fault where a second operand is 0 (a divisor) or not in [0, width) (a shift count)."""
        if self.divides and zero:
            raise RuntimeFault("division by zero")
        if self.shifts and beyond_width:
            raise RuntimeFault(f"a shift by the width ({width} bits) or more (MLIR: poison)")


INTEGER_BINARY: dict[type[Operation], IntegerBinary] = {
    arith.AddiOp: IntegerBinary(operator.add),
    arith.SubiOp: IntegerBinary(operator.sub),
    arith.MuliOp: IntegerBinary(operator.mul),
    arith.AndIOp: IntegerBinary(operator.and_),
    arith.OrIOp: IntegerBinary(operator.or_),
    arith.XOrIOp: IntegerBinary(operator.xor),
    arith.MinSIOp: IntegerBinary(_minimum),
    arith.MaxSIOp: IntegerBinary(_maximum),
    arith.MinUIOp: IntegerBinary(_minimum, unsigned=True),
    arith.MaxUIOp: IntegerBinary(_maximum, unsigned=True),
    arith.DivSIOp: IntegerBinary(_truncated_quotient, divides=True),
    arith.RemSIOp: IntegerBinary(_truncated_remainder, divides=True),
    arith.FloorDivSIOp: IntegerBinary(operator.floordiv, divides=True),
    arith.CeilDivSIOp: IntegerBinary(_ceiling_quotient, divides=True),
    arith.DivUIOp: IntegerBinary(operator.floordiv, unsigned=True, divides=True),
    arith.RemUIOp: IntegerBinary(operator.mod, unsigned=True, divides=True),
    arith.CeilDivUIOp: IntegerBinary(_ceiling_quotient, unsigned=True, divides=True),
    arith.ShLIOp: IntegerBinary(operator.lshift, shifts=True),
    arith.ShRSIOp: IntegerBinary(operator.rshift, shifts=True),
    arith.ShRUIOp: IntegerBinary(operator.rshift, unsigned=True, shifts=True),
}
"""Every binary integer op of `arith`, by its op class."""

_COMPARISONS: tuple[Callable[[Any, Any], Any], ...] = (
    operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge,  # eq ne slt sle sgt sge
    operator.lt, operator.le, operator.gt, operator.ge,  # ult ule ugt uge
)


def compare(predicate: int, a: Any, b: Any, width: int) -> Any:
    """arith.cmpi's `predicate` (its number: eq ne slt sle sgt sge ult ule ugt uge) on two
    `width`-bit ints, or elementwise where either is an int64 array."""
    is_unsigned = predicate >= 6
    if not (isinstance(a, np.ndarray) or isinstance(b, np.ndarray)):
        read = unsigned if is_unsigned else signed
        return _COMPARISONS[predicate](read(int(a), width), read(int(b), width))
    if width > 64:
        raise OverflowError(f"an int64 array cannot hold i{width} values")
    return _COMPARISONS[predicate](read_array(a, width, is_unsigned), read_array(b, width, is_unsigned))


def signed(value: int, width: int) -> int:
    """The low `width` bits of `value`, read as a signed number."""
    half = 1 << (width - 1)
    return value if -half <= value < half else ((value + half) & ((1 << width) - 1)) - half


def unsigned(value: int, width: int) -> int:
    """The low `width` bits of `value`, read as an unsigned number."""
    return value & ((1 << width) - 1)


def read_array(values: Any, width: int, as_unsigned: bool) -> np.ndarray:
    """An int (or an int64 / bool array) read at `width` <= 64 bits: an int64 array of signed
    values, or a uint64 array of unsigned ones."""
    if not isinstance(values, np.ndarray):
        values = np.asarray(signed(int(values), 64), dtype=np.int64)
    held = wrap_array(values.astype(np.int64), width)
    return held.view(np.uint64) & np.uint64((1 << width) - 1) if as_unsigned else held


def wrap_array(values: np.ndarray, width: int) -> np.ndarray:
    """int64 values' low `width` <= 64 bits read as signed (int64 arithmetic already wraps at 64)."""
    if width == 64:
        return values
    half = np.int64(1 << (width - 1))
    with np.errstate(over="ignore"):
        return ((values + half) & np.int64((1 << width) - 1)) - half
