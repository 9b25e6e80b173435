"""The context pto-opt and pto-run parse with."""

from __future__ import annotations

from xdsl.context import Context
from xdsl.ir import Dialect

import pto_dialect
import targets


def _lowering_dialect(name: str) -> Dialect:
    from pto_dialect.instructions import LOWERING_DIALECTS

    return next(d for d in LOWERING_DIALECTS if d.name == name)


def kernel_context() -> Context:
    """pto_dialect.make_context() and the dialects of lowered IR (pto_choice, each
    target's), each imported when parsed IR first names it: declaring a target's ops is a
    good part of a command's start-up."""
    ctx = pto_dialect.make_context()
    ctx.register_dialect("pto_choice", lambda: _lowering_dialect("pto_choice"))
    for target in targets.REGISTRY:
        ctx.register_dialect(target.dialect_name, lambda t=target: t.dialect)
    return ctx
