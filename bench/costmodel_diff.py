"""
`pto-opt --estimate=json --target a2a3` against pto-isa's own a2a3 cost model (issue 19's
differential test; docs/cost.md). Random kernels, one function per case, for the forms in FORMS;
each batch of them is estimated by this tree's pto-opt and emitted as C++ (`--to=cpp`), which g++
builds against the cost model of a pto-isa checkout (include/pto/costmodel, -D__COSTMODEL
-D__NPU_ARCH__=2201) with a driver that calls each function on zeroed GM buffers and prints the
cycles the cost model's trace records for each PTO instruction. The two are compared
instruction by instruction, in order: a case's instruction agrees when the estimate equals the
cost model's cycles plus the estimate's charge for the scalar loops the cost model's mocks
charge nothing (one cycle an element, docs/cost.md; TSCATTER's index and row-axis mask forms,
TROWARGMIN / TROWARGMAX's loops writing results from tmp), counted here from the kernel's shapes.

    .venv/bin/python bench/costmodel_diff.py --pto-isa PATH [--work DIR] [--n 240] [--seed 11]
        [--forms tload,tload_mat,tgather_index,mgather_row] [--jobs 2] [--batch 40]

PATH is a pto-isa checkout (`git archive HEAD | tar -x -C PATH`), only read: its include/ is
copied into the work dir (a temporary one by default, kept when not all agree), where the
declarations its cost model lacks are added (MISSING). The forms the cost model's own wrappers
cannot express go through bench/costmodel_shims.hpp. Prints agree/disagree per form and
instruction and writes WORK/disagreements.txt (each with its kernel); exit 0 only when all agree.
Needs g++ (C++23). Not part of the test suite: tests/test_costmodel_diff.py checks only that
pto-opt accepts the kernels it generates.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHIMS = Path(__file__).resolve().with_name("costmodel_shims.hpp")
SIZES = {"i8": 1, "i16": 2, "ui16": 2, "f16": 2, "bf16": 2, "i32": 4, "ui32": 4, "f32": 4, "i64": 8}
UB_BYTES = 196608
BLOCK = 32
"""Bytes of a UB block: a row-major tile's row (a col-major tile's column) is whole blocks."""
REPEAT = 256
"""Bytes one repeat of a vector instruction covers."""
NZ = ", blayout=col_major, slayout=row_major"
GM_BUFFER_BYTES = 8 << 20
"""Each GM argument's zeroed buffer: more than any generated view spans."""

sys.path.insert(0, str(ROOT))
from bench.simdiff.kernel import whole_view  # noqa: E402


