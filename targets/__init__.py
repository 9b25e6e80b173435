"""
The target registry: one `TargetInfo` per hardware target (targets/<name>/),
and `resolve()`, the one way every pass, CLI and API call decides its target: the pass
option, else the command line's `--target`, else the module's `pto.target_arch` (or a
`pto.device-spec` a target claims), else the default.

Adding a target is one folder under targets/ and one entry in `REGISTRY`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation

from targets.a2a3 import A2A3
from targets.a5 import A5
from targets.cpu import CPU
from targets.info import TargetInfo

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


def parse_list(text: str) -> tuple[TargetInfo, ...]:
    """`cpu,a5` or `all` (for `--targets`), each target once, in registry order."""
    if text.strip() == "all":
        return REGISTRY
    chosen = {get(part.strip()) for part in text.split(",") if part.strip()}
    if not chosen:
        raise UnknownTarget(f"expected a comma-separated list of targets or 'all', got '{text}'")
    return tuple(t for t in REGISTRY if t in chosen)


def module_target(module: Operation) -> TargetInfo:
    """The module's own target: `pto.target_arch`, or an A5 `pto.device-spec`; else a2a3.

    As in PTOAS, an unknown `pto.target_arch` value means a2a3, and names match
    case-insensitively."""
    if not isinstance(module, ModuleOp):
        module = module.get_toplevel_object()
    arch = module.attributes.get("pto.target_arch")
    if isinstance(arch, StringAttr):
        return SPELLINGS.get(arch.data.lower(), DEFAULT)
    spec = module.attributes.get("pto.device-spec")
    if isinstance(spec, StringAttr):
        for target in REGISTRY:
            if target.device_spec_prefixes and spec.data.startswith(target.device_spec_prefixes):
                return target
    return DEFAULT


def resolve(option: str | TargetInfo | None, cli_flag: str | None, module: Operation) -> TargetInfo:
    """The target a pass, CLI or API call runs for: its own option, else the command
    line's flag, else the module's attribute, else a2a3."""
    for given in (option, cli_flag):
        if given is not None:
            return get(given)
    return module_target(module)


__all__ = [
    "REGISTRY", "DEFAULT", "TargetInfo", "UnknownTarget", "get", "help_text", "module_target", "names", "parse_list",
    "resolve",
]
