"""
Per-target lowering: `pto-lower{target=T}` rewrites pto instructions into the
small dialect of target T (`pto_cpu`, `pto_a2a3`, `pto_a5`), whose ops and
attributes spell out how that target executes them. Scaffolding ops (views,
tiles, tload/tstore, sections) stay in the pto dialect.
"""

from __future__ import annotations

from xdsl.ir import Dialect

from pto_dialect.targets import Target


def target_dialect(target: Target) -> Dialect:
    if target == "cpu":
        from lowering.cpu import PTO_CPU

        return PTO_CPU
    if target == "a2a3":
        from lowering.a2a3 import PTO_A2A3

        return PTO_A2A3
    from lowering.a5 import PTO_A5

    return PTO_A5


def all_target_dialects() -> list[Dialect]:
    return [target_dialect(t) for t in ("cpu", "a2a3", "a5")]
