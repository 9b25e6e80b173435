"""
The generators, one module per instruction family, found here by name: each module defines
`FORMS`, form name -> a function drawing one `Case` (bench/simdiff/kernel.py) from a
`random.Random`. Adding an instruction is adding a module (or a form to one):

    # bench/simdiff/generators/binary.py
    def binary(rng, op):
        dtype = rng.choice(["f16", "f32", "i32"])
        valid = (rng.randint(1, 32), rng.randint(1, 100))
        tile = maybe_dynamic(rng, Tile("vec", valid[0] + 2, align(valid[1], per_block(dtype)), dtype, valid))
        k = Kernel(rng, op.upper(), f"{dtype} {tile}")
        k.load("a", tile, values(rng, dtype, valid))     # an input: a GM argument, tloaded
        k.load("b", tile, values(rng, dtype, valid))
        k.load("d", tile)                                # an output, first loaded from random bits
        k.op(f"pto.{op} ins(%a, %b : {tile}, {tile}) outs(%d : {tile})")
        k.store("d")                                     # tstored to a new GM argument
        return k.case()

    FORMS = {"tadd": lambda rng: binary(rng, "tadd"), "tsub": lambda rng: binary(rng, "tsub")}

In place: `outs(%a : ...)`, or two tiles at one address (`k.alloc("d", tile, addr=0)` with
`k.load("a", tile, data, addr=0)`). A scalar operand: `k.scalar("f32", value)` (an argument of
any bits: NaN payloads, -0.0, a zero divisor) gives its SSA name. A GM table: `k.view(...)`.
`values` mixes random data with each type's edge values and ties.

A form draws what the simulator's headers accept for its instruction (element types, valid
shapes smaller than the tile, in-place forms, edge values); a kernel the project rejects on
cpu is skipped and counted by the harness, not dropped.
"""

from __future__ import annotations

import importlib
import pkgutil
import random
from collections.abc import Callable

from bench.simdiff.kernel import Case

Form = Callable[[random.Random], Case]


def discover() -> dict[str, Form]:
    """Every module's FORMS, by form name (a name given twice is an error)."""
    forms: dict[str, Form] = {}
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        for name, form in getattr(module, "FORMS", {}).items():
            if name in forms:
                raise ValueError(f"form {name!r} is defined twice (in {module.__name__} and before)")
            forms[name] = form
    return forms
