"""
xDSL's interpreter module, imported without running a program. At import it asks
`platform.architecture()` for the host's pointer width, and CPython answers that by running
the `file` program found on PATH; the pointer size answers it here. Import this module
before anything that imports `xdsl.interpreter` (a no-op once that is imported).
"""

import platform
import struct


def _pointer_width(*_: object, **__: object) -> tuple[str, str]:
    return f"{struct.calcsize('P') * 8}bit", ""


_architecture = platform.architecture
platform.architecture = _pointer_width
try:
    import xdsl.interpreter  # noqa: F401
finally:
    platform.architecture = _architecture
