"""
TPRINT: print a tile or a GM view from inside a kernel, for debugging (pto-isa's
TPRINT.md). It reads its operand and writes only to the output stream, so besides the
read its op declares a write of an unknown resource: `dce` keeps it, `cse` never merges two.

        pto.tprint ins(%src : !pto.tile_buf<...> | !pto.partition_tensor_view<...>)
        pto.tprint %src : !pto.tile<...> -> ()          (SSA spelling; printed in DPS form)

What each target prints (pto-isa's TPrint.hpp): the CPU simulator prints the valid region of
a tile of any memory; the NPUs (a5 includes a2a3's header) print a Vec tile whole, with `|`
after the last valid column and a dashed line after the last valid row, and a GM view
(ND, DN or NZ) whole. Tiles of other memories need a GM tmp on the NPUs. The NPUs read a boxed
tile through pto_tile.hpp's GetTileOffset, which misses an Nz tile with a partial box of rows and
more than one column of boxes (it would print other elements than the tile's): refused there. `pto-run` writes each
print on stderr: the op's location, each enclosing loop's induction variable, then the values in NumPy's formatting (summarised when large), whatever
the op's printFormat (`{printFormat = #pto<print_format width10_precision6>}`, pto-isa's printf
width and precision), which is kept and is TPRINT's template argument in C++. The form with a GM
tmp, `ins(%src, %tmp : T, !pto.partition_tensor_view<...>)`, is not implemented here.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, opt_prop_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from pto_dialect.attributes import GmLayout, PrintFormatAttr
from pto_dialect.choices import Choice, PrintRegion
from pto_dialect.cost import CceMachine, InstructionCost, OpCost, SimulatorMachine, VfMachine, Work, simulator_loop
from pto_dialect.diagnostics import not_implemented
from pto_dialect.dtypes import ELEMENT_TYPES
from pto_dialect.facts import TileFacts, ViewFacts, require, require_type, spell
from pto_dialect.instruction import DocsCells, Emission, Instruction, Pipe, RuleRow
from pto_dialect.machine import GmView, Site, Tile, np
from pto_dialect.ops.common import OperandEffects, operand_of_role
from pto_dialect.instructions.operands import taking
from pto_dialect.types import PartitionTensorViewType, TileTypeBase

# ---------------------------------------------------------------------------
# What each target accepts


@dataclass(frozen=True)
class TPrintRules(RuleRow):
    """One target's TPRINT rules."""

    tile_locs: frozenset[str]
    """The memories of the tiles it prints."""
    view_layouts: tuple[GmLayout, ...]
    """The layouts of the GM views it prints (none: it prints tiles only)."""
    element_types: frozenset[str]
    print_region: PrintRegion
    """What it prints of a tile."""
    reads_get_tile_offset: bool
    """Whether it reads a boxed tile through pto_tile.hpp's GetTileOffset (the NPUs' TPrint.hpp),
    which misses some layouts and shapes (TileParams.get_tile_offset_problem): those are refused, as
    a print of other elements than the tile's, else the tile's own offsets (cpu/tile_offsets.hpp)."""
    note: str

    def check(self, operands: dict, attrs: Mapping[str, Attribute]) -> None:
        src = operands["src"]
        if isinstance(src, ViewFacts):
            require(bool(self.view_layouts), "expects src to be a tile: this target prints tiles only, got a GM view")
            layout = src.layout or GmLayout.ND
            require(
                layout in self.view_layouts,
                f"expects a GM view of layout {'/'.join(self.view_layouts)}, got {layout}",
            )
        else:
            assert isinstance(src, TileFacts)
            require(
                src.loc in self.tile_locs,
                f"expects src to be a {'/'.join(sorted(self.tile_locs))} tile, got loc={src.loc}",
            )
            missed = src.get_tile_offset_problem() if self.reads_get_tile_offset else None
            require(missed is None, f"expects src's elements where this target's TPrint.hpp reads them: {missed}")
        require_type("src", src.elem, self.element_types)

    DOCS: ClassVar[DocsCells] = (
        ("src tile memories", lambda r: ", ".join(sorted(r.tile_locs))),
        ("src GM view layouts", lambda r: ", ".join(r.view_layouts) or "none (tiles only)"),
        ("src element type", lambda r: spell(r.element_types)),
        ("printed of a tile", lambda r: r.print_region.phrase),
        ("boxed src read at", lambda r: "pto_tile.hpp's GetTileOffset: Nz (rows in whole boxes, or one column of boxes), Zn or Zz"
         if r.reads_get_tile_offset else "its storage offsets (cpu/tile_offsets.hpp)"),
        ("why", lambda r: r.note),
    )


