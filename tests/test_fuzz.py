"""
Fuzzing the CLIs with malformed input: they must never crash, and never lose a file.

Inputs are derived deterministically (fixed seed) from valid PTO kernels —
`examples/*.pto` plus the kernels embedded below, which cover both tile_buf
spellings and the SSA and DPS forms of mgather, tgather (index, mask, compare)
and tcolargmin — by truncation, token deletion/duplication/swap/replacement/
insertion, replacement of a number, dtype, loc, layout or enum case by another
of its kind (which often still parses and so reaches the verifiers and target
rules), byte edits (including invalid UTF-8), deep nesting (regions, brackets),
moving a definition below its uses, and `// -----` markers (run with
--split-input-file). Each input is written to a file and `pto-opt FILE -o FILE`
runs in-process, with one of three flag sets, and must
- print no Python traceback and no `internal error` (an unexpected exception);
- if it fails (exit code != 0), report at least one located error
  `FILE:LINE:COL: error: ...` on stderr, and leave FILE exactly as it was;
- finish within CASE_TIMEOUT seconds.
Inputs that still parse and verify (exit 0) are fine. Besides, corrupted `.npy`
inputs go through `pto-run` (errors name the file, no traceback), and runs
interrupted by Ctrl-C at a random point must exit 130 leaving every output as it was.

CI runs a fast slice (N_CASES inputs); `python -m tests.fuzz_campaign` runs the
long campaign (10,000 inputs). A failure shows the case id and the mutated text;
`PTO_FUZZ_DUMP=DIR` also writes every generated input to DIR.
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

import numpy as np
import pytest
from xdsl.interpreter import Interpreter

from pto_tools import pto_run as pto_run_module
from pto_tools.pto_opt import main as pto_opt_main
from pto_tools.pto_run import main as pto_run_main
from bench.time_limit import time_limit
from tests.kernel_text import copy_kernel

REPO = Path(__file__).resolve().parent.parent
SEED = 20240601
N_CASES = 500

LOCATED_ERROR = re.compile(r"^[^:\n]+:\d+:\d+: error: ", re.MULTILINE)

# ---------------------------------------------------------------------------
# Valid seed kernels

LEGACY_F16 = (
    "!pto.tile_buf<loc=vec, dtype=f16, rows=16, cols=16, v_row=16, v_col=16, "
    "blayout=row_major, slayout=none_box, fractal=512, pad=0>"
)
LEGACY_I32_ROW = (
    "!pto.tile_buf<loc=vec, dtype=i32, rows=1, cols=16, v_row=1, v_col=16, "
    "blayout=row_major, slayout=none_box, fractal=512, pad=0>"
)

DPS_KERNEL = f"""\
module attributes {{pto.target_arch = "a5"}} {{
  func.func @gathers(%tab: !pto.partition_tensor_view<64x32xf16>, %i: !pto.tile_buf<vec, 1x8xi32>,
      %d: !pto.tile_buf<vec, 8x32xf16>, %s: !pto.tile_buf<vec, 16x16xf32>, %idx: !pto.tile_buf<vec, 16x16xi32>,
      %tmp: !pto.tile_buf<vec, 16x16xi32>, %g: !pto.tile_buf<vec, 16x16xf32>, %m: !pto.tile_buf<vec, 16x8xf32>,
      %cd: !pto.tile_buf<vec, 16x16xi32>, %cc: !pto.tile_buf<vec, 16x16xi32>, %k: f32,
      %a: {LEGACY_F16}, %ai: {LEGACY_I32_ROW}) {{
    pto.mgather ins(%tab, %i : !pto.partition_tensor_view<64x32xf16>, !pto.tile_buf<vec, 1x8xi32>) outs(%d : !pto.tile_buf<vec, 8x32xf16>) {{coalesce = #pto<coalesce row>, gatherOob = #pto<gather_oob clamp>}}
    pto.tgather ins(%s, %idx, %tmp : !pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xi32>, !pto.tile_buf<vec, 16x16xi32>) outs(%g : !pto.tile_buf<vec, 16x16xf32>)
    pto.tgather ins(%s, {{maskPattern = #pto.mask_pattern<P0101>}} : !pto.tile_buf<vec, 16x16xf32>, "row") outs(%m : !pto.tile_buf<vec, 16x8xf32>)
    pto.tgather ins(%s, %k, %tmp : !pto.tile_buf<vec, 16x16xf32>, f32, !pto.tile_buf<vec, 16x16xi32>) outs(%cd, %cc : !pto.tile_buf<vec, 16x16xi32>, !pto.tile_buf<vec, 16x16xi32>) {{cmpMode = #pto<cmp gt>, offset = 3 : i32}}
    pto.tcolargmin ins(%a : {LEGACY_F16}) outs(%ai : {LEGACY_I32_ROW})
    return
  }}
}}
"""

SSA_KERNEL = """\
func.func @ssa(%tab: !pto.partition_tensor_view<1x512xf32>, %ids: !pto.tile<vec, 4x16xi32>,
    %s: !pto.tile<vec, 16x16xf32>, %idx: !pto.tile<vec, 16x16xi32>, %tmp: !pto.tile<vec, 16x16xi32>, %k: f32,
    %ctmp: !pto.tile<vec, 16x32xi32>, %h: !pto.tile<vec, 16x16xf16>) {
  %g = pto.mgather %tab, %ids {coalesce = #pto<coalesce elem>} : (!pto.partition_tensor_view<1x512xf32>, !pto.tile<vec, 4x16xi32>) -> !pto.tile<vec, 4x16xf32>
  %t = pto.tgather %s, %idx, %tmp : (!pto.tile<vec, 16x16xf32>, !pto.tile<vec, 16x16xi32>, !pto.tile<vec, 16x16xi32>) -> !pto.tile<vec, 16x16xf32>
  %m = pto.tgather %s {maskPattern = #pto.mask_pattern<P1010>, axis = "col"} : !pto.tile<vec, 16x16xf32> -> !pto.tile<vec, 8x16xf32>
  %d, %c = pto.tgather %s, %k, %ctmp {cmpMode = #pto<cmp eq>} : (!pto.tile<vec, 16x16xf32>, f32, !pto.tile<vec, 16x32xi32>) -> (!pto.tile<vec, 16x16xi32>, !pto.tile<vec, 16x16xi32>)
  %ai = pto.tcolargmin %h : !pto.tile<vec, 16x16xf16> -> !pto.tile<vec, 1x16xi32>
  %v, %vi = pto.tcolargmin %h, %h : (!pto.tile<vec, 16x16xf16>, !pto.tile<vec, 16x16xf16>) -> (!pto.tile<vec, 1x16xf16>, !pto.tile<vec, 1x16xi16>)
  return
}
"""

SCAFFOLD_KERNEL = """\
module {
  func.func @k(%tab: !pto.ptr<f32>, %ids: !pto.ptr<i32>, %out: !pto.ptr<f32>)
      attributes {pto.kernel_kind = #pto.kernel_kind<vector>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %tv = pto.make_tensor_view %tab, shape = [%c128, %c8], strides = [%c8, %c1] {layout = #pto.layout<nd>} : !pto.tensor_view<?x?xf32>
    %tp = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c128, %c8] : !pto.tensor_view<?x?xf32>
    %it = pto.alloc_tile : !pto.tile_buf<vec, 1x8xi32>
    %dt = pto.alloc_tile valid_row = %c8 valid_col = %c8 : !pto.tile_buf<vec, 8x8xf32, valid=?x?>
    %lg = pto.alloc_tile valid_row = %c8 valid_col = %c8 : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=?, v_col=-1, blayout=row_major, slayout=none_box, fractal=512, pad=1, compact=0>
    pto.section.vector {
      pto.tload ins(%tp : !pto.partition_tensor_view<128x8xf32>) outs(%dt : !pto.tile_buf<vec, 8x8xf32, valid=?x?>)
      pto.mgather ins(%tp, %it : !pto.partition_tensor_view<128x8xf32>, !pto.tile_buf<vec, 1x8xi32>)
                  outs(%dt : !pto.tile_buf<vec, 8x8xf32, valid=?x?>) {coalesce = #pto<coalesce row>}
      pto.tgather ins(%dt, {maskPattern = #pto.mask_pattern<P1111>} : !pto.tile_buf<vec, 8x8xf32, valid=?x?>, "col") outs(%dt : !pto.tile_buf<vec, 8x8xf32, valid=?x?>)
      pto.tstore ins(%dt : !pto.tile_buf<vec, 8x8xf32, valid=?x?>) outs(%tp : !pto.partition_tensor_view<128x8xf32>)
    }
    return
  }
}
"""

LEGACY_KERNEL = f"""\
func.func @legacy(%src: {LEGACY_F16}, %tmp: {LEGACY_F16},
    %val: !pto.tile_buf<loc=vec, dtype=f16, rows=1, cols=16, v_row=1, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>,
    %idx: !pto.tile_buf<loc=vec, dtype=i16, rows=1, cols=16, v_row=1, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0, compact=0>,
    %mp: !pto.tile_buf<loc=vec, dtype=f16, rows=16, cols=4, v_row=16, v_col=4, blayout=row_major, slayout=none_box, fractal=512, pad=0>) {{
  pto.tcolargmin ins(%src, %tmp : {LEGACY_F16}, {LEGACY_F16}) outs(%val, %idx : !pto.tile_buf<loc=vec, dtype=f16, rows=1, cols=16, v_row=1, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>, !pto.tile_buf<loc=vec, dtype=i16, rows=1, cols=16, v_row=1, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0, compact=0>)
  pto.tgather ins(%src, {{maskPattern = #pto.mask_pattern<P0001>}} : {LEGACY_F16}, "row") outs(%mp : !pto.tile_buf<loc=vec, dtype=f16, rows=16, cols=4, v_row=16, v_col=4, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
  pto.tgather ins(%src : {LEGACY_F16}) outs(%mp : !pto.tile_buf<vec, 16x4xf16>) maskPattern = #pto.mask_pattern<P0100>
  return
}}
"""

EMBEDDED = {
    "dps": DPS_KERNEL,
    "ssa": SSA_KERNEL,
    "scaffold": SCAFFOLD_KERNEL,
    "legacy": LEGACY_KERNEL,
}


def seed_kernels() -> dict[str, str]:
    seeds = {name: text for name, text in EMBEDDED.items()}
    for path in sorted((REPO / "examples").glob("*.pto")):
        seeds[f"examples/{path.name}"] = path.read_text()
    return seeds


# ---------------------------------------------------------------------------
# Mutation

TOKEN_RE = re.compile(
    r'"[^"\n]*"'  # string literal
    r"|[%@^#!][\w.$-]*"  # SSA name, symbol, block, attribute/type alias or dialect name
    r"|->"
    r"|\d+(?:x\d+)*x?\w*"  # numbers and shapes like 16x16xf16
    r"|\w+"
    r"|\S"
)

REPLACEMENTS = [
    ",", ":", "(", ")", "<", ">", "{", "}", "[", "]", "?", "=", "->", "-1", "0", "x", "%foo",
    "ins", "outs", "vec", "mat", "acc", "left",
    # numbers
    "1", "8", "16", "-5", "512", "33", "4294967296", "99999999999999999999999", "0x10", "1.5", "1e9",
    "16x16", "16x16xf16", "?x?", "0x0xi32", "-1x16xf32",
    # type names
    "f16", "f32", "i32", "i16", "i1", "bf16", "f8E4M3FN", "index", "none", "!pto.tile_buf",
    "!pto.tile", "!pto.partition_tensor_view", "!pto.tensor_view", "!pto.ptr", "!pto.hif8",
    "!pto.bogus", "tensor<4xf32>", "memref<?xf32>",
    # attribute names and values
    "loc", "dtype", "rows", "cols", "v_row", "v_col", "blayout", "slayout", "fractal", "pad",
    "compact", "valid", "row_major", "col_major", "none_box", "coalesce", "gatherOob",
    "gatherExec", "maskPattern", "cmpMode", "offset", "axis", '"row"', '"col"', '"x"',
    "#pto<coalesce row>", "#pto<coalesce elem>", "#pto<gather_oob zero>", "#pto<cmp gt>",
    "#pto.mask_pattern<P0101>", "#pto.mask_pattern<P9999>", "#pto.layout<nd>", "#pto<bogus>",
    "3 : i32", "unit", "true", "@k", "^bb0", "pto.mgather", "pto.tgather", "pto.tcolargmin",
    "pto.tload", "pto.bogus", "func.func", "return", "arith.constant", "module", "attributes",
]

BYTE_INSERTS = [
    b"\x00", b"\xff", b"\xc3", b"\n", b'"', b"\\", b"%", b"!", b"#", b"<", b">", b"{", b"}",
    b"(", b")", b",", b":", b"?", b"x", b"-", b"0", b"9", b" ", b"\t", b"\xe2\x82", b"@", b"^",
]


# "Semantic" mutation: an atom replaced by another of its kind, so that the text
# often still parses and reaches the verifiers and target rules.
_NUM = r"(?:(?<=x)|(?<![\w%@#.!]))\d+(?![\d.])"
_DTYPE = r"(?:(?<=x)|(?<![\w.]))(?:bf16|f8E4M3FN|f8E5M2|[fi]\d+|ui\d+|si\d+|index)(?!\w)"
ATOM_KINDS = [
    (re.compile(_NUM), [
        "0", "1", "2", "3", "4", "7", "8", "15", "16", "17", "31", "32", "33", "64", "100",
        "128", "256", "512", "1024", "4096", "65536", "2147483648",
    ]),
    (re.compile(_DTYPE), [
        "f16", "f32", "bf16", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "si32", "f8E4M3FN",
        "f8E5M2", "i1", "f64", "index", "!pto.hif8", "!pto.f8E8M0", "!pto.bf16x2", "!pto.f4E2M1x2",
    ]),
    (re.compile(r"(?<![\w.])(?:vec|mat|left|right|acc|bias|scaling)(?![\w.])"), [
        "vec", "mat", "left", "right", "acc", "bias", "scaling", "gm", "ub", "l1",
    ]),
    (re.compile(r"(?<![\w.])(?:row_major|col_major|none_box)(?!\w)"), ["row_major", "col_major", "none_box", "zz"]),
    (re.compile(r"(?<!\w)P[01]{4}(?!\w)"), ["P0101", "P1010", "P0001", "P0010", "P0100", "P1000", "P1111", "P0000"]),
    (re.compile(r"(?<=cmp )\w+"), ["eq", "ne", "lt", "le", "gt", "ge", "xx"]),
    (re.compile(r"(?<=coalesce )\w+"), ["row", "elem", "col"]),
    (re.compile(r"(?<=gather_oob )\w+"), ["undefined", "clamp", "wrap", "zero"]),
    (re.compile(r'"(?:row|col|a2a3|a2|a3|a5|cpu)"'), ['"row"', '"col"', '"a2a3"', '"a5"', '"cpu"', '"a3"', '"A5"']),
]


def mutate_atom(rng: random.Random, text: str) -> str:
    atoms = [(m.span(), choices) for regex, choices in ATOM_KINDS for m in regex.finditer(text)]
    if not atoms:
        return text
    (start, end), choices = rng.choice(atoms)
    return text[:start] + rng.choice(choices) + text[end:]


TYPE_RE = re.compile(r"!pto\.\w+<[^<>\n]*>")


def mutate_type_everywhere(rng: random.Random, text: str) -> str:
    """Mutate one atom of a spelled-out type and replace every occurrence of that type,
    keeping the uses of each value consistent so that more inputs reach the verifiers."""
    types = sorted(set(TYPE_RE.findall(text)))
    if not types:
        return mutate_atom(rng, text)
    old = rng.choice(types)
    return text.replace(old, mutate_atom(rng, old))


def tokenize(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in TOKEN_RE.finditer(text)]


def mutate_tokens(rng: random.Random, text: str) -> str:
    spans = tokenize(text)
    if not spans:
        return text + rng.choice(REPLACEMENTS)
    op = rng.choice(["delete", "duplicate", "swap", "replace", "replace", "insert"])
    i = rng.randrange(len(spans))
    start, end = spans[i]
    tok = text[start:end]
    if op == "delete":
        return text[:start] + text[end:]
    if op == "duplicate":
        return text[:end] + " " + tok + text[end:]
    if op == "insert":
        return text[:start] + rng.choice(REPLACEMENTS) + " " + text[start:]
    if op == "replace":
        return text[:start] + rng.choice(REPLACEMENTS) + text[end:]
    # swap with a nearby token (nearby swaps keep most of the structure)
    j = min(len(spans) - 1, max(0, i + rng.choice([-3, -2, -1, 1, 2, 3])))
    (a0, a1), (b0, b1) = sorted([spans[i], spans[j]])
    if a0 == b0:
        return text
    return text[:a0] + text[b0:b1] + text[a1:b0] + text[a0:a1] + text[b1:]


def mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    if not data:
        return rng.choice(BYTE_INSERTS)
    pos = rng.randrange(len(data))
    op = rng.choice(["insert", "delete", "set", "flip"])
    if op == "insert":
        return data[:pos] + rng.choice(BYTE_INSERTS) + data[pos:]
    if op == "delete":
        return data[:pos] + data[pos + 1 :]
    if op == "set":
        return data[:pos] + rng.choice(BYTE_INSERTS)[:1] + data[pos + 1 :]
    return data[:pos] + bytes([data[pos] ^ (1 << rng.randrange(8))]) + data[pos + 1 :]


def truncate(rng: random.Random, text: str) -> str:
    # half the time cut at a token boundary, otherwise anywhere
    if rng.random() < 0.5 and (spans := tokenize(text)):
        return text[: rng.choice(spans)[rng.randrange(2)]]
    return text[: rng.randrange(len(text) + 1)]


NEST_DEPTHS = [3, 40, 150, 600, 3000]
NEST_OPENERS = ["pto.section.vector {", "scf.if %fuzz_c {", "module {"]


def nest(rng: random.Random, text: str) -> str:
    """Wrap one line in many nested regions, or put deeply nested brackets into it."""
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    depth = rng.choice(NEST_DEPTHS)
    if rng.random() < 0.6:
        opener = rng.choice(NEST_OPENERS)
        lines[i] = "\n".join([opener] * depth + [lines[i]] + ["}"] * depth)
    else:
        col = rng.randrange(len(lines[i]) + 1)
        left, right = rng.choice([("(", ")"), ("[", "]"), ("tuple<", ">"), ("{a = ", "}")])
        lines[i] = lines[i][:col] + left * depth + "i32" + right * depth + lines[i][col:]
    return "\n".join(lines)


DEFINITION_RE = re.compile(r"^\s*%[\w#:, %]+ = ", re.MULTILINE)


def move_definition_down(rng: random.Random, text: str) -> str:
    """Move a line that defines a value a few lines down, often below a use of it."""
    lines = text.split("\n")
    defining = [i for i, line in enumerate(lines) if DEFINITION_RE.match(line)]
    if not defining:
        return nest(rng, text)
    i = rng.choice(defining)
    j = min(len(lines) - 1, i + rng.randint(1, 6))
    lines.insert(j, lines.pop(i))
    return "\n".join(lines)


SPLIT_MARKERS = ["// -----", "// ------", "  // -----", "// -----  ", 'x = "// -----"', "// ----- mid"]


def insert_split_marker(rng: random.Random, text: str) -> str:
    lines = text.split("\n")
    for _ in range(rng.choice([1, 2, 3])):
        i = rng.randrange(len(lines) + 1)
        marker = rng.choice(SPLIT_MARKERS)
        if rng.random() < 0.3 and i < len(lines):  # in the middle of a line
            col = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:col] + marker + lines[i][col:]
        else:
            lines.insert(i, marker)
    return "\n".join(lines)


KINDS = ["trunc", "tokens", "atoms", "bytes", "mixed", "nest", "reorder", "split"]
KIND_WEIGHTS = [10, 38, 16, 12, 8, 6, 6, 4]


def generate_cases(n_cases: int = N_CASES, seed: int = SEED) -> list[tuple[str, bytes]]:
    rng = random.Random(seed)
    seeds = seed_kernels()
    names = sorted(seeds)
    cases: list[tuple[str, bytes]] = []
    for n in range(n_cases):
        name = names[n % len(names)]
        text = seeds[name]
        kind = rng.choices(KINDS, weights=KIND_WEIGHTS)[0]
        if kind == "trunc":
            data = truncate(rng, text).encode()
        elif kind == "tokens":
            for _ in range(rng.choice([1, 1, 1, 2, 3])):
                text = mutate_tokens(rng, text)
            data = text.encode()
        elif kind == "atoms":
            for _ in range(rng.choice([1, 1, 2, 3])):
                text = (mutate_atom if rng.random() < 0.4 else mutate_type_everywhere)(rng, text)
            data = text.encode()
        elif kind == "bytes":
            data = text.encode()
            for _ in range(rng.choice([1, 1, 2, 4])):
                data = mutate_bytes(rng, data)
        elif kind == "mixed":
            text = mutate_tokens(rng, truncate(rng, text) if rng.random() < 0.3 else text)
            data = mutate_bytes(rng, text.encode())
        elif kind == "nest":
            data = nest(rng, text).encode()
        elif kind == "reorder":
            data = move_definition_down(rng, text).encode()
        else:
            data = insert_split_marker(rng, text).encode()
        cases.append((f"{n:03d}-{kind}-{name.replace('/', '_')}", data))
    return cases


FLAG_SETS = [[], ["--target", "a5", "-p", "pto-lower"], ["--split-input-file", "--verify-diagnostics"]]


def flags_for(case_id: str) -> list[str]:
    """A case's flag set: split cases are split; the others take turns."""
    if "-split-" in case_id:
        return ["--split-input-file"]
    return FLAG_SETS[int(case_id.split("-")[0]) % len(FLAG_SETS)]


CASES = generate_cases()


# ---------------------------------------------------------------------------
# Running pto-opt


CASE_TIMEOUT = 10  # seconds; a hang (e.g. regex backtracking in the lexer) is a bug too


class CaseTimeout(BaseException):
    """Not an Exception, so that pto-opt's catch-all does not turn it into an internal error."""


def run_in_process(args: list[str], main=pto_opt_main) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            with time_limit(CASE_TIMEOUT, CaseTimeout(f"pto-opt did not finish within {CASE_TIMEOUT} s")):
                main(args)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
        except CaseTimeout as e:
            code = -1
            err.write(f"\nTIMEOUT: {e}\n")
    return code, out.getvalue(), err.getvalue()


def check_output(code: int, stdout: str, stderr: str, *, located: bool = True) -> str | None:
    """What is wrong with one run, or None (`located`: a failure must name FILE:LINE:COL)."""
    both = stdout + stderr
    if "TIMEOUT: " in stderr:
        return f"no answer within {CASE_TIMEOUT} s (hang)"
    if "Traceback" in both:
        return "Python traceback in the output"
    if "internal error" in both:
        return "internal error reported"
    if located and code != 0 and not LOCATED_ERROR.search(stderr):
        return "failed without a located `FILE:LINE:COL: error:` line on stderr"
    return None


@pytest.fixture(scope="module")
def case_dir(tmp_path_factory) -> Path:
    dump = os.environ.get("PTO_FUZZ_DUMP")
    directory = Path(dump) if dump else tmp_path_factory.mktemp("fuzz")
    directory.mkdir(parents=True, exist_ok=True)
    return directory


@pytest.mark.parametrize("name", sorted(seed_kernels()))
def test_seed_kernels_are_valid(name, tmp_path):
    path = tmp_path / "seed.pto"
    path.write_text(seed_kernels()[name])
    code, _, stderr = run_in_process([str(path)])
    assert code == 0, stderr


def test_cases_are_deterministic_and_distinct():
    assert len(CASES) == N_CASES
    assert [data for _, data in generate_cases()] == [data for _, data in CASES]
    seeds = {text.encode() for text in seed_kernels().values()}
    # nearly every case differs from its seed (a swap of equal tokens may not)
    assert sum(data in seeds for _, data in CASES) < N_CASES // 50


def run_case(case_id: str, data: bytes, directory: Path) -> tuple[str | None, int, str, str]:
    """`pto-opt FILE -o FILE` on one input: (what is wrong or None, exit code, stdout, stderr)."""
    path = directory / f"{case_id}.pto"
    path.write_bytes(data)
    code, stdout, stderr = run_in_process([str(path), *flags_for(case_id), "-o", str(path)])
    problem = check_output(code, stdout, stderr)
    if problem is None and code != 0 and path.read_bytes() != data:
        problem = "a failed run changed the -o file (the input)"
    leftovers = [p.name for p in directory.glob(f".{path.name}.*")]
    if problem is None and leftovers:
        problem = f"temporary files left behind: {leftovers}"
    return problem, code, stdout, stderr


@pytest.mark.parametrize("case_id,data", CASES, ids=[c[0] for c in CASES])
def test_malformed_input_never_crashes(case_id, data, case_dir):
    problem, code, stdout, stderr = run_case(case_id, data, case_dir)
    assert problem is None, (
        f"{problem}\n--- input ({case_id}) ---\n{data.decode(errors='replace')}"
        f"\n--- flags {flags_for(case_id)}; exit code {code}; stderr ---\n{stderr}\n--- stdout ---\n{stdout[:2000]}"
    )


# ---------------------------------------------------------------------------
# pto-run: corrupt .npy inputs and interrupted runs

N_NPY_CASES = 60
N_INTERRUPTS = 6

LOOP_KERNEL = copy_kernel(name="copy_loop", trips=40)


def npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


NPY_HEADER_EDITS = [
    (b"(8,)", [b"(8, ", b"(1000000000000,)", b"(-1,)", b"(8, 8)", b"()", b"(18446744073709551616,)", b"(0,)", b"8"]),
    (b"'<f4'", [b"'<f8'", b"'|O'", b"'<U3'", b"'>f4'", b"'|V4'", b"'<i2'", b"'bogus'", b"[('a', '<f4')]"]),
    (b"False", [b"True", b"1", b"None"]),
]


def generate_npy_cases(n_cases: int = N_NPY_CASES, seed: int = SEED) -> list[tuple[str, bytes]]:
    """Corrupt copies of a valid 8-element f32 .npy: header edits, byte edits, truncation."""
    rng = random.Random(seed + 1)
    valid = npy_bytes(np.arange(8, dtype=np.float32))
    header_end = valid.index(b"\n") + 1
    cases = []
    for n in range(n_cases):
        kind = rng.choice(["header", "bytes", "trunc"])
        if kind == "header":
            old, news = rng.choice(NPY_HEADER_EDITS)
            new = rng.choice(news)
            # keep the declared header length right, so that the edit reaches numpy's header parser
            data = valid.replace(old, new).replace(b" " * len(new), b" " * len(old), 1) if len(new) > len(old) else (
                valid.replace(old, new + b" " * (len(old) - len(new)))
            )
        elif kind == "bytes":
            data = valid
            for _ in range(rng.choice([1, 2, 4])):
                pos = rng.randrange(header_end)
                data = data[:pos] + bytes([rng.randrange(256)]) + data[pos + 1 :]
        else:
            data = valid[: rng.randrange(len(valid))]
        cases.append((f"{n:03d}-{kind}", data))
    return cases


NPY_CASES = generate_npy_cases()


def run_npy_case(case_id: str, data: bytes, directory: Path) -> tuple[str | None, str]:
    """pto-run on LOOP_KERNEL with a corrupt first array: (what is wrong or None, stderr)."""
    kernel, bad, dst = directory / "loop.pto", directory / f"{case_id}.npy", directory / "dst.npy"
    kernel.write_text(LOOP_KERNEL)
    dst.write_bytes(npy_bytes(np.zeros(8, dtype=np.float32)))
    bad.write_bytes(data)
    code, stdout, stderr = run_in_process([str(kernel), str(bad), str(dst)], main=pto_run_main)
    problem = check_output(code, stdout, stderr, located=False)
    if problem is None and code != 0 and not stderr.startswith((f"{bad}: error: ", f"{kernel}:")):
        problem = "the error names neither the .npy file nor a kernel line"
    return problem, stderr


class InterruptAt(Interpreter.Listener):
    """Ctrl-C after `ops` interpreted ops."""

    def __init__(self, ops: int):
        self.left = ops

    def will_interpret_op(self, op, args) -> None:
        self.left -= 1
        if self.left == 0:
            raise KeyboardInterrupt


def run_interrupted(case: int, directory: Path, seed: int = SEED) -> str | None:
    """pto-run interrupted at a random op, or while writing its second output: it must exit
    130 and leave the output directory as it was. What is wrong, or None."""
    rng = random.Random(seed + 2 + case)
    kernel, out = directory / "loop.pto", directory / f"out{case}"
    kernel.write_text(LOOP_KERNEL)
    arrays = [directory / "src.npy", directory / "dst.npy"]
    for path in arrays:
        path.write_bytes(npy_bytes(np.arange(8, dtype=np.float32)))
    out.mkdir(exist_ok=True)
    (out / "arg0.npy").write_bytes(b"old")
    before = sorted((p.name, p.read_bytes()) for p in out.iterdir())
    listeners = (InterruptAt(rng.randint(1, 200)),) if case % 2 == 0 else ()
    saves: list[object] = []
    real_save = np.save

    def save(file, array):
        saves.append(array)
        if len(saves) == 2:
            raise KeyboardInterrupt
        real_save(file, array)

    progress = contextlib.nullcontext(SimpleNamespace(listeners=listeners))
    with mock.patch.object(pto_run_module.ProgressBar, "on_terminal", return_value=progress), mock.patch.object(
        pto_run_module.np, "save", save
    ):
        code, stdout, stderr = run_in_process(
            [str(kernel), *map(str, arrays), "--out", str(out)], main=pto_run_main
        )
    after = sorted((p.name, p.read_bytes()) for p in out.iterdir())
    if code != 130 or stdout or stderr:
        return f"exit {code} (expected 130, quietly); stderr: {stderr}"
    if after != before:
        return f"the output directory changed: {[name for name, _ in after]}"
    return None


@pytest.mark.parametrize("case_id,data", NPY_CASES, ids=[c[0] for c in NPY_CASES])
def test_corrupt_npy_never_crashes(case_id, data, case_dir):
    problem, stderr = run_npy_case(case_id, data, case_dir)
    assert problem is None, f"{problem}\n--- .npy ({case_id}) ---\n{data!r}\n--- stderr ---\n{stderr}"


@pytest.mark.parametrize("case", range(N_INTERRUPTS))
def test_interrupted_run_leaves_outputs_as_they_were(case, tmp_path):
    problem = run_interrupted(case, tmp_path)
    assert problem is None, problem


# ---------------------------------------------------------------------------
# The real console script


def pto_opt_executable() -> str:
    candidate = Path(sys.executable).parent / "pto-opt"
    if candidate.exists():
        return str(candidate)
    found = shutil.which("pto-opt")
    if found is None:
        pytest.skip("pto-opt console script not installed")
    return found


SUBPROCESS_INPUTS = {
    "truncated": DPS_KERNEL[: DPS_KERNEL.index("outs(%g") + 9].encode(),
    "bad-tile-key": SSA_KERNEL.replace("!pto.tile<vec, 16x16xf16>", "!pto.tile<vec, 16x16xf16, bogus=1>", 1).encode(),
    "invalid-utf8": LEGACY_KERNEL.encode().replace(b"dtype=f16", b"dtype=f\xff16", 1),
}


@pytest.mark.parametrize("name", sorted(SUBPROCESS_INPUTS))
def test_console_script_reports_located_error(name, tmp_path):
    path = tmp_path / f"{name}.pto"
    path.write_bytes(SUBPROCESS_INPUTS[name])
    proc = subprocess.run(
        [pto_opt_executable(), str(path)], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "internal error" not in proc.stdout + proc.stderr
    assert LOCATED_ERROR.search(proc.stderr), proc.stderr
    assert proc.stderr.startswith(f"{path}:"), proc.stderr
