"""
PTOAS-style kernels: every tile declared up front at a fixed address, tiles used one
after the other sharing bytes (passes/memory_plan.py: a tile is live from its first
write to its last read). The run gives each tile's own data: out0 = x, out1 = y,
out2 = x (the tile at another address, read last).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interpreter.harness import TARGETS, assert_bits_equal, constants, func, gm_views, run, tile, view

T = tile((8, 64), "f32")
V = view((8, 64), "f32")
KERNEL = func(
    [("x", "!pto.ptr<f32>"), ("y", "!pto.ptr<f32>"), ("o0", "!pto.ptr<f32>"), ("o1", "!pto.ptr<f32>"), ("o2", "!pto.ptr<f32>")],
    constants(0, 1, 8, 64)
    + f"""
%a0 = arith.constant 0 : i64
%a2048 = arith.constant 2048 : i64
%a = pto.alloc_tile addr = %a0 : {T}
%b = pto.alloc_tile addr = %a0 : {T}
%c = pto.alloc_tile addr = %a2048 : {T}
{gm_views([(n, "f32", (8, 64)) for n in ("x", "y", "o0", "o1", "o2")])}
pto.tload ins(%xp : {V}) outs(%a : {T})
pto.tload ins(%xp : {V}) outs(%c : {T})
pto.tstore ins(%a : {T}) outs(%o0p : {V})
pto.tload ins(%yp : {V}) outs(%b : {T})
pto.tstore ins(%b : {T}) outs(%o1p : {V})
pto.tstore ins(%c : {T}) outs(%o2p : {V})
""",
)


@pytest.mark.parametrize("target", TARGETS)
def test_tiles_declared_up_front_share_bytes_one_after_the_other(target: str) -> None:
    x = np.arange(512, dtype=np.float32).reshape(8, 64)
    y = -np.arange(512, dtype=np.float32).reshape(8, 64) - 1
    outs = run(KERNEL, target, [x, y, *(np.zeros((8, 64), np.float32) for _ in range(3))])[2:]
    assert_bits_equal(outs[0], x)
    assert_bits_equal(outs[1], y)
    assert_bits_equal(outs[2], x)


R = tile((1, 64), "f32")
RV = view((1, 64), "f32")
SECTION_LOOP_KERNEL = func(
    [("x", "!pto.ptr<f32>"), ("y", "!pto.ptr<f32>"), ("o0", "!pto.ptr<f32>"), ("o1", "!pto.ptr<f32>")],
    constants(0, 1, 8, 64)
    + f"""
%a0 = arith.constant 0 : i64
%a = pto.alloc_tile addr = %a0 : {R}
%b = pto.alloc_tile addr = %a0 : {R}
"""
    + "".join(
        f"%{n}v = pto.make_tensor_view %{n}, shape = [%c8, %c64], strides = [%c64, %c1] : !pto.tensor_view<?x?xf32>\n"
        for n in ("x", "y", "o0", "o1")
    )
    + "pto.section.vector {\n  scf.for %i = %c0 to %c8 step %c1 {\n"
    + "".join(
        f"    %{n}p = pto.partition_view %{n}v, offsets = [%i, %c0], sizes = [%c1, %c64] : !pto.tensor_view<?x?xf32>\n"
        for n in ("x", "y", "o0", "o1")
    )
    + f"""
    pto.tload ins(%xp : {RV}) outs(%a : {R})
    pto.tstore ins(%a : {R}) outs(%o0p : {RV})
    pto.tload ins(%yp : {RV}) outs(%b : {R})
    pto.tstore ins(%b : {R}) outs(%o1p : {RV})
  }}
}}
""",
)


@pytest.mark.parametrize("batch_loops", [True, False])
@pytest.mark.parametrize("target", TARGETS)
def test_tiles_declared_before_a_section_share_bytes_in_each_loop_iteration(target: str, batch_loops: bool) -> None:
    """As PyPTO and ptodsl write kernels: both tiles allocated before the section at address 0,
    each iteration loads and stores one, then the other."""
    import interpreter
    import pto_dialect

    x = np.arange(512, dtype=np.float32).reshape(8, 64)
    y = -np.arange(512, dtype=np.float32).reshape(8, 64) - 1
    module = pto_dialect.parse(SECTION_LOOP_KERNEL, "k.pto")
    outs = interpreter.run(module, target, [x, y, np.zeros_like(x), np.zeros_like(x)], batch_loops=batch_loops)[2:]
    assert_bits_equal(outs[0], x)
    assert_bits_equal(outs[1], y)


ACC, ROW = tile((1, 64), "f32"), view((1, 64), "f32")
ACCUMULATE_BY_ADDRESS = func(
    [("x", "!pto.ptr<f32>"), ("y", "!pto.ptr<f32>")],
    constants(0, 1, 4, 64)
    + f"""
%a0 = arith.constant 0 : i64
%a256 = arith.constant 256 : i64
%zero = arith.constant 0.0 : f32
%xv = pto.make_tensor_view %x, shape = [%c4, %c64], strides = [%c64, %c1] : !pto.tensor_view<?x?xf32>
{gm_views([("y", "f32", (1, 64))])}
%acc = pto.alloc_tile addr = %a0 : {ACC}
pto.texpands ins(%zero : f32) outs(%acc : {ACC})
scf.for %i = %c0 to %c4 step %c1 {{
  %xp = pto.partition_view %xv, offsets = [%i, %c0], sizes = [%c1, %c64] : !pto.tensor_view<?x?xf32>
  %row = pto.alloc_tile addr = %a256 : {ACC}
  pto.tload ins(%xp : {ROW}) outs(%row : {ACC})
  %next = pto.alloc_tile addr = %a0 : {ACC}
  pto.tadd ins(%acc, %row : {ACC}, {ACC}) outs(%next : {ACC})
}}
pto.tstore ins(%acc : {ACC}) outs(%yp : {ROW})
""",
)


@pytest.mark.parametrize("batch_loops", [True, False])
@pytest.mark.parametrize("target", TARGETS)
def test_accumulator_carried_by_address(target: str, batch_loops: bool) -> None:
    """As PyPTO writes a running sum: each iteration adds into a new tile at %acc's address,
    so %acc, read after the loop, holds the sum of every row (tests/filecheck/memory/
    shared_bytes.pto: accepted by default, as PTOAS accepts it)."""
    import interpreter
    import pto_dialect

    x = np.arange(256, dtype=np.float32).reshape(4, 64) / 8
    module = pto_dialect.parse(ACCUMULATE_BY_ADDRESS, "k.pto")
    out = interpreter.run(module, target, [x, np.zeros((1, 64), np.float32)], batch_loops=batch_loops)[1]
    expected = np.zeros((1, 64), np.float32)
    for r in range(4):  # the sum in the kernel's order, one row at a time in f32
        expected = expected + x[r : r + 1]
    assert_bits_equal(out, expected)
