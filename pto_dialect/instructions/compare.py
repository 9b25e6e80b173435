"""
The compare-and-select family: TCMP and TCMPS write a packed mask (pto-isa docs/isa/TCMP.md,
TCMPS.md), TSEL and TSELS read one (TSEL.md, TSELS.md). A mask row holds one bit per column:
bit j % 8 of its byte j / 8 (little-endian: a 32-bit mask word holds 32 columns).

      dst bit (i, j) = cmpMode(src0[i, j], src1[i, j])      pto.tcmp
      dst bit (i, j) = cmpMode(src[i, j], scalar)           pto.tcmps
      dst[i, j] = mask bit (i, j) ? src0[i, j] : src1[i, j]   pto.tsel
      dst[i, j] = mask bit (i, j) ? src[i, j] : scalar        pto.tsels

        pto.tcmp ins(%a, %b {cmpMode = #pto<cmp gt>} : Ta, Tb) outs(%m : Tm)
        pto.tcmps ins(%a, %s {cmpMode = #pto<cmp lt>} : Ta, f32) outs(%m : Tm)
        pto.tsel ins(%m, %a, %b[, %tmp] : Tm, Ta, Tb[, Tt]) outs(%d : Td)
        pto.tsels ins(%m, %a[, %tmp], %s : Tm, Ta[, Tt], f32) outs(%d : Td)

cmpMode is eq when omitted. What the targets decide, as their lowered ops record: which bits
a compare writes beyond the valid columns and what it keeps (`mask_write`), what it compares
(`compare_read`: the CPU simulator's TCMPS compares eq/ne with a 1e-9 tolerance in double;
a2a3 compares 32-bit integers for eq whatever the mode), which mask bit a select reads
(`mask_walk`: the simulator's TSEL walks one bit stream across rows) and what a select writes
into its tmp (`select_tmp`). Masks are 8-bit tiles here (what PTOAS writes), but the
simulator's 32-bit TCMP mask words and TSELS masks of 8- to 32-bit elements (every target reads
their rows as bytes).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from math import ceil
from typing import Any, ClassVar

from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerType, i32
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import opt_prop_def, prop_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from pto_dialect.attributes import CmpMode, CmpModeAttr
from pto_dialect.choices import Choice, CompareRead, MaskWalk, MaskWrite, SelectTmp
from pto_dialect.cost import CceMachine, InstructionCost, OpCost, SimulatorMachine, VfMachine, Work
from pto_dialect.facts import TileFacts, known, require, require_type, spell
from pto_dialect.family import Family, FamilyLoweredOp, Member, member_instruction, member_lowered_base, member_op, member_row
from pto_dialect.instruction import Emission, InPlace, Instruction, Pipe, per_target, tmp_untouched_unless
from pto_dialect.vector import REPEAT_BYTES
from pto_dialect.machine import RuntimeFault, Tile, np, storage_offsets
from pto_dialect.ops.common import PtoInstructionOp, Roles
from pto_dialect.ops.memory import AllocTileOp, smallest_tile
from pto_dialect.types import TileBufType

# ---------------------------------------------------------------------------
# The ops


def _check_scalar(value: SSAValue) -> None:
    if not isinstance(value.type, IntegerType | IndexType | AnyFloat):
        raise VerifyException(f"expects scalar to be an integer, index or float scalar, got {value.type}")


class CompareSelectOp(PtoInstructionOp):
    """A member's op: its input roles per form (`INS_BY_COUNT`), one output `dst`."""

    INS_BY_COUNT: ClassVar[Mapping[int, tuple[str, ...]]]
    SAME_TYPE: ClassVar[tuple[str, ...]]
    """The tile roles whose element type must equal the first one's."""

    @classmethod
    def operand_roles(cls, n_ins: int, n_outs: int) -> Roles:
        return cls.INS_BY_COUNT.get(n_ins, ()), ("dst",)

    def verify_operands(self) -> None:
        roles = self.INS_BY_COUNT[len(self.ins)]
        self.expect_tile("dst", self.destinations[0])
        types: dict[str, Attribute] = {}
        for role, value in zip(roles, self.ins):
            if role == "scalar":
                _check_scalar(value)
                continue
            types[role] = self.expect_tile_in(role, value).element_type
        if self.SAME_TYPE[-1] == "dst":
            types["dst"] = self.destinations[0].type.element_type  # pyright: ignore[reportAttributeAccessIssue]
        first, *others = self.SAME_TYPE
        for role in others:
            if types[role] != types[first]:
                raise VerifyException(
                    f"expects {first} and {role} to have the same element type, got {types[first]} and {types[role]}"
                )


