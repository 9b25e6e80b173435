"""The element types PTOAS's parser takes beyond the instruction tables' (f64, !pto.f8E8M0, the
other 8-bit floats of PTOAS's isPTOFloat8Type): they parse, print and move through GM scalar
accesses bit for bit on every target; C++ emission names pto-isa's type or says it has none;
a packed pair (!pto.f4E2M1x2 and kin: two values in one element) moves as its raw bits, through GM scalar
accesses and through a vector register."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import interpreter
from backends.cpp.emitter import emit_cpp
from pto_dialect import parse
from pto_dialect.diagnostics import PtoError
from tests.interpreter.harness import TARGETS
from tests.interpreter.vpto.kernels import run_body

NEW = {
    "f64": np.dtype(np.float64),
    "!pto.f8E8M0": np.dtype(ml_dtypes.float8_e8m0fnu),
    "f8E4M3": np.dtype(ml_dtypes.float8_e4m3),
    "f8E4M3FNUZ": np.dtype(ml_dtypes.float8_e4m3fnuz),
    "f8E4M3B11FNUZ": np.dtype(ml_dtypes.float8_e4m3b11fnuz),
    "f8E5M2FNUZ": np.dtype(ml_dtypes.float8_e5m2fnuz),
    "f8E3M4": np.dtype(ml_dtypes.float8_e3m4),
}


def _reverse(dtype: str) -> str:
    """dst[i] = src[3 - i], i < 4, one scalar at a time."""
    return f"""func.func @reverse(%src: !pto.ptr<{dtype}>, %dst: !pto.ptr<{dtype}>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {{
    %j = arith.subi %c3, %i : index
    %v = pto.load_scalar %src[%j] : !pto.ptr<{dtype}> -> {dtype}
    pto.store_scalar %v, %dst[%i] : !pto.ptr<{dtype}>, {dtype}
  }}
  return
}}
"""


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", sorted(NEW))
def test_the_value_moves_bit_for_bit(tmp_path: Path, target, dtype):
    path = tmp_path / "k.pto"
    path.write_text(_reverse(dtype))
    src = np.array([0.5, 2.0, 8.0, 0.25]).astype(NEW[dtype])
    out = interpreter.run(str(path), target, [src, np.zeros(4, NEW[dtype])])
    np.testing.assert_array_equal(out[1].view(np.uint8), src[::-1].copy().view(np.uint8))


PACKED = {"!pto.hif8x2": np.uint16, "!pto.f4E1M2x2": np.uint8, "!pto.f4E2M1x2": np.uint8, "!pto.bf16x2": np.uint32}
"""Each packed pair and the unsigned integer of its width (PTOAS's PTO.cpp: 2, 1, 1 and 4 bytes)."""


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", sorted(PACKED))
def test_a_packed_pair_moves_as_its_raw_bits(tmp_path: Path, target, dtype):
    path = tmp_path / "k.pto"
    path.write_text(_reverse(dtype))
    bits = np.iinfo(PACKED[dtype]).max
    src = np.array([bits, 0x1, bits // 3, 0xA5], PACKED[dtype])
    out = interpreter.run(str(path), target, [src, np.zeros(4, PACKED[dtype])])
    np.testing.assert_array_equal(out[1], src[::-1])


@pytest.mark.parametrize("dtype", ["!pto.f4E1M2x2", "!pto.f4E2M1x2"])
def test_an_f4_pair_register_round_trips_its_bytes(dtype):
    body = f"""
      %all = pto.pset_b8 "PAT_ALL" : !pto.mask<b8>
      %v = pto.vlds %in[%c8] : !pto.ptr<{dtype}, ub> -> !pto.vreg<256x{dtype}>
      pto.vsts %v, %out[%c0], %all : !pto.vreg<256x{dtype}>, !pto.ptr<{dtype}, ub>, !pto.mask<b8>"""
    x = np.arange(512, dtype=np.uint32).astype(np.uint8)
    got = run_body(body, x, np.zeros(256, np.uint8), in_type=dtype, out_type=dtype)
    np.testing.assert_array_equal(got, x[8:264])


def test_f64_and_e8m0_have_pto_isa_names():
    text = emit_cpp(parse(_reverse("f64") + _reverse("!pto.f8E8M0").replace("@reverse", "@scales"), "k.pto"))
    assert "__gm__ double* src" in text and "__gm__ float8_e8m0_t* src" in text


def test_an_8_bit_float_pto_isa_does_not_name_is_a_located_cpp_error():
    with pytest.raises(PtoError, match=r"k.pto:8:5: error: 'pto.load_scalar' op cannot be emitted as C\+\+: pto-isa has no C\+\+ type for f8E4M3FNUZ"):
        emit_cpp(parse(_reverse("f8E4M3FNUZ"), "k.pto"))
