"""
pto-frontend's Python API: write PTO kernels in Python, print the `.pto` PTOAS reads, and
run them on NumPy with each target's exact semantics.

    import pto_frontend as pto

    @pto.kernel
    def copy(src: pto.ptr(pto.f32), dst: pto.ptr(pto.f32)):
        sv = pto.make_tensor_view(src, shape=[16, 64], strides=[64, 1])
        dv = pto.make_tensor_view(dst, shape=[16, 64], strides=[64, 1])
        t = pto.alloc_tile(shape=[16, 64], dtype=pto.f32)
        pto.tload(pto.partition_view(sv, offsets=[0, 0], sizes=[16, 64]), t)
        pto.tstore(t, pto.partition_view(dv, offsets=[0, 0], sizes=[16, 64]))

    copy.to_pto(target="a5")                    # .pto text
    x, y = copy.run(x, y, target="a5")          # arrays after the run

- `load`, `run`, `compare`: a `.pto` file's module, its run, its report across targets
  (the interpreter's; `run` and `compare` also take a kernel); `run(..., inputs="random:SEED")`
  draws the arguments (`draw_inputs` gives the same arrays).
- `estimate(kernel, target=..., cost_model="pto-isa"|"calibrated", cores=None)`: what
  `pto-opt --estimate=json [--cost-model M] [--cores N]` prints, as a dict.
- The builder: `kernel`, the types (`f16`, `i32`, ... every element type; `ptr(dtype)`,
  `index`), `make_tensor_view`, `partition_view`, `alloc_tile`, `range`, `section_vector`,
  `section_cube`, `constant`, `load_scalar`, `store_scalar`, `index_cast`, `set_validshape`, `tgetval`, `tsetval`, `treshape`, and one function per instruction of the registry (`tload`,
  `mgather`, ...; pto_frontend/instructions.py).
- a5's register level (pto_frontend/registers.py): `vecscope`, `castptr`, `addptr`, `tile_buf_addr`,
  `mte_gm_ub`, `mte_ub_gm`, `mem_bar`, `sprclr`, `pset_b8/b16/b32`, `pge_b8/b16/b32`,
  `plt_b8/b16/b32`, `pand`, `por`, `pxor`, `psel`, `pnot`, `vlds`, `vsts`, `vbr`, `vdup`, `vsel`,
  `vcmps`, `vgather2`, `vgather2_bc`, `vgatherb`, `vscatter`; values `VReg`, `Mask`, and UB pointers
  (`ptr(dtype, "ub")`).
- `PtoError`: every failure, `FILE:LINE:COL: error: ...` (a kernel's: at the user's call).
- `testing`: assertions for users' own test suites.
"""

from typing import Any as _Any

import targets as _targets
from pto_dialect import load
from pto_dialect.diagnostics import PtoError
from pto_frontend import testing
from pto_frontend.instructions import FUNCTIONS
from pto_frontend.registers import REGISTER_FUNCTIONS
from pto_frontend.kernel import COST_MODELS, Kernel, compare, draw_inputs, estimate, kernel, run
from pto_frontend.scaffolding import (  # noqa: A004
    alloc_tile, constant, index_cast, load_scalar, make_tensor_view, partition_view, range, section_cube, section_vector, set_validshape,
    store_scalar, tgetval, treshape, tsetval, vecscope,
)
from pto_frontend.values import DTYPES, DType, Mask, Value, VReg, index, ptr

TARGETS: tuple[str, ...] = _targets.names()
"""Every target's name (`cpu`, `a2a3`, `a5`); aliases (`a2`, `a3`) are accepted wherever one is."""

globals().update(DTYPES)
globals().update(FUNCTIONS)
globals().update(REGISTER_FUNCTIONS)

__all__ = [
    "COST_MODELS", "DType", "Kernel", "Mask", "PtoError", "TARGETS", "VReg", "Value", "alloc_tile", "compare", "constant", "draw_inputs", "estimate", "index",
    "index_cast", "kernel", "load", "load_scalar", "make_tensor_view", "partition_view", "ptr", "range", "run", "section_cube",
    "section_vector", "set_validshape", "store_scalar", "testing", "tgetval", "treshape", "tsetval", "vecscope",
    *DTYPES, *FUNCTIONS, *REGISTER_FUNCTIONS,
]



def __getattr__(name: str) -> _Any:
    """`pto.<name>` for a name the module lacks (Python's message then names the nearest one). The
    element types and instruction functions are made from tables at import, so a type checker
    reads them through this function."""
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
