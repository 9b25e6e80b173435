"""
The generators, one module per instruction family, found here by name: each module defines
`FORMS`, form name -> a function drawing one `Case` (bench/simdiff/kernel.py) from a
`random.Random`. Adding an instruction is adding a module (or a form to one):

    # bench/simdiff/generators/tadd.py
    FORMS = {"tadd": tadd}

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
