"""
TCOLARGMIN: the row index of each column's minimum, optionally with the minimum
(docs/isa: pto-isa's TCOLARGMIN.md). TCOLARGMAX (tcolargmax.py) is the same
instruction with the comparison reversed: this module holds what they share (what the row
arg-reductions share with them too: arg_reduce.py).

      dstIdx[0, j] = argmin_{i < vr} src[i, j]        j < vc
      dstVal[0, j] = min_{i < vr} src[i, j]           (value+index form)

        pto.tcolargmin ins(%src[, %tmp] : Ts[, Tt]) outs(%dst : Ti)
        pto.tcolargmin ins(%src[, %tmp] : Ts[, Tt]) outs(%dstVal, %dstIdx : Tv, Ti)
        %i = pto.tcolargmin %src[, %tmp] : (Ts[, Tt]) -> Ti
        %v, %i = pto.tcolargmin %src[, %tmp] : (Ts[, Tt]) -> (Tv, Ti)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.ir import SSAValue
from xdsl.irdl import irdl_op_definition, prop_def

from pto_dialect.arg_reduce import added_tmp, outputs_footprint, TMP_ADDED, ArgReduceTypes, Extreme, SearchesExtreme, check_output_shape, check_value_index_types, extreme_keys, first_minimum, require_tmp_width, type_cells
from pto_dialect.cost import CceMachine, DmaPath, InstructionCost, OpCost, SimulatorMachine, VfMachine, Work, simulator_loop
from pto_dialect.choices import Choice, ArgCompare, NanPolicy, RowCounter, SrcRead
from pto_dialect.facts import TileFacts, known, require, require_type
from pto_dialect.instruction import DocsCells, Emission, InPlace, Instruction, Pipe, RuleRow, tmp_untouched_unless
from pto_dialect.lowered import LoweredOp
from pto_dialect.machine import Footprint, np
from pto_dialect.ops.common import PtoInstructionOp, operand_of_role, Roles, same_element_type
from pto_dialect.ops.memory import AllocTileOp
from pto_dialect.src_read import valid_reads, valid_values
from pto_dialect.vector import REPEAT_BYTES, vector_repeats

# ---------------------------------------------------------------------------
# The op


class ColArgReduceOp(PtoInstructionOp):
    """A column arg-reduction: TCOLARGMIN or TCOLARGMAX (their operands and checks)."""

    WORKSPACE: ClassVar[frozenset[str]] = frozenset({"tmp"})

    FORMS: ClassVar[tuple[tuple[int, int], ...]] = ((1, 1), (2, 1), (1, 2), (2, 2))
    BUILDER_NAMES: ClassVar[dict[str, str]] = {"dst": "dst_idx"}  # the index output, with or without dstVal

    @classmethod
    def operand_roles(cls, n_ins: int, n_outs: int) -> Roles:
        return ("src", "tmp")[:n_ins], ("dstVal", "dstIdx") if n_outs == 2 else ("dst",)

    src = operand_of_role("src")
    tmp = operand_of_role("tmp", optional=True)

    @property
    def dst_idx(self) -> SSAValue:
        return self.destinations[-1]  # "dst" or "dstIdx": always the last

    dst_val = operand_of_role("dstVal", optional=True)

    def verify_operands(self) -> None:
        src = self.expect_tile_in("src", self.src)
        if self.tmp is not None:
            self.expect_tile_in("tmp", self.tmp)
        self.expect_tile("dstIdx" if self.dst_val is not None else "dst", self.dst_idx)
        if self.dst_val is not None:
            val = self.expect_tile("dstVal", self.dst_val)
            same_element_type("dstVal", val.element_type, "src", src.element_type)


# ---------------------------------------------------------------------------
# What each target accepts


@dataclass(frozen=True)
class ColArgReduceRules(ArgReduceTypes, RuleRow):
    """One target's TCOLARGMIN / TCOLARGMAX rules."""

    value_form_src_blayouts: tuple[str, ...]
    tmp_same_type: bool
    """tmp holds src-typed values and must be large enough (a2a3); else the target's code ignores
    it (cpu/TReduceIdx.hpp, a5/TColReduceIdx.hpp): it takes no UB at the op (`untouched`)."""

    def check(self, operands: dict, attrs: object) -> None:
        src, tmp, dst_val = operands["src"], operands.get("tmp"), operands.get("dstVal")
        dst_idx = operands.get("dstIdx") or operands["dst"]
        require(src.loc == "vec", f"expects src to be a Vec tile (loc=vec), got loc={src.loc}")
        require(src.slayout == "none_box", f"expects src to use the none_box slayout, got {src.slayout}")
        require_type("src", src.elem, self.src_types)
        outs = [dst_idx] if dst_val is None else [dst_val, dst_idx]
        for t in outs:
            require(t.loc == "vec", f"expects {t.role} to be a Vec tile (loc=vec), got loc={t.loc}")
            require(t.is_nd, f"expects {t.role} to use the row-major ND layout, got {t.layout_text()}")
            check_output_shape(t, src, kept=1)
        if known(src.valid_row):
            require(src.valid_row != 0, "expects src valid_shape[0] to be non-zero")
        if known(src.valid_col):
            require(src.valid_col != 0, "expects src valid_shape[1] to be non-zero")
        if dst_val is None:
            require_type(dst_idx.role, dst_idx.elem, self.index_types)
        else:
            check_value_index_types(self.value_index_types_by_src_bytes, src, dst_idx)
            require(
                src.blayout in self.value_form_src_blayouts,
                f"expects src to use blayout {' or '.join(self.value_form_src_blayouts)} in value+index mode, got {src.blayout}",
            )
        if tmp is not None:
            _check_tmp(self, src, tmp)

    DOCS: ClassVar[DocsCells] = (
        *type_cells("vec, none_box, row- or col-major"),
        ("value+index: src blayout", lambda r: ", ".join(r.value_form_src_blayouts)),
        ("outputs: vec ND, valid [1, src valid cols]; src valid dims non-zero", lambda r: "yes"),
        ("tmp", lambda r: "vec, row_major, src's type, >= 32 B, wide enough unless same valid shape as src"
         if r.tmp_same_type else "vec, row_major; unused"),
        ("tmp added when omitted (pto-materialize-implicit-tmp)", lambda r: TMP_ADDED[r.implicit_tmp]),
        ("why", lambda r: r.note),
    )


