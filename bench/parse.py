"""
Parse+verify throughput of the pto dialect against xDSL's own parser on builtin IR.

Generates, in a temporary directory, a kernel of N pto ops of mixed kinds (mgather
DPS, tgather DPS index and mask forms, tcolargmin DPS, tload, tstore), every tile
type spelled out, once in the compact `!pto.tile_buf<vec, 16x16xf16>` spelling and
once in the legacy `!pto.tile_buf<loc=vec, dtype=f16, ...>` one; and, for each, a
builtin-only file (a chain of arith.addi/arith.muli on i32 in a func.func) with the
same number of MLIR lexer tokens (within 1%). It then times, in-process, best of 3:

- ours:  `pto_dialect.parse` (LocatedParser.parse_module + verify_located);
- xDSL:  `xdsl.parser.Parser(...).parse_module()` + `module.verify()` on the builtin file,

and prints a markdown table with ops/s, tokens/s (from process CPU time, which a
busy machine disturbs much less than wall time) and ours/xDSL (= the time ratio
xDSL/ours, as the token counts match). The run is repeated at 5N ops to check that
parsing is linear: time(5N)/time(N) should be about 5. To stay within a few minutes,
the 5N run is by default a single run, with xDSL measured only at the compact file's
token count (the builtin file with the legacy file's tokens has 13x as many ops);
`--full` measures everything best of 3 (about 3x longer).

Cost: what dominates is xDSL on the builtin files (13x as many ops as the legacy pto
file, ~2.4k ops/s). On the shared 2-core machine this was written on (load ~2), the
`--full` run took 38 min, so the default run takes ~10 min; `--ops 3000` gives the
same ratios in ~3 min.

    .venv/bin/python bench/parse.py [--ops 10000] [--scale 5] [--repeat 3] [--full] [--profile]

`--profile` also prints the cProfile hotspots of parsing the compact file.

`--baseline DIR` also parses each pto file with another source tree (for example an older
commit unpacked with `git archive REV | tar -x -C DIR`), in a fresh process per run that
warms up on a small kernel and then reports the CPU time of parse+verify alone; its runs
alternate with ours, and a last table gives our speed-up over it.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import os
import pstats
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.func import Func
from xdsl.parser import Parser
from xdsl.utils.lexer import Input
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

import pto_dialect

# ---------------------------------------------------------------------------
# Generating the inputs


def tile(loc: str, rows: int, cols: int, dtype: str, legacy: bool) -> str:
    if legacy:
        return (
            f"!pto.tile_buf<loc={loc}, dtype={dtype}, rows={rows}, cols={cols}, v_row={rows}, "
            f"v_col={cols}, blayout=row_major, slayout=none_box, fractal=512, pad=0>"
        )
    return f"!pto.tile_buf<{loc}, {rows}x{cols}x{dtype}>"


def pto_parts(legacy: bool) -> tuple[str, list[str], str]:
    """Header, the op kinds (one line each, cycled), footer."""
    t = {
        "idx8": tile("vec", 1, 8, "i32", legacy),
        "rows": tile("vec", 8, 32, "f16", legacy),
        "s": tile("vec", 16, 16, "f32", legacy),
        "i": tile("vec", 16, 16, "i32", legacy),
        "m": tile("vec", 16, 8, "f32", legacy),
        "h": tile("vec", 16, 16, "f16", legacy),
        "ai": tile("vec", 1, 16, "i32", legacy),
    }
    tab = "!pto.partition_tensor_view<64x32xf16>"
    win = "!pto.partition_tensor_view<8x32xf16>"
    header = (
        f"func.func @bench(%tab: {tab}, %win: {win}, %ids: {t['idx8']}, %rows: {t['rows']},\n"
        f"    %s: {t['s']}, %idx: {t['i']}, %tmp: {t['i']}, %g: {t['s']}, %m: {t['m']},\n"
        f"    %h: {t['h']}, %ai: {t['ai']}) {{\n"
    )
    ops = [
        (
            f"  pto.mgather ins(%tab, %ids : {tab}, {t['idx8']}) outs(%rows : {t['rows']})"
            " {coalesce = #pto<coalesce row>, gatherOob = #pto<gather_oob clamp>}\n"
        ),
        f"  pto.tgather ins(%s, %idx, %tmp : {t['s']}, {t['i']}, {t['i']}) outs(%g : {t['s']})\n",
        (
            f"  pto.tgather ins(%s, {{maskPattern = #pto.mask_pattern<P0101>}} : {t['s']}, \"row\")"
            f" outs(%m : {t['m']})\n"
        ),
        f"  pto.tcolargmin ins(%h : {t['h']}) outs(%ai : {t['ai']})\n",
        f"  pto.tload ins(%win : {win}) outs(%rows : {t['rows']})\n",
        f"  pto.tstore ins(%rows : {t['rows']}) outs(%win : {win})\n",
    ]
    return header, ops, "  return\n}\n"


def pto_kernel(n_ops: int, legacy: bool) -> str:
    header, ops, footer = pto_parts(legacy)
    return header + "".join(ops[i % len(ops)] for i in range(n_ops)) + footer


BUILTIN_HEADER = "func.func @bench(%a: i32, %b: i32) -> i32 {\n  %v0 = arith.addi %a, %b : i32\n"
BUILTIN_FOOTER = "  return %v{last} : i32\n}}\n"


def builtin_kernel(n_ops: int) -> str:
    """`n_ops` arith ops (alternating addi/muli, each using the previous result)."""
    lines = [BUILTIN_HEADER]
    for i in range(1, n_ops):
        op = "muli" if i % 2 else "addi"
        lines.append(f"  %v{i} = arith.{op} %v{i - 1}, %a : i32\n")
    lines.append(BUILTIN_FOOTER.format(last=n_ops - 1))
    return "".join(lines)


def count_tokens(text: str) -> int:
    lexer = MLIRLexer(Input(text, "<count>"))
    n = 0
    while lexer.lex().kind is not MLIRTokenKind.EOF:
        n += 1
    return n


def pto_tokens(n_ops: int, legacy: bool) -> int:
    """Token count of `pto_kernel(n_ops, legacy)`, by parts (tokens never span lines)."""
    header, ops, footer = pto_parts(legacy)
    per_op = [count_tokens(op) for op in ops]
    return (
        count_tokens(header)
        + count_tokens(footer)
        + sum(per_op[i % len(ops)] for i in range(n_ops))
    )


def builtin_tokens(n_ops: int) -> int:
    # every op line is `%vK = arith.OP %vJ , %a : i32`: the same count whatever K, J
    per_op = count_tokens("  %v1 = arith.muli %v0, %a : i32\n")
    ends = count_tokens(BUILTIN_HEADER) + count_tokens(BUILTIN_FOOTER.format(last=1))
    return ends + (n_ops - 1) * per_op


def builtin_ops_for(tokens: int) -> int:
    """The op count whose builtin file has `tokens` tokens (as near as the op size allows)."""
    per_op = builtin_tokens(2) - builtin_tokens(1)
    return max(1, 1 + round((tokens - builtin_tokens(1)) / per_op))


# ---------------------------------------------------------------------------
# Measuring


def xdsl_context() -> Context:
    ctx = Context()
    for dialect in (Builtin, Func, Arith):
        ctx.load_dialect(dialect)
    return ctx


def parse_ours(ctx: Context, text: str, name: str):
    return pto_dialect.parse(text, name, ctx)


def parse_xdsl(ctx: Context, text: str, name: str):
    module = Parser(ctx, text, name).parse_module()
    module.verify()
    return module


BASELINE_PARSE = """
import gc, sys, time
sys.path.insert(0, sys.argv[1])
import pto_dialect
ctx = pto_dialect.make_context()
warm_up = open(sys.argv[3]).read()
pto_dialect.parse(warm_up, "<warm-up>", ctx)
text = open(sys.argv[2]).read()
gc.collect()
start = time.process_time()
pto_dialect.parse(text, sys.argv[2], ctx)
print(time.process_time() - start)
"""


def run_baseline(source: Path, path: Path, warm_up: Path) -> float:
    """CPU seconds of one parse+verify by the pto_dialect of another source tree."""
    done = subprocess.run(
        [sys.executable, "-c", BASELINE_PARSE, str(source), str(path), str(warm_up)],
        capture_output=True, text=True, check=True,
    )
    return float(done.stdout)


def run_once(fn, ctx: Context, text: str, name: str) -> float:
    """CPU seconds of one parse+verify: on a shared machine wall time also counts the
    time the process waits for a core, which made 2x inputs look 4x slower."""
    gc.collect()
    start = time.process_time()
    module = fn(ctx, text, name)
    seconds = time.process_time() - start
    del module
    return seconds


@dataclass
class Row:
    what: str
    ops: int
    tokens: int
    seconds: float

    @property
    def ops_per_s(self) -> float:
        return self.ops / self.seconds

    @property
    def tokens_per_s(self) -> float:
        return self.tokens / self.seconds


def measure(
    n_ops: int, repeat: int, workdir: Path, xdsl_for: tuple[str, ...], baseline: Path | None = None
) -> dict[str, Row]:
    """Best of `repeat` for each input; ours, xDSL (and the baseline) alternate, so that all
    see the same machine load. xDSL's builtin file is measured for the spellings in `xdsl_for`."""
    rows: dict[str, Row] = {}
    ours, xdsl = pto_dialect.make_context(), xdsl_context()
    for spelling, legacy in (("compact", False), ("legacy", True)):
        path = workdir / f"pto_{spelling}_{n_ops}.pto"
        path.write_text(pto_kernel(n_ops, legacy))
        tokens = pto_tokens(n_ops, legacy)
        b_ops = builtin_ops_for(tokens)
        b_tokens = builtin_tokens(b_ops)
        assert abs(b_tokens - tokens) <= 0.01 * tokens, (b_tokens, tokens)
        b_path = workdir / f"builtin_{spelling}_{n_ops}.mlir"
        b_path.write_text(builtin_kernel(b_ops))
        text, b_text = path.read_text(), b_path.read_text()
        warm_up = workdir / f"warm_up_{spelling}.pto"
        warm_up.write_text(pto_kernel(13, legacy))
        with_xdsl = spelling in xdsl_for
        ours_s, xdsl_s, base_s = float("inf"), float("inf"), float("inf")
        for i in range(repeat):
            progress(f"{n_ops} ops, {spelling}: run {i + 1}/{repeat}")
            ours_s = min(ours_s, run_once(parse_ours, ours, text, str(path)))
            if with_xdsl:
                xdsl_s = min(xdsl_s, run_once(parse_xdsl, xdsl, b_text, str(b_path)))
            if baseline is not None:
                base_s = min(base_s, run_baseline(baseline, path, warm_up))
        # ops: the func and its return count too
        rows[f"pto {spelling}"] = Row(f"pto {spelling}", n_ops + 2, tokens, ours_s)
        if baseline is not None:
            rows[f"baseline {spelling}"] = Row(f"baseline pto {spelling}", n_ops + 2, tokens, base_s)
        if with_xdsl:
            rows[f"xDSL ({spelling} tokens)"] = Row(
                f"xDSL builtin, tokens of pto {spelling}", b_ops + 2, b_tokens, xdsl_s
            )
    progress("")
    return rows


