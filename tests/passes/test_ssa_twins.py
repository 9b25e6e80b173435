"""
SSA kernels and their hand-written DPS twins (examples/ssa/NAME.pto and
examples/ssa/NAME_dps.pto) give the same results through `interpreter.run`,
which applies pto-pipeline (verify, pto-ssa-to-dps, pto-materialize-implicit-tmp,
pto-plan-memory, lower) as `pto-run` does, on every target where the SSA kernel is
legal. Each result is also checked against a NumPy formula written here from the
kernel's comment (from pto-isa's code), so that twins that agree on a wrong
answer are caught too. The last test runs one pair through `pto-run` itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import interpreter
import pto_dialect
import targets
from pto_dialect.diagnostics import PtoError
from pto_dialect.ops import AllocTileOp
from pto_dialect.ops.common import PtoInstructionOp
from pto_tools import pto_run

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "ssa"
TARGETS = targets.names()
SENTINEL = 77


def unsigned(i: np.ndarray) -> np.ndarray:
    """An i32 index read as unsigned (semantics.md §1.2: cpu widens to 64 bits, the NPUs
    read 32 bits). A negative index is huge either way, and 2**32 and 2**64 are both
    multiples of the table sizes used here, so clamp and wrap agree on all targets."""
    return i.astype(np.int64).astype(np.uint64)


@dataclass(frozen=True)
class Twin:
    name: str
    make_args: Callable[[np.random.Generator], list[np.ndarray]]
    expected: Callable[[list[np.ndarray]], list[np.ndarray]]
    """The final contents of every argument, from the inputs."""
    illegal: dict[str, str]
    """Targets on which the SSA kernel is rejected, with the message."""


def _mgather_rows_args(rng):
    table = (rng.integers(-2000, 2000, 64 * 32) / 4).astype(np.float16)
    ids = rng.integers(0, 64, 32).astype(np.int32)
    ids[[3, 10, 17, 31]] = [-1, 64, 1000, -(2**31)]  # out of range: clamped to row 63
    return [table, ids, np.full(32 * 32, SENTINEL, np.float16)]


def _mgather_rows_expected(a):
    table, ids, _ = a
    rows = np.minimum(unsigned(ids), 63).astype(np.int64)
    return [table, ids, table.reshape(64, 32)[rows].reshape(-1)]


def _mgather_elem_args(rng):
    flat = (rng.integers(-2000, 2000, 1024) / 8).astype(np.float32)
    pos = rng.integers(-5000, 5000, 16 * 32).astype(np.int32)
    return [flat, pos, np.full(16 * 32, SENTINEL, np.float32)]


def _mgather_elem_expected(a):
    flat, pos, _ = a
    return [flat, pos, flat[(unsigned(pos) % 1024).astype(np.int64)]]


def _tgather_index_args(rng):
    x = (rng.integers(-2000, 2000, 32 * 64) / 4).astype(np.float32)
    perm = rng.integers(0, 16 * 64, 16 * 64).astype(np.int32)
    return [x, perm, np.full(32 * 64, SENTINEL, np.float32)]


def _tgather_index_expected(a):
    x, perm, _ = a
    blocks = x.reshape(2, 16 * 64)
    return [x, perm, np.concatenate([blk[perm] for blk in blocks])]


def _tgather_mask_args(rng):
    xh = (rng.integers(-2000, 2000, 32 * 64) / 4).astype(np.float16)
    return [xh, np.full(32 * 32, SENTINEL, np.float16)]


def _tgather_mask_expected(a):
    xh, _ = a
    return [xh, xh.reshape(32, 64)[:, 0::2].reshape(-1)]


def _argmin_args(rng, with_value: bool):
    x = rng.integers(-50, 50, 30 * 128).astype(np.float32)  # ties: the first minimum wins
    outs = [np.full(128, SENTINEL, np.float32)] if with_value else []
    return [x, *outs, np.full(128, SENTINEL, np.int32)]


def _argmin_expected(a):
    x = a[0].reshape(30, 128)
    idx = np.argmin(x, axis=0).astype(np.int32)
    return [a[0], idx] if len(a) == 2 else [a[0], x.min(axis=0), idx]


TWINS = [
    Twin("mgather_rows", _mgather_rows_args, _mgather_rows_expected, {}),
    Twin("mgather_elem", _mgather_elem_args, _mgather_elem_expected, {}),
    Twin("tgather_index", _tgather_index_args, _tgather_index_expected,
         {"a2a3": "'pto.tgather' op index-form tgather expects both indices and tmp (target a2a3)"}),
    Twin("tgather_mask", _tgather_mask_args, _tgather_mask_expected, {}),
    Twin("tcolargmin_index", lambda rng: _argmin_args(rng, False), _argmin_expected, {}),
    Twin("tcolargmin_value", lambda rng: _argmin_args(rng, True), _argmin_expected, {}),
]
CASES = [pytest.param(twin, target, id=f"{twin.name}-{target}") for twin in TWINS for target in TARGETS]


def bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint8)


def assert_same(actual: list[np.ndarray], expected: list[np.ndarray], what: str) -> None:
    assert len(actual) == len(expected), what
    for i, (x, y) in enumerate(zip(actual, expected)):
        y = np.asarray(y, dtype=x.dtype)
        assert x.shape == y.shape, f"{what}: argument {i} shape {x.shape} != {y.shape}"
        assert np.array_equal(bits(x), bits(y)), f"{what}: argument {i} differs\n{x}\n{y}"


def test_every_ssa_example_has_a_twin() -> None:
    """Every examples/ssa/NAME.pto is tested here, with its NAME_dps.pto twin."""
    ssa = {p.stem for p in EXAMPLES.glob("*.pto") if not p.stem.endswith("_dps")}
    dps = {p.stem.removesuffix("_dps") for p in EXAMPLES.glob("*_dps.pto")}
    assert ssa == dps == {t.name for t in TWINS}


@pytest.mark.parametrize("twin", TWINS, ids=lambda t: t.name)
def test_forms(twin: Twin) -> None:
    """The SSA file really is SSA (no buffers, instructions with results), the twin DPS."""
    ssa = pto_dialect.load(EXAMPLES / f"{twin.name}.pto")
    dps = pto_dialect.load(EXAMPLES / f"{twin.name}_dps.pto")
    ssa_insts = [op for op in ssa.walk() if isinstance(op, PtoInstructionOp)]
    dps_insts = [op for op in dps.walk() if isinstance(op, PtoInstructionOp)]
    assert not any(isinstance(op, AllocTileOp) for op in ssa.walk())
    assert any(not op.is_dps for op in ssa_insts)
    assert all(op.is_dps for op in dps_insts)
    assert any(isinstance(op, AllocTileOp) for op in dps.walk())
    assert [op.name for op in ssa_insts] == [op.name for op in dps_insts]


@pytest.mark.parametrize(("twin", "target"), CASES)
def test_ssa_kernel_matches_dps_twin(twin: Twin, target: str) -> None:
    args = twin.make_args(np.random.default_rng(sum(map(ord, twin.name))))
    ssa_path = EXAMPLES / f"{twin.name}.pto"
    dps = interpreter.run(EXAMPLES / f"{twin.name}_dps.pto", target, args)
    assert_same(dps, twin.expected(args), f"DPS twin on {target} vs NumPy")
    if target in twin.illegal:
        with pytest.raises(PtoError) as e:
            interpreter.run(ssa_path, target, args)
        assert e.value.text.startswith(f"{ssa_path}:")
        assert e.value.text.split(": error: ", 1)[1] == twin.illegal[target]
        return
    ssa = interpreter.run(ssa_path, target, args)
    assert_same(ssa, dps, f"SSA kernel vs DPS twin on {target}")
    assert_same(args, twin.make_args(np.random.default_rng(sum(map(ord, twin.name)))), "inputs changed")


@pytest.mark.parametrize("target", TARGETS)
def test_pto_run_runs_the_twins(tmp_path: Path, target: str) -> None:
    """`pto-run` (the command's entry point; tests/filecheck/run runs the installed script)
    gives the same files for an SSA kernel and its twin."""
    twin = TWINS[4]  # tcolargmin_index: legal everywhere, implicit tmp on a2a3 and a5
    args = twin.make_args(np.random.default_rng(0))
    names = []
    for i, a in enumerate(args):
        names.append(str(tmp_path / f"in{i}.npy"))
        np.save(names[-1], a)
    outs = {}
    for kernel in (twin.name, f"{twin.name}_dps"):
        out = tmp_path / kernel
        pto_run.main([str(EXAMPLES / f"{kernel}.pto"), "--target", target, "--out", str(out), *names])
        outs[kernel] = [np.load(out / f"arg{i}.npy") for i in range(len(args))]
    assert_same(outs[twin.name], outs[f"{twin.name}_dps"], f"pto-run on {target}")
    assert_same(outs[twin.name], twin.expected(args), f"pto-run on {target} vs NumPy")
