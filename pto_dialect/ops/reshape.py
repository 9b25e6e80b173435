"""
`pto.treshape`: a tile's storage seen as another tile type (PTOAS's TReshapeOp; pto-isa's
TRESHAPE, which on the CPU simulator points the new tile at the source's data and on the NPUs
assigns it the source's address):

    %r = pto.treshape %src : !pto.tile_buf<vec, 1x32xf32> -> !pto.tile_buf<vec, 16x2xf32>

No element moves: the result's storage is the source's bytes, in the result's element type and
layout. PTOAS's rules: one memory (loc), static shapes, the same total bytes, no reshape between
a boxed and a non-boxed layout. The result's valid shape is its type's; a dynamic one (`?`) is the
source's valid shape when both have one shape, else a run-time error (nothing says it otherwise).
"""

from __future__ import annotations

from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from pto_dialect.types import TileBufType


@irdl_op_definition
class TReshapeOp(IRDLOperation):
    """The source tile's storage as the result's tile type."""

    name = "pto.treshape"

    source = operand_def(TileBufType)
    result = result_def(TileBufType)
    traits = traits_def(Pure())
    assembly_format = "$source attr-dict `:` type($source) `->` type($result)"

    def verify_(self) -> None:
        source, result = self.source.type, self.result.type
        assert isinstance(source, TileBufType) and isinstance(result, TileBufType)
        if source.loc.data != result.loc.data:
            raise VerifyException(f"expects src and dst to use the same loc, got {source.loc.data} and {result.loc.data}")
        if DYNAMIC_INDEX in (*source.shape, *result.shape):
            raise VerifyException("expects static shapes for treshape")
        if source.size_bytes != result.size_bytes:
            raise VerifyException(
                f"expects src and dst to have the same total byte size, got {source.size_bytes} and {result.size_bytes}"
            )
        if (source.inner_box is None) != (result.inner_box is None):
            raise VerifyException("cannot reshape between boxed and non-boxed tile layouts")
