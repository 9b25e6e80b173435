"""
TCVT: each element of src converted to dst's element type (pto-isa docs/isa/TCVT.md), over the
valid region, with a rounding mode and a saturation mode; PTOAS writes

    pto.tcvt ins(%src {rmode = #pto<round_mode TRUNC>, satmode = #pto<saturation_mode ON>} : S) outs(%dst : D)
    pto.tcvt ins(%src, %tmp : S, T) outs(%dst : D)          (a tmp a2a3's code may use)

(rmode defaults to CAST_RINT, sat_mode to OFF; `satmode` is PTOAS's printed spelling of sat_mode)
and emits `TCVT(dst, src[, tmp], RoundMode::CAST_<mode>, SaturationMode::<ON|OFF>)`.

How a target converts (its lowered op's `cvt_arithmetic` choice):
- cpu (cpu/TCvt.hpp): with saturation ON the source value is first clamped, in double, to the
  narrower of both types' ranges (F16_MAX for half; NaN becomes the upper limit, as std::min/max
  order their operands) and cast back to the source type; then a float going to an integer is
  rounded to an integral double by the mode (std::rint, std::round, floor, ceil, trunc, or to odd
  on ties; NONE: not at all) and cast (uint8 through int64); an integer going to a float goes
  through double; float to float and integer to integer are plain C++ casts (the mode does not
  apply). A cast of a double out of the integer's range is undefined in C++; the simulator, built
  with g++ on x86-64, gives cvttsd2si's result (the 32-bit form for 8- and 16-bit types, the
  64-bit one for 32-bit unsigned and 64-bit types): that is what runs here.
- a2a3, a5 (npu/*/TCvt.hpp, vconv/vcvt per pair and mode): the value rounded once by the mode
  (ODD only f32 -> f16; NONE and an unsupported ODD: float to integer truncates, the rest rounds
  to nearest even), then saturated to the destination's range (ON) or not (OFF). The hardware's
  results out of range and for NaN are not public: approximate, with this reference.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, opt_prop_def
from xdsl.parser import Parser
from xdsl.printer import Printer

from pto_dialect.attributes import RoundMode, RoundModeAttr, SaturationMode, SaturationModeAttr
from pto_dialect.choices import CvtArithmetic
from pto_dialect.cost import CceMachine, InstructionCost, OpCost, SimulatorMachine, VfMachine, Work, simulator_loop
from pto_dialect.facts import TileFacts, known, require, spell
from pto_dialect.instruction import DocsCells, Emission, InPlace, Instruction, Pipe, RuleRow, tmp_untouched_unless_row_uses_it
from pto_dialect.instructions.elementwise import converted_nan, rounded
from pto_dialect.vector import REPEAT_BYTES, vector_repeats
from pto_dialect.lowered import LoweredOp, lowered_base
from pto_dialect.machine import Footprint, np, valid_rect
from pto_dialect.instructions.operands import taking

# ---------------------------------------------------------------------------
# The op


@irdl_op_definition
class TCvtOp(taking("src", optional="tmp")):
    """dst = src converted to dst's element type, by rmode, saturating or not (sat_mode)."""

    name = "pto.tcvt"
    rmode = opt_prop_def(RoundModeAttr)
    sat_mode = opt_prop_def(SaturationModeAttr)

    WORKSPACE: ClassVar[frozenset[str]] = frozenset({"tmp"})
    DEFAULTS: ClassVar[dict[str, Attribute]] = {
        "rmode": RoundModeAttr(RoundMode.CAST_RINT),
        "sat_mode": SaturationModeAttr(SaturationMode.OFF),
    }
    OMITS_DEFAULTS: ClassVar[bool] = True
    HIDDEN_IN_DPS_ATTR_DICT: ClassVar[tuple[str, ...]] = ("rmode", "sat_mode")
    SPELLED: ClassVar[dict[str, str]] = {"sat_mode": "satmode"}
    """PTOAS prints sat_mode as `satmode` (and reads either)."""

    @classmethod
    def parse_dps_ins(cls, parser: Parser) -> tuple[list[SSAValue], dict[str, Attribute]]:
        """`(%src[, %tmp] [{rmode = ..., satmode = ...}] : S[, T])`."""
        start = parser.pos
        parser.parse_punctuation("(")
        names = [parser.parse_unresolved_operand()]
        if parser.parse_optional_punctuation(",") is not None:
            names.append(parser.parse_unresolved_operand())
        inline = dict(parser.parse_optional_attr_dict())
        if "satmode" in inline:
            if "sat_mode" in inline:
                parser.raise_error("cannot specify both satmode and sat_mode", start)
            inline["sat_mode"] = inline.pop("satmode")
        parser.parse_punctuation(":")
        types = [parser.parse_type()]
        while parser.parse_optional_punctuation(",") is not None:
            types.append(parser.parse_type())
        parser.parse_punctuation(")")
        if len(types) != len(names):
            parser.raise_error(f"expected {len(names)} types in tcvt ins(...), got {len(types)}", start)
        return list(parser.resolve_operands(names, types, start)), inline

    def print_dps_ins(self, printer: Printer) -> None:
        printer.print_string(" ins(")
        printer.print_list(self.ins, printer.print_ssa_value)
        inline = {
            self.SPELLED.get(name, name): value
            for name in self.HIDDEN_IN_DPS_ATTR_DICT
            if (value := self.properties.get(name)) is not None and value != self.DEFAULTS[name]
        }
        if inline:
            printer.print_string(" ")
            printer.print_attr_dict(inline)
        printer.print_string(" : ")
        printer.print_list([v.type for v in self.ins], printer.print_attribute)
        printer.print_string(")")

    def verify_operands(self) -> None:
        self.expect_tile("dst", self.destinations[0])
        for role, value in zip(("src", "tmp"), self.ins):
            self.expect_tile_in(role, value)

    @property
    def round_mode(self) -> RoundMode:
        return (self.rmode or self.DEFAULTS["rmode"]).data  # pyright: ignore[reportAttributeAccessIssue]

    @property
    def saturation(self) -> SaturationMode:
        return (self.sat_mode or self.DEFAULTS["sat_mode"]).data  # pyright: ignore[reportAttributeAccessIssue]