def _check_tmp(rules: ColArgReduceRules, src: TileFacts, tmp: TileFacts) -> None:
    require(tmp.loc == "vec", f"expects tmp to be a Vec tile (loc=vec), got loc={tmp.loc}")
    require(tmp.blayout == "row_major", f"expects tmp to use the row_major blayout, got {tmp.blayout}")
    if not rules.tmp_same_type:
        return
    require(
        tmp.elem.mlir == src.elem.mlir,
        f"expects src and tmp to have the same element type, got {src.elem.mlir} and {tmp.elem.mlir}",
    )
    require(
        tmp.size_bytes >= 32,
        f"expects tmp capacity to be at least 32 bytes, but got {tmp.size_bytes} bytes",
    )
    same_valid = (tmp.valid_row, tmp.valid_col) == (src.valid_row, src.valid_col)
    if same_valid or not known(src.valid_col, tmp.valid_row, tmp.valid_col):
        return
    require(tmp.valid_row >= 1, f"expects tmp valid_shape[0] to be at least 1, got {tmp.valid_row}")
    require_tmp_width(src, tmp)


def implicit_tmp(op: ColArgReduceOp, rules: ColArgReduceRules) -> AllocTileOp | None:
    return added_tmp(op, op.src, op.tmp, rules.implicit_tmp)


# ---------------------------------------------------------------------------
# The choices a target makes


TYPED_COMPARISON: dict[str, Choice] = {
    "compare": ArgCompare.NATIVE,
    "nan": NanPolicy.FIRST_STICKS,
    "row_counter": RowCounter.EXACT,
    "src_read": SrcRead.LAYOUT,
}
"""A typed comparison over the layout: the CPU simulator's and a5's choices."""


# ---------------------------------------------------------------------------
# The kernel


