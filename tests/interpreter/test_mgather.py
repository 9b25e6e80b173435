"""
MGATHER on every target, against NumPy formulas written here from
pto-isa's MGATHER code per target (never from pto_dialect/instructions/mgather.py).

    row : dst[r, j] = table_row(remap(idx_r))[j]
    elem: dst[r, c] = table_flat[remap(idx[r, c])]

remap: the index as unsigned (cpu: 64-bit, an i32 sign-extends; a2a3/a5: the
low 32 bits), then clamp / wrap / zero / undefined (undefined out of range is
a run-time error naming the op).
"""

from __future__ import annotations

from typing import cast

import numpy as np
import pytest

from pto_dialect import PtoError
from tests.interpreter.harness import FP8, NP, NPU, SENTINEL, STANDARD, TARGETS, assert_bits_equal, constants, filled, func, gm_views, nz_image, random_values, run, seed, tensor_view, tile, view

COVERS = ('pto.mgather',)
"""The instructions whose results these tests check against their own formulas, per target
(tests/test_registry.py: every instruction is covered on every target)."""

OOBS = ("clamp", "wrap", "zero")

# ---------------------------------------------------------------------------
# the independent golden model (semantics.md §1.1-1.2)


def as_unsigned(i: int, target: str) -> int:
    """cpu widens to 64 bits (a signed index sign-extends); a2a3/a5 read 32 bits unsigned."""
    return int(i) & ((1 << 64) - 1 if target == "cpu" else (1 << 32) - 1)


def remap(i: int, cap: int, oob: str, target: str) -> int | None:
    """The table position read, or None when `zero` replaces the read with 0."""
    u = as_unsigned(i, target)
    if oob == "clamp":
        return min(u, cap - 1)
    if oob == "wrap":
        return u % cap
    if oob == "zero":
        return u if u < cap else None
    assert u < cap, "undefined out of range: the test expects a fault instead"
    return u


def golden_elem(table_flat, idx, dst, oob, target, cap=None):
    """dst[r, c] = table_flat[remap(idx[r, c])] over idx's shape; the rest of dst unchanged."""
    out = dst.copy()
    cap = table_flat.size if cap is None else cap
    for (r, c), i in np.ndenumerate(idx):
        k = remap(i, cap, oob, target)
        out[r, c] = 0 if k is None else table_flat[k]
    return out


def golden_row(row_of, idx_r, dst, vc, cap, oob, target):
    """dst[r, :vc] = row_of(remap(idx_r)) (or zeros); the rest of dst unchanged."""
    out = dst.copy()
    for r, i in enumerate(idx_r):
        k = remap(i, cap, oob, target)
        out[r, :vc] = 0 if k is None else row_of(k)[:vc]
    return out


# ---------------------------------------------------------------------------
# kernels


def attrs(coalesce: str, oob: str | None) -> str:
    text = f"coalesce = #pto<coalesce {coalesce}>"
    if oob is not None:
        text += f", gatherOob = #pto<gather_oob {oob}>"
    return "{" + text + "}"


def mgather_kernel(tab: str, idx: str, dst: str, coalesce: str, oob: str | None, scratch: str | None = None) -> str:
    """`@k(%t: tab, %i: idx[, %s: scratch], %d: dst)` doing one DPS mgather."""
    args = [("t", tab), ("i", idx)] + ([("s", scratch)] if scratch else []) + [("d", dst)]
    ins = "%t, %i" + (", %s" if scratch else "")
    types = f"{tab}, {idx}" + (f", {scratch}" if scratch else "")
    return func(args, f"pto.mgather ins({ins} : {types}) outs(%d : {dst}) {attrs(coalesce, oob)}")


# ---------------------------------------------------------------------------
# semantics.md §1.2 literal examples


