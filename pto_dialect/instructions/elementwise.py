"""
The elementwise families: each element of dst computed from the elements at the same place
of the inputs (pto-isa docs/isa/<NAME>.md), over dst's valid region; padding keeps its old
contents. A member is a row (`Elementwise`): its mnemonic, its NumPy formula and the intrinsic
its cost is priced as; every target's rule row says which element types it takes.

      dst[i, j] = f(src0[i, j], src1[i, j])            binary:  pto.tadd, ...
      dst[i, j] = f(src[i, j])                         unary:   pto.texp, pto.tabs, ...

        pto.tadd ins(%a, %b : T, T) outs(%d : T)
        %d = pto.tadd %a, %b : (T, T) -> T
        pto.texp ins(%a : T) outs(%d : T)

What targets decide, as their lowered ops record: whether public code fixes the values
(`numerics`), and a member's own choices (its row's `choices`).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerType
from xdsl.ir import Attribute
from xdsl.irdl import opt_prop_def
from xdsl.utils.exceptions import VerifyException

from pto_dialect.cost import CceMachine, InstructionCost, OpCost, SimulatorMachine, VfMachine, Work
from pto_dialect.facts import TileFacts, known, per_target, require, require_type, spell
from pto_dialect.family import Family, FamilyLoweredOp, Member, member_lowered_base, member_op
from pto_dialect.instruction import AsmForm, Emission, InPlace, Instruction, Pipe
from pto_dialect.instructions.tcolargmin import REPEAT_BYTES, vector_repeats
from pto_dialect.attributes import PRECISION_ATTRS
from pto_dialect.choices import AbsSign, ZeroReciprocal
from pto_dialect.machine import Footprint, RuntimeFault, Tile, first_failing, np, valid_rect
from pto_dialect.ops.common import PtoInstructionOp, Roles

# ---------------------------------------------------------------------------
# The rows


@dataclass(frozen=True)
class Elementwise(Member):
    """One elementwise instruction."""

    compute: Callable[..., Any] = field(kw_only=True)
    """The formula on the inputs' valid regions (NumPy arrays of the element type) and scalar
    values, with the row's choices as keywords; its result is stored as dst's element type.
    NumPy is imported when a kernel first runs: a formula names it inside its body."""
    priced_as: str | tuple[str, ...] = field(kw_only=True)
    """The vector intrinsics its cost is priced as, each issued once per repeat (a2a3 `vadd`,
    a5 VfSim's `vadd`)."""
    precision: bool = field(default=False, kw_only=True)
    """It takes PTOAS's `precisionType` (pto-isa's <Op>Algorithm template argument)."""
    with_tmp: bool = field(default=False, kw_only=True)
    """It has a form with a tmp tile (TRSQRT's high-precision form)."""
    vf_priced_as: str | tuple[str, ...] = field(default=(), kw_only=True)
    """Where a5's code issues other intrinsics per register than a2a3's (TRSQRT: vsqrt and
    vdiv, not vrsqrt): those; empty: `priced_as`."""

    def intrinsics(self, vf: bool) -> tuple[str, ...]:
        chosen = (self.vf_priced_as or self.priced_as) if vf else self.priced_as
        return (chosen,) if isinstance(chosen, str) else chosen


# ---------------------------------------------------------------------------
# The op


class ElementwiseOp(PtoInstructionOp):
    """An elementwise instruction: its inputs `INS` (tiles, and a scalar where a member takes
    one), one output `dst` of the inputs' element type."""

    INS: ClassVar[tuple[str, ...]]

    @classmethod
    def operand_roles(cls, n_ins: int, n_outs: int) -> Roles:
        return cls.INS[:n_ins], ("dst",)

    def verify_(self) -> None:
        word = self.name.removeprefix("pto.")
        self.verify_dps_or_ssa()
        if len(self.ins) not in {n for n, _ in self.FORMS} or len(self.destinations) != 1:
            required = [r for r in self.INS if r not in self.WORKSPACE]
            optional = "".join(f"[, {r}]" for r in self.INS if r in self.WORKSPACE)
            raise VerifyException(f"expects {word} ins({', '.join(required)}{optional}) outs(dst)")
        dst = self.expect_tile("dst", self.destinations[0])
        precision = self.properties.get("precisionType")
        if "tmp" in self.INS and len(self.ins) < len(self.INS) and precision is not None and precision.data == "high_precision":  # pyright: ignore[reportAttributeAccessIssue]
            raise VerifyException("expects tmp when precisionType is high_precision")
        for role, value in zip(self.INS, self.ins):
            if role in self.WORKSPACE:
                self.expect_tile_in(role, value)
                continue
            if role == "scalar":
                if not isinstance(value.type, IntegerType | IndexType | AnyFloat):
                    raise VerifyException(f"expects scalar to be an integer, index or float scalar, got {value.type}")
                continue
            src = self.expect_tile_in(role, value)
            if src.element_type != dst.element_type:
                raise VerifyException(
                    f"expects {role} and dst to have the same element type, got {src.element_type} and {dst.element_type}"
                )


class BinaryOp(ElementwiseOp):
    INS: ClassVar[tuple[str, ...]] = ("src0", "src1")
    FORMS: ClassVar[tuple[tuple[int, int], ...]] = ((2, 1),)


class UnaryOp(ElementwiseOp):
    INS: ClassVar[tuple[str, ...]] = ("src",)
    FORMS: ClassVar[tuple[tuple[int, int], ...]] = ((1, 1),)


# ---------------------------------------------------------------------------
# What each target accepts


@dataclass(frozen=True)
class ElementwiseRules:
    """One target's rules for an elementwise instruction."""

    types: frozenset[str]
    """dst's (and so every tile input's) element types; empty: the target's code has no such
    instruction."""
    row_major_only: bool
    """Every tile row-major (ND or row-major boxes): the target's code static_asserts it."""
    note: str
    """Where the rules come from."""
    not_in_place: str = ""
    """Why the target does not compute dst over an input (empty: it does)."""


def check(rules: ElementwiseRules, operands: dict, attrs: Mapping[str, Attribute], target: str) -> None:
    dst = operands["dst"]
    require(bool(rules.types), f"is not implemented on target {target} ({rules.note})")
    tiles = [f for role, f in operands.items() if isinstance(f, TileFacts) and role != "tmp"]
    if isinstance(tmp := operands.get("tmp"), TileFacts):  # TRSQRT's: PTOAS's verifier
        require(tmp.loc == "vec", f"expects tmp to be a Vec tile (loc=vec), got loc={tmp.loc}")
        size = tmp.rows * tmp.cols * tmp.elem.bytes
        require(size >= 32, f"expects tmp to be at least 32 bytes when provided, got {size}")
    for t in tiles:
        require(t.loc == "vec", f"expects {t.role} to be a Vec tile (loc=vec), got loc={t.loc}")
        if rules.row_major_only:
            require(t.is_row_major, f"expects {t.role} to use the row-major layout, got {t.layout_text()}")
    require_type("dst", dst.elem, rules.types)
    for t in tiles:
        if t is dst or not known(t.valid_row, t.valid_col, dst.valid_row, dst.valid_col):
            continue
        require(
            t.valid_shape == dst.valid_shape,
            f"expects {t.role} and dst to have the same valid shape, got "
            f"{t.valid_row}x{t.valid_col} and {dst.valid_row}x{dst.valid_col}",
        )


def describe(t: dict[str, ElementwiseRules]) -> list[tuple[str, dict[str, str]]]:
    return per_target(t, [
        ("element type (every tile)", lambda r: spell(r.types) if r.types else "not implemented"),
        ("tiles", lambda r: "vec, row-major" if r.row_major_only else "vec, any layout"),
        ("valid shapes", lambda r: "every tile input's equals dst's"),
        ("why", lambda r: r.note),
    ])


# ---------------------------------------------------------------------------
# The kernel


def inputs(o: dict, roles: tuple[str, ...]) -> list[Any]:
    """The inputs as the formula takes them: a tile's valid region, a scalar's value."""
    return [o[r].read_valid() if isinstance(o[r], Tile) else o[r] for r in roles]


def elementwise_kernel(row: Elementwise, roles: tuple[str, ...]) -> Callable[..., None]:
    def kernel(o: dict, **choices: object) -> None:
        dst = o["dst"]
        with np.errstate(all="ignore"):  # overflow, NaN and division by zero are values here, not faults
            result = np.asarray(row.compute(*inputs(o, roles), **choices))
            dst.write_valid(result.astype(dst.flat.dtype, copy=False))

    kernel.__doc__ = row.summary
    return kernel


def elementwise_footprint(roles: tuple[str, ...]) -> Callable[..., Footprint]:
    def footprint(o: dict, **_: object) -> Footprint:
        reads = [(o[r], False, valid_rect(o[r])) for r in roles if isinstance(o[r], Tile)]
        return Footprint([*reads, (o["dst"], True, valid_rect(o["dst"]))], [])

    return footprint


class ElementwiseBase(FamilyLoweredOp):
    """dst[i, j] = f(inputs at [i, j]) over dst's valid region."""


# ---------------------------------------------------------------------------
# What it costs


def _row(op: FamilyLoweredOp) -> Elementwise:
    row = op.MEMBER
    assert isinstance(row, Elementwise)
    return row


def _cce(op: FamilyLoweredOp, o: dict, machine: CceMachine, work: Work) -> OpCost:
    """npu/a2a3/TBinOp.hpp BinaryInstr (TUnaryOp.hpp TUnaryOp alike): one intrinsic call over
    the valid rows when they are contiguous (dst's valid columns fill its rows, or one row), else one per row; repeats of
    256 bytes, the last one masked (two mask calls)."""
    dst = o["dst"]
    t = machine.trace()
    per_repeat = REPEAT_BYTES // dst.elem.bytes
    rows, cols = dst.valid_row, dst.valid_col
    if cols == dst.cols or rows == 1:
        calls, per_call = 1, rows * cols
    else:
        calls, per_call = rows, cols
    full, rest = divmod(per_call, per_repeat)

    intrinsics = _row(op).intrinsics(vf=False)

    def call() -> None:
        for name in intrinsics if full else ():
            t.vector(name, repeat=full)
        if rest:
            t.call(2)  # the tail's mask, then the full mask again
            for name in intrinsics:
                t.vector(name, repeat=1)

    t.loop(calls, call)
    return t.cost(Pipe.VECTOR, exact=False, idle=machine.idle_vector, elements=rows * cols)


def _vf(op: FamilyLoweredOp, o: dict, machine: VfMachine, work: Work) -> OpCost:
    """npu/a5/TBinOp.hpp and TUnaryOp.hpp: one vector function; per register of each valid row a predicate, a
    load per tile input, the operation and a store."""
    dst = o["dst"]
    registers = dst.valid_row * vector_repeats(dst.valid_col, dst.elem.bytes)
    loads = sum(isinstance(f, TileFacts) for r, f in o.items() if r != "dst")
    body = {"plt": registers, "vlds": loads * registers, "vsts": registers}
    for name in _row(op).intrinsics(vf=True):
        body[name] = body.get(name, 0) + registers
    return machine.cost(Pipe.VECTOR, 0, machine.vector_function(body))


def _simulated(op: FamilyLoweredOp, o: dict, machine: SimulatorMachine, work: Work) -> OpCost:
    """pto-isa cpu/: a loop over dst's valid elements."""
    dst = o["dst"]
    return machine.cost(Pipe.VECTOR, 0, dst.valid_row * dst.valid_col)


COST = InstructionCost(on={CceMachine: _cce, VfMachine: _vf, SimulatorMachine: _simulated})


# ---------------------------------------------------------------------------
# C++


def emitter(row: Elementwise, roles: tuple[str, ...]) -> Callable[[Emission, ElementwiseOp], None]:
    def emit(e: Emission, op: ElementwiseOp) -> None:
        """`TADD(dst, src0, src1)`: dst first, then the inputs (a tmp last); a high-precision
        member `TEXP<pto::ExpAlgorithm::HIGH_PRECISION>(dst, src)`."""
        tiles = [v for r, v in zip(roles, op.ins) if r != "scalar"]
        precision = op.properties.get("precisionType")
        template = [f"pto::{type(precision).ALGORITHM}::HIGH_PRECISION"] if precision and precision.data == "high_precision" else []  # pyright: ignore[reportAttributeAccessIssue]
        statement = e.call(row.cpp_name, [*op.outs, *op.ins], template)
        e.issue(Pipe.VECTOR, tiles, [*op.outs, *op.ins[len(roles):]], statement)

    return emit


# ---------------------------------------------------------------------------
# The families


def in_place(roles: tuple[str, ...]) -> dict[str, InPlace]:
    tiles = frozenset(r for r in roles if r != "scalar")
    return {
        "": InPlace(
            tiles,
            how="each element of dst is computed from the inputs' elements at its own place, all read before it is written",
            refused="dst over an input at another place would overwrite elements of it still to be read.",
            refused_by=lambda rules: rules.not_in_place or None,
        )
    }


def elementwise(op_base: type[ElementwiseOp]) -> Callable[[Elementwise], Instruction]:
    """How a row of a family whose ops derive from `op_base` becomes its instruction."""
    roles = op_base.INS

    def declare(row: Elementwise) -> Instruction:
        namespace: dict[str, Any] = {}
        if row.precision:
            namespace["precisionType"] = opt_prop_def(PRECISION_ATTRS[row.mnemonic])
        if row.with_tmp:
            forms = (*op_base.FORMS, *((n + 1, m) for n, m in op_base.FORMS))
            namespace |= {"INS": (*roles, "tmp"), "FORMS": forms, "WORKSPACE": frozenset({"tmp"})}
        op = member_op(op_base, row, **namespace)
        lowered = member_lowered_base(ElementwiseBase, op, row, elementwise_kernel(row, roles), elementwise_footprint(roles))
        return Instruction(
            op=op,
            rules=ElementwiseRules,
            check=check,
            describe=describe,
            lowered=(lowered,),
            emit=emitter(row, roles),
            pipe=Pipe.VECTOR,
            in_place=in_place(roles),
            asm=AsmForm(),
            cost=COST,
            summary=row.summary,
        )

    return declare


BINARY = Family.of(
    "binary elementwise",
    (
        Elementwise("tadd", "dst = src0 + src1", compute=operator.add, priced_as="vadd"),
    ),
    elementwise(BinaryOp),
)
"""Tile-tile arithmetic, bitwise and comparison-free operations."""


# ---------------------------------------------------------------------------
# The unary family's formulas: pto-isa's cpu/ElementOp.h (ElementOpCal OP_EXP, ...), cpu/TAbs.hpp,
# cpu/TSqrt.hpp, cpu/TRSqrt.hpp and, for TRECIP, pto_instr.hpp's TDIVS(dst, 1, src) (cpu/
# TBinSOps.hpp OP_RDIVS). The transcendentals compute in double and round once to the element
# type, f16's exp through expf (float): checked against g++ on all 65536 halves.


def rounded(values: Any, dtype: Any) -> Any:  # noqa: ANN401
    """float64 `values` rounded once to `dtype`, as C++'s static_cast does (ml_dtypes' bf16
    goes through float32 and would round twice: round to odd on the way there instead)."""
    if dtype.itemsize != 2 or dtype == np.float16:
        return values.astype(dtype)
    single = values.astype(np.float32)
    inexact = (single.astype(np.float64) != values) & np.isfinite(values)
    away = inexact & (np.abs(single.astype(np.float64)) > np.abs(values))
    bits = single.view(np.uint32) - away.astype(np.uint32)  # toward zero: the magnitude's predecessor
    return (bits | inexact.astype(np.uint32)).view(np.float32).astype(dtype)


def in_double(function: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """`static_cast<T>(function(static_cast<double>(x)))`."""

    def compute(x: Any) -> Any:  # noqa: ANN401
        return rounded(function(x.astype(np.float64)), x.dtype)

    return compute


def exp(x: Any) -> Any:  # noqa: ANN401
    """OP_EXP: half through expf (float), every other type through double."""
    if x.dtype == np.float16:
        return np.exp(x.astype(np.float64)).astype(np.float32)  # expf: exp rounded once to float
    return rounded(np.exp(x.astype(np.float64)), x.dtype)


def absolute(x: Any, *, abs_sign: AbsSign) -> Any:  # noqa: ANN401
    if abs_sign is AbsSign.CLEAR and x.dtype.kind not in "iu":
        return np.abs(x)
    return np.where(x < 0, -x, x)


def negate(x: Any) -> Any:  # noqa: ANN401
    """-x; a 2-byte float is negated through float (g++'s _Float16 arithmetic), which quiets a
    signalling NaN."""
    if x.dtype.kind in "iu" or x.dtype.itemsize != 2:
        return -x
    quiet = 0x0200 if x.dtype == np.float16 else 0x0040
    bits = (-x).view(np.uint16)
    return np.where(np.isnan(x), bits | quiet, bits).view(x.dtype)


def relu(x: Any) -> Any:  # noqa: ANN401
    """std::max(x, 0) = x < 0 ? 0 : x: -0.0 and NaN pass."""
    return np.where(x < 0, x.dtype.type(0), x)


def fault_where(bad: Any, what: str) -> None:  # noqa: ANN401
    """A located run-time fault at the first True of `bad` (a valid region, maybe batched)."""
    if bad.any():
        iteration, (row, col) = first_failing(bad, bad.ndim - 2)
        raise RuntimeFault(f"{what} at element ({row}, {col}) of the valid region", iteration)


def reciprocal(x: Any, *, zero_reciprocal: ZeroReciprocal) -> Any:  # noqa: ANN401
    """1 / x in the element type (integers: C's truncating division)."""
    if zero_reciprocal is ZeroReciprocal.FAULT:
        fault_where(x == 0, "divides 1 by zero (the simulator asserts: Divider cannot be equal to zero)")
    if x.dtype.kind == "u":
        return (x == 1).astype(x.dtype)
    if x.dtype.kind == "i":
        return np.where(np.abs(x.astype(np.int64)) == 1, x, 0).astype(x.dtype)
    return x.dtype.type(1) / x


UNARY = Family.of(
    "unary elementwise",
    (
        Elementwise("tabs", "dst = |src|", compute=absolute, priced_as="vabs", choices={"abs_sign": AbsSign}),
        Elementwise("tneg", "dst = -src", compute=negate, priced_as="vmuls"),
        Elementwise("tnot", "dst = ~src (bitwise)", compute=operator.invert, priced_as="vnot"),
        Elementwise("texp", "dst = exp(src)", compute=exp, priced_as="vexp", precision=True),
        Elementwise("tlog", "dst = ln(src)", compute=in_double(lambda x: np.log(x)), priced_as="vln", precision=True),
        Elementwise(
            "tsqrt", "dst = sqrt(src)", compute=in_double(lambda x: np.sqrt(x)), priced_as="vsqrt", precision=True
        ),
        Elementwise(
            "trsqrt", "dst = 1 / sqrt(src)", compute=in_double(lambda x: 1.0 / np.sqrt(x)), priced_as="vrsqrt",
            vf_priced_as=("vsqrt", "vdiv"), precision=True, with_tmp=True,
        ),
        Elementwise(
            "trecip", "dst = 1 / src", compute=reciprocal, priced_as=("vector_dup", "vdiv"), vf_priced_as="vdiv",
            choices={"zero_reciprocal": ZeroReciprocal}, precision=True,
        ),
        Elementwise("trelu", "dst = max(src, 0)", compute=relu, priced_as="vrelu"),
    ),
    elementwise(UnaryOp),
)
"""Tile arithmetic of one input: sign, bits, ReLU and the transcendentals."""
