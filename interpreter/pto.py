"""Interpretation of the pto ops that lowering keeps: views, tiles, tload/tstore, sections."""

from __future__ import annotations

from weakref import WeakKeyDictionary

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls

from xdsl.ir import Operation, SSAValue

from pto_dialect import ops as pto
from pto_dialect.types import PtrType, ShapedViewBase, TileTypeBase
from targets.rules.common import RuleViolation, TileFacts, ViewFacts, inferred_layout
from lowering.ops import PadFill, PadFillAttr, PadValue, PadValueAttr
from targets.rules.transfer import check_tload, check_tstore

from interpreter.memory import GmView, RuntimeFault, Tile
from interpreter.state import fault_at, run_state


def place_tile(interpreter: Interpreter, tile_type: TileTypeBase, addr: int | None, valid: tuple[int, int]) -> Tile:
    """A tile's storage: at `addr` in its on-chip memory, or a private zeroed buffer."""
    dtype = tile_type.element.numpy
    rows, cols = tile_type.shape
    for name, v, limit in (("valid_row", valid[0], rows), ("valid_col", valid[1], cols)):
        if not 0 <= v <= limit:
            raise RuntimeFault(f"{name} {v} is outside [0, {limit}] for a {rows}x{cols} tile")
    memory = run_state(interpreter).memory(tile_type.loc.data) if addr is not None else None
    if memory is None:
        return Tile.over(tile_type, np.zeros(rows * cols, dtype), valid)
    size = tile_type.size_bytes
    if addr < 0 or addr + size > memory.size:
        target = run_state(interpreter).target
        raise RuntimeFault(
            f"tile at byte {addr} ends at byte {addr + size}, beyond the "
            f"{tile_type.loc.data} memory of target {target} ({memory.size} bytes)"
        )
    return Tile.over(tile_type, memory[addr : addr + rows * cols * dtype.itemsize].view(dtype), valid)


@register_impls
class PtoFunctions(InterpreterFunctions):
    @impl(pto.MakeTensorViewOp)
    def run_make_tensor_view(self, interpreter: Interpreter, op: pto.MakeTensorViewOp, args: PythonValues):
        buffer, *rest = args
        rank = len(op.shape)
        assert isinstance(op.ptr.type, PtrType)
        return (GmView(buffer, 0, tuple(rest[:rank]), tuple(rest[rank:])),)

    @impl(pto.PartitionViewOp)
    def run_partition_view(self, interpreter: Interpreter, op: pto.PartitionViewOp, args: PythonValues):
        source, *rest = args
        assert isinstance(source, GmView)
        rank = len(rest) // 2  # offsets, then sizes (op.offsets would decode the segment sizes)
        sizes = tuple(rest[rank:])
        offset = source.offset
        for i, (o, s, d, st) in enumerate(zip(rest, sizes, source.shape, source.strides)):
            if o < 0 or s <= 0 or o + s > d:
                with fault_at(op):
                    raise RuntimeFault(f"partition at dim {i} (offset {o}, size {s}) is outside the source dim {d}")
            offset += o * st
        return (GmView(source.buffer, offset, sizes, source.strides),)

    @impl(pto.AllocTileOp)
    def run_alloc_tile(self, interpreter: Interpreter, op: pto.AllocTileOp, args: PythonValues):
        tile_type = op.tile
        values = iter(args)
        addr = next(values) if op.addr is not None else None
        vr, vc = tile_type.valid_shape
        if vr == DYNAMIC_INDEX:
            vr = next(values)
        if vc == DYNAMIC_INDEX:
            vc = next(values)
        with fault_at(op):
            return (place_tile(interpreter, tile_type, addr, (vr, vc)),)

    @impl(pto.TAssignOp)
    def run_tassign(self, interpreter: Interpreter, op: pto.TAssignOp, args: PythonValues):
        tile, addr = args
        assert isinstance(tile, Tile)
        with fault_at(op):
            return (place_tile(interpreter, tile.type, addr, tile.valid_shape),)

    @impl(pto.TLoadOp)
    def run_tload(self, interpreter: Interpreter, op: pto.TLoadOp, args: PythonValues):
        view, tile = args
        with fault_at(op):
            _recheck_transfer(interpreter, op, view, tile)
            src = view.read2d()  # batched loops: iterations x rows x cols
            _fill_padding(op, tile)
            tile.write_valid(src[..., : tile.valid_row, : tile.valid_col])
        return ()

    @impl(pto.TStoreOp)
    def run_tstore(self, interpreter: Interpreter, op: pto.TStoreOp, args: PythonValues):
        tile, view = args
        with fault_at(op):
            _recheck_transfer(interpreter, op, view, tile)
            rows, cols = slice(0, tile.valid_row), slice(0, tile.valid_col)
            view.write2d(rows, cols, tile.read_valid())
            if (writes := run_state(interpreter).gm_writes) is not None:
                writes.mark(view, rows, cols)
        return ()

    @impl(pto.SectionVectorOp)
    def run_section_vector(self, interpreter: Interpreter, op: pto.SectionVectorOp, args: PythonValues):
        return interpreter.run_ssacfg_region(op.body, (), "section.vector")

    @impl(pto.SectionCubeOp)
    def run_section_cube(self, interpreter: Interpreter, op: pto.SectionCubeOp, args: PythonValues):
        return interpreter.run_ssacfg_region(op.body, (), "section.cube")


