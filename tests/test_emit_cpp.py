"""
The C++ that `pto-opt --to=cpp` writes is well-formed C++: every kernel in the
repository (examples/, examples/ssa/, tests/filecheck/kernels/, tests/filecheck/emit_cpp/), made
ready for hardware as pto-pipeline would (SSA -> DPS, implicit tmps, addresses),
compiles with `g++ -std=c++17 -fsyntax-only` against tests/cpp_stub/pto/pto-inst.hpp,
which declares the pto-isa API the emitter uses with the spec's signatures (no
vendor headers). Skipped where g++ is not installed.
"""

import shutil
import subprocess
from pathlib import Path

import pytest

from passes.implicit_tmp import MaterializeImplicitTmpPass
from passes.plan_memory import PlanMemoryPass
from passes.ssa_to_dps import SsaToDpsPass
from pto_dialect import make_context, parse
from pto_dialect.instructions import FAMILIES
from backends.cpp import emit_cpp
from targets import module_target

ROOT = Path(__file__).resolve().parent.parent
STUB = ROOT / "tests" / "cpp_stub"


def is_ir(text: str) -> bool:
    """Not only comments (a lit test's RUN lines over other files, a `// -----` gap)."""
    return any(line.strip() and not line.lstrip().startswith("//") for line in text.splitlines())


KERNEL_FILES = sorted(
    path
    for pattern in ("examples/*.pto", "examples/ssa/*.pto", "tests/filecheck/kernels/*.pto", "tests/filecheck/emit_cpp/*.pto")
    for path in ROOT.glob(pattern)
    if not path.name.startswith("invalid") and is_ir(path.read_text())
)
GXX = shutil.which("g++")

pytestmark = pytest.mark.skipif(GXX is None, reason="g++ is not installed")


def emitted_kernels(path: Path) -> list[str]:
    """The C++ of each `// -----` chunk of the file that holds IR."""
    sources = []
    for chunk in path.read_text().split("// -----"):
        if not is_ir(chunk):
            continue
        module = parse(chunk, str(path))
        target = module_target(module).name
        ctx = make_context()
        for prepare in (SsaToDpsPass(), MaterializeImplicitTmpPass(target), PlanMemoryPass(target)):
            prepare.apply(ctx, module)
        sources.append(emit_cpp(module))
    return sources


def family_declarations() -> str:
    """Each family member's call (TADD, TROWSUM, ...), declared from the family rows: any
    operands, with or without a precision template argument (their argument orders are
    checked against pto-isa's own headers by the simulator differential, bench/simdiff)."""
    names = sorted({row.cpp_name for family in FAMILIES for row in family.rows})
    lines = ["#include <pto/pto-inst.hpp>", "namespace pto {"]
    for name in names:
        lines.append(f"template <typename... Operands> RecordEvent {name}(Operands&&... operands);")
        lines.append(f"template <auto Algorithm, typename... Operands> RecordEvent {name}(Operands&&... operands);")
    return "\n".join([*lines, "}  // namespace pto", ""])


def compile_cpp(sources: list[str], directory: Path) -> subprocess.CompletedProcess[str]:
    families = directory / "families.hpp"
    families.write_text(family_declarations())
    files = []
    for i, source in enumerate(sources):
        files.append(directory / f"kernel{i}.cpp")
        files[-1].write_text(source)
    command = [GXX, "-std=c++17", "-fsyntax-only", "-Wall", "-Werror", f"-I{STUB}", "-include", str(families),
               "-D__DAV_VEC__", "-D__DAV_CUBE__"]
    return subprocess.run([*command, *map(str, files)], check=False, capture_output=True, text=True)  # pyright: ignore[reportArgumentType]


@pytest.mark.parametrize("path", KERNEL_FILES, ids=[str(p.relative_to(ROOT)) for p in KERNEL_FILES])
def test_emitted_kernels_compile(path: Path, tmp_path: Path):
    sources = emitted_kernels(path)
    assert sources, f"{path} holds no kernel"
    result = compile_cpp(sources, tmp_path)
    assert result.returncode == 0, result.stderr


def test_stub_checks_the_call_signatures(tmp_path: Path):
    """PTOAS's compare-form argument order (k, tmp, cdst) is not pto-isa's (k, cdst, tmp):
    the stub rejects it, so the compile test would catch a wrong call."""
    (source,) = emitted_kernels(ROOT / "examples" / "tgather_forms.pto")
    right = "(hitt, blk, half_1, cntt, ctmp, 100);"
    assert right in source
    result = compile_cpp([source.replace(right, "(hitt, blk, half_1, ctmp, cntt, 100);")], tmp_path)
    assert result.returncode != 0 and "TGATHER" in result.stderr


def test_stub_rejects_an_nd_tensor_into_a_col_major_tile(tmp_path: Path):
    """The [R, 1] index column of a col-major tile is a `Layout::DN` GlobalTensor (pto-isa's MGATHER.md's
    example; pto-isa's TLOAD picks its path from that layout): the stub rejects the ND spelling."""
    (source,) = emitted_kernels(ROOT / "tests" / "filecheck" / "emit_cpp" / "column_index.pto")
    right = "Stride<8, 8, 8, 1, 1>, Layout::DN> idxGM(idxPtr);"
    assert right in source
    result = compile_cpp([source.replace(right, "Stride<8, 8, 8, 1, 1>> idxGM(idxPtr);")], tmp_path)
    assert result.returncode != 0 and "TLOAD" in result.stderr
