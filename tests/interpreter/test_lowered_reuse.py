"""
interpreter.run lowers a module once and reuses the lowering while the module is unchanged; a
module changed in place is lowered again (no stale result).
"""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr

import interpreter
import pto_dialect

EXAMPLE = Path(__file__).parent.parent.parent / "examples" / "embedding_scalar_ids.pto"
TOKENS = 40


@pytest.fixture
def lowerings(monkeypatch) -> list[str]:
    """The target of each lower_for call interpreter.run makes."""
    calls: list[str] = []
    real = interpreter.lower_for

    def counted(module, target):
        calls.append(str(target))
        return real(module, target)

    monkeypatch.setattr(interpreter, "lower_for", counted)
    return calls


def lookup(module, target: str = "a2a3") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(2)
    table = rng.standard_normal((1024, 128), np.float32).astype(ml_dtypes.bfloat16)
    ids = rng.integers(-5, 1100, TOKENS).astype(np.int32)
    out = interpreter.run(module, target, [table, ids, np.zeros((TOKENS, 128), table.dtype), np.array(TOKENS)])[2]
    return table, ids, out


def test_an_unchanged_module_is_lowered_once_per_target(lowerings) -> None:
    module = pto_dialect.load(EXAMPLE)
    for target in ("a2a3", "a2a3", "a5", "a2a3", "a5"):
        lookup(module, target)
    assert lowerings == ["a2a3", "a5"]
    lookup(pto_dialect.load(EXAMPLE))  # another module object: lowered on its own
    assert lowerings == ["a2a3", "a5", "a2a3"]


def test_a_module_changed_in_place_is_lowered_again(lowerings) -> None:
    module = pto_dialect.load(EXAMPLE)
    table, ids, out = lookup(module)
    assert np.array_equal(out.view(np.uint16), table[np.clip(ids, 0, 1023)].view(np.uint16))
    last_row = next(op for op in module.walk() if isinstance(op, arith.ConstantOp) and op.value == IntegerAttr(1023, IndexType()))
    last_row.properties["value"] = IntegerAttr(5, IndexType())
    table, ids, out = lookup(module)
    assert lowerings == ["a2a3", "a2a3"]
    assert np.array_equal(out.view(np.uint16), table[np.clip(ids, 0, 5)].view(np.uint16))


def test_what_counts_as_a_change() -> None:
    """Operands swapped, an op inserted, an attribute added: each a change; nothing done is none."""
    module = pto_dialect.load(EXAMPLE)
    assert interpreter._snapshot(module) == interpreter._snapshot(module)
    for change in ("swap", "insert", "attribute"):
        module = pto_dialect.load(EXAMPLE)
        kept = interpreter._snapshot(module)
        low = next(op for op in module.walk() if isinstance(op, arith.MaxSIOp))
        if change == "swap":
            low.operands = [low.operands[1], low.operands[0]]
        elif change == "insert":
            unused = arith.ConstantOp(IntegerAttr(7, IndexType()))
            low.parent_block().insert_op_before(unused, low)  # pyright: ignore[reportOptionalMemberAccess]
        else:
            low.attributes["note"] = IntegerAttr(1, IndexType())
        assert interpreter._snapshot(module) != kept, change