# ---------------------------------------------------------------------------
# What each target accepts


def canonical(mlir: str) -> str:
    """`si32` and `i32` are one C++ type (int32_t)."""
    return mlir.removeprefix("s") if mlir.startswith("si") else mlir


@dataclass(frozen=True)
class TCvtRules(RuleRow):
    """One target's rules for TCVT."""

    pairs: frozenset[tuple[str, str]]
    """(src, dst) element types (signless spelling: i32 for si32 too) the target converts."""
    vec_only: bool
    """src and dst Vec tiles (the vector code reads UB), else any tile the simulator loops over."""
    row_major_only: bool
    takes_tmp: bool
    """The target's code has TCVT with a tmp tile (cpu's has not: it would not link)."""
    tmp_used: bool
    """Its code reads or writes a tmp (a2a3: the scratch of some conversions, counted for all);
    else it ignores one (npu/a5/TCvt.hpp), which takes no UB at the op (`untouched`)."""
    note: str

    def check(self, operands: dict, attrs: Mapping[str, Attribute]) -> None:
        src, dst = operands["src"], operands["dst"]
        require(self.takes_tmp or "tmp" not in operands, f"takes no tmp: {self.note}")
        tiles = [f for f in operands.values() if isinstance(f, TileFacts)]
        for t in tiles:
            if self.vec_only or t.role == "tmp":
                require(t.loc == "vec", f"expects {t.role} to be a Vec tile (loc=vec), got loc={t.loc}")
            if self.row_major_only and t.role != "tmp":
                require(t.is_row_major, f"expects {t.role} to use the row-major layout, got {t.layout_text()}")
        pair = (canonical(src.elem.mlir), canonical(dst.elem.mlir))
        if pair not in self.pairs:
            to = sorted({d for s, d in self.pairs if s == pair[0]})
            require(False, f"expects a conversion the target implements, got {pair[0]} -> {pair[1]} ("
                    + (f"{pair[0]} converts to {spell(to)}" if to else f"no conversion from {pair[0]}") + ")")
        if known(src.valid_row, src.valid_col, dst.valid_row, dst.valid_col):
            require(
                src.valid_shape == dst.valid_shape,
                f"expects src and dst to have the same valid shape, got "
                f"{src.valid_row}x{src.valid_col} and {dst.valid_row}x{dst.valid_col}",
            )

    DOCS: ClassVar[DocsCells] = (
        ("conversions (src -> dst)", lambda r: "; ".join(
            f"{s} -> {spell({d for x, d in r.pairs if x == s})}" for s in sorted({s for s, _ in r.pairs}))),
        ("tiles", lambda r: ("vec" if r.vec_only else "any") + (", row-major" if r.row_major_only else ", any layout")),
        ("valid shapes", lambda r: "src's equals dst's"),
        ("tmp", lambda r: ("optional" if r.tmp_used else "optional, unused") if r.takes_tmp else "none"),
        ("why", lambda r: r.note),
    )



