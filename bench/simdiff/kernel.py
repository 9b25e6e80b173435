"""
What a generator builds: a `Case` (one kernel's `.pto` function and the initial contents of
every GM argument), with `Kernel`, a builder that loads the instruction's input tiles from GM,
runs it and stores its outputs back, so that the whole effect of the instruction is in GM,
where both the simulator and the interpreter expose it; and `values`, random data of an element
type mixed with its edge values.

    k = Kernel(rng, "TCOLARGMIN", "f32 src 7x50")
    src = Tile("vec", 8, 64, "f32", valid=(7, 50))
    idx = Tile("vec", 1, 64, "i32", valid=(1, 50))
    k.load("s", src, values(rng, "f32", (7, 50)))        # an input argument, tloaded
    k.alloc("tm", src)                                     # a tile nothing loads (scratch)
    k.load("i", idx)                                       # an output, loaded from random bits first
    k.op(f"pto.tcolargmin ins(%s, %tm : {src}, {src}) outs(%i : {idx})")
    k.store("i")                                           # a new output argument, tstored
    return k.case()
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable
from typing import Literal
from dataclasses import dataclass, field, replace

import numpy as np

from pto_dialect.dtypes import ELEMENT_TYPES

ELEMENTS = {info.mlir: info for info in ELEMENT_TYPES.values()}
"""Element type spelling -> what the project knows of it (bytes, family, NumPy dtype)."""
BLOCK = 32
"""Bytes of a UB block: a row-major tile's row (a col-major tile's column) is whole blocks."""
FRACTAL_ROWS = 16
"""Rows of an NZ fractal."""


def align(n: int, to: int) -> int:
    return -(-n // to) * to


def numpy_dtype(dtype: str) -> np.dtype:
    return ELEMENTS[dtype].numpy


def size_of(dtype: str) -> int:
    return ELEMENTS[dtype].bytes


def per_block(dtype: str) -> int:
    """Elements of `dtype` in a 32-byte block (a row-major tile's Cols are a multiple of it)."""
    return BLOCK // size_of(dtype)


@dataclass(frozen=True)
class Tile:
    """A `!pto.tile_buf` type: `layout` is "nd" (row-major), "dn" (col-major) or "nz"
    (col-major blocks of row-major fractals); `dynamic`: its valid shape `?x?`, given by the
    alloc_tile (checked at run time rather than by the verifier)."""

    loc: str
    rows: int
    cols: int
    dtype: str
    valid: tuple[int, int] | None = None
    layout: str = "nd"
    extra: str = ""
    """More of the type's parameters (`, pad=1`)."""
    dynamic: bool = False

    @property
    def valid_shape(self) -> tuple[int, int]:
        return self.valid or (self.rows, self.cols)

    def __str__(self) -> str:
        if self.dynamic:
            shown = ", valid=?x?"
        elif self.valid_shape != (self.rows, self.cols):
            shown = f", valid={self.valid_shape[0]}x{self.valid_shape[1]}"
        else:
            shown = ""
        layout = {"nd": "", "dn": ", blayout=col_major", "nz": ", blayout=col_major, slayout=row_major"}[self.layout]
        return f"!pto.tile_buf<{self.loc}, {self.rows}x{self.cols}x{self.dtype}{shown}{layout}{self.extra}>"


def maybe_pad(rng: random.Random, chance: float = 0.4) -> str:
    """At times a `pad` for a tile's type (1 zero, 2 max, 3 min: what a cpu TLOAD fills the
    tile with around the valid region, which an instruction reading the padding shows)."""
    return f", pad={rng.randint(1, 3)}" if rng.random() < chance else ""


def maybe_dynamic(rng: random.Random, tile: Tile, chance: float = 0.2) -> Tile:
    """The tile, at times with its valid shape given at run time instead (`valid=?x?`)."""
    return replace(tile, dynamic=True) if rng.random() < chance else tile


@dataclass
class Argument:
    """A kernel argument: a GM buffer (`!pto.ptr<dtype>`, `data` flat as the kernel addresses
    it) or a `scalar` (`data` 0-d), and what it holds, for the report: `role`, and `shape` /
    `order` to name a flat position as [row, col] (None: the flat index)."""

    dtype: str
    data: np.ndarray
    role: str
    scalar: bool = False
    shape: tuple[int, ...] | None = None
    order: Literal["C", "F"] = "C"

    @property
    def type(self) -> str:
        return self.dtype if self.scalar else f"!pto.ptr<{self.dtype}>"

    def position(self, flat: int) -> str:
        if self.shape is None:
            return f"[{flat}]"
        return f"{list(map(int, np.unravel_index(flat, self.shape, order=self.order)))} (flat {flat})"


@dataclass
class Case:
    """One kernel: `function(name)` is its `func.func @name`, `inputs` every argument's
    initial contents in argument order. `instruction` groups it in the report; the
    harness sets `form` (the generator that drew it)."""

    instruction: str
    details: str
    body: str
    arguments: list[Argument]
    form: str = ""

    def function(self, name: str) -> str:
        signature = ", ".join(f"%a{i}: {a.type}" for i, a in enumerate(self.arguments))
        return f"  func.func @{name}({signature}) {{\n{self.body}\n    return\n  }}"

    def module(self, name: str) -> str:
        return f"module {{\n{self.function(name)}\n}}\n"

    @property
    def inputs(self) -> list[np.ndarray]:
        return [a.data for a in self.arguments]

    def mentions(self, dtype: str) -> bool:
        """Whether an argument or a tile of the kernel has element type `dtype`."""
        return any(a.dtype == dtype for a in self.arguments) or re.search(rf"[x<]{dtype}\b", self.body) is not None


def whole_view(
    index: Callable[[int], str], arg: int, name: str, dtype: str, shape: list[int], strides: list[int], layout: str = "nd",
) -> tuple[list[str], str]:
    """The lines making %name, a partition view of the whole of a tensor view of GM argument
    `arg` (its constants named by `index`), and the partition view's type."""
    dims = "x".join("?" for _ in shape)
    attr = "" if layout == "nd" else f" {{layout = #pto.layout<{layout}>}}"
    sizes = ", ".join(index(d) for d in shape)
    steps = ", ".join(index(s) for s in strides)
    offsets = ", ".join(index(0) for _ in shape)
    view_type = f"!pto.tensor_view<{dims}x{dtype}>"
    lines = [
        f"    %{name}_tv = pto.make_tensor_view %a{arg}, shape = [{sizes}], strides = [{steps}]{attr} : {view_type}",
        f"    %{name} = pto.partition_view %{name}_tv, offsets = [{offsets}], sizes = [{sizes}] : {view_type}",
    ]
    return lines, f"!pto.partition_tensor_view<{'x'.join(map(str, shape))}x{dtype}>"


@dataclass
class Kernel:
    """Builds a Case: arguments, their views, tiles, the instruction, the stores."""

    rng: random.Random
    instruction: str
    details: str = ""
    arguments: list[Argument] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    tiles: dict[str, Tile] = field(default_factory=dict)
    consts: set[int] = field(default_factory=set)

    def index(self, n: int) -> str:
        self.consts.add(n)
        return f"%c{n}"

    def argument(self, dtype: str, data: np.ndarray, role: str, shape: tuple[int, ...] | None = None, order: Literal["C", "F"] = "C") -> int:
        flat = np.ascontiguousarray(data, numpy_dtype(dtype)).reshape(-1)
        self.arguments.append(Argument(dtype, flat, role, shape=shape, order=order))
        return len(self.arguments) - 1

    def scalar(self, dtype: str, value: float | int | np.generic, role: str = "scalar") -> str:
        """A scalar argument of `dtype` holding `value` (any bits: NaN payloads, -0.0, ...);
        returns its SSA name."""
        self.arguments.append(Argument(dtype, np.array(value, numpy_dtype(dtype)), role, scalar=True))
        return f"%a{len(self.arguments) - 1}"

    def view(
        self, name: str, dtype: str, shape: list[int], strides: list[int], data: np.ndarray, role: str, layout: str = "nd",
        positions: tuple[tuple[int, ...], Literal["C", "F"]] | None = None,
    ) -> str:  # fmt: skip
        """%name: a partition view of the whole of a new GM argument holding `data` (flat,
        as the strides address it); returns the view's type. `positions`: (shape, order)
        naming the argument's elements in reports (default: the view's shape, if dense)."""
        dense = strides == [math.prod(shape[i + 1 :]) for i in range(len(shape))]
        shown = positions or ((tuple(shape), "C") if dense else (None, "C"))
        arg = self.argument(dtype, data, role, *shown)
        lines, view_type = whole_view(self.index, arg, name, dtype, shape, strides, layout)
        self.lines += lines
        return view_type

    def tile_view(self, name: str, tile: Tile, logical: np.ndarray, role: str) -> str:
        """A view of the tile's valid shape in the tile's layout (what TLOAD / TSTORE take),
        over a new argument holding `logical` (valid rows x cols) in that layout's order."""
        rows, cols = tile.valid_shape
        logical = np.asarray(logical).reshape(rows, cols)
        if tile.layout == "nd":
            return self.view(name, tile.dtype, [rows, cols], [cols, 1], logical, role)
        if tile.layout == "dn":
            return self.view(name, tile.dtype, [rows, cols], [1, rows], logical.T, role, "dn", ((rows, cols), "F"))
        c0 = per_block(tile.dtype)
        assert rows % FRACTAL_ROWS == 0 and cols % c0 == 0, "an NZ view holds whole fractals"
        shape = [1, cols // c0, rows // FRACTAL_ROWS, FRACTAL_ROWS, c0]
        strides = [math.prod(shape[i + 1 :]) for i in range(5)]
        blocks = logical.reshape(rows // FRACTAL_ROWS, FRACTAL_ROWS, cols // c0, c0).transpose(2, 0, 1, 3)
        return self.view(name, tile.dtype, shape, strides, blocks, role, "nz", (tuple(shape), "C"))

    def alloc(self, name: str, tile: Tile, addr: int | None = None) -> None:
        """A tile; `addr`: placed by hand (two tiles at one address: an in-place form)."""
        self.tiles[name] = tile
        operands = ""
        if addr is not None:
            self.lines.append(f"    %{name}_addr = arith.constant {addr} : i64")
            operands += f" addr = %{name}_addr"
        if tile.dynamic:
            operands += f" valid_row = {self.index(tile.valid_shape[0])} valid_col = {self.index(tile.valid_shape[1])}"
        self.lines.append(f"    %{name} = pto.alloc_tile{operands} : {tile}")

    def load(self, name: str, tile: Tile, data: np.ndarray | None = None, addr: int | None = None) -> None:
        """A tile tloaded from a new argument holding `data` (its valid shape; default:
        random bits, for an output whose unwritten elements must survive)."""
        if name not in self.tiles:
            self.alloc(name, tile, addr)
        if data is None:
            data = garbage(self.rng, tile.dtype, tile.valid_shape)
        view = self.tile_view(f"{name}_in", tile, data, f"{name} in")
        self.lines.append(f"    pto.tload ins(%{name}_in : {view}) outs(%{name} : {tile})")

    def op(self, text: str) -> None:
        self.lines.append(f"    {text}")

    def ins(self, operands: list[tuple[str, Tile]], tmp: tuple[str, Tile] | None = None) -> str:
        """`ins(%a, ... : types)` of the tiles named; a tmp tile, given, allocated here and last."""
        if tmp is not None:
            self.alloc(*tmp)
            operands = [*operands, tmp]
        return f"ins({', '.join(f'%{name}' for name, _ in operands)} : {', '.join(str(tile) for _, tile in operands)})"

    def store(self, name: str) -> None:
        """The tile's valid region tstored to a new argument (first holding random bits)."""
        tile = self.tiles[name]
        view = self.tile_view(f"{name}_out", tile, garbage(self.rng, tile.dtype, tile.valid_shape), f"{name} out")
        self.lines.append(f"    pto.tstore ins(%{name} : {tile}) outs(%{name}_out : {view})")

    def into(self, dst: Tile, *ops: str) -> Case:
        """The case of `ops` writing `%d`: dst loaded first with random bits (what the ops leave
        unwritten must survive), stored after them."""
        self.load("d", dst)
        for text in ops:
            self.op(text)
        self.store("d")
        return self.case()

    def case(self) -> Case:
        consts = [f"    %c{n} = arith.constant {n} : index" for n in sorted(self.consts)]
        return Case(self.instruction, self.details, "\n".join(consts + self.lines), self.arguments)


# ---------------------------------------------------------------------------
# Data


def garbage(rng: random.Random, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    """Random bits of `dtype` (NaNs of any payload included)."""
    raw = np.random.default_rng(rng.getrandbits(64)).integers(0, 256, math.prod(shape) * size_of(dtype), dtype=np.uint8)
    return raw.view(numpy_dtype(dtype)).reshape(shape)


def float_edges(dtype: str) -> np.ndarray:
    """NaNs (quiet and signalling, with payloads, both signs), +-0, +-inf, the smallest and
    largest denormal, the smallest normal, the largest finite, +-1."""
    info = ELEMENTS[dtype]
    bits = info.bits
    mantissa = {16: 10 if dtype == "f16" else 7, 32: 23}[bits]
    sign = 1 << (bits - 1)
    inf = ((1 << (bits - 1 - mantissa)) - 1) << mantissa
    quiet = 1 << (mantissa - 1)
    patterns = [
        inf | quiet, inf | quiet | 1, inf | 1, inf | (quiet - 1), sign | inf | quiet | 5,  # NaNs
        0, sign, inf, sign | inf, 1, sign | 1, (1 << mantissa) - 1, 1 << mantissa, sign | (1 << mantissa),
        inf - 1, sign | (inf - 1),
    ]  # fmt: skip
    unsigned = np.array(patterns, dtype=f"u{info.bytes}")
    return np.concatenate([unsigned.view(info.numpy), np.array([1.0, -1.0]).astype(info.numpy)])


def int_edges(dtype: str) -> np.ndarray:
    limits = np.iinfo(numpy_dtype(dtype))
    return np.array(sorted({limits.min, limits.min + 1, -1 if limits.min else 2, 0, 1, limits.max - 1, limits.max}), numpy_dtype(dtype))


def values(rng: random.Random, dtype: str, shape: tuple[int, ...], edges: float = 0.15, ties: float = 0.3) -> np.ndarray:
    """Random values of `dtype`: a fraction `edges` of edge values (float_edges / int_edges),
    and a draw of few distinct values with probability `ties` (equal elements: which of
    them an arg-reduction picks)."""
    draw = np.random.default_rng(rng.getrandbits(64))
    n = math.prod(shape)
    info = ELEMENTS[dtype]
    if rng.random() < ties:
        pool = draw.integers(-3, 4, 4) if info.family != "uint" else draw.integers(0, 4, 4)
        data = pool[draw.integers(0, len(pool), n)].astype(info.numpy)
    elif info.is_integer:
        data = garbage(rng, dtype, (n,))
    else:
        scale = 10.0 ** draw.integers(-6, 6, n)
        with np.errstate(over="ignore"):  # beyond f16's range: inf, one more edge value
            data = (draw.standard_normal(n) * scale).astype(info.numpy)
    edge_values = int_edges(dtype) if info.is_integer else float_edges(dtype)
    chosen = draw.random(n) < edges
    data[chosen] = edge_values[draw.integers(0, len(edge_values), int(chosen.sum()))]
    return data.reshape(shape)
