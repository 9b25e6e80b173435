"""bench/ptoas_kernels.py on a made-up PTOAS checkout: which kernels each group takes, the
targets a kernel names, and how far one gets."""

from __future__ import annotations

from pathlib import Path

from bench.ptoas_kernels import Job, attempt, jobs_of, ops_in, selected

GATHER = """// RUN: ptoas --pto-arch=a5 %s
// RUN: not ptoas --pto-arch=a3 %s
func.func @k(%t: !pto.tile_buf<vec, 8x8xf32>, %i: !pto.tile_buf<vec, 8x8xi32>, %d: !pto.tile_buf<vec, 8x8xf32>) {
  pto.tgather ins(%t, %i : !pto.tile_buf<vec, 8x8xf32>, !pto.tile_buf<vec, 8x8xi32>) outs(%d : !pto.tile_buf<vec, 8x8xf32>)
  return
}
"""
PYPTO_VECTOR = """module attributes {pto.target_arch = "a5"} {
  func.func @v(%p: !pto.ptr<f32>, %n: index) {
    %c0 = arith.constant 0 : index
    %x = pto.load_scalar %p[%c0] : !pto.ptr<f32> -> f32
    "pto.tnew_op"() : () -> ()
    return
  }
}
"""
PYPTO_CUBE = "func.func @c() {\n  pto.tmatmul ins() outs()\n  return\n}\n"


def _checkout(tmp_path: Path) -> Path:
    for path, text in [("test/lit/pto/g.pto", GATHER), ("test/samples/Qwen3X/kernels/v.pto", PYPTO_VECTOR),
                       ("test/samples/Qwen3X/kernels/c.pto", PYPTO_CUBE), ("test/samples/Other/v.pto", PYPTO_VECTOR)]:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    return tmp_path


def test_groups_and_targets(tmp_path):
    root = _checkout(tmp_path)
    assert [p.name for p in selected(root, "gather")] == ["g.pto"]
    assert [p.relative_to(root).as_posix() for p in selected(root, "pypto")] == ["test/samples/Qwen3X/kernels/v.pto"]
    gather = root / "test/lit/pto/g.pto"
    assert jobs_of(gather, GATHER) == [Job(gather, "a5", False), Job(gather, "a2a3", True)]
    assert [j.target for j in jobs_of(gather, PYPTO_VECTOR)] == ["a5"]
    assert ops_in(PYPTO_VECTOR) == ["pto.load_scalar", "pto.tnew_op"]


def test_a_kernel_stops_at_its_first_failure(tmp_path):
    root = _checkout(tmp_path)
    unknown = attempt(Job(root / "test/samples/Qwen3X/kernels/v.pto", "a5", False), 60, 64)
    assert unknown.reached == 0 and "pto.tnew_op" in unknown.error
    rejected = attempt(Job(root / "test/lit/pto/g.pto", "a2a3", True), 60, 64)
    assert rejected.reached == 1 and "index-form tgather expects both indices and tmp" in rejected.error
    ran = attempt(Job(root / "test/lit/pto/g.pto", "a5", False), 60, 64)
    assert (ran.reached, ran.error) == (3, "")

