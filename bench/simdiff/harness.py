"""
Random kernels run on this project's cpu interpreter and on pto-isa's CPU simulator (its C++
headers, include/pto/cpu, built with g++ or --cxx), every GM argument compared bit for bit afterwards.

    .venv/bin/python -m bench.simdiff --pto-isa PATH [--forms a,b] [--n 50] [--seed 1]
        [--dtype bf16] [--cxx clang++-19] [--jobs 2] [--batch 40] [--work DIR] [--keep]

PATH holds pto-isa's include/ (`git -C REPO archive HEAD include | tar -x -C PATH`); it is only
read. The forms (bench/simdiff/generators/, every one by default) each draw `--n` kernels (with
`--dtype`, `--n` kernels holding that element type). A kernel the project rejects on cpu is
skipped and counted; so is one holding bf16 where the compiler has no std::bfloat16_t (g++ 12:
`--cxx clang++` builds it through bench/simdiff/bfloat16/stdfloat). The others run on `interpreter.run`
(target cpu); their C++ (`pto-opt --target cpu --to=cpp`, tiles placed by the passes the
interpreter's pipeline runs) is built in batches, one translation unit each, with a driver that
runs each kernel in a child process on the same inputs (read from files) and writes every GM
argument back. Each argument is then compared byte for byte (NaN payloads included). A kernel
the simulator aborts (an assert) or crashes on agrees only where the interpreter stopped with a
located run-time error.

Prints agree / disagree per instruction and form (and of the disagreements, those whose every
differing element is a NaN on both sides: `NaN bits`); each disagreement's kernel, inputs, both
outputs and first differing element go to WORK/disagreements/NAME/ (and WORK/disagreements.txt).
Exit 0 only when every compared kernel agrees and nothing failed to build or run.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

import interpreter
import pto_dialect
from bench.simdiff.generators import discover
from bench.simdiff.kernel import Case, numpy_dtype
from pto_dialect.diagnostics import PtoError
from pto_dialect.dtypes import FLOAT_DTYPE_NAMES

ROOT = Path(__file__).resolve().parents[2]
TARGET = "cpu"
EMIT_PASSES = "pto-materialize-implicit-tmp,pto-plan-memory"
"""The passes of the interpreter's pipeline (interpreter.lower_for) that change what the C++
holds: the tmp a C++ call takes, the tiles' addresses (the same plan on both sides)."""
LOCATED = re.compile(r"^\S[^\n]*:\d+:\d+: error: ", re.MULTILINE)
CRASHED = re.compile(r"op failed: \w+: |the interpreter crashed")
"""A located error that is a Python exception escaping an op's implementation (interpreter/
state.py, located_failure), not a fault the interpreter detects: never agreement."""
CASE_TIMEOUT_SECONDS = 120
GUARD_BYTES = 4096
"""Bytes before and after each GM argument the driver fills and checks afterwards: a write
outside an argument is a simulator failure, not a silent corruption."""


# ---------------------------------------------------------------------------
# The simulator's build


@dataclass(frozen=True)
class Patch:
    """An edit of one header, laid over the checkout (WORK/overlay, first on the include path)
    when the compiler needs it."""

    path: str
    old: str
    new: str
    why: str
    unless: str
    """A source the compiler builds only when it does not need the patch."""


PATCHES = [
    Patch(
        "pto/cpu/TReduceIdx.hpp",
        'static_assert(false, "Unsupported element cmp.");',
        'static_assert(sizeof(DType) == 0, "Unsupported element cmp.");',
        "g++ < 13 rejects static_assert(false) in a template never instantiated (P2593); the same check, made dependent",
        "template <typename T> void Unused() { static_assert(false, \"\"); }\n",
    ),
    Patch(
        "pto/cpu/TCvt.hpp",
        "    } else {\n        return static_cast<D>(val);\n    }\n}",
        "    } else if constexpr (sizeof(S) == 2 && sizeof(D) == 2 && is_float_like_v<S> && is_float_like_v<D> && !std::is_same_v<S, D>) {\n"
        "        return static_cast<D>(static_cast<float>(val));\n    } else {\n        return static_cast<D>(val);\n    }\n}",
        "clang refuses a cast between _Float16 and __bf16, which g++ takes; through float, which holds every value of "
        "either, it rounds once as g++'s direct conversion does",
        "int main() { return static_cast<int>(static_cast<__bf16>(static_cast<_Float16>(1.0f))); }\n",
    ),
]

BF16_SHIM = Path(__file__).resolve().parent / "bfloat16"
"""Where `stdfloat` (the std::bfloat16_t shim, over the compiler's __bf16) lies."""
BF16_PROBE = """#include <cstring>
int main(int argc, char**) { std::bfloat16_t x = std::bfloat16_t(argc * 1.5f); x = x * x; return std::isnan(x) ? 1 : 0; }
"""


