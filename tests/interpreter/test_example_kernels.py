"""The kernels of examples/ that users write (MoE routing, RoPE, paged attention's softmax
prepare, a routed combine) on every target, each against a NumPy formula written here.

The NPUs' TEXP, row sums and divisions are hardware intrinsics whose values no public code
fixes (the interpreter gives the reference formula's values and marks them approximate): on
a2a3 and a5 those results are compared within a tolerance, on cpu bit for bit."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import interpreter
from tests.interpreter.harness import TARGETS

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
APPROXIMATE = {"cpu": False, "a2a3": True, "a5": True}
"""Whether a target's exp / row sum / division is a hardware intrinsic (compared with rtol)."""


def _run(name: str, target: str, arrays: list[np.ndarray]) -> list[np.ndarray]:
    return interpreter.run(str(EXAMPLES / name), target, arrays)


def _exp_f32(x: np.ndarray) -> np.ndarray:
    """expf as the simulator computes it: exp rounded once to f32."""
    return np.exp(x.astype(np.float64)).astype(np.float32)


def _row_sum_in_order(x: np.ndarray) -> np.ndarray:
    """One accumulator per row, element after element (the simulator's loop), in f32."""
    return np.add.accumulate(x, axis=1, dtype=np.float32)[:, -1]


def _compare(actual: np.ndarray, expected: np.ndarray, approximate: bool) -> None:
    if approximate:
        np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=0)
    else:
        np.testing.assert_array_equal(actual, expected, strict=True)


@pytest.mark.parametrize("target", TARGETS)
def test_moe_routing_picks_each_tokens_top_expert_and_its_softmax_weight(target):
    rng = np.random.default_rng(26)
    # Distinct scores a quarter apart at least: the top expert is clear under any exp rounding.
    scores = (rng.permuted(np.tile(np.arange(64), (16, 1)), axis=1) * 0.25 - 8).astype(np.float32)
    out = _run("moe_routing.pto", target, [scores.reshape(-1), np.zeros(16, np.int32), np.zeros(16, np.float32)])
    shifted = scores - scores.max(axis=1, keepdims=True)
    e = _exp_f32(shifted)
    p = e / _row_sum_in_order(e)[:, None]
    expert = np.argmax(p, axis=1)
    np.testing.assert_array_equal(out[1], expert.astype(np.int32), strict=True)
    np.testing.assert_array_equal(expert, np.argmax(scores, axis=1))
    _compare(out[2], p[np.arange(16), expert], APPROXIMATE[target])


@pytest.mark.parametrize("target", TARGETS)
def test_rope_rotates_each_interleaved_pair(target):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((16, 64)).astype(np.float32)
    angle = np.arange(16)[:, None] * 10000.0 ** (-np.arange(32)[None, :] / 32)
    cos, sin = (np.repeat(f(angle), 2, axis=1).astype(np.float32) for f in (np.cos, np.sin))
    out = _run("rope_interleaved.pto", target, [a.reshape(-1) for a in (x, cos, sin, np.zeros((16, 64), np.float32))])
    rotated = np.empty_like(x)
    rotated[:, 0::2], rotated[:, 1::2] = -x[:, 1::2], x[:, 0::2]
    # Exact on every target: the i32 -> f32 sign conversion (approximate on the NPUs) only sees +-1.
    np.testing.assert_array_equal(out[3].reshape(16, 64), x * cos + rotated * sin, strict=True)


@pytest.mark.parametrize("target", TARGETS)
def test_paged_softmax_prepare_gives_each_blocks_max_sum_and_f16_exponentials(target):
    rng = np.random.default_rng(9)
    blocks, scale = 3, np.float32(0.125)
    scores = (rng.standard_normal((blocks * 16, 64)) * 20).astype(np.float32)
    arrays = [scores.reshape(-1), np.zeros(blocks * 16 * 64, np.float16), np.zeros(blocks * 16, np.float32),
              np.zeros(blocks * 16, np.float32), np.array(scale), np.array(blocks)]
    out = _run("paged_softmax_prepare.pto", target, arrays)
    s = scores * scale
    m = s.max(axis=1)
    e = _exp_f32(s - m[:, None])
    np.testing.assert_array_equal(out[2], m, strict=True)  # a max is exact everywhere
    _compare(out[3], _row_sum_in_order(e), APPROXIMATE[target])
    _compare(out[1].reshape(-1, 64).astype(np.float32), e.astype(np.float16).astype(np.float32), APPROXIMATE[target])


@pytest.mark.parametrize("target", TARGETS)
def test_routed_combine_adds_the_weighted_rows_into_their_tokens(target):
    rng = np.random.default_rng(12)
    y = rng.standard_normal((32, 64)).astype(np.float32)
    weight = rng.random(32).astype(np.float32)
    token = rng.integers(0, 16, 32).astype(np.int32)
    residual = rng.standard_normal((16, 64)).astype(np.float32)
    out = _run("routed_combine.pto", target, [y.reshape(-1), weight, token, residual.reshape(-1)])
    expected = residual.copy()
    np.add.at(expected, token, weight[:, None] * y)  # in n order, each add rounded to f32
    np.testing.assert_array_equal(out[3].reshape(16, 64), expected, strict=True)
