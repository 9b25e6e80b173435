"""
TRANDOM (pto-isa docs/isa/TRANDOM.md): dst's valid region filled with Philox-4x32 random words.
A 128-bit counter (four 32-bit words, added to with carry) and a 64-bit key go through `rounds`
rounds of

      (c0, c1, c2, c3) <- (hi(c2 * 0xCD9E8D57) ^ c1 ^ k0,  lo(c2 * 0xCD9E8D57),
                           hi(c0 * 0xD2511F53) ^ c3 ^ k1,  lo(c0 * 0xD2511F53))
      (k0, k1) <- (k0 + 0x9E3779B9, k1 + 0xBB67AE85)                  (uint32, wrapping)

and each counter gives four words. Per valid row, dst is filled in blocks of 256 columns, each
block from 64 consecutive counters (lane l: the block's counter + l); the targets differ in which
word lands where and how far the counter moves between blocks (the `random_stream` choice,
pto_dialect/choices.py RandomStream): cpu/TRandom.hpp puts word w of lane l at column 64 * w + l
and moves by dst's row stride / 4 per block; npu/a5/TRandom.hpp (its four vintlv, which PTOAS's
tilelang ST golden spells out too) at column 4 * l + w, moving by 64 per block and by
(valid cols - 1) % 64 + 1 after a row's last. Both write only the valid region; the words are
stored in dst's element type (i32: the same bits). npu/a2a3 has no TRandom.hpp.

PTOAS writes

    pto.trandom ins(%k0, %k1, %c0, %c1, %c2, %c3 {rounds = 7 : i32} : i32, i32, i32, i32, i32, i32)
        outs(%dst : T)

with `rounds` 10 when omitted (7 or 10: every header static_asserts it, PTOAS's verifier too). PTOAS
emits a helper, `PTOAS__TRANDOM<rounds>(dst, words...)`, that packs the words into pto-isa's
`TRandomKey` / `TRandomCounter` arrays for `TRANDOM<rounds>(dst, key, counter)`; here the packing
and the call are one block of their own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import IntegerAttr, IntegerType, i32
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, opt_prop_def
from xdsl.utils.exceptions import VerifyException

from pto_dialect.choices import Numerics, RandomStream
from pto_dialect.cost import CceMachine, InstructionCost, NoCostModel, OpCost, SimulatorMachine, VfMachine, Work
from pto_dialect.facts import require, require_type, spell
from pto_dialect.instruction import DocsCells, Emission, Instruction, Pipe, RuleRow
from pto_dialect.lowered import LoweredOp, lowered_base
from pto_dialect.machine import np
from pto_dialect.ops.common import InlineAttributesOp
from pto_dialect.instructions.operands import taking

WORDS = ("key0", "key1", "counter0", "counter1", "counter2", "counter3")
"""The six 32-bit scalar operands, in PTOAS's order."""

DEFAULT_ROUNDS = 10
"""PTOAS's `rounds` when omitted (pto-isa's `TRANDOM<Rounds = 10>`)."""

LANES = 64
"""Counters per block: a 256-byte register of 32-bit lanes (CCE_VL / 4; cpu/TRandom.hpp's elementsPerRepeat)."""

BLOCK = 4 * LANES
"""Columns per block: four output words per counter."""

MULTIPLIERS = (0xD2511F53, 0xCD9E8D57)
KEY_STEPS = (0x9E3779B9, 0xBB67AE85)
WORD_MASK = 0xFFFFFFFF


def rounds_of(properties: Mapping[str, Attribute]) -> int:
    attr = properties.get("rounds")
    return attr.value.data if isinstance(attr, IntegerAttr) else DEFAULT_ROUNDS


@irdl_op_definition
class TRandomOp(InlineAttributesOp, taking(*WORDS)):
    """dst's valid region filled with Philox-4x32 words of key (key0, key1) and counter (counter0..3)."""

    name = "pto.trandom"
    rounds = opt_prop_def(IntegerAttr)

    DEFAULTS: ClassVar[dict[str, Attribute]] = {"rounds": IntegerAttr(DEFAULT_ROUNDS, i32)}
    OMITS_DEFAULTS: ClassVar[bool] = True
    HIDDEN_IN_DPS_ATTR_DICT: ClassVar[tuple[str, ...]] = ("rounds",)

    def verify_operands(self) -> None:
        self.expect_tile("dst", self.destinations[0])
        for role, value in zip(WORDS, self.ins):
            if not (isinstance(value.type, IntegerType) and value.type.width.data == 32):
                raise VerifyException(f"expects {role} to be i32/ui32 (a 32-bit word of pto-isa's key or counter), got {value.type}")