@dataclass(frozen=True)
class Toolchain:
    """The C++ compiler that builds the simulator (`--cxx`), and how it gets C++23's
    std::bfloat16_t: `bf16` is "native" (its library declares it), "shim" (clang's __bf16 with
    bench/simdiff/bfloat16/stdfloat, what libstdc++ 13 adds, and compiler-rt's conversions) or
    None (the simulator's bfloat16_t would be a _Float16 placeholder: bf16 kernels skipped)."""

    command: str
    clang: bool
    version: str
    bf16: str | None = None
    runtime: tuple[str, ...] = ()
    """What the link needs besides the default libraries (compiler-rt's bf16 conversions)."""

    @classmethod
    def find(cls, command: str) -> Toolchain:
        macros = cls.preprocess(command)
        clang = "__clang__" in macros
        version = subprocess.run([command, "-dumpversion"], capture_output=True, text=True, check=True).stdout.strip()
        found = cls(command, clang, version)
        if "__STDCPP_BFLOAT16_T__" in macros:
            return replace(found, bf16="native")
        if clang:
            builtins = subprocess.run([command, "-rtlib=compiler-rt", "-print-libgcc-file-name"], capture_output=True, text=True, check=False)
            shimmed = replace(found, bf16="shim", runtime=(builtins.stdout.strip(),))
            if shimmed.links(BF16_PROBE):
                return shimmed
        return found

    @staticmethod
    def preprocess(command: str) -> str:
        probe = subprocess.run([command, "-std=c++23", "-x", "c++", "-E", "-dM", "-"], input="#include <cstdint>\n", capture_output=True, text=True, check=False)
        return probe.stdout

    @property
    def flags(self) -> list[str]:
        """What the compiler needs for the simulator to compute as g++ -std=gnu++23 (pto-isa's CMake
        build) does: clang evaluates _Float16 and __bf16 expressions in float unless told otherwise,
        g++ (-fexcess-precision=fast, the gnu++ default) rounds after every operation."""
        flags = ["-Xclang", "-ffloat16-excess-precision=none", "-Xclang", "-fbfloat16-excess-precision=none"] if self.clang else []
        if self.clang:  # clang 19's FastISel (-O0) converts a __bf16 one call returns and the next takes as if it were a float
            flags += ["-mllvm", "-fast-isel=false"]
        if self.bf16 == "shim":
            flags += ["-D__STDCPP_BFLOAT16_T__=1", f"-I{BF16_SHIM}", "-include", "stdfloat"]
        return flags

    def compiles(self, source: str) -> bool:
        probe = subprocess.run([self.command, "-std=c++23", *self.flags, "-fsyntax-only", "-x", "c++", "-"], input=source, capture_output=True, text=True, check=False)
        return probe.returncode == 0

    def links(self, source: str) -> bool:
        with tempfile.TemporaryDirectory() as scratch:
            built = subprocess.run([self.command, "-std=c++23", *self.flags, "-x", "c++", "-", "-x", "none", *self.runtime, "-o", f"{scratch}/probe"],
                                   input=source, capture_output=True, text=True, check=False)  # fmt: skip
            return built.returncode == 0 and subprocess.run([f"{scratch}/probe"], check=False).returncode == 0

    def __str__(self) -> str:
        bf16 = {"native": "std::bfloat16_t", "shim": "bf16 through bench/simdiff/bfloat16/stdfloat", None: "no bf16"}[self.bf16]
        return f"{Path(self.command).name} {self.version}, {bf16}"


