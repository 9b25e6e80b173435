"""
TLOAD and TSTORE: copies between a GM window and a tile's valid region, with the shape
rules of pto-isa's TLoad/TStore code per target, and what a TLOAD writes beyond the valid
region (docs/tload-padding.md).

A GM view's 5-D shape `S0..S4` (a rank-k view right-aligned) gives the tile's valid
shape per GM layout, as every target's code computes it:
  ND: rows = S0*S1*S2*S3, cols = S4;  DN: rows = S3, cols = S0*S1*S2*S4;
  NZ: rows = S2*S3, cols = S0*S1*S4.

Both stay pto ops when lowered: a target's lowering records its TLOAD padding choices on
the pto.tload as attributes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, ClassVar

from xdsl.ir import SSAValue
from xdsl.irdl import irdl_op_definition

from pto_dialect.attributes import GmLayout
from pto_dialect.choices import Choice, PadFill, PadValue
from pto_dialect.cost import CalibratedMachine, CalibratedTrace, CceMachine, CceTrace, DmaPath, InstructionCost, NoCostModel, OpCost, SimulatorMachine, VfMachine, Work
from pto_dialect.facts import UNKNOWN, RuleViolation, TileFacts, ViewFacts, inferred_layout, known, require, spell
from pto_dialect.instruction import CheckRule, DocsCells, Emission, Instruction, Pipe, RuleRow
from pto_dialect.machine import Footprint, GmView, Tile, np, valid_rect
from pto_dialect.ops.common import PtoInstructionOp, same_element_type
from pto_dialect.instructions.operands import taking
from pto_dialect.types import ShapedViewBase, TileTypeBase

# ---------------------------------------------------------------------------
# What TLOAD writes beyond the valid region: a target choice


# ---------------------------------------------------------------------------
# What each target accepts


class ShapeMatch(Enum):
    EQUAL = "equal"
    """The view gives exactly the tile's valid shape."""
    COVERS = "covers"
    """The view gives at least the valid shape; the valid region goes to its top-left corner."""


@dataclass(frozen=True)
class TransferRules(RuleRow):
    """One target's TLOAD / TSTORE rules: shapes, and what TLOAD writes beyond the valid region."""

    tload: ShapeMatch
    tstore: ShapeMatch
    pad_fill: PadFill
    """UB (vec) tiles. WHOLE_TILE: every element of the Rows x Cols storage gets the pad
    value (null: 0) before the valid region is copied (pto-isa cpu/TLoad.hpp, "Filling
    padding"). BLOCK_TAIL: only with pad != null, each valid row (row-major ND tile; valid
    column of a col-major DN tile) is completed with the pad value up to its next 32-byte
    boundary, the DMA's right padding (a2a3: ubPad = (Cols - validCol) % (32 / sizeof(T))
    elements after pto_set_tload_pad_val; a5: enableUBPad, copy_gm_to_ubuf_align_v2's data
    select bit); the further 32-byte blocks of a row, the rows past the valid ones and NZ
    tiles are untouched. NOTHING: nothing beyond the valid region is written."""
    pad_fill_mat: PadFill
    """L1 (mat) tiles."""
    zero_pad_types: frozenset[str]
    """Element types whose pad value is 0 whatever `pad` says (pto-isa's PadValueMap)."""
    contiguous_rows: bool
    """The DMA copies each row (DN: column) as one contiguous burst and never reads the
    innermost stride (ND: Stride[4], DN: Stride[3]), so that stride must be 1 (any, when that
    dim holds one element)."""
    note: str
    store_locs: frozenset[str] = frozenset({"vec", "mat", "acc"})
    """The memories TSTORE stores tiles from."""
    vec_load_same_layout: bool = False
    """TLOAD into a Vec tile only ND -> ND, DN -> DN, NZ -> NZ (a static_assert): the tile laid
    out as the view's tensor (ND: row-major none_box, DN: col-major none_box, NZ: col-major with
    row-major boxes)."""
    store_same_layout: frozenset[str] = frozenset()
    """The memories TSTORE stores from only ND -> ND, DN -> DN, NZ -> NZ (a static_assert), save
    a tile of one row or one column (its Rows or Cols 1)."""
    store_b64_nd_dn: bool = False
    """TSTORE of 8-byte elements from those memories only ND -> ND or DN -> DN, with no exception
    for one row or column (a static_assert)."""
    acc_store_layouts: frozenset[GmLayout] | None = None
    """The view layouts TSTORE stores an Acc tile to (a static_assert); None: any."""

    DOCS: ClassVar[DocsCells] = (
        ("view shape -> rows x cols", lambda r: "ND: S0*S1*S2*S3 x S4; DN: S3 x S0*S1*S2*S4; NZ: S2*S3 x S0*S1*S4"),
        ("tload: view vs dst valid shape", lambda r: r.tload.value),
        ("tstore: view vs src valid shape", lambda r: r.tstore.value),
        ("tload: written beyond the valid region (vec / mat tiles)", lambda r: f"{r.pad_fill.value} / {r.pad_fill_mat.value}"),
        ("tload: a Vec dst laid out as the view", lambda r: "yes" if r.vec_load_same_layout else "no"),
        ("tstore: src laid out as the view (or of one row or column)", lambda r: ", ".join(sorted(r.store_same_layout)) or "no"),
        ("tstore: 8-byte elements ND or DN only, laid out as the view", lambda r: "yes" if r.store_b64_nd_dn else "no"),
        ("tstore: an Acc src's view layouts", lambda r: "any" if r.acc_store_layouts is None
         else ", ".join(sorted(layout.value for layout in r.acc_store_layouts))),
        ("tstore: src memories", lambda r: ", ".join(sorted(r.store_locs))),
        ("unit innermost stride (ND: last dim, DN: rows dim; any when that dim is 1)", lambda r: "yes" if r.contiguous_rows else "no (strided reads)"),
        ("tload: pad value 0 whatever pad says", lambda r: spell(r.zero_pad_types) or "none"),
        ("why", lambda r: r.note),
    )