class CompareOp(CompareSelectOp):
    """TCMP / TCMPS: a comparison of each element, written as one bit of the mask dst."""

    cmp_mode = opt_prop_def(CmpModeAttr, prop_name="cmpMode")
    DEFAULTS: ClassVar[Mapping[str, Attribute]] = {"cmpMode": CmpModeAttr(CmpMode.EQ)}
    HIDDEN_IN_DPS_ATTR_DICT: ClassVar[tuple[str, ...]] = ("cmpMode",)

    @classmethod
    def parse_dps_ins(cls, parser: Parser) -> tuple[list[SSAValue], dict[str, Attribute]]:
        """`(%a, %b {cmpMode = #pto<cmp gt>} : Ta, Tb)`, as PTOAS writes it (the attribute may
        also follow outs(...))."""
        start = parser.pos
        parser.parse_punctuation("(")
        names = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
        inline = parser.parse_optional_attr_dict()
        if set(inline) - {"cmpMode"}:
            parser.raise_error("expected only cmpMode = #pto<cmp ...> inside ins(...)", start)
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        parser.parse_punctuation(")")
        if len(names) != len(types):
            parser.raise_error("expects the number of ins operands to match the number of ins types", start)
        return list(parser.resolve_operands(names, types, start)), inline

    def print_dps_ins(self, printer: Printer) -> None:
        printer.print_string(" ins(")
        printer.print_list(self.ins, printer.print_ssa_value)
        if self.cmp_mode is not None:
            printer.print_string(" ")
            printer.print_attr_dict({"cmpMode": self.cmp_mode})
        printer.print_string(" : ")
        printer.print_list([v.type for v in self.ins], printer.print_attribute)
        printer.print_string(")")


class TileCompareOp(CompareOp):
    INS_BY_COUNT: ClassVar[Mapping[int, tuple[str, ...]]] = {2: ("src0", "src1")}
    SAME_TYPE: ClassVar[tuple[str, ...]] = ("src0", "src1")
    FORMS: ClassVar[tuple[tuple[int, int], ...]] = ((2, 1),)


class ScalarCompareOp(CompareOp):
    INS_BY_COUNT: ClassVar[Mapping[int, tuple[str, ...]]] = {2: ("src", "scalar")}
    SAME_TYPE: ClassVar[tuple[str, ...]] = ("src",)
    FORMS: ClassVar[tuple[tuple[int, int], ...]] = ((2, 1),)


class SelectOp(CompareSelectOp):
    """TSEL / TSELS: dst from its sources where the mask's bit is set, else from the other."""

    WORKSPACE: ClassVar[frozenset[str]] = frozenset({"tmp"})


class TileSelectOp(SelectOp):
    INS_BY_COUNT: ClassVar[Mapping[int, tuple[str, ...]]] = {3: ("mask", "src0", "src1"), 4: ("mask", "src0", "src1", "tmp")}
    SAME_TYPE: ClassVar[tuple[str, ...]] = ("src0", "src1", "dst")
    FORMS: ClassVar[tuple[tuple[int, int], ...]] = ((3, 1), (4, 1))


class ScalarSelectOp(SelectOp):
    INS_BY_COUNT: ClassVar[Mapping[int, tuple[str, ...]]] = {3: ("mask", "src", "scalar"), 4: ("mask", "src", "tmp", "scalar")}
    SAME_TYPE: ClassVar[tuple[str, ...]] = ("src", "dst")
    SCALAR_LIKE: ClassVar[str | None] = "src"
    FORMS: ClassVar[tuple[tuple[int, int], ...]] = ((3, 1), (4, 1))


# ---------------------------------------------------------------------------
# What each target accepts


