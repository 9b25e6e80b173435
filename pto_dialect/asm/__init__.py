"""
The PTO assembly form: the prefix-less instruction syntax of the spec files,
`%dst = mgather %mem, %idx : !pto.memref<...>, !pto.tile<...> -> !pto.tile<...>`.

Grammar: pto_asm.lark. `read_asm` turns a file into one SSA `func.func`
(reader.py), `print_asm` writes such a function back (printer.py); forms.py says
what the short spellings leave out.
"""

from pto_dialect.asm.printer import print_asm
from pto_dialect.asm.reader import ASM_EXTENSION, read_asm

__all__ = ["ASM_EXTENSION", "print_asm", "read_asm"]
