"""
What the register-level gathers and scatter of a5 compute, on the UB byte array (whole-array NumPy).

PTOAS docs/isa/micro-isa/03-vector-load-store.md and pto-isa's npu/a5 headers decide:

    vgather2     lane i = the source element at base + offsets[i] * sizeof(source); b8 zero-extends
                 into a 16-bit lane
    vgather2_bc  request i (32-bit offsets, 64 requests) = the element at base + offsets[i] * sizeof;
                 for 16-bit data it lands in the low half of 32-bit lane i (16-bit lane 2i), the high
                 half zero (the PK_B32 store that follows keeps only the low halves)
    vgatherb     block b (VL/32 = 8 blocks of 32 bytes) = the 32 bytes at base + offsets[b] (bytes,
                 32-byte aligned); only the first 8 offsets and mask lanes take part
    vscatter     the element at base + offsets[i] * sizeof(T) = value[i] (b8: value[2i]); where active
                 offsets collide, the lowest lane wins (the choice a5's TSCATTER records)

Masked-off lanes read nothing, cannot fault, and give 0. An active lane whose bytes lie outside UB or
are misaligned is a run-time error naming the lane. Every array may carry leading iteration axes
(interpreter/batch.py): lanes are the last axis.
"""

from __future__ import annotations

from dataclasses import dataclass

from pto_dialect.choices import ScatterWinner
from pto_dialect.machine import RuntimeFault, first_failing, np
from pto_dialect.write_collisions import surviving_writes

@dataclass(frozen=True)
class Memory:
    """The bytes a gather or scatter may touch, and how a message names them (UB, or a tile's bytes)."""

    bytes: np.ndarray
    name: str = "UB"


BLOCK_BYTES = 32
"""vgatherb moves 32-byte blocks."""
BLOCKS = 256 // BLOCK_BYTES
"""Blocks per vector register (VL / 32): the offsets and mask lanes vgatherb reads."""
VSCATTER_WINNER = ScatterWinner.LOWEST_LANE
"""Where active vscatter offsets collide: PTOAS leaves the winner implementation-defined; a5's model
(TSCATTER's lowering, one vscatter per register) keeps the lowest lane."""


def unsigned(offsets: np.ndarray) -> np.ndarray:
    """Offset lanes as the hardware reads them: unsigned of their own width, widened to int64."""
    return offsets.view(f"u{offsets.dtype.itemsize}").astype(np.int64)


def check_addresses(addresses: np.ndarray, offsets: np.ndarray, active: np.ndarray, width: int, memory: Memory,
                    what: str) -> None:
    """Each active lane's `width` bytes at its byte address lie inside the memory, aligned to `width`."""
    outside = active & ((addresses < 0) | (addresses + width > memory.bytes.size))
    if outside.any():
        iteration, (lane,) = first_failing(outside, outside.ndim - 1)
        at = (iteration, lane) if iteration is not None else (lane,)
        address = int(addresses[at])
        raise RuntimeFault(
            f"lane {lane} (offset {int(offsets[at])}) {what} bytes [{address}, {address + width}) of {memory.name}, "
            f"which holds {memory.bytes.size} bytes",
            iteration,
        )
    misaligned = active & (addresses % width != 0)
    if misaligned.any():
        iteration, (lane,) = first_failing(misaligned, misaligned.ndim - 1)
        at = (iteration, lane) if iteration is not None else (lane,)
        raise RuntimeFault(
            f"lane {lane} (offset {int(offsets[at])}) {what} byte {int(addresses[at])} of {memory.name}, "
            f"not aligned to {width} bytes",
            iteration,
        )