@dataclass(frozen=True)
class CompareSelectRules:
    """One target's rules for a compare or select instruction."""

    types_by_mask: Mapping[str, frozenset[str]]
    """Per element type of the mask (TCMP/TCMPS's dst, TSEL/TSELS's mask), the data element
    types it goes with; empty: the target's code has no such instruction."""
    row_major_only: bool
    """Every data tile and dst row-major: the target's code static_asserts it."""
    note: str
    """Where the rules come from."""
    mask_store_bits: Mapping[int, int] = field(default_factory=dict)
    """A compare: per data element width, the bits one store of the mask writes (a whole
    repeat or register): dst's rows must hold the bytes a valid row's stores write. Empty:
    the target writes only dst's valid region."""
    rows_match: bool = True
    """A compare: src's valid rows equal dst's (the code asserts it)."""
    tmp_elem_bytes: int = 0
    """A select's tmp element width the code writes (0: any, tmp unused)."""
    tmp_same_type: bool = False
    """A select's tmp holds the data's type (a2a3 TSELS writes the scalar into it)."""
    tmp_min_bytes: Mapping[int, int] = field(default_factory=dict)
    """A select's tmp capacity per data element width (what the code writes into it)."""

    @property
    def uses_tmp(self) -> bool:
        """The target's select code writes its tmp (a2a3); else it ignores it (cpu/TSel.hpp,
        TSelS.hpp, a5/TSel.hpp, TSels.hpp), which takes no UB at the op (`untouched`)."""
        return bool(self.tmp_elem_bytes or self.tmp_same_type or self.tmp_min_bytes)


def _mask_and_data(operands: dict, compare: bool) -> tuple[TileFacts, list[TileFacts]]:
    mask = operands["dst" if compare else "mask"]
    data = [f for r, f in operands.items() if isinstance(f, TileFacts) and r not in ("mask", "tmp") and f is not mask]
    return mask, data


def _check_types(rules: CompareSelectRules, mask: TileFacts, data: TileFacts) -> None:
    require(bool(rules.types_by_mask), f"is not implemented: {rules.note}")
    require_type(mask.role, mask.elem, frozenset(rules.types_by_mask))
    allowed = rules.types_by_mask[mask.elem.mlir]
    require(
        data.elem.mlir in allowed,
        f"expects {data.role} element type to be {spell(allowed)}"
        + (f" with a {mask.elem.mlir} {mask.role}" if len(set(rules.types_by_mask.values())) > 1 else "")
        + f", got {data.elem.mlir}",
    )


def _check_tiles(rules: CompareSelectRules, tiles: list[TileFacts]) -> None:
    for t in tiles:
        require(t.loc == "vec", f"expects {t.role} to be a Vec tile (loc=vec), got loc={t.loc}")
        if rules.row_major_only or t.role == "mask":
            require(t.is_row_major and t.inner_box is None,
                    f"expects {t.role} to use the row-major ND layout, got {t.layout_text()}")


def _same_valid(a: TileFacts, b: TileFacts) -> None:
    if known(a.valid_row, a.valid_col, b.valid_row, b.valid_col):
        require(
            a.valid_shape == b.valid_shape,
            f"expects {a.role} and {b.role} to have the same valid shape, got "
            f"{a.valid_row}x{a.valid_col} and {b.valid_row}x{b.valid_col}",
        )


def check_compare(rules: CompareSelectRules, operands: dict, attrs: Mapping[str, Attribute]) -> None:
    dst, data = _mask_and_data(operands, compare=True)
    src = data[0]
    _check_types(rules, dst, src)
    _check_tiles(rules, [*data, dst])
    for other in data[1:]:
        _same_valid(src, other)
    if rules.rows_match and known(src.valid_row, dst.valid_row):
        require(
            src.valid_row == dst.valid_row,
            f"expects {src.role} and dst to have the same valid rows, got {src.valid_row} and {dst.valid_row}",
        )
    bits = rules.mask_store_bits.get(src.elem.bytes)
    if bits and known(src.valid_col):
        need = ceil(src.valid_col / bits) * bits // 8
        require(
            dst.cols * dst.elem.bytes >= need,
            f"expects dst rows of at least {need} bytes (the mask stores of {src.valid_col} valid "
            f"{src.elem.mlir} columns write {bits // 8}-byte units), got {dst.cols * dst.elem.bytes}",
        )


