"""
What MLIR's integer casts do to a value: for the interpreter (interpreter/loops.py) and the
analyses that follow integer values without running the kernel (passes/sync_check.py on exact
values, interpreter/value_ranges.py on intervals). The analyses read the values as signed numbers of unbounded width, so each cast's
wrap-around must be applied, never assumed away (`arith.trunci` of 300 : i32 to i8 is 44,
`arith.extui` of -1 : i8 is 255).

Every integer cast keeps the operand's low `min(source bits, result bits)` bits: `extsi`,
`trunci` and `index_cast` read them as signed; `extui` and `index_castui` as unsigned, which
only differs from signed where the result is wider (a truncation reads the result's bits as
signed either way). Index has the interpreter's width.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from xdsl.dialects import arith
from xdsl.ir import Attribute, Operation

from pto_dialect.integer_arith import type_bits
from pto_dialect.mlir_arith import IndexCastUIOp

_Value = TypeVar("_Value", int, np.ndarray)

_SIGNED = (arith.ExtSIOp, arith.TruncIOp, arith.IndexCastOp)
_UNSIGNED = (arith.ExtUIOp, IndexCastUIOp)


def _type_bits(int_type: Attribute, index_bits: int | None) -> int:
    bits = type_bits(int_type, index_bits)
    assert bits is not None, "an integer cast's operand and result are integers or index"
    return bits


@dataclass(frozen=True)
class IntegerCast:
    """An integer cast: the operand's low `bits` bits, zero-extended (`unsigned`) or sign-extended."""

    bits: int
    unsigned: bool

    @property
    def bounds(self) -> tuple[int, int]:
        """Every value the cast can give (inclusive)."""
        if self.unsigned:
            return 0, (1 << self.bits) - 1
        return -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1

    def __call__(self, value: _Value) -> _Value:
        """The cast of a value, or elementwise of an int64 array (whose arithmetic wraps at 64 bits;
        OverflowError where a result would not fit int64)."""
        if isinstance(value, np.ndarray) and self.bits >= 64:
            if self.unsigned:
                raise OverflowError(f"a zero-extension of {self.bits} bits does not fit int64")
            return value
        low = self.bounds[0]
        return ((value - low) & ((1 << self.bits) - 1)) + low  # pyright: ignore[reportReturnType]

    def of_interval(self, low: int, high: int) -> tuple[int, int]:
        """Bounds on the cast of every value in [low, high]: exact where no value in it wraps
        (the cast steps up by one from each value to the next but where it wraps, where it drops
        by 2^bits: ends as far apart as low and high's mean no wrap between them), else `bounds`."""
        first, last = self(low), self(high)
        return (first, last) if last - first == high - low else self.bounds


def integer_cast(op: Operation, index_bits: int | None = None) -> IntegerCast | None:
    """What `op` does to its operand, if it is one of MLIR's integer casts (extsi, extui, trunci,
    index_cast, index_castui), index being `index_bits` wide (by default the interpreter's width);
    None for any other op (bitcast, sitofp, fptosi: not followed)."""
    if not isinstance(op, _SIGNED + _UNSIGNED):
        return None
    source, result = _type_bits(op.operands[0].type, index_bits), _type_bits(op.results[0].type, index_bits)
    return IntegerCast(min(source, result), isinstance(op, _UNSIGNED) and result > source)