def _product(*dims: int) -> int:
    total = 1
    for d in dims:
        if d == UNKNOWN:
            return UNKNOWN
        total *= d
    return total


def view_valid_shape(view: ViewFacts) -> tuple[int, int]:
    """The (rows, cols) a view transfers to or from a tile, per its GM layout."""
    s0, s1, s2, s3, s4 = view.shape5
    if view.layout == GmLayout.DN:
        return s3, _product(s0, s1, s2, s4)
    if view.layout == GmLayout.NZ:
        return _product(s2, s3), _product(s0, s1, s4)
    return _product(s0, s1, s2, s3), s4


def _check(op: str, match: ShapeMatch, view: ViewFacts, tile: TileFacts) -> None:
    rows, cols = view_valid_shape(view)
    layout = (view.layout or GmLayout.ND).value
    for what, gm, valid in (("rows", rows, tile.valid_row), ("cols", cols, tile.valid_col)):
        if not known(gm, valid):
            continue
        ok = gm == valid if match == ShapeMatch.EQUAL else gm >= valid
        if not ok:
            relation = "equal" if match == ShapeMatch.EQUAL else "cover"
            raise RuleViolation(
                f"{op} expects the {view.role} view ({layout} shape {list(view.shape)}: {rows} rows x "
                f"{cols} cols) to {relation} the {tile.role} valid shape {tile.valid_row}x{tile.valid_col}"
            )


def _check_contiguous(rules: TransferRules, op: str, view: ViewFacts) -> None:
    if not rules.contiguous_rows or view.strides is None or view.layout == GmLayout.NZ:
        return
    dn = view.layout == GmLayout.DN
    stride = view.row_stride if dn else view.inner_stride
    along = view.shape5[3] if dn else view.shape5[4]
    if known(stride) and stride != 1 and along != 1:  # a burst of one element never steps the stride
        what = "column (rows dim)" if dn else "row (last dim)"
        raise RuleViolation(
            f"{op} expects a unit stride along each {what} of the {view.role} view: the DMA copies "
            f"contiguous bursts, got stride {stride}"
        )


def _tile_gm_layout(tile: TileFacts) -> GmLayout | None:
    """The GM layout a tile's storage order is (ND, DN, NZ), if any."""
    if tile.slayout == "none_box":
        return GmLayout.ND if tile.is_row_major else GmLayout.DN
    return GmLayout.NZ if tile.is_nz else None


