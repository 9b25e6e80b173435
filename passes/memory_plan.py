"""
Where tiles live in on-chip memory: live ranges, the planner behind
`pto-plan-memory`, and the checks of hand-written addresses that
`pto-opt --target T` runs by default.

A tile is live from its `pto.alloc_tile` to its last use; a use inside a
region (a section, an `scf.for` body) keeps the tile live until the end of the
op holding that region, in the block where the tile was allocated. Positions
are the ops' indices in a pre-order walk of the function.

A `func.call` holds every tile of its callee (and of the callee's callees) at
the callee's addresses for the instant of the call, so a caller's tile live
across the call never shares bytes with them. Callees are therefore planned
before their callers, and the call graph must be acyclic.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation, SSAValue
from xdsl.traits import SymbolTable

from lowering.a5 import MGatherElemSimtOp, MGatherRowSimtOp
from pto_dialect.diagnostics import PtoError
from pto_dialect.ops import AllocTileOp, MGatherOp, TAssignOp
from pto_dialect.ops.memory import TILE_ADDRESS_ALIGNMENT, constant_index
from pto_dialect.targets import A5_SIMT_DEFAULT_UB_BYTES, A5_SIMT_UB_BYTES, ON_CHIP_BYTES, Target
from pto_dialect.types import TileTypeBase

SPACE_NAMES = {"vec": "UB", "mat": "L1"}
DYN_UBUF_ATTR = "pto.dyn_ubuf_size"


@dataclass
class Buffer:
    """One tile placement (an alloc_tile, a tassign moving a tile, or a callee's tile held
    by a func.call): its space, size, live range and (once known) address."""

    op: AllocTileOp | TAssignOp | func.CallOp
    space: str
    size: int
    start: int
    end: int
    addr: int | None
    label: str
    """`%t`, `tile at FILE:LINE:COL` for a value without a name, `%t of @callee` for a call."""
    moved_from: Buffer | None = None
    """For a tassign: the placement of the same tile it replaces."""

    @property
    def name(self) -> str:
        """`tile %t`, or `tile at FILE:LINE:COL` (sentences)."""
        return self.label if self.label.startswith("tile ") else f"tile {self.label}"

    @property
    def is_callee_tile(self) -> bool:
        return isinstance(self.op, func.CallOp)

    def live_with(self, other: Buffer) -> bool:
        if self.moved_from is other or other.moved_from is self:
            return False  # one tile, before and after its tassign
        return self.start <= other.end and other.start <= self.end

    def overlaps(self, other: Buffer) -> bool:
        assert self.addr is not None and other.addr is not None
        return self.addr < other.addr + other.size and other.addr < self.addr + self.size


def _where(op: Operation) -> str:
    from pto_dialect.diagnostics import op_location

    return op_location(op) or op.name


def buffers_of(f: func.FuncOp) -> list[Buffer]:
    """Every tile placement in `f` with its live range, in program order; a call stands
    for its callee's tiles (addresses as they now stand in the callee)."""
    return _buffers_of(f, ())


def _buffers_of(f: func.FuncOp, callers: tuple[func.FuncOp, ...]) -> list[Buffer]:
    ordered = list(f.walk())
    position = {op: i for i, op in enumerate(ordered)}
    last_inside: dict[Operation, int] = {}
    for op in reversed(ordered):  # nested ops come after their parent in pre-order
        last_inside[op] = max([position[op], *(last_inside[c] for r in op.regions for b in r.blocks for c in b.ops)])
    out: list[Buffer] = []
    by_value: dict[SSAValue, Buffer] = {}
    for op in ordered:
        if isinstance(op, func.CallOp):
            callee = _callee(op, (*callers, f))
            if callee is not None:
                at = position[op]
                for inner in _buffers_of(callee, (*callers, f)):
                    label = inner.label if inner.is_callee_tile else f"{inner.label} of @{callee.sym_name.data}"
                    out.append(Buffer(op, inner.space, inner.size, at, at, inner.addr, label))
            continue
        if not isinstance(op, AllocTileOp | TAssignOp):
            continue
        end = position[op]
        for use in op.result.uses:
            user: Operation | None = use.operation
            while user is not None and user.parent_block() is not op.parent_block():
                user = user.parent_op()
            if user is not None:
                end = max(end, last_inside[user])
        addr = constant_index(op.addr) if op.addr is not None else None
        tile = op.result.type
        assert isinstance(tile, TileTypeBase)
        moved = by_value.get(op.tile) if isinstance(op, TAssignOp) else None
        hint = op.result.name_hint
        label = f"%{hint}" if hint else f"tile at {_where(op)}"
        buffer = Buffer(op, tile.loc.data, tile.size_bytes, position[op], end, addr, label, moved)
        by_value[op.result] = buffer
        out.append(buffer)
    return out


def _callee(call: func.CallOp, callers: tuple[func.FuncOp, ...]) -> func.FuncOp | None:
    """The function a call enters, if it has a body; a cycle in the call graph is an error."""
    callee = SymbolTable.lookup_symbol(call, call.callee)
    if not isinstance(callee, func.FuncOp) or not callee.body.blocks:
        return None
    if callee in callers:
        raise PtoError.at_op(
            call, f"recursive call to @{callee.sym_name.data}: tiles can only be placed when the call graph is acyclic"
        )
    return callee


def functions_callees_first(module: Operation) -> list[func.FuncOp]:
    """Every function with a body, each after the functions it calls."""
    out: list[func.FuncOp] = []
    seen: set[func.FuncOp] = set()

    def visit(f: func.FuncOp, callers: tuple[func.FuncOp, ...]) -> None:
        if f in seen:
            return
        for call in f.walk():
            if isinstance(call, func.CallOp) and (callee := _callee(call, (*callers, f))) is not None:
                visit(callee, (*callers, f))
        seen.add(f)
        out.append(f)

    for f in module.walk():
        if isinstance(f, func.FuncOp) and f.body.blocks:
            visit(f, ())
    return out