def progress(text: str) -> None:
    if sys.stderr.isatty():
        print(f"\r{text:<60}", end="", file=sys.stderr, flush=True)


def check_token_counting() -> None:
    """The token counts by parts agree with lexing the whole file."""
    for legacy in (False, True):
        assert pto_tokens(13, legacy) == count_tokens(pto_kernel(13, legacy))
    assert builtin_tokens(13) == count_tokens(builtin_kernel(13))
    # the generated files parse and verify
    pto_dialect.parse(pto_kernel(13, False))
    pto_dialect.parse(pto_kernel(13, True))
    parse_xdsl(xdsl_context(), builtin_kernel(13), "<check>")


def print_table(results: dict[int, dict[str, Row]], base: int, big: int) -> None:
    print("| input | ops | tokens | best CPU time (s) | ops/s | tokens/s | ours/xDSL (same tokens) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for n in (base, big):
        rows = results[n]
        for spelling in ("compact", "legacy"):
            ours = rows[f"pto {spelling}"]
            ref = rows.get(f"xDSL ({spelling} tokens)")
            cells = [(ours, f"**{ours.tokens_per_s / ref.tokens_per_s:.2f}x**" if ref else "—")]
            if ref:
                cells.append((ref, ""))
            for row, cell in cells:
                print(
                    f"| {row.what} ({n / 1000:g}k) | {row.ops:,} | {row.tokens:,} | {row.seconds:.2f} "
                    f"| {row.ops_per_s:,.0f} | {row.tokens_per_s:,.0f} | {cell} |"
                )
    print()
    print(f"Linearity, time({big / 1000:g}k)/time({base / 1000:g}k) (about {big / base:g} = linear):")
    print()
    print("| input | time ratio |")
    print("|---|---:|")
    for key, row in results[base].items():
        if key in results[big]:
            print(f"| {row.what} | {results[big][key].seconds / row.seconds:.2f} |")
    if any(key.startswith("baseline") for key in results[base]):
        print("\nAgainst the baseline (same files, runs alternating):\n")
        print("| input | ops/s | baseline ops/s | speed-up |")
        print("|---|---:|---:|---:|")
        for n in (base, big):
            for spelling in ("compact", "legacy"):
                ours, ref = results[n].get(f"pto {spelling}"), results[n].get(f"baseline {spelling}")
                if ours and ref:
                    print(
                        f"| pto {spelling} ({n / 1000:g}k) | {ours.ops_per_s:,.0f} | {ref.ops_per_s:,.0f} "
                        f"| **{ref.seconds / ours.seconds:.2f}x** |"
                    )


def machine_note() -> str:
    """A yardstick for comparing runs across machines and loads."""
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        sum(range(10**6))
        best = min(best, time.perf_counter() - start)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load:.1f}, "
        f"sum(range(10**6)) {best * 1000:.0f} ms"
    )


