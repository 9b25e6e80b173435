"""
TROWARGMIN: the column index of each row's minimum, optionally with the minimum (pto-isa's
TROWARGMIN.md). TROWARGMAX (trowargmax.py) is the same instruction with the comparison
reversed: this module holds what they share. Their operands are the column
arg-reductions' (tcolargmin.py), the result being a column instead of a row.

      dstIdx[i, 0] = argmin_{j < vc} src[i, j]        i < vr
      dstVal[i, 0] = min_{j < vc} src[i, j]           (value+index form)

        pto.trowargmin ins(%src[, %tmp] : Ts[, Tt]) outs(%dst : Ti)
        pto.trowargmin ins(%src[, %tmp] : Ts[, Tt]) outs(%dstVal, %dstIdx : Tv, Ti)
        %i = pto.trowargmin %src[, %tmp] : (Ts[, Tt]) -> Ti
        %v, %i = pto.trowargmin %src[, %tmp] : (Ts[, Tt]) -> (Tv, Ti)

Per target (pto-isa's code): the simulator scans each row with a typed strict comparison
(cpu/TReduceIdx.hpp); a2a3 reduces each row with `vcmax`/`vcmin` in up to three stages
through tmp (a2a3/TRowReduceIdxOps.hpp); a5 reduces each 256-byte chunk with `vcmax`/`vcmin`
and keeps a chunk's result only where it is strictly better than the best so far, starting
from -inf/+inf or the integer limit (a5/TRowReduceIdx.hpp).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from xdsl.irdl import prop_def

from pto_dialect.choices import ArgCompare, NanPolicy
from pto_dialect.cost import CceMachine, CceTrace, InstructionCost, OpCost, SimulatorMachine, VfMachine, Work, simulator_loop
from pto_dialect.dtypes import FLOAT_DTYPE_NAMES
from pto_dialect.facts import TileFacts, known, require, require_type
from pto_dialect.instruction import DocsCells, InPlace, Instruction, Pipe, RuleRow, tmp_untouched_unless
from pto_dialect.arg_reduce import outputs_footprint, TMP_ADDED, ArgReduceTypes, Extreme, SearchesExtreme, check_output_shape, check_value_index_types, extreme_keys, first_minimum, require_tmp_width, type_cells
from pto_dialect.instructions.tcolargmin import ColArgReduceOp, col_arg_reduce
from pto_dialect.lowered import LoweredOp
from pto_dialect.machine import Footprint, np, valid_rect
from pto_dialect.vector import REPEAT_BYTES, REPEAT_MAX, vector_repeats

# ---------------------------------------------------------------------------
# The op: the column arg-reductions' operands and structural checks


# ---------------------------------------------------------------------------
# What each target accepts


@dataclass(frozen=True)
class RowArgReduceRules(ArgReduceTypes, RuleRow):
    """One target's TROWARGMIN / TROWARGMAX rules."""

    column_dst: bool
    """Each output is row-major, or col-major with one column (TRowReduceCheck); else any
    non-boxed layout (the simulator writes element (i, 0) through the layout)."""
    tmp_workspace: bool
    """tmp holds src-typed partial results (a2a3): same type, large enough; else unused."""

    def check(self, operands: dict, attrs: object) -> None:
        src, tmp, dst_val = operands["src"], operands.get("tmp"), operands.get("dstVal")
        dst_idx = operands.get("dstIdx") or operands["dst"]
        require(src.loc == "vec", f"expects src to be a Vec tile (loc=vec), got loc={src.loc}")
        require(src.is_nd, f"expects src to use the row-major ND layout, got {src.layout_text()}")
        require_type("src", src.elem, self.src_types)
        if known(src.valid_row):
            require(src.valid_row != 0, "expects src valid_shape[0] to be non-zero")
        if known(src.valid_col):
            require(src.valid_col != 0, "expects src valid_shape[1] to be non-zero")
        for t in [dst_idx] if dst_val is None else [dst_val, dst_idx]:
            require(t.loc == "vec", f"expects {t.role} to be a Vec tile (loc=vec), got loc={t.loc}")
            require(t.slayout == "none_box", f"expects {t.role} to use the none_box slayout, got {t.slayout}")
            if self.column_dst and t.blayout == "col_major":
                require(t.cols == 1, f"expects a col-major (DN) {t.role} to have shape[1] == 1, got {t.cols}")
            check_output_shape(t, src, kept=0)
        if dst_val is None:
            require_type(dst_idx.role, dst_idx.elem, self.index_types)
        else:
            check_value_index_types(self.value_index_types_by_src_bytes, src, dst_idx)
        if tmp is not None:
            require(tmp.loc == "vec", f"expects tmp to be a Vec tile (loc=vec), got loc={tmp.loc}")
            if self.tmp_workspace:
                _check_tmp(src, tmp, value_form=dst_val is not None)

    DOCS: ClassVar[DocsCells] = (
        *type_cells("vec, row-major ND"),
        ("outputs: vec, none_box, valid [src valid rows, 1]; src valid dims non-zero", lambda r: "yes"),
        ("outputs: row-major, or col-major with one column", lambda r: "yes" if r.column_dst else "no (any)"),
        ("tmp", lambda r: "vec, src's type; one repeat: a (value, index) pair per row (value form); more: "
         "valid rows >= src's, valid cols >= PTOAS's stride, unless same valid shape as src"
         if r.tmp_workspace else "vec; unused"),
        ("tmp added when omitted (pto-materialize-implicit-tmp)", lambda r: TMP_ADDED[r.implicit_tmp]),
        ("why", lambda r: r.note),
    )