# ---------------------------------------------------------------------------
# What each target accepts


@dataclass(frozen=True)
class RandomRules(RuleRow):
    dst_types: frozenset[str]
    """dst's element types; empty: the target's code has no TRANDOM."""
    rounds: frozenset[int]
    """The round counts its code takes (a static_assert)."""
    note: str

    def check(self, operands: dict, attrs: Mapping[str, Attribute]) -> None:
        dst = operands["dst"]
        require(bool(self.dst_types), f"is not implemented: {self.note}")
        require(dst.loc == "vec", f"expects dst to be a Vec tile (loc=vec), got loc={dst.loc}")
        require_type("dst", dst.elem, self.dst_types)
        require(dst.is_row_major, f"expects dst to use the row-major layout (a static_assert), got {dst.layout_text()}")
        rounds = rounds_of(attrs)
        require(
            rounds in self.rounds,
            f"expects rounds to be {' or '.join(map(str, sorted(self.rounds)))} (a static_assert), got {rounds}",
        )

    DOCS: ClassVar[DocsCells] = (
        ("dst", lambda r: f"a Vec tile of {spell(r.dst_types)}, row-major" if r.dst_types else "not implemented"),
        ("rounds", lambda r: f"{' or '.join(map(str, sorted(r.rounds)))} (default {DEFAULT_ROUNDS})" if r.dst_types else "-"),
        ("key0, key1, counter0..3", lambda r: "i32/ui32 scalars" if r.dst_types else "-"),
        ("why", lambda r: r.note),
    )


# ---------------------------------------------------------------------------
# The kernel


def counters_plus(counter: tuple[int, ...], offsets: np.ndarray) -> list[np.ndarray]:
    """The 128-bit counter (four words, the first least significant) plus each offset, with
    carry, as four uint32 arrays of the offsets' shape."""
    words, carry = [], offsets.astype(np.uint64)
    for word in counter:
        total = carry + np.uint64(word)
        words.append((total & np.uint64(WORD_MASK)).astype(np.uint32))
        carry = total >> np.uint64(32)
    return words


def philox(counter: list[np.ndarray], key: tuple[int, int], rounds: int) -> np.ndarray:
    """The four output words of each counter, (4, *shape) uint32 (a loop over the rounds only)."""
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for _ in range(rounds):
        p0 = c0.astype(np.uint64) * np.uint64(MULTIPLIERS[0])
        p1 = c2.astype(np.uint64) * np.uint64(MULTIPLIERS[1])
        c0, c1, c2, c3 = (
            (p1 >> np.uint64(32)).astype(np.uint32) ^ c1 ^ np.uint32(k0),
            p1.astype(np.uint32),
            (p0 >> np.uint64(32)).astype(np.uint32) ^ c3 ^ np.uint32(k1),
            p0.astype(np.uint32),
        )
        k0, k1 = (k0 + KEY_STEPS[0]) & WORD_MASK, (k1 + KEY_STEPS[1]) & WORD_MASK
    return np.stack([c0, c1, c2, c3])


