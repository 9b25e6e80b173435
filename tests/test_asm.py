"""
The PTO assembly form from Python (pto_dialect.asm): what the reader builds, the
printer's round trip, and that no input, however malformed, escapes as anything
but a located PtoError.
"""

import random
import re
from pathlib import Path

import pytest

from pto_dialect import make_context
from pto_dialect.asm import print_asm, read_asm
from pto_dialect.diagnostics import PtoError
from pto_dialect.instructions.mgather import MGatherOp
from pto_dialect.instructions.mscatter import MScatterOp
from pto_dialect.parser import verify_located

ROOT = Path(__file__).resolve().parent.parent
ASM_FILES = sorted([*ROOT.glob("examples/*.ptoasm"), *ROOT.glob("tests/filecheck/asm/*.ptoasm")])


def read(text: str):
    module = read_asm(make_context(), text, "k.ptoasm", "k")
    verify_located(module)
    return module


def test_reader_fills_in_the_short_form():
    module = read(
        "%d = mgather %m, %i : !pto.memref<64x32xf16>, !pto.tile<vec, 1x8xi32> -> !pto.tile<vec, 8x32xf16>\n"
    )
    (op,) = [o for o in module.walk() if isinstance(o, MGatherOp)]
    assert op.coalesce is not None and op.coalesce.data == "row" and op.gather_oob is None
    assert [a.name_hint for a in op.parent_block().args] == ["m", "i"]


def test_reader_takes_mscatter_table_first():
    """`mscatter %t, %s, %i : Tt, Ts, Ti` (the docs' type order) is `pto.mscatter %s, %i, %t`:
    no result, no `->`, and the function returns nothing."""
    module = read(
        "mscatter %t, %s, %i {coalesce = #pto<coalesce row>} : !pto.memref<64x32xf16>, !pto.tile<vec, 8x32xf16>, "
        "!pto.tile<vec, 1x8xi32>\n"
    )
    (op,) = [o for o in module.walk() if isinstance(o, MScatterOp)]
    assert [v.name_hint for v in (op.src, op.idx, op.mem)] == ["s", "i", "t"] and not op.results
    assert [a.name_hint for a in op.parent_block().args] == ["t", "s", "i"]
    assert print_asm(module).startswith("mscatter %t, %s, %i {coalesce = #pto<coalesce row>} : !pto.memref<64x32xf16>")


def test_canonical_file_round_trips():
    text = (ROOT / "tests/filecheck/asm/roundtrip.ptoasm").read_text()
    instructions = "".join(line + "\n" for line in text.splitlines() if line and not line.startswith("//"))
    assert print_asm(read(instructions)) == instructions


def test_errors_are_located():
    with pytest.raises(PtoError) as error:
        read("%d = mgather %m, %i : !pto.memref<64x32xf16>\n")
    assert str(error.value).startswith("k.ptoasm:1:23: error: expected ',' or '->', found end of file")


def _mutations(text: str, rng: random.Random) -> list[str]:
    """Truncations, dropped and doubled characters, swapped tokens."""
    tokens = re.split(r"(\s+)", text)
    out = []
    for _ in range(12):
        cut = rng.randrange(len(text) + 1)
        out.append(text[:cut])
        out.append(text[:cut] + text[cut + 1 :])
        out.append(text[:cut] + text[cut : cut + 1] * 2 + text[cut + 1 :])
        i, j = rng.randrange(len(tokens)), rng.randrange(len(tokens))
        swapped = list(tokens)
        swapped[i], swapped[j] = swapped[j], swapped[i]
        out.append("".join(swapped))
    return out


@pytest.mark.parametrize("path", ASM_FILES, ids=[p.name for p in ASM_FILES])
def test_malformed_input_is_a_located_error(path: Path):
    rng = random.Random(path.name)
    for chunk in path.read_text().split("// -----"):
        for text in _mutations(chunk, rng):
            try:
                read(text)
            except PtoError as e:
                assert re.match(r"k\.ptoasm:\d+:\d+: error: ", str(e)), (text, str(e))