def pairs(table: Mapping[str, str]) -> frozenset[tuple[str, str]]:
    """`{"f32": "f16 bf16 i32"}`: each source with the destinations it converts to."""
    return frozenset((s, d) for s, ds in table.items() for d in ds.split())


# ---------------------------------------------------------------------------
# The kernel


def _limits(dtype: Any) -> tuple[float, float]:  # noqa: ANN401
    """cpu/TCvt.hpp SafeLimits: the type's lowest and largest (half: -F16_MAX, F16_MAX)."""
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return float(info.min), float(info.max)
    import ml_dtypes

    largest = float(ml_dtypes.finfo(dtype).max)
    return -largest, largest


def _integral(d: Any, mode: RoundMode) -> Any:  # noqa: ANN401
    """cpu/TCvt.hpp applyRoundingToIntegral (NONE: the value as it is)."""
    match mode:
        case RoundMode.RINT | RoundMode.CAST_RINT:
            return np.rint(d)
        case RoundMode.ROUND:  # std::round: halves away from zero
            t = np.trunc(d)
            return np.where(np.abs(d - t) >= 0.5, t + np.sign(d), t)
        case RoundMode.FLOOR:
            return np.floor(d)
        case RoundMode.CEIL:
            return np.ceil(d)
        case RoundMode.TRUNC:
            return np.trunc(d)
        case RoundMode.ODD:  # nearest, ties to the odd neighbour (inf and NaN: floor + 1, themselves)
            f = np.floor(d)
            frac = d - f
            odd = np.isfinite(f) & (np.fmod(f, 2) != 0)
            return np.where(frac > 0.5, f + 1, np.where(frac < 0.5, f, np.where(odd, f, f + 1)))
        case RoundMode.NONE:
            return d


def _cvttsd2si(d: Any, width: int) -> Any:  # noqa: ANN401
    """x86's truncating double -> int`width` conversion: NaN and out of range give the
    integer minimum ("integer indefinite"), as int64."""
    t = np.trunc(d)
    fits = (t >= -(2.0 ** (width - 1))) & (t < 2.0 ** (width - 1))
    return np.where(fits, np.where(fits, t, 0).astype(np.int64), np.int64(-(2 ** (width - 1))))


def x86_cast(d: Any, dtype: Any, through_int64: bool = False) -> Any:  # noqa: ANN401
    """`static_cast<T>(double)` as g++ compiles it on x86-64: 8- and 16-bit types through the
    32-bit cvttsd2si, 32-bit unsigned and 64-bit types through the 64-bit one, uint64 above
    2^63 by subtracting it first; the low bits kept."""
    if dtype == np.uint64:
        big = d >= 2.0**63
        low = _cvttsd2si(np.where(big, d - 2.0**63, d), 64)
        return np.where(big, low ^ np.int64(-(2**63)), low).astype(np.uint64)
    wide = through_int64 or dtype.itemsize == 8 or dtype == np.uint32
    return _cvttsd2si(d, 64 if wide else 32).astype(dtype)


