"""
TGATHERB (pto-isa docs/isa/TGATHERB.md), the block gather by byte offsets, as PTOAS writes it:

    pto.tgatherb ins(%src, %offsets : S, O) outs(%dst : D)      (SSA: %dst = pto.tgatherb %src, %offsets : (S, O) -> D)

emitted as `TGATHERB(dst, src, offsets)`. Every target copies 32-byte blocks: block k of dst's valid
row r (its bytes [32k, 32k + 32)) = the 32 bytes of src's storage at byte offset offsets[r, k], read
as an unsigned 32-bit number (cpu/TGatherB.hpp TGatherB; npu/a2a3/TGatherB.hpp and npu/a5/TGatherB.hpp
through vgatherb, 8 blocks a repeat, offsets read at the offsets tile's row stride). src and dst may
differ in element type: bytes are copied.

What each target reads (the `block_read` choice): cpu copies the bytes at any offset and skips a block
that ends past src's storage (dst keeps it), but its bounds test adds 32 to the offset in 32-bit
arithmetic, so an offset of 2**32 - 32 or more wraps it and reads outside src: a run-time fault here;
vgatherb reads 32-byte aligned blocks of UB, so an unaligned offset or one past src's storage (another
tile's bytes) is a run-time fault. Each fault names the offset's position.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from math import prod
from typing import ClassVar

from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import irdl_op_definition
from xdsl.utils.exceptions import VerifyException

from pto_dialect.choices import BlockRead
from pto_dialect.cost import CceMachine, InstructionCost, OpCost, SimulatorMachine, VfMachine, Work
from pto_dialect.facts import TileFacts, known, require, require_type, spell
from pto_dialect.instruction import DocsCells, Emission, Instruction, Pipe, RuleRow
from pto_dialect.instructions.movement import BLOCK_BYTES, require_nd, require_vec
from pto_dialect.lowered import LoweredOp, lowered_base
from pto_dialect.machine import Footprint, RuntimeFault, first_failing, np, rect, valid_rect
from pto_dialect.ops.common import operand_of_role
from pto_dialect.instructions.operands import taking

REPEAT_BLOCKS = 8
"""Blocks one vgatherb repeat moves (256 bytes: one a2a3 repeat, one a5 vector register)."""

REPEAT_MAX = 255
"""a2a3's most repeats per vgatherb call (pto-isa's REPEAT_MAX)."""


@irdl_op_definition
class TGatherBOp(taking("src", "offsets")):
    """dst's 32-byte blocks gathered from src's storage at byte offsets."""

    name = "pto.tgatherb"

    src = operand_of_role("src")
    offsets = operand_of_role("offsets")
    dst = operand_of_role("dst")

    def verify_operands(self) -> None:
        self.expect_tile_in("src", self.src)
        offsets = self.expect_tile_in("offsets", self.offsets)
        self.expect_tile("dst", self.dst)
        if not offsets.element.is_integer:
            raise VerifyException(f"expects offsets of an integer element type, got {offsets.element_type}")

    def index_entries(self, value: SSAValue) -> int | None:
        """How far an offset reaches when it is the index (random inputs): the last whole block of
        src's storage starts at its bytes minus 32."""
        if value is not self.offsets:
            return None
        src = self.src.type
        return prod(src.shape) * src.element.bytes - BLOCK_BYTES + 1  # pyright: ignore[reportAttributeAccessIssue]

    def index_granule(self, value: SSAValue) -> int | None:
        """The multiple an offset drawn for random inputs is (a 32-byte block's start: every target
        reads an aligned block alike)."""
        return BLOCK_BYTES if value is self.offsets else None


# ---------------------------------------------------------------------------
# What each target accepts


