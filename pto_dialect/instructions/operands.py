"""
The base of a pto op whose operands' roles are fixed by their counts: its inputs, an optional
last input, its outputs. Its `FORMS` and `operand_roles` (pto_dialect/ops/common.py) follow
from them.
"""

from __future__ import annotations

from typing import ClassVar

from pto_dialect.ops.common import PtoInstructionOp, Roles


def taking(*ins: str, optional: str | None = None, outs: tuple[str, ...] = ("dst",)) -> type[PtoInstructionOp]:
    """The base of an op whose inputs play `ins` (then `optional` in a second form, where
    given) and whose outputs play `outs`."""
    extra = (optional,) if optional else ()

    class Taking(PtoInstructionOp):
        FORMS: ClassVar[tuple[tuple[int, int], ...]] = tuple((len(ins) + n, len(outs)) for n in range(len(extra) + 1))

        @classmethod
        def operand_roles(cls, n_ins: int, n_outs: int) -> Roles:
            return (*ins, *extra)[:n_ins], outs

    return Taking
