"""
Every kernel of tests/filecheck/verify that a target accepts also runs there (issue 30): the
lit tests check the verdicts only, and a kernel the verifier accepts but the interpreter
cannot run is a wrong answer of one of them. Arguments are zeros (every index in range); a
run may still stop at a located run-time fault of the kernel (a PtoError), never at an
internal error.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, ModuleOp
from xdsl.utils.exceptions import InterpretationError

import interpreter
import targets
from passes.verify_target import rejections
from pto_dialect import PtoError, parse
from pto_dialect.parser import decode_source, split_input
from pto_dialect.machine import RuntimeFault
from pto_dialect.types import PartitionTensorViewType, PtrType, TileTypeBase

VERIFY = Path(__file__).parent / "filecheck" / "verify"
POINTER_ELEMENTS = 1 << 16
"""Elements of the zero buffer given for a pointer argument (the kernels' views fit in it)."""


def chunks() -> list[tuple[str, str]]:
    """(`file:line`, text) of each chunk of the verify tests."""
    found = []
    for path in sorted(VERIFY.glob("*.pto")):
        for data, line_offset in split_input(path.read_bytes()):
            found.append((f"{path.name}:{line_offset + 1}", decode_source(data, str(path), line_offset)))
    return found


def zeros_for(arg_type) -> np.ndarray | np.generic | None:  # noqa: ANN001
    """Zeros for an argument of this type; None where its shape is dynamic (no array fits)."""
    if isinstance(arg_type, TileTypeBase | PartitionTensorViewType):
        shape = tuple(arg_type.shape)
        return None if DYNAMIC_INDEX in shape else np.zeros(shape, arg_type.element.numpy)
    if isinstance(arg_type, PtrType):
        return np.zeros(POINTER_ELEMENTS, arg_type.element.numpy)
    if isinstance(arg_type, IndexType):
        return np.int64(0)
    dtype = interpreter._scalar_dtype(arg_type)  # pyright: ignore[reportPrivateUsage]
    assert dtype is not None, arg_type
    return np.zeros((), dtype)[()]


CHUNKS = chunks()


@functools.cache
def parsed(where: str, text: str) -> ModuleOp | None:
    """The chunk parsed and verified once for all targets (each test runs a copy); None where
    the parser or the target-free verifier rejects it."""
    try:
        return parse(text, where)
    except PtoError:
        return None


@pytest.mark.parametrize("target", targets.names())
@pytest.mark.parametrize(("where", "text"), CHUNKS, ids=[where for where, _ in CHUNKS])
def test_an_accepted_kernel_runs(where: str, text: str, target: str) -> None:
    source = parsed(where, text)
    if source is None:
        return  # a chunk the parser or the target-free verifier rejects
    module = source.clone()
    info = targets.get(target)
    if rejections(module, info):
        return
    functions = [op for op in module.ops if isinstance(op, func.FuncOp) and op.body.blocks]
    for function in functions:
        args = [zeros_for(t) for t in function.function_type.inputs]
        given = [a for a in args if a is not None]
        if len(given) < len(args):
            continue  # a dynamically shaped argument: run by the interpreter tests with shapes
        try:
            interpreter.run(module, target, given, entry=function.sym_name.data)
        except PtoError as e:
            assert ": error: " in e.text and not internal(e), e.text


def internal(error: PtoError) -> bool:
    """Whether a located error stands for a failure of ours (an exception of another kind
    under it) rather than a fault of the kernel."""
    cause = error.__cause__
    return cause is not None and not isinstance(cause, PtoError | RuntimeFault | InterpretationError)