FLOAT16_LIMITS = """// std::numeric_limits<_Float16> and std::is_floating_point<_Float16>, which newer libstdc++ declares
// with C++23's std::float16_t and 12 lacks (there the primary template answers has_infinity = false,
// max() = 0).
#pragma once
#include <cstdint>
#include <limits>
#include <type_traits>
namespace std {
template <>
struct numeric_limits<_Float16> {
    static constexpr _Float16 Bits(std::uint16_t bits) noexcept { return __builtin_bit_cast(_Float16, bits); }
    static constexpr bool is_specialized = true;
    static constexpr _Float16 min() noexcept { return Bits(0x0400); }
    static constexpr _Float16 max() noexcept { return Bits(0x7bff); }
    static constexpr _Float16 lowest() noexcept { return Bits(0xfbff); }
    static constexpr int digits = 11;
    static constexpr int digits10 = 3;
    static constexpr int max_digits10 = 5;
    static constexpr bool is_signed = true;
    static constexpr bool is_integer = false;
    static constexpr bool is_exact = false;
    static constexpr int radix = 2;
    static constexpr _Float16 epsilon() noexcept { return Bits(0x1400); }
    static constexpr _Float16 round_error() noexcept { return Bits(0x3800); }
    static constexpr int min_exponent = -13;
    static constexpr int min_exponent10 = -4;
    static constexpr int max_exponent = 16;
    static constexpr int max_exponent10 = 4;
    static constexpr bool has_infinity = true;
    static constexpr bool has_quiet_NaN = true;
    static constexpr bool has_signaling_NaN = true;
    static constexpr float_denorm_style has_denorm = denorm_present;
    static constexpr bool has_denorm_loss = false;
    static constexpr _Float16 infinity() noexcept { return Bits(0x7c00); }
    static constexpr _Float16 quiet_NaN() noexcept { return Bits(0x7e00); }
    static constexpr _Float16 signaling_NaN() noexcept { return Bits(0x7d00); }
    static constexpr _Float16 denorm_min() noexcept { return Bits(0x0001); }
    static constexpr bool is_iec559 = true;
    static constexpr bool is_bounded = true;
    static constexpr bool is_modulo = false;
    static constexpr bool traps = false;
    static constexpr bool tinyness_before = false;
    static constexpr float_round_style round_style = round_to_nearest;
};
// libstdc++ 13 counts std::float16_t (_Float16) a floating-point type (TRESHAPE's static_assert asks)
template <>
struct is_floating_point<_Float16> : true_type {};
}  // namespace std
"""
HAS_FLOAT16_LIMITS = "#include <limits>\nstatic_assert(std::numeric_limits<_Float16>::has_infinity);\n"


def prepare_overlay(include: Path, work: Path, cxx: Toolchain) -> tuple[Path, list[Path]]:
    """WORK/overlay/include: the patched copies of the headers that need a patch; and the
    headers to include before any other (what the standard library lacks)."""
    overlay = work / "overlay" / "include"
    shutil.rmtree(overlay.parent, ignore_errors=True)
    overlay.mkdir(parents=True)
    for patch in PATCHES:
        source = include / patch.path
        text = source.read_text()
        if patch.old in text and not cxx.compiles(patch.unless):
            target = overlay / patch.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text.replace(patch.old, patch.new))
            print(f"patched (WORK/overlay) {patch.path}: {patch.why}")
    preludes = []
    if not cxx.compiles(HAS_FLOAT16_LIMITS):
        if not cxx.compiles(FLOAT16_LIMITS + HAS_FLOAT16_LIMITS):
            sys.exit(f"error: {cxx.command} has no std::numeric_limits<_Float16> and does not compile the one bench/simdiff supplies")
        preludes.append(overlay.parent / "float16_limits.hpp")
        preludes[-1].write_text(FLOAT16_LIMITS)
        print(
            "added (WORK/overlay/float16_limits.hpp) std::numeric_limits<_Float16>, which this libstdc++ lacks and newer ones "
            "have with C++23's std::float16_t: without it the simulator's f16 infinity(), max(), lowest() are 0 (TLOAD's pad max / min, ...)"
        )
    return overlay, preludes


def compile_flags(include: Path, overlay: tuple[Path, list[Path]], cxx: Toolchain) -> list[str]:
    """pto-isa's CPU simulator build (tests/cpu/st/CMakeLists.txt: -D__CPU_SIM, C++23 (what it
    picks from g++ 14 on; 20 before), stdint.h and stddef.h included first, include/ and
    include/common on the path, no optimisation by default), BF16 on when the compiler has
    std::bfloat16_t (its PTO_CPU_SIM_ENABLE_BF16); the overlay's preludes and patched headers first;
    what the toolchain needs (its bf16 shim, its runtime) last."""
    patched, preludes = overlay
    flags = [
        "-std=c++23", "-O0", "-D__CPU_SIM", "-Wno-ignored-attributes", "-include", "stdint.h", "-include", "stddef.h",
        *cxx.flags, *(f for p in preludes for f in ("-include", str(p))), f"-I{patched}", f"-I{include}", f"-I{include / 'common'}",
    ]  # fmt: skip
    if cxx.bf16:
        flags += ["-DPTO_CPU_SIM_ENABLE_BF16=1", "-DCPU_SIM_BFLOAT_ENABLED=1"]
    return flags