def check_select(rules: CompareSelectRules, operands: dict, attrs: Mapping[str, Attribute]) -> None:
    mask, tmp, dst = operands["mask"], operands.get("tmp"), operands["dst"]
    _, data = _mask_and_data(operands, compare=False)
    _check_types(rules, mask, dst)
    _check_tiles(rules, [mask, *data])
    for src in data:
        if src is not dst:
            _same_valid(src, dst)
    if tmp is None:
        return
    require(tmp.loc == "vec", f"expects tmp to be a Vec tile (loc=vec), got loc={tmp.loc}")
    if rules.tmp_same_type:
        require(tmp.elem.mlir == dst.elem.mlir,
                f"expects tmp and dst to have the same element type, got {tmp.elem.mlir} and {dst.elem.mlir}")
    if rules.tmp_elem_bytes:
        require(tmp.elem.bytes == rules.tmp_elem_bytes,
                f"expects tmp element type to be {rules.tmp_elem_bytes} bytes wide, got {tmp.elem.mlir}")
    if need := rules.tmp_min_bytes.get(dst.elem.bytes):
        require(tmp.size_bytes >= need, f"expects tmp capacity to be at least {need} bytes, but got {tmp.size_bytes} bytes")


def describe(t: dict[str, CompareSelectRules]) -> list[tuple[str, dict[str, str]]]:
    return per_target(t, [
        ("mask element type: data element types", lambda r: "; ".join(
            f"{m}: {spell(d)}" for m, d in sorted(r.types_by_mask.items())) if r.types_by_mask else "not implemented"),
        ("tiles", lambda r: "vec; mask row-major ND" + ("; every tile row-major ND" if r.row_major_only else "")),
        ("valid shapes", lambda r: "data tiles alike" + ("; compare: src rows = dst rows" if r.rows_match else "")),
        ("compare: dst row bytes", lambda r: "; ".join(
            f"{b} B data: whole {bits // 8}-byte stores" for b, bits in sorted(r.mask_store_bits.items()))
         or "any (only the valid region written)"),
        ("select: tmp", lambda r: ", ".join(filter(None, [
            "dst's type" if r.tmp_same_type else "",
            f"{r.tmp_elem_bytes}-byte elements" if r.tmp_elem_bytes else "",
            "; ".join(f">= {n} B for {b}-byte data" for b, n in sorted(r.tmp_min_bytes.items())),
        ])) if r.uses_tmp else "unused"),
        ("why", lambda r: r.note),
    ])


def untouched_by_select(op: SelectOp, rules: CompareSelectRules) -> frozenset[str]:
    return tmp_untouched_unless(rules.uses_tmp)


def implicit_tile_tmp(op: SelectOp, rules: CompareSelectRules) -> AllocTileOp | None:
    """pto-isa's TSEL always takes a tmp: 1 x 8 i32 (what a2a3 writes the mask address into)."""
    if op.role("tmp") is not None:
        return None
    return AllocTileOp(TileBufType.get("vec", (1, 8), i32))


def implicit_scalar_tmp(op: SelectOp, rules: CompareSelectRules) -> AllocTileOp | None:
    """pto-isa's TSELS always takes a tmp: 1 x 32 bytes of src's type (a2a3 writes the scalar into it)."""
    if op.role("tmp") is not None:
        return None
    return AllocTileOp(smallest_tile(op.operand("src").type))  # pyright: ignore[reportArgumentType]


# ---------------------------------------------------------------------------
# The kernels


def compared(a: np.ndarray, b: Any, mode: CmpMode, read: CompareRead) -> np.ndarray:  # noqa: ANN401
    """cmpMode(a, b) elementwise as the target compares (b: an array or one value)."""
    if read == CompareRead.DOUBLE_TOLERANCE and mode in (CmpMode.EQ, CmpMode.NE):
        wide_a, wide_b = a.astype(np.float64), np.asarray(b).astype(np.float64)
        diff = np.abs(wide_a - wide_b)
        if mode == CmpMode.EQ:
            return diff < 1e-9
        return np.isnan(wide_a) | np.isnan(wide_b) | (diff > 1e-9)
    if read == CompareRead.VCMPV:
        if mode == CmpMode.NE or (a.dtype.kind in "iu" and a.dtype.itemsize == 4):
            mode = CmpMode.EQ  # vcmpv_eq / vcmpvs_eq (ne: inverted after, MaskWrite.REPEATS)
        if a.dtype.kind in "iu" and a.dtype.itemsize == 2:
            a, b = a.view(np.float16), np.asarray(b, a.dtype).view(np.float16)
    match mode:
        case CmpMode.EQ:
            return a == b
        case CmpMode.NE:
            return a != b
        case CmpMode.LT:
            return a < b
        case CmpMode.GT:
            return a > b
        case CmpMode.GE:
            return a >= b
        case CmpMode.LE:
            return a <= b