def simulated(x: Any, dtype: Any, mode: RoundMode, saturation: SaturationMode) -> Any:  # noqa: ANN401
    """cpu/TCvt.hpp TCvt_Impl on a whole array."""
    source = x.dtype
    source_float, target_float = source.kind not in "iu", dtype.kind not in "iu"
    if saturation is SaturationMode.ON:
        (lo_s, hi_s), (lo_d, hi_d) = _limits(source), _limits(dtype)
        lo, hi = max(lo_s, lo_d), min(hi_s, hi_d)
        d = x.astype(np.float64)
        d = np.where(np.isnan(d), hi, np.clip(d, lo, hi))  # std::max(lo, std::min(hi, NaN)) is hi
        x = rounded(d, source) if source_float else x86_cast(d, source)
    if source_float and not target_float:
        return x86_cast(_integral(x.astype(np.float64), mode), dtype, through_int64=dtype == np.uint8)
    if target_float and not source_float:
        return rounded(x.astype(np.float64), dtype)
    if source_float:
        return np.where(np.isnan(x), converted_nan(x, dtype), x.astype(dtype))
    return x.astype(dtype)


def _step(v: Any, up: Any) -> Any:  # noqa: ANN401
    """The neighbouring float of `v` toward +inf (where `up`) or -inf."""
    bits = v.view(f"u{v.dtype.itemsize}").astype(np.int64)
    sign = 1 << (8 * v.dtype.itemsize - 1)
    negative = bits >= sign
    zero = (bits & (sign - 1)) == 0
    away = up != negative  # moving away from zero
    moved = np.where(zero, np.where(up, 1, sign | 1), np.where(away, bits + 1, bits - 1))
    return moved.astype(f"u{v.dtype.itemsize}").view(v.dtype)


def rounded_by(d: Any, dtype: Any, mode: RoundMode) -> Any:  # noqa: ANN401
    """float64 `d` rounded once to the float type `dtype` by `mode` (ODD: to odd, as vconv_f322f16o)."""
    nearest = rounded(d, dtype)
    if mode in (RoundMode.RINT, RoundMode.CAST_RINT, RoundMode.NONE):
        return nearest
    n = nearest.astype(np.float64)
    toward_zero = np.where(np.abs(n) > np.abs(d), _step(nearest, n < 0), nearest)
    match mode:
        case RoundMode.FLOOR:
            return np.where(n > d, _step(nearest, np.zeros(d.shape, bool)), nearest)
        case RoundMode.CEIL:
            return np.where(n < d, _step(nearest, np.ones(d.shape, bool)), nearest)
        case RoundMode.TRUNC:
            return toward_zero
        case RoundMode.ODD:
            t = toward_zero
            inexact = t.astype(np.float64) != d
            bits = t.view(f"u{t.dtype.itemsize}")
            return np.where(inexact & np.isfinite(d), (bits | 1).view(t.dtype), t)
        case RoundMode.ROUND:  # nearest, ties away from zero
            t = toward_zero
            away = _step(t, d > 0)
            tie = (d - t.astype(np.float64)) == (away.astype(np.float64) - d)
            return np.where(tie & (t.astype(np.float64) != d), away, nearest)
    return nearest


def vconv(x: Any, dtype: Any, mode: RoundMode, saturation: SaturationMode) -> Any:  # noqa: ANN401
    """The NPUs' conversion as the reference computes it (module docstring)."""
    source_float, target_float = x.dtype.kind not in "iu", dtype.kind not in "iu"
    d = x.astype(np.float64)
    if mode is RoundMode.ODD and not (x.dtype == np.float32 and dtype == np.float16):
        mode = RoundMode.NONE
    if not target_float:
        if source_float:
            d = np.where(np.isnan(d), 0, _integral(d, RoundMode.TRUNC if mode is RoundMode.NONE else mode))
        if saturation is SaturationMode.ON:
            return np.clip(d, *_limits(dtype)).astype(dtype)
        wrapped = np.where(np.abs(d) < 2.0**63, d, 0).astype(np.int64) if source_float else x
        return wrapped.astype(dtype)  # dst's low bits
    out = rounded_by(d, dtype, mode)
    if saturation is SaturationMode.ON:
        lo, hi = _limits(dtype)
        out = np.where(np.isnan(d), out, np.clip(out.astype(np.float64), lo, hi).astype(dtype))
    return out