ELEM_LITERAL = {
    # elem mode, cap 7, table[k] = 10k, idx {0,6,7,9,-1,-3}
    ("clamp", "cpu"): [0, 60, 60, 60, 60, 60],
    ("zero", "cpu"): [0, 60, 0, 0, 0, 0],
    ("wrap", "cpu"): [0, 60, 0, 20, 10, 60],
    ("wrap", "npu"): [0, 60, 0, 20, 30, 10],
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("oob", OOBS)
def test_elem_oob_literal_example(target, oob):
    tab, idx, dst = view((1, 7), "i32"), tile((1, 8), "i32", valid=(1, 6)), tile((1, 8), "i32", valid=(1, 6))
    text = mgather_kernel(tab, idx, dst, "elem", oob)
    table = (10 * np.arange(7, dtype=np.int32)).reshape(1, 7)
    ids = np.array([[0, 6, 7, 9, -1, -3, 99, 99]], np.int32)
    out = run(text, target, [table, ids, filled((1, 8), "i32")])[-1]
    kind = "npu" if oob == "wrap" and target != "cpu" else "cpu"
    expected = np.array([ELEM_LITERAL[(oob, kind)] + [SENTINEL, SENTINEL]], np.int32)
    assert_bits_equal(out, expected)


ROW_LITERAL = {"clamp": [3, 5, 5, 5], "wrap": [3, 2, 3, 5], "zero": [3, None, None, 5]}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("oob", OOBS)
def test_row_oob_literal_example(target, oob):
    """Row mode, 6 table rows, idx {3,8,-1,5}: clamp 3,5,5,5; wrap 3,2,3,5; zero 3,0s,0s,5."""
    text = mgather_kernel(view((6, 8), "i32"), tile((1, 4), "i32"), tile((4, 8), "i32"), "row", oob)
    table = (100 * np.arange(6)[:, None] + np.arange(8)[None, :]).astype(np.int32)
    out = run(text, target, [table, np.array([[3, 8, -1, 5]], np.int32), filled((4, 8), "i32")])[-1]
    expected = np.stack([np.zeros(8, np.int32) if k is None else table[k] for k in ROW_LITERAL[oob]])
    assert_bits_equal(out, expected)


WRAP_TABLE = [
    # (cap, i, cpu, a2a3/a5)  semantics.md §1.2
    (7, -1, 1, 3),
    (7, -2, 0, 2),
    (7, -7, 2, 4),
    (7, -(2**31), 0, 2),
    (5, -1, 0, 0),
    (12, -1, 3, 3),
    (16, -1, 15, 15),
]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("cap,i,cpu_row,npu_row", WRAP_TABLE)
@pytest.mark.parametrize("coalesce", ("row", "elem"))
def test_wrap_negative_index_table(target, cap, i, cpu_row, npu_row, coalesce):
    if coalesce == "row":
        text = mgather_kernel(view((cap, 8), "i32"), tile((1, 1), "i32"), tile((1, 8), "i32"), "row", "wrap")
        table = (10 * np.arange(cap)[:, None] + np.arange(8)).astype(np.int32)
        out = run(text, target, [table, np.array([[i]], np.int32), filled((1, 8), "i32")])[2]
    else:
        text = mgather_kernel(view((1, cap), "i32"), tile((1, 8), "i32", valid=(1, 1)),
                              tile((1, 8), "i32", valid=(1, 1)), "elem", "wrap")
        table = (10 * np.arange(cap)[None, :]).astype(np.int32)
        out = run(text, target, [table, np.full((1, 8), i, np.int32), filled((1, 8), "i32")])[2]
    k = cpu_row if target == "cpu" else npu_row
    assert out[0, 0] == 10 * k
    # and the formula agrees with the table
    assert remap(i, cap, "wrap", target) == k


# ---------------------------------------------------------------------------
# OOB policies against the formula: negative and huge indices, i32 and ui32

I32_INDICES = [0, 6, 7, 9, -1, -2, -7, -(2**31), 2**31 - 1, 13, 3, -3, 2**31 - 7, 100000, -100000, 5]
UI32_INDICES = [0, 6, 7, 2**32 - 1, 2**31, 2**31 + 5, 4000000000, 3, 21, 2**32 - 7, 1, 2**32 - 2, 14, 2, 2**31 - 1, 4]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("oob", OOBS)
@pytest.mark.parametrize("idx_type", ("i32", "ui32"))
@pytest.mark.parametrize("cap", (7, 12))
def test_elem_oob_formula(target, oob, idx_type, cap):
    text = mgather_kernel(view((1, cap), "f32"), tile((2, 8), idx_type), tile((2, 8), "f32"), "elem", oob)
    table = (10 * np.arange(cap) + 1).astype(np.float32).reshape(1, cap)
    ids = np.array(I32_INDICES if idx_type == "i32" else UI32_INDICES, dtype=np.int64).astype(NP[idx_type]).reshape(2, 8)
    out = run(text, target, [table, ids, filled((2, 8), "f32")])[-1]
    assert_bits_equal(out, golden_elem(table.ravel(), ids, filled((2, 8), "f32"), oob, target))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("oob", OOBS)
@pytest.mark.parametrize("idx_type", ("i32", "ui32"))
def test_row_oob_formula(target, oob, idx_type):
    cap = 7
    text = mgather_kernel(view((cap, 16), "f16"), tile((1, 16), idx_type), tile((16, 16), "f16"), "row", oob)
    table = (np.arange(cap)[:, None] * 16 + np.arange(16)).astype(np.float16) + 1
    ids = np.array(I32_INDICES if idx_type == "i32" else UI32_INDICES, dtype=np.int64).astype(NP[idx_type]).reshape(1, 16)
    out = run(text, target, [table, ids, filled((16, 16), "f16")])[-1]
    expected = golden_row(lambda k: table[k], ids[0], filled((16, 16), "f16"), 16, cap, oob, target)
    assert_bits_equal(out, expected)


@pytest.mark.parametrize("target", TARGETS)
def test_negative_index_clamp_and_zero_agree_everywhere(target):
    """semantics.md §1.2: a negative i32 clamps to cap-1 and zeroes on all targets."""
    for oob, want in (("clamp", 60), ("zero", 0)):
        text = mgather_kernel(view((1, 7), "i32"), tile((1, 8), "i32"), tile((1, 8), "i32"), "elem", oob)
        ids = np.array([[-1, -7, -(2**31), -2, -3, -4, -5, -6]], np.int32)
        out = run(text, target, [(10 * np.arange(7, dtype=np.int32)).reshape(1, 7), ids, filled((1, 8), "i32")])[2]
        assert (out == want).all(), (oob, out)


@pytest.mark.parametrize(
    "idx_type,i,expected",
    [
        # cpu reads any integer index, widened to 64 bits (signed ones sign-extend)
        ("i8", -1, ((1 << 64) - 1) % 7),
        ("i16", -1, ((1 << 64) - 1) % 7),
        ("i16", -32768, ((1 << 64) - 32768) % 7),
        ("ui16", 65535, 65535 % 7),
        ("ui8", 255, 255 % 7),
        ("i64", 2**40 + 3, (2**40 + 3) % 7),
        ("i64", -(2**40), ((1 << 64) - 2**40) % 7),
    ],
)
def test_cpu_index_widths_wrap(idx_type, i, expected):
    text = mgather_kernel(view((7, 8), "i32"), tile((1, 8), idx_type, valid=(1, 1)), tile((1, 8), "i32"), "row", "wrap")
    table = (10 * np.arange(7)[:, None] + np.arange(8)).astype(np.int32)
    ids = np.full((1, 8), i, dtype=np.int64).astype(NP[idx_type])
    out = run(text, "cpu", [table, ids, filled((1, 8), "i32")])[2]
    assert_bits_equal(out, table[expected][None, :])


@pytest.mark.parametrize("target", NPU)
@pytest.mark.parametrize("idx_type", ("i16", "i8", "i64"))
def test_npu_rejects_non_32bit_indices(target, idx_type):
    text = mgather_kernel(view((7, 8), "i32"), tile((1, 8), idx_type), tile((8, 8), "i32"), "row", "wrap")
    with pytest.raises(PtoError, match="pto.mgather"):
        run(text, target, [np.zeros((7, 8), np.int32), np.zeros((1, 8), NP[idx_type]), np.zeros((8, 8), np.int32)])


# ---------------------------------------------------------------------------
# undefined OOB: in range it gathers, out of range it faults (semantics.md §6.1)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("coalesce", ("row", "elem"))
@pytest.mark.parametrize("bad", (7, -1, 2**31 - 1))
def test_undefined_out_of_range_faults(target, coalesce, bad):
    if coalesce == "row":
        text = mgather_kernel(view((7, 8), "i32"), tile((1, 4), "i32"), tile((4, 8), "i32"), "row", None)
        args = [np.zeros((7, 8), np.int32), np.array([[0, 1, bad, 2]], np.int32), np.zeros((4, 8), np.int32)]
    else:
        text = mgather_kernel(view((1, 7), "i32"), tile((2, 8), "i32"), tile((2, 8), "i32"), "elem", "undefined")
        ids = np.zeros((2, 8), np.int32)
        ids[1, 3] = bad
        args = [np.zeros((1, 7), np.int32), ids, np.zeros((2, 8), np.int32)]
    with pytest.raises(PtoError) as err:
        run(text, target, args)
    message = str(err.value)
    assert message.startswith("k.pto:2:3: error: 'pto.mgather'"), message
    assert "out of bounds" in message or "out of range" in message, message


@pytest.mark.parametrize("target", TARGETS)
def test_undefined_in_range_reads(target):
    text = mgather_kernel(view((1, 64), "i32"), tile((2, 8), "i32"), tile((2, 8), "i32"), "elem", None)
    table = (np.arange(64, dtype=np.int32) * 3).reshape(1, 64)
    ids = np.array([[63, 0, 5, 5, 17, 42, 1, 2], [8, 9, 10, 11, 60, 61, 62, 3]], np.int32)
    out = run(text, target, [table, ids, filled((2, 8), "i32")])[2]
    assert_bits_equal(out, table[0][ids])


# ---------------------------------------------------------------------------
# dtype families


def dtypes_of(target: str) -> tuple[str, ...]:
    return STANDARD + (FP8 if target == "a5" else ())


def cols_for(dtype: str) -> int:
    """One 32-byte row: the padded-cols alignment every target accepts."""
    return 32 // NP[dtype].itemsize


@pytest.mark.parametrize("target,dtype", [(t, d) for t in TARGETS for d in dtypes_of(t)])
@pytest.mark.parametrize("oob", ("clamp", "wrap", "zero", None))
def test_row_dtypes(target, dtype, oob):
    rng = np.random.default_rng(seed(target, dtype, oob))
    c = cols_for(dtype)
    text = mgather_kernel(view((16, c), dtype), tile((1, 8), "i32"), tile((8, c), dtype), "row", oob)
    table = random_values(rng, dtype, (16, c))
    ids = np.array([[15, 0, 3, 3, 9, 12, 1, 7]] if oob is None else [[15, 0, 16, -1, 9, 40, 1, -20]], np.int32)
    dst = filled((8, c), dtype)
    out = run(text, target, [table, ids, dst])[2]
    assert_bits_equal(out, golden_row(lambda k: table[k], ids[0], dst, c, 16, oob or "undefined", target))


@pytest.mark.parametrize("target,dtype", [(t, d) for t in TARGETS for d in dtypes_of(t)])
@pytest.mark.parametrize("oob", ("clamp", "wrap", "zero", None))
def test_elem_dtypes(target, dtype, oob):
    rng = np.random.default_rng(seed(target, dtype, oob, "elem"))
    c = cols_for(dtype)
    text = mgather_kernel(view((4, 24), dtype), tile((2, c), "i32"), tile((2, c), dtype), "elem", oob)
    table = random_values(rng, dtype, (4, 24))
    hi = 96 if oob is None else 200
    lo = 0 if oob is None else -50
    ids = rng.integers(lo, hi, size=(2, c)).astype(np.int32)
    dst = filled((2, c), dtype)
    out = run(text, target, [table, ids, dst])[-1]
    assert_bits_equal(out, golden_elem(table.ravel(), ids, dst, oob or "undefined", target))


@pytest.mark.parametrize("target", ("cpu", "a2a3"))
@pytest.mark.parametrize("dtype", FP8)
def test_fp8_only_on_a5(target, dtype):
    text = mgather_kernel(view((16, 32), dtype), tile((1, 8), "i32"), tile((8, 32), dtype), "row", None)
    with pytest.raises(PtoError, match="pto.mgather"):
        run(text, target, [np.zeros((16, 32), NP[dtype]), np.zeros((1, 8), np.int32), np.zeros((8, 32), NP[dtype])])


# ---------------------------------------------------------------------------
# row capacity: cpu / a5 Shape[3], a2a3 S0*S1*S2*S3 (semantics.md §1.3)


def row_capacity(target: str, shape5: tuple[int, ...]) -> int:
    return int(np.prod(shape5[:4])) if target == "a2a3" else shape5[3]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("oob", OOBS)
def test_row_capacity_rank3_view(target, oob):
    shape = (2, 3, 8)  # Shape5 = (1, 1, 2, 3, 8): S3 = 3, S0*S1*S2*S3 = 6
    text = mgather_kernel(view(shape, "i32"), tile((1, 8), "i32"), tile((8, 8), "i32"), "row", oob)
    table = np.arange(48, dtype=np.int32).reshape(shape) * 10 + 1
    ids = np.array([[0, 2, 3, 4, 5, 6, -1, 1]], np.int32)
    flat_rows = table.reshape(6, 8)  # packed: row u of the folded table is at u * T3 = u * 8
    cap = row_capacity(target, (1, 1) + shape)
    assert cap == (6 if target == "a2a3" else 3)
    out = run(text, target, [table, ids, filled((8, 8), "i32")])[2]
    assert_bits_equal(out, golden_row(lambda k: flat_rows[k], ids[0], filled((8, 8), "i32"), 8, cap, oob, target))


@pytest.mark.parametrize("target", TARGETS)
def test_row_capacity_rank5_view_undefined(target):
    """Index 4 is inside S0*S1*S2*S3 = 2*1*2*2 = 8 but outside S3 = 2: only a2a3 reads it."""
    shape = (2, 1, 2, 2, 8)
    text = mgather_kernel(view(shape, "i32"), tile((1, 2), "i32"), tile((2, 8), "i32"), "row", None)
    table = np.arange(64, dtype=np.int32).reshape(shape)
    args = [table, np.array([[1, 4]], np.int32), filled((2, 8), "i32")]
    if target == "a2a3":
        out = run(text, target, args)[2]
        assert_bits_equal(out, table.reshape(8, 8)[[1, 4]])
    else:
        with pytest.raises(PtoError, match="'pto.mgather'"):
            run(text, target, args)


@pytest.mark.parametrize("target", TARGETS)
def test_elem_capacity_is_all_elements(target):
    shape = (2, 3, 8)
    text = mgather_kernel(view(shape, "i32"), tile((1, 8), "i32"), tile((1, 8), "i32"), "elem", "wrap")
    table = np.arange(48, dtype=np.int32).reshape(shape) + 1000
    ids = np.array([[0, 47, 48, 50, -1, 24, 95, 96]], np.int32)
    out = run(text, target, [table, ids, filled((1, 8), "i32")])[2]
    assert_bits_equal(out, golden_elem(table.ravel(), ids, filled((1, 8), "i32"), "wrap", target))


# ---------------------------------------------------------------------------
# row stride: cpu / a2a3 read at the view's T3, a5 reads packed rows of vc (§1.3)


def strided_table_kernel(coalesce: str, oob: str | None, strides: tuple[int, int], dst: str, idx: str,
                         rows: int = 6, part: tuple[int, int] = (1, 5)) -> str:
    """Table: a (rows x 8) i32 view with `strides` over a ptr buffer, partitioned to rows part[0] .. part[0]+part[1]."""
    t3, t4 = strides
    consts = constants(0, 1, 8, rows, t3, t4, *part)
    body = f"""
{consts}
%tv = pto.make_tensor_view %p, shape = [%c{rows}, %c8], strides = [%c{t3}, %c{t4}] : {tensor_view(2, "i32")}
%tp = pto.partition_view %tv, offsets = [%c{part[0]}, %c0], sizes = [%c{part[1]}, %c8] : {tensor_view(2, "i32")}
pto.mgather ins(%tp, %i : {view((part[1], 8), "i32")}, {idx}) outs(%d : {dst}) {attrs(coalesce, oob)}
"""
    return func([("p", "!pto.ptr<i32>"), ("i", idx), ("d", dst)], body)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("oob", ("clamp", None))
def test_row_stride_padded_view(target, oob):
    # 6 rows of 16 elements, only 8 of them in the view; partition from row 1: base = 16
    text = strided_table_kernel("row", oob, (16, 1), tile((4, 8), "i32"), tile((1, 4), "i32"))
    buffer = np.arange(6 * 16, dtype=np.int32) * 10
    ids = np.array([[0, 4, 2, 3]], np.int32)
    if target == "a5":  # a5 reads packed rows of dst valid cols: a padded table is refused
        with pytest.raises(PtoError, match="expects the table's rows packed .* got row stride 16 for 8 cols"):
            run(text, target, [buffer, ids, filled((4, 8), "i32")])
        return
    out = run(text, target, [buffer, ids, filled((4, 8), "i32")])[2]
    base, j = 16, np.arange(8)
    expected = np.stack([buffer[base + u * 16 + j] for u in ids[0]])
    assert_bits_equal(out, expected)


@pytest.mark.parametrize("target", TARGETS)
def test_row_col_stride(target):
    """A view with inner stride 2: cpu reads j*T4, a2a3 j*1 at row stride T3; a5 reads packed rows,
    so it refuses the padded table."""
    text = strided_table_kernel("row", "wrap", (20, 2), tile((3, 8), "i32"), tile((1, 3), "i32"), rows=5, part=(0, 5))
    buffer = np.arange(5 * 20, dtype=np.int32)
    ids = np.array([[4, 0, 7]], np.int32)  # 7 wraps to 2 (cap 5)
    if target == "a5":
        with pytest.raises(PtoError, match="expects the table's rows packed .* got row stride 20 for 8 cols"):
            run(text, target, [buffer, ids, filled((3, 8), "i32")])
        return
    out = run(text, target, [buffer, ids, filled((3, 8), "i32")])[2]
    j = np.arange(8)
    rs, cs = {"cpu": (20, 2), "a2a3": (20, 1)}[target]
    expected = np.stack([buffer[u * rs + j * cs] for u in (4, 0, 2)])
    assert_bits_equal(out, expected)


@pytest.mark.parametrize("target", TARGETS)
def test_elem_ignores_view_strides(target):
    """Elem mode reads base + u whatever the strides; cap = all view elements (5 * 8)."""
    text = strided_table_kernel("elem", "wrap", (16, 1), tile((1, 8), "i32"), tile((1, 8), "i32"))
    buffer = np.arange(6 * 16, dtype=np.int32) * 10
    ids = np.array([[0, 7, 8, 15, 39, 40, 41, -1]], np.int32)
    out = run(text, target, [buffer, ids, filled((1, 8), "i32")])[2]
    expected = np.array([[buffer[16 + cast(int, remap(i, 40, "wrap", target))] for i in ids[0]]], np.int32)  # wrap: never None
    assert_bits_equal(out, expected)


# ---------------------------------------------------------------------------
# padded tiles: only the valid region is written


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("oob", ("clamp", "zero"))
def test_row_padded_dst_keeps_padding(target, oob):
    vr, vc = 5, 6
    # a5 requires Shape[4] == dst valid cols, so the table rows are 6 wide everywhere
    text = mgather_kernel(view((10, vc), "f32"), tile((1, 8), "i32", valid=(1, vr)),
                          tile((8, 8), "f32", valid=(vr, vc)), "row", oob)
    table = np.arange(60, dtype=np.float32).reshape(10, vc) + 0.5
    ids = np.array([[9, 0, 12, -2, 4, 1, 1, 1]], np.int32)  # the last 3 are idx padding
    dst = filled((8, 8), "f32")
    out = run(text, target, [table, ids, dst])[2]
    assert_bits_equal(out, golden_row(lambda k: table[k], ids[0, :vr], dst, vc, 10, oob, target))
    assert (out[vr:, :] == SENTINEL).all() and (out[:, vc:] == SENTINEL).all()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("oob", ("wrap", "zero"))
def test_elem_padded_dst_and_idx(target, oob):
    vr, vc = 3, 5
    text = mgather_kernel(view((1, 64), "i16"), tile((4, 8), "i32", valid=(vr, vc)),
                          tile((4, 16), "i16", valid=(vr, vc)), "elem", oob)
    table = (np.arange(64) * 7 - 100).astype(np.int16).reshape(1, 64)
    ids = np.arange(32, dtype=np.int32).reshape(4, 8) * 5 - 20  # padding holds values too
    dst = filled((4, 16), "i16")
    out = run(text, target, [table, ids, dst])[2]
    assert_bits_equal(out, golden_elem(table.ravel(), ids[:vr, :vc], dst, oob, target))


# ---------------------------------------------------------------------------
# dynamic valid shapes (alloc_tile valid_row / valid_col operands, run-time values)


def dynamic_row_kernel(table_rows: int, cols: int) -> str:
    """ids (ptr i32) -> idx tile 1x8 (valid 1 x vr); gather rows into a 4 x cols f32 tile
    (valid vr x vc); tstore it to out (4 x cols)."""
    idx_t = tile((1, 8), "i32", valid=(1, "?"))
    dst_t = tile((4, cols), "f32", valid=("?", "?"))
    body = f"""
{constants(0, 1, 4, 8, table_rows, cols)}
%tv = pto.make_tensor_view %tab, shape = [%c{table_rows}, %c{cols}], strides = [%c{cols}, %c1] : {tensor_view(2, "f32")}
%tp = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c{table_rows}, %c{cols}] : {tensor_view(2, "f32")}
%iv = pto.make_tensor_view %ids, shape = [%c1, %c8], strides = [%c8, %c1] : {tensor_view(2, "i32")}
%ip = pto.partition_view %iv, offsets = [%c0, %c0], sizes = [%c1, %vr] : {tensor_view(2, "i32")}
%ov = pto.make_tensor_view %out, shape = [%c4, %c{cols}], strides = [%c{cols}, %c1] : {tensor_view(2, "f32")}
%op = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [%vr, %vc] : {tensor_view(2, "f32")}
%it = pto.alloc_tile valid_col = %vr : {idx_t}
%dt = pto.alloc_tile valid_row = %vr valid_col = %vc : {dst_t}
pto.tload ins(%ip : {view((1, "?"), "i32")}) outs(%it : {idx_t})
pto.mgather ins(%tp, %it : {view((table_rows, cols), "f32")}, {idx_t}) outs(%dt : {dst_t}) {attrs("row", "clamp")}
pto.tstore ins(%dt : {dst_t}) outs(%op : {view(("?", "?"), "f32")})
"""
    args = [("tab", "!pto.ptr<f32>"), ("ids", "!pto.ptr<i32>"), ("out", "!pto.ptr<f32>"), ("vr", "index"), ("vc", "index")]
    return func(args, body)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("vr", (1, 3, 4))
def test_row_dynamic_valid_shape(target, vr):
    text = dynamic_row_kernel(8, 16)
    table = np.arange(8 * 16, dtype=np.float32)
    ids = np.array([7, 100, 2, -5, 0, 0, 0, 0], np.int32)
    out0 = np.full(4 * 16, SENTINEL, np.float32)
    res = run(text, target, [table, ids, out0, np.array(vr), np.array(16)])[2].reshape(4, 16)
    expected = golden_row(lambda k: table.reshape(8, 16)[k], ids[:vr], out0.reshape(4, 16), 16, 8, "clamp", target)
    assert_bits_equal(res, expected)


@pytest.mark.parametrize("target", ("cpu", "a2a3"))
def test_row_dynamic_valid_cols_narrower_than_table(target):
    """vc = 10 of 16 table columns: cpu / a2a3 read at stride T3 = 16 and keep vc columns."""
    text = dynamic_row_kernel(8, 16)
    table = np.arange(8 * 16, dtype=np.float32)
    ids = np.array([5, 1, 6, 0, 0, 0, 0, 0], np.int32)
    out0 = np.full(4 * 16, SENTINEL, np.float32)
    res = run(text, target, [table, ids, out0, np.array(3), np.array(10)])[2].reshape(4, 16)
    expected = out0.reshape(4, 16).copy()
    expected[:3, :10] = table.reshape(8, 16)[[5, 1, 6], :10]
    assert_bits_equal(res, expected)


def test_a5_row_dynamic_valid_cols_checked_at_run_time():
    """a5 needs Shape[4] == dst valid cols; with a dynamic vc the rule is checked when it runs."""
    text = dynamic_row_kernel(8, 16)
    args = [np.zeros(128, np.float32), np.zeros(8, np.int32), np.zeros(64, np.float32), np.array(3), np.array(10)]
    with pytest.raises(PtoError) as err:
        run(text, "a5", args)
    assert "'pto.mgather'" in str(err.value) and "k.pto:" in str(err.value)


@pytest.mark.parametrize("target", TARGETS)
def test_elem_dynamic_valid_shape(target):
    """semantics.md §1.7: elem f32 valid 1x9 in 1x16 with a 3x10 table (clamp)."""
    t = tile((1, 16), "f32", valid=("?", "?"))
    it = tile((1, 16), "i32", valid=("?", "?"))
    body = f"""
{constants(0, 1, 3, 10, 16)}
{gm_views([("tab", "f32", (3, 10))])}
%iv = pto.make_tensor_view %ids, shape = [%c1, %c16], strides = [%c16, %c1] : {tensor_view(2, "i32")}
%ip = pto.partition_view %iv, offsets = [%c0, %c0], sizes = [%c1, %vc] : {tensor_view(2, "i32")}
%ov = pto.make_tensor_view %out, shape = [%c1, %c16], strides = [%c16, %c1] : {tensor_view(2, "f32")}
%op = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [%c1, %vc] : {tensor_view(2, "f32")}
%it = pto.alloc_tile valid_row = %c1 valid_col = %vc : {it}
%dt = pto.alloc_tile valid_row = %c1 valid_col = %vc : {t}
pto.tload ins(%ip : {view((1, "?"), "i32")}) outs(%it : {it})
pto.mgather ins(%tabp, %it : {view((3, 10), "f32")}, {it}) outs(%dt : {t}) {attrs("elem", "clamp")}
pto.tstore ins(%dt : {t}) outs(%op : {view((1, "?"), "f32")})
"""
    text = func([("tab", "!pto.ptr<f32>"), ("ids", "!pto.ptr<i32>"), ("out", "!pto.ptr<f32>"), ("vc", "index")], body)
    table = np.arange(30, dtype=np.float32) * 2 + 1
    ids = np.array([29, 30, -1, 0, 15, 2**31 - 1, 7, 8, 9, 1, 1, 1, 1, 1, 1, 1], np.int32)
    out0 = np.full(16, SENTINEL, np.float32)
    res = run(text, target, [table, ids, out0, np.array(9)])[2]
    expected = golden_elem(table, ids[None, :9], out0[None, :], "clamp", target)[0]
    assert_bits_equal(res, expected)


# ---------------------------------------------------------------------------
# index tile layouts: [R, 1] col-major on cpu / a5, rejected on a2a3


@pytest.mark.parametrize("target", TARGETS)
def test_row_col_major_index_tile(target):
    idx_t = tile((8, 1), "i32", blayout="col_major")
    text = mgather_kernel(view((10, 8), "i32"), idx_t, tile((8, 8), "i32"), "row", "wrap")
    table = (np.arange(10)[:, None] * 100 + np.arange(8)).astype(np.int32)
    ids = np.array([9, 0, 10, -1, 3, 3, 21, 5], np.int32).reshape(8, 1)
    args = [table, ids, filled((8, 8), "i32")]
    if target == "a2a3":
        with pytest.raises(PtoError, match="'pto.mgather'"):
            run(text, target, args)
        return
    out = run(text, target, args)[2]
    assert_bits_equal(out, golden_row(lambda k: table[k], ids[:, 0], filled((8, 8), "i32"), 8, 10, "wrap", target))


@pytest.mark.parametrize("target", ("cpu", "a5"))
def test_elem_col_major_index_tile(target):
    """Elem mode reads idx[r, c] through idx's own (col-major) layout."""
    text = mgather_kernel(view((1, 64), "i32"), tile((8, 8), "i32", blayout="col_major"), tile((8, 8), "i32"), "elem", None)
    table = (np.arange(64, dtype=np.int32) * 3 + 1).reshape(1, 64)
    ids = np.random.default_rng(3).permutation(64).astype(np.int32).reshape(8, 8)
    out = run(text, target, [table, ids, filled((8, 8), "i32")])[2]
    assert_bits_equal(out, table[0][ids])


def test_a5_col_major_dst_row_mode():
    text = mgather_kernel(view((12, 8), "f32"), tile((1, 8), "i32"), tile((8, 8), "f32", blayout="col_major"), "row", "clamp")
    table = np.arange(96, dtype=np.float32).reshape(12, 8)
    ids = np.array([[11, 0, 12, -1, 5, 6, 7, 2]], np.int32)
    out = run(text, "a5", [table, ids, filled((8, 8), "f32")])[2]
    assert_bits_equal(out, golden_row(lambda k: table[k], ids[0], filled((8, 8), "f32"), 8, 12, "clamp", "a5"))


# ---------------------------------------------------------------------------
# a2a3 NZ table -> NZ tile (semantics.md §1.4)


def nz_kernel(dtype: str, s: tuple[int, int, int], dst_shape: tuple[int, int], coalesce: str, oob: str,
              idx_shape: tuple[int, int], dst_valid=None) -> str:
    c0 = 32 // NP[dtype].itemsize
    s0, s1, s2 = s
    shape = (s0, s1, s2, 16, c0)
    strides = (s1 * s2 * 16 * c0, s2 * 16 * c0, 16 * c0, c0, 1)
    dst = tile(dst_shape, dtype, valid=dst_valid, blayout="col_major", slayout="row_major")
    idx = tile(idx_shape, "i32")
    sh = ", ".join(f"%c{d}" for d in shape)
    st = ", ".join(f"%c{d}" for d in strides)
    body = f"""
{constants(0, *shape, *strides)}
%tv = pto.make_tensor_view %p, shape = [{sh}], strides = [{st}] {{layout = #pto.layout<nz>}} : {tensor_view(5, dtype)}
%tp = pto.partition_view %tv, offsets = [%c0, %c0, %c0, %c0, %c0], sizes = [{sh}] : {tensor_view(5, dtype)}
pto.mgather ins(%tp, %i : {view(shape, dtype)}, {idx}) outs(%d : {dst}) {attrs(coalesce, oob)}
"""
    return func([("p", f"!pto.ptr<{dtype}>"), ("i", idx), ("d", dst)], body)


NZ_CASES = [
    # dtype, (S0, S1, S2): logical table (S2*16) x (S0*S1*C0)
    ("f32", (1, 2, 2)),
    ("f16", (2, 1, 2)),
    ("i32", (1, 2, 1)),
    ("i16", (1, 2, 2)),
    ("i8", (1, 1, 2)),
    ("bf16", (1, 1, 1)),
]


def nz_table(dtype: str, s: tuple[int, int, int], seed: int):
    """(rng, C0, logical rows, the logical LR x LC table) of an NZ table of Shape (s0, s1, s2)."""
    rng = np.random.default_rng(seed)
    c0 = 32 // NP[dtype].itemsize
    lr, lc = s[2] * 16, s[0] * s[1] * c0
    return rng, c0, lr, random_values(rng, dtype, (lr, lc))


@pytest.mark.parametrize("dtype,s", NZ_CASES)
@pytest.mark.parametrize("oob", ("clamp", "wrap", "zero", None))
def test_a2a3_nz_row(dtype, s, oob):
    rng, c0, lr, logical = nz_table(dtype, s, 11)
    lc = logical.shape[1]
    cols = 2 * c0 if lc >= 2 * c0 else c0
    text = nz_kernel(dtype, s, (16, cols), "row", oob, (1, 16))
    if oob is None:
        ids = rng.integers(0, lr, size=(1, 16)).astype(np.int32)
    else:
        ids = np.array([[0, lr - 1, lr, lr + 3, -1, -7, 2**31 - 1, 1, 2, 3, 4, 5, 6, 7, 8, 2 * lr]], np.int32)
    dst = filled((16, cols), dtype)
    out = run(text, "a2a3", [nz_image(logical, c0), ids, dst])[2]
    expected = golden_row(lambda k: logical[k], ids[0], dst, cols, lr, oob or "undefined", "a2a3")
    assert_bits_equal(out, expected)



@pytest.mark.parametrize("dtype,s", NZ_CASES)
@pytest.mark.parametrize("oob", ("clamp", "wrap", "zero", None))
def test_a2a3_nz_elem(dtype, s, oob):
    rng, c0, lr, logical = nz_table(dtype, s, 12)
    lc = logical.shape[1]
    text = nz_kernel(dtype, s, (16, c0), "elem", oob, (16, c0))
    cap = lr * lc
    lo, hi = (0, cap) if oob is None else (-cap, 3 * cap)
    ids = rng.integers(lo, hi, size=(16, c0)).astype(np.int32)
    dst = filled((16, c0), dtype)
    out = run(text, "a2a3", [nz_image(logical, c0), ids, dst])[2]
    # (x, y) = divmod(remap(idx), LC): logical row-major flat order
    assert_bits_equal(out, golden_elem(logical.ravel(), ids, dst, oob or "undefined", "a2a3"))


@pytest.mark.parametrize("oob", ("clamp", "zero"))
def test_a2a3_nz_row_padded_dst(oob):
    """Valid 5 x 8 of a 16 x 16 NZ tile: clamp keeps the padding; zero pre-fills the whole tile with 0."""
    dtype, s, c0 = "f32", (1, 2, 1), 8
    logical = np.arange(16 * 16, dtype=np.float32).reshape(16, 16) + 1
    text = nz_kernel(dtype, s, (16, 16), "row", oob, (1, 5), dst_valid=(5, 8))
    ids = np.array([[3, 16, 15, -1, 0]], np.int32)
    dst = filled((16, 16), "f32")
    out = run(text, "a2a3", [nz_image(logical, c0), ids, dst])[2]
    before = dst if oob == "clamp" else np.zeros_like(dst)
    assert_bits_equal(out, golden_row(lambda k: logical[k], ids[0], before, 8, 16, oob, "a2a3"))


@pytest.mark.parametrize("target", ("cpu", "a5"))
def test_nz_table_only_on_a2a3(target):
    text = nz_kernel("f32", (1, 2, 1), (16, 16), "row", "clamp", (1, 16))
    with pytest.raises(PtoError, match="pto.mgather"):
        run(text, target, [np.zeros(256, np.float32), np.zeros((1, 16), np.int32), np.zeros((16, 16), np.float32)])


# ---------------------------------------------------------------------------
# GM -> L1 (dst loc=mat, NZ) on a2a3 / a5; cpu runs the UB algorithm (§1.5)


def mat_tile(shape, dtype, valid=None) -> str:
    return tile(shape, dtype, "mat", valid=valid, blayout="col_major", slayout="row_major")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("oob", ("clamp", "wrap", "zero", None))
@pytest.mark.parametrize("dtype", ("f16", "i8", "f32"))
def test_gm_to_l1_row(target, oob, dtype):
    c0 = 32 // NP[dtype].itemsize
    shape = (2, 4, 20)  # rank 3: S3 = 4, S0*S1*S2*S3 = 8 rows of T3 = 20
    vr, vc = 5, 20
    dst_shape = (16, 2 * c0 if 2 * c0 >= vc else 3 * c0)
    text = mgather_kernel(view(shape, dtype), view((1, vr), "i32"), mat_tile(dst_shape, dtype, (vr, vc)), "row", oob)
    table = (np.arange(160) % 100).astype(np.float32).astype(NP[dtype]).reshape(shape)
    if oob is None:
        ids = np.array([[1, 7, 3, 0, 6]] if target == "a2a3" else [[1, 3, 2, 0, 3]], np.int32)
    else:
        ids = np.array([[1, 7, 9, -1, 2**31 - 1]], np.int32)
    dst = filled(dst_shape, dtype)
    out = run(text, target, [table, ids, dst])[2]
    rows = table.reshape(8, 20)
    cap = 4 if target == "cpu" else 8  # GM->L1 row: S0*S1*S2*S3 on both NPUs; cpu's UB algorithm: S3
    before = np.zeros_like(dst) if oob == "zero" and target != "cpu" else dst  # NPU zero mode zeroes the L1 tile first
    assert_bits_equal(out, golden_row(lambda k: rows[k], ids[0], before, vc, cap, oob or "undefined", target))


@pytest.mark.parametrize("target", NPU)
def test_gm_to_l1_row_uses_view_row_stride(target):
    """The L1 row path reads at T3 on both NPUs (a5's UB path would read packed rows)."""
    vr, vc = 4, 16
    dst_t = mat_tile((16, 16), "f16", (vr, vc))
    body = f"""
{constants(0, 1, 4, 6, 16, 24)}
%tv = pto.make_tensor_view %p, shape = [%c6, %c16], strides = [%c24, %c1] : {tensor_view(2, "f16")}
%tp = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c6, %c16] : {tensor_view(2, "f16")}
pto.mgather ins(%tp, %i : {view((6, 16), "f16")}, {view((1, 4), "i32")}) outs(%d : {dst_t}) {attrs("row", "clamp")}
"""
    text = func([("p", "!pto.ptr<f16>"), ("i", view((1, 4), "i32")), ("d", dst_t)], body)
    buffer = np.arange(6 * 24).astype(np.float16)
    ids = np.array([[5, 0, 9, 2]], np.int32)
    dst = filled((16, 16), "f16")
    out = run(text, target, [buffer, ids, dst])[2]
    expected = dst.copy()
    for r, u in enumerate([5, 0, 5, 2]):
        expected[r, :vc] = buffer[u * 24 + np.arange(vc)]
    assert_bits_equal(out, expected)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("oob", ("clamp", "wrap", "zero", None))
@pytest.mark.parametrize("dtype", ("f16", "f32", "i8"))
def test_gm_to_l1_elem(target, oob, dtype):
    c0 = 32 // NP[dtype].itemsize
    rows, cols = 16, 2 * c0
    vr, vc = 5, c0 + 3
    cap = 3 * 40
    text = mgather_kernel(view((3, 40), dtype), view((vr, vc), "i32"), mat_tile((rows, cols), dtype, (vr, vc)),
                          "elem", oob, scratch=view((1, rows * cols), dtype))
    rng = np.random.default_rng(5)
    table = (np.arange(cap) % 100 + 1).astype(np.float32).astype(NP[dtype]).reshape(3, 40)
    lo, hi = (0, cap) if oob is None else (-cap, 2 * cap)
    ids = rng.integers(lo, hi, size=(vr, vc)).astype(np.int32)
    scratch = filled((1, rows * cols), dtype, 9)
    dst = filled((rows, cols), dtype)
    # the mgather kernel binds (t, i, s, d)
    res = run(text, target, [table, ids, scratch, dst])
    out, scratch_after = res[3], res[2]
    if target == "cpu":
        # the UB algorithm: the valid region only, scratch ignored
        assert_bits_equal(out, golden_elem(table.ravel(), ids, dst, oob or "undefined", target))
        assert_bits_equal(scratch_after, scratch)
    else:
        # every non-valid slot becomes 0; scratch holds the tile's NZ image
        expected = golden_elem(table.ravel(), ids, np.zeros_like(dst), oob or "undefined", target)
        assert_bits_equal(out, expected)
        image = expected.reshape(rows, cols // c0, c0).transpose(1, 0, 2).ravel()
        assert_bits_equal(scratch_after, image[None, :])


@pytest.mark.parametrize("target", TARGETS)
def test_gm_to_l1_row_undefined_faults(target):
    text = mgather_kernel(view((8, 16), "f16"), view((1, 2), "i32"), mat_tile((16, 16), "f16", (2, 16)), "row", None)
    with pytest.raises(PtoError, match="'pto.mgather'"):
        run(text, target, [np.zeros((8, 16), np.float16), np.array([[1, 8]], np.int32), np.zeros((16, 16), np.float16)])


# ---------------------------------------------------------------------------
# empty valid region (semantics.md §1.3): cpu no-op, a2a3 not checked (no-op), a5 rejected when static


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("valid", ((0, 8), (8, 0)))
def test_row_empty_valid_region(target, valid):
    text = mgather_kernel(view((8, 8), "i32"), tile((1, 8), "i32", valid=(1, valid[0])),
                          tile((8, 8), "i32", valid=valid), "row", "clamp")
    args = [np.ones((8, 8), np.int32), np.zeros((1, 8), np.int32), filled((8, 8), "i32")]
    if target == "a5":
        with pytest.raises(PtoError, match="'pto.mgather'"):
            run(text, target, args)
        return
    assert_bits_equal(run(text, target, args)[-1], filled((8, 8), "i32"))
