"""
The elementwise families: each element of dst computed from the elements at the same place
of the inputs (pto-isa docs/isa/<NAME>.md), over dst's valid region; padding keeps its old
contents. A member is a row (`Elementwise`): its mnemonic, its NumPy formula and the intrinsic
its cost is priced as; every target's rule row says which element types it takes.

      dst[i, j] = f(src0[i, j], src1[i, j])            binary:      pto.tadd, pto.tsub, ...
      dst[i, j] = f(src[i, j], scalar)                 tile-scalar: pto.tadds, pto.tsubs, ...
      dst[i, j] = scalar                               fill:        pto.texpands
      dst[i, j] = f(src[i, j])                         unary:       pto.texp, pto.tabs, ...

        pto.tadd ins(%a, %b : T, T) outs(%d : T)
        %d = pto.tadd %a, %b : (T, T) -> T
        pto.tadds ins(%a, %s : T, f32) outs(%d : T)
        pto.texpands ins(%s : f32) outs(%d : T)
        pto.texp ins(%a : T) outs(%d : T)

A scalar reaches the C++ call as the element type (pto-isa takes `typename TileData::DType
scalar`): it is first its SSA type's value (an f32 constant rounded to f32), then converted as
C++ converts (integers wrap, floats round to nearest even, a float truncates toward zero into an
integer type; a NaN or a value out of the integer type's range is undefined there, so a run-time
error here).

What targets decide, as their lowered ops record: whether public code fixes the values
(`numerics`), and a member's own choices (its row's `choices`: `unordered` for max and min,
`division` for the divisions).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

from xdsl.dialects.builtin import Float64Type, IndexType, UnitAttr
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.irdl import opt_prop_def
from xdsl.utils.exceptions import VerifyException

from pto_dialect.attributes import PRECISION_ATTRS, DivPrecisionAttr, FmodPrecisionAttr, PowPrecisionAttr, Precision, RemPrecisionAttr
from pto_dialect.choices import AbsSign, BothNan, ByteLanes, Choice, Division, ExpArithmetic, ShiftRange, Unordered, ZeroDivisor, ZeroReciprocal
from pto_dialect.cost import CceMachine, InstructionCost, OpCost, SimulatorMachine, VfMachine, Work, simulator_loop
from pto_dialect.facts import TileFacts, known, require, require_type, spell
from pto_dialect.family import Family, FamilyLoweredOp, Member, member_instruction, member_lowered_base, member_op, member_row
from pto_dialect.instruction import Emission, InPlace, Instruction, Pipe, per_target, tmp_untouched_unless
from pto_dialect.vector import REPEAT_BYTES, vector_repeats
from pto_dialect.dtypes import element_info
from pto_dialect.machine import Footprint, RuntimeFault, Tile, first_failing, np, rect, takes_out, valid_rect
from pto_dialect.ops.common import PtoInstructionOp, Roles, parse_operand_group, print_operand_group
from pto_dialect.ops.memory import AllocTileOp, alloc_like, smallest_tile
from pto_dialect.types import TileBufType, TileTypeBase

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
    """The vector intrinsic(s) its cost is priced as (a2a3 `vadd`, a5 VfSim's `vadd`), issued
    in this order over each stretch of elements."""

    reread: tuple[str, ...] = field(default=(), kw_only=True)
    """Inputs the simulator's C++ reads again after writing dst's element: dst may not lie over
    them (TREM's src1: `dst = src0 % src1; if (... (src1 >= 0) ...) dst += src1`)."""
    op_class: type[PtoInstructionOp] | None = field(default=None, kw_only=True)
    """The op base it derives from where not its family's (TDIVS: its two spellings)."""
    sees_in_place: bool = field(default=False, kw_only=True)
    """Its formula takes `in_place`: whether dst starts where an input does (a target's code
    branches on it)."""

    clobbers_src: Callable[..., bool] | None = field(default=None, kw_only=True)
    """Whether its formula also writes its tile input (a target's code converting it in
    place), from the element dtype and the choices: the batched-loop footprint says so, and
    the op declares that input a workspace (its memory effects write it on every target)."""

    precision: type[EnumAttribute] | None = field(default=None, kw_only=True)
    """Its `precisionType` property's attribute (PTOAS's DefaultValuedAttr), if it has one:
    emitted as the C++ call's template argument where not the default; the values computed
    stay the default algorithm's (a5's high-precision sequences are approximate as well)."""
    tmp_same_type: bool = field(default=True, kw_only=True)
    """Its tmp holds dst's element type (False: any type, TRSQRT's high-precision scratch)."""
    tmp: bool = field(default=False, kw_only=True)
    """It takes an optional scratch tile as its last input (`ins(..., %tmp : ...)`): the NPU
    code computes through it, the simulator ignores it; pto-materialize-implicit-tmp adds
    one where the target's rule row wants it."""

    vf_priced_as: str | tuple[str, ...] = field(default=(), kw_only=True)
    """Where a5's code issues other intrinsics per register than a2a3's (TRSQRT: vsqrt and
    vdiv, not vrsqrt): those; empty: `priced_as`."""

    @property
    def intrinsics(self) -> tuple[str, ...]:
        return (self.priced_as,) if isinstance(self.priced_as, str) else self.priced_as

    @property
    def vf_intrinsics(self) -> tuple[str, ...]:
        """The intrinsics a5's vector function issues per register."""
        chosen = self.vf_priced_as or self.priced_as
        return (chosen,) if isinstance(chosen, str) else chosen


# ---------------------------------------------------------------------------
# The op


class ElementwiseOp(PtoInstructionOp):
    """An elementwise instruction: its inputs `INS` (tiles, and a scalar where a member takes
    one), one output `dst` of the inputs' element type."""

    INS: ClassVar[tuple[str, ...]]
    TMP_SAME_TYPE: ClassVar[bool] = True
    """A tmp (members with one) holds dst's element type (TRSQRT's: any)."""

    @classmethod
    def operand_roles(cls, n_ins: int, n_outs: int) -> Roles:
        return cls.INS[:n_ins], ("dst",)

    def verify_operands(self) -> None:
        dst = self.expect_tile("dst", self.destinations[0])
        precision = self.properties.get("precisionType")
        if "tmp" in self.INS and len(self.ins) < len(self.INS) and isinstance(precision, EnumAttribute) and (
            precision.data == Precision.HIGH_PRECISION
        ):
            raise VerifyException("expects tmp when precisionType is high_precision")
        for role, value in zip(self.INS, self.ins):
            if role == "tmp":
                tmp = self.expect_tile_in(role, value)
                if self.TMP_SAME_TYPE and tmp.element_type != dst.element_type:
                    raise VerifyException(
                        f"expects tmp and dst to have the same element type, got {tmp.element_type} and {dst.element_type}"
                    )
                continue
            if role == "scalar":
                if not isinstance(value.type, IndexType | Float64Type) and element_info(value.type) is None:
                    raise VerifyException(
                        f"expects scalar to be an 8- to 64-bit integer, index or float scalar, got {value.type}"
                    )
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


class TileScalarOp(ElementwiseOp):
    INS: ClassVar[tuple[str, ...]] = ("src", "scalar")
    FORMS: ClassVar[tuple[tuple[int, int], ...]] = ((2, 1),)


class DivideScalarOp(TileScalarOp):
    """TDIVS's op: `ins(%src, %scalar : T, S)` divides src by the scalar, `ins(%scalar, %src :
    S, T)` (pto-isa's `TDIVS(dst, scalar, src)`) the scalar by src: the operands are kept as
    (src, scalar) and `scalarFirst` records the second spelling."""

    scalar_first = opt_prop_def(UnitAttr, prop_name="scalarFirst")
    HIDDEN_IN_DPS_ATTR_DICT: ClassVar[tuple[str, ...]] = ("scalarFirst",)

    @classmethod
    def parse_dps_ins(cls, parser: Parser) -> tuple[list[SSAValue], dict[str, Attribute]]:
        names, types, pos = parse_operand_group(parser, "ins")
        values = list(parser.resolve_operands(names, types, pos))
        if len(values) == 2 and not isinstance(types[0], TileTypeBase) and isinstance(types[1], TileTypeBase):
            return values[::-1], {"scalarFirst": UnitAttr()}
        return values, {}

    def print_dps_ins(self, printer: Printer) -> None:
        if "scalarFirst" not in self.properties:
            return super().print_dps_ins(printer)
        print_operand_group(printer, "ins", list(self.ins)[::-1])
        return None


class FillOp(ElementwiseOp):
    """dst's valid region set to the scalar; PTOAS (TExpandsOp::verify) wants the scalar of
    dst's element type."""

    INS: ClassVar[tuple[str, ...]] = ("scalar",)
    FORMS: ClassVar[tuple[tuple[int, int], ...]] = ((1, 1),)

    def verify_operands(self) -> None:
        super().verify_operands()
        dst = self.expect_tile("dst", self.destinations[0])
        if self.ins[0].type != dst.element_type:
            raise VerifyException(
                f"expects scalar to have dst's element type, got {self.ins[0].type} and {dst.element_type}"
            )


# ---------------------------------------------------------------------------
# What each target accepts


TMP_ANY = "any tile (unused)"
TMP_LIKE_DST = "dst's valid shape"
TMP_DST_TYPE = "dst's tile type (the C++ takes `TileDst& tmp`)"
TMP_REMAINDER = "at least dst's Cols + 2 * ceil(Cols / 64) elements (the quotients, then the compare mask at tmp + Cols)"
TMP_ONE_ROW = "at least 1 valid row and dst's valid columns (one row of quotients and the compare mask, reused by every row)"
TMP_ONE_BLOCK = "any tile (its first 32 bytes receive the 1.0s the division reads)"
IGNORED_TMPS = (TMP_ANY, TMP_DST_TYPE)
"""The `tmp` kinds whose code never reads or writes the tile: it takes no UB at the op (`untouched`)."""


def remainder_tmp_columns(cols: int) -> int:
    """a2a3 TRem.hpp: the columns a TREM tmp needs beside dst's `cols`."""
    return cols + -(-cols // 64) * 2


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
    high_precision_types: frozenset[str] | None = None
    """dst's element types with precisionType = high_precision, where the code restricts them."""
    tmp: str = TMP_ANY
    """What a tmp tile must be (members with one): TMP_ANY (unused), TMP_DST_TYPE (unused, but
    typed as dst), TMP_LIKE_DST (dst's valid shape), TMP_REMAINDER (a2a3 TREM: dst's columns and
    two per 64 of them more), TMP_ONE_ROW (a2a3 TREMS: a valid row as wide as dst's), TMP_ONE_BLOCK
    (a2a3 TRSQRT: its first block written)."""
    not_in_place: str = ""
    """Why the target does not compute dst over an input (empty: it does)."""


def implemented_vec_tiles(operands: dict, types: frozenset[str], note: str, row_major: str = "") -> list[TileFacts]:
    """The tile operands, once checked that the target implements the instruction (its element
    `types` are not empty; else `note` says why) and that each is a Vec tile (and, where
    `row_major` words the layout, row-major)."""
    require(bool(types), f"is not implemented: {note}")
    tiles = [f for f in operands.values() if isinstance(f, TileFacts)]
    for t in tiles:
        require(t.loc == "vec", f"expects {t.role} to be a Vec tile (loc=vec), got loc={t.loc}")
        if row_major:
            require(t.is_row_major, f"expects {t.role} to use {row_major} layout, got {t.layout_text()}")
    return tiles


def check(rules: ElementwiseRules, operands: dict, attrs: Mapping[str, Attribute]) -> None:
    dst = operands["dst"]
    tiles = implemented_vec_tiles(operands, rules.types, rules.note, "the row-major" if rules.row_major_only else "")
    require_type("dst", dst.elem, rules.types)
    if isinstance(tmp := operands.get("tmp"), TileFacts):  # PTOAS's verifier: a tmp holds at least a block
        require(tmp.size_bytes >= 32, f"expects tmp to be at least 32 bytes when provided, got {tmp.size_bytes}")
    if (tmp := operands.get("tmp")) is not None and rules.tmp == TMP_REMAINDER:
        wanted = remainder_tmp_columns(dst.cols)
        require(
            tmp.rows * tmp.cols >= wanted,
            f"expects tmp to hold at least {wanted} elements (dst's {dst.cols} columns of quotients, then 2 per 64 "
            f"of them for the compare mask), got {tmp.rows}x{tmp.cols}",
        )
    if tmp is not None and rules.tmp == TMP_ONE_ROW:
        require(not known(tmp.valid_row) or tmp.valid_row >= 1, f"expects tmp valid_shape[0] to be at least 1, got {tmp.valid_row}")
        require(
            not known(tmp.valid_col, dst.valid_col) or tmp.valid_col >= dst.valid_col,
            f"expects tmp valid columns to cover dst's, got {tmp.valid_col} and {dst.valid_col}",
        )
    if rules.high_precision_types is not None and attrs.get("precisionType") is not None:
        if getattr(attrs["precisionType"], "data", None) == Precision.HIGH_PRECISION:
            allowed = rules.high_precision_types
            require(dst.elem.mlir in allowed, f"expects dst element type to be {spell(allowed)} with precisionType = "
                    f"high_precision, got {dst.elem.mlir}")
    if tmp is not None and rules.tmp == TMP_DST_TYPE:
        require(
            (tmp.rows, tmp.cols, tmp.layout_text(), tmp.valid_shape) == (dst.rows, dst.cols, dst.layout_text(), dst.valid_shape),
            f"expects tmp to have dst's tile type (the simulator's C++ takes it as a TileDst&), got "
            f"{tmp.rows}x{tmp.cols} valid {tmp.valid_row}x{tmp.valid_col} and {dst.rows}x{dst.cols} valid {dst.valid_row}x{dst.valid_col}",
        )
    for t in tiles:
        if t is dst or (t is tmp and rules.tmp != TMP_LIKE_DST) or not known(t.valid_row, t.valid_col, dst.valid_row, dst.valid_col):
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
        ("tmp (members with one)", lambda r: r.tmp),
        ("why", lambda r: r.note),
    ])


# ---------------------------------------------------------------------------
# The kernel


def fault_where(bad: Any, message: Callable[[tuple[int, ...]], str]) -> None:  # noqa: ANN401
    """A run-time error at the first element (row, col) where `bad` holds (its leading axis,
    if any beyond the two, indexes a batched loop's iterations)."""
    bad = np.asarray(bad)
    if bad.ndim < 2:
        bad = bad.reshape(1, 1)
    if bad.any():
        iteration, where = first_failing(bad, bad.ndim - 2)
        raise RuntimeFault(message(where), iteration)


def scalar_dtype(t: Attribute) -> Any:  # noqa: ANN401
    """The NumPy dtype of a scalar SSA type (index is 64-bit)."""
    if isinstance(t, IndexType):
        return np.dtype(np.int64)
    if isinstance(t, Float64Type):
        return np.dtype(np.float64)
    info = element_info(t)
    assert info is not None, t
    return info.numpy


def as_element(value: Any, ssa_type: Attribute, element: Any) -> Any:  # noqa: ANN401
    """The scalar as the C++ call receives it: its SSA type's value (a Python float or int
    from the interpreter, or one per iteration of a batched loop, shaped to broadcast over
    the valid region), converted to the element type as C++ converts."""
    with np.errstate(over="ignore", invalid="ignore"):  # out-of-range values round to infinities as C++ does
        return _as_element(value, ssa_type, element)


def _as_element(value: Any, ssa_type: Attribute, element: Any) -> Any:  # noqa: ANN401
    ssa = scalar_dtype(ssa_type)
    raw = np.asarray(value)
    if ssa.kind in "iu":
        typed = raw.astype(np.int64).astype(ssa)  # wraps to the SSA width
    else:
        typed = rounded(raw.astype(np.float64), ssa, image=True)  # the SSA value, from its double image
    if typed.ndim:
        typed = typed.reshape(-1, 1, 1)
    if element.kind in "iu" and ssa.kind not in "iu":
        wide = typed.astype(np.float64)
        info = np.iinfo(element)
        fault_where(
            ~((wide > float(info.min) - 1) & (wide < float(info.max) + 1)),
            lambda _: f"the scalar {typed.ravel()[0]} ({ssa_type}) does not fit {element} (C++ leaves the conversion undefined)",
        )
        return np.trunc(wide).astype(element)
    return rounded(typed.astype(np.float64), element) if element.name == "bfloat16" else typed.astype(element)


def same_storage(a: object, dst: Tile) -> bool:
    """Whether an input tile starts where dst does (pto-isa's `dst == src` address test)."""
    return isinstance(a, Tile) and (
        a is dst or a.flat.__array_interface__["data"][0] == dst.flat.__array_interface__["data"][0]
    )


def inputs(o: dict, roles: tuple[str, ...], element: Any, scalar_type: Attribute | None) -> list[Any]:  # noqa: ANN401
    """The inputs as the formula takes them: a tile's valid region, a scalar's value as the
    element type."""
    return [
        o[r].read_valid() if isinstance(o[r], Tile) else as_element(o[r], scalar_type, element)  # pyright: ignore[reportArgumentType]
        for r in roles
    ]


def elementwise_kernel(row: Elementwise, roles: tuple[str, ...]) -> Callable[..., None]:
    roles = tuple(r for r in roles if r != "tmp")  # scratch: no element of dst comes from it
    into_dst = takes_out(row.compute)

    def kernel(o: dict, scalar_type: Attribute | None = None, scalar_first: bool = False, **choices: object) -> None:
        dst = o["dst"]
        element = dst.flat.dtype
        values = inputs(o, roles, element, scalar_type)
        if scalar_first:
            choices["scalar_first"] = True
        if row.sees_in_place:
            choices["in_place"] = any(same_storage(o[r], dst) for r in roles)
        lanes = choices.pop("byte_lanes", ByteLanes.ELEMENT)
        if lanes is ByteLanes.PAIRED and "scalar" in roles and any(same_storage(o[r], dst) for r in roles):
            raise RuntimeFault(
                "in place: a2a3 TBitwiseSOp.hpp fills dst with the scalar before reading src, so dst over src "
                "loses src (the code asserts dst != src); use another dst"
            )
        paired = paired_column(o, roles, lanes) is not None
        out = dst.valid_view() if into_dst and not paired and all(v.dtype == element for v in values) else None
        if out is not None:
            choices["out"] = out
        with np.errstate(all="ignore"):  # overflow, NaN and division by zero are values here, not faults
            result = row.compute(*values, **choices)
        if result is out is not None:
            return
        if isinstance(result, Kept):
            result = np.where(result.kept, dst.read_valid(), result.values)
        result = np.broadcast_to(result, (*dst.flat.shape[:-1], dst.valid_row, dst.valid_col)).astype(element, copy=False)
        if not paired:
            dst.write_valid(result)
            return
        if row.tmp and "scalar" in roles:
            raise RuntimeFault(
                f"8-bit elements with an odd valid width ({dst.valid_col}): a2a3 TXORS also writes the element after "
                "each row's last from tmp's old contents (TBitwiseSOp.hpp in 16-bit pairs), which is not modelled; "
                "use an even valid width"
            )
        column = dst.valid_col  # the other half of the last 16-bit pair: the inputs there, dst's old value for the scalar
        beside = [o[r].values[..., : dst.valid_row, column : column + 1] if isinstance(o[r], Tile)
                  else dst.values[..., : dst.valid_row, column : column + 1] for r in roles]
        with np.errstate(all="ignore"):
            extra = np.asarray(row.compute(*beside, **choices)).astype(element, copy=False)
        dst.write(dst.valid_row, column + 1, np.concatenate([result, extra], axis=-1))

    kernel.__doc__ = row.summary
    return kernel


def paired_column(o: dict, roles: tuple[str, ...], lanes: object) -> int | None:
    """The column a paired 8-bit bitwise instruction computes beyond the valid region (an odd
    valid column count inside the tile), or None."""
    dst = o["dst"]
    column = dst.valid_col
    if lanes is not ByteLanes.PAIRED or dst.flat.dtype.itemsize != 1 or column % 2 == 0:
        return None
    widths = [o[r].type.shape[1] for r in (*roles, "dst") if isinstance(o[r], Tile)]
    return column if column < min(widths) else None


def elementwise_footprint(row: Elementwise, roles: tuple[str, ...]) -> Callable[..., Footprint]:
    scratch = "tmp" in roles
    roles = tuple(r for r in roles if r != "tmp")

    def footprint(o: dict, **choices: object) -> Footprint:
        written = row.clobbers_src is not None and row.clobbers_src(o["dst"].flat.dtype, **choices)
        extra = paired_column(o, roles, choices.get("byte_lanes"))

        def region(t: Tile) -> Any:  # noqa: ANN401
            return valid_rect(t) if extra is None else rect(t, o["dst"].valid_row, extra + 1)

        reads = [(o[r], False, region(o[r])) for r in roles if isinstance(o[r], Tile)]
        if extra is not None and "scalar" in roles:
            reads.append((o["dst"], False, region(o["dst"])))
        clobbered = [(o[r], True, region(o[r])) for r in roles if written and isinstance(o[r], Tile)]
        if scratch and o.get("tmp") is not None:
            clobbered.append((o["tmp"], True, None))  # the NPU code's scratch: any element
        return Footprint([*reads, *clobbered, (o["dst"], True, region(o["dst"]))], [])

    return footprint


class Kept(NamedTuple):
    """A formula's result with the elements it leaves alone (True: dst keeps its value)."""

    values: Any
    kept: Any


class ElementwiseBase(FamilyLoweredOp):
    """dst[i, j] = f(inputs at [i, j]) over dst's valid region."""

    @staticmethod
    def kernel_params(op: Operation) -> dict[str, object]:
        """The scalar's SSA type, which the kernel converts its value from."""
        scalars = [v.type for v in op.operands if not isinstance(v.type, TileTypeBase)]
        params: dict[str, object] = {"scalar_type": scalars[0]} if scalars else {}
        if "scalarFirst" in op.properties:
            params["scalar_first"] = True
        return params


# ---------------------------------------------------------------------------
# What it costs


def _cce(op: FamilyLoweredOp, o: dict, machine: CceMachine, work: Work) -> OpCost:
    """npu/a2a3/TBinOp.hpp BinaryInstr: one intrinsic call over the valid rows when they are
    contiguous (dst's valid columns fill its rows, or one row), else one per row; repeats of
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

    def call() -> None:
        for intrinsic in member_row(op, Elementwise).intrinsics:
            if full:
                t.vector(intrinsic, repeat=full)
            if rest:
                t.call(2)  # the tail's mask, then the full mask again
                t.vector(intrinsic, repeat=1)

    t.loop(calls, call)
    return t.cost(Pipe.VECTOR, exact=False, idle=machine.idle_vector, elements=rows * cols)


def _vf(op: FamilyLoweredOp, o: dict, machine: VfMachine, work: Work) -> OpCost:
    """npu/a5/TBinOp.hpp (TBinSOp.hpp): one vector function; per register of each valid row a
    predicate, a load per tile input, the operation(s) and a store. The tile ops pto-isa's a5
    cost model builds (`vfsim.tile_ops`) as it prices them: one loop over dst's valid
    registers where every tile's valid columns fill its rows (or every tile is one row), else
    a loop over the valid rows of a loop over a row's registers; VfSim's pipeline on that loop
    (`vfsim` in the table), or its per-instruction table where VfSim has no row. (Its TDIV
    takes no algorithm: a high-precision TDIV is priced as the default's loop.)"""
    dst = o["dst"]
    loads = sum(isinstance(f, TileFacts) for r, f in o.items() if r != "dst")
    row = member_row(op, Elementwise)
    if row.mnemonic in machine.vfsim.tile_ops:
        (intrinsic,) = row.vf_intrinsics
        tiles = [f for f in o.values() if isinstance(f, TileFacts)]
        flat = all(t.valid_col == t.cols for t in tiles) or all(t.rows == 1 for t in tiles)
        if flat:
            rows, per_row = 1, vector_repeats(dst.valid_row * dst.valid_col, dst.elem.bytes)
        else:
            rows, per_row = dst.valid_row, vector_repeats(dst.valid_col, dst.elem.bytes)
        cycles = machine.vfsim.cycles(intrinsic, dst.elem.mlir, loads, rows, per_row, nested=not flat)
        return machine.cost(Pipe.VECTOR, 0, cycles)
    registers = dst.valid_row * vector_repeats(dst.valid_col, dst.elem.bytes)
    body = {"plt": registers, "vlds": loads * registers, "vsts": registers}
    for name in member_row(op, Elementwise).vf_intrinsics:
        body[name] = body.get(name, 0) + registers
    return machine.cost(Pipe.VECTOR, 0, machine.vector_function(body))


COST = InstructionCost(on={CceMachine: _cce, VfMachine: _vf, SimulatorMachine: simulator_loop("dst", "pto-isa cpu/: a loop over dst's valid elements.")})


# ---------------------------------------------------------------------------
# C++


def emitter(row: Elementwise, roles: tuple[str, ...]) -> Callable[[Emission, ElementwiseOp], None]:
    def emit(e: Emission, op: ElementwiseOp) -> None:
        """`TADD(dst, src0, src1)`: dst first, then the inputs; `TDIV<pto::DivAlgorithm::HIGH_PRECISION>(...)`."""
        precision = op.properties.get("precisionType")
        template = ()
        if isinstance(precision, EnumAttribute) and precision.data == Precision.HIGH_PRECISION:
            template = (f"pto::{type(precision).ALGORITHM}::HIGH_PRECISION",)  # pyright: ignore[reportAttributeAccessIssue]
        ins = list(op.ins)[::-1] if "scalarFirst" in op.properties else list(op.ins)
        e.issue(op, e.call(row.cpp_name, [*op.outs, *ins], template))

    return emit


# ---------------------------------------------------------------------------
# The families


def implicit_tmp(op: ElementwiseOp, rules: ElementwiseRules) -> AllocTileOp | None:
    """The tmp pto-materialize-implicit-tmp adds where an op omits it: one like dst (a TREM's
    or TREMS's on a2a3 one row as wide as its code wants), the smallest tile where the code ignores it."""
    if len(op.ins) == len(op.INS):
        return None
    dst = op.destinations[0].type
    assert isinstance(dst, TileTypeBase)
    if rules.tmp in (TMP_ANY, TMP_ONE_BLOCK):
        return AllocTileOp(smallest_tile(dst))
    if rules.tmp in (TMP_LIKE_DST, TMP_DST_TYPE):
        return alloc_like(op, op.destinations[0])
    per_block = 32 // dst.element.bytes
    wanted = remainder_tmp_columns(dst.shape[1]) if rules.tmp == TMP_REMAINDER else dst.shape[1]
    cols = -(-wanted // per_block) * per_block
    return AllocTileOp(TileBufType.get("vec", (1, cols), dst.element_type))


def untouched(op: ElementwiseOp, rules: ElementwiseRules) -> frozenset[str]:
    """A tmp the target's code ignores (IGNORED_TMPS) takes no UB at the op. a2a3's TPOW and TPOWS
    use theirs for float only (npu/a2a3/TPow.hpp): counted as used for integers too."""
    return tmp_untouched_unless(rules.tmp not in IGNORED_TMPS)


def refused_by_target(rules: ElementwiseRules) -> str | None:
    """Why a target's rule row refuses dst over an input (ElementwiseRules.not_in_place)."""
    return rules.not_in_place or None


def in_place(
    row: Elementwise, roles: tuple[str, ...], refused_by: Callable[[Any], str | None] | None = refused_by_target
) -> dict[str, InPlace]:
    """What a member computes in place; `refused_by` reads a target's rule row for a refusal of
    its own (None: a family whose rule rows have none)."""
    tiles = frozenset(r for r in roles if r not in ("scalar", "tmp", *row.reread))
    refused = "dst over an input at another place would overwrite elements of it still to be read."
    if row.reread:
        refused += (f" dst over {' or '.join(row.reread)}: the simulator's C++ reads that element again after writing "
                    "dst's (cpu/ElementOp.h), so it would compute something else.")
    return {
        "": InPlace(
            tiles,
            how="each element of dst is computed from the inputs' elements at its own place, all read before it is written",
            refused=refused,
            refused_by=refused_by,
        )
    }


def elementwise(op_base: type[ElementwiseOp]) -> Callable[[Elementwise], Instruction]:
    """How a row of a family whose ops derive from `op_base` becomes its instruction."""
    roles = op_base.INS

    def declare(row: Elementwise) -> Instruction:
        ins = (*op_base.INS, "tmp") if row.tmp else op_base.INS
        workspace = {"src"} if row.clobbers_src else set()
        shape: dict[str, Any] = {}
        if row.tmp:
            (count, outs), = op_base.FORMS
            shape = {"INS": ins, "FORMS": ((count, outs), (count + 1, outs))}
            workspace.add("tmp")
        namespace: dict[str, Any] = {
            "__annotations__": {k: ClassVar for k in ("WORKSPACE", "TMP_SAME_TYPE", *shape)},
            "WORKSPACE": frozenset(workspace), "TMP_SAME_TYPE": row.tmp_same_type, **shape,
        }
        if row.precision is not None:
            namespace["precision_type"] = opt_prop_def(row.precision, prop_name="precisionType")
            namespace["DEFAULTS"] = {"precisionType": row.precision(Precision.DEFAULT)}
            namespace["OMITS_DEFAULTS"] = True
            namespace["__annotations__"] |= {"DEFAULTS": ClassVar, "OMITS_DEFAULTS": ClassVar}
        op = member_op(row.op_class or op_base, row, **namespace)
        # a TDIVS lowered op keeps which spelling it came from
        spelling = {"scalar_first": opt_prop_def(UnitAttr, prop_name="scalarFirst")} if row.op_class is DivideScalarOp else {}
        kernel, footprint = elementwise_kernel(row, ins), elementwise_footprint(row, ins)
        lowered = member_lowered_base(ElementwiseBase, op, row, kernel, footprint, **spelling)
        return member_instruction(
            row, lowered, rules=ElementwiseRules, check_rule=check, docs_table=describe, emit=emitter(row, roles), cost=COST,
            in_place=in_place(row, roles), implicit_tmp=implicit_tmp if row.tmp else None,
            untouched=untouched if row.tmp else None,
        )

    return declare


# ---------------------------------------------------------------------------
# The formulas (each on NumPy arrays of the element type; a scalar is a 0-d array, or one per
# iteration of a batched loop shaped (n, 1, 1))


def quieted(x: Any, shape: tuple[int, ...]) -> Any:  # noqa: ANN401
    """NaN `x` (broadcast to `shape`) with its quiet bit set, as x86 returns a NaN operand."""
    bits = f"u{x.dtype.itemsize}"
    quiet = np.array(1 << (mantissa_bits(x.dtype) - 1), bits)
    return (np.ascontiguousarray(np.broadcast_to(x, shape)).view(bits) | quiet).view(x.dtype)


def with_payloads(result: Any, a: Any, b: Any) -> Any:  # noqa: ANN401
    """`result` of a bf16 operation where one operand is NaN: that operand, quieted, as x86's
    float operation gives and C++'s conversion back to bf16 keeps (ml_dtypes' bf16 arithmetic
    drops every payload; NumPy's f16 and f32 keep them)."""
    if a.dtype.name != "bfloat16":
        return result
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    result = np.where(nan_a & ~nan_b, quieted(a, result.shape), result)
    return np.where(nan_b & ~nan_a, quieted(b, result.shape), result)


def keeping_payloads(operation: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """`operation` (src op scalar) on bf16 with x86's NaN: a lone NaN operand's payload, src's
    where both are (g++ -O0 computes `src op scalar` on src's register); NumPy's own on others."""

    def compute(a: Any, b: Any) -> Any:  # noqa: ANN401
        result = np.asarray(operation(a, b))
        return with_nan_of(result, a, b, BothNan.SRC0) if a.dtype.name == "bfloat16" else result

    return compute


def with_nan_of(result: Any, a: Any, b: Any, both_nan: BothNan) -> Any:  # noqa: ANN401
    """`result` where an operand is NaN as x86 computes it: the NaN operand, quieted; where both
    are, the chosen one's (NumPy's own choice varies: its f16 loops keep a signalling operand's)."""
    if a.dtype.kind in "iu":
        return result
    result = np.where(np.isnan(a) & np.isnan(b), quieted(b if both_nan is BothNan.SRC1 else a, result.shape), result)
    return with_payloads(result, a, b)


def add(a: Any, b: Any, *, both_nan: BothNan) -> Any:  # noqa: ANN401
    return with_nan_of(np.asarray(a + b), a, b, both_nan)


def multiply(a: Any, b: Any, *, both_nan: BothNan) -> Any:  # noqa: ANN401
    return with_nan_of(np.asarray(a * b), a, b, both_nan)


def subtract(a: Any, b: Any, *, both_nan: BothNan) -> Any:  # noqa: ANN401
    return with_nan_of(np.asarray(a - b), a, b, both_nan)


def maximum(a: Any, b: Any, *, unordered: Unordered) -> Any:  # noqa: ANN401
    """cpu ElementOp.h / TMax.hpp std::max(a, b) = (a < b) ? b : a; NPUs vmax / vmaxs."""
    return np.where(a < b, b, a) if unordered is Unordered.FIRST else np.maximum(a, b)


def minimum(a: Any, b: Any, *, unordered: Unordered) -> Any:  # noqa: ANN401
    """cpu std::min(a, b) = (b < a) ? b : a; NPUs vmin / vmins."""
    return np.where(b < a, b, a) if unordered is Unordered.FIRST else np.minimum(a, b)


def divisor_name(a: Any, b: Any) -> Callable[[tuple[int, ...]], str]:  # noqa: ANN401
    """How a fault names the divisor at an element: src1's element, or the scalar."""
    if np.ndim(b) >= 2 and np.shape(b)[-2:] == np.shape(a)[-2:]:
        return lambda at: f"src1 element {at}"
    return lambda _: "the scalar divisor"


def truncated_quotient(a: Any, b: Any) -> Any:  # noqa: ANN401
    """C++ integer division: toward zero; a zero divisor traps (SIGFPE on the simulator's
    x86), as does the least 32/64-bit integer by -1 (8/16-bit operands are promoted to int
    first, so theirs wraps when stored)."""
    name = divisor_name(a, b)
    a, b = np.broadcast_arrays(a, b)
    fault_where(b == 0, lambda at: f"divides by zero: {name(at)} is 0 (integer division traps)")
    if a.dtype.itemsize >= 4 and a.dtype.kind == "i":
        least = np.iinfo(a.dtype).min
        fault_where(
            (a == least) & (b == -1),
            lambda at: f"divides {least} (src element {at}) by -1: the quotient overflows {a.dtype} (integer division traps)",
        )
    wide = np.int64 if a.dtype.kind == "i" or a.dtype.itemsize < 8 else np.uint64
    x, y = a.astype(wide), np.where(b == 0, 1, b).astype(wide)
    q = x // y
    q += ((x % y) != 0) & ((x < 0) != (y < 0))  # floor to truncation
    return q.astype(a.dtype)


def quotient_through_float(a: Any, b: Any) -> Any:  # noqa: ANN401
    """a2a3 TDivS.hpp's integer path: the scalar broadcast and converted (vector_dup,
    vconv_s322f32 / vconv_s162f16), src converted in place (so src keeps the float bits
    after the instruction: `a`, its valid region, is written), vdiv in that float type, the
    quotient converted toward zero (vconv_f322s32z / vconv_f162s16z)."""
    as_float = np.float32 if a.dtype.itemsize == 4 else np.float16
    x, y = a.astype(as_float), np.broadcast_to(b, a.shape).astype(as_float)
    fault_where(y == 0, lambda _: "divides by zero: the scalar divisor is 0 (vdiv's infinity converted back to an integer is in no public code)")
    a[...] = x.view(a.dtype)
    info = np.iinfo(a.dtype)
    return np.clip(np.trunc(x / y), info.min, info.max).astype(a.dtype)


def divide(a: Any, b: Any, *, division: Division, in_place: bool = False, scalar_first: bool = False) -> Any:  # noqa: ANN401
    """src0 / src1 (TDIV), src / scalar (TDIVS), scalar / src (TDIVS scalar first); see
    `Division` (two NaNs: the dividend's payload)."""
    if scalar_first:
        return scalar_over(a, b, division)
    if a.dtype.kind in "iu":
        if division is not Division.A2A3_VECTOR:
            return truncated_quotient(a, b)
        if in_place:
            raise RuntimeFault(
                "in place on integers: a2a3 TDivS.hpp broadcasts the scalar into dst, which is src, before "
                "converting src (prepare_s32_data/prepare_s16_data), so its result is not a quotient; use another dst"
            )
        return quotient_through_float(a, b)
    if division is Division.A2A3_VECTOR and in_place:
        return a * (np.float32(1) / b.astype(np.float32)).astype(a.dtype)
    return with_nan_of(np.asarray(a / b), a, b, BothNan.SRC0)


def shift_counts(a: Any, b: Any, shift_range: ShiftRange) -> Any:  # noqa: ANN401
    """The counts as int64, every one defined (else a run-time error naming the first)."""
    bits = 8 * a.dtype.itemsize
    limit = max(32, bits) if shift_range is ShiftRange.PROMOTED else bits
    counts = np.broadcast_to(b, a.shape).astype(np.int64) if b.dtype.kind == "i" or b.dtype.itemsize < 8 else np.broadcast_to(b, a.shape)
    bad = (counts < 0) | (counts >= limit) if counts.dtype.kind == "i" else counts >= limit
    name = divisor_name(a, b)
    fault_where(bad, lambda at: f"shifts by {counts[(..., *at)].ravel()[0]} ({name(at).replace(' divisor', '')}): "
                f"counts from 0 to {limit - 1} are defined for {a.dtype} here ({shift_range.phrase.split(':')[0]})")
    return counts.astype(np.uint64)


def shift_left(a: Any, b: Any, *, shift_range: ShiftRange) -> Any:  # noqa: ANN401
    """src << count: the bits shifted out of the element (or its promoted int) are lost."""
    counts = shift_counts(a, b, shift_range)
    unsigned = a.view(f"u{a.dtype.itemsize}").astype(np.uint64)
    return (unsigned << counts).astype(f"u{a.dtype.itemsize}").view(a.dtype)


def shift_right(a: Any, b: Any, *, shift_range: ShiftRange) -> Any:  # noqa: ANN401
    """src >> count: arithmetic for signed elements (C++20, the vector shifts' signed form),
    logical for unsigned ones."""
    counts = shift_counts(a, b, shift_range)
    if a.dtype.kind == "u":
        return (a.astype(np.uint64) >> np.minimum(counts, 63)).astype(a.dtype)
    return (a.astype(np.int64) >> np.minimum(counts, 63).astype(np.int64)).astype(a.dtype)


def remainder_toward_zero(a: Any, b: Any, *, zero_divisor: ZeroDivisor) -> Any:  # noqa: ANN401
    """C++ `%` for integers (the sign of src), fmod through double for floats (exact, so the
    cast back does not round); a zero divisor as `zero_divisor` says."""
    if zero_divisor is ZeroDivisor.SKIPPED:
        zero = np.broadcast_to(b == 0, a.shape)
        return Kept(remainder_toward_zero(a, np.where(b == 0, np.ones_like(b), b), zero_divisor=ZeroDivisor.IEEE), zero)
    name = divisor_name(a, b)
    b = np.broadcast_to(b, a.shape)
    if a.dtype.kind in "iu" or zero_divisor is ZeroDivisor.ASSERTED:
        why = "the simulator asserts src1 != 0" if zero_divisor is ZeroDivisor.ASSERTED else "integer division traps"
        fault_where(b == 0, lambda at: f"divides by zero: {name(at)} is 0 ({why})")
    if a.dtype.kind in "iu":
        if a.dtype.itemsize >= 4 and a.dtype.kind == "i":
            least = np.iinfo(a.dtype).min
            fault_where((a == least) & (b == -1), lambda at: f"takes {least} (src element {at}) modulo -1: integer division traps")
        return np.fmod(a, np.where(b == 0, 1, b))
    return rounded(np.fmod(as_c_double(a), as_c_double(b)), a.dtype)


def floor_remainder(a: Any, b: Any, *, zero_divisor: ZeroDivisor) -> Any:  # noqa: ANN401
    """cpu ElementOp.h OP_REM / OP_REMS: the remainder toward zero, plus the divisor where it
    is nonzero and the operands' signs (`>= 0`) differ (so it takes the divisor's sign), that
    sum in the element type."""
    r = remainder_toward_zero(a, b, zero_divisor=zero_divisor)
    kept = None
    if isinstance(r, Kept):
        r, kept = r
    b = np.broadcast_to(b, a.shape)
    fixed = np.where(((a >= 0) != (b >= 0)) & (r != 0), with_nan_of(np.asarray(r + b), r, b, BothNan.SRC0), r)
    return fixed if kept is None else Kept(fixed, kept)


def integer_power(a: Any, b: Any) -> Any:  # noqa: ANN401
    """cpu TPow.hpp integer_pow: 1 for a zero exponent or a base of 1; for a negative one, -1's
    alternating sign and 0 otherwise; else squaring, wrapping in the element type."""
    bits = 8 * a.dtype.itemsize
    unsigned = f"u{a.dtype.itemsize}"
    e = np.broadcast_to(b, a.shape).astype(np.int64)  # static_cast<int64_t>: wraps a uint64 past 2^63
    minus_one = (a == -1) if a.dtype.kind == "i" else (a == np.iinfo(a.dtype).max) if bits >= 32 else np.zeros(a.shape, bool)
    result = np.ones(a.shape, np.uint64)
    base = a.view(unsigned).astype(np.uint64)
    mask = np.uint64((1 << bits) - 1) if bits < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)
    left = np.where(e > 0, e, 0).astype(np.uint64)
    while left.any():  # over the exponents' bits (at most 63 rounds), every element at once
        odd = (left & np.uint64(1)).astype(bool)
        result = np.where(odd, (result * base) & mask, result)
        base = (base * base) & mask
        left >>= np.uint64(1)
    powers = result.astype(unsigned).view(a.dtype)
    negative = np.where(minus_one, np.where(e % 2 == 0, 1, -1), 0).astype(np.int64).astype(a.dtype)
    ones = np.ones(a.shape, a.dtype)
    return np.where((e == 0) | (a == 1), ones, np.where(e < 0, negative, powers))


def as_c_double(x: Any) -> Any:  # noqa: ANN401
    """`static_cast<double>(x)`: a signalling NaN made quiet, as x86's conversions do (NumPy's
    f16 cast keeps it signalling)."""
    d = np.asarray(x).astype(np.float64)
    if d.dtype.kind == "f" and np.asarray(x).dtype.kind not in "iu":
        d = np.where(np.isnan(d), (d.view(np.uint64) | np.uint64(1 << 51)).view(np.float64), d)
    return d


def libm_pow(a: Any, b: Any) -> Any:  # noqa: ANN401
    """std::pow on the operands converted to double (quiet NaNs then: glibc's signalling-NaN
    cases never arise): NumPy's float64 power, but for glibc's sign of a NaN base raised to an odd
    integer (it squares the base and negates the square, flipping the NaN's sign: NumPy keeps it)."""
    x, y = as_c_double(a), np.broadcast_to(as_c_double(b), np.shape(a))
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        result = np.power(x, y)
        odd = np.isfinite(y) & (np.floor(y) == y) & (np.fmod(y, 2) != 0)
    return np.where(np.isnan(x) & np.signbit(x) & odd, np.negative(result), result)


def power(a: Any, b: Any) -> Any:  # noqa: ANN401
    """TPOW (cpu TPow.hpp compute_pow): integer_power for integers; pow in double for floats,
    half through float (`static_cast<half>(static_cast<float>(result))`)."""
    if a.dtype.kind in "iu":
        return integer_power(a, b)
    result = libm_pow(a, b)
    return result.astype(np.float32).astype(a.dtype) if a.dtype == np.float16 else rounded(result, a.dtype)


def scalar_power(a: Any, b: Any) -> Any:  # noqa: ANN401
    """TPOWS (cpu ElementOp.h OP_POWS): `static_cast<DType>(std::pow(double(src), double(scalar)))`
    for every type: straight from double, a value no integer type holds undefined."""
    result = libm_pow(a, b)
    if a.dtype.kind not in "iu":
        return rounded(result, a.dtype)
    info = np.iinfo(a.dtype)
    fault_where(~((result > float(info.min) - 1) & (result < float(info.max) + 1)),
                lambda at: f"pow(src element {at}, scalar) = {result[(..., *at)].ravel()[0]} does not fit {a.dtype} (C++ leaves the conversion undefined)")
    return np.trunc(result).astype(a.dtype)


def subtract_relu(a: Any, b: Any) -> Any:  # noqa: ANN401
    """cpu ElementOp.h OP_SUBRELU: ReLU(src0 - src1) = (d > 0) ? d : 0 (common.hpp), so NaN and -0.0 give
    +0.0; d is C++'s difference: in the element type for floats and 32/64-bit integers (unsigned ones
    wrap), in int for 8- and 16-bit ones (promoted: the ReLU sees the true difference, the store wraps
    it). A signed 32/64-bit difference that overflows is undefined there (a compiler may test
    src0 > src1 instead), so a run-time error here. The NPUs take half and float only."""
    if a.dtype.kind in "iu" and a.dtype.itemsize < 4:
        d = a.astype(np.int64) - b.astype(np.int64)
        return np.where(d > 0, d, 0).astype(a.dtype)
    d = np.asarray(a - b)
    if a.dtype.kind == "i":
        overflow = ((a < 0) != (b < 0)) & ((d < 0) != (a < 0))
        fault_where(overflow, lambda at: f"src0 - src1 overflows {a.dtype} at element {at} (signed overflow is undefined "
                    "in C++: the simulator's ReLU(src0 - src1) has no defined value there)")
    return np.where(d > 0, d, np.zeros((), a.dtype))


def leaky_relu(a: Any, slope: Any) -> Any:  # noqa: ANN401
    """cpu ElementOp.h OP_LRELU: (src > 0) ? src : src * slope (NaN and -0 take the product)."""
    product = np.asarray(a * slope)
    return np.where(a > 0, a, with_nan_of(product, a, slope, BothNan.SRC0) if a.dtype.name == "bfloat16" else product)


def scalar_over(src: Any, scalar: Any, division: Division) -> Any:  # noqa: ANN401
    """scalar / src: cpu OP_RDIVS asserts src != 0; a2a3 SDivOp: the integer path through float
    (src converted in place), vdiv for floats; a5: C division for integers, vdiv for floats."""
    s = np.broadcast_to(scalar, src.shape)
    if division is Division.SIMULATOR:
        fault_where(src == 0, lambda at: f"divides the scalar by zero: src element {at} is 0 (the simulator asserts src != 0)")
    if src.dtype.kind in "iu":
        if division is Division.A2A3_VECTOR:
            as_float = np.float32 if src.dtype.itemsize == 4 else np.float16
            x = src.astype(as_float)
            fault_where(x == 0, lambda at: f"divides the scalar by zero: src element {at} is 0 (vdiv's infinity converted back to an integer is in no public code)")
            quotient = np.trunc(s.astype(as_float) / x)
            src[...] = x.view(src.dtype)
            info = np.iinfo(src.dtype)
            return np.clip(quotient, info.min, info.max).astype(src.dtype)
        return truncated_quotient(np.ascontiguousarray(s), src)
    return with_nan_of(np.asarray(s / src), s, src, BothNan.SRC0)


def integers_through_float(element: Any, *, division: Division, **_: object) -> bool:  # noqa: ANN401
    """a2a3's integer TDIVS leaves src converted to float (quotient_through_float, scalar_over)."""
    return division is Division.A2A3_VECTOR and element.kind in "iu"


def fill(scalar: Any) -> Any:  # noqa: ANN401
    return scalar


# ---------------------------------------------------------------------------
# What targets choose


def choosing(*values: Choice, **by_mnemonic: tuple[Choice, ...]) -> Callable[[Member, PtoInstructionOp], dict[str, Choice]]:
    """A target's `choose` (lowering/convert.py TargetOps.family) for the elementwise families:
    for each choice a member's row names, the value of that kind among `values`, or among
    `by_mnemonic[mnemonic]` first."""

    def choose(row: Member, op: PtoInstructionOp) -> dict[str, Choice]:
        own = by_mnemonic.get(row.mnemonic, ())
        return {name: next(v for v in (*own, *values) if isinstance(v, kind)) for name, kind in row.choices.items()}

    return choose


VECTOR_UNIT_REFERENCES = {
    "tfmod": "fmod in double, rounded to the element type (a2a3 and a5 compose vdiv, a truncation, vmul and vsub)",
    "tfmods": "fmod in double, rounded to the element type (a2a3 and a5 compose vdiv, a truncation, vmuls and vsub)",
    "tlrelu": "(src > 0) ? src : src * slope (vlrelu's NaN and signed-zero results are in no public code)",
    "trem": "the simulator's remainder (a2a3 and a5 compose vdiv, conversions, vmul and vsub)",
    "trems": "the simulator's remainder (a2a3 and a5 compose vdiv, conversions, vmuls and vsub)",
    "tpow": "the simulator's pow (a2a3 and a5 compose vln, vexp and repeated multiplication)",
    "tpows": "the simulator's pow (a2a3 and a5 compose vln, vexp and repeated multiplication)",
    "tdiv": "the IEEE quotient in the element type (vdiv's rounding and zero-divisor results are in no public code)",
    "tdivs": "the IEEE quotient in the element type (vdiv's rounding is in no public code)",
    "tmax": "NumPy's maximum (vmax's NaN and signed-zero results are in no public code)",
    "tmin": "NumPy's minimum (vmin's NaN and signed-zero results are in no public code)",
    "tmaxs": "NumPy's maximum (vmaxs's NaN and signed-zero results are in no public code)",
    "tmins": "NumPy's minimum (vmins's NaN and signed-zero results are in no public code)",
    "texp": "NumPy's float32 exp for f32 (within 3 ulp of cpu's exp in double rounded once), cpu's formula for the "
            "other types; vexp's own rounding is not public",
    "tlog": "ln in double rounded once (cpu's formula); vln's own rounding is not public",
    "tsqrt": "sqrt correctly rounded (cpu's formula); vsqrt's own rounding is not public",
    "trsqrt": "1 / sqrt in double rounded once (cpu's formula); vrsqrt's own rounding is not public",
    "trecip": "1 / x correctly rounded, +-inf at zero; vdiv's own rounding is not public",
    "tabs": "IEEE abs (sign bit cleared; integers wrap); vabs on -0.0, NaN and the integer minimum is not public",
    "trelu": "std::max(x, 0) as cpu (-0.0 and NaN pass); vrelu on -0.0 and NaN is not public",
    "tsubrelu": "(d > 0) ? d : 0 for d = src0 - src1 as cpu (NaN and -0.0 give +0.0); a2a3's vsubrelu and a5's vsub "
                "then vrelu on -0.0 and NaN are not public",
}
"""The members whose values on the NPUs come from a vector intrinsic no public code fixes,
with the reference the interpreter computes there."""


def on_vector_unit(family: Family, references: Mapping[str, str] = VECTOR_UNIT_REFERENCES) -> dict[str, str]:
    """The `references` (VECTOR_UNIT_REFERENCES unless said) of the members of `family` (a
    target's `approximate`)."""
    return {m: why for m, why in references.items() if any(r.mnemonic == m for r in family.rows)}


# ---------------------------------------------------------------------------
# The families


NAN_PAYLOAD = {"both_nan": BothNan}
MAX_MIN = {"unordered": Unordered}
DIVISION = {"division": Division}
SHIFT = {"shift_range": ShiftRange}
BITWISE = {"byte_lanes": ByteLanes}
REMAINDER = {"zero_divisor": ZeroDivisor}

BINARY = Family.of(
    "binary elementwise",
    (
        Elementwise("tadd", "dst = src0 + src1", compute=add, priced_as="vadd", choices=NAN_PAYLOAD),
        Elementwise("tsub", "dst = src0 - src1", compute=subtract, priced_as="vsub", choices=NAN_PAYLOAD),
        Elementwise("tmul", "dst = src0 * src1", compute=multiply, priced_as="vmul", choices=NAN_PAYLOAD),
        Elementwise("tdiv", "dst = src0 / src1", compute=divide, priced_as="vdiv", choices=DIVISION,
                    precision=DivPrecisionAttr),
        Elementwise("tmax", "dst = max(src0, src1)", compute=maximum, priced_as="vmax", choices=MAX_MIN),
        Elementwise("tmin", "dst = min(src0, src1)", compute=minimum, priced_as="vmin", choices=MAX_MIN),
        Elementwise("tand", "dst = src0 & src1", compute=operator.and_, priced_as="vand", choices=BITWISE),
        Elementwise("tor", "dst = src0 | src1", compute=operator.or_, priced_as="vor", choices=BITWISE),
        Elementwise("tshl", "dst = src0 << src1", compute=shift_left, priced_as="vshl", choices=SHIFT),
        Elementwise("tshr", "dst = src0 >> src1", compute=shift_right, priced_as="vshr", choices=SHIFT),
        Elementwise("tfmod", "dst = fmod(src0, src1)", compute=remainder_toward_zero, priced_as=("vdiv", "vmul", "vsub"),
                    choices=REMAINDER, precision=FmodPrecisionAttr),
        Elementwise("trem", "dst = src0 mod src1 (the sign of src1)", compute=floor_remainder,
                    priced_as=("vdiv", "vmul", "vsub", "vadd"), choices=REMAINDER, tmp=True, precision=RemPrecisionAttr,
                    reread=("src1",)),
        Elementwise("txor", "dst = src0 ^ src1", compute=operator.xor, priced_as=("vor", "vand", "vnot", "vand"),
                    choices=BITWISE, tmp=True),
        Elementwise("tpow", "dst = pow(src0, src1)", compute=power, priced_as=("vln", "vmul", "vexp"), tmp=True,
                    precision=PowPrecisionAttr),
        Elementwise("tsubrelu", "dst = max(src0 - src1, 0)", compute=subtract_relu, priced_as="vsubrelu",
                    vf_priced_as=("vsub", "vrelu")),
    ),
    elementwise(BinaryOp),
)
"""Tile-tile arithmetic, bitwise and comparison-free operations."""

TILE_SCALAR = Family.of(
    "tile-scalar elementwise",
    (
        Elementwise("tadds", "dst = src + scalar", compute=keeping_payloads(operator.add), priced_as="vadds"),
        Elementwise("tsubs", "dst = src - scalar", compute=keeping_payloads(operator.sub), priced_as="vadds"),
        Elementwise("tmuls", "dst = src * scalar", compute=keeping_payloads(operator.mul), priced_as="vmuls"),
        Elementwise("tdivs", "dst = src / scalar", compute=divide, priced_as=("vector_dup", "vdiv"),
                    choices=DIVISION, sees_in_place=True, clobbers_src=integers_through_float, precision=DivPrecisionAttr,
                    op_class=DivideScalarOp),
        Elementwise("tmaxs", "dst = max(src, scalar)", compute=maximum, priced_as="vmaxs", choices=MAX_MIN),
        Elementwise("tmins", "dst = min(src, scalar)", compute=minimum, priced_as="vmins", choices=MAX_MIN),
        Elementwise("tands", "dst = src & scalar", compute=operator.and_, priced_as=("vector_dup", "vand"), choices=BITWISE),
        Elementwise("tors", "dst = src | scalar", compute=operator.or_, priced_as=("vector_dup", "vor"), choices=BITWISE),
        Elementwise("tshls", "dst = src << scalar", compute=shift_left, priced_as="vshls", choices=SHIFT),
        Elementwise("tshrs", "dst = src >> scalar", compute=shift_right, priced_as="vshrs", choices=SHIFT),
        Elementwise("tfmods", "dst = fmod(src, scalar)", compute=remainder_toward_zero,
                    priced_as=("vector_dup", "vdiv", "vmul", "vsub"), choices=REMAINDER),
        Elementwise("tlrelu", "dst = src > 0 ? src : src * scalar", compute=leaky_relu, priced_as="vlrelu"),
        Elementwise("trems", "dst = src mod scalar (the sign of scalar)", compute=floor_remainder,
                    priced_as=("vector_dup", "vdiv", "vmul", "vsub", "vadd"), choices=REMAINDER, tmp=True),
        Elementwise("txors", "dst = src ^ scalar", compute=operator.xor,
                    priced_as=("vector_dup", "vor", "vector_dup", "vand", "vnot", "vand"), choices=BITWISE, tmp=True),
        Elementwise("tpows", "dst = pow(src, scalar)", compute=scalar_power, priced_as=("vln", "vmuls", "vexp"), tmp=True,
                    precision=PowPrecisionAttr),
    ),
    elementwise(TileScalarOp),
)
"""A tile and a scalar, the scalar converted to the element type first."""

FILL = Family.of(
    "fill",
    (Elementwise("texpands", "dst = scalar", compute=fill, priced_as="vector_dup"),),
    elementwise(FillOp),
)
"""dst's valid region set to one scalar."""


# ---------------------------------------------------------------------------
# The unary family's formulas: pto-isa's cpu/ElementOp.h (ElementOpCal OP_EXP, ...), cpu/TAbs.hpp,
# cpu/TSqrt.hpp, cpu/TRSqrt.hpp and, for TRECIP, pto_instr.hpp's TDIVS(dst, 1, src) (cpu/
# TBinSOps.hpp OP_RDIVS). The transcendentals compute in double and round once to the element
# type, f16's exp through expf (float): checked against g++ on all 65536 halves.


def rounded(values: Any, dtype: Any, image: bool = False) -> Any:  # noqa: ANN401
    """float64 `values` rounded once to `dtype`, as C++'s static_cast does (ml_dtypes' bf16
    goes through float32 and would round twice: round to odd on the way there instead; it would
    also drop a NaN's payload, which C++ keeps). `image`: the values are a `dtype` value's float64
    image, taken back bit for bit (no conversion happens: a signalling NaN stays so)."""
    if dtype.itemsize != 2 or dtype == np.float16:
        return values.astype(dtype)
    single = values.astype(np.float32)
    inexact = (single.astype(np.float64) != values) & np.isfinite(values)
    away = inexact & (np.abs(single.astype(np.float64)) > np.abs(values))
    bits = single.view(np.uint32) - away.astype(np.uint32)  # toward zero: the magnitude's predecessor
    result = (bits | inexact.astype(np.uint32)).view(np.float32).astype(dtype)
    nan = np.isnan(values)
    return np.where(nan, converted_nan(values, dtype, quiet=not image), result) if nan.any() else result


def mantissa_bits(dtype: Any) -> int:  # noqa: ANN401
    return {2: 10 if dtype == np.float16 else 7, 4: 23, 8: 52}[dtype.itemsize]


def converted_nan(x: Any, dtype: Any, quiet: bool = True) -> Any:  # noqa: ANN401
    """A C++ float conversion of NaN `x`: sign and payload kept (the payload's top bits when
    narrowing), the quiet bit set (NumPy's cast keeps a signalling NaN signalling); but bf16 to
    float is the 16-bit shift clang compiles it to, which keeps a signalling NaN signalling (the
    simulator as clang 19 builds it: bench/simdiff --cxx)."""
    m_src, m_dst = mantissa_bits(x.dtype), mantissa_bits(dtype)
    src = x.view(f"u{x.dtype.itemsize}").astype(np.uint64)
    payload = src & np.uint64((1 << m_src) - 1)
    payload = payload >> np.uint64(m_src - m_dst) if m_src > m_dst else payload << np.uint64(m_dst - m_src)
    width = 8 * dtype.itemsize
    sign = (src >> np.uint64(8 * x.dtype.itemsize - 1)) << np.uint64(width - 1)
    exponent = np.uint64(((1 << (width - 1 - m_dst)) - 1) << m_dst)
    quieted = quiet and not (x.dtype.name == "bfloat16" and dtype == np.float32)
    bits = sign | exponent | payload | np.uint64(1 << (m_dst - 1) if quieted else 0)
    return bits.astype(f"u{dtype.itemsize}").view(dtype)


def in_double(function: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """`static_cast<T>(function(static_cast<double>(x)))`."""

    def compute(x: Any) -> Any:  # noqa: ANN401
        return rounded(function(x.astype(np.float64)), x.dtype)

    return compute


def exp(x: Any, *, exp_arithmetic: ExpArithmetic, out: Any = None) -> Any:  # noqa: ANN401
    """OP_EXP: half through expf (float), every other type through double; float32 in float32
    where the target's choice says so."""
    if x.dtype == np.float16:
        return np.exp(x.astype(np.float64)).astype(np.float32)  # expf: exp rounded once to float
    if x.dtype == np.float32:  # the ufunc casts to double and back block by block: no double-sized arrays
        into = np.empty(x.shape, x.dtype) if out is None else out
        if exp_arithmetic is ExpArithmetic.SINGLE:
            return np.exp(x, out=into)
        return np.exp(x, out=into, dtype=np.float64, casting="same_kind")
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
    bits = x.view(np.uint16) ^ np.uint16(0x8000)  # the sign flipped (ml_dtypes' bf16 negation drops a NaN's payload)
    return np.where(np.isnan(x), bits | quiet, bits).view(x.dtype)


def relu(x: Any) -> Any:  # noqa: ANN401
    """std::max(x, 0) = x < 0 ? 0 : x: -0.0 and NaN pass."""
    return np.where(x < 0, x.dtype.type(0), x)



def reciprocal(x: Any, *, zero_reciprocal: ZeroReciprocal) -> Any:  # noqa: ANN401
    """1 / x in the element type (integers: C's truncating division)."""
    if zero_reciprocal is ZeroReciprocal.FAULT:
        fault_where(x == 0, lambda at: f"divides 1 by zero (the simulator asserts: Divider cannot be equal to zero) at element {at} of the valid region")
    if x.dtype.kind == "u":
        return (x == 1).astype(x.dtype)
    if x.dtype.kind == "i":
        return np.where(np.abs(x.astype(np.int64)) == 1, x, 0).astype(x.dtype)
    one = np.asarray(x.dtype.type(1))
    return with_payloads(np.asarray(one / x), one, x)


UNARY = Family.of(
    "unary elementwise",
    (
        Elementwise("tabs", "dst = |src|", compute=absolute, priced_as="vabs", choices={"abs_sign": AbsSign}),
        Elementwise("tneg", "dst = -src", compute=negate, priced_as="vmuls"),
        Elementwise("tnot", "dst = ~src (bitwise)", compute=operator.invert, priced_as="vnot"),
        Elementwise("texp", "dst = exp(src)", compute=exp, priced_as="vexp", choices={"exp_arithmetic": ExpArithmetic},
                    precision=PRECISION_ATTRS["texp"]),
        Elementwise("tlog", "dst = ln(src)", compute=in_double(lambda x: np.log(x)), priced_as="vln", precision=PRECISION_ATTRS["tlog"]),
        Elementwise(
            "tsqrt", "dst = sqrt(src)", compute=in_double(lambda x: np.sqrt(x)), priced_as="vsqrt", precision=PRECISION_ATTRS["tsqrt"]
        ),
        Elementwise(
            "trsqrt", "dst = 1 / sqrt(src)", compute=in_double(lambda x: 1.0 / np.sqrt(x)), priced_as="vrsqrt",
            vf_priced_as=("vsqrt", "vdiv"), precision=PRECISION_ATTRS["trsqrt"], tmp=True, tmp_same_type=False,
        ),
        Elementwise(
            "trecip", "dst = 1 / src", compute=reciprocal, priced_as=("vector_dup", "vdiv"), vf_priced_as="vdiv",
            choices={"zero_reciprocal": ZeroReciprocal}, precision=PRECISION_ATTRS["trecip"],
        ),
        Elementwise("trelu", "dst = max(src, 0)", compute=relu, priced_as="vrelu"),
    ),
    elementwise(UnaryOp),
)
"""Tile arithmetic of one input: sign, bits, ReLU and the transcendentals."""
