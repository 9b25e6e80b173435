"""
TGATHER: gather inside a tile (docs/isa: pto-isa's TGATHER.md), in one of three forms:

      index:   dst[i, j] = src.flat[indices[i, j]]
      mask:    keep the src elements that `maskPattern` selects along `axis`, densely packed
      compare: dst[i, :] = indices j of row i where cmpMode(src[i, j], k_i) holds; cdst[i] = count

a5 lowers the index form to the register-level ops a user writes (targets/a5/register_gather.py;
b64 data as pto-isa's Int64Gather gathers it, in 32-bit words).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from math import ceil, prod
from typing import ClassVar

from xdsl.dialects.builtin import I32, IntegerAttr, StringAttr, i32
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import irdl_op_definition, opt_prop_def, prop_def
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from pto_dialect.attributes import CmpMode, CmpModeAttr, MaskPattern, MaskPatternAttr
from pto_dialect.choices import CompareKind, CompareSpan, IndexNumbering, OutOfRange, Packing, ThresholdRead, TmpUse
from pto_dialect.cost import CceMachine, InstructionCost, OpCost, SimulatorMachine, VfMachine, Work, by_op
from pto_dialect.dtypes import element_info
from pto_dialect.facts import INT32, RuleViolation, TileFacts, known, require, require_type, spell, types_named
from pto_dialect.instruction import AsmForm, DocsCells, Emission, InPlace, Instruction, Pipe, RuleRow, tmp_untouched_unless
from pto_dialect.lowered import LoweredOp
from pto_dialect.machine import Footprint, RuntimeFault, Tile, first_failing, np, rect, valid_rect
from pto_dialect.ops.common import PtoInstructionOp, operand_of_role, Roles, same_element_type
from pto_dialect.ops.mask_ins import MaskInsOp
from pto_dialect.ops.memory import AllocTileOp, smallest_tile
from pto_dialect.types import PartitionTensorViewType, TileBufType, TileType, TileTypeBase
from pto_dialect.vector import vector_repeats

# ---------------------------------------------------------------------------
# The op


class TGatherForm(StrEnum):
    """The three TGATHER forms."""

    INDEX = "index"
    MASK = "mask"
    COMPARE = "compare"


@irdl_op_definition
class TGatherOp(MaskInsOp):
    """
    Gather inside a tile (docs/isa: pto-isa's TGATHER.md), in one of three forms:

      index:   dst[i, j] = src.flat[indices[i, j]]
      mask:    keep the src elements that `maskPattern` selects along `axis`, densely packed
      compare: dst[i, :] = indices j of row i where cmpMode(src[i, j], k_i) holds; cdst[i] = count

        pto.tgather ins(%src, %idx[, %tmp] : Ts, Ti[, Tt]) outs(%dst : Td)
        pto.tgather ins(%src, {maskPattern = #pto.mask_pattern<P0101>} : Ts, "row") outs(%dst : Td)
        pto.tgather ins(%src, %k, %tmp : Ts, Tk, Tt) outs(%dst, %cdst : Td, Tc) {cmpMode = ..., offset = 3 : i32}

    `%k` is a scalar of src's element type (one threshold for every row) or an
    integer threshold tile with one value per src row.
    """

    name = "pto.tgather"

    mask_pattern = opt_prop_def(MaskPatternAttr, prop_name="maskPattern")
    axis = opt_prop_def(StringAttr)
    cmp_mode = opt_prop_def(CmpModeAttr, prop_name="cmpMode")
    offset = opt_prop_def(IntegerAttr[I32])

    HIDDEN_IN_DPS_ATTR_DICT: ClassVar[tuple[str, ...]] = ("maskPattern", "axis")
    WORKSPACE: ClassVar[frozenset[str]] = frozenset({"tmp"})
    MAX_INS: ClassVar[int] = 4
    DEFAULTS: ClassVar[dict[str, Attribute]] = {
        "axis": StringAttr("row"),
        "cmpMode": CmpModeAttr(CmpMode.EQ),
        "offset": IntegerAttr(0, 32),
    }

    FORMS: ClassVar[tuple[tuple[int, int], ...]] = ((1, 1), (2, 1), (3, 1), (3, 2))
    BUILDER_NAMES: ClassVar[dict[str, str]] = {"threshold": "k_value"}  # PTOAS's kValue

    @classmethod
    def operand_roles(cls, n_ins: int, n_outs: int) -> Roles:
        if n_ins == 1:  # mask form
            return ("src",), ("dst",)
        if n_outs == 2:  # compare form
            return ("src", "threshold", "tmp"), ("dst", "cdst")
        return ("src", "indices", "tmp")[:n_ins], ("dst",)

    @property
    def form(self) -> TGatherForm:
        if self.mask_pattern is not None:
            return TGatherForm.MASK
        if len(self.destinations) == 2:
            return TGatherForm.COMPARE
        return TGatherForm.INDEX

    src = operand_of_role("src")
    dst = operand_of_role("dst")

    def index_entries(self, value: SSAValue) -> int | None:
        """How many entries `value` selects among when it is the index (random inputs): the
        storage of the tile it indexes."""
        return prod(self.src.type.shape) if value is self.role("indices") else None  # pyright: ignore[reportAttributeAccessIssue]

    @property
    def mask_axis(self) -> str:
        """Mask-form axis; absent means row, as in pto-isa."""
        return (self.axis or self.DEFAULTS["axis"]).data  # pyright: ignore[reportAttributeAccessIssue]

    @classmethod
    def parse(cls, parser: Parser):
        start = parser.pos
        op = super().parse(parser)
        # PTOAS also accepts `outs(%dst : Td) maskPattern = #pto.mask_pattern<P...>`
        if op.is_dps and parser._current_token.text == "maskPattern":  # pyright: ignore[reportPrivateUsage]
            pos = parser.pos
            parser.parse_identifier()
            parser.parse_punctuation("=")
            pattern = parser.parse_attribute()
            if not isinstance(pattern, MaskPatternAttr):
                parser.raise_error("expected #pto.mask_pattern<Pxxxx> for maskPattern", pos)
            if op.mask_pattern is not None:
                parser.raise_error("maskPattern may only be specified once", pos)
            op.mask_pattern = pattern
        if op.is_dps and (problem := op._operand_form_problem()) is not None:
            parser.raise_error(problem, start)
        return op

    def _operand_form_problem(self) -> str | None:
        """PTOAS's parse-time checks of a DPS tgather's operand list."""
        ins, outs = self.ins, self.outs
        tile_like = [isinstance(v.type, TileTypeBase) for v in ins]
        if self.form == TGatherForm.MASK:
            if len(ins) > 1:
                return "mask-pattern tgather does not take extra ins operands"
            if len(outs) != 1:
                return "mask-pattern tgather expects a single outs operand"
            return None
        if len(ins) == 1:
            return "expected ',' after src operand in ins(...)"
        if self.form == TGatherForm.COMPARE:
            if len(ins) > 3:
                return "compare-form tgather expects at most src, kValue, tmp in ins(...)"
            if len(ins) == 3 and not tile_like[2]:
                return "compare-form tgather tmp must be tile-like"
            return None
        if len(ins) > 3:
            return "index-form tgather expects at most src, indices, tmp in ins(...)"
        if not tile_like[1]:
            return "index-form tgather expects tile-like indices; compare-form must use outs(dst, cdst)"
        if len(ins) == 3 and not tile_like[2]:
            return "index-form tgather tmp must be tile-like"
        return None

    def verify_operands(self) -> None:
        if self.axis is not None and self.axis.data not in ("row", "col"):
            raise VerifyException('axis must be "row" or "col"')
        form = self.form
        if form != TGatherForm.MASK and self.axis is not None:
            raise VerifyException("axis attribute must not be provided without maskPattern")
        if form != TGatherForm.COMPARE and (self.cmp_mode is not None or self.offset is not None):
            raise VerifyException("cmpMode and offset are only allowed on compare-form tgather")
        src = self.expect_tile_in("src", self.src)
        if form == TGatherForm.MASK:
            if len(self.ins) != 1 or len(self.destinations) != 1:
                raise VerifyException("mask-pattern tgather only allows src and dst operands")
            dst = self.expect_tile("dst", self.dst)
            if src.element.bytes != dst.element.bytes:
                raise VerifyException(
                    "expects src and dst element sizes to match, got "
                    f"{src.element.bytes} and {dst.element.bytes} bytes"
                )
            return
        if form == TGatherForm.COMPARE:
            self._verify_compare(src)
        else:
            self._verify_index(src)

    def _verify_index(self, src: TileTypeBase) -> None:
        if len(self.ins) == 1:  # the mask form's counts, without its maskPattern
            raise VerifyException("index-form tgather expects src, indices[, tmp] in ins(...); the mask form names a maskPattern")
        dst = self.expect_tile("dst", self.dst)
        indices = self.expect_tile_in("indices", self.operand("indices"))
        if (tmp := self.role("tmp")) is not None:
            self.expect_tile_in("tmp", tmp)
        same_element_type("src", src.element_type, "dst", dst.element_type)
        if not indices.element.is_integer:
            raise VerifyException(f"indices element type must be integer, got {indices.element_type}")

    @property
    def threshold(self) -> SSAValue:
        """Compare form's `%k`: a scalar, or a tile of one threshold per src row."""
        return self.operand("threshold")

    def _verify_compare(self, src: TileTypeBase) -> None:
        dst = self.expect_tile("dst", self.dst)
        cdst = self.expect_tile("cdst", self.operand("cdst"))
        self.expect_tile_in("tmp", self.operand("tmp"))
        k = self.threshold.type
        if isinstance(k, TileTypeBase):
            if not k.element.is_integer:
                raise VerifyException(
                    f"expects the kValue threshold tile to have an integer element type, got {k.element_type}"
                )
        elif element_info(k) is None or isinstance(k, TileTypeBase | PartitionTensorViewType):
            raise VerifyException(f"compare-form tgather expects a scalar kValue operand, got {k}")
        elif k != src.element_type:
            raise VerifyException(
                f"expects kValue to have the same type as src element type, got {k} and {src.element_type}"
            )
        if cdst.element_type != dst.element_type:
            raise VerifyException(
                f"expects cdst to have the same element type as dst, got {cdst.element_type} and {dst.element_type}"
            )


# ---------------------------------------------------------------------------
# What each target accepts


F16_F32 = types_named("f16", "f32")


@dataclass(frozen=True)
class TGatherRules(RuleRow):
    """One target's TGATHER rules."""

    index_data_types: frozenset[str]
    """Index form: src / dst element types."""
    index_types_by_data_bytes: dict[int, frozenset[str]]
    """Index form: indices element types, per data element width."""
    index_needs_tmp: bool
    """Index form: tmp required, of the indices' type, shape = indices valid shape (a2a3: the
    code's byte offsets); else the code ignores a tmp, which takes no UB at the op (`untouched`)."""
    implicit_index_tmp: bool
    """pto-materialize-implicit-tmp adds the smallest tile when the index form omits tmp."""
    mask_types: frozenset[str]
    """Mask form: src / dst element types (equal sizes)."""
    mask_col_axis_types: frozenset[str]
    """Mask form, col axis: element types (b64 is row-only on a5)."""
    mask_col_axis_dst_full: bool
    """Mask form, col axis: dst valid rows (= the selected src rows) must be dst's Rows."""
    compare: bool
    """The compare form exists on this target."""
    compare_src_types: frozenset[str]
    compare_src_types_eq_only: frozenset[str]
    """Compare-form src types allowed only with cmpMode = eq."""
    threshold_tile_types: frozenset[str]
    """Compare form: element types of a per-row threshold tile."""
    compare_tmp_layout: bool
    """Compare form: tmp holds [bitmap][index table][converted k] and must be that large (a2a3);
    else the code ignores it (npu/a5/TGather.hpp's TGather_cmp), which takes no UB at the op."""
    note: str

    def check(self, operands: dict, attrs: Mapping[str, Attribute]) -> None:
        """The self of the op's form (told by its operands' roles)."""
        if "indices" in operands:
            _check_index(self, operands["src"], operands["indices"], operands["dst"], operands.get("tmp"))
        elif "threshold" in operands:
            mode = attrs.get("cmpMode") or TGatherOp.DEFAULTS["cmpMode"]
            _check_compare(self, mode.data, **{r: operands[r] for r in ("src", "threshold", "dst", "cdst", "tmp")})  # pyright: ignore[reportAttributeAccessIssue]
        else:
            axis = attrs.get("axis") or TGatherOp.DEFAULTS["axis"]
            _check_mask(self, attrs["maskPattern"].data, axis.data, operands["src"], operands["dst"])  # pyright: ignore[reportAttributeAccessIssue]

    DOCS: ClassVar[DocsCells] = (
        ("index: src/dst element type", lambda r: spell(r.index_data_types)),
        ("index: indices element type per data width", lambda r: "; ".join(f"{b} B: {spell(s)}" for b, s in sorted(r.index_types_by_data_bytes.items()))),
        ("index: dst and indices valid cols == cols", lambda r: "yes"),
        ("index: tmp (indices' type, shape = indices valid shape)", lambda r: "required" if r.index_needs_tmp else "optional, unused"),
        ("index: tmp added when omitted (pto-materialize-implicit-tmp)", lambda r: "1 x 32 bytes of the indices' type" if r.implicit_index_tmp else "none"),
        ("mask: src/dst element type (row axis)", lambda r: spell(r.mask_types)),
        ("mask: src/dst element type (col axis)", lambda r: spell(r.mask_col_axis_types)),
        ("mask: vec, row-major ND, dst valid cols == cols, valid shapes match the pattern factor", lambda r: "yes"),
        ("mask, col axis: dst valid rows == dst rows", lambda r: "required" if r.mask_col_axis_dst_full else "no"),
        ("compare form", lambda r: "supported" if r.compare else "rejected (no implementation)"),
        ("compare: cmpMode", lambda r: "eq, gt" if r.compare else "-"),
        ("compare: src element type", lambda r: (spell(r.compare_src_types) + (f"; {spell(r.compare_src_types_eq_only)} with eq" if r.compare_src_types_eq_only else "")) if r.compare else "-"),
        ("compare: dst/cdst element type", lambda r: spell(INT32) if r.compare else "-"),
        ("compare: threshold tile element type", lambda r: spell(r.threshold_tile_types) if r.compare else "-"),
        ("compare: tmp size (bitmap + index table + converted k)", lambda r: "checked" if r.compare_tmp_layout else "-"),
        ("why", lambda r: r.note),
    )


NO_TYPES: frozenset[str] = frozenset()


def _check_index(rules: TGatherRules, src: TileFacts, indices: TileFacts, dst: TileFacts, tmp: TileFacts | None) -> None:
    require_type("src/dst", src.elem, rules.index_data_types)
    allowed = rules.index_types_by_data_bytes[src.elem.bytes]  # every listed data type has a width row
    require(
        indices.elem.mlir in allowed,
        f"expects indices element type to be {spell(allowed)} for {src.elem.bytes}-byte data, "
        f"got {indices.elem.mlir}",
    )
    _require_full_width(dst)
    _require_full_width(indices)
    if rules.index_needs_tmp:
        require(tmp is not None, "index-form tgather expects both indices and tmp")
        assert tmp is not None
        require(
            tmp.elem.mlir == indices.elem.mlir,
            f"expects tmp and indices to have the same element type, got {tmp.elem.mlir} and {indices.elem.mlir}",
        )
        if known(indices.valid_row, indices.valid_col):
            require(
                (tmp.rows, tmp.cols) == (indices.valid_row, indices.valid_col),
                f"expects tmp shape to equal indices valid shape, got [{tmp.rows}, {tmp.cols}] "
                f"and [{indices.valid_row}, {indices.valid_col}]",
            )
        if known(indices.valid_row, indices.valid_col, tmp.valid_row, tmp.valid_col):
            require(
                (tmp.valid_row, tmp.valid_col) == (indices.valid_row, indices.valid_col),
                "expects indices and tmp to have the same valid_shape, got "
                f"[{indices.valid_row}, {indices.valid_col}] and [{tmp.valid_row}, {tmp.valid_col}]",
            )


def _check_mask(rules: TGatherRules, pattern: MaskPattern, axis: str, src: TileFacts, dst: TileFacts) -> None:
    for t in (src, dst):
        require(t.loc == "vec", f"expects {t.role} to be a Vec tile (loc=vec), got loc={t.loc}")
        require(t.blayout == "row_major", f"expects {t.role} to use the row_major blayout, got {t.blayout}")
    allowed = rules.mask_types if axis == "row" else rules.mask_col_axis_types
    require_type(f"mask-pattern ({axis} axis) src", src.elem, allowed)
    require_type(f"mask-pattern ({axis} axis) dst", dst.elem, allowed)
    _require_full_width(dst)
    t = pattern.period
    if axis == "row":
        pairs = (("rows", src.valid_row, dst.valid_row, 1), ("cols", src.valid_col, dst.valid_col, t))
    else:
        pairs = (("cols", src.valid_col, dst.valid_col, 1), ("rows", src.valid_row, dst.valid_row, t))
    if axis == "col" and rules.mask_col_axis_dst_full and known(dst.valid_row):
        require(
            dst.valid_row == dst.rows,
            f"expects dst valid_shape[0] (the selected src rows) to equal dst rows for col direction, "
            f"got {dst.valid_row} and {dst.rows}",
        )
    for name, s, d, factor in pairs:
        if known(s, d):
            if factor == 1:
                require(
                    s == d,
                    f"expects dst valid {name} to equal src valid {name} for {axis} direction, "
                    f"got {d} and {s}",
                )
            else:
                require(
                    s == d * factor,
                    f"expects src valid {name} to equal dst valid {name} times the mask expansion "
                    f"factor {factor} for {axis} direction, got {s} and {d}",
                )


def _check_compare(
    rules: TGatherRules,
    cmp_mode: CmpMode,
    src: TileFacts,
    threshold: TileFacts | str,
    dst: TileFacts,
    cdst: TileFacts,
    tmp: TileFacts,
) -> None:
    """`threshold` is a per-row tile, or the PTO spelling of a scalar's type."""
    require(rules.compare, "compare-form tgather is not supported")
    require(cmp_mode in (CmpMode.EQ, CmpMode.GT), f"expects compare-form tgather cmpMode to be eq or gt, got {cmp_mode.value}")
    for t in (src, dst, cdst, tmp):
        require(t.loc == "vec", f"expects {t.role} to be a Vec tile (loc=vec), got loc={t.loc}")
        require(t.blayout == "row_major", f"expects {t.role} to use the row_major blayout, got {t.blayout}")
    allowed = rules.compare_src_types | (rules.compare_src_types_eq_only if cmp_mode == CmpMode.EQ else frozenset())
    if src.elem.mlir in rules.compare_src_types_eq_only and cmp_mode != CmpMode.EQ:
        raise RuleViolation(
            f"expects cmpMode = eq for a compare-form tgather src of type {src.elem.mlir}, "
            f"got {cmp_mode.value}"
        )
    require_type("compare-form src", src.elem, allowed)
    require_type("dst", dst.elem, INT32)
    if isinstance(threshold, TileFacts):
        require_type("threshold tile", threshold.elem, rules.threshold_tile_types)
        _check_threshold_shape(threshold, src)
    if rules.compare_tmp_layout:
        need = tmp.rows * tmp.cols + src.rows * src.cols * dst.elem.bytes + src.rows * src.elem.bytes
        require(
            tmp.size_bytes >= need,
            "expects tmp to hold the compare bitmap, index table and converted thresholds: "
            f"at least {tmp.rows}*{tmp.cols} + {src.rows}*{src.cols}*{dst.elem.bytes} + "
            f"{src.rows}*{src.elem.bytes} = {need} bytes, got {tmp.size_bytes} bytes",
        )


def _check_threshold_shape(k: TileFacts, src: TileFacts) -> None:
    """One threshold per src row: [R, 1] col-major or [1, R] row-major, R = src valid rows."""
    if k.blayout == "col_major":
        length, other, shape = k.valid_row, k.valid_col, "[R, 1]"
    else:
        length, other, shape = k.valid_col, k.valid_row, "[1, R]"
    if known(other):
        require(other == 1, f"expects a {k.blayout} threshold tile to be {shape}, got valid [{k.valid_row}, {k.valid_col}]")
    if known(length, src.valid_row):
        require(
            length == src.valid_row,
            f"expects one threshold per src valid row ({src.valid_row}), got {length}",
        )


def _require_full_width(t: TileFacts) -> None:
    """Contiguous storage: valid cols equal padded cols."""
    if known(t.valid_col):
        require(
            t.valid_col == t.cols,
            f"expects {t.role} valid_shape[1] to equal {t.role} cols, got {t.valid_col} and {t.cols}",
        )


def untouched(op: TGatherOp, rules: TGatherRules) -> frozenset[str]:
    """By role, not `form`: the lowered op (the sync checker's, the profiler's) has no `form`."""
    used = rules.index_needs_tmp if op.role("indices") is not None else rules.compare_tmp_layout
    return tmp_untouched_unless(used)


def implicit_tmp(op: TGatherOp, rules: TGatherRules) -> AllocTileOp | None:
    """The smallest tile of the indices' type, where the index form omits an unused tmp."""
    if op.form != TGatherForm.INDEX or op.role("tmp") is not None or not rules.implicit_index_tmp:
        return None
    return AllocTileOp(smallest_tile(op.operand("indices").type))  # pyright: ignore[reportArgumentType]


# ---------------------------------------------------------------------------
# The choices a target makes


# ---------------------------------------------------------------------------
# The kernels


def tgather_index(o: dict, *, out_of_range: OutOfRange, tmp_use: TmpUse) -> None:
    """dst[r, c] = src.elem(i div Cols, i mod Cols), i = indices[r, c] (padding is readable)."""
    src, idx, dst, tmp = o["src"], o["indices"], o["dst"], o.get("tmp")
    vr, vc = dst.valid_shape
    offsets = idx.values[..., :vr, :vc].astype(np.int64)
    dst.write_valid(gather_src_elements(src, offsets, out_of_range, batched=idx.flat.ndim > 1))
    if _writes_byte_offsets(src, tmp, tmp_use):
        iv = idx.read_valid()
        tmp.write(iv.shape[-2], iv.shape[-1], (iv.astype(np.int64) * 2).astype(tmp.flat.dtype))


def _writes_byte_offsets(src: Tile, tmp: Tile | None, tmp_use: TmpUse) -> bool:
    """a2a3 vgather takes byte offsets: for b16 data they are computed into tmp (vmuls)."""
    match tmp_use:
        case TmpUse.NONE:
            return False
        case TmpUse.B16_BYTE_OFFSETS:
            return tmp is not None and src.flat.itemsize == 2


def gather_src_elements(src: Tile, offsets: np.ndarray, out_of_range: OutOfRange, *, batched: bool) -> np.ndarray:
    """src's logical elements at row-major `offsets` (rows x cols, after an iteration axis
    if `batched`; a batched src pairs each iteration's offsets with its own storage)."""
    rows, cols = src.type.shape
    inside = (offsets >= 0) & (offsets < rows * cols)
    if not inside.all():
        match out_of_range:
            case OutOfRange.FAULT:
                iteration, where = first_failing(~inside, 1 if batched else 0)
                value = offsets[(iteration, *where) if iteration is not None else where]
                raise RuntimeFault(
                    f"index {int(value)} at indices position {list(where)} is outside src "
                    f"storage of {rows}x{cols} = {rows * cols} elements",
                    iteration,
                )
            case OutOfRange.ZERO:
                pass
    safe = np.where(inside, offsets, 0)
    if src.flat.ndim > 1:  # one storage per iteration
        logical = src.values.reshape(src.flat.shape[0], rows * cols)
        values = np.take_along_axis(logical, np.broadcast_to(safe, (src.flat.shape[0], *safe.shape[-2:])).reshape(
            src.flat.shape[0], -1), axis=1).reshape(src.flat.shape[0], *safe.shape[-2:])
    else:
        values = src.values[safe // cols, safe % cols]
    if not inside.all():
        values = np.where(inside, values, np.zeros((), dtype=values.dtype))
    return values


def tgather_mask(o: dict, *, mask_pattern: MaskPattern, axis: str, packing: Packing) -> None:
    """Keep the elements `mask_pattern` selects; bits are copied (same element size)."""
    src, dst = o["src"], o["dst"]
    t, off = mask_pattern.period, mask_pattern.offset
    values = src.read_valid().view(dst.flat.dtype) if src.flat.dtype != dst.flat.dtype else src.read_valid()
    batch = values.shape[:-2]
    if axis == "col":
        picked = values[..., off::t, :]
        dst.write(picked.shape[-2], picked.shape[-1], picked)
        return
    match packing:
        case Packing.PER_ROW:  # a5 b64: dst.flat[r*(Cols/t) + k] = src[r, k*t + off], k < vc // t
            per_row = dst.type.shape[1] // t
            count = values.shape[-1] // t
            picked = values[..., off : off + count * t : t]
            r = np.arange(picked.shape[-2])[:, None] * per_row + np.arange(count)[None, :]
            dst.flat[..., r] = picked
        case Packing.DENSE:
            stream = values[..., off::t].reshape(*batch, -1)
            dst.flat[..., : stream.shape[-1]] = stream


def _thresholds(k: object, src: Tile, read: ThresholdRead) -> np.ndarray:
    """One threshold per valid src row: a scalar of src's type, or a tile's values as the
    target reads them."""
    vr = src.valid_row
    if not isinstance(k, Tile):
        return np.full(vr, k, dtype=src.flat.dtype)
    per_row = k.read_valid().reshape(-1)[:vr]
    match read:
        case ThresholdRead.RAW:
            return per_row
        case ThresholdRead.CONVERTED:
            return per_row.astype(src.flat.dtype)
        case ThresholdRead.LOW_16_BITS_SIGNED:
            return (per_row.astype(np.int64) & 0xFFFF).astype(np.uint16).view(np.int16).astype(src.flat.dtype)


def _compared(src: np.ndarray, k: np.ndarray, compare: CompareKind) -> tuple[np.ndarray, np.ndarray]:
    """The values the target actually compares (src rows x cols, k per row)."""
    match compare:
        case CompareKind.NUMERIC:
            return src, k[:, None]
        case CompareKind.UNSIGNED_AFTER_ROUND:  # floats round to int32 (nearest even), then 32-bit unsigned
            def as_u32(a: np.ndarray) -> np.ndarray:
                if a.dtype.kind == "f":
                    a = np.rint(a.astype(np.float32)).astype(np.int64)
                return a.astype(np.int64) & 0xFFFFFFFF

            return as_u32(src), as_u32(k)[:, None]


def tgather_compare(o: dict, *, cmp_mode: CmpMode, offset: int, index_numbering: IndexNumbering,
                    compare_span: CompareSpan, compare: CompareKind, threshold_read: ThresholdRead) -> None:
    """Per row i: the indices of columns j with cmp(src[i, j], k_i), packed left; cdst[i] = count."""
    src, dst, cdst = o["src"], o["dst"], o["cdst"]
    vr, vc = src.valid_shape
    cols = src.type.shape[1]
    match index_numbering:
        case IndexNumbering.SRC_COLS:
            row_base = cols
        case IndexNumbering.LANE_CHUNKS_64:
            row_base = ceil(vc / 64) * 64
        case IndexNumbering.LANE_CHUNKS_128:
            row_base = ceil(vc / 128) * 128
    match compare_span:
        case CompareSpan.VALID_COLS:
            span = vc
        case CompareSpan.WHOLE_CHUNKS:
            span = min(row_base, cols)
    data, keys = _compared(src.values[:vr, :span], _thresholds(o["threshold"], src, threshold_read), compare)
    match cmp_mode:
        case CmpMode.EQ:
            hit = data == keys
        case CmpMode.GT:
            hit = data > keys
        case _:
            raise RuntimeFault(f"cmpMode {cmp_mode.value} is not a compare-form mode")
    counts = hit.sum(axis=1)
    index = offset + np.arange(vr)[:, None] * row_base + np.arange(span)[None, :]
    # pack each row's hits to the left: stable sort of "not hit" keeps hits in column order
    order = np.argsort(~hit, axis=1, kind="stable")
    packed = np.take_along_axis(index, order, axis=1)
    width = int(counts.max(initial=0))
    if width > dst.type.shape[1]:
        raise RuntimeFault(f"row matches ({width}) exceed dst cols ({dst.type.shape[1]})")
    current = dst.values[:vr, :width].copy()
    keep = np.arange(width)[None, :] < counts[:, None]
    current[keep] = packed[:, :width][keep]
    dst.write(vr, width, current)
    cdst.flat[:vr] = counts.astype(cdst.flat.dtype)


def tgather_index_footprint(o: dict, *, tmp_use: TmpUse, **_: object) -> Footprint:
    src, idx, dst, tmp = o["src"], o["indices"], o["dst"], o.get("tmp")
    tiles = [(idx, False, rect(idx, *dst.valid_shape)), (src, False, None), (dst, True, valid_rect(dst))]
    if tmp is not None and _writes_byte_offsets(src, tmp, tmp_use):
        tiles += [(idx, False, valid_rect(idx)), (tmp, True, rect(tmp, *idx.valid_shape))]
    return Footprint(tiles, [])


def tgather_mask_footprint(o: dict, *, mask_pattern: MaskPattern, axis: str, packing: Packing) -> Footprint:
    src, dst = o["src"], o["dst"]
    t, off = mask_pattern.period, mask_pattern.offset
    vr, vc = src.valid_shape
    if axis == "col":
        written = rect(dst, len(range(off, vr, t)), vc)
    else:
        match packing:
            case Packing.PER_ROW:
                count = vc // t
                written = (np.arange(vr)[:, None] * (dst.type.shape[1] // t) + np.arange(count)[None, :]).reshape(-1)
            case Packing.DENSE:
                written = np.arange(vr * len(range(off, vc, t)))
    return Footprint([(src, False, valid_rect(src)), (dst, True, written)], [])


# ---------------------------------------------------------------------------
# The lowered ops


class TGatherIndexBase(LoweredOp):
    """dst[r, c] = src.flat[indices[r, c]] (element offsets into src's padded storage)."""

    SOURCE: ClassVar[type[PtoInstructionOp]] = TGatherOp
    KERNEL = staticmethod(tgather_index)
    FOOTPRINT = staticmethod(tgather_index_footprint)
    out_of_range = prop_def(OutOfRange.Attr)
    tmp_use = prop_def(TmpUse.Attr)


class TGatherMaskBase(LoweredOp):
    """Keep the elements `maskPattern` selects along `axis`, packed as `packing` says."""

    SOURCE: ClassVar[type[PtoInstructionOp]] = TGatherOp
    KERNEL = staticmethod(tgather_mask)
    FOOTPRINT = staticmethod(tgather_mask_footprint)
    mask_pattern = prop_def(MaskPatternAttr, prop_name="maskPattern")
    axis = prop_def(StringAttr)
    packing = prop_def(Packing.Attr)


class TGatherCompareBase(LoweredOp):
    """dst[i, n] = index(i, j) of the n-th j with cmp(src[i, j], k_i); cdst[i] = count."""

    SOURCE: ClassVar[type[PtoInstructionOp]] = TGatherOp
    KERNEL = staticmethod(tgather_compare)
    cmp_mode = prop_def(CmpModeAttr, prop_name="cmpMode")
    offset = prop_def(IntegerAttr[I32])
    index_numbering = prop_def(IndexNumbering.Attr)
    compare_span = prop_def(CompareSpan.Attr)
    compare = prop_def(CompareKind.Attr)
    threshold_read = prop_def(ThresholdRead.Attr)


# ---------------------------------------------------------------------------
# What it costs

TCMPS_REPEAT_MAX = 240
"""The a2a3 compare-form loop's most repeats per vcmpvs (npu/a2a3/TCmps.hpp)."""


def _cce_index(op: LoweredOp, o: dict, machine: CceMachine, work: Work) -> OpCost:
    """npu/a2a3/TGather.hpp TGather (index form), per dst valid row: byte offsets by vmuls,
    a barrier, one vgather (counter mode)."""
    t = machine.trace()

    def row() -> None:
        t.call()  # set_vector_mask
        t.vector("vmuls")
        t.barrier()
        t.vector("vgather")

    t.call()  # set_mask_count
    t.loop(o["dst"].valid_row, row)
    t.call(2)  # set_mask_norm, set_vector_mask
    return t.cost(Pipe.VECTOR, exact=True)


def _cce_mask(op: TGatherMaskBase, o: dict, machine: CceMachine, work: Work) -> OpCost:
    """npu/a2a3/TGather.hpp TGather (mask form): one vreducev2 of a repeat per src valid row,
    or (col axis, which the cost model's wrapper cannot express) one vcopy per src valid row."""
    t = machine.trace()
    rows = o["src"].valid_row
    col_axis = op.axis.data == "col"
    t.call(2)  # set_mask_count, set_vector_mask
    if col_axis:
        t.loop(rows, lambda: t.vector("vcopy"))
    else:
        t.vector("vreducev2", repeat=rows)
    t.call(2)  # set_mask_norm, set_vector_mask
    return t.cost(Pipe.VECTOR, exact=not col_axis)


def _cce_compare(op: TGatherCompareBase, o: dict, machine: CceMachine, work: Work) -> OpCost:
    """npu/a2a3/TGather.hpp TGather_cmp: the thresholds converted (vconv; i32 src: a scalar
    copy), per src valid row the vcmpvs of its repeats (at most 240 a call), a barrier, then
    per row one vreducev2 in counter mode. A scalar threshold has no conversion (the a2a3 code
    takes a tile)."""
    src, k, t = o["src"], o["threshold"], machine.trace()
    rows = src.valid_row
    if isinstance(k, TileFacts) and src.elem.mlir in ("f16", "f32"):
        t.vector("vconv_s162f16" if src.elem.bytes == 2 else "vconv_s322f32", repeat=vector_repeats(rows, k.elem.bytes))
    full, rest = divmod(vector_repeats(src.valid_col, src.elem.bytes), TCMPS_REPEAT_MAX)
    compare = {CmpMode.EQ: "vcmpvs_eq", CmpMode.GT: "vcmpvs_gt"}[op.cmp_mode.data]
    t.call(2)  # set_mask_norm, set_vector_mask
    t.loop(rows * full, lambda: t.vector(compare, repeat=TCMPS_REPEAT_MAX))
    if rest:
        t.loop(rows, lambda: t.vector(compare, repeat=rest))
    t.barrier()
    t.call(2)  # set_mask_count, set_vector_mask
    t.loop(rows, lambda: t.vector("vreducev2"))
    t.call(2)  # set_mask_norm, set_vector_mask
    return t.cost(Pipe.VECTOR, exact=False)


def _vf_mask(op: TGatherMaskBase, o: dict, machine: VfMachine, work: Work) -> OpCost:
    """npu/a5/TGather.hpp TGather (mask form), per src valid row and register: row axis a
    predicate, vlds, pand, vsqz and an unaligned store (vstur), then vstar; col axis vlds and
    vsts. b64 data (Int64GatherPattern): per row two vgather2 of the 32-bit halves."""
    src = o["src"]
    rows = src.valid_row
    if op.packing.data == Packing.PER_ROW:
        body = {"plt": rows, "vci": rows, "vmuls": rows, "vadds": 2 * rows, "vadd": rows, "vgather2": 2 * rows,
                "vsts": rows}
    else:
        n = rows * vector_repeats(src.valid_col, src.elem.bytes)
        if op.axis.data == "col":
            body = {"plt": n, "vlds": n, "vsts": n}
        else:
            body = {"pset": 1, "sprclr": 1, "plt": n, "vlds": n, "pand": n, "vsqz": n, "vstur": n, "vstar": 1}
    return machine.cost(Pipe.VECTOR, 0, machine.vector_function(body))


def _vf_compare(op: TGatherCompareBase, o: dict, machine: VfMachine, work: Work) -> OpCost:
    """npu/a5/TGather.hpp TGather_float_gt and its siblings: per src valid row and register a
    vlds, (float src) a vcvt to s32, a predicate, vcmps, vsqz of the running index, vstur and
    vadd; per row vstar and the count's special-register store; once the index vector (vci)."""
    src = o["src"]
    rows = src.valid_row
    n = rows * vector_repeats(src.valid_col, src.elem.bytes)
    body = {"pset": 1, "vci": 1, "sprclr": 1 + rows, "vbr": 1, "vlds": n, "plt": n, "vcmps": n, "vsqz": n,
            "vstur": n, "vadd": n, "vstar": rows, "sprsts": rows}
    if src.elem.mlir.startswith(("f", "bf")):
        body["vcvt"] = n
    return machine.cost(Pipe.VECTOR, 0, machine.vector_function(body))


def _simulated(op: Operation, o: dict, machine: SimulatorMachine, work: Work) -> OpCost:
    """pto-isa cpu/TGather.hpp: a loop over dst valid elements (index form) or src valid
    elements (mask form)."""
    tile = o["src"] if isinstance(op, TGatherMaskBase) else o["dst"]
    return machine.cost(Pipe.VECTOR, 0, tile.valid_row * tile.valid_col)


COST = InstructionCost(
    on={
        CceMachine: by_op((TGatherIndexBase, _cce_index), (TGatherMaskBase, _cce_mask), (TGatherCompareBase, _cce_compare)),
        VfMachine: by_op((TGatherMaskBase, _vf_mask), (TGatherCompareBase, _vf_compare)),
        SimulatorMachine: _simulated,
    },
)


# ---------------------------------------------------------------------------
# C++, the assembly form and the registry entry


def emit(e: Emission, op: TGatherOp) -> None:
    src, dst = op.src, op.dst
    if op.form == TGatherForm.MASK:
        # TGATHER<DstT, SrcT, MaskPattern::P0101[, GatherAxis::GATHER_COL]>(dst, src)
        assert op.mask_pattern is not None
        template = [e.alias(dst.type), e.alias(src.type), f"MaskPattern::{op.mask_pattern.data}"]
        if op.mask_axis == "col":
            template.append("GatherAxis::GATHER_COL")
        e.issue(op, e.call("TGATHER", [dst, src], template))
        return
    tmp = e.require(op, "tmp")
    if op.form == TGatherForm.INDEX:
        # TGATHER(dst, src, indices, tmp)
        indices = op.operand("indices")
        e.issue(op, e.call("TGATHER", [dst, src, indices, tmp]))
        return
    # TGATHER<DstT, SrcT, KT, CdstT, TmpT, CmpMode::GT>(dst, src, k_value, cdst, tmp, offset):
    # pto-isa's argument order
    k, cdst = op.threshold, op.operand("cdst")
    k_type = e.alias(k.type) if isinstance(k.type, TileBufType) else e.scalar(k.type)
    mode = op.cmp_mode.data if op.cmp_mode is not None else CmpMode.EQ
    template = [
        e.alias(dst.type), e.alias(src.type), k_type, e.alias(cdst.type), e.alias(tmp.type),
        f"CmpMode::{mode.value.upper()}",
    ]
    offset = str(op.offset.value.data if op.offset is not None else 0)
    statement = e.call("TGATHER", [dst, src, k, cdst, tmp], template, [offset])
    e.issue(op, statement)


def implied_indices(dst: Attribute) -> TileType | None:
    """`tgather %s, %i : Ts -> Td` names no type for %i: `!pto.tile<vec, RxCxi32>` with Td's shape."""
    return TileType.get("vec", dst.shape, i32) if isinstance(dst, TileType) else None


def short_indices(dst: Attribute, attrs: Mapping[str, Attribute]) -> Attribute | str | None:
    if "maskPattern" in attrs:
        return None
    return implied_indices(dst) or "`tgather %src, %indices : Ts -> Td` implies the indices' type only for a !pto.tile Td"


def omits_indices_type(op: TGatherOp) -> bool:
    """Whether the printer may write index-form `tgather %s, %i : Ts -> Td`."""
    return (
        op.form == TGatherForm.INDEX
        and len(op.ins) == 2
        and op.ins[1].type == implied_indices(op.dst.type)
    )


TGATHER = Instruction(
    rules=TGatherRules,
    lowered=(TGatherIndexBase, TGatherMaskBase, TGatherCompareBase),
    emit=emit,
    in_place={
        "index": InPlace(
            frozenset({"indices"}),
            how="each target reads a repeat of indices (a2a3: a whole row) before it writes it (a2a3 "
            "vmuls then vgather, a5 vlds before vsts, the simulator element by element)",
            refused="only dst over indices is computed in place: any src element may be read "
            "after its bytes were written.",
        ),
        "mask": InPlace(
            frozenset({"src"}),
            how="only P1111 has dst exactly over src; each target copies a repeat or row after "
            "reading it (a2a3 vreducev2 / vcopy, a5 vlds before vsts)",
            refused="only dst over src is computed in place.",
        ),
        "compare": InPlace(
            frozenset(),
            how="",
            refused="not shown safe by the code (dst, cdst and tmp are written while src is "
            "scanned): rejected.",
        ),
    },
    implicit_tmp=implicit_tmp,
    untouched=untouched,
    asm=AsmForm(short_operand=short_indices, omits_operand_type=omits_indices_type),
    form=lambda op: op.form.value,
    cost=COST,
)