def read_elements(memory: Memory, addresses: np.ndarray, active: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The `dtype` element at each active byte address (0 where inactive)."""
    width = dtype.itemsize
    safe = np.where(active, addresses, 0)
    raw = memory.bytes[safe[..., None] + np.arange(width)]  # lanes x width bytes
    values = np.ascontiguousarray(raw).view(dtype)[..., 0]
    return np.where(active, values, np.zeros((), dtype))


def element_addresses(base: np.ndarray | int, offsets: np.ndarray, width: int) -> np.ndarray:
    """base + unsigned(offset) * width per lane (base: one byte address, or one per iteration)."""
    return np.asarray(base, dtype=np.int64)[..., None] + unsigned(offsets) * width


def vgather2(memory: Memory, base: np.ndarray | int, offsets: np.ndarray, active: np.ndarray, *,
             source: np.dtype, result: np.dtype) -> np.ndarray:
    """Result lanes (offsets' lane count) of `result` type: source elements, b8 zero-extended."""
    addresses = element_addresses(base, offsets, source.itemsize)
    check_addresses(addresses, unsigned(offsets), active, source.itemsize, memory, "reads")
    values = read_elements(memory, addresses, active, source)
    if source.itemsize == 1:  # zero-extended: the byte's bits, never its sign
        return values.view(np.uint8).astype(np.uint16).view(result)
    return values.view(result)


def vgather2_bc(memory: Memory, base: np.ndarray | int, offsets: np.ndarray, active: np.ndarray, *,
                source: np.dtype, result: np.dtype) -> np.ndarray:
    """256 bytes of `result` lanes: request i's element in 32-bit lane i (16-bit data: its low half)."""
    addresses = element_addresses(base, offsets, source.itemsize)
    check_addresses(addresses, unsigned(offsets), active, source.itemsize, memory, "reads")
    values = read_elements(memory, addresses, active, source)
    if source.itemsize == 4:
        return values.view(result)
    words = values.view(f"u{source.itemsize}").astype(np.uint32)  # the element in each word's low bits
    return np.ascontiguousarray(words).view(result)


def vgatherb(memory: Memory, base: np.ndarray | int, offsets: np.ndarray, active: np.ndarray, *,
             result: np.dtype) -> np.ndarray:
    """256 bytes of `result` lanes: block b = the 32 UB bytes at base + offsets[b], or zeros."""
    block_offsets, block_active = unsigned(offsets)[..., :BLOCKS], active[..., :BLOCKS]
    addresses = np.asarray(base, dtype=np.int64)[..., None] + block_offsets
    check_addresses(addresses, block_offsets, block_active, BLOCK_BYTES, memory, "reads the 32-byte block at")
    safe = np.where(block_active, addresses, 0)
    blocks = memory.bytes[safe[..., None] + np.arange(BLOCK_BYTES)]  # blocks x 32 bytes
    blocks = np.where(block_active[..., None], blocks, np.uint8(0))
    return np.ascontiguousarray(blocks).reshape(*blocks.shape[:-2], BLOCKS * BLOCK_BYTES).view(result)


def vscatter(memory: Memory, value: np.ndarray, base: np.ndarray | int, offsets: np.ndarray,
             active: np.ndarray) -> None:
    """UB element at base + offsets[i] * sizeof = request i's value (b8: value lane 2i); iterations
    in order, and within one the lowest active lane where offsets collide."""
    requests = value[..., ::2] if value.dtype.itemsize == 1 else value
    width = value.dtype.itemsize
    addresses = element_addresses(base, offsets, width)
    check_addresses(addresses, unsigned(offsets), active, width, memory, "writes")
    lanes = addresses.shape[-1]
    # VSCATTER_WINNER: iterations in order, then the lowest lane (the highest rank survives)
    iteration = np.arange(addresses.size // lanes).reshape(*addresses.shape[:-1], 1) if addresses.ndim > 1 else 0
    rank = (iteration * lanes + (lanes - 1 - np.arange(lanes))).reshape(-1)
    flat_active = np.broadcast_to(active, addresses.shape).reshape(-1)
    destinations = addresses.reshape(-1)[flat_active]
    where, which = surviving_writes(destinations, np.broadcast_to(rank, flat_active.shape)[flat_active])
    payload = np.broadcast_to(requests, addresses.shape).reshape(-1)[flat_active][which]
    memory.bytes[where[:, None] + np.arange(width)] = np.ascontiguousarray(payload).view(np.uint8).reshape(-1, width)
