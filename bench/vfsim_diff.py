"""
`pto-opt --estimate=json --target a5` against pto-isa's own a5 cost model, VfSim (issue 28's
differential test, the a5 counterpart of bench/costmodel_diff.py; docs/cost.md). Random kernels,
one function per case, each running one of the tile ops that cost model builds (the headers
a5/cce_costmodel/a5_vf_stub.hpp includes: the binary TADD TSUB TMUL TDIV TMAX TMIN TAND and the
tile-scalar TADDS TSUBS TMULS TMINS TSHLS TSHRS); each batch is estimated by this tree's pto-opt
and emitted as C++ (`--to=cpp`), which clang builds against the cost model of a pto-isa checkout
as its tests/costmodel/st_a5 build does (-D__COSTMODEL -D__NPU_ARCH__=3101, -O0, the LLVM pass
a5/PtoLoopTracePass.cpp recovering each vector function's loops, VfSim linked), with a driver
that calls each function and prints the cycles the cost model's trace records for each PTO
instruction. The two are compared instruction by instruction.

    .venv/bin/python bench/vfsim_diff.py --pto-isa PATH [--llvm-config PATH] [--work DIR]
        [--n 260] [--seed 5] [--ops tadd,tdiv,...] [--jobs 2] [--batch 26]

PATH is a pto-isa checkout (`git archive HEAD | tar -x -C PATH`), only read: its include/ is
copied into the work dir (a temporary one by default, kept when not all agree) and completed as
bench/costmodel_diff.py completes it, plus what the a5 headers use and the a5 stubs lack
(A5_MISSING). Needs clang++ and llvm-config of one LLVM (15 or later: the headers use _Float16,
which clang 14 does not have on x86; Debian's clang-19 and llvm-19-dev do). Prints agree/disagree
per op, element type and loop form and writes WORK/disagreements.txt (each with its kernel); exit
0 only when all agree. Not part of the test suite: tests/test_vfsim_diff.py checks only that
pto-opt accepts the kernels it generates.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from costmodel_diff import BLOCK, SIZES, Kernel, align, estimates_by_function, prepare_cost_model, pto_opt, tile  # noqa: E402

UB_BYTES = 253952
"""a5's UB (targets/a5: 248 KiB)."""
REGISTER = 256
"""Bytes of one vector register: a tile op's loop takes one a register."""

BINARY = ["tadd", "tsub", "tmul", "tdiv", "tmax", "tmin", "tand"]
TILE_SCALAR = ["tadds", "tsubs", "tmuls", "tmins", "tshls", "tshrs"]
SIMULATED = {"f32", "f16", "bf16"}
"""The element types VfSim has rows for: its params' fp32 and fp16 (bf16's registers recorded as
fp16: targets/a5/costs.py)."""
FLOATS = ["f32", "f32", "f16", "f16"]
"""Drawn most often."""
TYPES = {
    # the others take the cost model's per-instruction table; no 64-bit types: the a5 headers'
    # Int64 paths call intrinsics the cost model's stubs do not have (A5_MISSING: none recorded)
    "tadd": FLOATS + ["i32", "i16", "i8", "bf16"],
    "tsub": FLOATS + ["i32", "i16", "bf16"],
    "tmul": FLOATS + ["i32", "i16", "bf16"],
    "tdiv": FLOATS + ["i32", "i16"],
    "tmax": FLOATS + ["i32", "i16", "bf16"],
    "tmin": FLOATS + ["i32", "i16", "bf16"],
    "tand": ["i32", "i16", "i8"],
    "tadds": FLOATS + ["i32", "i16", "bf16"],
    "tsubs": FLOATS + ["i32", "i16"],
    "tmuls": FLOATS + ["i32", "i16", "bf16"],
    "tmins": FLOATS + ["i32", "i16", "bf16"],
    "tshls": ["i32", "i16", "i8"],
    "tshrs": ["i32", "i16", "i8"],
}

# What a5/VfSim's tests build it with (cmake/a5_vf_mock.cmake, tests/costmodel/st_a5/CMakeLists.txt)
VFSIM_SOURCES = [
    "VfInfo", "ParamDB", "ISATraits", "ProgramAnalysis", "ProgramCanonicalization", "ProgramVregLiveRangeNormalization",
    "ProgramFlatten", "IFU", "IDU", "OOO", "SimulatorRunner", "VfSimCostModel",
]  # fmt: skip
VFSIM_DIR = "pto/costmodel/a5/VfSim"
PASS_SOURCE = "pto/costmodel/a5/PtoLoopTracePass.cpp"
A5_STUBS = "pto/costmodel/a5/cce_costmodel/a5_vf_stub.hpp"

