"""pto-insert-sync: every example kernel, lowered for each target, has races the checker reports;
after the pass the checker accepts it (passes/sync_check.py proves passes/insert_sync.py)."""

from pathlib import Path

import pytest
from xdsl.context import Context

import pto_dialect
import targets
from passes.insert_sync import insert_sync
from passes.pipeline import PipelinePass
from passes.sync_check import check_sync
from pto_dialect.diagnostics import PtoError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p for p in [*ROOT.glob("examples/*.pto"), *ROOT.glob("examples/ssa/*.pto")])


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_inserted_sync_passes_the_checker(path, target):
    module = pto_dialect.load(path)
    info = targets.get(target)
    try:
        for stage in PipelinePass(target).stages(module)[:-1]:  # all but pto-insert-sync
            stage.apply(Context(), module)
    except PtoError as e:
        pytest.skip(f"not for {target}: {e.message}")
    assert check_sync(module, info).errors, "a kernel without sync races on the NPU"
    assert insert_sync(module, info) > 0
    report = check_sync(module, info)
    assert not report.errors, [str(e) for e in report.errors]
    assert not report.warnings


def test_the_pipeline_ends_with_insert_sync():
    from passes.insert_sync import InsertSyncPass

    assert isinstance(PipelinePass("a2a3").stages(pto_dialect.load(EXAMPLES[0]))[-1], InsertSyncPass)


def test_a_kernel_with_its_own_sync_is_left_alone():
    text = (ROOT / "tests/filecheck/sync/issue861.pto").read_text().split("// -----")[1]
    module = pto_dialect.parse(text)
    PipelinePass("a2a3").apply(Context(), module)
    assert insert_sync(module, targets.get("a2a3")) == 0


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_each_inserted_wait_is_needed(path):
    """Deleting any one wait_flag of the pipeline's output (a2a3) is reported as a race, or,
    for the wait_flag after a loop that takes its last iteration's carried flag, as that flag left
    set at the kernel's end: none of the inserted waits is redundant."""
    from bench.sync_deletions import drains_a_loop
    from pto_dialect.ops.sync import WaitFlagOp

    module = pto_dialect.load(path)
    try:
        PipelinePass("a2a3").apply(Context(), module)
    except PtoError as e:
        pytest.skip(f"not for a2a3: {e.message}")
    count = sum(isinstance(op, WaitFlagOp) for op in module.walk())
    assert count
    for k in range(count):
        copy = module.clone()
        wait = [op for op in copy.walk() if isinstance(op, WaitFlagOp)][k]
        drain = drains_a_loop(wait)
        wait.detach()
        wait.erase()
        report = check_sync(copy, targets.get("a2a3"))
        assert report.errors or drain, f"wait_flag {k} deleted, nothing reported"
        assert report.warnings, "its set_flag is left set"


def cpp_kernels():
    """Every kernel `tests/test_emit_cpp.py` emits, made ready for hardware as it does."""
    from tests.test_emit_cpp import KERNEL_FILES, is_ir

    for path in KERNEL_FILES:
        for k, chunk in enumerate(path.read_text().split("// -----")):
            if is_ir(chunk):
                yield pytest.param(path, chunk, id=f"{path.relative_to(ROOT)}#{k}")


@pytest.mark.parametrize("path, chunk", list(cpp_kernels()))
def test_the_sync_of_the_cpp_passes_the_checker(path, chunk):
    """`--to=cpp` writes the sync ops of the module `synchronised` gives (pto-insert-sync's, for a
    kernel without its own): lowered, the checker accepts it, and the C++ has each of its flags."""
    from backends.cpp.emitter import emit_cpp, synchronised
    from passes.implicit_tmp import MaterializeImplicitTmpPass
    from passes.plan_memory import PlanMemoryPass
    from passes.ssa_to_dps import SsaToDpsPass

    module = pto_dialect.parse(chunk, str(path))
    target = targets.module_target(module)
    for prepare in (SsaToDpsPass(), MaterializeImplicitTmpPass(target.name), PlanMemoryPass(target.name)):
        prepare.apply(Context(), module)
    synced = synchronised(module, target)
    cpp = emit_cpp(module, target)
    for call in ("set_flag", "wait_flag"):
        assert cpp.count(f"{call}(") == sum(op.name.removesuffix("_dyn") == f"pto.{call}" for op in synced.walk())
    try:
        PipelinePass(target.name).apply(Context(), synced)  # its pto-insert-sync leaves kernels with sync alone
    except PtoError as e:
        pytest.skip(f"not for {target.name}: {e.message}")
    report = check_sync(synced, target)
    assert not report.errors, [str(e) for e in report.errors]
    assert not report.warnings