DRIVER = r"""
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>
#include <sys/wait.h>
#include <unistd.h>

namespace simdiff {
constexpr std::size_t kGuard = @GUARD@;
constexpr unsigned char kGuardByte = 0xA5;

struct Argument {
    std::vector<unsigned char> bytes;  // guard, contents, guard
    std::size_t size = 0;
    unsigned char* data() { return bytes.data() + kGuard; }
    bool GuardsIntact() const
    {
        for (std::size_t i = 0; i < kGuard; ++i) {
            if (bytes[i] != kGuardByte || bytes[kGuard + size + i] != kGuardByte) {
                return false;
            }
        }
        return true;
    }
};

Argument Read(const std::string& path)
{
    Argument a;
    FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
        std::fprintf(stderr, "simdiff: cannot read %s\n", path.c_str());
        std::_Exit(2);
    }
    std::fseek(f, 0, SEEK_END);
    a.size = static_cast<std::size_t>(std::ftell(f));
    std::fseek(f, 0, SEEK_SET);
    a.bytes.assign(a.size + 2 * kGuard, kGuardByte);
    if (std::fread(a.data(), 1, a.size, f) != a.size) {
        std::fprintf(stderr, "simdiff: short read of %s\n", path.c_str());
        std::_Exit(2);
    }
    std::fclose(f);
    return a;
}

void Write(const std::string& path, Argument& a)
{
    FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr || std::fwrite(a.data(), 1, a.size, f) != a.size) {
        std::fprintf(stderr, "simdiff: cannot write %s\n", path.c_str());
        std::_Exit(2);
    }
    std::fclose(f);
}

// A GM argument's buffer, or a scalar argument's value
template <typename P>
P Pass(Argument& a)
{
    if constexpr (std::is_pointer_v<P>) {
        return reinterpret_cast<P>(a.data());
    } else {
        P value;
        std::memcpy(&value, a.data(), sizeof(P));
        return value;
    }
}

template <typename... P, std::size_t... I>
void Call(void (*kernel)(P...), std::vector<Argument>& arguments, std::index_sequence<I...>)
{
    kernel(Pass<P>(arguments[I])...);
}

// The kernel in a child process, so that an assert ends only its own case: DIR/inI.bin in,
// DIR/simI.bin out, its stderr in DIR/sim.log; prints "DIR exit N" or "DIR signal N".
template <typename... P>
void RunCase(const char* dir, void (*kernel)(P...))
{
    std::fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        const std::string d(dir);
        if (std::freopen((d + "/sim.log").c_str(), "w", stderr) == nullptr) {
            std::_Exit(2);
        }
        dup2(fileno(stderr), fileno(stdout));
        alarm(@TIMEOUT@);
        std::vector<Argument> arguments;
        for (std::size_t i = 0; i < sizeof...(P); ++i) {
            arguments.push_back(Read(d + "/in" + std::to_string(i) + ".bin"));
        }
        pto::NPU_MEMORY_INIT(pto::NPUArch::A5);
        Call(kernel, arguments, std::index_sequence_for<P...>{});
        for (std::size_t i = 0; i < sizeof...(P); ++i) {
            if (!arguments[i].GuardsIntact()) {
                std::fprintf(stderr, "simdiff: the kernel wrote outside argument %zu\n", i);
                std::fflush(stderr);
                std::_Exit(3);
            }
            Write(d + "/sim" + std::to_string(i) + ".bin", arguments[i]);
        }
        std::fflush(stderr);
        std::_Exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (WIFSIGNALED(status)) {
        std::printf("%s signal %d\n", dir, WTERMSIG(status));
    } else {
        std::printf("%s exit %d\n", dir, WEXITSTATUS(status));
    }
}
}  // namespace simdiff

int main()
{
@CALLS@
}
"""


# ---------------------------------------------------------------------------
# One kernel


@dataclass
class Ours:
    """The interpreter's run: `rejected` (the project refuses the kernel on cpu: skipped),
    or `outputs` (every argument afterwards), or `error` (a run-time error, or a crash)."""

    rejected: str | None = None
    outputs: list[np.ndarray] | None = None
    error: str | None = None


PHASES: defaultdict[str, float] = defaultdict(float)
"""Seconds spent per phase (interpret, emit, build, simulate), summed over the jobs."""
PHASES_LOCK = threading.Lock()


@contextmanager
def timed(phase: str) -> Iterator[None]:
    start = time.monotonic()
    try:
        yield
    finally:
        with PHASES_LOCK:
            PHASES[phase] += time.monotonic() - start


INTERPRETER_LOCK = threading.Lock()
"""One interpretation at a time (the interpreter sets process-wide state); the other
threads meanwhile build and run C++."""


def interpret(case: Case, path: Path) -> Ours:
    path.write_text(case.module(path.parent.name))
    with INTERPRETER_LOCK, timed("interpret"):
        try:
            module = pto_dialect.parse(path.read_text(), str(path))
        except PtoError as e:
            return Ours(rejected=str(e))
        try:
            return Ours(outputs=interpreter.run(module, TARGET, case.inputs))
        except PtoError as e:
            try:
                interpreter.lower_for(module, TARGET)
            except PtoError as rejection:
                return Ours(rejected=str(rejection))
            return Ours(error=str(e))
        except Exception:  # noqa: BLE001 (a crash is a finding, reported with its traceback)
            return Ours(error=f"the interpreter crashed:\n{traceback.format_exc()}")


