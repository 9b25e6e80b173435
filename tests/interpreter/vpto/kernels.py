"""Register-level test kernels: a body between a GM -> UB copy of the input and a UB -> GM copy of
the output, both `bytes` long, as PTOAS's micro-op cases write them."""

from __future__ import annotations

import numpy as np

import interpreter
from pto_dialect import parse

UB_IN, UB_OUT = 0, 65536
"""The input's and the output's UB byte addresses."""


def run_body(body: str, x: np.ndarray, out: np.ndarray, in_type: str | None = None, out_type: str | None = None) -> np.ndarray:
    """Run `body` (inside pto.vecscope; %in and %out are UB pointers of the arrays' types, %c0 .. the usual
    index constants) on `x`; the output array as the kernel leaves it."""
    in_t = in_type or _mlir(x.dtype)
    out_t = out_type or _mlir(out.dtype)
    lines = f"""{constants((0, 1, 2, 8, 64), "index")}
{constants((0, 1), "i64", "_i64")}
    %in_bytes = arith.constant {x.nbytes} : i64
    %out_bytes = arith.constant {out.nbytes} : i64
    %ub_in_addr = arith.constant {UB_IN} : i64
    %ub_out_addr = arith.constant {UB_OUT} : i64
    %in = pto.castptr %ub_in_addr : i64 -> !pto.ptr<{in_t}, ub>
    %out = pto.castptr %ub_out_addr : i64 -> !pto.ptr<{out_t}, ub>
    pto.mte_gm_ub %x, %in, %c0_i64, %in_bytes nburst(%c1_i64, %in_bytes, %in_bytes)
      : !pto.ptr<{in_t}, gm>, !pto.ptr<{in_t}, ub>, i64, i64, i64, i64, i64
    pto.mte_gm_ub %y, %out, %c0_i64, %out_bytes nburst(%c1_i64, %out_bytes, %out_bytes)
      : !pto.ptr<{out_t}, gm>, !pto.ptr<{out_t}, ub>, i64, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.vecscope {{
{body}
    }}
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.mte_ub_gm %out, %y, %out_bytes nburst(%c1_i64, %out_bytes, %out_bytes)
      : !pto.ptr<{out_t}, ub>, !pto.ptr<{out_t}, gm>, i64, i64, i64, i64"""
    return run_kernel(lines, x, out, in_t, out_t)


def constants(values: tuple[int, ...], type_: str, suffix: str = "") -> str:
    """`%c<v><suffix> = arith.constant v : type_`, one line each."""
    return "\n".join(f"    %c{v}{suffix} = arith.constant {v} : {type_}" for v in values)


def run_kernel(lines: str, x: np.ndarray, out: np.ndarray, in_t: str, out_t: str) -> np.ndarray:
    """Run the a5 kernel `@k(%x, %y)` (GM pointers of `in_t`, `out_t`) of `lines` on `x` and `out`; the
    output array as it leaves it."""
    text = f"""
module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%x: !pto.ptr<{in_t}, gm>, %y: !pto.ptr<{out_t}, gm>) {{
{lines}
    return
  }}
}}
"""
    return interpreter.run(parse(text), "a5", [x, out])[1]


_NAMES = {"float32": "f32", "float16": "f16", "int8": "i8", "uint8": "ui8", "int16": "i16", "uint16": "ui16",
          "int32": "i32", "uint32": "ui32", "bfloat16": "bf16"}


def _mlir(dtype: np.dtype) -> str:
    return _NAMES[np.dtype(dtype).name]