A5_MISSING_CALLS = [
    "vaddc", "vaddcs", "vsubc", "vsubcs", "vmull", "vcmp_ge", "psel", "pxor", "vbr", "vintlv", "vdintlv", "psts",
    "plds", "ppack", "punpack",
]  # fmt: skip
"""Intrinsics the a5 headers at pto-isa 3186c381 call (Int64Common.hpp, Int64Binary.hpp,
Int64Div.hpp: the 64-bit paths, instantiated for no type drawn here) and the a5 stubs do not
declare: declared doing nothing, unless the stubs have them."""
A5_MISSING_CONSTANTS = ["INTLV_B32", "DINTLV_B32", "PART_EVEN", "PART_ODD", "RS_DISABLE", "ROUND_Z", "ROUND_R", "LOWER", "US"]
"""The mode constants those paths pass."""


def prepare_a5(include: Path, work: Path) -> Path:
    """Completes the copy for a5; returns the header the kernels include first."""
    stubs = (include / A5_STUBS).read_text()
    calls = [n for n in A5_MISSING_CALLS if not re.search(rf"\b{n}\s*\(", stubs)]
    constants = [n for n in A5_MISSING_CONSTANTS if not re.search(rf"\b{n}\b", stubs)]
    hifloat8 = include / "pto/cpu/Hifloat8.hpp"
    if "struct hifloat8_t {};" in stubs and hifloat8.exists() and "struct hifloat8_t {" in hifloat8.read_text():
        print(f"dropping from the copy: {A5_STUBS}'s empty hifloat8_t, defined by pto/cpu/Hifloat8.hpp")
        (include / A5_STUBS).write_text(stubs.replace("struct hifloat8_t {};", ""))
    if calls or constants:
        print(f"adding to the copy: {', '.join(calls + constants)} (called by the a5 Int64 headers, not in the stubs)")
    prelude = work / "a5_prelude.hpp"
    prelude.write_text(
        "// What the a5 headers use and the a5 stubs lack (bench/vfsim_diff.py, A5_MISSING_*)\n#pragma once\n"
        + "".join(f"template <class... A> inline void {n}(A&&...) {{}}\n" for n in calls)
        + "".join(f"inline constexpr int {n} = 0;\n" for n in constants)
        + "template <class T, class U> inline T atomicAdd(T*, U) { return T{}; }  // common/syncall_soft.hpp\n"
    )
    subprocess.run([sys.executable, str(include / VFSIM_DIR / "gen_vfsim_params_header.py")], check=True)
    return prelude


def llvm_tools(llvm_config: str | None) -> tuple[Path, Path]:
    """(llvm-config, the clang++ of its LLVM): the one named, else the newest installed."""
    if llvm_config is None:
        found = sorted(Path("/usr/lib").glob("llvm-*/bin/llvm-config"), key=lambda p: int(p.parts[-3].split("-")[1]))
        if not found:
            sys.exit("error: no llvm-config (/usr/lib/llvm-*/bin); give --llvm-config")
        llvm_config = str(found[-1])
    config = Path(llvm_config)
    bindir = Path(subprocess.run([config, "--bindir"], capture_output=True, text=True, check=True).stdout.strip())
    clang = bindir / "clang++"
    if not clang.exists():
        sys.exit(f"error: no clang++ beside {config} (in {bindir})")
    return config, clang


def build_tools(include: Path, work: Path, config: Path, clang: Path) -> tuple[Path, Path]:
    """The loop pass (a plugin of clang's LLVM) and VfSim as a static library."""
    plugin, library = work / "PtoLoopTracePass.so", work / "libvfsim.a"
    llvm_flags = subprocess.run([config, "--cxxflags"], capture_output=True, text=True, check=True).stdout.split()
    # C++17: LLVM's headers do not compile as C++23 against libstdc++ 12 (unique_ptr of an incomplete APFloat)
    subprocess.run([clang, "-std=c++17", *llvm_flags, "-fPIC", "-shared", "-O1", include / PASS_SOURCE, "-o", plugin], check=True)
    objects = []
    for name in VFSIM_SOURCES:
        obj = work / f"vfsim_{name}.o"
        source = include / VFSIM_DIR / f"{name}.cpp"
        root = f'-DPTO_VFSIM_SOURCE_ROOT="{include / VFSIM_DIR}"'
        subprocess.run([clang, "-std=c++20", "-O1", root, f"-I{include}", "-c", source, "-o", obj], check=True)
        objects.append(obj)
    subprocess.run(["ar", "rcs", library, *objects], check=True)
    return plugin, library


def compile_flags(include: Path, work: Path, prelude: Path, plugin: Path) -> list[str]:
    """tests/costmodel/st_a5's build, without gtest."""
    return [
        "-std=c++2b", "-O0", "-g", f"-fpass-plugin={plugin}", "-D__COSTMODEL", "-D__NPU_ARCH__=3101",
        "-DPTO_COMM_NOT_SUPPORTED", "-Wno-macro-redefined", "-Wno-ignored-attributes", "-include", "stdint.h",
        "-include", "stddef.h", "-include", str(work / "prelude.hpp"), "-include", str(prelude), f"-I{include}",
    ]  # fmt: skip