def tcvt_kernel(o: dict, *, rmode: RoundMode, sat_mode: SaturationMode, cvt_arithmetic: CvtArithmetic) -> None:
    src, dst = o["src"], o["dst"]
    convert = simulated if cvt_arithmetic is CvtArithmetic.SIMULATOR else vconv
    with np.errstate(all="ignore"):  # NaN, overflow: values here
        dst.write_valid(convert(src.read_valid(), dst.flat.dtype, rmode, sat_mode))


def footprint(o: dict, **_: object) -> Footprint:
    return Footprint([(o["src"], False, valid_rect(o["src"])), (o["dst"], True, valid_rect(o["dst"]))], [])


TCvtBase = lowered_base(TCvtOp, tcvt_kernel, "dst[i, j] = src[i, j] converted, by the target's arithmetic (cvt_arithmetic).", footprint=footprint, rmode=RoundModeAttr, sat_mode=SaturationModeAttr, cvt_arithmetic=CvtArithmetic.Attr)


# ---------------------------------------------------------------------------
# What it costs


def _cce(op: LoweredOp, o: dict, machine: CceMachine, work: Work) -> OpCost:
    """npu/a2a3/TCvt.hpp: one vconv call per valid row (the count of the wider type's
    repeats), the tail masked; priced as a vconv of that many repeats."""
    src, dst = o["src"], o["dst"]
    t = machine.trace()
    wider = max(src.elem.bytes, dst.elem.bytes)
    repeats = -(-dst.valid_col * wider // REPEAT_BYTES)
    t.loop(dst.valid_row, lambda: t.vector("vconv", repeat=repeats))
    return t.cost(Pipe.VECTOR, exact=False, idle=machine.idle_vector, elements=dst.valid_row * dst.valid_col)


def _vf(op: LoweredOp, o: dict, machine: VfMachine, work: Work) -> OpCost:
    """npu/a5/TCvt.hpp castData: one vector function; per register of the wider type in each
    valid row a predicate, a load, vcvt and a store."""
    src, dst = o["src"], o["dst"]
    registers = dst.valid_row * vector_repeats(dst.valid_col, max(src.elem.bytes, dst.elem.bytes))
    body = {"plt": registers, "vlds": registers, "vcvt": registers, "vsts": registers}
    return machine.cost(Pipe.VECTOR, 0, machine.vector_function(body))


COST = InstructionCost(on={CceMachine: _cce, VfMachine: _vf, SimulatorMachine: simulator_loop("dst", "pto-isa cpu/TCvt.hpp: a loop over the valid elements.")})


# ---------------------------------------------------------------------------
# C++


def emit(e: Emission, op: TCvtOp) -> None:
    """`TCVT(dst, src[, tmp], RoundMode::CAST_<mode>, SaturationMode::<ON|OFF>)`, as PTOAS emits it."""
    extra = [op.round_mode.cpp, f"SaturationMode::{op.saturation.value}"]
    e.issue(op, e.call("TCVT", [*op.outs, *op.ins], (), extra))


TCVT = Instruction(
    rules=TCvtRules,
    lowered=(TCvtBase,),
    emit=emit,
    untouched=tmp_untouched_unless_row_uses_it,
    in_place={"": InPlace(
        frozenset({"src"}),
        how="each element is converted at its own place, read before it is written: cpu element by element "
        "(cpu/TCvt.hpp), a2a3 one vconv repeat at a time (or through its tmp, all of a chunk read first), a5 "
        "a register loaded, converted and stored",
        refused="dst over src is computed in place only exactly (equal element sizes) or forward (narrower dst "
        "elements at src's address): wider dst elements would overwrite src elements still to be read.",
        forward="each target converts in increasing address order, and dst element (r, c) lies within src "
        "elements up to (r, c), already read.",
    )},
    cost=COST,
)