@dataclass
class Result:
    """A case's verdict: `skipped` (why), or `agree` with `both_failed` (the simulator stopped,
    the interpreter gave a located error), or a disagreement (`problem`)."""

    name: str
    case: Case
    skipped: str | None = None
    agree: bool = False
    both_failed: str | None = None
    problem: str | None = None
    nan_bits_only: bool = False
    """A disagreement in which every differing element is a NaN on both sides (its sign or payload)."""
    ours: Ours | None = None
    sim: list[np.ndarray] | None = None


SIGNALS: dict[int, str] = {signal.SIGABRT: "asserted (SIGABRT)", signal.SIGALRM: f"timed out ({CASE_TIMEOUT_SECONDS} s)"}


def simulator_failure(status: str, log: str) -> str | None:
    """None when the simulator's child ended normally, else what stopped it."""
    kind, _, number = status.partition(" ")
    code = int(number)
    if kind == "exit" and code == 0:
        return None
    if kind == "signal":
        what = SIGNALS.get(code) or f"crashed ({signal.Signals(code).name})"
    elif code == 3:
        what = "wrote outside a GM argument"
    else:
        what = f"exited {code}"
    lines = log.strip().splitlines()[-3:]
    # an assert's line without the template arguments it prints: FILE:LINE: ... Assertion `...' failed.
    detail = [re.sub(r"^.*?([\w.]+:\d+): .*?(Assertion .*)$", r"\1: \2", line) for line in lines]
    return f"simulator {what}" + (": " + " | ".join(detail) if detail else "")


def first_difference(ours: np.ndarray, sim: np.ndarray) -> tuple[int, int] | None:
    """(how many elements differ, the first that does) between two flat arrays of one dtype,
    byte for byte; None if none does."""
    if ours.tobytes() == sim.tobytes():
        return None
    size = ours.dtype.itemsize
    differs = (np.frombuffer(ours.tobytes(), np.uint8) != np.frombuffer(sim.tobytes(), np.uint8)).reshape(-1, size).any(axis=1)
    return int(differs.sum()), int(np.argmax(differs))


def only_nan_bits(ours: np.ndarray, sim: np.ndarray) -> bool:
    """Whether the elements that differ are NaN on both sides."""
    if ours.dtype.name not in FLOAT_DTYPE_NAMES:
        return False
    differs = ours.view(f"u{ours.dtype.itemsize}") != sim.view(f"u{sim.dtype.itemsize}")
    with np.errstate(invalid="ignore"):
        both_nan = np.isnan(ours.astype(np.float64)) & np.isnan(sim.astype(np.float64))
    return bool((both_nan | ~differs).all())


def shown(array: np.ndarray, at: int) -> str:
    """An element's value and bits."""
    size = array.dtype.itemsize
    return f"{array[at].item()!r} (0x{int(array.view(f'u{size}')[at]):0{2 * size}x})"


def judge(result: Result, status: str, case_dir: Path) -> None:
    ours = result.ours
    assert ours is not None
    log = (case_dir / "sim.log").read_text(errors="replace") if (case_dir / "sim.log").exists() else ""
    failure = simulator_failure(status, log)
    if failure is not None:
        if ours.error is not None and LOCATED.search(ours.error) and not CRASHED.search(ours.error):
            result.agree, result.both_failed = True, f"{failure}; cpu: {ours.error.splitlines()[0]}"
        elif ours.error is not None:
            result.problem = f"{failure}; cpu failed without a located run-time error: {ours.error}"
        else:
            result.problem = f"{failure}; cpu ran to the end"
        return
    if ours.error is not None:
        result.problem = f"the simulator ran; cpu failed: {ours.error}"
        return
    assert ours.outputs is not None
    sim = [np.fromfile(case_dir / f"sim{i}.bin", numpy_dtype(a.dtype)) for i, a in enumerate(result.case.arguments)]
    result.sim = sim
    differences = []
    nan_bits = []
    for i, (argument, mine, theirs) in enumerate(zip(result.case.arguments, ours.outputs, sim)):
        mine = np.ascontiguousarray(mine).reshape(-1)
        found = first_difference(mine, theirs)
        if found is not None:
            nan_bits.append(only_nan_bits(mine, theirs))
            count, at = found
            differences.append(
                f"arg{i} ({argument.role}, {argument.dtype}[{argument.data.size}]): {count} elements differ; the first at "
                f"{argument.position(at)}: cpu {shown(mine, at)}, simulator {shown(theirs, at)}"
            )
    result.agree = not differences
    result.problem = "; ".join(differences) or None
    result.nan_bits_only = bool(nan_bits) and all(nan_bits)


