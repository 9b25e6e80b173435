"""The rows of the rule tables (targets/rules/) for this target."""

from __future__ import annotations

from pto_dialect.attributes import GmLayout
from targets.rules.common import (
    FP8,
    HIF8,
    INT8,
    INT16,
    INT32,
    INT64,
    STANDARD,
    UNSIGNED16,
    UNSIGNED32,
    types_named,
)
from targets.rules.mgather import MGatherRules
from targets.rules.tcolargmin import TColArgMinRules
from targets.rules.aliasing import InPlaceRules
from lowering.ops import PadFill
from targets.rules.transfer import ShapeMatch, TransferRules
from targets.rules.tgather import F16_F32, NO_TYPES, TGatherRules

MGATHER = MGatherRules(
    data_types=STANDARD | FP8 | HIF8,
    index_types=INT32,
    table_layouts=(GmLayout.ND,),
    dst_blayouts=("row_major", "col_major"),
    index_blayouts=("row_major", "col_major"),
    row_index_shapes=("1xR", "Rx1"),
    alignment_dim="major",
    packed_table_rows=True,
    nonempty_dst=True,
    gather_exec=True,
    note="The SIMT kernel addresses UB tiles through tile_offset_2d, so a col-major dst "
    "is accepted (PTOAS rejects it); the GM table must be packed ND. A row-mode [R, 1] "
    "index must be col-major (as PTOAS and the spec pair them; the a5 code checks the "
    "shape only): in a row-major tile its storage element r is not row r.",
)

TGATHER = TGatherRules(
    index_data_types=STANDARD | FP8 | HIF8 | INT64,
    index_types_by_data_bytes={1: INT16, 2: INT16 | INT32, 4: INT32, 8: INT32},
    index_needs_tmp=False,
    implicit_index_tmp=True,
    mask_types=STANDARD | FP8 | HIF8 | INT64,
    mask_col_axis_types=STANDARD | FP8 | HIF8,
    mask_col_axis_dst_full=False,
    compare=True,
    compare_src_types=INT8 | INT16 | INT32 | F16_F32,
    compare_src_types_eq_only=NO_TYPES,
    threshold_tile_types=UNSIGNED16 | UNSIGNED32,
    compare_tmp_layout=False,
    note="Index widths follow the register gather (reg-gather.md): b8 data takes 16-bit "
    "indices, b16 16- or 32-bit, b32/b64 32-bit. tmp is accepted but unused.",
)

TCOLARGMIN = TColArgMinRules(
    src_types=INT8 | INT16 | INT32 | types_named("f16", "bf16", "f32") | FP8,
    index_types=INT32,
    value_index_types_by_src_bytes={2: INT16, 4: INT32},
    value_form_src_blayouts=("row_major", "col_major"),
    tmp_same_type=False,
    implicit_tmp="smallest",
    note="Any 1/2/4-byte type the interpreter can compare (hif8 has no numeric model here "
    "and is rejected); tmp is accepted but unused.",
)

TRANSFER = TransferRules(
    tload=ShapeMatch.EQUAL,
    tstore=ShapeMatch.EQUAL,
    pad_fill=PadFill.BLOCK_TAIL,
    pad_fill_mat=PadFill.BLOCK_TAIL,
    zero_pad_types=INT64 | FP8 | HIF8,
    contiguous_rows=True,
    note="TLOAD: static_assert on static shapes; dynamic ones run the DMA with the view's row "
    "count and the tile's valid cols, so any mismatch is refused at run time. TSTORE: "
    "PTO_ASSERTs of the ND/DN/NZ stores. Padding: docs/tload-padding.md (L1: TLoadCubeND2ND's "
    "padCount with the data select bit always on; pad null/zero leave the pad register, 0).",
)

IN_PLACE = InPlaceRules(
    safe={"mgather elem": frozenset({"idx"}), "tgather index": frozenset({"indices"}), "tgather mask": frozenset({"src"})},
    note="elem MGATHER: one SIMT thread per element reads its index, then writes its element "
    "(1x1: one scalar step); index TGATHER loads each repeat of indices (vlds) before it "
    "stores that repeat (vsts); mask TGATHER (only P1111 has dst exactly over src) loads each "
    "repeat of src before storing it.",
)