def random_kernel(o: dict, *, rounds: IntegerAttr | int, random_stream: RandomStream) -> None:
    dst = o["dst"]
    rows, cols = dst.valid_shape
    if rows == 0 or cols == 0:
        return
    key = (int(o["key0"]) & WORD_MASK, int(o["key1"]) & WORD_MASK)
    counter = tuple(int(o[f"counter{i}"]) & WORD_MASK for i in range(4))
    blocks = -(-cols // BLOCK)
    row_index = np.arange(rows, dtype=np.uint64)[:, None, None]
    block_index = np.arange(blocks, dtype=np.uint64)[None, :, None]
    lane = np.arange(LANES, dtype=np.uint64)[None, None, :]
    count = int(rounds.value.data if isinstance(rounds, IntegerAttr) else rounds)
    row_stride = dst.type.shape[1]
    if random_stream is RandomStream.LANE_BLOCKS:
        offsets = (row_index * np.uint64(blocks) + block_index) * np.uint64(row_stride // 4) + lane
        words = philox(counters_plus(counter, offsets), key, count)  # (4, rows, blocks, lanes)
        block_major = words.transpose(1, 2, 0, 3)  # column 64 * w + l
    else:
        per_row = LANES * (blocks - 1) + (cols - 1) % LANES + 1
        offsets = row_index * np.uint64(per_row) + block_index * np.uint64(LANES) + lane
        words = philox(counters_plus(counter, offsets), key, count)
        block_major = words.transpose(1, 2, 3, 0)  # column 4 * l + w
    values = block_major.reshape(rows, blocks * BLOCK)[:, :cols].view(dst.flat.dtype)
    if random_stream is RandomStream.LANE_BLOCKS:
        dst.write(rows, cols, values)
    else:
        at = np.arange(rows)[:, None] * row_stride + np.arange(cols)[None, :]
        dst.flat[at] = values


TRandomBase = lowered_base(
    TRandomOp, random_kernel, "dst's valid region filled with Philox-4x32 words, in the target's order (random_stream).",
    rounds=IntegerAttr, random_stream=RandomStream.Attr,
)


def lowering_choices(stream: RandomStream) -> dict[str, RandomStream | Numerics]:
    """The choices a target's lowering records (the lowering keeps `rounds`, spelled out when omitted)."""
    return {"random_stream": stream, "numerics": Numerics.EXACT}


# ---------------------------------------------------------------------------
# What it costs


def _blocks(o: dict) -> tuple[int, int]:
    rows, cols = o["dst"].valid_shape
    return rows, -(-cols // BLOCK)


def _vf(op: LoweredOp, o: dict, machine: VfMachine, work: Work) -> OpCost:
    """npu/a5/TRandom.hpp: one vector function; its set-up (vbr of the key, counter and constants,
    a vci, a 128-bit add); per block of each valid row the rounds (two vmull, four vxor, two vadds
    each), four vintlv, four predicates and vsts, a vbr and a 128-bit add (a vaddc, three vaddcs)."""
    rows, blocks = _blocks(o)
    n, rounds = rows * blocks, rounds_of(op.properties)
    body = {
        "vbr": 9 + n, "vci": 1, "pset": 1, "vaddc": 1 + n, "vaddcs": 3 * (1 + n),
        "vmull": 2 * rounds * n, "vxor": 4 * rounds * n, "vadds": 2 * rounds * n,
        "vintlv": 4 * n, "plt": 4 * n, "vsts": 4 * n,
    }
    return machine.cost(Pipe.VECTOR, 0, machine.vector_function(body))


def _simulated(op: LoweredOp, o: dict, machine: SimulatorMachine, work: Work) -> OpCost:
    """pto-isa cpu/TRandom.hpp: per block of each valid row, per lane the rounds and four stores."""
    rows, blocks = _blocks(o)
    return machine.cost(Pipe.VECTOR, 0, rows * blocks * LANES * (rounds_of(op.properties) + 4))


def _cce(op: LoweredOp, o: dict, machine: CceMachine, work: Work) -> OpCost:
    """npu/a2a3 has no TRANDOM: its rules reject the op before anything prices it."""
    raise NoCostModel(f"{op.name}: npu/a2a3 has no TRANDOM")


COST = InstructionCost(on={CceMachine: _cce, VfMachine: _vf, SimulatorMachine: _simulated})


# ---------------------------------------------------------------------------
# C++


def emit(e: Emission, op: TRandomOp) -> None:
    """`TRANDOM<rounds>(dst, key, counter)`, the words packed into pto-isa's arrays in a block of
    their own (TRANDOM takes them by reference)."""
    words = [f"static_cast<uint32_t>({e.expression(v)})" for v in op.ins]
    call = e.call("TRANDOM", [op.destinations[0]], [str(rounds_of(op.properties))], ["trandom_key", "trandom_counter"])
    e.issue(
        op,
        f"{{ TRandomKey trandom_key = {{{', '.join(words[:2])}}}; "
        f"TRandomCounter trandom_counter = {{{', '.join(words[2:])}}}; {call} }}",
    )


TRANDOM = Instruction(
    rules=RandomRules,
    lowered=(TRandomBase,),
    emit=emit,
    cost=COST,
)