def align(n: int, to: int) -> int:
    return -(-n // to) * to


def tile(loc: str, rows: int, cols: int, dtype: str, valid: tuple[int, int] | None = None, extra: str = "") -> str:
    shown = "" if valid is None or valid == (rows, cols) else f", valid={valid[0]}x{valid[1]}"
    return f"!pto.tile_buf<{loc}, {rows}x{cols}x{dtype}{shown}{extra}>"


@dataclass
class Kernel:
    """One case: a function's GM arguments (element types), its body, the PTO instructions it
    runs in order, a label grouping it in the report and the details naming it."""

    args: list[str]
    instructions: list[str]
    label: str = ""
    details: str = ""
    scalar_cycles: dict[str, int] = field(default_factory=dict)
    """Instruction -> what the estimate charges its scalar loops, one cycle per element they
    handle, which the cost model's mocks charge nothing (docs/cost.md): added to the cost
    model's cycles before comparing."""
    body: list[str] = field(default_factory=list)
    consts: set[int] = field(default_factory=set)

    def index(self, n: int) -> str:
        self.consts.add(n)
        return f"%c{n}"

    def view(self, arg: int, name: str, dtype: str, shape: list[int], strides: list[int], layout: str = "nd") -> str:
        """%name: the whole of a tensor view of argument `arg`; returns its partition's type."""
        lines, view_type = whole_view(self.index, arg, name, dtype, shape, strides, layout)
        self.body += lines
        return view_type

    def alloc(self, name: str, tile_type: str) -> None:
        self.body.append(f"    %{name} = pto.alloc_tile : {tile_type}")

    def text(self, name: str) -> str:
        signature = ", ".join(f"%a{i}: !pto.ptr<{t}, gm>" for i, t in enumerate(self.args))
        consts = [f"    %c{n} = arith.constant {n} : index" for n in sorted(self.consts)]
        return "\n".join([f"  func.func @{name}({signature}) {{", *consts, *self.body, "    return", "  }"])


def contiguous_strides(shape: list[int]) -> list[int]:
    return [math.prod(shape[i + 1 :]) for i in range(len(shape))]


def nz_view_shape(dtype: str, blocks_across: int, blocks_down: int) -> tuple[list[int], list[int]]:
    """A 5-D NZ view of blocks_down x 16 rows and blocks_across x C0 columns, contiguous."""
    c0 = BLOCK // SIZES[dtype]
    shape = [1, blocks_across, blocks_down, 16, c0]
    return shape, contiguous_strides(shape)


def fits(*tile_bytes: int) -> bool:
    return sum(tile_bytes) <= UB_BYTES


# ---------------------------------------------------------------------------
# The forms: each draws one kernel. Its shapes are drawn until its tiles fit in UB.


def tload_tstore(rng: random.Random) -> Kernel:
    """A vec tile loaded from and stored to views of one shape: ND of rank 2, 3 or 5, DN, or NZ;
    with or without a pad value, a valid region smaller than the tile."""
    dtype = rng.choice(["i8", "i16", "f16", "bf16", "i32", "f32", "i64"])
    size = SIZES[dtype]
    layout = rng.choice(["nd", "nd", "nd", "dn", "nz"] if size < 8 else ["nd", "dn"])
    pad = "" if layout == "nz" else rng.choice(["", "", ", pad=1", ", pad=2", ", pad=3"])
    while True:
        if layout == "nd":
            dims = [rng.choice([1, 1, 2, 3]), rng.choice([1, 1, 2]), rng.choice([1, 1, 2, 3]), rng.randint(1, 64), rng.randint(1, 300)]
            rank = rng.choice([2, 3, 5]) if dims[0] == dims[1] == 1 else 5
            if rank == 2:
                dims[2] = 1
            valid = (math.prod(dims[:4]), dims[4])
            rows = valid[0] + rng.choice([0, 0, 3])
            cols = align(valid[1] + rng.choice([0, 0, 5, 40]), BLOCK // size)
            tile_type = tile("vec", rows, cols, dtype, valid, pad)
            shape = dims[5 - rank :]
            strides = contiguous_strides(shape)
        elif layout == "dn":
            valid = (rng.randint(1, 200), rng.randint(1, 64))
            rows = align(valid[0] + rng.choice([0, 0, 7]), BLOCK // size)
            cols = valid[1] + rng.choice([0, 0, 3])
            tile_type = tile("vec", rows, cols, dtype, valid, f", blayout=col_major{pad}")
            shape, strides = list(valid), [1, valid[0]]
        else:
            shape, strides = nz_view_shape(dtype, rng.randint(1, 6), rng.randint(1, 6))
            rows, cols = shape[2] * 16, shape[1] * shape[4]
            tile_type = tile("vec", rows, cols, dtype, None, NZ)
        if fits(rows * cols * size):
            break
    k = Kernel([dtype, dtype], ["TLOAD", "TSTORE"], f"tload/tstore {layout}", f"{dtype} view {shape} tile {tile_type}")
    src = k.view(0, "src", dtype, shape, strides, layout)
    k.view(1, "dst", dtype, shape, strides, layout)
    k.alloc("t", tile_type)
    k.body += [f"    pto.tload ins(%src : {src}) outs(%t : {tile_type})", f"    pto.tstore ins(%t : {tile_type}) outs(%dst : {src})"]
    return k


def tload_mat(rng: random.Random) -> Kernel:
    """An ND view loaded into an NZ mat (L1) tile, stored to an NZ view."""
    dtype = rng.choice(["i8", "f16", "bf16", "i32", "f32"])
    shape, strides = nz_view_shape(dtype, rng.randint(1, 8), rng.randint(1, 8))
    rows, cols = shape[2] * 16, shape[1] * shape[4]
    k = Kernel([dtype, dtype], ["TLOAD", "TSTORE"], "tload nd->mat nz / tstore mat nz->nz", f"{dtype} {rows}x{cols}")
    src = k.view(0, "src", dtype, [rows, cols], [cols, 1])
    dst = k.view(1, "dst", dtype, shape, strides, "nz")
    tile_type = tile("mat", rows, cols, dtype, None, NZ)
    k.alloc("t", tile_type)
    k.body += [f"    pto.tload ins(%src : {src}) outs(%t : {tile_type})", f"    pto.tstore ins(%t : {tile_type}) outs(%dst : {dst})"]
    return k


def tgather_index(rng: random.Random) -> Kernel:
    dtype = rng.choice(["f32", "i32", "f16", "i16", "bf16"])
    size = SIZES[dtype]
    while True:
        rows, cols = rng.randint(1, 300), align(rng.randint(1, 256), max(8, BLOCK // size))  # i32 indices: whole blocks
        src_rows, src_cols = rng.randint(1, 64), align(rng.randint(1, 256), BLOCK // size)
        if fits(rows * cols * (size + 8), src_rows * src_cols * size):
            break
    k = Kernel([], ["TGATHER"], "tgather index", f"{dtype} src {src_rows}x{src_cols} dst {rows}x{cols}")
    src, idx, tmp, dst = tile("vec", src_rows, src_cols, dtype), tile("vec", rows, cols, "i32"), tile("vec", rows, cols, "i32"), tile("vec", rows, cols, dtype)
    for name, tile_type in (("s", src), ("i", idx), ("tm", tmp), ("d", dst)):
        k.alloc(name, tile_type)
    k.body.append(f"    pto.tgather ins(%s, %i, %tm : {src}, {idx}, {tmp}) outs(%d : {dst})")
    return k


def mgather_row(rng: random.Random, oob: str = "") -> Kernel:
    """Row mode from an ND table; `oob`: the out-of-range mode (none: the default, undefined)."""
    dtype = rng.choice(["i8", "i16", "f16", "bf16", "i32", "f32"])
    size = SIZES[dtype]
    while True:
        rows, valid_cols = rng.randint(1, 256), rng.randint(1, 512)
        cols = align(valid_cols + rng.choice([0, 0, 9]), BLOCK // size)
        if fits(rows * cols * size, align(rows, 8) * 4):
            break
    table_rows = rng.randint(1, 2000)
    k = Kernel([dtype], ["MGATHER"], f"mgather row {oob}".strip(), f"{dtype} table {table_rows}x{valid_cols} dst {rows}x{cols}")
    table = k.view(0, "tab", dtype, [table_rows, valid_cols], [valid_cols, 1])
    idx, dst = tile("vec", 1, align(rows, 8), "i32", (1, rows)), tile("vec", rows, cols, dtype, (rows, valid_cols))
    k.alloc("i", idx)
    k.alloc("d", dst)
    attrs = "coalesce = #pto<coalesce row>" + (f", gatherOob = #pto<gather_oob {oob}>" if oob else "")
    k.body.append(f"    pto.mgather ins(%tab, %i : {table}, {idx}) outs(%d : {dst}) {{{attrs}}}")
    return k


def mgather_attrs(mode: str, oob: str) -> str:
    return f"coalesce = #pto<coalesce {mode}>, gatherOob = #pto<gather_oob {oob}>"


def mgather_modes(rng: random.Random) -> Kernel:
    """Row mode with an out-of-range mode, from an NZ table into an NZ vec tile, and from an ND
    table into an NZ mat (L1) tile."""
    kind = rng.choice(["clamp", "wrap", "zero", "nz", "l1"])
    if kind in ("clamp", "wrap", "zero"):
        return mgather_row(rng, kind)
    dtype = rng.choice(["i16", "f16", "i32", "f32"])
    oob = rng.choice(["undefined", "clamp", "wrap", "zero"])
    rows, cols = 16 * rng.randint(1, 4), BLOCK // SIZES[dtype] * rng.randint(1, 4)
    valid_rows = rng.randint(1, rows)
    k = Kernel([dtype], ["MGATHER"], f"mgather row {kind}", f"{dtype} {oob} dst {rows}x{cols}")
    if kind == "nz":
        shape, strides = nz_view_shape(dtype, rng.randint(1, 4), rng.randint(1, 4))
        table = k.view(0, "tab", dtype, shape, strides, "nz")
        idx, dst = tile("vec", 1, align(valid_rows, 8), "i32", (1, valid_rows)), tile("vec", rows, cols, dtype, (valid_rows, cols), NZ)
        k.alloc("i", idx)
        k.alloc("d", dst)
        k.body.append(f"    pto.mgather ins(%tab, %i : {table}, {idx}) outs(%d : {dst}) {{{mgather_attrs('row', oob)}}}")
    else:
        valid_cols = rng.randint(1, cols)
        k.args = [dtype, "i32"]
        table = k.view(0, "tab", dtype, [rng.randint(1, 500), valid_cols], [valid_cols, 1])
        idx = k.view(1, "ix", "i32", [1, valid_rows], [valid_rows, 1])
        dst = tile("mat", rows, cols, dtype, (valid_rows, valid_cols), NZ)
        k.alloc("d", dst)
        k.body.append(f"    pto.mgather ins(%tab, %ix : {table}, {idx}) outs(%d : {dst}) {{{mgather_attrs('row', oob)}}}")
    return k


def mgather_elem(rng: random.Random) -> Kernel:
    """Elem mode from an ND table into an ND vec tile or (through GM scratch) an NZ mat (L1)
    tile, and from an NZ table into an NZ vec tile."""
    kind = rng.choice(["nd", "nz", "l1"])
    dtype = rng.choice(["i16", "f16", "i32", "f32"])
    oob = rng.choice(["undefined", "clamp", "wrap", "zero"])
    k = Kernel([dtype], ["MGATHER"], f"mgather elem {kind}")
    if kind == "nz":
        shape, strides = nz_view_shape(dtype, rng.randint(1, 4), rng.randint(1, 4))
        table_size = math.prod(shape)
        table = k.view(0, "tab", dtype, shape, strides, "nz")
    else:
        table_size = rng.randint(1, 5000)
        table = k.view(0, "tab", dtype, [1, table_size], [table_size, 1])
    if kind == "nd":
        valid = (rng.randint(1, 32), rng.randint(1, 100))
        rows, cols = valid[0], align(valid[1], BLOCK // SIZES[dtype])
        dst = tile("vec", rows, cols, dtype, valid)
    else:
        rows, cols = 16 * rng.randint(1, 4), BLOCK // SIZES[dtype] * rng.randint(1, 4)
        valid = (rng.randint(1, rows), rng.randint(1, cols))
        dst = tile("vec" if kind == "nz" else "mat", rows, cols, dtype, valid, NZ)
    k.details = f"{dtype} {oob} table {table_size} dst {rows}x{cols} valid {valid[0]}x{valid[1]}"
    k.alloc("d", dst)
    if kind == "l1":
        k.args = [dtype, "i32", dtype]
        idx = k.view(1, "ix", "i32", list(valid), [valid[1], 1])
        scratch = k.view(2, "sc", dtype, [1, rows * cols], [rows * cols, 1])
        k.body.append(f"    pto.mgather ins(%tab, %ix, %sc : {table}, {idx}, {scratch}) outs(%d : {dst}) {{{mgather_attrs('elem', oob)}}}")
    else:
        idx = tile("vec", valid[0], align(valid[1], 8), "i32", valid)
        k.alloc("i", idx)
        k.body.append(f"    pto.mgather ins(%tab, %i : {table}, {idx}) outs(%d : {dst}) {{{mgather_attrs('elem', oob)}}}")
    return k


MASK_PERIODS = {"P0101": 2, "P1010": 2, "P0001": 4, "P0010": 4, "P0100": 4, "P1000": 4, "P1111": 1}
"""Mask pattern -> the elements of src per element of dst along the gather axis."""


def tgather_mask(rng: random.Random) -> Kernel:
    dtype = rng.choice(["f32", "i32", "f16", "i16", "bf16"])
    size = SIZES[dtype]
    pattern = rng.choice(list(MASK_PERIODS))
    period = MASK_PERIODS[pattern]
    axis = rng.choice(["row", "col"]) if period > 1 else "row"
    while True:
        rows = rng.randint(1, 64) * (period if axis == "col" else 1)
        cols = align(rng.randint(1, 300), (period if axis == "row" else 1) * BLOCK // size)
        if fits(rows * cols * size * 2):
            break
    src = tile("vec", rows, cols, dtype)
    dst = tile("vec", rows, cols // period, dtype) if axis == "row" else tile("vec", rows // period, cols, dtype)
    k = Kernel([], ["TGATHER"], f"tgather mask {axis}", f"{dtype} {pattern} src {rows}x{cols}")
    k.alloc("s", src)
    k.alloc("d", dst)
    k.body.append(f'    pto.tgather ins(%s, {{maskPattern = #pto.mask_pattern<{pattern}>}} : {src}, "{axis}") outs(%d : {dst})')
    return k


def tgather_compare(rng: random.Random) -> Kernel:
    dtype = rng.choice(["f16", "f32", "i32"])
    size = SIZES[dtype]
    mode = "eq" if dtype == "i32" else rng.choice(["eq", "gt"])
    tmp_cols = 64
    while True:
        rows, cols = rng.randint(1, 32), align(rng.randint(1, 600), BLOCK // size)
        tmp_rows = -(-(rows * cols * 4 + rows * size) // (3 * tmp_cols)) + 1
        if fits(rows * cols * (size + 4), tmp_rows * tmp_cols * 4, 64 * 4):
            break
    k = Kernel([], ["TGATHER"], f"tgather compare {mode}", f"{dtype} src {rows}x{cols}")
    src, thresholds, tmp = tile("vec", rows, cols, dtype), tile("vec", 1, align(rows, 8), "i32", (1, rows)), tile("vec", tmp_rows, tmp_cols, "i32")
    dst, counts = tile("vec", rows, cols, "i32"), tile("vec", rows, 8, "i32")
    for name, tile_type in (("s", src), ("k", thresholds), ("tm", tmp), ("d", dst), ("cd", counts)):
        k.alloc(name, tile_type)
    k.body.append(
        f"    pto.tgather ins(%s, %k, %tm : {src}, {thresholds}, {tmp}) outs(%d, %cd : {dst}, {counts}) "
        f"{{cmpMode = #pto<cmp {mode}>}}"
    )
    return k


def tcolarg(rng: random.Random) -> Kernel:
    """TCOLARGMIN / TCOLARGMAX, index only or value + index."""
    dtype = rng.choice(["f16", "f32", "ui16", "ui32"])
    size = SIZES[dtype]
    op = rng.choice(["tcolargmin", "tcolargmax"])
    with_values = rng.random() < 0.4
    while True:
        rows, valid_cols = rng.randint(1, 64), rng.randint(1, 400)
        cols = align(valid_cols, BLOCK // size)
        if fits(rows * cols * size * 2, cols * 12):
            break
    k = Kernel([], [op.upper()], f"{op} {'value+index' if with_values else 'index'}", f"{dtype} src {rows}x{valid_cols}")
    src = tile("vec", rows, cols, dtype, (rows, valid_cols))
    k.alloc("s", src)
    k.alloc("tm", src)
    idx = tile("vec", 1, align(cols, 8), "i16" if with_values and size == 2 else "i32", (1, valid_cols))
    k.alloc("i", idx)
    if with_values:
        values = tile("vec", 1, cols, dtype, (1, valid_cols))
        k.alloc("v", values)
        k.body.append(f"    pto.{op} ins(%s, %tm : {src}, {src}) outs(%v, %i : {values}, {idx})")
    else:
        k.body.append(f"    pto.{op} ins(%s, %tm : {src}, {src}) outs(%i : {idx})")
    return k


SCATTER_ATOMIC_TYPES = ["i8", "i16", "i32", "f16", "bf16", "f32"]
"""The types a2a3's MSCATTER adds atomically (MScatter.hpp IsValidMScatterAtomic)."""


def mscatter_attrs(rng: random.Random, mode: str, dtype: str) -> str:
    """The coalesce mode, an atomic add (for a type that has one) and an out-of-range mode, each
    left out at random (its default)."""
    attrs = [f"coalesce = #pto<coalesce {mode}>"]
    if dtype in SCATTER_ATOMIC_TYPES and rng.random() < 0.3:
        attrs.append("scatterAtomicOp = #pto<scatter_atomic_op add>")
    if rng.random() < 0.4:
        attrs.append(f"scatterOob = #pto<scatter_oob {rng.choice(['undefined', 'skip', 'clamp', 'wrap'])}>")
    return ", ".join(attrs)


def mscatter_row(rng: random.Random) -> Kernel:
    """Row mode into an ND table (its row stride at times wider than a row) or an NZ table, with
    or without an atomic add and an out-of-range mode."""
    kind = rng.choice(["nd", "nz"])
    dtype = rng.choice(["i8", "i16", "ui16", "f16", "bf16", "i32", "ui32", "f32"])
    size = SIZES[dtype]
    attrs = mscatter_attrs(rng, "row", dtype)
    k = Kernel([dtype], ["MSCATTER"], f"mscatter row {kind}")
    if kind == "nd":
        while True:
            valid_rows, table_cols = rng.randint(1, 128), rng.randint(1, 600)
            cols = align(table_cols + rng.choice([0, 0, 9]), BLOCK // size)
            if fits(valid_rows * cols * size, align(valid_rows, 8) * 4):
                break
        table_rows, row_stride = rng.randint(1, 2000), table_cols + rng.choice([0, 0, 0, 5])
        table = k.view(0, "tab", dtype, [table_rows, table_cols], [row_stride, 1])
        src = tile("vec", valid_rows, cols, dtype, (valid_rows, table_cols))
        k.details = f"{dtype} table {table_rows}x{table_cols} stride {row_stride} src {valid_rows}x{cols}"
    else:
        shape, strides = nz_view_shape(dtype, rng.randint(1, 4), rng.randint(1, 4))
        rows, cols = 16 * rng.randint(1, 4), shape[1] * shape[4]
        valid_rows = rng.randint(1, rows)
        table = k.view(0, "tab", dtype, shape, strides, "nz")
        src = tile("vec", rows, cols, dtype, (valid_rows, cols), NZ)
        k.details = f"{dtype} table {shape} src {rows}x{cols} valid {valid_rows}x{cols}"
    k.details += f" {{{attrs}}}"
    idx = tile("vec", 1, align(valid_rows, 8), "i32", (1, valid_rows))
    k.alloc("s", src)
    k.alloc("i", idx)
    k.body.append(f"    pto.mscatter ins(%s, %i : {src}, {idx}) outs(%tab : {table}) {{{attrs}}}")
    return k


def mscatter_elem(rng: random.Random) -> Kernel:
    """Elem mode into an ND table from an ND vec tile, or into an NZ table from an NZ vec tile."""
    kind = rng.choice(["nd", "nz"])
    dtype = rng.choice(["i16", "f16", "i32", "f32"])
    attrs = mscatter_attrs(rng, "elem", dtype)
    k = Kernel([dtype], ["MSCATTER"], f"mscatter elem {kind}")
    if kind == "nz":
        shape, strides = nz_view_shape(dtype, rng.randint(1, 4), rng.randint(1, 4))
        table_size = math.prod(shape)
        table = k.view(0, "tab", dtype, shape, strides, "nz")
        rows, cols = 16 * rng.randint(1, 4), BLOCK // SIZES[dtype] * rng.randint(1, 4)
        valid = (rng.randint(1, rows), rng.randint(1, cols))
        src = tile("vec", rows, cols, dtype, valid, NZ)
    else:
        table_size = rng.randint(1, 5000)
        table = k.view(0, "tab", dtype, [1, table_size], [table_size, 1])
        valid = (rng.randint(1, 32), rng.randint(1, 100))
        rows, cols = valid[0], align(valid[1], BLOCK // SIZES[dtype])
        src = tile("vec", rows, cols, dtype, valid)
    k.details = f"{dtype} table {table_size} src {rows}x{cols} valid {valid[0]}x{valid[1]} {{{attrs}}}"
    idx = tile("vec", valid[0], align(valid[1], 8), "i32", valid)
    k.alloc("s", src)
    k.alloc("i", idx)
    k.body.append(f"    pto.mscatter ins(%s, %i : {src}, {idx}) outs(%tab : {table}) {{{attrs}}}")
    return k


TSCATTER_INDEX_TYPES = {1: "i16", 2: "i16", 4: "i32"}
"""a2a3 TSCATTER's index type by data width (TScatter.hpp: a 1-byte data type takes 2-byte indices)."""


def tscatter_index(rng: random.Random) -> Kernel:
    dtype = rng.choice(["i8", "i16", "ui16", "f16", "bf16", "i32", "ui32", "f32"])
    size = SIZES[dtype]
    index_type = TSCATTER_INDEX_TYPES[size]
    while True:
        valid = (rng.randint(1, 64), rng.randint(1, 200))
        cols = align(valid[1], BLOCK // min(size, SIZES[index_type]))
        dst_rows, dst_cols = rng.randint(1, 64), align(rng.randint(1, 300), BLOCK // size)
        if fits(valid[0] * cols * (size + SIZES[index_type]), dst_rows * dst_cols * size):
            break
    src, idx, dst = tile("vec", valid[0], cols, dtype, valid), tile("vec", valid[0], cols, index_type, valid), tile("vec", dst_rows, dst_cols, dtype)
    # TScatterImpl's scalar loop: one cycle an index
    k = Kernel([], ["TSCATTER"], "tscatter index", f"{dtype} src {valid[0]}x{cols} valid {valid[0]}x{valid[1]} dst {dst_rows}x{dst_cols}",
               scalar_cycles={"TSCATTER": valid[0] * valid[1]})
    for name, tile_type in (("s", src), ("i", idx), ("d", dst)):
        k.alloc(name, tile_type)
    k.body.append(f"    pto.tscatter ins(%s, %i : {src}, {idx}) outs(%d : {dst})")
    return k


def tscatter_mask(rng: random.Random) -> Kernel:
    """A pattern's period along the col axis (one vcopy a src row) or the row axis (a scalar
    loop over src's valid elements); P1111 (TMOV) into a dst of src's shape."""
    dtype = rng.choice(["i16", "ui16", "f16", "bf16", "i32", "ui32", "f32"])
    size = SIZES[dtype]
    pattern = rng.choice(list(MASK_PERIODS))
    period = MASK_PERIODS[pattern]
    axis = rng.choice(["row", "col"])
    while True:
        valid = (rng.randint(1, 64), rng.randint(1, 256))
        rows, cols = valid[0] + rng.choice([0, 0, 3]), align(valid[1], BLOCK // size)
        if period == 1:
            dst_rows, dst_cols, dst_valid = rows, cols, valid
        elif axis == "col":
            dst_rows, dst_cols, dst_valid = rows * period, cols, (valid[0] * period, valid[1])
        else:
            dst_rows, dst_cols, dst_valid = rows, cols * period, (valid[0], valid[1] * period)
        if fits(rows * cols * size, dst_rows * dst_cols * size):
            break
    src, dst = tile("vec", rows, cols, dtype, valid), tile("vec", dst_rows, dst_cols, dtype, dst_valid)
    label = "tscatter mask P1111" if period == 1 else f"tscatter mask {axis}"
    # TScatterMaskImpl's row-axis scalar loop: one cycle an element of src
    scalar = valid[0] * valid[1] if period > 1 and axis == "row" else 0
    k = Kernel([], ["TSCATTER"], label, f"{dtype} {pattern} src {rows}x{cols} valid {valid[0]}x{valid[1]}", scalar_cycles={"TSCATTER": scalar})
    k.alloc("s", src)
    k.alloc("d", dst)
    k.body.append(f'    pto.tscatter ins(%s, {{maskPattern = #pto.mask_pattern<{pattern}>}} : {src}, "{axis}") outs(%d : {dst})')
    return k


def trowarg(rng: random.Random) -> Kernel:
    """TROWARGMIN / TROWARGMAX, index only or value + index, into one-column DN outputs or
    row-major ones, over up to one repeat of columns, up to a repeat of repeats, or more."""
    dtype = rng.choice(["f16", "f32", "i16", "i32"])
    size = SIZES[dtype]
    per_repeat = REPEAT // size
    op = rng.choice(["trowargmin", "trowargmax"])
    with_values = rng.random() < 0.5
    stages = [(1, per_repeat), (per_repeat + 1, per_repeat**2), (per_repeat**2 + 1, per_repeat**2 + 2000)]
    fewest, most = rng.choice(stages)
    while True:
        valid = (rng.randint(1, 64), rng.randint(fewest, most))
        cols = align(valid[1], BLOCK // size)
        if fits(valid[0] * cols * size * 2, 2 * align(valid[0], 16) * BLOCK):  # src, tmp of its shape, two outputs
            break
    index_type = rng.choice(["i16", "i32"]) if with_values and size == 2 else "i32"

    def output(dtype: str) -> str:
        """A one-column DN tile, or a row-major one of one block a row (its valid column the first)."""
        if rng.random() < 0.5:
            return tile("vec", align(valid[0], BLOCK // SIZES[dtype]), 1, dtype, (valid[0], 1), ", blayout=col_major")
        return tile("vec", valid[0], BLOCK // SIZES[dtype], dtype, (valid[0], 1))

    src, idx = tile("vec", valid[0], cols, dtype, valid), output(index_type)
    outputs = [idx] + ([output(dtype)] if with_values else [])
    # TRowReduceIdxOps.hpp's scalar loops, one cycle a row and output: past one repeat of
    # columns (ProcReduceIdxStage1/2) every output, within one (ExtractValIdxFromTmp) a value
    # form's row-major outputs
    if valid[1] > per_repeat:
        scalar = valid[0] * len(outputs)
    else:
        scalar = valid[0] * sum(", blayout=col_major" not in t for t in outputs) if with_values else 0
    k = Kernel([], [op.upper()], f"{op} {'value+index' if with_values else 'index'}", f"{dtype} src {valid[0]}x{valid[1]} -> {', '.join(outputs)}",
               scalar_cycles={op.upper(): scalar})
    k.alloc("s", src)
    k.alloc("tm", src)
    k.alloc("i", idx)
    if with_values:
        k.alloc("v", outputs[1])
        k.body.append(f"    pto.{op} ins(%s, %tm : {src}, {src}) outs(%v, %i : {outputs[1]}, {idx})")
    else:
        k.body.append(f"    pto.{op} ins(%s, %tm : {src}, {src}) outs(%i : {idx})")
    return k


FORMS: dict[str, Callable[[random.Random], Kernel]] = {
    "tload": tload_tstore,
    "tload_mat": tload_mat,
    "tgather_index": tgather_index,
    "mgather_row": mgather_row,
    "tgather_mask": tgather_mask,
    "tgather_compare": tgather_compare,
    "tcolarg": tcolarg,
    "mgather_modes": mgather_modes,
    "mgather_elem": mgather_elem,
    "mscatter_row": mscatter_row,
    "mscatter_elem": mscatter_elem,
    "tscatter_index": tscatter_index,
    "tscatter_mask": tscatter_mask,
    "trowarg": trowarg,
}
REQUIRED_FORMS = ["tload", "tload_mat", "tgather_index", "mgather_row"]
"""The forms the cost model builds itself (the estimate's `pto-isa-costmodel`); the others go
through bench/costmodel_shims.hpp (`a2a3-header-sequence`). mgather_elem and mscatter_elem
differ by design: the cost model charges their scalar loop nothing and reports its fallback,
where the estimate charges each element a scalar cycle and each GM line a transfer
(docs/cost.md)."""


# ---------------------------------------------------------------------------
# The cost model: a copy of the checkout's headers with what they lack


def add_vector_count_mode(include: Path) -> None:
    trace = include / "pto/costmodel/trace.hpp"
    text, found = re.subn(r"(struct\s+TraceState\s*\{)", r"\1\n    bool vector_count_mode = false;", trace.read_text(), count=1)
    if not found:
        sys.exit(f"error: no struct TraceState in {trace}")
    trace.write_text(text)


@dataclass(frozen=True)
class Missing:
    """Something pto-isa's cost model uses but does not have (a compiler error without it), added
    unless `present` (a regex) matches its headers: a declaration before any header (the driver's
    -include), or an edit of the copy."""

    name: str
    present: str
    declaration: str = ""
    edit: Callable[[Path], None] | None = None


MISSING = [
    Missing(
        # arch_config.hpp and lightweight_costmodel.hpp divide the frequency in Hz by it (MHz)
        "evaluator::kMicrosPerSecond",
        r"\bkMicrosPerSecond\s*=",
        "namespace pto::mocker::evaluator {\ninline constexpr long double kMicrosPerSecond = 1.0e6L;\n}",
    ),
    Missing(
        # EstimateBandwidthCycles (a2a3 cce_costmodel_core.hpp) names the evaluator namespace `ev`
        "the namespace alias ev",
        r"namespace\s+ev\s*=",
        "namespace pto::mocker::evaluator {\n}\nnamespace ev = ::pto::mocker::evaluator;",
    ),
    Missing(
        # the cost model's TMRGSORT wrappers take one; only common/pto_instr.hpp declares it, and
        # the cost model's pto_instr.hpp replaces that file
        "pto::MrgSortExecutedNumList",
        r"struct\s+MrgSortExecutedNumList",
        "namespace pto {\nstruct MrgSortExecutedNumList {\n    uint16_t mrgSortList0;\n    uint16_t mrgSortList1;\n"
        "    uint16_t mrgSortList2;\n    uint16_t mrgSortList3;\n};\n}",
    ),
    Missing(
        # trace.hpp's IsVectorCountMode / SetVectorCountMode read and write this member of TraceState
        "TraceState::vector_count_mode",
        r"\bbool\s+vector_count_mode\b",
        edit=add_vector_count_mode,
    ),
]
PRELUDE = "prelude.hpp"
FORMULA_GENERATORS = "include/pto/costmodel/{}/formula_costmodel/gen_formula_params_header.py"
"""pto-isa's CMake runs these to write the formula parameter headers the cost model includes."""


def drop_duplicate_runtime_stubs(include: Path) -> None:
    """get_coreid() and get_block_num() are defined by the CPU stubs (common/cpu_stub.hpp, which
    the cost model includes) and again by costmodel/common/runtime_util.hpp: the copy keeps the
    CPU stubs' definitions."""
    runtime_util, cpu_stub = include / "pto/costmodel/common/runtime_util.hpp", include / "pto/common/cpu_stub.hpp"
    defined = r"inline\s+\w+\s+({})\(\)\s*\{{[^}}]*\}}\n"
    text = runtime_util.read_text()
    for name in ("get_coreid", "get_block_num"):
        if re.search(defined.format(name), cpu_stub.read_text()) and re.search(defined.format(name), text):
            print(f"dropping from the copy: runtime_util.hpp's {name}, defined again by common/cpu_stub.hpp")
            text = re.sub(defined.format(name), "", text)
    runtime_util.write_text(text)


def prepare_cost_model(pto_isa: Path, work: Path) -> Path:
    """Copy the checkout's include/ into WORK/pto-isa, complete it; returns the copy's include/."""
    include = work / "pto-isa" / "include"
    shutil.rmtree(include.parent, ignore_errors=True)
    shutil.copytree(pto_isa / "include", include)
    for arch in ("a2a3", "a5"):
        subprocess.run([sys.executable, str(include.parent / FORMULA_GENERATORS.format(arch))], check=True)
    headers = "\n".join(p.read_text(errors="replace") for p in (include / "pto/costmodel").rglob("*.hpp"))
    lacking = [m for m in MISSING if not re.search(m.present, headers)]
    for m in lacking:
        print(f"adding to the copy: {m.name}")
        if m.edit:
            m.edit(include)
    drop_duplicate_runtime_stubs(include)
    declarations = "\n\n".join(m.declaration for m in lacking if m.declaration)
    (work / PRELUDE).write_text(
        f"// What the cost model of {pto_isa} lacks (bench/costmodel_diff.py, MISSING)\n"
        f"#pragma once\n#include <cstdint>\n\n{declarations}\n"
    )
    shutil.copy(SHIMS, work / SHIMS.name)
    return include


def compile_flags(include: Path, work: Path) -> list[str]:
    """pto-isa's tests/costmodel build (-D__COSTMODEL for a2a3, a vector core), without gtest."""
    return [
        "-std=c++23", "-O0", "-D__COSTMODEL", "-D__NPU_ARCH__=2201", "-D__DAV_VEC__", "-DPTO_COMM_NOT_SUPPORTED",
        "-Wno-ignored-attributes", "-include", "stdint.h", "-include", "stddef.h", "-include", str(work / PRELUDE),
        f"-I{include}/pto/costmodel/stubs", f"-I{include}", f"-I{include}/common",
        "-no-pie",  # the compare form takes tile addresses to 32 bits: costmodel_shims.hpp's on-chip memory
    ]  # fmt: skip


DRIVER = r"""
#include <cstdio>
#include <utility>
#include <vector>

template <typename... P, std::size_t... I>
void call(void (*kernel)(P...), std::vector<std::vector<char>>& buffers, std::index_sequence<I...>)
{
    kernel(reinterpret_cast<P>(buffers[I].data())...);
}

template <typename... P>
void run_case(const char* name, void (*kernel)(P...))
{
    std::vector<std::vector<char>> buffers(sizeof...(P), std::vector<char>(@BYTES@, 0));
    costmodel_diff::ClearOnChip();
    pto::mocker::ResetTrace();
    call(kernel, buffers, std::index_sequence_for<P...>{});
    for (const auto& record : pto::mocker::GetTrace().executed_pto) {
        if (record.name != "TASSIGN") {
            std::printf("%s %s %llu\n", name, record.name.c_str(), (unsigned long long)record.total_cycles);
        }
    }
}

int main()
{
@CALLS@
}
"""


# ---------------------------------------------------------------------------
# Running a batch


def batch_module(kernels: list[Kernel], names: list[str], target: str = "a2a3") -> str:
    functions = "\n".join(k.text(n) for k, n in zip(kernels, names))
    return f'module attributes {{pto.target_arch = "{target}"}} {{\n{functions}\n}}\n'


def pto_opt(*args: str) -> subprocess.CompletedProcess:
    """This tree's pto-opt, in the current interpreter."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, "-m", "pto_tools.pto_opt", *args], capture_output=True, text=True, check=False, env=env)


def estimates_by_function(estimate: dict, module: str, names: list[str]) -> dict[str, list[tuple[str, int, str]]]:
    """name -> [(INSTRUCTION, cycles, model)] of the estimate's ops in that function, in order
    (an op belongs to the last function starting before its line)."""
    first_line = {n: next(i for i, line in enumerate(module.splitlines(), 1) if f"func.func @{n}(" in line) for n in names}
    by_line = sorted(names, key=first_line.__getitem__)
    found: dict[str, list] = {n: [] for n in names}
    for op in estimate["ops"]:
        line = int(op["loc"].split(":")[-2])
        owner = [n for n in by_line if first_line[n] <= line][-1]
        found[owner].append((op["op"].removeprefix("pto.").upper(), op["cycles"], op["model"]))
    return found


def estimate_and_emit(module: str, batch: Path, target: str) -> tuple[dict, str] | str:
    """The batch's estimate (its JSON) and C++ (tiles with addresses), written to `batch`, or
    the error that stopped pto-opt."""
    batch.mkdir(parents=True, exist_ok=True)
    source = batch / "batch.pto"
    source.write_text(module)
    estimated = pto_opt(str(source), "--target", target, "--estimate=json")
    if estimated.returncode:
        return f"pto-opt --estimate=json: {estimated.stderr}"
    (batch / "estimate.json").write_text(estimated.stdout)
    emitted = pto_opt(str(source), "--target", target, "-p", "pto-plan-memory", "--to=cpp")
    if emitted.returncode:
        return f"pto-opt --to=cpp: {emitted.stderr}"
    return json.loads(estimated.stdout), emitted.stdout


def run_driver(driver: Path, batch: Path, names: list[str]) -> dict[str, list[tuple[str, int]]] | str:
    """name -> [(INSTRUCTION, cycles)] as the driver prints them (`name INSTRUCTION cycles`)."""
    ran = subprocess.run([str(driver)], capture_output=True, text=True, check=False)
    if ran.returncode:
        return f"driver exit {ran.returncode}: {ran.stderr[-2000:]}"
    (batch / "costmodel.txt").write_text(ran.stdout)
    model: dict[str, list[tuple[str, int]]] = {n: [] for n in names}
    for line in ran.stdout.splitlines():
        name, instruction, cycles = line.split()
        model[name].append((instruction, int(cycles)))
    return model


def differential_batch(kernels: list[Kernel], names: list[str], batch: Path, target: str, build: Callable[[str, str], str | None]):
    """name -> (cost model [(INSTRUCTION, cycles)], estimate [(INSTRUCTION, cycles, model)]),
    or the error that stopped the batch. `build(the emitted C++, the driver's run_case calls)`
    writes and builds `batch/driver`, returning the error that stopped it."""
    module = batch_module(kernels, names, target)
    done = estimate_and_emit(module, batch, target)
    if isinstance(done, str):
        return done
    estimate, cpp = done
    error = build(cpp, "\n".join(f'    run_case("{n}", {n});' for n in names))
    if error is not None:
        return error
    model = run_driver(batch / "driver", batch, names)
    if isinstance(model, str):
        return model
    ours = estimates_by_function(estimate, module, names)
    return {n: (model[n], ours[n]) for n in names}


def run_batch(kernels: list[Kernel], names: list[str], batch: Path, work: Path, flags: list[str]):
    """differential_batch on a2a3: the C++ with the shims, built by g++."""

    def build(cpp: str, calls: str) -> str | None:
        (batch / "kernels.cpp").write_text(cpp)
        driver = DRIVER.replace("@BYTES@", str(GM_BUFFER_BYTES)).replace("@CALLS@", calls)
        (batch / "driver.cpp").write_text(f'#include "{work / SHIMS.name}"\n#include "kernels.cpp"\n{driver}')
        built = subprocess.run(["g++", *flags, str(batch / "driver.cpp"), "-o", str(batch / "driver")], capture_output=True, text=True, check=False)
        return f"g++: {built.stderr[-4000:]}" if built.returncode else None

    return differential_batch(kernels, names, batch, "a2a3", build)


def run_batches(names: list[str], size: int, jobs: int, run: Callable[[list[str], int], dict | str]) -> tuple[dict, list[str]]:
    """`run(names of a batch, its number)` over batches of `size`, `jobs` at once: the results
    by name and each failed batch's error."""
    batches = [names[b : b + size] for b in range(0, len(names), size)]
    with ThreadPoolExecutor(jobs) as pool:
        outcomes = list(pool.map(run, batches, range(len(batches))))
    results = {n: r[n] for r in outcomes if isinstance(r, dict) for n in r}
    errors = [f"batch{b:03d} ({batches[b][0]}..{batches[b][-1]}): {r}" for b, r in enumerate(outcomes) if isinstance(r, str)]
    return results, errors


def conclude(work: Path, keep: bool, agreed: int, compared: int, cases: tuple[int, int], disagreements: list[str], errors: list[str]) -> int:
    """Writes the disagreements and errors, prints the count; exit 0 (the work dir removed
    unless `keep`) only when all agree. `cases`: (compared, drawn)."""
    (work / "disagreements.txt").write_text("\n".join(disagreements))
    (work / "errors.txt").write_text("\n".join(errors))
    print(f"agree {agreed} of {compared} instructions ({cases[0]} cases); cases in batches that failed: {cases[1] - cases[0]}")
    for error in errors:
        print(error, file=sys.stderr)
    if agreed == compared and not errors:
        if not keep:
            shutil.rmtree(work)
        return 0
    print(f"disagreements and errors: {work / 'disagreements.txt'}, {work / 'errors.txt'}")
    return 1


# ---------------------------------------------------------------------------


def generate(forms: list[str], n: int, seed: int) -> dict[str, Kernel]:
    """n cases named c0000..., the forms taken in turn."""
    rng = random.Random(seed)
    return {f"c{i:04d}": FORMS[forms[i % len(forms)]](rng) for i in range(n)}


def common_options(p: argparse.ArgumentParser, n: int, seed: int, batch: int) -> None:
    """The options a differential against a pto-isa cost model takes, with its defaults."""
    p.add_argument("--pto-isa", type=Path, required=True, help="a pto-isa checkout (only read)")
    p.add_argument("--work", type=Path, help="the work dir (default: a temporary one, kept when not all agree)")
    p.add_argument("--n", type=int, default=n, help=f"cases (default {n})")
    p.add_argument("--seed", type=int, default=seed)
    p.add_argument("--jobs", type=int, default=2, help="batches built at once")
    p.add_argument("--batch", type=int, default=batch, help="cases per C++ build")


def checked(p: argparse.ArgumentParser, args: argparse.Namespace, kind: str, chosen: str, known: Mapping[str, object]) -> argparse.Namespace:
    """`args`, its counts positive and its comma-separated `chosen` `kind` all `known`."""
    if min(args.n, args.jobs, args.batch) < 1:
        p.error("--n, --jobs and --batch take a positive count")
    unknown = [f for f in chosen.split(",") if f not in known]
    if unknown:
        p.error(f"unknown {kind} {', '.join(unknown)}; known: {', '.join(known)}")
    return args


def options(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    common_options(p, n=240, seed=11, batch=40)
    p.add_argument("--forms", default=",".join(REQUIRED_FORMS), help=f"of {', '.join(FORMS)} (default: {','.join(REQUIRED_FORMS)})")
    args = p.parse_args(argv)
    return checked(p, args, "forms", args.forms, FORMS)


def compare(kernels: dict[str, Kernel], results: dict[str, tuple[list, list]]):
    """(form, instruction, estimate model, whether a scalar charge was added) -> [agree,
    disagree, scalar cycles added], and the disagreements with their kernels."""
    tally: dict[tuple[str, str, str, bool], list[int]] = {}
    disagreements = []
    for name, (model, ours) in results.items():
        k = kernels[name]
        for i, instruction in enumerate(k.instructions):
            theirs = model[i] if i < len(model) else None
            mine = ours[i] if i < len(ours) else None
            scalar = k.scalar_cycles.get(instruction, 0)
            agree = theirs is not None and mine is not None and theirs[0] == mine[0] == instruction and theirs[1] + scalar == mine[1]
            row = tally.setdefault((k.label, instruction, mine[2] if mine else "?", scalar > 0), [0, 0, 0])
            row[0 if agree else 1] += 1
            row[2] += scalar
            if not agree:
                disagreements.append(
                    f"{name} {instruction}: cost model {theirs} + scalar loops {scalar}, estimate {mine}; {k.label}, {k.details}\n{k.text(name)}\n"
                )
    return tally, disagreements


def main(argv: list[str] | None = None) -> int:
    args = options(argv)
    if shutil.which("g++") is None:
        sys.exit("error: g++ not found")
    if not (args.pto_isa / "include/pto/costmodel").is_dir():
        sys.exit(f"error: {args.pto_isa} is not a pto-isa checkout with a cost model (no include/pto/costmodel)")
    work = (args.work or Path(tempfile.mkdtemp(prefix="costmodel_diff-"))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    flags = compile_flags(prepare_cost_model(args.pto_isa.resolve(), work), work)
    kernels = generate(args.forms.split(","), args.n, args.seed)

    def run(names: list[str], b: int):
        return run_batch([kernels[n] for n in names], names, work / f"batch{b:03d}", work, flags)

    results, errors = run_batches(list(kernels), args.batch, args.jobs, run)
    tally, disagreements = compare(kernels, results)
    print("compared to: the cost model's cycles, plus (+ scalar) the estimate's charge for scalar loops its mocks charge nothing")
    print(f"{'form':40} {'instruction':12} {'estimate model':22} {'compared to':22} {'agree':>6} {'disagree':>8} {'scalar cycles added':>19}")
    for (label, instruction, model_name, with_scalar), (agree, disagree, scalar) in sorted(tally.items()):
        compared_to = "cost model + scalar" if with_scalar else "cost model"
        print(f"{label:40} {instruction:12} {model_name:22} {compared_to:22} {agree:6} {disagree:8} {scalar:19}")
    agreed = sum(a for a, _, _ in tally.values())
    compared = sum(a + d for a, d, _ in tally.values())
    return conclude(work, args.work is not None, agreed, compared, (len(results), len(kernels)), disagreements, errors)

if __name__ == "__main__":
    sys.exit(main())
