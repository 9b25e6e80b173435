"""
The DMA engine's configuration and its register-configured copies (PTOAS docs/isa-legacy/02-dma-copy.md,
VPTOOps.td):

    pto.set_loop_size_outtoub %loop1_count, %loop2_count : i64, i64     GM -> UB hardware loops
    pto.set_loop1_stride_outtoub %src_stride, %dst_stride : i64, i64     (bytes per loop1 iteration)
    pto.set_loop2_stride_outtoub %src_stride, %dst_stride : i64, i64
    ... _ubtoout                                                          the same for UB -> GM
    pto.copy_gm_to_ubuf %gm, %ub, %sid, %n_burst, %len_burst, %left, %right, %data_select, %l2, %src_stride, %dst_stride
    pto.copy_ubuf_to_gm %ub, %gm, %sid, %n_burst, %len_burst, %reserved, %dst_stride, %src_stride
    pto.mte_ub_ub %src, %dst, %len_burst nburst(%n_burst, %src_gap, %dst_gap)  (units of 32 bytes)
    pto.set_atomic_add / pto.set_atomic_s32 / pto.set_atomic_none ...   how UB -> GM stores combine with GM

A copy runs loop2 { loop1 { n_burst rows } } with the strides its direction's registers hold.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, ClassVar

from xdsl.dialects.builtin import I64, IntegerType
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, traits_def
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect

from pto_dialect.types import PtrType
from pto_dialect.vpto.common import NO_RESULTS_FORMAT, UB, CopyOpBase, RegisterOp, UbToGmCopyOp, require_space, row_op

if TYPE_CHECKING:
    import numpy as np

LOOP_REGISTERS = ("loop_size", "loop1_stride", "loop2_stride")
DIRECTIONS = ("outtoub", "ubtoout")
"""`outtoub`: GM -> UB (MTE2); `ubtoout`: UB -> GM (MTE3)."""


class LoopConfigOpBase(RegisterOp):
    """Set one of a direction's DMA loop registers: (loop1 count, loop2 count) or (src, dst) byte strides."""

    REGISTER: ClassVar[str] = ""
    DIRECTION: ClassVar[str] = ""
    first = operand_def(I64)
    second = operand_def(I64)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = NO_RESULTS_FORMAT


LOOP_CONFIG_OPS = [row_op(LoopConfigOpBase, f"Set{register.title().replace('_', '')}{direction.title()}Op",
                          f"set_{register}_{direction}", REGISTER=register, DIRECTION=direction)
                   for direction in DIRECTIONS for register in LOOP_REGISTERS]

ATOMIC_MODES = {"none": None, "add": "add", "max": "max", "min": "min"}
"""set_atomic_<mode>: how a UB -> GM store combines with what GM holds (none: it replaces it)."""
ATOMIC_TYPES = {"f32": "float32", "f16": "float16", "bf16": "ml_dtypes.bfloat16", "s32": "int32", "s16": "int16", "s8": "int8"}
"""set_atomic_<type>: the element type the combining reads GM as (a NumPy dtype name)."""


def atomic_dtype(setting: str) -> np.dtype:
    import numpy as np  # imported when a kernel runs, not when one is parsed

    module, _, name = ATOMIC_TYPES[setting].rpartition(".")
    return np.dtype(getattr(import_module(module), name) if module else name)


class SetAtomicOpBase(IRDLOperation):
    """Set the atomic mode (or the atomic element type) of the UB -> GM copies that follow."""

    SETTING: ClassVar[str] = ""
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "attr-dict"


ATOMIC_OPS = [row_op(SetAtomicOpBase, f"SetAtomic{setting.capitalize()}Op", f"set_atomic_{setting}", SETTING=setting)
              for setting in (*ATOMIC_MODES, *ATOMIC_TYPES)]


@irdl_op_definition
class CopyGmToUbufOp(CopyOpBase):
    """GM -> UB rows, repeated by the outtoub loop registers."""

    name = "pto.copy_gm_to_ubuf"

    source = operand_def(PtrType)
    destination = operand_def(PtrType)
    sid = operand_def(I64)
    n_burst = operand_def(I64)
    len_burst = operand_def(I64)
    left_padding_count = operand_def(I64)
    right_padding_count = operand_def(I64)
    data_select_bit = operand_def(IntegerType(1))
    l2_cache_ctl = operand_def(I64)
    gm_stride = operand_def(I64)
    ub_stride = operand_def(I64)


@irdl_op_definition
class CopyUbufToGmOp(UbToGmCopyOp):
    """UB -> GM rows, repeated by the ubtoout loop registers (combined with GM in the atomic mode)."""

    name = "pto.copy_ubuf_to_gm"

    source = operand_def(PtrType)
    destination = operand_def(PtrType)
    sid = operand_def(I64)
    n_burst = operand_def(I64)
    len_burst = operand_def(I64)
    reserved = operand_def(I64)
    gm_stride = operand_def(I64)
    ub_stride = operand_def(I64)


MTE_UB_UB_BLOCK_BYTES = 32
"""mte_ub_ub counts its burst length and gaps in 32-byte blocks."""


@irdl_op_definition
class MteUbUbOp(IRDLOperation):
    """UB -> UB: n_burst bursts of len_burst blocks; after each, src_gap / dst_gap more blocks are skipped."""

    name = "pto.mte_ub_ub"

    source = operand_def(PtrType)
    destination = operand_def(PtrType)
    n_burst = operand_def(I64)
    len_burst = operand_def(I64)
    src_stride = operand_def(I64)
    dst_stride = operand_def(I64)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = (
        "$source `,` $destination `,` $len_burst `nburst` `(` $n_burst `,` $src_stride `,` $dst_stride `)` attr-dict "
        "`:` type($source) `,` type($destination) `,` type($n_burst) `,` type($len_burst) `,` type($src_stride) `,` type($dst_stride)"
    )

    def verify_(self) -> None:
        require_space(self.source, UB, "source")
        require_space(self.destination, UB, "destination")


CONFIG_OPS = [*LOOP_CONFIG_OPS, *ATOMIC_OPS, CopyGmToUbufOp, CopyUbufToGmOp, MteUbUbOp]
