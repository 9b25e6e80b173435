"""Interpretation of the kernel scaffolding: views, tiles, sections (the instructions that
lowering keeps, tload and tstore, run their kernels: interpreter/lowered.py), and the sync ops:
a run is in program order, so they change no value (`pto-run --check-sync` reads them:
passes/sync_check.py); a dynamic event id outside the target's range is a fault."""

from __future__ import annotations


import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation


from pto_dialect import ops as pto
from pto_dialect.instructions.elementwise import rounded
from pto_dialect.ops.subview import window_problem, window_tile_type, window_valid
from pto_dialect.ops import sync
from pto_dialect.ops.reserved import ReserveBufferOp
from pto_dialect.types import LocalArrayType
from pto_dialect.types import PtrType, TileTypeBase

from pto_dialect.machine import GmView, RuntimeFault, Tile, private_storage, storage_offset
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
        return Tile.over(tile_type, private_storage(rows * cols, dtype), valid)
    size = tile_type.size_bytes
    if addr < 0 or addr + size > memory.size:
        target = run_state(interpreter).target
        raise RuntimeFault(
            f"tile at byte {addr} ends at byte {addr + size}, beyond the "
            f"{tile_type.loc.data} memory of target {target} ({memory.size} bytes)"
        )
    return Tile.over(tile_type, memory[addr : addr + rows * cols * dtype.itemsize].view(dtype), valid)


def _check_offset(op: pto.LoadScalarOp | pto.StoreScalarOp, buffer: np.ndarray, offset: int) -> None:
    if not 0 <= offset < buffer.size:
        what = "reads" if isinstance(op, pto.LoadScalarOp) else "writes"
        raise RuntimeFault(
            f"offset {offset} {what} outside %{op.ptr.name_hint or 'ptr'}, whose array holds {buffer.size} elements"
        )


def _check_tile_offset(op: pto.TGetValOp | pto.TSetValOp, tile: Tile, offset: int) -> None:
    if not 0 <= offset < tile.flat.size:
        what = "reads" if isinstance(op, pto.TGetValOp) else "writes"
        raise RuntimeFault(f"offset {offset} {what} outside the tile's {tile.flat.size} elements of storage")


class LocalArray:
    """A pto.declare_local_array: its elements and which of them a set has written."""

    def __init__(self, array_type: LocalArrayType):
        self.values = np.zeros(array_type.shape, array_type.element.numpy)
        self.written = np.zeros(array_type.shape, bool)

    def checked(self, op: pto.LocalArrayGetOp | pto.LocalArraySetOp, indices: tuple[int, ...]) -> tuple[int, ...]:
        name = op.array.name_hint or "array"
        for dim, (i, size) in enumerate(zip(indices, self.values.shape)):
            if not 0 <= i < size:
                raise RuntimeFault(f"index {i} of dim {dim} is outside [0, {size - 1}] for %{name}")
        if isinstance(op, pto.LocalArrayGetOp) and not self.written[indices]:
            raise RuntimeFault(
                f"reads %{name}{list(indices)} before any pto.local_array_set wrote it (C++ leaves a stack array uninitialized)"
            )
        return indices


