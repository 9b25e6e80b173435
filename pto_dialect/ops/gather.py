"""
Gather instructions: MGATHER (GM table -> tile) and TGATHER (tile -> tile).

Structure only: operand kinds, form selection, element-type identities that
hold on every target. What each target accepts lives in its rule tables (targets/).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import I32, IntegerAttr, StringAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, opt_prop_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from pto_dialect.attributes import (
    CmpModeAttr,
    CoalesceAttr,
    GatherExec,
    GatherExecAttr,
    GatherOob,
    GatherOobAttr,
    MaskPatternAttr,
)
from pto_dialect.dtypes import element_info
from pto_dialect.ops.common import PtoInstructionOp, parse_operand_group, same_element_type
from pto_dialect.types import PartitionTensorViewType, TileTypeBase


@irdl_op_definition
class MGatherOp(PtoInstructionOp):
    """
    Gather from a GM table into a tile through an index tile (spec/mgather.md).

      row:  dst[r, j] = table[idx[r], j]
      elem: dst[r, c] = table[idx[r, c]]

    A `loc=mat` destination selects the GM->L1 path: the index is then a GM view,
    and elem mode takes a GM `scratch` view.

        pto.mgather ins(%mem, %idx[, %scratch] : Tm, Ti[, Ts]) outs(%dst : Td) {coalesce = ...}
        %dst = pto.mgather %mem, %idx {coalesce = ...} : (Tm, Ti) -> Tt
    """

    name = "pto.mgather"

    coalesce = opt_prop_def(CoalesceAttr)
    gather_oob = opt_prop_def(GatherOobAttr, prop_name="gatherOob")
    gather_exec = opt_prop_def(GatherExecAttr, prop_name="gatherExec")

    PRINTED_DEFAULTS: ClassVar[dict[str, Attribute]] = {
        "gatherOob": GatherOobAttr(GatherOob.UNDEFINED),
        "gatherExec": GatherExecAttr(GatherExec.SCALAR),
    }

    @property
    def mem(self) -> SSAValue:
        return self.operand("mem")

    @property
    def idx(self) -> SSAValue:
        return self.operand("idx")

    @property
    def scratch(self) -> SSAValue | None:
        return self.role("scratch")

    @property
    def dst(self) -> SSAValue:
        return self.operand("dst")

    @property
    def oob(self) -> GatherOob:
        return self.gather_oob.data if self.gather_oob else GatherOob.UNDEFINED

    @property
    def is_gm_to_l1(self) -> bool:
        return isinstance(self.dst.type, TileTypeBase) and self.dst.type.loc.data == "mat"

    def verify_(self) -> None:
        self.verify_dps_or_ssa()
        if self.coalesce is None:
            raise VerifyException("requires attribute 'coalesce'")
        if len(self.ins) not in (2, 3):
            raise VerifyException("expects mgather ins(mem, idx[, scratch])")
        if len(self.destinations) != 1:
            raise VerifyException(f"expects exactly one dst, got {len(self.destinations)}")
        mem = self.expect_view("mem", self.mem)
        dst = self.expect_tile("dst", self.dst)
        if self.is_gm_to_l1:
            if isinstance(self.idx.type, TileTypeBase):
                raise VerifyException(
                    "expects GM->L1 mgather idx to be a GM tensor partition_tensor_view, not a tile_buf"
                )
            if not isinstance(self.idx.type, PartitionTensorViewType):
                raise VerifyException(
                    f"expects GM->L1 mgather idx to be a partition_tensor_view, got {self.idx.type}"
                )
            if self.scratch is not None:
                scratch = self.scratch.type
                if not isinstance(scratch, PartitionTensorViewType):
                    raise VerifyException(
                        f"expects GM->L1 mgather scratch to be a partition_tensor_view, got {scratch}"
                    )
                if scratch.element_type != dst.element_type:
                    raise VerifyException(
                        "expects GM->L1 mgather scratch element type to match dst element type, "
                        f"got {scratch.element_type} and {dst.element_type}"
                    )
        else:
            if self.scratch is not None:
                raise VerifyException("expects scratch operand only on GM->L1 (loc=mat) mgather")
            self.expect_tile_in("idx", self.idx)
        if mem.element_type != dst.element_type:
            raise VerifyException(
                "expects mem element type to match dst element type, "
                f"got {mem.element_type} and {dst.element_type}"
            )


class TGatherForm:
    """The three TGATHER forms (syntax.md §5.2)."""

    INDEX = "index"
    MASK = "mask"
    COMPARE = "compare"


@irdl_op_definition
class TGatherOp(PtoInstructionOp):
    """
    Gather inside a tile (spec/tgather.md), in one of three forms:

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

    @property
    def form(self) -> str:
        if self.mask_pattern is not None:
            return TGatherForm.MASK
        if len(self.destinations) == 2:
            return TGatherForm.COMPARE
        return TGatherForm.INDEX

    @property
    def src(self) -> SSAValue:
        return self.operand("src")

    @property
    def dst(self) -> SSAValue:
        return self.operand("dst")

    @property
    def mask_axis(self) -> str:
        """Mask-form axis; absent means row, as in pto-isa."""
        return self.axis.data if self.axis is not None else "row"

    # DPS mask form carries its pattern and axis inside ins(...)
    @classmethod
    def parse_dps_ins(cls, parser: Parser) -> tuple[list[SSAValue], dict[str, Attribute]]:
        start = parser.pos
        parser.parse_punctuation("(")
        src = parser.parse_unresolved_operand()
        if parser.parse_optional_punctuation(",") is None:
            parser._resume_from(start)  # pyright: ignore[reportPrivateUsage]
            names, types, pos = parse_operand_group(parser, "ins")
            return list(parser.resolve_operands(names, types, pos)), {}
        if parser._current_token.text != "{":  # pyright: ignore[reportPrivateUsage]
            parser._resume_from(start)  # pyright: ignore[reportPrivateUsage]
            names, types, pos = parse_operand_group(parser, "ins")
            if len(names) > 4:
                parser.raise_error("expected at most 3 extra operands in tgather ins(...)", pos)
            return list(parser.resolve_operands(names, types, pos)), {}
        inline = parser.parse_optional_attr_dict()
        if set(inline) != {"maskPattern"}:
            parser.raise_error("expected #pto.mask_pattern<Pxxxx> for maskPattern", start)
        if not isinstance(inline["maskPattern"], MaskPatternAttr):
            parser.raise_error("expected #pto.mask_pattern<Pxxxx> for maskPattern", start)
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        if parser.parse_optional_punctuation(",") is not None:
            axis_pos = parser.pos
            axis = parser.parse_optional_str_literal()
            if axis not in ("row", "col"):
                parser.raise_error('axis must be "row" or "col"', axis_pos)
            inline["axis"] = StringAttr(axis)
        parser.parse_punctuation(")")
        return [parser.resolve_operand(src, src_type)], inline

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
        """PTOAS's parse-time checks of a DPS tgather's operand list (syntax.md §5.2)."""
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

    def print_dps_ins(self, printer: Printer) -> None:
        if self.mask_pattern is None:
            return super().print_dps_ins(printer)
        printer.print_string(" ins(")
        printer.print_ssa_value(self.src)
        printer.print_string(", ")
        printer.print_attr_dict({"maskPattern": self.mask_pattern})
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        if self.axis is not None:
            printer.print_string(", ")
            printer.print_attribute(self.axis)
        printer.print_string(")")

    def verify_(self) -> None:
        self.verify_dps_or_ssa()
        if self.axis is not None and self.axis.data not in ("row", "col"):
            raise VerifyException('axis must be "row" or "col"')
        form = self.form
        if form != TGatherForm.MASK and self.axis is not None:
            raise VerifyException("axis attribute must not be provided without maskPattern")
        if form != TGatherForm.COMPARE and (self.cmp_mode is not None or self.offset is not None):
            raise VerifyException("cmpMode and offset are only allowed on compare-form tgather")
        if not self.ins or not self.destinations:
            raise VerifyException("expects a src operand and at least one dst")
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
        if len(self.ins) not in (2, 3):
            raise VerifyException("index-form tgather expects at most src, indices, tmp in ins(...)")
        if len(self.destinations) != 1:
            raise VerifyException(f"index-form tgather expects a single dst, got {len(self.destinations)}")
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
        if len(self.ins) != 3:
            raise VerifyException("compare-form tgather expects dst, cdst, kValue, and tmp")
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

