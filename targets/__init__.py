"""
The target registry: one `TargetInfo` per hardware target (targets/<name>/),
and `resolve()`, the one way every pass, CLI and API call decides its target: the target
the invocation names (a pass option, the command line's `--target`: one target per
invocation), else the module's own: the target it is lowered for, its `pto.target_arch`
(or a `pto.device-spec` a target claims), else the default.

Adding a target is one folder under targets/, one entry in `REGISTRY` and a column (`Row` field)
in the rule tables of targets/rules/.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple, cast

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation
from pto_dialect.walk import walk

from targets.a2a3 import A2A3
from targets.a5 import A5
from targets.cpu import CPU
from targets.info import COST_MODELS, TargetInfo

REGISTRY: tuple[TargetInfo, ...] = (CPU, A2A3, A5)
"""Every target, in the order reports list them."""

DEFAULT = A2A3

SPELLINGS: dict[str, TargetInfo] = {n: t for t in REGISTRY for n in (t.name, *t.aliases)}
"""Every accepted spelling, aliases included, and the target it names."""


class UnknownTarget(ValueError):
    """A target spelling that names no target."""


def get(name: str | TargetInfo) -> TargetInfo:
    """The target a spelling names (aliases accepted); UnknownTarget for any other."""
    if isinstance(name, TargetInfo):
        return name
    try:
        return SPELLINGS[name]
    except KeyError:
        raise UnknownTarget(f"unknown target '{name}'; expected one of {', '.join(SPELLINGS)}") from None


def names() -> tuple[str, ...]:
    return tuple(t.name for t in REGISTRY)


def help_text() -> str:
    """How a command picks its target, for `--help`: the aliases and the default from the registry."""
    aliases = "; ".join(f"{' and '.join(t.aliases)} mean {t.name}" for t in REGISTRY if t.aliases)
    return f"{aliases}; default: the module's pto.target_arch attribute, else {DEFAULT.name}"


def parse_list(text: str | Iterable[str]) -> tuple[TargetInfo, ...]:
    """`cpu,a5` or `all` (for `--targets`), each target once, in registry order; a list of
    names: each one's target, in its order."""
    if not isinstance(text, str):
        return tuple(get(name) for name in text)
    if text.strip() == "all":
        return REGISTRY
    chosen = {get(part.strip()) for part in text.split(",") if part.strip()}
    if not chosen:
        raise UnknownTarget(f"expected a comma-separated list of targets or 'all', got '{text}'")
    return tuple(t for t in REGISTRY if t in chosen)


class TargetConflict(ValueError):
    """One invocation naming two different targets (a usage error)."""


class Resolution(NamedTuple):
    """A target and why it is the one: `--target a5`, `the module's pto.target_arch = "a5"`, ..."""

    target: TargetInfo
    why: str


def named_target(given: Iterable[tuple[str | TargetInfo | None, str]]) -> Resolution | None:
    """The one target an invocation names, from its (spelling, where named) pairs, such as
    `("a5", "--target a5")` or `("a3", "pto-lower{target=a3}")`; unnamed (None) ones are
    skipped. None if none names one; TargetConflict if two name different targets."""
    chosen: Resolution | None = None
    for spelling, where in given:
        if spelling is None:
            continue
        target = get(spelling)
        if chosen is not None and chosen.target is not target:
            raise TargetConflict(
                f"two targets in one invocation: {chosen.target} ({chosen.why}) and {target} ({where}); "
                "an invocation has one target"
            )
        chosen = chosen or Resolution(target, where)
    return chosen


def lowered_for(module: Operation) -> tuple[TargetInfo, Operation] | None:
    """The target whose dialect the module's ops are in, with the first such op, if the module
    was lowered already (`pto-lower`, `pto-pipeline`)."""
    dialects = {t.dialect_name: t for t in REGISTRY}
    for op in walk(module):
        target = dialects.get(op.name.partition(".")[0])
        if target is not None:
            return target, op
    return None


def module_target(module: Operation) -> TargetInfo:
    """The module's own target: the target it is lowered for, else `pto.target_arch`, else an
    A5 `pto.device-spec`, else a2a3.

    As in PTOAS, an unknown `pto.target_arch` value means a2a3, and names match
    case-insensitively."""
    return resolution(None, module).target


def resolution(named: Resolution | None, module: Operation) -> Resolution:
    """The target an invocation runs for: the one it names, else the module's own. Lowered IR
    runs on the target it was lowered for only: naming another one is an error at its first
    lowered op."""
    module = _toplevel(module)
    lowered = lowered_for(module)
    if named is None:
        return _own(module, lowered)
    if lowered is not None and lowered[0] is not named.target:
        from pto_dialect.diagnostics import PtoError

        raise PtoError.at_op(
            lowered[1],
            f"is lowered for {lowered[0]} and runs on that target only, not on {named.target} ({named.why}); "
            f"give {named.target} the kernel from before pto-lower",
        )
    return named


def check_comparable(module: Operation) -> None:
    """Comparing targets (`--targets`) needs a kernel from before pto-lower: lowered IR runs on
    the target it is lowered for only (an error at its first lowered op)."""
    lowered = lowered_for(_toplevel(module))
    if lowered is not None:
        from pto_dialect.diagnostics import PtoError

        raise PtoError.at_op(
            lowered[1],
            f"is lowered for {lowered[0]} and runs on that target only; comparing targets needs "
            "the kernel from before pto-lower",
        )


def _toplevel(op: Operation) -> Operation:
    return op if isinstance(op, ModuleOp) else cast(Operation, op.get_toplevel_object())


def _own(module: Operation, lowered: tuple[TargetInfo, Operation] | None) -> Resolution:
    if lowered is not None:
        return Resolution(lowered[0], f"the kernel is lowered for {lowered[0]}")
    arch = module.attributes.get("pto.target_arch")
    if isinstance(arch, StringAttr):
        named = SPELLINGS.get(arch.data.lower())
        if named is None:
            return Resolution(DEFAULT, f'the module\'s pto.target_arch = "{arch.data}", not a target name: {DEFAULT}, as in PTOAS')
        return Resolution(named, f'the module\'s pto.target_arch = "{arch.data}"')
    spec = module.attributes.get("pto.device-spec")
    if isinstance(spec, StringAttr):
        for target in REGISTRY:
            if target.device_spec_prefixes and spec.data.startswith(target.device_spec_prefixes):
                return Resolution(target, f'the module\'s pto.device-spec = "{spec.data}"')
    return Resolution(DEFAULT, "the default: the module names no target")


def resolve(option: str | TargetInfo | None, module: Operation) -> TargetInfo:
    """The target a pass or API call runs for: its own option, else the module's own target
    (`resolution`). The command line's `--target` reaches a pass as its option (pto-opt
    resolves the invocation's one target with `named_target`)."""
    named = named_target([(option, f"target={option}")])
    return resolution(named, module).target


__all__ = [
    "COST_MODELS",
    "REGISTRY", "DEFAULT", "Resolution", "TargetConflict", "TargetInfo", "UnknownTarget", "check_comparable", "get",
    "help_text", "lowered_for", "module_target", "named_target", "names", "parse_list",
    "resolution", "resolve",
]
