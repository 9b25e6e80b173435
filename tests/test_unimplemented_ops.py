"""
Ops the parser knows of but this project does not implement (pto_dialect/parser.py
UNIMPLEMENTED_OPS) are refused as not implemented, at their name; arith.index_castui, once one
of them, is an op of the context's arith (pto_dialect/mlir_arith.py).
"""

from __future__ import annotations

import pytest

from pto_dialect import PtoError, parse
from pto_dialect.parser import UNIMPLEMENTED_OPS


def kernel(op_line: str) -> str:
    return f"func.func @k(%v: i32) {{\n  {op_line}\n  return\n}}\n"


def test_a_listed_op_is_refused_as_not_implemented_at_its_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(UNIMPLEMENTED_OPS, "arith.sitofp_wide", ("a wide conversion", "wide conversions"))
    with pytest.raises(PtoError) as err:
        parse(kernel("%r = arith.sitofp_wide %v : i32 to f64"), "k.pto")
    assert str(err.value).splitlines()[0] == (
        "k.pto:2:8: error: arith.sitofp_wide (a wide conversion) (not implemented in pto-frontend: wide conversions)"
    )


def test_index_castui_is_implemented() -> None:
    assert "arith.index_castui" not in UNIMPLEMENTED_OPS
    module = parse(kernel("%r = arith.index_castui %v : i32 to index"))
    assert [op.name for op in module.walk()][-2:] == ["arith.index_castui", "func.return"]


def test_a_misspelt_index_castui_is_pointed_to_it() -> None:
    with pytest.raises(PtoError) as err:
        parse(kernel("%r = arith.index_castiu %v : i32 to index"), "k.pto")
    assert str(err.value).startswith(
        "k.pto:2:8: error: Operation arith.index_castiu is not registered; did you mean arith.index_castui?"
    )