@dataclass(frozen=True)
class TGatherBRules(RuleRow):
    """One target's TGATHERB rules."""

    types: frozenset[str]
    """src and dst element types (each its own; bytes are copied)."""
    offset_types: frozenset[str]
    """offsets element types."""
    note: str

    def check(self, operands: dict, attrs: Mapping[str, Attribute]) -> None:
        src, offsets, dst = operands["src"], operands["offsets"], operands["dst"]
        require_vec((src, offsets, dst))
        require_type("src", src.elem, self.types)
        require_type("dst", dst.elem, self.types)
        require_type("offsets", offsets.elem, self.offset_types)
        require_nd((dst, offsets), "RowStride")
        if known(dst.valid_col):
            require(
                dst.valid_col * dst.elem.bytes % BLOCK_BYTES == 0,
                f"expects dst's valid row to be whole {BLOCK_BYTES}-byte blocks, got {dst.valid_col} x {dst.elem.mlir} = "
                f"{dst.valid_col * dst.elem.bytes} bytes",
            )
        if known(dst.valid_row, dst.valid_col):
            require(
                offsets.rows >= dst.valid_row and offsets.cols >= blocks_per_row(dst),
                f"expects offsets to hold one offset per 32-byte block of dst's valid region ({dst.valid_row}x"
                f"{blocks_per_row(dst)}), got {offsets.rows}x{offsets.cols}",
            )

    DOCS: ClassVar[DocsCells] = (
        ("src / dst element types (each its own)", lambda r: spell(r.types)),
        ("offsets element types", lambda r: spell(r.offset_types)),
        ("tiles", lambda r: "Vec; dst and offsets row-major ND"),
        ("dst valid row", lambda r: f"whole {BLOCK_BYTES}-byte blocks"),
        ("offsets shape", lambda r: "at least dst's valid rows x its blocks per row"),
        ("why", lambda r: r.note),
    )


def blocks_per_row(dst: TileFacts) -> int:
    """The 32-byte blocks of one dst valid row."""
    return dst.valid_col * dst.elem.bytes // BLOCK_BYTES


def whole_repeats(op: Operation) -> bool:
    """Whether each dst valid row is whole repeats of 8 blocks, known before the run: a2a3 gathers a
    row's remaining blocks as one more whole repeat, writing past the valid row."""
    assert isinstance(op, TGatherBOp)
    dst = TileFacts.of("dst", op.dst.type)  # pyright: ignore[reportArgumentType]
    return known(dst.valid_col) and blocks_per_row(dst) % REPEAT_BLOCKS == 0


# ---------------------------------------------------------------------------
# The kernel


def _read_blocks(storage: np.ndarray, byte_offsets: np.ndarray) -> np.ndarray:
    """The 32 bytes at each offset (..., rows, blocks) of `storage` (..., bytes): one storage per
    iteration where it is batched."""
    at = byte_offsets[..., None] + np.arange(BLOCK_BYTES)
    if storage.ndim == 1:
        return storage[at]
    iterations = storage.shape[0]
    at = np.broadcast_to(at, (iterations, *at.shape[-3:]))
    return np.take_along_axis(storage, at.reshape(iterations, -1), axis=1).reshape(at.shape)


def tgatherb_kernel(o: dict, *, block_read: BlockRead) -> None:
    src, offsets, dst = o["src"], o["offsets"], o["dst"]
    rows, cols = dst.valid_shape
    blocks = cols * dst.flat.itemsize // BLOCK_BYTES
    byte_offsets = offsets.values[..., :rows, :blocks].astype(np.int64) & 0xFFFFFFFF  # C's conversion to uint32
    storage = np.ascontiguousarray(src.flat).view(np.uint8)
    inside = byte_offsets + BLOCK_BYTES <= storage.shape[-1]
    match block_read:
        case BlockRead.BYTES_IN_SRC:  # the simulator's bounds test adds 32 in 32-bit arithmetic
            readable, undefined = inside, byte_offsets + BLOCK_BYTES > 0xFFFFFFFF
        case BlockRead.ALIGNED_IN_SRC:
            readable = inside & (byte_offsets % BLOCK_BYTES == 0)
            undefined = ~readable
    if undefined.any():
        iteration, where = first_failing(undefined, byte_offsets.ndim - 2)
        value = int(byte_offsets[(iteration, *where) if iteration is not None else where])
        if block_read is BlockRead.BYTES_IN_SRC:
            why = "wraps the 32-bit bounds test (the block is read outside src)"
        else:
            why = "is not 32-byte aligned" if value % BLOCK_BYTES else f"reads past src's {storage.shape[-1]} bytes"
        raise RuntimeFault(f"byte offset {value} at offsets position {list(where)} {why}", iteration)
    gathered = _read_blocks(storage, np.where(readable, byte_offsets, 0))
    if not readable.all():
        kept = np.ascontiguousarray(dst.values[..., :rows, :cols]).view(np.uint8)
        gathered = np.where(readable[..., None], gathered, kept.reshape(*kept.shape[:-1], blocks, BLOCK_BYTES))
    dst.write_valid(np.ascontiguousarray(gathered).reshape(*gathered.shape[:-2], blocks * BLOCK_BYTES).view(dst.flat.dtype))


