"""
Back-ends: consumers of verified, planned or lowered IR that write it out in
another language (`cpp/`: pto-isa C++ with its pipe synchronisation).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.passes import ModulePass


def get_backend_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """The back-ends' passes (beside passes.get_all_passes()), as lazy loaders."""

    def emit_cpp():
        from backends.cpp.emit_pass import EmitCppPass

        return EmitCppPass

    return {"pto-emit-cpp": emit_cpp}