# ---------------------------------------------------------------------------
# One batch


def pto_opt(*args: str) -> subprocess.CompletedProcess:
    """This tree's pto-opt, in the current Python."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, "-m", "pto_tools.pto_opt", *args], capture_output=True, text=True, check=False, env=env)


def owners(lines: Sequence[int], text: str, start: str) -> set[str]:
    """The functions of `text` (each starting at a line matching `start`, its name the group)
    that hold the given lines."""
    starts = [(i, m.group(1)) for i, line in enumerate(text.splitlines(), 1) if (m := re.match(start, line.strip()))]
    named = set()
    for line in lines:
        holding = [name for first, name in starts if first <= line]
        if holding:
            named.add(holding[-1])
    return named


@dataclass
class Emitted:
    """A batch's C++ (`pto-opt --to=cpp`, a subprocess per attempt) for the kernels it
    emitted; those it `refused` with a located error (skipped), those it `failed` on without
    one (an internal error: each found by emitting the kernels one by one)."""

    cpp: str = ""
    refused: dict[str, str] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)

    @property
    def left_out(self) -> set[str]:
        return set(self.refused) | set(self.failed)


def emit(batch: Path, cases: dict[str, Case]) -> Emitted:
    """The kernels' C++, each kernel refused taken out and the rest emitted again."""
    result = Emitted()

    def attempt(names: list[str]) -> tuple[str, str, str]:
        """(the module, pto-opt's error or "", the C++)"""
        module = "module {\n" + "\n".join(cases[n].function(n) for n in names) + "\n}\n"
        (batch / "batch.pto").write_text(module)
        with timed("emit"):
            emitted = pto_opt(str(batch / "batch.pto"), "--target", TARGET, "-p", EMIT_PASSES, "--to=cpp")
        return module, "" if emitted.returncode == 0 else emitted.stderr.strip() or f"exit {emitted.returncode}", emitted.stdout

    while names := [n for n in cases if n not in result.left_out]:
        module, error, cpp = attempt(names)
        if not error:
            result.cpp = cpp
            return result
        lines = [int(n) for n in re.findall(r"batch\.pto:(\d+):\d+: error", error)]
        culprits = owners(lines, module, r"func\.func @(\w+)\(")
        for name in culprits:
            result.refused[name] = error.splitlines()[0]
        if not culprits:  # an error located in no kernel: try them one by one
            (batch / "emit.log").write_text(error)
            for name in names:
                _, alone, _ = attempt([name])
                if alone:
                    result.failed[name] = alone.splitlines()[0]
            if not result.failed:  # each alone emits, all together do not
                result.failed.update({n: error.splitlines()[0] for n in names})
    return result


def build(batch: Path, cpp: str, names: list[str], cxx: Toolchain, flags: list[str]) -> str | None:
    """The driver built around the kernels' C++; None, or the compiler's error."""
    (batch / "kernels.cpp").write_text(cpp)
    calls = "\n".join(f'    simdiff::RunCase("{n}", {n});' for n in names)
    driver = DRIVER.replace("@GUARD@", str(GUARD_BYTES)).replace("@TIMEOUT@", str(CASE_TIMEOUT_SECONDS)).replace("@CALLS@", calls)
    (batch / "driver.cpp").write_text(f'#include "kernels.cpp"\n{driver}')
    with timed("build"):
        built = subprocess.run([cxx.command, *flags, "driver.cpp", *cxx.runtime, "-o", "driver"], cwd=batch, capture_output=True, text=True, check=False)
    (batch / "build.log").write_text(built.stderr)
    return built.stderr if built.returncode else None