def _reserved_address(op: ReserveBufferOp) -> int:
    base = op.planned_base()
    if base is None:
        raise RuntimeFault(
            f"the address of reserve_buffer \"{op.buffer_name}\" (auto = true) is chosen by PTOAS's memory planning, "
            "which pto-frontend does not do: give auto = false, base = N"
        )
    return base


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

    @impl(pto.LoadScalarOp)
    def run_load_scalar(self, interpreter: Interpreter, op: pto.LoadScalarOp, args: PythonValues):
        buffer, offset = args
        with fault_at(op):
            _check_offset(op, buffer, offset)
            return (buffer[offset].item(),)

    @impl(pto.TGetValOp)
    def run_tgetval(self, interpreter: Interpreter, op: pto.TGetValOp, args: PythonValues):
        tile, offset = args
        with fault_at(op):
            _check_tile_offset(op, tile, offset)
            return (tile.flat[offset].item(),)

    @impl(pto.TSetValOp)
    def run_tsetval(self, interpreter: Interpreter, op: pto.TSetValOp, args: PythonValues):
        offset, value, tile = args
        with fault_at(op):
            _check_tile_offset(op, tile, offset)
            tile.flat[offset] = rounded(np.asarray(value, np.float64), tile.flat.dtype, image=True) if tile.flat.dtype.name == "bfloat16" else value
        return ()

    @impl(pto.StoreScalarOp)
    def run_store_scalar(self, interpreter: Interpreter, op: pto.StoreScalarOp, args: PythonValues):
        value, buffer, offset = args
        with fault_at(op):
            _check_offset(op, buffer, offset)
            buffer[offset] = value
        if (stored := run_state(interpreter).gm_writes) is not None:
            stored.mark(GmView(buffer, offset, (1, 1), (1, 1)))
        return ()

    @impl(pto.DeclareLocalArrayOp)
    def run_declare_local_array(self, interpreter: Interpreter, op: pto.DeclareLocalArrayOp, args: PythonValues):
        assert isinstance(op.array.type, LocalArrayType)
        return (LocalArray(op.array.type),)

    @impl(pto.LocalArrayGetOp)
    def run_local_array_get(self, interpreter: Interpreter, op: pto.LocalArrayGetOp, args: PythonValues):
        array, *indices = args
        assert isinstance(array, LocalArray)
        with fault_at(op):
            return (array.values[array.checked(op, tuple(indices))].item(),)

    @impl(pto.LocalArraySetOp)
    def run_local_array_set(self, interpreter: Interpreter, op: pto.LocalArraySetOp, args: PythonValues):
        array, *indices, value = args
        assert isinstance(array, LocalArray)
        with fault_at(op):
            at = array.checked(op, tuple(indices))
        array.values[at] = value
        array.written[at] = True
        return ()

    @impl(pto.CmoCacheInvalidOp)
    def run_cmo_cacheinvalid(self, interpreter: Interpreter, op: pto.CmoCacheInvalidOp, args: PythonValues):
        return ()  # one core in program order, no data cache modelled (pto_dialect/ops/coherence.py)

    @impl(pto.FenceBarrierAllOp)
    def run_fence_barrier_all(self, interpreter: Interpreter, op: pto.FenceBarrierAllOp, args: PythonValues):
        return ()  # every access already complete in program order (pto_dialect/ops/coherence.py)

    @impl(pto.ReserveBufferOp)
    def run_reserve_buffer(self, interpreter: Interpreter, op: pto.ReserveBufferOp, args: PythonValues):
        with fault_at(op):
            return (_reserved_address(op),)

    @impl(pto.ImportReservedBufferOp)
    def run_import_reserved_buffer(self, interpreter: Interpreter, op: pto.ImportReservedBufferOp, args: PythonValues):
        with fault_at(op):
            return (_reserved_address(op.reserved()),)

    @impl(pto.SetValidShapeOp)
    def run_set_validshape(self, interpreter: Interpreter, op: pto.SetValidShapeOp, args: PythonValues):
        tile, rows, cols = args
        assert isinstance(tile, Tile)
        limit_rows, limit_cols = tile.type.shape
        for name, v, limit in (("valid_row", rows, limit_rows), ("valid_col", cols, limit_cols)):
            if not 0 <= v <= limit:
                with fault_at(op):
                    raise RuntimeFault(f"{name} {v} is outside [0, {limit}] for a {limit_rows}x{limit_cols} tile")
        tile.valid_row, tile.valid_col = rows, cols
        return ()

    @impl(pto.SubViewOp)
    def run_subview(self, interpreter: Interpreter, op: pto.SubViewOp, args: PythonValues):
        tile, row, col, *given = args
        source = op.source.type
        assert isinstance(tile, Tile) and isinstance(source, TileTypeBase)
        with fault_at(op):
            for dim, (offset, size) in enumerate(zip((row, col), op.window)):
                if (problem := window_problem(source, dim, offset, size)) is not None:
                    raise RuntimeFault(problem)
            valid = window_valid(op, tile.valid_shape, (row, col), given)
            window_type = window_tile_type(tile.type, op.result.type)
            return (tile.window(window_type, int(storage_offset(tile.type, row, col)), valid),)

    @impl(pto.TReshapeOp)
    def run_treshape(self, interpreter: Interpreter, op: pto.TReshapeOp, args: PythonValues):
        (tile,) = args
        assert isinstance(tile, Tile)
        result = op.result.type
        valid = result.valid_shape
        if DYNAMIC_INDEX in valid:
            if tuple(result.shape) != tuple(tile.type.shape):
                with fault_at(op):
                    raise RuntimeFault(
                        f"the result's valid shape is dynamic and its shape {result.shape[0]}x{result.shape[1]} is not "
                        f"the source's: pto-run does not know which region is valid (give the result type a static one)"
                    )
            valid = tile.valid_shape
        # the storage from the tile's address on (a window of columns has more: its tile's row stride)
        rows, cols = result.shape
        return (Tile.over(result, tile.flat.view(result.element.numpy)[..., : rows * cols], valid),)

    @impl(pto.SectionVectorOp)
    def run_section_vector(self, interpreter: Interpreter, op: pto.SectionVectorOp, args: PythonValues):
        return interpreter.run_ssacfg_region(op.body, (), "section.vector")

    @impl(pto.SectionCubeOp)
    def run_section_cube(self, interpreter: Interpreter, op: pto.SectionCubeOp, args: PythonValues):
        return interpreter.run_ssacfg_region(op.body, (), "section.cube")

    def _event_in_range(self, interpreter: Interpreter, op, event: int, count: int) -> None:  # noqa: ANN001
        if not 0 <= event < count:
            with fault_at(op):
                raise RuntimeFault(f"event id {event} is outside [0, {count - 1}] on target {run_state(interpreter).target}")

    def _synchronizing(self, interpreter: Interpreter, op: Operation, args: PythonValues) -> tuple[()]:
        _synchronize(interpreter, op, args)
        return ()

    def _synchronizing_on_event(self, interpreter: Interpreter, op: Operation, args: PythonValues) -> tuple[()]:
        """A flag whose event id is a run-time value: in the target's range."""
        self._event_in_range(interpreter, op, args[0], run_state(interpreter).target.sync.flag_events)
        return self._synchronizing(interpreter, op, args)

    run_set_flag = impl(sync.SetFlagOp)(_synchronizing)
    run_wait_flag = impl(sync.WaitFlagOp)(_synchronizing)
    run_barrier = impl(sync.BarrierOp)(_synchronizing)
    run_set_flag_dyn = impl(sync.SetFlagDynOp)(_synchronizing_on_event)
    run_wait_flag_dyn = impl(sync.WaitFlagDynOp)(_synchronizing_on_event)

    @impl(sync.SyncSetOp)
    def run_sync_set(self, interpreter: Interpreter, op: sync.SyncSetOp, args: PythonValues):
        if args:
            self._event_in_range(interpreter, op, args[0], run_state(interpreter).target.sync.cross_core_events)
        return ()

    @impl(sync.SyncWaitOp)
    def run_sync_wait(self, interpreter: Interpreter, op: sync.SyncWaitOp, args: PythonValues):
        if args:
            self._event_in_range(interpreter, op, args[0], run_state(interpreter).target.sync.cross_core_events)
        return ()


def _synchronize(interpreter: Interpreter, op: Operation, args: PythonValues) -> None:
    """A profile's timeline orders its pipes by the kernel's flags and barriers (interpreter/trace.py)."""
    profiler = run_state(interpreter).profiler
    if profiler is not None:
        profiler.synchronize(op, args)
