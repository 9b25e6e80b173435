"""Each instruction's phases per target (pto_dialect/phases.py): the default (one phase on the
instruction's pipe, from its memory effects) and the multi-phase records of the lowered ops."""

from xdsl.context import Context

import pto_dialect
from passes.pipeline import PipelinePass
from pto_dialect.instruction import Pipe
from pto_dialect.phases import phases_of

GATHER = """
func.func @gather(%table: !pto.ptr<f16>, %ids: !pto.ptr<i32>, %out: !pto.ptr<f16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %tv = pto.make_tensor_view %table, shape = [%c1024, %c64], strides = [%c64, %c1] : !pto.tensor_view<1024x64xf16>
  %iv = pto.make_tensor_view %ids, shape = [%c1, %c8], strides = [%c8, %c1] : !pto.tensor_view<1x8xi32>
  %ov = pto.make_tensor_view %out, shape = [%c8, %c64], strides = [%c64, %c1] : !pto.tensor_view<8x64xf16>
  %tab = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c1024, %c64] : !pto.tensor_view<1024x64xf16>
  %ip = pto.partition_view %iv, offsets = [%c0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<1x8xi32>
  %op = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [%c8, %c64] : !pto.tensor_view<8x64xf16>
  %idx = pto.alloc_tile : !pto.tile_buf<vec, 1x8xi32>
  %rows = pto.alloc_tile : !pto.tile_buf<vec, 8x64xf16>
  pto.tload ins(%ip : !pto.partition_tensor_view<1x8xi32>) outs(%idx : !pto.tile_buf<vec, 1x8xi32>)
  pto.mgather ins(%tab, %idx : !pto.partition_tensor_view<1024x64xf16>, !pto.tile_buf<vec, 1x8xi32>)
              outs(%rows : !pto.tile_buf<vec, 8x64xf16>) {coalesce = #pto<coalesce row>, gatherOob = #pto<gather_oob clamp>}
  pto.tstore ins(%rows : !pto.tile_buf<vec, 8x64xf16>) outs(%op : !pto.partition_tensor_view<8x64xf16>)
  return
}
"""


def lowered_phases(target: str) -> list[list[tuple[Pipe, list[str], list[str]]]]:
    module = pto_dialect.parse(GATHER)
    PipelinePass(target).apply(Context(), module)
    found = []
    for op in module.walk():
        if (steps := phases_of(op)) is not None:
            found.append([(s.pipe, [v.name_hint for v in s.reads], [v.name_hint for v in s.writes]) for s in steps])
    return found


def test_row_gather_reads_its_index_on_the_scalar_pipe_on_a2a3():
    assert lowered_phases("a2a3") == [
        [(Pipe.MTE2, ["ip"], ["idx"])],
        [(Pipe.SCALAR, ["idx"], []), (Pipe.MTE2, ["tab"], ["rows"])],
        [(Pipe.MTE3, ["rows"], ["op"])],
    ]


def test_row_gather_is_one_vector_phase_on_a5_and_cpu():
    for target in ("a5", "cpu"):
        assert lowered_phases(target) == [
            [(Pipe.MTE2, ["ip"], ["idx"])],
            [(Pipe.VECTOR, ["tab", "idx"], ["rows"])],
            [(Pipe.MTE3, ["rows"], ["op"])],
        ], target


def test_compare_tgather_is_four_phases_on_a2a3():
    from targets.a2a3.lowering import A2A3TGatherCompareOp

    assert [(p.pipe, p.reads, p.writes) for p in A2A3TGatherCompareOp.PHASES or ()] == [
        (Pipe.VECTOR, ("src", "threshold"), ("tmp",)),
        (Pipe.SCALAR, (), ("tmp",)),
        (Pipe.VECTOR, ("tmp",), ("dst",)),
        (Pipe.SCALAR, (), ("cdst",)),
    ]