def profile_compact(n_ops: int, top: int) -> None:
    ctx = pto_dialect.make_context()
    text = pto_kernel(n_ops, legacy=False)
    profiler = cProfile.Profile()
    profiler.enable()
    pto_dialect.parse(text, "<profile>", ctx)
    profiler.disable()
    print(f"\ncProfile of parsing the compact {n_ops}-op file (top {top} by own time):\n")
    stats = pstats.Stats(profiler)
    stats.sort_stats("tottime").print_stats(top)
    print(f"\n(top {top} by cumulative time)\n")
    stats.sort_stats("cumulative").print_stats(top)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ops", type=int, default=10_000, help="pto ops in the base file")
    ap.add_argument("--scale", type=int, default=5, help="the linearity run has scale x ops")
    ap.add_argument("--repeat", type=int, default=3, help="best of this many runs (base size)")
    ap.add_argument(
        "--full",
        action="store_true",
        help="at the big size too, best of --repeat and xDSL for both spellings "
        "(by default: one run, xDSL only at the compact file's token count)",
    )
    ap.add_argument("--profile", action="store_true", help="cProfile the compact file")
    ap.add_argument("--baseline", type=Path, help="another source tree to parse the pto files with")
    args = ap.parse_args(argv)

    check_token_counting()
    base, big = args.ops, args.ops * args.scale
    started = time.perf_counter()
    results: dict[int, dict[str, Row]] = {}
    with tempfile.TemporaryDirectory(prefix="pto-bench-") as tmp:
        results[base] = measure(base, args.repeat, Path(tmp), ("compact", "legacy"), args.baseline)
        if args.full:
            results[big] = measure(big, args.repeat, Path(tmp), ("compact", "legacy"), args.baseline)
        else:
            results[big] = measure(big, 1, Path(tmp), ("compact",), args.baseline)
    big_note = f"best of {args.repeat}" if args.full else "one run"
    print(
        f"Parse+verify throughput: {base:,} ops best of {args.repeat}, {big:,} ops {big_note} "
        f"({machine_note()})\n"
    )
    print_table(results, base, big)
    print(f"\n(total {time.perf_counter() - started:.0f} s wall)")
    if args.profile:
        profile_compact(base, 25)


if __name__ == "__main__":
    main()
