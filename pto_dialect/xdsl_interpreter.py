"""
xDSL's interpreter modules, imported without running a program or every dialect's interpreter.
Import this module before anything that imports `xdsl.interpreter` or `xdsl.interpreters.*`
(a no-op once those are imported).

- At import `xdsl.interpreter` asks `platform.architecture()` for the host's pointer width, and
  CPython answers that by running the `file` program found on PATH; the pointer size answers it here.
- The package `xdsl.interpreters` imports, in its `__init__`, the interpreter of every xDSL
  dialect (RISC-V, linalg, ...: most of `pto-run`'s start-up); only func, arith and scf's are
  used here. The package is made importable without it: its `__init__` runs on the first
  access to a name it defines (`register_implementations`), so code needing it still gets it.
"""

import importlib.util
import platform
import struct
import sys

INTERPRETERS = "xdsl.interpreters"


def _pointer_width(*_: object, **__: object) -> tuple[str, str]:
    return f"{struct.calcsize('P') * 8}bit", ""


def _package_without_init(name: str) -> None:
    """Put package `name` in sys.modules with its submodule path but its `__init__` not run;
    the first missing attribute runs it."""
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.loader is not None
    package = importlib.util.module_from_spec(spec)
    loader = spec.loader

    def run_init(attribute: str) -> object:
        del package.__getattr__
        loader.exec_module(package)
        return getattr(package, attribute)

    package.__getattr__ = run_init  # pyright: ignore[reportAttributeAccessIssue]
    sys.modules[name] = package


if INTERPRETERS not in sys.modules:
    _package_without_init(INTERPRETERS)
_architecture = platform.architecture
platform.architecture = _pointer_width
try:
    import xdsl.interpreter  # noqa: F401
finally:
    platform.architecture = _architecture