def tgatherb_footprint(o: dict, **_: object) -> Footprint:
    offsets, src, dst = o["offsets"], o["src"], o["dst"]
    rows, cols = dst.valid_shape
    read = rect(offsets, rows, cols * dst.flat.itemsize // BLOCK_BYTES)
    return Footprint([(offsets, False, read), (src, False, None), (dst, True, valid_rect(dst))], [])


TGatherBBase = lowered_base(
    TGatherBOp, tgatherb_kernel, "dst's 32-byte blocks = src's storage bytes at offsets, as the target reads them (block_read).",
    tgatherb_footprint, block_read=BlockRead.Attr,
)


# ---------------------------------------------------------------------------
# What it costs


def _cce(op: LoweredOp, o: dict, machine: CceMachine, work: Work) -> OpCost:
    """npu/a2a3/TGatherB.hpp TGatherBlock: per dst valid row, the row's whole repeats of 8 blocks in
    vgatherb calls of at most 255 repeats; a row's remaining blocks one repeat per row, in calls of at
    most 255 rows."""
    dst: TileFacts = o["dst"]
    rows = dst.valid_row
    repeats, rest = divmod(blocks_per_row(dst), REPEAT_BLOCKS)
    t = machine.trace()
    full, last = divmod(repeats, REPEAT_MAX)

    def row() -> None:
        for _ in range(full):
            t.vector("vgatherb", repeat=REPEAT_MAX)
        if last:
            t.vector("vgatherb", repeat=last)

    if repeats:
        t.loop(rows, row)
    if rest:
        for count in [REPEAT_MAX] * (rows // REPEAT_MAX) + [rows % REPEAT_MAX]:
            if count:
                t.vector("vgatherb", repeat=count)
    return t.cost(Pipe.VECTOR, exact=True)


def _vf(op: LoweredOp, o: dict, machine: VfMachine, work: Work) -> OpCost:
    """npu/a5/TGatherB.hpp: one vector function; two predicates, then per dst valid row and register
    (256 bytes) a vlds of the offsets, a vgatherb and a vsts."""
    dst: TileFacts = o["dst"]
    n = dst.valid_row * -(-blocks_per_row(dst) // REPEAT_BLOCKS)
    return machine.cost(Pipe.VECTOR, 0, machine.vector_function({"plt": 2, "vlds": n, "vgatherb": n, "vsts": n}))


def _simulated(op: LoweredOp, o: dict, machine: SimulatorMachine, work: Work) -> OpCost:
    """pto-isa cpu/TGatherB.hpp TGatherB: a byte loop over each block of dst's valid region."""
    dst: TileFacts = o["dst"]
    return machine.cost(Pipe.VECTOR, 0, dst.valid_row * dst.valid_col * dst.elem.bytes)


def _emit(e: Emission, op: TGatherBOp) -> None:
    """`TGATHERB(dst, src, offsets)`."""
    e.issue(op, e.call("TGATHERB", [op.dst, op.src, op.offsets]))


TGATHERB = Instruction(
    rules=TGatherBRules,
    lowered=(TGatherBBase,),
    emit=_emit,
    cost=InstructionCost(on={CceMachine: _cce, VfMachine: _vf, SimulatorMachine: _simulated}),
)
