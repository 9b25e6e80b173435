"""The bundled examples compute what their comments say (independent NumPy formulas)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import interpreter

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_tgather_forms_computes_what_its_comments_say():
    rng = np.random.default_rng(18)
    x = rng.random((64, 64)).astype(np.float32)
    xh = rng.random((64, 64)).astype(np.float16)
    perm = rng.integers(0, 16 * 64, (16, 64)).astype(np.int32)
    y, h = np.zeros((64, 64), np.float32), np.zeros((64, 32), np.float16)
    hits, cnt = np.full((64, 64), -1, np.int32), np.full(64, -1, np.int32)
    args = [x, xh, perm, y, h, hits, cnt]
    out = interpreter.run(str(EXAMPLES / "tgather_forms.pto"), "a2a3", [a.reshape(-1) for a in args])
    y, h, hits, cnt = out[3].reshape(64, 64), out[4].reshape(64, 32), out[5].reshape(64, 64), out[6]
    for b in range(4):
        block = x[16 * b : 16 * b + 16]
        np.testing.assert_array_equal(y[16 * b : 16 * b + 16], block.reshape(-1)[perm])
        for i in range(16):
            row = 16 * b + i
            columns = [j for j in range(64) if x[row, j] > 0.5]
            assert cnt[row] == len(columns)
            assert list(hits[row, : len(columns)]) == [100 + 64 * i + j for j in columns]
    np.testing.assert_array_equal(h, xh[:, 0::2])