def run_batch(cases: dict[str, Case], batch: Path, cxx: Toolchain, flags: list[str]) -> list[Result]:
    batch.mkdir(parents=True, exist_ok=True)
    results = {n: Result(n, c) for n, c in cases.items()}
    for name, result in results.items():
        case_dir = batch / name
        case_dir.mkdir(exist_ok=True)
        if not cxx.bf16 and result.case.mentions("bf16"):
            result.skipped = f"bf16: {cxx.command} has no std::bfloat16_t (the simulator's bfloat16_t would be _Float16); try --cxx clang++"
            continue
        result.ours = interpret(result.case, case_dir / "kernel.pto")
        if result.ours.rejected is not None:
            result.skipped = f"rejected on cpu: {result.ours.rejected.splitlines()[0]}"
    names = [n for n, r in results.items() if r.skipped is None]
    emitted = emit(batch, {n: cases[n] for n in names})
    for name, error in emitted.refused.items():
        results[name].skipped = f"no C++: pto-opt --to=cpp refuses it: {error}"
    for name, error in emitted.failed.items():
        results[name].problem = f"pto-opt --to=cpp failed: {error}"
    names = [n for n in names if n not in emitted.left_out]
    error = build(batch, emitted.cpp, names, cxx, flags) if names else None
    if error is not None:
        # kernels the simulator's headers do not compile: disagreements; the rest built again
        uncompiled = owners([int(n) for n in re.findall(r"kernels\.cpp:(\d+):\d+:", error)], emitted.cpp, r"__global__ AICORE void (\w+)\(")
        for name in uncompiled & set(names):
            results[name].problem = f"the simulator's headers do not compile it (see {batch / 'build.log'}); cpu accepts it"
        names = [n for n in names if n not in uncompiled]
        if uncompiled and names:
            again = emit(batch, {n: cases[n] for n in names})
            error = build(batch, again.cpp, names, cxx, flags) if not again.left_out else "pto-opt --to=cpp failed the second time"
    if error is not None:
        for name in names:
            results[name].problem = f"the batch did not build: {error[-2000:]}"
        return list(results.values())
    for name in names:
        for i, data in enumerate(results[name].case.inputs):
            data.tofile(batch / name / f"in{i}.bin")
    if names:
        with timed("simulate"):
            ran = subprocess.run(["./driver"], cwd=batch, capture_output=True, text=True, check=False)
        statuses = dict(line.split(" ", 1) for line in ran.stdout.splitlines() if line.split(" ", 1)[0] in results)
        for name in names:
            if name not in statuses:
                results[name].problem = f"the driver reported nothing (exit {ran.returncode}): {ran.stderr[-2000:]}"
            else:
                judge(results[name], statuses[name], batch / name)
    return list(results.values())


# ---------------------------------------------------------------------------
# The run


DRAWS_PER_CASE = 200
"""With --dtype, how many kernels a form may draw per kernel that holds the type before it is
taken not to draw that type (a form whose instruction does not take it draws none)."""


def generate(forms: Sequence[str], n: int, seed: int, dtype: str | None = None) -> dict[str, Case]:
    """n cases of each form, named FORM_NNN; each form draws from its own RNG (seed and form
    name), so that a form's cases do not depend on the others chosen. With `dtype`, only the
    cases holding a tile or argument of that element type are kept."""
    known = discover()
    cases = {}
    for form in forms:
        rng = random.Random(f"{seed}:{form}")
        kept = 0
        for _ in range(n * (DRAWS_PER_CASE if dtype else 1)):
            case = known[form](rng)
            if dtype and not case.mentions(dtype):
                continue
            case.form = form
            cases[f"{form}_{kept:03d}"] = case
            kept += 1
            if kept == n:
                break
        if kept < n:
            print(f"{form}: {kept} kernels holding {dtype} in {n * DRAWS_PER_CASE} draws")
    return cases