def col_arg_reduce_kernel(o: dict, *, extreme: Extreme, compare: ArgCompare, nan: NanPolicy, row_counter: RowCounter,
                   src_read: SrcRead) -> None:
    """Per column: the row of the minimum (maximum), rows being axis -2 (a leading iteration
    axis rides along)."""
    src, dst_val = o["src"], o.get("dstVal")
    dst_idx = o.get("dstIdx") or o["dst"]
    x = valid_values(src, src_read)
    vr, vc = x.shape[-2:]
    idx, _ = first_minimum(extreme_keys(x, extreme, compare).swapaxes(-1, -2), nan)
    match row_counter:
        case RowCounter.EXACT:
            pass
        case RowCounter.F16:
            idx = idx.astype(np.float16).astype(np.int64)
    dst_idx.write(1, vc, idx.astype(dst_idx.flat.dtype)[..., None, :])
    if dst_val is not None:
        dst_val.write(1, vc, np.take_along_axis(x, np.minimum(idx, vr - 1)[..., None, :], axis=-2))


def footprint(o: dict, *, src_read: SrcRead, **_: object) -> Footprint:
    return outputs_footprint(o, valid_reads(o["src"], src_read), kept=1)


class ColArgReduceBase(LoweredOp, SearchesExtreme):
    """idx[0, j] = first i < vr with src[i, j] extreme; val[0, j] = that value."""

    KERNEL = staticmethod(col_arg_reduce_kernel)
    FOOTPRINT = staticmethod(footprint)
    compare = prop_def(ArgCompare.Attr)
    nan = prop_def(NanPolicy.Attr)
    row_counter = prop_def(RowCounter.Attr)
    src_read = prop_def(SrcRead.Attr)


# ---------------------------------------------------------------------------
# What it costs


def _compare_and_keep(extreme: Extreme) -> tuple[str, str]:
    match extreme:
        case Extreme.MIN:
            return "vcmp_le", "vmin"
        case Extreme.MAX:
            return "vcmp_ge", "vmax"


def _cce(op: ColArgReduceBase, o: dict, machine: CceMachine, work: Work) -> OpCost:
    """npu/a2a3/TColReduceIdx.hpp ProcessSingleBlock, per repeat-wide block of columns (the
    last one partial, in counter mode): two vector_dup, the first row copied (UB->UB; vcopy
    for the partial block), then per further row vadds, a compare, a barrier, vsel, the
    running extreme and a barrier; a 2-byte index-only src converts the indices (two vconv),
    a value+index form copies the values out."""
    src, t = o["src"], machine.trace()
    per_repeat = REPEAT_BYTES // src.elem.bytes
    compare, keep = _compare_and_keep(op.EXTREME)
    with_values = o.get("dstVal") is not None

    def block(partial: bool) -> None:
        if partial:
            t.call(2)  # set_mask_count, set_vector_mask
        t.vector("vector_dup")
        t.vector("vector_dup")
        copy = (lambda: t.vector("vcopy")) if partial else (lambda: t.dma(DmaPath.UB_TO_UB, REPEAT_BYTES))
        copy()
        t.barrier()

        def row() -> None:
            t.vector("vadds")
            t.vector(compare)
            t.barrier()
            t.vector("vsel")
            t.vector(keep)
            t.barrier()

        t.loop(src.valid_row - 1, row)
        if src.elem.bytes == 2 and not with_values:
            t.vector("vconv_s162f16a")
            t.barrier()
            t.vector("vconv_f162s32a", repeat=2)
            t.barrier()
        if with_values:
            copy()
            t.barrier()
        if partial:
            t.call(2)  # set_mask_norm, set_vector_mask
            t.barrier()

    full, rest = divmod(src.valid_col, per_repeat)
    t.loop(full, lambda: block(partial=False))
    if rest:
        block(partial=True)
    return t.cost(Pipe.VECTOR, exact=False)