def budget(f: func.FuncOp, space: str, target: Target) -> tuple[int, str]:
    """Bytes a function may use in `space`, and why (for messages)."""
    total = ON_CHIP_BYTES[space][target]
    if space != "vec" or target != "a5" or not _launches_simt_mgather(f):
        return total, f"the {SPACE_NAMES[space]} of target {target} ({total} bytes)"
    declared = f.attributes.get(DYN_UBUF_ATTR)
    if declared is None:
        return A5_SIMT_DEFAULT_UB_BYTES, (
            f"the {A5_SIMT_DEFAULT_UB_BYTES} bytes of UB a SIMT MGATHER kernel gets on a5 without "
            f"{DYN_UBUF_ATTR} (at most {A5_SIMT_UB_BYTES})"
        )
    if not isinstance(declared, IntegerAttr) or declared.value.data < 0:
        raise PtoError.at_op(f, f"{DYN_UBUF_ATTR} must be a non-negative integer byte count, got {declared}")
    size = declared.value.data
    if size > A5_SIMT_UB_BYTES:
        raise PtoError.at_op(
            f, f"{DYN_UBUF_ATTR} = {size} exceeds the {A5_SIMT_UB_BYTES} bytes of UB a SIMT MGATHER kernel can have on a5"
        )
    return size, f"the {size} bytes of UB declared by {DYN_UBUF_ATTR} for a SIMT MGATHER kernel on a5"


def _launches_simt_mgather(f: func.FuncOp) -> bool:
    """a5 runs GM->UB MGATHER as a SIMT launch, except the (1, 1) elem case; lowered IR
    names the launch."""
    for op in f.walk():
        if isinstance(op, MGatherRowSimtOp | MGatherElemSimtOp):
            return True
        if isinstance(op, MGatherOp) and not op.is_gm_to_l1:
            dst = op.dst.type
            assert isinstance(dst, TileTypeBase)
            if op.coalesce is None or op.coalesce.data.value == "row" or dst.valid_shape != (1, 1):
                return True
    return False


def check_manual_addresses(module: Operation, target: Target) -> None:
    """Hand-placed tiles: inside the memory, and not over another tile live at the same time."""
    for f in functions_callees_first(module):
        placed = [b for b in buffers_of(f) if b.addr is not None and b.space in ON_CHIP_BYTES]
        for b in placed:
            limit, what = budget(f, b.space, target)
            if b.addr + b.size > limit:
                raise PtoError.at_op(b.op, f"{b.name} ends at byte {b.addr + b.size}, beyond {what}")
        for i, a in enumerate(placed):
            for b in placed[i + 1 :]:
                if a.space == b.space and a.live_with(b) and a.overlaps(b):
                    raise PtoError.at_op(
                        b.op,
                        f"{b.name} at bytes [{b.addr}, {b.addr + b.size}) overlaps {a.name} "
                        f"at [{a.addr}, {a.addr + a.size}) while both are live",
                    )


def plan_function(f: func.FuncOp, target: Target) -> list[Buffer]:
    """Give every unaddressed tile the lowest aligned address free for its whole live range."""
    buffers = buffers_of(f)
    placed = [b for b in buffers if b.addr is not None]
    for b in sorted((b for b in buffers if b.addr is None), key=lambda b: (b.start, -b.size)):
        if b.space not in ON_CHIP_BYTES or not isinstance(b.op, AllocTileOp):
            continue
        align = TILE_ADDRESS_ALIGNMENT.get(b.space, 32)
        addr = 0
        for other in sorted((o for o in placed if o.space == b.space and o.live_with(b)), key=lambda o: o.addr):
            if addr + b.size <= other.addr:
                break
            addr = max(addr, -(-(other.addr + other.size) // align) * align)
        b.addr = addr
        limit, what = budget(f, b.space, target)
        if addr + b.size > limit:
            live = sorted((o for o in placed if o.space == b.space and o.live_with(b)), key=lambda o: -o.size)
            largest = ", ".join(f"{o.label} ({o.size} bytes)" for o in [b, *live][:4])
            raise PtoError.at_op(
                b.op,
                f"{SPACE_NAMES[b.space]} overflow: needs {addr + b.size} bytes, target {target} has "
                f"{limit}; live tiles: {largest} (limit: {what})",
            )
        placed.append(b)
    return buffers


def plan_table(f: func.FuncOp, buffers: list[Buffer], target: Target) -> str:
    """The plan of one function as a small markdown table, with the peak per space."""
    lines = [f"memory plan of @{f.sym_name.data} (target {target})", "", "| tile | space | bytes | address | live |", "|---|---|---|---|---|"]
    for b in buffers:
        addr = "-" if b.addr is None else str(b.addr)
        lines.append(f"| {b.label} | {b.space} | {b.size} | {addr} | {b.start}..{b.end} |")
    if not buffers:
        lines.append("| (no tiles) | | | | |")
    for space in sorted({b.space for b in buffers if b.addr is not None}):
        peak = max(b.addr + b.size for b in buffers if b.space == space and b.addr is not None)
        limit, _ = budget(f, space, target)
        lines.append(f"peak {SPACE_NAMES.get(space, space)} use: {peak} of {limit} bytes")
    return "\n".join(lines) + "\n"


def memory_plan_report(module: Operation, target: Target) -> str:
    """`--print-memory-plan`: the table of every function (addresses as they now stand)."""
    functions = [f for f in module.walk() if isinstance(f, func.FuncOp) and f.body.blocks]
    return "".join("\n" + plan_table(f, buffers_of(f), target) for f in functions)
