"""
The register-level gathers and scatter at run time (pto_dialect/vpto/gather.py; their NumPy in
pto_dialect/vpto/gather_kernels.py), and the tile handles a lowering to registers takes
(pto_dialect/vpto/tile_handles.py).

A pointer taken from a tile (`pto.tile_buf_addr`) knows the tile's bytes: a gather or scatter through it
stays inside them (pto-isa's TGATHER reads its src tile only), an active lane past them a run-time error
naming the lane; a pointer cast from an address may reach all of UB.
"""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls

from pto_dialect.machine import RuntimeFault, Tile
from pto_dialect.vpto import gather_kernels
from pto_dialect.vpto.gather_kernels import Memory
from pto_dialect.vpto.gather import RegisterGatherOp, VGather2BcOp, VGather2Op, VGatherBOp, VScatterOp
from pto_dialect.vpto.tile_handles import TileBufAddrOp, TileValidRowsOp
from pto_dialect.vpto.types import MaskType, VRegType

from interpreter.state import fault_at
from interpreter.vpto.functions import pointer_arg, priced
from interpreter.vpto.memory import Pointer, ub_memory
from interpreter.vpto.predicates import lanes_of


def active_lanes(op: RegisterGatherOp | VScatterOp, mask: np.ndarray) -> np.ndarray:
    mask_type = op.mask.type
    assert isinstance(mask_type, MaskType)
    return lanes_of(mask, mask_type.lane_bytes)


TILE = "the tile the pointer was taken from (counted from its start)"


def reachable(pointer: Pointer) -> tuple[Memory, int]:
    """(the bytes a gather through `pointer` may touch, the pointer's place in them)."""
    if pointer.extent is None:
        return Memory(pointer.memory, pointer.where), pointer.byte
    first, stop = pointer.extent
    return Memory(pointer.memory[first:stop], TILE), pointer.byte - first


def _gather(interpreter: Interpreter, op: RegisterGatherOp, args: PythonValues) -> PythonValues:
    source, offsets, mask = args
    pointer = pointer_arg(interpreter, source, op.source)
    result = op.result.type
    assert isinstance(result, VRegType)
    memory, base = reachable(pointer)
    active = active_lanes(op, mask)
    with fault_at(op):
        match op:
            case VGatherBOp():
                value = gather_kernels.vgatherb(memory, base, offsets, active, result=result.element.numpy)
            case VGather2BcOp():
                value = gather_kernels.vgather2_bc(memory, base, offsets, active, source=pointer.element,
                                                   result=result.element.numpy)
            case _:
                value = gather_kernels.vgather2(memory, base, offsets, active, source=pointer.element,
                                                result=result.element.numpy)
    return (value,)


@register_impls
class GatherFunctions(InterpreterFunctions):
    run_vgather2, run_vgather2_bc, run_vgatherb = (priced(c)(lambda self, i, op, args: _gather(i, op, args))
                                                   for c in (VGather2Op, VGather2BcOp, VGatherBOp))

    @priced(VScatterOp)
    def run_vscatter(self, interpreter: Interpreter, op: VScatterOp, args: PythonValues):
        value, destination, offsets, mask = args
        pointer = pointer_arg(interpreter, destination, op.destination)
        memory, base = reachable(pointer)
        with fault_at(op):
            gather_kernels.vscatter(memory, value, base, offsets, active_lanes(op, mask))
        return ()

    @impl(TileBufAddrOp)
    def run_tile_buf_addr(self, interpreter: Interpreter, op: TileBufAddrOp, args: PythonValues):
        (tile,) = args
        assert isinstance(tile, Tile)
        with fault_at(op):
            return (tile_pointer(interpreter, tile),)

    @impl(TileValidRowsOp)
    def run_tile_valid_rows(self, interpreter: Interpreter, op: TileValidRowsOp, args: PythonValues):
        (tile,) = args
        assert isinstance(tile, Tile)
        return (tile.valid_row,)


def tile_pointer(interpreter: Interpreter, tile: Tile) -> Pointer:
    """A pointer to the tile's storage: in UB where the tile was placed there, else into its own buffer
    (and the bytes past it that buffer keeps, as UB has bytes past a tile)."""
    storage = tile.flat
    if storage.ndim != 1:
        raise RuntimeFault("a tile with one storage per loop iteration has no one UB address")
    size = storage.size * storage.itemsize
    ub = ub_memory(interpreter)
    start = byte_offset_in(storage, ub)
    if start is not None:
        return Pointer(ub, start, storage.dtype, "ub", extent=(start, start + size))
    buffer = storage.base if isinstance(storage.base, np.ndarray) else storage
    start = byte_offset_in(storage, buffer)
    assert start is not None
    return Pointer(buffer.reshape(-1).view(np.uint8), start, storage.dtype, "ub", extent=(start, start + size))


def byte_offset_in(view: np.ndarray, array: np.ndarray) -> int | None:
    """Where `view`'s bytes start in `array`'s (None: not inside it)."""
    first = view.__array_interface__["data"][0] - array.__array_interface__["data"][0]
    return first if 0 <= first and first + view.nbytes <= array.nbytes else None