def _check_tmp(src: TileFacts, tmp: TileFacts, value_form: bool) -> None:
    """What a2a3's code writes into tmp: nothing for an index-only row of at most one repeat;
    for one repeat with a value, (value, index) pairs packed from tmp's start; beyond one repeat,
    per row i from tmp row i: the partial (value, index) pairs of each repeat and their indices
    (PTOAS's stride formula covers both stages)."""
    require(
        tmp.elem.mlir == src.elem.mlir,
        f"expects src and tmp to have the same element type, got {src.elem.mlir} and {tmp.elem.mlir}",
    )
    if (tmp.valid_row, tmp.valid_col) == (src.valid_row, src.valid_col) or not known(src.valid_col, src.valid_row):
        return
    if src.valid_col <= REPEAT_BYTES // src.elem.bytes:
        if value_form:
            need = 2 * src.valid_row
            require(
                tmp.rows * tmp.cols >= need,
                f"expects tmp to hold a (value, index) pair per src row, {need} elements, got {tmp.rows * tmp.cols}",
            )
        return
    if known(tmp.valid_row):
        require(
            tmp.valid_row >= src.valid_row,
            f"expects tmp valid_shape[0] to cover the src valid rows, got {tmp.valid_row} for {src.valid_row}",
        )
    require_tmp_width(src, tmp)


# ---------------------------------------------------------------------------
# The kernel


def row_arg_reduce_kernel(o: dict, *, extreme: Extreme, compare: ArgCompare, nan: NanPolicy) -> None:
    """Per row: the column of the minimum (maximum); where the search keeps its start (a5,
    every chunk NaN), index 0 and the start value (-inf / +inf for a maximum / minimum)."""
    src, dst_val = o["src"], o.get("dstVal")
    dst_idx = o.get("dstIdx") or o["dst"]
    x = src.read_valid()
    vr = x.shape[-2]
    idx, found = first_minimum(extreme_keys(x, extreme, compare), nan)
    dst_idx.write(vr, 1, idx.astype(dst_idx.flat.dtype)[..., None])
    if dst_val is not None:
        values = np.take_along_axis(x, idx[..., None], axis=-1)
        if not found.all() and x.dtype.name in FLOAT_DTYPE_NAMES:
            start = x.dtype.type(-np.inf if extreme == Extreme.MAX else np.inf)
            values = np.where(found[..., None], values, start)
        dst_val.write(vr, 1, values)


def footprint(o: dict, **_: object) -> Footprint:
    return outputs_footprint(o, valid_rect(o["src"]), kept=0)


class RowArgReduceBase(LoweredOp, SearchesExtreme):
    """idx[i, 0] = the column of row i's extreme, as the target searches; val[i, 0] = that value."""

    KERNEL = staticmethod(row_arg_reduce_kernel)
    FOOTPRINT = staticmethod(footprint)
    compare = prop_def(ArgCompare.Attr)
    nan = prop_def(NanPolicy.Attr)


# ---------------------------------------------------------------------------
# What it costs

def _reduction(op: RowArgReduceBase) -> str:
    match op.EXTREME:
        case Extreme.MIN:
            return "vcmin"
        case Extreme.MAX:
            return "vcmax"