def options(argv: Sequence[str] | None = None) -> argparse.Namespace:
    known = discover()
    p = argparse.ArgumentParser(
        prog="python -m bench.simdiff", description=__doc__.split("\n\n")[0].strip(), formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--pto-isa", type=Path, required=True, help="a directory holding pto-isa's include/ (only read)")
    p.add_argument("--forms", default=",".join(known), help=f"of {', '.join(known)} (default: all)")
    p.add_argument("--n", type=int, default=50, help="kernels per form (default 50)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--dtype", help="keep only kernels holding this element type (bf16, ...): each form draws until it has --n")
    p.add_argument("--cxx", default="g++", help="the C++ compiler (default g++; clang++ gets bf16 through bench/simdiff/bfloat16/stdfloat)")
    p.add_argument("--jobs", type=int, default=2, help="batches built at once (default 2)")
    p.add_argument("--batch", type=int, default=40, help="kernels per C++ translation unit (default 40)")
    p.add_argument("--work", type=Path, help="the work dir (default: a temporary one, kept unless all agree)")
    p.add_argument("--keep", action="store_true", help="keep the work dir even when all agree")
    args = p.parse_args(argv)
    if min(args.n, args.jobs, args.batch) < 1:
        p.error("--n, --jobs and --batch take a positive count")
    args.forms = args.forms.split(",")
    unknown = [f for f in args.forms if f not in known]
    if unknown:
        p.error(f"unknown forms {', '.join(unknown)}; known: {', '.join(known)}")
    return args


@dataclass
class Tally:
    drawn: int = 0
    rejected: int = 0
    bf16: int = 0
    no_cpp: int = 0
    agree: int = 0
    both_failed: int = 0
    disagree: int = 0
    nan_bits: int = 0
    reasons: Counter = field(default_factory=Counter)

    def add(self, r: Result) -> None:
        self.drawn += 1
        if r.skipped is not None:
            self.reasons[r.skipped] += 1
            if r.skipped.startswith("bf16"):
                self.bf16 += 1
            elif r.skipped.startswith("no C++"):
                self.no_cpp += 1
            else:
                self.rejected += 1
        elif r.agree:
            self.agree += 1
            self.both_failed += r.both_failed is not None
        else:
            self.disagree += 1
            self.nan_bits += r.nan_bits_only


def save_disagreement(r: Result, work: Path) -> str:
    where = work / "disagreements" / r.name
    where.mkdir(parents=True, exist_ok=True)
    (where / "kernel.pto").write_text(r.case.module(r.name))
    for i, data in enumerate(r.case.inputs):
        np.save(where / f"in{i}.npy", data)
    for prefix, arrays in (("cpu", r.ours.outputs if r.ours else None), ("sim", r.sim)):
        for i, data in enumerate(arrays or []):
            np.save(where / f"{prefix}{i}.npy", data)
    roles = ", ".join(f"arg{i}: {a.role} {a.type}[{a.data.size}]" for i, a in enumerate(r.case.arguments))
    report = f"{r.name} {r.case.instruction} ({r.case.form}): {r.case.details}\n{roles}\n{r.problem}\n"
    (where / "report.txt").write_text(report)
    return report + r.case.module(r.name) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    args = options(argv)
    if shutil.which(args.cxx) is None:
        sys.exit(f"error: {args.cxx} not found")
    include = args.pto_isa.resolve() / "include"
    if not (include / "pto" / "cpu").is_dir():
        sys.exit(f"error: {args.pto_isa} holds no pto-isa include/pto/cpu")
    work = (args.work or Path(tempfile.mkdtemp(prefix="simdiff-"))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    cxx = Toolchain.find(args.cxx)
    flags = compile_flags(include, prepare_overlay(include, work, cxx), cxx)
    cases = generate(args.forms, args.n, args.seed, args.dtype)
    names = list(cases)
    order = random.Random(args.seed).sample(names, len(names))  # each batch a mix of forms
    batches = [order[b : b + args.batch] for b in range(0, len(order), args.batch)]

    def run(b: int) -> list[Result]:
        return run_batch({n: cases[n] for n in batches[b]}, work / f"batch{b:03d}", cxx, flags)

    with ThreadPoolExecutor(args.jobs) as pool:
        results = sorted((r for rs in pool.map(run, range(len(batches))) for r in rs), key=lambda r: r.name)

    by_instruction: dict[str, Tally] = {}
    by_form: dict[str, Tally] = {}
    for r in results:
        by_instruction.setdefault(r.case.instruction, Tally()).add(r)
        by_form.setdefault(r.case.form, Tally()).add(r)
    reports = [save_disagreement(r, work) for r in results if r.skipped is None and not r.agree]
    (work / "disagreements.txt").write_text("\n".join(reports))

    header = f"{'':24} {'drawn':>6} {'rejected':>8} {'bf16':>5} {'no C++':>6} {'compared':>8} {'agree':>6} {'both stop':>9} {'disagree':>8} {'NaN bits':>8}"
    for title, tallies in (("instruction", by_instruction), ("form", by_form)):
        print(f"{title:24}{header[24:]}")
        for key, t in sorted(tallies.items()):
            compared = t.agree + t.disagree
            print(f"{key:24} {t.drawn:6} {t.rejected:8} {t.bf16:5} {t.no_cpp:6} {compared:8} {t.agree:6} {t.both_failed:9} {t.disagree:8} {t.nan_bits:8}")
    skipped = Counter()
    for t in by_form.values():
        skipped.update(t.reasons)
    for reason, count in skipped.most_common():
        print(f"skipped {count}: {reason}")
    for r in results:
        if r.both_failed:
            print(f"both stop: {r.name}: {r.both_failed}")
    agreed = sum(t.agree for t in by_form.values())
    compared = sum(t.agree + t.disagree for t in by_form.values())
    phases = ", ".join(f"{phase} {seconds:.0f} s" for phase, seconds in PHASES.items())
    print(f"agree {agreed} of {compared} compared kernels ({len(results)} drawn, {cxx}; wall {time.monotonic() - started:.0f} s; summed over jobs: {phases})")
    if agreed == compared:
        if args.work is None and not args.keep:
            shutil.rmtree(work)
        return 0
    for r in results:
        if r.skipped is None and not r.agree:
            print(f"DISAGREE {r.name} {r.case.instruction}{' (NaN bits only)' if r.nan_bits_only else ''}: {r.problem}"[:600])
    print(f"disagreements: {work / 'disagreements.txt'} (each with its kernel, inputs and outputs in {work / 'disagreements'})")
    return 1
