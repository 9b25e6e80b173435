"""
Target names and how a kernel's target is chosen (reference/syntax.md §1):
command-line flag, else the module's `pto.target_arch`, else a2a3.
"""

from __future__ import annotations

from typing import Literal

from xdsl.dialects.builtin import ModuleOp, StringAttr

Target = Literal["cpu", "a2a3", "a5"]

TARGETS: tuple[Target, ...] = ("cpu", "a2a3", "a5")
DEFAULT_TARGET: Target = "a2a3"

TARGET_SPELLINGS: dict[str, Target] = {"cpu": "cpu", "a2a3": "a2a3", "a2": "a2a3", "a3": "a2a3", "a5": "a5"}
"""Every accepted spelling, aliases included, and the target it names."""

_A5_DEVICE_SPECS = ("Ascend950", "Ascend910_95")

ON_CHIP_BYTES: dict[str, dict[Target, int]] = {
    "vec": {"cpu": 253952, "a2a3": 196608, "a5": 253952},
    "mat": {"cpu": 524288, "a2a3": 524288, "a5": 524288},
}
"""Bytes of each on-chip memory that tiles are placed in, per tile loc and target
(syntax.md §7: UB 192 KiB on a2a3, 248 KiB on a5; cpu models a5; L1 512 KiB)."""

A5_SIMT_UB_BYTES = 216 * 1024
"""a5 kernels that launch the SIMT MGATHER: 256 KiB - 8 KiB reserved - 32 KiB data cache."""
A5_SIMT_DEFAULT_UB_BYTES = 128 * 1024
"""... of which a kernel may use more than this only by declaring `pto.dyn_ubuf_size`."""


def normalize_target(name: str) -> Target:
    """The target a command-line spelling names; ValueError for an unknown one."""
    try:
        return TARGET_SPELLINGS[name]
    except KeyError:
        raise ValueError(
            f"invalid target '{name}', expected one of {', '.join(TARGET_SPELLINGS)}"
        ) from None


def module_target(module: ModuleOp) -> Target:
    """The module's own target: `pto.target_arch`, or an A5 `pto.device-spec`; else a2a3.

    As in PTOAS, an unknown `pto.target_arch` value means a2a3, and "a5" matches
    case-insensitively.
    """
    arch = module.attributes.get("pto.target_arch")
    if isinstance(arch, StringAttr):
        return TARGET_SPELLINGS.get(arch.data.lower(), DEFAULT_TARGET)
    spec = module.attributes.get("pto.device-spec")
    if isinstance(spec, StringAttr) and spec.data.startswith(_A5_DEVICE_SPECS):
        return "a5"
    return DEFAULT_TARGET


def resolve_target(flag: str | None, module: ModuleOp) -> Target:
    return normalize_target(flag) if flag else module_target(module)
