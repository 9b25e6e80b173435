"""`pto-emit-cpp`: the module as pto-isa C++ (backends/cpp)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass


@dataclass(frozen=True)
class EmitCppPass(ModulePass):
    """
    Print a DPS kernel as pto-isa C++ instead of its IR.

    Check that every kernel can be written as pto-isa C++, failing located at the first op
    that cannot. A kernel without sync ops of its own is written with what pto-insert-sync
    gives it for the target. The IR is left as it is; when this pass ends the pipeline,
    `pto-opt` prints the C++ instead of the IR (as `--to=cpp` does). Option: target.
    """

    name = "pto-emit-cpp"

    target: str | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from backends.cpp.emitter import emit_cpp  # pto-opt imports this class for every run

        emit_cpp(op, self.target)
