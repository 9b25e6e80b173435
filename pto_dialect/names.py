"""Fresh names for printers (the assembly form's values, the C++ emitter's identifiers)."""

from __future__ import annotations


def unique(base: str, taken: set[str]) -> str:
    """`base`, else `base_1`, `base_2`, ...: the first not in `taken`, which it then joins."""
    name, suffix = base, 0
    while name in taken:
        suffix += 1
        name = f"{base}_{suffix}"
    taken.add(name)
    return name
