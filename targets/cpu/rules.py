"""The rows of the rule tables (targets/rules/) for this target."""

from __future__ import annotations

from pto_dialect.attributes import GmLayout
from targets.rules.common import INT32, INT64, INTEGERS, STANDARD
from targets.rules.mgather import MGatherRules
from targets.rules.tcolargmin import TColArgMinRules
from targets.rules.aliasing import InPlaceRules
from lowering.ops import PadFill
from targets.rules.transfer import ShapeMatch, TransferRules
from targets.rules.tgather import NO_TYPES, TGatherRules

MGATHER = MGatherRules(
    data_types=STANDARD,
    index_types=INTEGERS,
    table_layouts=(GmLayout.ND,),
    dst_blayouts=("row_major",),
    index_blayouts=("row_major", "col_major"),
    row_index_shapes=("1xR", "Rx1"),
    alignment_dim="cols",
    packed_table_rows=False,
    nonempty_dst=False,
    gather_exec=False,
    note="CPU simulator: its code checks only an integral index type and equal element "
    "sizes; the spec's CPU-only rules (index shape, row-major index) are not enforced "
    "(semantics.md §5); fp8/hif8 exist only in AI Core builds. GM->L1 runs the UB "
    "algorithm and ignores scratch.",
)

TGATHER = TGatherRules(
    index_data_types=STANDARD | INT64,
    index_types_by_data_bytes={1: INT32, 2: INT32, 4: INT32, 8: INT32},
    index_needs_tmp=False,
    implicit_index_tmp=False,
    mask_types=STANDARD | INT64,
    mask_col_axis_types=STANDARD | INT64,
    mask_col_axis_dst_full=True,
    compare=False,
    compare_src_types=NO_TYPES,
    compare_src_types_eq_only=NO_TYPES,
    threshold_tile_types=NO_TYPES,
    compare_tmp_layout=False,
    note="CPU simulator: any data type of the common list or 64-bit (dst = src type, mask "
    "form any same-size pair), 4-byte indices whatever the data width; out-of-range "
    "indices read 0; mask form, col axis: it asserts dst valid rows == selected src rows == dst "
    "Rows. It has no compare form (it does not compile), so that form is rejected.",
)

TCOLARGMIN = TColArgMinRules(
    src_types=STANDARD | INT64,
    index_types=INT32,
    value_index_types_by_src_bytes={2: INT32, 4: INT32, 8: INT32},
    value_form_src_blayouts=("row_major",),
    tmp_same_type=False,
    implicit_tmp=None,
    note="CPU simulator: any integer (64-bit too), f16, bf16, f32. dstIdx is always "
    "i32/ui32, so a 2-byte value+index kernel cannot satisfy cpu and the NPUs at once.",
)

TRANSFER = TransferRules(
    tload=ShapeMatch.EQUAL,
    tstore=ShapeMatch.COVERS,
    pad_fill=PadFill.WHOLE_TILE,
    pad_fill_mat=PadFill.WHOLE_TILE,
    zero_pad_types=frozenset(),
    contiguous_rows=False,
    note="CPU simulator: TLOAD asserts the ND/DN/NZ shape equalities (CheckTileData); TSTORE "
    "only asserts that the view holds as many elements and writes the valid region at its "
    "top-left, which is kept as long as the view covers the valid shape.",
)

IN_PLACE = InPlaceRules(
    safe={"mgather elem": frozenset({"idx"}), "tgather index": frozenset({"indices"}), "tgather mask": frozenset({"src"})},
    note="one loop per element: each index (mask form: each src element) is read before its "
    "output element is written.",
)