DRIVER = r"""
#include <cstdio>

void run_case(const char* name, void (*kernel)())
{
    pto::mocker::ResetTrace();
    kernel();
    for (const auto& record : pto::mocker::GetTrace().executed_pto) {
        if (record.name != "TASSIGN") {
            std::printf("%s %s %llu\n", name, record.name.c_str(), (unsigned long long)record.total_cycles);
        }
    }
}

int main()
{
@CALLS@
}
"""


# ---------------------------------------------------------------------------
# The kernels


def tile_op(rng, op: str) -> Kernel:
    """One tile op on tiles of one type: a valid region filling its rows (one loop) or not (a
    loop over rows), at times one row."""
    dtype = rng.choice(TYPES[op])
    size = SIZES[dtype]
    while True:
        shape = rng.choice(["full", "full", "narrow", "row"])
        rows = 1 if shape == "row" else rng.randint(1, 64)
        cols = align(rng.randint(1, 2048 // size), BLOCK // size)
        valid = (rows, cols) if shape == "full" else (rng.randint(1, rows), rng.randint(1, cols))
        if 3 * rows * cols * size <= UB_BYTES:
            break
    contiguous = valid[1] == cols or rows == 1
    registers = REGISTER // size
    loop = (f"loop {-(-valid[0] * valid[1] // registers)}" if contiguous
            else f"loop {valid[0]} x loop {-(-valid[1] // registers)}")  # fmt: skip
    tile_type = tile("vec", rows, cols, dtype, valid)
    k = Kernel([], [op.upper()], f"{op} {dtype} {'one loop' if contiguous else 'rows of a loop'}", f"{tile_type}: {loop}")
    for name in ("a", "b", "d"):
        k.alloc(name, tile_type)
    if op in BINARY:
        k.body.append(f"    pto.{op} ins(%a, %b : {tile_type}, {tile_type}) outs(%d : {tile_type})")
    else:
        value = rng.choice(["2.5", "-1.0", "0.5"]) if dtype.startswith(("f", "bf")) else str(rng.randint(0, 3))
        k.body.append(f"    %s = arith.constant {value} : {dtype}")
        k.body.append(f"    pto.{op} ins(%a, %s : {tile_type}, {dtype}) outs(%d : {tile_type})")
    return k


def generate(ops: list[str], n: int, seed: int) -> dict[str, Kernel]:
    """n cases named c0000..., the ops taken in turn."""
    import random

    rng = random.Random(seed)
    return {f"c{i:04d}": tile_op(rng, ops[i % len(ops)]) for i in range(n)}


def batch_module(kernels: list[Kernel], names: list[str]) -> str:
    functions = "\n".join(k.text(n) for k, n in zip(kernels, names))
    return f'module attributes {{pto.target_arch = "a5"}} {{\n{functions}\n}}\n'


def run_batch(kernels: list[Kernel], names: list[str], batch: Path, clang: Path, flags: list[str], library: Path):
    """name -> (cost model [(INSTRUCTION, cycles)], estimate [(INSTRUCTION, cycles, model)]),
    or the error that stopped the batch."""
    batch.mkdir(parents=True, exist_ok=True)
    module = batch_module(kernels, names)
    source = batch / "batch.pto"
    source.write_text(module)
    estimated = pto_opt(str(source), "--target", "a5", "--estimate=json")
    if estimated.returncode:
        return f"pto-opt --estimate=json: {estimated.stderr}"
    (batch / "estimate.json").write_text(estimated.stdout)
    emitted = pto_opt(str(source), "--target", "a5", "-p", "pto-plan-memory", "--to=cpp")
    if emitted.returncode:
        return f"pto-opt --to=cpp: {emitted.stderr}"
    calls = "\n".join(f'    run_case("{n}", {n});' for n in names)
    (batch / "driver.cpp").write_text(emitted.stdout + DRIVER.replace("@CALLS@", calls))
    built = subprocess.run([clang, *flags, batch / "driver.cpp", library, "-lpthread", "-o", batch / "driver"],
                           capture_output=True, text=True, check=False)  # fmt: skip
    if built.returncode:
        return f"clang++: {built.stderr[-4000:]}"
    ran = subprocess.run([str(batch / "driver")], capture_output=True, text=True, check=False)
    if ran.returncode:
        return f"driver exit {ran.returncode}: {ran.stderr[-2000:]}"
    (batch / "costmodel.txt").write_text(ran.stdout)
    model: dict[str, list] = {n: [] for n in names}
    for line in ran.stdout.splitlines():
        name, instruction, cycles = line.split()
        model[name].append((instruction, int(cycles)))
    ours = estimates_by_function(json.loads(estimated.stdout), module, names)
    return {n: (model[n], ours[n]) for n in names}


def compare(kernels: dict[str, Kernel], results: dict[str, tuple[list, list]]):
    """label -> [agree, disagree], and the disagreements with their kernels."""
    tally: dict[str, list[int]] = {}
    disagreements = []
    for name, (model, ours) in results.items():
        k = kernels[name]
        instruction = k.instructions[0]
        theirs = model[0] if model else None
        mine = ours[0] if ours else None
        agree = theirs is not None and mine is not None and theirs[0] == mine[0] == instruction and theirs[1] == mine[1]
        tally.setdefault(k.label, [0, 0])[0 if agree else 1] += 1
        if not agree:
            disagreements.append(f"{name} {instruction}: cost model {theirs}, estimate {mine}; {k.details}\n{k.text(name)}\n")
    return tally, disagreements


def options(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pto-isa", type=Path, required=True, help="a pto-isa checkout (only read)")
    p.add_argument("--llvm-config", help="the LLVM to build the pass and kernels with (default: the newest in /usr/lib)")
    p.add_argument("--work", type=Path, help="the work dir (default: a temporary one, kept when not all agree)")
    p.add_argument("--n", type=int, default=260, help="cases (default 260)")
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--ops", default=",".join(TYPES), help=f"of {', '.join(TYPES)} (default: all)")
    p.add_argument("--jobs", type=int, default=2, help="batches built at once")
    p.add_argument("--batch", type=int, default=26, help="cases per C++ build")
    args = p.parse_args(argv)
    if min(args.n, args.jobs, args.batch) < 1:
        p.error("--n, --jobs and --batch take a positive count")
    unknown = [o for o in args.ops.split(",") if o not in TYPES]
    if unknown:
        p.error(f"unknown ops {', '.join(unknown)}; known: {', '.join(TYPES)}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = options(argv)
    if not (args.pto_isa / "include/pto/costmodel/a5/VfSim").is_dir():
        sys.exit(f"error: {args.pto_isa} is not a pto-isa checkout with an a5 cost model (no include/pto/costmodel/a5/VfSim)")
    config, clang = llvm_tools(args.llvm_config)
    work = (args.work or Path(tempfile.mkdtemp(prefix="vfsim_diff-"))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    include = prepare_cost_model(args.pto_isa.resolve(), work)
    prelude = prepare_a5(include, work)
    plugin, library = build_tools(include, work, config, clang)
    flags = compile_flags(include, work, prelude, plugin)
    kernels = generate(args.ops.split(","), args.n, args.seed)
    names = list(kernels)
    batches = [names[b : b + args.batch] for b in range(0, len(names), args.batch)]

    def run(b: int):
        return run_batch([kernels[n] for n in batches[b]], batches[b], work / f"batch{b:03d}", clang, flags, library)

    with ThreadPoolExecutor(args.jobs) as pool:
        outcomes = list(pool.map(run, range(len(batches))))
    results = {n: r[n] for r in outcomes if isinstance(r, dict) for n in r}
    errors = [f"batch{b:03d} ({batches[b][0]}..{batches[b][-1]}): {r}" for b, r in enumerate(outcomes) if isinstance(r, str)]
    tally, disagreements = compare(kernels, results)
    (work / "disagreements.txt").write_text("\n".join(disagreements))
    (work / "errors.txt").write_text("\n".join(errors))

    print(f"built with {clang} ({config})")
    print(f"{'op, element type, loop form':40} {'agree':>6} {'disagree':>8}")
    for label, (agree, disagree) in sorted(tally.items()):
        print(f"{label:40} {agree:6} {disagree:8}")
    by_op: dict[str, list[int]] = {}
    for label, (agree, disagree) in tally.items():
        op, dtype, _ = label.split(" ", 2)
        row = by_op.setdefault(op, [0, 0, 0])  # agree, compared, of them in a type VfSim simulates
        row[0] += agree
        row[1] += agree + disagree
        row[2] += (agree + disagree) * (dtype in SIMULATED)
    print("per op: agree of compared (in f32 / f16 / bf16, which VfSim simulates; the rest: its VecCycle table)")
    print(", ".join(f"{op.upper()} {a} of {n} ({v})" for op, (a, n, v) in sorted(by_op.items())))
    agreed = sum(a for a, _ in tally.values())
    compared = sum(a + d for a, d in tally.values())
    print(f"agree {agreed} of {compared} instructions ({len(results)} cases); cases in batches that failed: {len(kernels) - len(results)}")
    for error in errors:
        print(error, file=sys.stderr)
    if agreed == compared and not errors:
        if args.work is None:
            shutil.rmtree(work)
        return 0
    print(f"disagreements and errors: {work / 'disagreements.txt'}, {work / 'errors.txt'}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
