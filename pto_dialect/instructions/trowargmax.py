"""
TROWARGMAX: the column index of each row's maximum, optionally with the maximum (pto-isa's
TROWARGMAX.md). Every target runs TROWARGMIN's code with the comparison reversed (cpu `>`
for `<`, a2a3 `vcmax` for `vcmin`, a5 `vcmax` and `vcmp_lt(best, chunk)` for `vcmin` and
`vcmp_gt`, starting from -inf / the integer minimum): operands, checks, rule rows, tmp use
and choices are TROWARGMIN's (trowargmin.py).

      dstIdx[i, 0] = argmax_{j < vc} src[i, j]        i < vr
      dstVal[i, 0] = max_{j < vc} src[i, j]           (value+index form)
"""

from __future__ import annotations

from pto_dialect.arg_reduce import Extreme
from pto_dialect.instructions.trowargmin import row_arg_reduce

TROWARGMAX = row_arg_reduce(__name__, "TRowArgMax", "Column index of each row's maximum (first maximum wins), optionally with the value.", Extreme.MAX)
