"""Issue 27's deletion test on examples/ (bench/sync_deletions.py runs it on PTOAS's kernels too):
each example, after pto-pipeline on each target, has every one of its wait_flags needed: deleting
any one is reported by the static checker."""

import pytest

from bench.sync_deletions import deletions, example_kernels

EXAMPLES = list(example_kernels())


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("name, text", [(n, t) for n, t, _ in EXAMPLES], ids=[n for n, _, _ in EXAMPLES])
def test_every_deleted_wait_is_reported(name, text, target):
    kernel = deletions(name, text, target)
    if kernel is None:
        pytest.skip(f"not for {target}")
    assert not kernel.rejected
    assert kernel.waits
    assert not kernel.unreported, kernel.unreported
