"""
The PTO assembly form: the prefix-less instruction syntax of the spec files,
`%dst = mgather %mem, %idx : !pto.memref<...>, !pto.tile<...> -> !pto.tile<...>`.

Grammar: pto_asm.lark. `read_asm` turns a file into one SSA `func.func`
(reader.py), `print_asm` writes such a function back (printer.py); forms.py says
what the short spellings leave out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pto_dialect.asm.printer import print_asm
    from pto_dialect.asm.reader import read_asm

ASM_EXTENSION = "ptoasm"
"""File extension of the PTO assembly form."""

__all__ = ["ASM_EXTENSION", "print_asm", "read_asm"]


def __getattr__(name: str):
    """`read_asm` and `print_asm` are imported on first use: the reader loads lark and its
    grammar, which a command that never meets the assembly form should not pay for."""
    if name == "read_asm":
        from pto_dialect.asm.reader import read_asm

        return read_asm
    if name == "print_asm":
        from pto_dialect.asm.printer import print_asm

        return print_asm
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
