"""
TCOLARGMAX: the row index of each column's maximum, optionally with the maximum (pto-isa's
TCOLARGMAX.md). Every target runs TCOLARGMIN's code with the comparison reversed (cpu
`>` for `<`, a2a3 `vcmp_ge`/`vmax` for `vcmp_le`/`vmin`, a5 `vcmp_gt` for `vcmp_lt`): the
operands, checks, rule rows, tmp use, row counter and choices are TCOLARGMIN's
(tcolargmin.py). What the reversal changes is visible in the results only:

- ties: the first maximum wins everywhere (strict `>`; a2a3 keeps the index while
  `cur >= x`); +0 and -0 tie;
- NaN: cpu and a5 never let a later NaN win and keep a NaN in row 0; on a2a3 every NaN
  replaces the index and the running `vmax` carries it (the choice TCOLARGMIN makes for
  `vmin`), so after a NaN every later row replaces it;
- a2a3 compares u16/u32 as fp16/fp32 bit patterns, denormals flushed: a pattern with the
  sign bit set reads as negative and loses here, where it wins in TCOLARGMIN.

      dstIdx[0, j] = argmax_{i < vr} src[i, j]        j < vc
      dstVal[0, j] = max_{i < vr} src[i, j]           (value+index form)
"""

from __future__ import annotations

from pto_dialect.arg_reduce import Extreme
from pto_dialect.instructions.tcolargmin import col_arg_reduce

TCOLARGMAX = col_arg_reduce(__name__, "TColArgMax", "Row index of each column's maximum (first maximum wins), optionally with the value.", Extreme.MAX)
