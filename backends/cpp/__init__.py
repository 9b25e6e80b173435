"""
C++ emission: a DPS kernel written against the pto-isa built-in API
(`#include <pto/pto-inst.hpp>`), as emitter.py describes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from backends.cpp.emitter import emit_cpp

__all__ = ["emit_cpp"]


def __getattr__(name: str):
    """`emit_cpp` is imported on first use: `pto-opt` imports the pass class of this package
    for every run, and most runs never emit C++."""
    if name == "emit_cpp":
        from backends.cpp.emitter import emit_cpp

        return emit_cpp
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