def print_choices(rules: TPrintRules) -> dict[str, Choice]:
    """What a target's TPRINT prints, recorded on the pto.tprint its lowering keeps."""
    return {"print_region": rules.print_region}


# ---------------------------------------------------------------------------
# The kernel


def tprint(o: dict, *, print_region: PrintRegion, site: Site) -> None:
    """Write the operand on stderr, located."""
    sys.stderr.write(print_text(o["src"], print_region, site))


def print_text(src: Tile | GmView, region: PrintRegion, site: Site) -> str:
    loops = ", ".join(f"{name} = {value}" for name, value in site.loops)
    head = f"{site.location}: pto.tprint" + (f" (iteration {loops})" if loops else "")
    if isinstance(src, GmView):
        shape = "x".join(map(str, src.shape))
        window = src.array()
        assert window is not None, "a GM view printed at one iteration"
        return f"{head}: {shape}x{_spelling(src.buffer.dtype)} GM view\n{np.array2string(window)}\n"
    rows, cols = src.type.shape
    what = f"{rows}x{cols}x{src.type.element.mlir} {src.type.loc.data} tile, valid {src.valid_row}x{src.valid_col}"
    match region:
        case PrintRegion.VALID:
            body = np.array2string(src.read_valid())
        case PrintRegion.WHOLE:
            body = marked(src.values, src.valid_row, src.valid_col)
    return f"{head}: {what}\n{body}\n"


def _spelling(dtype: np.dtype) -> str:
    """A GM buffer's element type as PTO spells it (a view holds no type of its own)."""
    return next((e.mlir for e in ELEMENT_TYPES.values() if e.dtype_name == dtype.name), dtype.name)


def marked(values: np.ndarray, valid_rows: int, valid_cols: int) -> str:
    """A 2-D array in NumPy's formatting (summarised as NumPy does when large), `|` after
    the last valid column and a `-` line after the last valid row."""
    rows, cols = values.shape
    if (valid_rows, valid_cols) == (rows, cols):
        return np.array2string(values)
    options = np.get_printoptions()
    summarise = values.size > options["threshold"]
    shown_rows = _shown(rows, options["edgeitems"], summarise)
    shown_cols = _shown(cols, options["edgeitems"], summarise)
    kept_rows = [r for r in shown_rows if r is not None]
    kept_cols = [c for c in shown_cols if c is not None]
    cells = _cells(values[np.ix_(kept_rows, kept_cols)])
    width = len(cells[0, 0]) if cells.size else 0
    row_of = {r: k for k, r in enumerate(kept_rows)}
    column_of = {c: k for k, c in enumerate(kept_cols)}

    bar_before = next((c for c in kept_cols if c >= valid_cols), None)

    def tokens(row: int | None) -> list[str]:
        out = []
        for c in shown_cols:
            if c is not None and c == bar_before:
                out.append("|")
            if c is None:
                out.append("...")
            elif row is None:
                out.append("-" * width)
            else:
                out.append(cells[row_of[row], column_of[c]])
        return out

    lines = []
    first_invalid = next((r for r in kept_rows if r >= valid_rows), None)
    for r in shown_rows:
        if r is not None and r == first_invalid:
            lines.append("  " + "-".join("+" if t == "|" else "-" * len(t) for t in tokens(None)))
        lines.append(" ..." if r is None else " [" + " ".join(tokens(r)) + "]")
    lines[0] = "[" + lines[0][1:]
    return "\n".join(lines) + "]"


def _shown(n: int, edge: int, summarise: bool) -> list[int | None]:
    """The indices NumPy shows along an axis of n; None for the elided middle."""
    if not summarise or n <= 2 * edge:
        return list(range(n))
    return [*range(edge), None, *range(n - edge, n)]


_SEPARATOR = "\x1f"