def _cce(op: RowArgReduceBase, o: dict, machine: CceMachine, work: Work) -> OpCost:
    """npu/a2a3/TRowReduceIdxOps.hpp, by src valid cols: up to one repeat, one vcmax (vcmin)
    of every row (counter mode at exactly one repeat, else up to 255 rows a call, a barrier
    after each), then (value form) the (value, index) pairs split by vreducev2 (a one-column
    DN output; a 2-byte src with 32-bit indices converts them by two vconv) or a scalar loop;
    up to as many repeats as a repeat holds elements (two stages) or more (three), per row
    that many rounds of vcmax, two vreducev2 through tmp and their barriers, a final vcmax,
    then a scalar loop writing the results. A scalar loop costs one scalar cycle per element
    it writes (the cost model charges it nothing)."""
    src, dst_val, t = o["src"], o.get("dstVal"), machine.trace()
    dst_idx = o.get("dstIdx") or o["dst"]
    vr, vc = src.valid_shape
    per_repeat = REPEAT_BYTES // src.elem.bytes
    reduce = _reduction(op)
    if vc > per_repeat:
        stages = 1 if vc <= per_repeat * per_repeat else 2

        def row() -> None:
            for _ in range(stages):  # ReduceThenGroupValIdx
                t.call()  # set_vector_mask
                t.vector(reduce, repeat=0)  # counter mode
                t.barrier()
                t.call()  # set_vector_mask
                t.vector("vreducev2", repeat=1)
                t.barrier()
                t.vector("vreducev2", repeat=1)
                t.barrier()
            t.call()  # set_vector_mask
            t.vector(reduce, repeat=1)
            t.barrier()

        t.call()  # set_mask_count
        t.loop(vr, row)
        t.call(2)  # set_mask_norm, set_vector_mask
        t.call(vr * (1 if dst_val is None else 2))  # the scalar loop
        return t.cost(Pipe.VECTOR, exact=False)
    if vc == per_repeat:
        t.call(2)  # set_mask_count, set_vector_mask
        t.vector(reduce, repeat=0)
        t.barrier()
    else:
        t.call(1 if dst_val is not None else 2)  # (index form: set_mask_norm,) SetContinuousMask
        _row_blocks(t, vr, reduce)
    if dst_val is None:
        t.call(2)  # set_mask_norm, set_vector_mask
        return t.cost(Pipe.VECTOR, exact=True)
    scalar_outputs = [tile for tile in (dst_val, dst_idx) if tile.cols != 1]
    if len(scalar_outputs) < 2:  # ExtractValIdxFromTmpColMajor
        t.call(2)  # set_mask_count, set_vector_mask
        if dst_val.cols == 1:
            t.vector("vreducev2", repeat=1)
            t.barrier()
        if dst_idx.cols == 1:
            t.vector("vreducev2", repeat=1)
            t.barrier()
            if dst_idx.elem.bytes != src.elem.bytes:
                t.call()  # set_vector_mask
                t.vector("vconv_s162f32", repeat=0)
                t.barrier()
                t.vector("vconv_f322s32z", repeat=0)
                t.barrier()
    t.call(2)  # set_mask_norm, set_vector_mask
    t.call(vr * len(scalar_outputs))  # the scalar loops
    return t.cost(Pipe.VECTOR, exact=False)


def _row_blocks(t: CceTrace, rows: int, reduce: str) -> None:
    """OneRepeatProc*'s do-while: a reduction of up to 255 rows and a barrier per call."""

    def block(repeat: int) -> None:
        t.vector(reduce, repeat=repeat)
        t.barrier()

    t.loop(rows // REPEAT_MAX, lambda: block(REPEAT_MAX))
    block(rows % REPEAT_MAX)


def _vf(op: RowArgReduceBase, o: dict, machine: VfMachine, work: Work) -> OpCost:
    """npu/a5/TRowReduceIdx.hpp, one vector function: a zero register and a one-lane
    predicate; per row the start value (vdup) and two vbr, per 256-byte chunk a predicate,
    vlds, vcmax (vcmin), vdintlv of the (value, index) pair, vadd of the chunk's offset, a
    compare, two vsel and vadds; per row the index store (and the value's)."""
    src = o["src"]
    vr, vc = src.valid_shape
    n = vr * vector_repeats(vc, src.elem.bytes)
    stores = vr * (1 if o.get("dstVal") is None else 2)
    body = {"vbr": 1 + 2 * vr, "plt": 1 + n, "vdup": vr, "vlds": n, _reduction(op): n, "vdintlv": n, "vadd": n,
            "vcmp": n, "vsel": 2 * n, "vadds": n, "vsts": stores}
    return machine.cost(Pipe.VECTOR, 0, machine.vector_function(body))


COST = InstructionCost(on={CceMachine: _cce, VfMachine: _vf, SimulatorMachine: simulator_loop("src", "pto-isa cpu/TReduceIdx.hpp: a loop over every src valid element.")})


# ---------------------------------------------------------------------------
# The registry entry (C++, like TCOLARGMIN's: `TROWARGMIN(dst, src, tmp)`, `TROWARGMIN(dstVal, dstIdx, src, tmp)`)


NO_EXACT_ALIAS = "an output holds one column per src row, so it never has src's shape: no exact alias."
IN_PLACE = {"": InPlace(frozenset(), how="", refused=NO_EXACT_ALIAS)}


def row_arg_reduce(module: str, stem: str, summary: str, extreme: Extreme) -> Instruction:
    """TCOLARGMIN's declaration (operands, C++ call, tmp, assembly form) with the row rules and
    lowered-op base, for the row arg-reduction `stem` (`TRowArgMax`) of `module`."""
    return replace(
        col_arg_reduce(module, stem, summary, extreme, RowArgReduceBase),
        rules=RowArgReduceRules, in_place=IN_PLACE, cost=COST,
        untouched=_untouched,
    )


def _untouched(op: ColArgReduceOp, rules: RowArgReduceRules) -> frozenset[str]:
    """A tmp a target's code does not use (cpu, a5: PTOAS issue 558) takes no UB at the op."""
    return tmp_untouched_unless(rules.tmp_workspace)


TROWARGMIN = row_arg_reduce(
    __name__, "TRowArgMin", "Column index of each row's minimum (first minimum wins), optionally with the value.", Extreme.MIN,
)
