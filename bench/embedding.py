"""
Interpreter speed on embedding lookups against NumPy doing the same, side by side in one process,
round after round (each round runs every variant once, in turn), reporting medians:

- DeepSeek style (issue 26, aim: within 1.5x): an scf.for over 1024 tokens reading each token's
  id with `pto.load_scalar`, clamping it into a VOCAB x 7168 bf16 table (arith.maxsi /
  arith.minsi), and moving that row GM -> UB -> GM through partition views at the id and at the
  token (examples/embedding_scalar_ids.pto's kernel, 7168 wide); against NumPy per token
  (`out[t] = table[clamped id]`). The loop runs batched (interpreter/batch.py: scalar reads);
  iteration by iteration is shown for comparison.
- PTOAS style (issue 30, aim: at most 1.2x): bench/run.py's PTOAS_KERNEL (1024 tiles of 64 ids,
  row MGATHER of 64 x 128 f16 with clamp, tiles allocated with `addr =` inside
  `pto.section.vector`); against bench/run.py's per-tile np.take loop.

Each is timed with a freshly allocated output array per call (np.zeros, as a user calls it, on
both sides) and with one output array reused by every call, both written in place
(`interpreter.run(..., inplace=True)`, as NumPy writes the array it is given); and with a fresh
array run the default way, which copies every argument the kernel may write and returns the
copy. interpreter.run on an already parsed module: its pipeline and lowering are included.

    .venv/bin/python bench/embedding.py [--target a2a3] [--rounds 15] [--vocab 4096]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import ml_dtypes
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import interpreter
import pto_dialect
import run as ptoas_lookup
from run import alternating
from parse import machine_note

TOKENS, HIDDEN = 1024, 7168
KINDS = ("fresh", "reused", "fresh, copied")
"""The output given to each call: a new np.zeros array or one array reused, written in place
(`interpreter.run(..., inplace=True)`); a new array again, run copying it (the default)."""

SCALAR_IDS = f"""
func.func @embedding(%table: !pto.ptr<bf16>, %ids: !pto.ptr<i32>, %out: !pto.ptr<bf16>, %vocab: index)
    attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %chidden = arith.constant {HIDDEN} : index
  %ctokens = arith.constant {TOKENS} : index
  %last = arith.subi %vocab, %c1 : index
  %tab = pto.make_tensor_view %table, shape = [%vocab, %chidden], strides = [%chidden, %c1] : !pto.tensor_view<?x?xbf16>
  %outv = pto.make_tensor_view %out, shape = [%ctokens, %chidden], strides = [%chidden, %c1] : !pto.tensor_view<?x?xbf16>
  %row = pto.alloc_tile : !pto.tile_buf<vec, 1x{HIDDEN}xbf16>
  pto.section.vector {{
    scf.for %t = %c0 to %ctokens step %c1 {{
      %id = pto.load_scalar %ids[%t] : !pto.ptr<i32> -> i32
      %at = arith.index_cast %id : i32 to index
      %low = arith.maxsi %at, %c0 : index
      %r = arith.minsi %low, %last : index
      %src = pto.partition_view %tab, offsets = [%r, %c0], sizes = [%c1, %chidden] : !pto.tensor_view<?x?xbf16>
      %dst = pto.partition_view %outv, offsets = [%t, %c0], sizes = [%c1, %chidden] : !pto.tensor_view<?x?xbf16>
      pto.tload ins(%src : !pto.partition_tensor_view<1x{HIDDEN}xbf16>) outs(%row : !pto.tile_buf<vec, 1x{HIDDEN}xbf16>)
      pto.tstore ins(%row : !pto.tile_buf<vec, 1x{HIDDEN}xbf16>) outs(%dst : !pto.partition_tensor_view<1x{HIDDEN}xbf16>)
    }}
  }}
  return
}}
"""


def numpy_per_token(table: np.ndarray, ids: np.ndarray, out: np.ndarray) -> np.ndarray:
    """The same lookup, token by token, into out (TOKENS x HIDDEN)."""
    last = table.shape[0] - 1
    for t in range(TOKENS):
        out[t] = table[min(max(int(ids[t]), 0), last)]
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--target", default="a2a3")
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--vocab", type=int, default=4096, help="table rows of the DeepSeek-style lookup")
    args = p.parse_args()
    rng = np.random.default_rng(0)

    # DeepSeek style: ids past both ends of the table, repeated ids
    vocab = np.array(args.vocab)
    table = rng.standard_normal((args.vocab, HIDDEN), np.float32).astype(ml_dtypes.bfloat16)
    ids = rng.integers(-8, args.vocab + 8, TOKENS).astype(np.int32)
    ids[::97] = ids[0]
    module = pto_dialect.parse(SCALAR_IDS, "embedding_scalar_ids.pto")
    reused = np.zeros((TOKENS, HIDDEN), ml_dtypes.bfloat16)
    expected = numpy_per_token(table, ids, np.zeros_like(reused))

    def deepseek(out: np.ndarray, batch_loops: bool = True, inplace: bool = True) -> np.ndarray:
        return interpreter.run(module, args.target, [table, ids, out, vocab], batch_loops=batch_loops, inplace=inplace)[2]

    for batch_loops in (True, False):
        for inplace in (True, False):
            result = deepseek(np.zeros_like(reused), batch_loops, inplace)
            assert np.array_equal(result.view(np.uint16), expected.view(np.uint16))

    # PTOAS style
    gtable = rng.standard_normal(ptoas_lookup.ROWS * ptoas_lookup.COLS).astype(np.float16)
    gids = rng.integers(-10, ptoas_lookup.ROWS + 10, ptoas_lookup.TILES * ptoas_lookup.IDS).astype(np.int32)
    greused = np.zeros(ptoas_lookup.TILES * ptoas_lookup.IDS * ptoas_lookup.COLS, np.float16)
    ptoas = pto_dialect.parse(ptoas_lookup.PTOAS_KERNEL, "embedding_ptoas.pto")
    gexpected = greused.copy()
    ptoas_lookup.bare_numpy(gtable, gids, gexpected)
    for inplace in (True, False):
        assert np.array_equal(interpreter.run(ptoas, args.target, [gtable, gids, np.zeros_like(greused)], inplace=inplace)[2], gexpected)

    def ptoas_run(out: np.ndarray, inplace: bool = True) -> np.ndarray:
        return interpreter.run(ptoas, args.target, [gtable, gids, out], inplace=inplace)[2]

    def take_loop(out: np.ndarray) -> np.ndarray:
        ptoas_lookup.bare_numpy(gtable, gids, out)
        return out

    medians = alternating(args.rounds, {
        "deepseek fresh": lambda: deepseek(np.zeros_like(reused)),
        "numpy fresh": lambda: numpy_per_token(table, ids, np.zeros_like(reused)),
        "deepseek reused": lambda: deepseek(reused),
        "numpy reused": lambda: numpy_per_token(table, ids, reused),
        "ptoas fresh": lambda: ptoas_run(np.zeros_like(greused)),
        "take fresh": lambda: take_loop(np.zeros_like(greused)),
        "ptoas reused": lambda: ptoas_run(greused),
        "take reused": lambda: take_loop(greused),
        "deepseek fresh, copied": lambda: deepseek(np.zeros_like(reused), inplace=False),
        "numpy fresh, copied": lambda: numpy_per_token(table, ids, np.zeros_like(reused)),
        "ptoas fresh, copied": lambda: ptoas_run(np.zeros_like(greused), inplace=False),
        "take fresh, copied": lambda: take_loop(np.zeros_like(greused)),
    })
    serial = alternating(max(1, args.rounds // 5), {"serial": lambda: deepseek(reused, batch_loops=False)})["serial"][0]

    def row(kind: str, ours: str, theirs: str) -> str:
        (wall, cpu), (base_wall, base_cpu) = medians[f"{ours} {kind}"], medians[f"{theirs} {kind}"]
        return (f"| {kind} | {wall * 1e3:.1f} ms | {base_wall * 1e3:.1f} ms | {wall / base_wall:.2f}x "
                f"| {cpu * 1e3:.1f} ms | {base_cpu * 1e3:.1f} ms | {cpu / base_cpu:.2f}x |")

    print(f"target {args.target}, medians of {args.rounds} alternating rounds ({machine_note()})\n")
    print(f"DeepSeek style, {TOKENS} tokens x {HIDDEN} bf16 from {args.vocab} rows "
          f"(iteration by iteration, reused output: {serial * 1e3:.1f} ms):\n")
    print("| output | interpreter, batched | NumPy per token | wall ratio | CPU: interpreter | NumPy | CPU ratio |")
    print("|---|---|---|---|---|---|---|")
    for kind in KINDS:
        print(row(kind, "deepseek", "numpy"))
    print(f"\nPTOAS style, {ptoas_lookup.TILES} tiles of {ptoas_lookup.IDS} ids x {ptoas_lookup.COLS} f16:\n")
    print("| output | interpreter, batched | per-tile np.take loop | wall ratio | CPU: interpreter | np.take loop | CPU ratio |")
    print("|---|---|---|---|---|---|---|")
    for kind in KINDS:
        print(row(kind, "ptoas", "take"))

if __name__ == "__main__":
    main()