def column_taken_as_dn(view_shape: Sequence[int], blayout: str, slayout: str) -> bool:
    """An ND column window [.., R, 1] with a col-major none_box (DN) tile: one column is the same
    bytes in ND and DN, so it moves as DN (its C++ GlobalTensor is declared `Layout::DN`)."""
    return view_shape[-1] == 1 and blayout == "col_major" and slayout == "none_box"


def _laid_out_as(view: ViewFacts, tile: TileFacts) -> GmLayout | None:
    """The GM layout a transfer between a view of known layout and `tile` moves as, if the tile
    is laid out as it: the view's, or DN for an ND column with a DN tile (`column_taken_as_dn`)."""
    if view.layout == GmLayout.ND and column_taken_as_dn(view.shape, tile.blayout, tile.slayout):
        return GmLayout.DN
    return view.layout if _tile_gm_layout(tile) == view.layout else None


LAYOUTS_AS_VIEWS = "nd: row-major none_box, dn: col-major none_box, nz: col-major with row-major boxes"
"""The tile layout each GM layout moves to and from."""


def check_tload(rules: TransferRules, operands: dict, attrs: object) -> None:
    view, dst = operands["src"], operands["dst"]
    if rules.vec_load_same_layout and dst.loc == "vec" and view.layout is not None:
        require(
            _laid_out_as(view, dst) is not None,
            f"expects a Vec dst laid out as its {view.layout.value} src view ({LAYOUTS_AS_VIEWS}), got {dst.layout_text()}",
        )
    _check("tload", rules.tload, operands["src"], operands["dst"])
    _check_contiguous(rules, "tload", operands["src"])


def check_tstore(rules: TransferRules, operands: dict, attrs: object) -> None:
    src, view = operands["src"], operands["dst"]
    require(
        src.loc in rules.store_locs,
        f"expects src's loc to be {' or '.join(sorted(rules.store_locs))}, got loc={src.loc}",
    )
    if src.loc == "acc" and rules.acc_store_layouts is not None and view.layout is not None:
        require(
            view.layout in rules.acc_store_layouts,
            f"expects an Acc src's dst view to be {' or '.join(sorted(layout.value for layout in rules.acc_store_layouts))}, "
            f"got {view.layout.value}",
        )
    if src.loc in rules.store_same_layout and view.layout is not None:
        moved_as = _laid_out_as(view, src)
        require(
            moved_as is not None or src.rows == 1 or src.cols == 1,
            f"expects a {src.loc.capitalize()} src laid out as its {view.layout.value} dst view ({LAYOUTS_AS_VIEWS}) "
            f"or of one row or one column, got {src.layout_text()} ({src.rows}x{src.cols})",
        )
        if rules.store_b64_nd_dn and src.elem.bytes == 8:
            require(
                moved_as in (GmLayout.ND, GmLayout.DN),
                f"expects a {src.loc.capitalize()} src of 8-byte {src.elem.mlir} laid out as its {view.layout.value} dst "
                f"view, nd or dn (nd: row-major none_box, dn: col-major none_box), got {src.layout_text()} ({src.rows}x{src.cols})",
            )
    _check("tstore", rules.tstore, operands["dst"], operands["src"])
    _check_contiguous(rules, "tstore", operands["dst"])


def pad_choices(rules: TransferRules, op: PtoInstructionOp) -> dict[str, Choice]:
    """What a target's TLOAD does beyond the valid region, recorded on the lowered pto.tload."""
    tile = op.destinations[0].type
    assert isinstance(tile, TileTypeBase)
    return {
        "pad_fill": rules.pad_fill if tile.loc.data == "vec" else rules.pad_fill_mat,
        "pad_value": PadValue.ALWAYS_ZERO if tile.element.mlir in rules.zero_pad_types else PadValue.TILE_PAD,
    }


# ---------------------------------------------------------------------------
# The kernels