def pad_value(tile_type: TileTypeBase, value: PadValue) -> float | int:
    """The tile's pad value (pad: 0 null, 1 zero, 2 max, 3 min): +-inf for floats, the
    type's limits for integers; 0 for null/zero, and where the target pads this type with 0."""
    pad, element = tile_type.pad.data, tile_type.element
    if pad in (0, 1) or value == PadValue.ALWAYS_ZERO:
        return 0
    if element.mlir.startswith(("f", "bf")):
        return np.inf if pad == 2 else -np.inf
    info = np.iinfo(element.numpy)
    return int(info.max) if pad == 2 else int(info.min)


def _fill_padding(op: pto.TLoadOp, tile: Tile) -> None:
    """What the target's TLOAD writes beyond the valid region: the `pad_fill` and `pad_value`
    choices pto-lower recorded on the op (docs/tload-padding.md)."""
    fill, value = op.attributes.get("pad_fill"), op.attributes.get("pad_value")
    if not isinstance(fill, PadFillAttr) or not isinstance(value, PadValueAttr):
        raise RuntimeFault("has no pad_fill / pad_value choice: lower the kernel for a target first (pto-lower)")
    if fill.data == PadFill.WHOLE_TILE:
        tile.flat[...] = pad_value(tile.type, value.data)
    elif fill.data == PadFill.BLOCK_TAIL and tile.type.pad.data != 0 and tile.type.inner_box is None:
        pad = pad_value(tile.type, value.data)
        block = 32 // tile.flat.itemsize  # elements per 32-byte block
        (rows, cols), (vr, vc) = tile.type.shape, tile.valid_shape
        # `...`: a batched loop's tile has a leading iteration axis
        if tile.type.is_row_major:
            tile.values[..., :vr, vc : min(cols, -(-vc // block) * block)] = pad
        else:
            tile.values[..., vr : min(rows, -(-vr // block) * block), :vc] = pad


def view_facts(value: SSAValue, view: GmView, role: str = "src") -> ViewFacts:
    assert isinstance(value.type, ShapedViewBase)
    return ViewFacts(role, value.type.element, view.shape, inferred_layout(value), view.strides)


def tile_facts(role: str, value: SSAValue, tile: Tile) -> TileFacts:
    assert isinstance(value.type, TileTypeBase)
    return TileFacts.of(role, value.type).with_valid(tile.valid_row, tile.valid_col)


_CHECKED_SHAPES: WeakKeyDictionary[Operation, set[tuple]] = WeakKeyDictionary()
"""The view and valid shapes each tload/tstore was already checked with (a loop repeats them)."""


def _recheck_transfer(interpreter: Interpreter, op: pto.TLoadOp | pto.TStoreOp, view: GmView, tile: Tile) -> None:
    """The verifier's shape rule, on the actual view and valid shapes (once per distinct shapes)."""
    key = (view.shape, view.strides, tile.valid_row, tile.valid_col)
    checked = _CHECKED_SHAPES.setdefault(op, set())
    if key in checked:
        return
    target = run_state(interpreter).target
    try:
        if isinstance(op, pto.TLoadOp):
            check_tload(target, view_facts(op.src, view), tile_facts("dst", op.dst, tile))
        else:
            check_tstore(target, tile_facts("src", op.src, tile), view_facts(op.dst, view, "dst"))
    except RuleViolation as e:
        raise RuntimeFault(f"{e} (run-time shapes)") from e
    checked.add(key)