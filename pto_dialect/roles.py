"""
The one operand-role map of each PTO instruction: which `ins` / `outs` position
is the table, the index, the workspace, the destination... Read by the op
verifiers and accessors, the target rules, the lowered ops (which keep the
instruction's DPS operand order), the interpreter's run-time re-checks and the
C++ emitter. The roles follow the operand counts alone, so one map serves the
SSA form (results in place of outs), the DPS form and every lowered op.
"""

from __future__ import annotations

from collections.abc import Callable

Roles = tuple[tuple[str, ...], tuple[str, ...]]
"""(roles of the ins, roles of the outs / results), in operand order."""


def _mgather(n_ins: int, n_outs: int) -> Roles:
    return ("mem", "idx", "scratch")[:n_ins], ("dst",)


def _tgather(n_ins: int, n_outs: int) -> Roles:
    if n_ins == 1:  # mask form
        return ("src",), ("dst",)
    if n_outs == 2:  # compare form
        return ("src", "threshold", "tmp"), ("dst", "cdst")
    return ("src", "indices", "tmp")[:n_ins], ("dst",)


def _tcolargmin(n_ins: int, n_outs: int) -> Roles:
    return ("src", "tmp")[:n_ins], ("dstVal", "dstIdx") if n_outs == 2 else ("dst",)


def _copy(n_ins: int, n_outs: int) -> Roles:
    return ("src",), ("dst",)


INSTRUCTION_ROLES: dict[str, Callable[[int, int], Roles]] = {
    "pto.tload": _copy,
    "pto.tstore": _copy,
    "pto.mgather": _mgather,
    "pto.tgather": _tgather,
    "pto.tcolargmin": _tcolargmin,
}

WORKSPACE_ROLES = frozenset({"tmp", "scratch"})
"""Inputs an instruction writes as scratch space: not read-only inputs."""


def operand_roles(instruction: str, n_ins: int, n_outs: int) -> Roles:
    return INSTRUCTION_ROLES[instruction](n_ins, n_outs)