def _packed(bits: np.ndarray) -> np.ndarray:
    """rows x n bits -> rows x ceil(n / 8) bytes, bit j in bit j % 8 of byte j / 8."""
    return np.packbits(bits, axis=-1, bitorder="little")


def _storage_bytes(tile: Tile) -> np.ndarray:
    return tile.flat.view(np.uint8)


def _row_bytes(tile: Tile) -> int:
    return tile.type.shape[1] * tile.flat.itemsize


def _store_rows(dst: Tile, rows: np.ndarray) -> None:
    """Bytes of each row written from the start of dst's row i (its storage, row-major)."""
    storage = _storage_bytes(dst)
    n, width = rows.shape
    start = np.arange(n)[:, None] * _row_bytes(dst) + np.arange(width)[None, :]
    if n and width and start[-1, -1] >= storage.size:
        raise RuntimeFault(f"the mask stores write byte {int(start[-1, -1])} past dst's {storage.size} bytes")
    storage[start] = rows


def _storage_row_read(tile: Tile, rows: int, span: int) -> tuple[np.ndarray, np.ndarray]:
    """The first `span` elements from the start of each of `rows` rows of a row-major tile's
    storage (a whole repeat reads past the row), and where they lie inside the tile."""
    flat = tile.flat
    index = np.arange(rows)[:, None] * tile.type.shape[1] + np.arange(span)[None, :]
    inside = index < flat.size
    return flat[np.minimum(index, flat.size - 1)], inside


