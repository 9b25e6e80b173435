"""
C++ emission: a DPS kernel written against the pto-isa built-in API
(`#include <pto/pto-inst.hpp>`), as emitter.py describes; sync.py places the pipe flags.
"""

from backends.cpp.emitter import emit_cpp

__all__ = ["emit_cpp"]
