"""
TRANDOM on every target against goldens written here: Random123's published Philox4x32-10 answers
(counter 0 / key 0, all ones, the digits of pi) placed where each target stores word w of lane 0,
and a scalar transcription of each target's loops (cpu/TRandom.hpp: word w of lane l at column
64 * w + l of each 256-column block, the counter moving by the row stride / 4 per block;
npu/a5/TRandom.hpp: at column 4 * l + w, moving by 64 per block and by (valid cols - 1) % 64 + 1
after a row's last), element by element in Python integers. a2a3 has no TRANDOM. Elements
outside the valid region keep their contents.
"""

from __future__ import annotations

import numpy as np
import pytest

from pto_dialect import PtoError
from tests.interpreter.harness import TARGETS, assert_bits_equal, constants, filled, func, gm_views, run, tile, view

COVERS = ("pto.trandom",)

IMPLEMENTING = ("cpu", "a5")

MASK = 0xFFFFFFFF

KNOWN_ANSWERS = [  # Random123 kat_vectors, philox4x32 10 rounds: counter, key, the four words
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((MASK,) * 4, (MASK,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0), (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


def philox_words(counter: int, key: tuple[int, int], rounds: int) -> tuple[int, ...]:
    """One 128-bit counter's four words, as the headers' rounds compute them, in Python ints."""
    c = [(counter >> (32 * i)) & MASK for i in range(4)]
    k0, k1 = key
    for _ in range(rounds):
        p0, p1 = c[0] * 0xD2511F53, c[2] * 0xCD9E8D57
        c = [(p1 >> 32) ^ c[1] ^ k0, p1 & MASK, (p0 >> 32) ^ c[3] ^ k1, p0 & MASK]
        k0, k1 = (k0 + 0x9E3779B9) & MASK, (k1 + 0xBB67AE85) & MASK
    return tuple(c)


def expected(target: str, shape: tuple[int, int], valid: tuple[int, int], key, counter, rounds: int, dtype: str) -> np.ndarray:
    out = filled(shape, dtype).astype(np.int64)
    rows, cols = valid
    base = sum(w << (32 * i) for i, w in enumerate(counter))
    blocks = -(-cols // 256)
    for r in range(rows):
        for b in range(blocks):
            if target == "cpu":
                start = base + (r * blocks + b) * (shape[1] // 4)
            else:
                start = base + r * (64 * (blocks - 1) + (cols - 1) % 64 + 1) + 64 * b
            for lane in range(64):
                words = philox_words((start + lane) % (1 << 128), key, rounds)
                for w, value in enumerate(words):
                    col = 256 * b + (64 * w + lane if target == "cpu" else 4 * lane + w)
                    if col < cols:
                        out[r, col] = value
    return out.astype(np.uint32).view(np.int32 if dtype == "i32" else np.uint32)


def signed(word: int) -> int:
    return word - (1 << 32) if word >= 1 << 31 else word


WORDS = ("key0", "key1", "counter0", "counter1", "counter2", "counter3")


def random_text(dst_t: str, rounds: str = "") -> str:
    return func(
        [("d", dst_t), *((w, "i32") for w in WORDS)],
        f"pto.trandom ins({', '.join('%' + w for w in WORDS)}{rounds} : {', '.join(['i32'] * 6)}) outs(%d : {dst_t})",
    )


def scalars(key, counter) -> list[np.int32]:
    return [np.int32(signed(w)) for w in (*key, *counter)]


@pytest.mark.parametrize("target", IMPLEMENTING)
@pytest.mark.parametrize(("counter", "key", "answer"), KNOWN_ANSWERS)
def test_known_answers_of_philox_4x32_10(target: str, counter, key, answer) -> None:
    dst_t = tile((1, 256), "ui32")
    out = run(random_text(dst_t), target, [filled((1, 256), "ui32"), *scalars(key, counter)])[0]
    columns = [0, 64, 128, 192] if target == "cpu" else [0, 1, 2, 3]
    assert [int(v) for v in out[0, columns]] == list(answer)


@pytest.mark.parametrize("target", IMPLEMENTING)
@pytest.mark.parametrize(
    ("shape", "valid", "rounds", "dtype"),
    [((4, 256), (4, 256), 10, "i32"), ((3, 304), (3, 300), 7, "ui32"), ((2, 520), (2, 513), 10, "ui32"), ((5, 64), (4, 37), 7, "i32")],
)
def test_each_target_order_and_counter_walk(target: str, shape, valid, rounds: int, dtype: str) -> None:
    key, counter = (0x12345678, 0x9ABCDEF0), (MASK - 100, MASK, 7, 0)  # the low words carry into the high ones
    dst_t = tile(shape, dtype, valid=valid)
    attr = "" if rounds == 10 else f" {{rounds = {rounds} : i32}}"
    out = run(random_text(dst_t, attr), target, [filled(shape, dtype), *scalars(key, counter)])[0]
    assert_bits_equal(out, expected(target, shape, valid, key, counter, rounds, dtype))


@pytest.mark.parametrize("target", IMPLEMENTING)
def test_valid_shape_given_at_run_time(target: str) -> None:
    dst_t = tile((2, 512), "i32", valid=("?", "?"))
    text = func([("z", "!pto.ptr<i32>"), ("n", "index"), *((w, "i32") for w in WORDS)], constants(0, 1, 2, 300) + f"""
{gm_views([("z", "i32", (2, 300))])}
%d = pto.alloc_tile valid_row = %c2 valid_col = %n : {dst_t}
pto.trandom ins({', '.join('%' + w for w in WORDS)} : {', '.join(['i32'] * 6)}) outs(%d : {dst_t})
pto.tstore ins(%d : {dst_t}) outs(%zp : {view((2, 300), "i32")})""")
    key, counter = (1, 2), (3, 4, 5, 6)
    out = run(text, target, [filled(600, "i32"), np.int64(300), *scalars(key, counter)])[0]
    assert_bits_equal(out.reshape(2, 300), expected(target, (2, 512), (2, 300), key, counter, 10, "i32")[:, :300])


@pytest.mark.parametrize("target", [t for t in TARGETS if t not in IMPLEMENTING])
def test_not_implemented_elsewhere(target: str) -> None:
    with pytest.raises(PtoError, match=f"is not implemented: .* \\(target {target}\\)"):
        run(random_text(tile((1, 256), "i32")), target, [filled((1, 256), "i32"), *scalars((0, 0), (0, 0, 0, 0))])


@pytest.mark.parametrize("target", IMPLEMENTING)
def test_rounds_other_than_7_or_10_refused(target: str) -> None:
    with pytest.raises(PtoError, match=f"expects rounds to be 7 or 10 \\(a static_assert\\), got 8 \\(target {target}\\)"):
        run(random_text(tile((1, 256), "i32"), " {rounds = 8 : i32}"), target, [filled((1, 256), "i32"), *scalars((0, 0), (0, 0, 0, 0))])