def _write_mask(o: dict, src: Tile, bits_of: Callable[[np.ndarray, np.ndarray | None], np.ndarray], second: Tile | None,
                mode: CmpMode, mask_write: MaskWrite) -> None:
    """Write dst's mask: `bits_of(a, b)` compares src's elements (with `second`'s, or None)."""
    dst = o["dst"]
    vr, vc = src.valid_shape
    match mask_write:
        case MaskWrite.WORDS:
            word = dst.flat.itemsize * 8
            words = ceil(vc / word)
            bits = np.zeros((vr, words * word), bool)
            bits[:, :vc] = bits_of(src.read_valid(), second.read_valid() if second is not None else None)
            packed = _packed(bits).view(f"<u{dst.flat.itemsize}").astype(dst.flat.dtype)
            dst.flat[:] = 0
            keep = min(words, dst.valid_col)
            dst.write(vr, keep, packed[:, :keep])
        case MaskWrite.BYTE_STREAM:
            rows, cols = src.type.shape
            golden = np.zeros((rows, cols), bool)
            golden[:vr, :vc] = bits_of(src.read_valid(), second.read_valid() if second is not None else None)
            stream = _packed(golden[:, : cols // 8 * 8]).reshape(-1)
            dst.flat[:] = 0
            dvr, dvc = dst.valid_shape
            if dvc == 0:
                return
            c = np.arange(min(stream.size, dst.flat.size))
            i, j = c // dvc, c % dvc
            keep = i < dvr
            dst.flat[storage_offsets(dst.type)[i[keep], j[keep]]] = stream[c[keep]].astype(dst.flat.dtype)
        case MaskWrite.REPEATS:
            per_repeat = REPEAT_BYTES // src.flat.itemsize
            span = ceil(vc / per_repeat) * per_repeat
            a, inside = _storage_row_read(src, vr, span)
            b = None
            if second is not None:
                b, inside_b = _storage_row_read(second, vr, span)
                inside &= inside_b
            _store_rows(dst, _packed(bits_of(a, b) & inside))
            if mode == CmpMode.NE:
                flipped = vr * dst.type.shape[1] * dst.flat.itemsize // 2 * 2  # vnot over u16 halves
                storage = _storage_bytes(dst)
                storage[:flipped] = ~storage[:flipped]
        case MaskWrite.PREDICATED:
            unit = 256 if src.flat.itemsize == 1 else 128
            bits = np.zeros((vr, ceil(vc / unit) * unit), bool)
            bits[:, :vc] = bits_of(src.read_valid(), second.read_valid() if second is not None else None)
            _store_rows(dst, _packed(bits))


def tcmp(o: dict, *, cmp_mode: CmpMode, mask_write: MaskWrite, compare_read: CompareRead) -> None:
    """dst's mask: cmpMode(src0[i, j], src1[i, j])."""
    with np.errstate(invalid="ignore"):
        _write_mask(o, o["src0"], lambda a, b: compared(a, b, cmp_mode, compare_read), o["src1"], cmp_mode, mask_write)


def tcmps(o: dict, *, cmp_mode: CmpMode, mask_write: MaskWrite, compare_read: CompareRead) -> None:
    """dst's mask: cmpMode(src[i, j], scalar), the scalar converted to src's type."""
    src = o["src"]
    scalar = np.asarray(o["scalar"]).astype(src.flat.dtype)
    with np.errstate(invalid="ignore"):
        _write_mask(o, src, lambda a, _: compared(a, scalar, cmp_mode, compare_read), None, cmp_mode, mask_write)


def mask_bits(mask: Tile, rows: int, cols: int, walk: MaskWalk, data_bytes: int) -> np.ndarray:
    """rows x cols: the mask bit the target reads for each dst element of the valid region."""
    storage = _storage_bytes(mask)
    j = np.arange(cols)[None, :]
    i = np.arange(rows)[:, None]
    match walk:
        case MaskWalk.BIT_STREAM:
            k = i * cols + j
            byte = k // 8
            mask_cols = mask.valid_col
            if mask_cols == 0:
                raise RuntimeFault("the mask has no valid columns to read")
            at_row, at_col = byte // mask_cols, byte % mask_cols
            if rows and cols and int(at_row.max()) >= mask.type.shape[0]:
                raise RuntimeFault(f"the mask bit stream reads mask row {int(at_row.max())} past its {mask.type.shape[0]} rows")
            values = mask.values[at_row, at_col].astype(np.int64)
            return ((values >> (k % 8)) & 1).astype(bool)
        case MaskWalk.ROWS:
            bit = np.broadcast_to(j, (rows, cols))
        case MaskWalk.REPEAT_STEP_16:
            per_repeat = REPEAT_BYTES // data_bytes
            bit = np.broadcast_to(j - (j // per_repeat) * (per_repeat - 128), (rows, cols))
    byte = i * _row_bytes(mask) + bit // 8
    if rows and cols and int(byte.max()) >= storage.size:
        raise RuntimeFault(f"the select reads mask byte {int(byte.max())} past the mask's {storage.size} bytes")
    return ((storage[byte] >> (bit % 8)) & 1).astype(bool)


def tsel(o: dict, *, mask_walk: MaskWalk, select_tmp: SelectTmp) -> None:
    """dst[i, j] = mask bit ? src0[i, j] : src1[i, j] over dst's valid region."""
    dst = o["dst"]
    vr, vc = dst.valid_shape
    bits = mask_bits(o["mask"], vr, vc, mask_walk, dst.flat.itemsize)
    src0 = o["src0"].values[:vr, :vc]
    src1 = o["src1"].values[:vr, :vc]
    dst.write_valid(np.where(bits, src0, src1))


def tsels(o: dict, *, select_tmp: SelectTmp) -> None:
    """dst[i, j] = mask bit (i, j) ? src[i, j] : scalar over dst's valid region."""
    dst, tmp = o["dst"], o.get("tmp")
    vr, vc = dst.valid_shape
    scalar = np.asarray(o["scalar"]).astype(dst.flat.dtype)
    bits = mask_bits(o["mask"], vr, vc, MaskWalk.ROWS, dst.flat.itemsize)
    dst.write_valid(np.where(bits, o["src"].values[:vr, :vc], scalar))
    if select_tmp == SelectTmp.SCALAR and tmp is not None:
        tmp.flat[:1] = scalar.astype(tmp.flat.dtype)


class CompareBase(FamilyLoweredOp):
    """A compare's lowered op: cmpMode kept, the kernel reading it."""

    cmp_mode = prop_def(CmpModeAttr, prop_name="cmpMode")

    @classmethod
    def kernel_params(cls, op: CompareBase) -> dict[str, object]:
        return {"cmp_mode": op.cmp_mode.data}


class SelectBase(FamilyLoweredOp):
    """A select's lowered op."""


# ---------------------------------------------------------------------------
# What it costs


def _data(o: dict) -> TileFacts:
    return o["src0"] if "src0" in o else o["src"]


def _cce_compare(op: FamilyLoweredOp, o: dict, machine: CceMachine, work: Work) -> OpCost:
    """npu/a2a3 TCmp.hpp / TCmps.hpp: per valid row one vcmpv(s) of the row's repeats (at most
    240 a call), in norm mode; ne adds a barrier, a count-mode vnot over dst's rows and the masks."""
    src = _data(o)
    mode = CmpMode(op.cmp_mode.data) if isinstance(op, CompareBase) else CmpMode.EQ
    row = member_row(op, CompareSelect)
    t = machine.trace()
    t.call(2)  # set_mask_norm, set_vector_mask
    repeats = ceil(src.valid_col / (REPEAT_BYTES // src.elem.bytes))
    full, rest = divmod(repeats, 240)
    intrinsic = f"{row.priced_as}_{'eq' if mode == CmpMode.NE else mode.value}"

    def one_row() -> None:
        for _ in range(full):
            t.vector(intrinsic, repeat=240)
        if rest:
            t.vector(intrinsic, repeat=rest)

    t.loop(src.valid_row, one_row)
    if mode == CmpMode.NE:
        t.barrier()
        t.call(3)  # set_mask_count, the count, set_mask_norm
        t.vector("vnot", repeat=1)
        t.call(1)
    return t.cost(Pipe.VECTOR, exact=False, idle=machine.idle_vector, elements=src.valid_row * src.valid_col)


def _cce_select(op: FamilyLoweredOp, o: dict, machine: CceMachine, work: Work) -> OpCost:
    """npu/a2a3 TSel.hpp: per valid row a vector_dup of the mask address into tmp, two
    barriers, set_cmpmask and one count-mode vsel; TSels.hpp: the scalar into tmp once, then a
    vsel per row."""
    dst = o["dst"]
    t = machine.trace()
    t.call(1)  # set_mask_count
    if "src0" in o:
        def one_row() -> None:
            t.call(1)
            t.vector("vector_dup", repeat=1)
            t.barrier()
            t.call(1)  # set_cmpmask
            t.barrier()
            t.call(1)
            t.vector("vsel", repeat=1)

        t.loop(dst.valid_row, one_row)
    else:
        t.call(2)  # set_vector_mask, set_cmpmask
        t.barrier()
        t.loop(dst.valid_row, lambda: t.vector("vsel", repeat=1))
    t.call(2)  # set_mask_norm, set_vector_mask
    return t.cost(Pipe.VECTOR, exact=False, idle=machine.idle_vector, elements=dst.valid_row * dst.valid_col)


def _vf(op: FamilyLoweredOp, o: dict, machine: VfMachine, work: Work) -> OpCost:
    """npu/a5: one vector function; per register of each valid row a predicate, the loads of
    its tile inputs (a select's mask: a predicate load), the compare or select and a store."""
    src = _data(o)
    row = member_row(op, CompareSelect)
    registers = src.valid_row * ceil(src.valid_col / (REPEAT_BYTES // src.elem.bytes))
    loads = sum(isinstance(f, TileFacts) for r, f in o.items() if r not in ("dst", "mask", "tmp"))
    body = {"plt": registers, "vlds": loads * registers, row.vf_priced_as: registers}
    if "mask" in o:
        body |= {"plds": registers, "vsts": registers}
    else:
        body |= {"psts": registers}
    return machine.cost(Pipe.VECTOR, 0, machine.vector_function(body))


def _simulated(op: FamilyLoweredOp, o: dict, machine: SimulatorMachine, work: Work) -> OpCost:
    """pto-isa cpu/: a loop over the valid elements."""
    src = _data(o)
    return machine.cost(Pipe.VECTOR, 0, src.valid_row * src.valid_col)


# ---------------------------------------------------------------------------
# C++


def _emit_compare(row: CompareSelect) -> Callable[[Emission, CompareOp], None]:
    def emit(e: Emission, op: CompareOp) -> None:
        """`TCMP(dst, src0, src1, CmpMode::GT)`."""
        mode = op.cmp_mode.data if op.cmp_mode is not None else CmpMode.EQ
        e.issue(op, e.call(row.cpp_name, [*op.outs, *op.ins], (), [f"CmpMode::{mode.value.upper()}"]))

    return emit


def _emit_select(row: CompareSelect) -> Callable[[Emission, SelectOp], None]:
    def emit(e: Emission, op: SelectOp) -> None:
        """`TSEL(dst, mask, src0, src1, tmp)`, `TSELS(dst, mask, src, tmp, scalar)`."""
        e.require(op, "tmp")
        e.issue(op, e.call(row.cpp_name, [*op.outs, *op.ins]))

    return emit


# ---------------------------------------------------------------------------
# The family


@dataclass(frozen=True)
class CompareSelect(Member):
    """One compare or select instruction."""

    op_base: type[CompareSelectOp] = field(kw_only=True)
    kernel: Callable[..., None] = field(kw_only=True)
    priced_as: str = field(kw_only=True)
    """The a2a3 intrinsic its cost is priced as (`vcmpv` + `_<mode>`, `vsel`)."""
    vf_priced_as: str = field(kw_only=True)
    """The a5 vector-function instruction it is priced as (`vcmp`, `vsel`)."""
    in_place: frozenset[str] = field(kw_only=True, default=frozenset())
    """The inputs dst may lie exactly over."""


def declare(row: CompareSelect) -> Instruction:
    compare = issubclass(row.op_base, CompareOp)
    op = member_op(row.op_base, row)
    lowered = member_lowered_base(CompareBase if compare else SelectBase, op, row, row.kernel, None)
    return member_instruction(
        row, lowered,
        rules=CompareSelectRules,
        check_rule=check_compare if compare else check_select,
        docs_table=describe,
        emit=(_emit_compare if compare else _emit_select)(row),
        in_place={"": InPlace(
            row.in_place,
            how="every target reads dst's sources at the element it writes, before writing it",
            refused="dst over another place of a source would overwrite elements still to be read.",
        )} if row.in_place else {},
        implicit_tmp=None if compare else (implicit_tile_tmp if "src0" in row.op_base.SAME_TYPE else implicit_scalar_tmp),
        untouched=None if compare else untouched_by_select,
        cost=InstructionCost(on={
            CceMachine: _cce_compare if compare else _cce_select, VfMachine: _vf, SimulatorMachine: _simulated,
        }),
    )


MASK_CHOICES: Mapping[str, type[Choice]] = {"mask_write": MaskWrite, "compare_read": CompareRead}

COMPARE_SELECT = Family.of(
    "compare and select",
    (
        CompareSelect("tcmp", "dst bit (i, j) = cmpMode(src0[i, j], src1[i, j])", choices=MASK_CHOICES,
                      op_base=TileCompareOp, kernel=tcmp, priced_as="vcmpv", vf_priced_as="vcmp"),
        CompareSelect("tcmps", "dst bit (i, j) = cmpMode(src[i, j], scalar)", choices=MASK_CHOICES,
                      op_base=ScalarCompareOp, kernel=tcmps, priced_as="vcmpvs", vf_priced_as="vcmps"),
        CompareSelect("tsel", "dst[i, j] = mask bit (i, j) ? src0[i, j] : src1[i, j]",
                      choices={"mask_walk": MaskWalk, "select_tmp": SelectTmp},
                      op_base=TileSelectOp, kernel=tsel, priced_as="vsel", vf_priced_as="vsel", in_place=frozenset({"src0", "src1"})),
        CompareSelect("tsels", "dst[i, j] = mask bit (i, j) ? src[i, j] : scalar", choices={"select_tmp": SelectTmp},
                      op_base=ScalarSelectOp, kernel=tsels, priced_as="vsel", vf_priced_as="vsel", in_place=frozenset({"src"})),
    ),
    declare,
)
"""Compare to a packed mask, select by one."""
