"""
Assertions for kernel authors' own test suites (pytest or any other): each raises an
AssertionError whose message is the difference report.

    from pto_frontend.testing import assert_matches, assert_targets_agree

    def test_embedding():
        assert_matches(embed, table, ids, out, expected={"out": table[ids]}, target="a5")
        assert_targets_agree(embed, table, ids, out)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from pto_frontend.kernel import Kernel

if TYPE_CHECKING:
    from interpreter.compare import Report


def assert_targets_agree(kernel: Kernel, *arrays: object, targets: str | Sequence[str] = "all") -> Report:
    """Every target runs the kernel and all give the same outputs, bit for bit (NaN equal to
    NaN); else the report of `kernel.compare` (which targets ran, what differs, the first
    op whose writes differ and the lowered choices behind it)."""
    report = kernel.compare(*arrays, targets=targets)
    if not report.agree:
        raise AssertionError(f"{kernel.name}: the targets do not agree\n{report.text()}")
    return report


def assert_matches(
    kernel: Kernel,
    *arrays: object,
    expected: Mapping[str | int, object] | Sequence[object | None],
    target: str | None = None,
    rtol: float | None = None,
    atol: float | None = None,
) -> list[np.ndarray]:
    """The kernel's outputs on `target` equal `expected`: by argument name or position (a
    mapping), or one entry per argument (a sequence; None skips one). Bitwise (NaN equal to
    NaN) unless `rtol` or `atol` is given. An expected array is compared in the output's
    shape and dtype. Returns the outputs."""
    outputs = kernel.run(*arrays, target=target)
    names = list(kernel.parameters)
    wanted = dict(expected) if isinstance(expected, Mapping) else dict(enumerate(expected))
    problems = []
    for key, value in wanted.items():
        if value is None:
            continue
        position = names.index(key) if isinstance(key, str) else key
        problems += _differences(names[position], outputs[position], value, rtol, atol)
    if problems:
        where = f"{kernel.name}.run(target={kernel._target(target, 'pto.testing.assert_matches()').name})"
        raise AssertionError("\n".join([where + ": outputs differ from the expected ones", *problems]))
    return outputs


def _differences(name: str, output: np.ndarray, expected: object, rtol: float | None, atol: float | None) -> list[str]:
    from interpreter.compare import SHOWN_POSITIONS, same_values  # imported when used (pto_frontend/kernel.py)

    want = np.asarray(expected)
    if want.size != output.size:
        return [f"argument '{name}': expected {want.size} elements, the kernel's output has {output.size}"]
    want = want.reshape(output.shape).astype(output.dtype)
    if rtol is None and atol is None:
        same, how = same_values(output, want), "bitwise"
    else:
        same = np.isclose(output.astype(np.float64), want.astype(np.float64), rtol=rtol or 0.0, atol=atol or 0.0, equal_nan=True)
        how = f"rtol={rtol or 0}, atol={atol or 0}"
    where = np.argwhere(~same)
    if not len(where):
        return []
    lines = [f"argument '{name}': {len(where)} of {output.size} elements differ ({how})"]
    for p in where[:SHOWN_POSITIONS]:
        at = tuple(int(i) for i in p)
        lines.append(f"  [{', '.join(map(str, at))}]: got {output[at]}, expected {want[at]}")
    return lines


__all__ = ["assert_matches", "assert_targets_agree"]