def _cells(values: np.ndarray) -> np.ndarray:
    """Each element as NumPy prints it within this array, all of one width."""
    if values.size == 0:
        return np.empty(values.shape, dtype=object)
    text = np.array2string(values.reshape(-1), separator=_SEPARATOR, threshold=sys.maxsize, max_line_width=sys.maxsize)
    cells = text[1:-1].split(_SEPARATOR)
    width = max(map(len, cells))
    return np.array([c.rjust(width) for c in cells], dtype=object).reshape(values.shape)


# ---------------------------------------------------------------------------
# The op


@irdl_op_definition
class TPrintOp(taking("src", optional="tmp", outs=())):
    """
    Print a tile or a GM view (pto-isa's TPRINT.md); for debugging only.

        pto.tprint ins(%src : !pto.tile_buf<vec, 8x16xf32>)
    """

    name = "pto.tprint"

    traits = traits_def(OperandEffects(), MemoryWriteEffect())
    ACCEPTS_VALUE_TILES_IN_DPS: ClassVar[bool] = True
    KERNEL: ClassVar = staticmethod(tprint)

    src = operand_of_role("src")
    print_format = opt_prop_def(PrintFormatAttr, prop_name="printFormat")

    @classmethod
    def parse(cls, parser: Parser):
        if parser.parse_optional_keyword("ins") is None:
            return super().parse(parser)  # `%src : T -> ()`
        ins, attrs = cls.parse_dps_ins(parser)
        return cls.from_parts(ins, [], [], attrs | parser.parse_optional_attr_dict())

    def print(self, printer: Printer) -> None:
        self.print_dps_ins(printer)
        if attrs := self.printed_attributes():
            printer.print_string(" ")
            printer.print_attr_dict(attrs)

    def verify_operands(self) -> None:
        if len(self.ins) == 2:
            raise VerifyException(not_implemented("has a GM tmp operand (TPRINT(src, tmp))", "TPRINT with a GM tmp"))
        if not isinstance(self.src.type, TileTypeBase | PartitionTensorViewType):
            raise VerifyException(f"expects src to be a tile or a !pto.partition_tensor_view, got {self.src.type}")


# ---------------------------------------------------------------------------
# What it costs: the wait for every pipe; the prints themselves are debug output no
# machine model prices.


def _cce(op: TPrintOp, o: dict, machine: CceMachine, work: Work) -> OpCost:
    """npu/a2a3/TPrint.hpp: one pipe_barrier(PIPE_ALL), then printf calls, which the cost
    model's mocks charge nothing (cce_costmodel_debug.hpp)."""
    trace = machine.trace()
    trace.call()
    return trace.cost(Pipe.SCALAR, exact=False)


def _vf(op: TPrintOp, o: dict, machine: VfMachine, work: Work) -> OpCost:
    """npu/a5/TPrint.hpp (a2a3's code): one pipe_barrier(PIPE_ALL); the prints unpriced."""
    return machine.cost(Pipe.SCALAR, 0, int(machine.config_call.value))


# ---------------------------------------------------------------------------
# C++ and the registry entry


def emit(e: Emission, op: TPrintOp) -> None:
    """`TPRINT(src)` (`TPRINT<format>(src)` with a printFormat): pto-isa's TPRINT waits for every
    pipe itself (pipe_barrier(PIPE_ALL))."""
    call = "TPRINT" if op.print_format is None else f"TPRINT<{op.print_format.data.cpp}>"
    e.synchronised(e.call(call, [op.src]))


TPRINT = Instruction(
    rules=TPrintRules,
    stays=TPrintOp,
    emit=emit,
    pipe=Pipe.SCALAR,
    asm=None,
    cost=InstructionCost(on={CceMachine: _cce, VfMachine: _vf, SimulatorMachine: simulator_loop("src", "pto-isa cpu/TPrint.hpp: a loop over the tile's valid elements.", Pipe.SCALAR)}),
)


def print_lowering(rules: TPrintRules) -> dict[Instruction, Callable[[Any], tuple[None, dict[str, Choice]]]]:
    """A target's lowering-table entry of TPRINT: it stays a pto op, recording what the target prints."""
    return {TPRINT: lambda op: (None, print_choices(rules))}
"""Stays a pto op when lowered; each target records what it prints (`print_region`)."""