def _vf(op: ColArgReduceBase, o: dict, machine: VfMachine, work: Work) -> OpCost:
    """npu/a5/TColReduceIdx.hpp, one vector function: per register of columns a predicate,
    two vdup and the first row's vlds; per further row vadds, vlds, a compare and two vsel;
    then the index store (a 2-byte index-only src converts it in two parts; 1-byte data
    works on even and odd halves)."""
    src = o["src"]
    chunks = vector_repeats(src.valid_col, src.elem.bytes)
    rows = chunks * (src.valid_row - 1)
    with_values = o.get("dstVal") is not None
    if src.elem.bytes == 1:
        per_chunk = {"plt": 4, "vdup": 4, "vlds": 1, "vcvt": 6, "vintlv": 3, "vsts": 4}
        per_row = {"vadds": 2, "vlds": 1, "vcvt": 2, "vcmp": 2, "vsel": 4}
    else:
        per_chunk = {"plt": 1, "vdup": 2, "vlds": 1, "vsts": 1 + with_values}
        if src.elem.bytes == 2 and not with_values:
            per_chunk |= {"plt": 2, "vcvt": 2, "vintlv": 1, "vsts": 2}
        per_row = {"vadds": 1, "vlds": 1, "vcmp": 1, "vsel": 2}
    body = {"pset": 1}
    for counts, times in ((per_chunk, chunks), (per_row, rows)):
        for name, n in counts.items():
            body[name] = body.get(name, 0) + n * times
    return machine.cost(Pipe.VECTOR, 0, machine.vector_function(body))


COST = InstructionCost(on={CceMachine: _cce, VfMachine: _vf, SimulatorMachine: simulator_loop("src", "pto-isa cpu/TColArgMin.hpp: a loop over every src valid element.")})


# ---------------------------------------------------------------------------
# C++


def emit(e: Emission, op: ColArgReduceOp) -> None:
    """`TCOLARGMIN(dstIdx, src, tmp)` or `TCOLARGMIN(dstVal, dstIdx, src, tmp)`."""
    tmp = e.require(op, "tmp")
    name = op.name.removeprefix("pto.").upper()
    e.issue(op, e.call(name, [*op.outs, op.src, tmp]))


IN_PLACE = {
    "": InPlace(
        frozenset(),
        how="",
        refused="not shown safe by the code (running results are written while later src rows are read): rejected.",
    )
}


def arg_reduce_classes(
    module: str, stem: str, summary: str, extreme: Extreme, lowered_base: type[LoweredOp],
) -> tuple[type[ColArgReduceOp], type[LoweredOp]]:
    """The pto op `pto.<stem lower-cased>` of an arg-reduction declared in `module` (whose
    docstring docs/instructions.md shows): ColArgReduceOp's operands, documented by `summary`;
    and its lowered-op base, a `lowered_base` searching `extreme`."""
    op = irdl_op_definition(
        type(f"{stem}Op", (ColArgReduceOp,), {"name": f"pto.{stem.lower()}", "__doc__": summary, "__module__": module}),
    )
    lowered = type(
        f"{stem}Base",
        (lowered_base,),
        {"__doc__": summary, "__module__": module, "__annotations__": {"SOURCE": ClassVar, "EXTREME": ClassVar},
         "SOURCE": op, "EXTREME": extreme},
    )
    return op, lowered


def col_arg_reduce(
    module: str, stem: str, summary: str, extreme: Extreme, lowered_base: type[LoweredOp] = ColArgReduceBase,
) -> Instruction:
    """TCOLARGMIN's declaration for the arg-reduction `stem` (`TColArgMax`) of `module`, its
    lowered op a `lowered_base`."""
    op, lowered = arg_reduce_classes(module, stem, summary, extreme, lowered_base)
    return Instruction(
        rules=ColArgReduceRules,
        lowered=(lowered,),
        emit=emit,
        in_place=IN_PLACE,
        implicit_tmp=implicit_tmp,
        untouched=untouched,
        cost=COST,
    )


def untouched(op: ColArgReduceOp, rules: ColArgReduceRules) -> frozenset[str]:
    return tmp_untouched_unless(rules.tmp_same_type)


TCOLARGMIN = col_arg_reduce(
    __name__, "TColArgMin", "Row index of each column's minimum (first minimum wins), optionally with the value.", Extreme.MIN,
)