def pad_value(tile_type: TileTypeBase, value: PadValue) -> float | int:
    """The tile's pad value (pad: 0 null, 1 zero, 2 max, 3 min): +-inf for floats, the
    type's limits for integers; 0 for null/zero, and where the target pads this type with 0."""
    pad, element = tile_type.pad.data, tile_type.element
    if pad in (0, 1) or value == PadValue.ALWAYS_ZERO:
        return 0
    if element.mlir.startswith(("f", "bf")):
        return np.inf if pad == 2 else -np.inf
    info = np.iinfo(element.numpy)
    return int(info.max) if pad == 2 else int(info.min)


def _fill_padding(tile: Tile, fill: PadFill, value: PadValue) -> None:
    """What the target's TLOAD writes beyond the valid region (docs/tload-padding.md)."""
    match fill:
        case PadFill.WHOLE_TILE if tile.valid_shape != tuple(tile.type.shape):  # else the load covers it all
            tile.flat[...] = pad_value(tile.type, value)
        case PadFill.BLOCK_TAIL if tile.type.pad.data != 0 and tile.type.inner_box is None:
            pad = pad_value(tile.type, value)
            block = 32 // tile.flat.itemsize  # elements per 32-byte block
            (rows, cols), (vr, vc) = tile.type.shape, tile.valid_shape
            # `...`: a batched loop's tile has a leading iteration axis
            if tile.type.is_row_major:
                tile.values[..., :vr, vc : min(cols, -(-vc // block) * block)] = pad
            else:
                tile.values[..., vr : min(rows, -(-vr // block) * block), :vc] = pad
        case PadFill.BLOCK_TAIL | PadFill.NOTHING:
            pass


def nz_offsets(view: GmView) -> np.ndarray:
    """Buffer offsets of an NZ view's elements as its logical S2*S3 x S0*S1*S4 matrix: logical
    (x, y) is (s2*S3 + s3, (s0*S1 + s1)*S4 + s4); batched: iterations x that."""
    shape, strides = view.shape5, view.strides5
    grids = np.meshgrid(*(np.arange(d) * t for d, t in zip(shape, strides)), indexing="ij", sparse=True)
    logical = np.asarray(sum(grids)).transpose(2, 3, 0, 1, 4).reshape(shape[2] * shape[3], -1)
    if isinstance(view.offset, np.ndarray):
        return view.offset[:, None, None] + logical
    return view.offset + logical


def tload(o: dict, *, pad_fill: PadFill, pad_value: PadValue, nz_view: bool) -> None:
    view, tile = o["src"], o["dst"]
    valid = tile.valid_view()
    starts = None if nz_view or valid is None else view.scattered_rows(valid)
    if starts is not None and valid is not None:  # rows at token ids, batched: straight into the tile
        _fill_padding(tile, pad_fill, pad_value)
        view.take_rows(starts, valid)
        return
    src = view.buffer[nz_offsets(view)] if nz_view else view.read2d()  # batched: iterations x rows x cols
    _fill_padding(tile, pad_fill, pad_value)
    tile.write_valid(src[..., : tile.valid_row, : tile.valid_col])


def tstore(o: dict, *, nz_view: bool) -> None:
    tile, view = o["src"], o["dst"]
    if nz_view:
        view.buffer[nz_offsets(view)[..., : tile.valid_row, : tile.valid_col]] = tile.read_valid()
        return
    view.write2d(slice(0, tile.valid_row), slice(0, tile.valid_col), tile.read_valid())


def gm_layout_params(op: TransferOp) -> dict[str, object]:
    """Whether the op's GM view is NZ (its tensor view's layout), for the kernel."""
    view = op.src if isinstance(op.src.type, ShapedViewBase) else op.dst
    return {"nz_view": inferred_layout(view) == GmLayout.NZ}


def tload_footprint(o: dict, **_: object) -> Footprint:
    return Footprint([(o["dst"], True, valid_rect(o["dst"]))], [(o["src"], False, False)])


def tstore_footprint(o: dict, **_: object) -> Footprint:
    return Footprint([(o["src"], False, valid_rect(o["src"]))], [(o["dst"], True, False)])


# ---------------------------------------------------------------------------
# The ops


class TransferOp(taking("src")):
    """A copy from `src` to `dst`."""

    @property
    def src(self) -> SSAValue:
        return self.ins[0]

    @property
    def dst(self) -> SSAValue:
        return self.destinations[0]


@irdl_op_definition
class TLoadOp(TransferOp):
    """
    Copy a GM window into a tile (its valid region).

        pto.tload ins(%pv : !pto.partition_tensor_view<8x32xf32>) outs(%t : !pto.tile_buf<vec, 8x32xf32>)
        %t = pto.tload %pv : !pto.partition_tensor_view<8x32xf32> -> !pto.tile<vec, 8x32xf32>
    """

    name = "pto.tload"
    BUILDER_NAMES: ClassVar[dict[str, str]] = {"src": "view", "dst": "tile"}

    KERNEL: ClassVar = staticmethod(tload)
    FOOTPRINT: ClassVar = staticmethod(tload_footprint)
    kernel_params = staticmethod(gm_layout_params)

    def verify_operands(self) -> None:
        src = self.expect_view("src", self.src)
        dst = self.expect_tile("dst", self.dst)
        same_element_type("src", src.element_type, "dst", dst.element_type)


@irdl_op_definition
class TStoreOp(TransferOp):
    """
    Copy a tile's valid region into a GM window. `ins` may be a tile buffer or a value tile.

        pto.tstore ins(%t : !pto.tile_buf<vec, 8x32xf32>) outs(%pv : !pto.partition_tensor_view<8x32xf32>)
    """

    name = "pto.tstore"
    BUILDER_NAMES: ClassVar[dict[str, str]] = {"src": "tile", "dst": "view"}

    KERNEL: ClassVar = staticmethod(tstore)
    FOOTPRINT: ClassVar = staticmethod(tstore_footprint)
    kernel_params = staticmethod(gm_layout_params)

    ACCEPTS_VALUE_TILES_IN_DPS: ClassVar[bool] = True
    SSA_RESULTS: ClassVar[bool] = False

    def verify_operands(self) -> None:
        src = self.expect_tile_in("src", self.src)
        dst = self.expect_view("dst", self.dst)
        same_element_type("src", src.element_type, "dst", dst.element_type)


# ---------------------------------------------------------------------------
# What they cost


def _storage(tile: TileFacts) -> str:
    """The tile's storage as pto-isa's transfer code tells them apart: nd, dn, nz or zn."""
    boxed = tile.slayout != "none_box"
    if tile.is_row_major:
        return "zn" if boxed else "nd"
    return "nz" if boxed else "dn"


def _cce_transfer(trace: CceTrace | CalibratedTrace, path: DmaPath, view: ViewFacts, tile: TileFacts, with_pad: bool) -> bool:
    """include/pto/common/arch/memory/tload_common.hpp, tstore_common.hpp: ND and DN one
    transfer call per (S0, S1, S2) of S3 (ND) or S4 (DN) bursts (on L1 whole 32-byte blocks),
    after one set_mov_pad_val when a UB tile has a pad value; NZ one call per S0 of S1 bursts
    of validRow 32-byte rows; an ND (DN) view into an L1 NZ (ZN) tile, or a one-row (one-col)
    L1 tile, one ND2NZ move (a burst per GM row (column)). A UB tile of one row or one column
    takes the path of its own layout whatever the view's (TStoreUb2gm / TLoadGm2ub dispatch on the
    tile; the static_assert admits any view for such a tile)."""
    s0, s1, s2, s3, s4 = view.shape5
    size = tile.elem.bytes
    layout = view.layout or GmLayout.ND
    on_l1 = tile.loc == "mat"
    if not on_l1 and 1 in (tile.rows, tile.cols) and _storage(tile) in ("nd", "dn"):
        layout = GmLayout.ND if _storage(tile) == "nd" else GmLayout.DN
    match _storage(tile), layout:
        case "nd", GmLayout.ND if on_l1 and tile.rows == 1:  # TLoadGm2L1VectorInND: one ND2NZ move
            trace.dma(path, s3 * s4 * size, bursts=s3)
        case "dn", GmLayout.DN if on_l1 and tile.cols == 1:  # TLoadGm2L1VectorInDn
            trace.dma(path, s3 * s4 * size, bursts=s4)
        case ("nd", GmLayout.ND) | ("dn", GmLayout.DN):  # one call per (S0, S1, S2), S3 (ND) / S4 (DN) bursts
            bursts, length = (s3, tile.valid_col) if layout == GmLayout.ND else (s4, tile.valid_row)
            if with_pad and not on_l1 and tile.pad != 0:
                trace.call()  # pto_set_tload_pad_val
            burst_bytes = length * size if not on_l1 else (length * size) >> 5 << 5
            trace.dma(path, bursts * burst_bytes, times=s0 * s1 * s2, bursts=bursts)
        case "nz", GmLayout.NZ:  # one call per S0: S1 bursts of validRow 32-byte rows
            trace.dma(path, s1 * tile.valid_row * 32, times=s0, bursts=s1)
        case "nz", GmLayout.ND if on_l1 and with_pad:  # TLoadGm2L1Nd2nz: a burst per GM row
            trace.dma(path, s3 * s4 * size, bursts=s3)
        case "zn", GmLayout.DN if on_l1 and with_pad:  # TLoadGm2L1Dn2zn: a burst per GM column
            trace.dma(path, s3 * s4 * size, bursts=s4)
        case _:
            return False  # no path in the code for this pairing
    return True


def _transfer_cost(
    role_view: str, role_tile: str, paths: dict[str, DmaPath], pipe: Pipe, loads: bool
) -> Callable[[PtoInstructionOp, dict, CceMachine, Work], OpCost]:
    def cost(op: PtoInstructionOp, o: dict, machine: CceMachine, work: Work) -> OpCost:
        tile, trace = o[role_tile], machine.trace()
        path = paths.get(tile.loc)
        if path is None or not _cce_transfer(trace, path, o[role_view], tile, with_pad=loads):
            raise NoCostModel(
                f"{op.name} between a {(o[role_view].layout or GmLayout.ND).value} view and a "
                f"{_storage(tile)} {tile.loc} tile"
            )
        return trace.cost(pipe, exact=True, idle=machine.idle_transfer, elements=tile.valid_row * tile.valid_col)

    cost.__doc__ = _cce_transfer.__doc__
    return cost


def _calibrated_transfer(
    role_view: str, role_tile: str, paths: dict[str, DmaPath], pipe: Pipe, loads: bool,
    instruction_cost: Callable[[], InstructionCost],
) -> Callable[[PtoInstructionOp, dict, CalibratedMachine, Work], OpCost]:
    """The same transfer calls (above) priced by the calibrated parameters: each call its
    path's latency, the contention of the other cores, and its 32-byte blocks at the rate
    for its burst length; a path no figure measures as the base machine prices it."""

    def cost(op: PtoInstructionOp, o: dict, machine: CalibratedMachine, work: Work) -> OpCost:
        tile, trace = o[role_tile], machine.trace()
        path = paths.get(tile.loc)
        if path is None or path not in machine.paths:
            return instruction_cost().of(machine.base)(op, o, machine.base, work)
        if not _cce_transfer(trace, path, o[role_view], tile, with_pad=loads):
            raise NoCostModel(
                f"{op.name} between a {(o[role_view].layout or GmLayout.ND).value} view and a "
                f"{_storage(tile)} {tile.loc} tile"
            )
        return trace.cost(pipe)

    cost.__doc__ = _calibrated_transfer.__doc__
    return cost


def _simulated_copy(role: str, pipe: Pipe) -> Callable[[PtoInstructionOp, dict, SimulatorMachine, Work], OpCost]:
    """The simulator's TLoad / TStore: a loop over the valid elements (pto-isa cpu/TLoad.hpp,
    TStore.hpp); a TLOAD that fills the whole tile first also visits every element."""

    def cost(op: PtoInstructionOp, o: dict, machine: SimulatorMachine, work: Work) -> OpCost:
        tile = o[role]
        valid = tile.valid_row * tile.valid_col
        fill_choice = op.attributes.get("pad_fill")
        fills_tile = isinstance(fill_choice, PadFill.Attr) and fill_choice.data == PadFill.WHOLE_TILE
        fill = tile.rows * tile.cols if fills_tile else 0
        return machine.cost(pipe, valid * tile.elem.bytes, valid + fill)

    cost.__doc__ = _simulated_copy.__doc__
    return cost


def _vf_transfer(role_view: str, role_tile: str, paths: dict[str, DmaPath], pipe: Pipe, loads: bool):  # noqa: ANN202
    """a5 (include/pto/common/arch/register/tload_common.hpp, npu/a5/TLoad.hpp, TStore.hpp):
    the DMA repeats S1 x S2 in hardware loops (set_loop*_outtoub, three configuration calls
    and one to reset) and is issued once per S0; each issue costs a call besides its bytes,
    a pad value one more."""

    def cost(op: PtoInstructionOp, o: dict, machine: VfMachine, work: Work) -> OpCost:
        view, tile = o[role_view], o[role_tile]
        path = paths.get(tile.loc)
        if path is None:
            raise NoCostModel(f"{op.name} of a {tile.loc} tile")
        s0, s1, s2, s3, s4 = view.shape5
        per_call = s1 * s2 * s3 * s4 * tile.elem.bytes
        if _storage(tile) == "nz":
            per_call = s1 * tile.valid_row * 32
        configs = (4 if s1 * s2 != 1 and _storage(tile) != "nz" else 0) + (loads and tile.pad != 0)
        call = int(machine.config_call.value)
        cycles = (machine.dma.cycles(path, per_call) + call) * s0 + call * configs
        return machine.cost(pipe, per_call * s0, cycles)

    cost.__doc__ = _vf_transfer.__doc__
    return cost


TLOAD_PATHS = {"vec": DmaPath.GM_TO_UB, "mat": DmaPath.GM_TO_L1}
TSTORE_PATHS = {"vec": DmaPath.UB_TO_GM, "mat": DmaPath.L1_TO_GM}

def _transfer_instruction_cost(loads: bool) -> InstructionCost:
    """TLOAD's cost (`loads`: GM view src into tile dst on MTE2) or TSTORE's (tile src into GM
    view dst on MTE3) on every machine."""
    view, tile, paths, pipe = ("src", "dst", TLOAD_PATHS, Pipe.MTE2) if loads else ("dst", "src", TSTORE_PATHS, Pipe.MTE3)
    cost = InstructionCost(
        on={
            CceMachine: _transfer_cost(view, tile, paths, pipe, loads=loads),
            CalibratedMachine: _calibrated_transfer(view, tile, paths, pipe, loads, lambda: cost),
            VfMachine: _vf_transfer(view, tile, paths, pipe, loads=loads),
            SimulatorMachine: _simulated_copy(tile, pipe),
        },
    )
    return cost


TLOAD_COST = _transfer_instruction_cost(loads=True)
TSTORE_COST = _transfer_instruction_cost(loads=False)


# ---------------------------------------------------------------------------
# C++ and the registry entries


def emit_tload(e: Emission, op: TLoadOp) -> None:
    e.issue(op, e.call("TLOAD", [op.dst, op.src]))


def emit_tstore(e: Emission, op: TStoreOp) -> None:
    e.issue(op, e.call("TSTORE", [op.dst, op.src]))


def _transfer(
    op: type[TransferOp], check: CheckRule, emit: Callable[[Emission, Any], None], pipe: Pipe,
    cost: InstructionCost,
) -> Instruction:
    """TLOAD and TSTORE share their rules, stay pto ops when lowered and have no assembly form."""
    return Instruction(rules=TransferRules, stays=op, check_rule=check, emit=emit, pipe=pipe, asm=None, cost=cost)


TLOAD = _transfer(TLoadOp, check_tload, emit_tload, Pipe.MTE2, TLOAD_COST)
TSTORE = _transfer(TStoreOp, check_tstore, emit_tstore, Pipe.MTE3, TSTORE_COST)


def transfer_lowering(rules: TransferRules) -> dict[Instruction, Callable[[Any], tuple[None, dict[str, Choice]]]]:
    """A target's lowering-table entries of TLOAD and TSTORE: both stay pto ops, a TLOAD
    recording what the target does beyond the valid region."""
    return {TLOAD: lambda op: (None, pad_choices(rules, op)), TSTORE: lambda op: (None, {})}

