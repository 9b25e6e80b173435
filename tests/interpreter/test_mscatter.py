"""
MSCATTER on every target, against Python loops written here from pto-isa's code per target
(never from pto_dialect/instructions/mscatter.py).

Row mode, for r < R (src valid rows) in order, with i = idx_r remapped by the OOB policy:
  cpu (cpu/MScatter.hpp):  table[i * Stride[3] + j * Stride[4]] (op)= src[r, j], i < Shape[3];
                           max/min compare with table[i] (the element at the row index);
  a2a3 (a2a3/MScatter.hpp): table[i * Stride[3] + j] (op)= src[r, j], i < Shape[0]*..*Shape[3];
  a5 (a5/MScatter.hpp):     table[i * C + j] (op)= src[r, j], i < Shape[3] (packed rows).
Elem mode: table_flat[remap(idx[r, c])] (op)= src[r, c] in row-major order, bounded by all the
table's elements. Indices: cpu sign-extends to 64 bits, a2a3 / a5 read 32-bit unsigned.
(op): a store (the last write wins), or add / max / min applied write after write (max: the
table's value unless src is strictly larger). a5 `default`: colliding indices are an error.
"""

from __future__ import annotations


import numpy as np
import pytest

import interpreter
from pto_dialect import PtoError, parse
from tests.interpreter.harness import NP, TARGETS, assert_bits_equal, constants, func, nz_image, run, seed, tensor_view, tile, view

COVERS = ("pto.mscatter",)
"""The instructions whose results these tests check against their own formulas, per target
(tests/test_registry.py: every instruction is covered on every target)."""

CAPACITY = {"cpu": "shape3", "a2a3": "rows", "a5": "shape3"}
ATOMIC_TYPES = {
    "cpu": {"add": ("i8", "i16", "ui16", "i32", "f16", "bf16", "f32"), "max": ("i32", "f16", "f32"), "min": ("i32", "f32")},
    "a2a3": {"add": ("i8", "i16", "i32", "f16", "bf16", "f32")},
    "a5": {"add": ("i32", "ui32", "f16", "bf16", "f32"), "max": ("i32", "ui32", "f32"), "min": ("i32", "f32")},
}


# ---------------------------------------------------------------------------
# the independent golden model: the targets' serial loops


def combine(op: str, old, new, dtype: np.dtype):
    """One write: a store, an add rounded to the element type, or std::max / std::min."""
    if op == "none":
        return new
    if op == "add":
        with np.errstate(invalid="ignore"):
            if np.isnan(old) or np.isnan(new):  # x86's addss: the first NaN operand, quieted
                return quieted(old if np.isnan(old) else new)
            return (np.array([old], dtype) + np.array([new], dtype))[0]
    if op == "max":
        return new if old < new else old  # a NaN on either side keeps the table's value
    return new if new < old else old


def quieted(nan):
    """A NaN with its top mantissa bit set."""
    dtype = np.asarray(nan).dtype
    bits = np.array([nan], dtype).view(f"u{dtype.itemsize}")
    return (bits | np.array(QUIET_BIT[dtype.name], bits.dtype)).view(dtype)[0]


QUIET_BIT = {"float16": 0x0200, "bfloat16": 0x0040, "float32": 0x0040_0000}


def remapped(raw: int, cap: int, oob: str, target: str) -> int | None:
    """The row / element an index reaches, None when skipped."""
    i = raw % (1 << 64) if target == "cpu" else raw % (1 << 32)
    if oob == "skip":
        return i if i < cap else None
    if oob == "clamp":
        return min(i, cap - 1)
    if oob == "wrap":
        return i % cap
    assert i < cap, "a test kernel keeps undefined indices in range"
    return i


def row_golden(target: str, op: str, oob: str, src: np.ndarray, ids: list[int], table: np.ndarray) -> np.ndarray:
    """table: the whole 2-D table (rows x cols, packed); src: R x C."""
    out = table.copy()
    flat = out.reshape(-1)
    rows, cols = table.shape
    for r, raw in enumerate(ids):
        i = remapped(raw, rows, oob, target)
        if i is None:
            continue
        for j in range(src.shape[1]):
            read = flat[i] if target == "cpu" and op in ("max", "min") else flat[i * cols + j]
            flat[i * cols + j] = combine(op, read, src[r, j], table.dtype)
    return out


def elem_golden(target: str, op: str, oob: str, src: np.ndarray, idx: np.ndarray, table: np.ndarray) -> np.ndarray:
    out = table.copy()
    flat = out.reshape(-1)
    for r in range(src.shape[0]):
        for c in range(src.shape[1]):
            i = remapped(int(idx[r, c]), flat.size, oob, target)
            if i is not None:
                flat[i] = combine(op, flat[i], src[r, c], table.dtype)
    return out


# ---------------------------------------------------------------------------
# kernels: src and idx as tile arguments, the table as a GM view argument


def attrs(mode: str, op: str, oob: str, conflict: str | None = None) -> str:
    text = f"coalesce = #pto<coalesce {mode}>"
    if op != "none":
        text += f", scatterAtomicOp = #pto<scatter_atomic_op {op}>"
    if oob != "undefined":
        text += f", scatterOob = #pto<scatter_oob {oob}>"
    if conflict:
        text += f", scatterConflict = #pto<scatter_conflict {conflict}>"
    return text


def scatter_kernel(src_t: str, idx_t: str, mem_t: str, attr_text: str) -> str:
    return func([("s", src_t), ("i", idx_t), ("m", mem_t)],
                f"pto.mscatter ins(%s, %i : {src_t}, {idx_t}) outs(%m : {mem_t}) {{{attr_text}}}")


def run_row(target: str, op: str, oob: str, src: np.ndarray, ids: list[int], table: np.ndarray, dtype: str,
            conflict: str | None = None, valid_rows: int | None = None) -> np.ndarray:
    rows, cols = src.shape
    vr = valid_rows or rows
    src_t = tile((rows, cols), dtype, valid=(vr, cols))
    idx = np.zeros((1, max(8, -(-len(ids) // 8) * 8)), np.int64)
    idx[0, : len(ids)] = ids
    idx_t = tile(idx.shape, "i32", valid=(1, vr))
    mem_t = view(table.shape, dtype)
    text = scatter_kernel(src_t, idx_t, mem_t, attrs("row", op, oob, conflict))
    return run(text, target, [src, idx.astype(np.int32), table])[-1]


def values(rng: np.random.Generator, dtype: str, shape, small: bool = True) -> np.ndarray:
    dt = NP[dtype]
    if dt.kind in "iu":
        lo = 0 if dt.kind == "u" else -50
        return rng.integers(lo, 50, size=shape).astype(dt)
    return (rng.integers(-64, 64, size=shape) / 8 + (rng.random(shape) if not small else 0)).astype(dt)


# ---------------------------------------------------------------------------
# row mode


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("oob", ("undefined", "skip", "clamp", "wrap"))
def test_row_store_collisions_last_wins(target, oob):
    """Rows 0 and 2 write table row 3: the later one (2) survives on every target (a5's `last`, the
    default, keeps the largest flat index)."""
    rng = np.random.default_rng(seed("mscatter-row", target, oob))
    src = values(rng, "f32", (4, 8), small=False)
    ids = [3, 1, 3, 0] if oob == "undefined" else [3, 11, 3, -2]  # wrap: -2 reaches row 2
    table = np.full((6, 8), 0.25, np.float32)
    out = run_row(target, "none", oob, src, ids, table, "f32")
    assert_bits_equal(out, row_golden(target, "none", oob, src, ids, table))
    assert_bits_equal(out[3], src[2])


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", ("none", "add"))
def test_row_every_index_skipped(target, op):
    """scatterOob = skip with every index out of range: nothing is written."""
    src = np.ones((4, 8), np.float32)
    table = np.full((6, 8), 0.25, np.float32)
    out = run_row(target, op, "skip", src, [6, 9, -1, 100], table, "f32")
    assert_bits_equal(out, table)


@pytest.mark.parametrize("target,op,dtype", [(t, o, d) for t in TARGETS for o, ds in ATOMIC_TYPES[t].items() for d in ds])
def test_row_atomic(target, op, dtype):
    """Every atomic op and type each target takes, with repeated rows (an f16 / bf16 add rounds
    after each write, in row order)."""
    rng = np.random.default_rng(seed("mscatter-row-atomic", target, op, dtype))
    cols = 32 // NP[dtype].itemsize
    src = values(rng, dtype, (8, cols), small=False)
    ids = [2, 5, 2, 2, 0, 5, 7, 2]
    table = values(rng, dtype, (8, cols), small=False)
    out = run_row(target, op, "undefined", src, ids, table, dtype)
    assert_bits_equal(out, row_golden(target, op, "undefined", src, ids, table))


@pytest.mark.parametrize("target", TARGETS)
def test_f16_add_accumulates_in_row_order(target):
    """2048 + 1 + 1 in f16: each add rounds (2049 is not an f16), so row order gives 2048, and the
    other order (1 + 1 first) would give 2050."""
    src = np.array([[2048.0] * 16, [1.0] * 16, [1.0] * 16], np.float16)
    src = np.concatenate([src, np.zeros((5, 16), np.float16)])
    table = np.zeros((4, 16), np.float16)
    out = run_row(target, "add", "undefined", src, [1, 1, 1], table, "f16", valid_rows=3)
    assert out[1].tolist() == [2048.0] * 16
    assert_bits_equal(out, row_golden(target, "add", "undefined", src[:3], [1, 1, 1], table))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", ("row", "elem"))
@pytest.mark.parametrize("with_nan", (False, True))
def test_f16_add_many_writes_to_one_place(target, mode, with_nan):
    """48 writes to each of two places (more than the kernel's rounds of distinct places): each
    add still rounds in order; a NaN in src, the table's NaN keeps its bits."""
    rng = np.random.default_rng(seed("mscatter-many", target, mode, with_nan))
    src = (rng.standard_normal((48, 16)) * 300).astype(np.float16)
    if with_nan:
        src[5, 3], src[9, 3] = np.array([0x7E01, 0xFE02], np.uint16).view(np.float16)
    table = (rng.standard_normal((4, 16)) * 1000).astype(np.float16)
    if mode == "row":
        ids = [1, 3] * 24
        out = run_row(target, "add", "undefined", src, ids, table, "f16")
        assert_bits_equal(out, row_golden(target, "add", "undefined", src, ids, table))
        return
    idx = np.broadcast_to(np.array([17, 50] * 8, np.int32), (48, 16)).copy()
    text = scatter_kernel(tile((48, 16), "f16"), tile((48, 16), "i32"), view((4, 16), "f16"),
                          attrs("elem", "add", "undefined"))
    out = run(text, target, [src, idx, table])[-1]
    assert_bits_equal(out, elem_golden(target, "add", "undefined", src, idx, table))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", ("f16", "bf16", "f32"))
def test_add_nan_keeps_the_tables_nan(target, dtype):
    """A NaN sum is the first NaN operand, quieted: the table's (x86's addss under the
    simulator's `+=`), whatever NaN src adds; inf + -inf the negative default NaN."""
    neg, pos, signalling, inf, minus_inf = {
        "f16": (0xFE00, 0x7E00, 0x7D01, 0x7C00, 0xFC00),
        "bf16": (0xFFC0, 0x7FC0, 0x7FA1, 0x7F80, 0xFF80),
        "f32": (0xFFC0_0000, 0x7FC0_0000, 0x7FA0_0001, 0x7F80_0000, 0xFF80_0000),
    }[dtype]
    dt = NP[dtype]
    cols, uint = 32 // dt.itemsize, f"u{dt.itemsize}"
    table_bits, src_bits = np.zeros((4, cols), uint), np.zeros((8, cols), uint)
    table_bits[0, :4] = [neg, pos, inf, 0]
    src_bits[0, :4] = [pos, neg, minus_inf, signalling]
    src_bits[1, :4] = [pos, pos, pos, neg]  # a second write to each NaN sum
    table, src = table_bits.view(dt), src_bits.view(dt)
    out = run_row(target, "add", "undefined", src, [0, 0], table, dtype, valid_rows=2)
    assert out.view(uint)[0, :4].tolist() == [neg, pos, neg, signalling | QUIET_BIT[dt.name]]
    assert_bits_equal(out, row_golden(target, "add", "undefined", src[:2], [0, 0], table))


@pytest.mark.parametrize("target", ("cpu", "a5"))
def test_cpu_row_max_reads_the_row_index_element(target):
    """The simulator's row-mode max compares with table[idx] (the flat element at the row
    index), a5 with the destination: table row 2 = [9, 0, ...], table[2] = 5."""
    table = np.zeros((4, 8), np.float32)
    table[0, 2], table[2, 0] = 5.0, 9.0
    src = np.zeros((8, 8), np.float32)
    src[0] = [1, 7, 3, 0, 0, 0, 0, 0]
    out = run_row(target, "max", "undefined", src, [2], table, "f32", valid_rows=1)
    want = [5, 7, 5, 5, 5, 5, 5, 5] if target == "cpu" else [9, 7, 3, 0, 0, 0, 0, 0]
    assert out[2].tolist() == want
    assert_bits_equal(out, row_golden(target, "max", "undefined", src[:1], [2], table))


@pytest.mark.parametrize("target", TARGETS)
def test_undefined_out_of_range_is_a_located_error(target):
    src = np.ones((2, 8), np.float32)
    with pytest.raises(PtoError, match=r"k\.pto:2:3: error: 'pto\.mscatter' op index 9 for src row 1 is out of bounds "
                                       r"for a table capacity of 6 \(scatterOob = undefined\)"):
        run_row(target, "none", "undefined", src, [0, 9], np.zeros((6, 8), np.float32), "f32")


@pytest.mark.parametrize("target", ("a5",))
def test_a5_default_conflict_names_the_colliding_indices(target):
    src = np.ones((4, 8), np.float32)
    with pytest.raises(PtoError, match=r"'pto\.mscatter' op src row 0 and src row 2 both write table row 3: with "
                                       r"scatterConflict = default the stored value is up to the warp scheduler"):
        run_row(target, "none", "undefined", src, [3, 1, 3, 0], np.zeros((6, 8), np.float32), "f32", conflict="default")
    out = run_row(target, "none", "undefined", src * 2, [3, 1, 2, 0], np.zeros((6, 8), np.float32), "f32",
                  conflict="default")
    assert (out[:4] == 2).all()
    out = run_row(target, "add", "undefined", src, [3, 1, 3, 0], np.zeros((6, 8), np.float32), "f32")
    assert (out[3] == 2).all()  # atomics serialise colliding writes: no conflict


@pytest.mark.parametrize("target", TARGETS)
def test_row_strided_table(target):
    """A table view over the first 8 of 12 columns: cpu and a2a3 write rows at the view's row
    stride (12); a5's rows are packed, so its rule rejects the view."""
    table = np.zeros((6, 12), np.float32)
    src = np.arange(16, dtype=np.float32).reshape(2, 8) + 1
    idx = np.array([[4, 1] + [0] * 6], np.int32)
    text = func(
        [("s", tile((2, 8), "f32")), ("i", tile((1, 8), "i32", valid=(1, 2))), ("t", "!pto.ptr<f32>")],
        constants(0, 1, 6, 8, 12)
        + "\n%v = pto.make_tensor_view %t, shape = [%c6, %c12], strides = [%c12, %c1] : " + tensor_view(2, "f32")
        + "\n%p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c6, %c8] : " + tensor_view(2, "f32")
        + f"\npto.mscatter ins(%s, %i : {tile((2, 8), 'f32')}, {tile((1, 8), 'i32', valid=(1, 2))}) outs(%p : {view((6, 8), 'f32')})"
          " {coalesce = #pto<coalesce row>}",
    )
    if target == "a5":
        with pytest.raises(PtoError, match="expects the table's rows packed"):
            run(text, target, [src, idx, table.reshape(-1)])
        return
    out = run(text, target, [src, idx, table.reshape(-1)])[-1].reshape(6, 12)
    want = table.copy()
    want[4, :8], want[1, :8] = src[0], src[1]
    assert_bits_equal(out, want)


# ---------------------------------------------------------------------------
# elem mode


@pytest.mark.parametrize("target,op", [(t, o) for t in TARGETS for o in ("none", *ATOMIC_TYPES[t])])
@pytest.mark.parametrize("oob", ("undefined", "skip", "clamp", "wrap"))
def test_elem_random(target, op, oob):
    dtype = "f32"
    rng = np.random.default_rng(seed("mscatter-elem", target, op, oob))
    src = values(rng, dtype, (3, 16), small=False)
    size = 40
    top = size if oob == "undefined" else 2 * size
    idx = rng.integers(0, top, size=(3, 16)).astype(np.int32)
    idx[0, :4] = idx[2, 7]  # collisions
    if oob != "undefined":
        idx[1, 3] = -1
    table = values(rng, dtype, (1, size), small=False)
    src_t, idx_t, mem_t = tile((3, 16), dtype, valid=(3, 13)), tile((3, 16), "i32", valid=(3, 13)), view((1, size), dtype)
    out = run(scatter_kernel(src_t, idx_t, mem_t, attrs("elem", op, oob)), target, [src, idx, table])[-1]
    assert_bits_equal(out, elem_golden(target, op, oob, src[:, :13], idx[:, :13], table))


@pytest.mark.parametrize("target", [t for t in TARGETS if "max" in ATOMIC_TYPES[t]])
def test_elem_max_nan_and_signed_zero(target):
    """std::max: a NaN in src never wins, a NaN in the table sticks, -0 and +0 tie (the table's
    value stays); a5's max (f32 only) is modelled the same way (choice)."""
    table = np.array([[np.nan, 1.0, -0.0, 3.0, 0.0, 0.0, 0.0, 0.0]], np.float32)
    src = np.array([[5.0, np.nan, 0.0, 4.0, np.nan, -1.0, 2.0, 0.0]], np.float32)
    idx = np.arange(8, dtype=np.int32)[None, :]
    out = run(scatter_kernel(tile((1, 8), "f32"), tile((1, 8), "i32"), view((1, 8), "f32"),
                             attrs("elem", "max", "undefined")), target, [src, idx, table])[-1]
    want = np.array([[np.nan, 1.0, -0.0, 4.0, 0.0, 0.0, 2.0, 0.0]], np.float32)
    assert_bits_equal(out, want)
    assert_bits_equal(out, elem_golden(target, "max", "undefined", src, idx, table))


@pytest.mark.parametrize("target", ("a5",))
def test_a5_default_conflict_elem(target):
    src = np.ones((2, 8), np.float32)
    idx = np.array([list(range(8)), [9, 10, 11, 12, 13, 14, 5, 15]], np.int32)
    with pytest.raises(PtoError, match=r"idx\[0, 5\] and idx\[1, 6\] both write table element 5"):
        run(scatter_kernel(tile((2, 8), "f32"), tile((2, 8), "i32"), view((1, 16), "f32"),
                           attrs("elem", "none", "undefined", "default")), target, [src, idx, np.zeros((1, 16), np.float32)])


@pytest.mark.parametrize("target", TARGETS)
def test_coalesce_omitted_takes_the_targets_default(target):
    """Without coalesce: the simulator scatters elements, a2a3 and a5 rows."""
    src = np.arange(16, dtype=np.float32).reshape(2, 8) + 1
    idx = np.array([[3, 1] + [0] * 6, [0] * 8], np.int32)
    idx_t = tile((2, 8), "i32", valid=(1, 2))
    text = func([("s", tile((2, 8), "f32")), ("i", idx_t), ("m", view((4, 8), "f32"))],
                f"pto.mscatter ins(%s, %i : {tile((2, 8), 'f32')}, {idx_t}) outs(%m : {view((4, 8), 'f32')})")
    if target == "cpu":  # elem mode wants idx's valid shape to be src's
        with pytest.raises(PtoError, match="expects elem-coalesce idx valid rows to equal src valid rows"):
            run(text, target, [src, idx, np.zeros((4, 8), np.float32)])
        return
    out = run(text, target, [src, idx, np.zeros((4, 8), np.float32)])[-1]
    assert out[3].tolist() == src[0].tolist() and out[1].tolist() == src[1].tolist()


@pytest.mark.parametrize("target", TARGETS)
def test_ssa_spelling(target):
    """`pto.mscatter %src, %idx, %mem : (Ts, Ti, Tm) -> ()` on SSA tiles runs as the DPS form."""
    src_t, idx_t = "!pto.tile<vec, 2x8xf32>", "!pto.tile<vec, 1x8xi32, valid=1x2>"
    if target == "cpu":
        idx_t = "!pto.tile<vec, 2x8xi32>"
    mem_t = view((1, 16) if target == "cpu" else (4, 8), "f32")
    text = func([("s", src_t), ("i", idx_t), ("m", mem_t)],
                f"pto.mscatter %s, %i, %m {{coalesce = #pto<coalesce {'elem' if target == 'cpu' else 'row'}>}} : ({src_t}, {idx_t}, {mem_t}) -> ()")
    src = np.arange(16, dtype=np.float32).reshape(2, 8) + 1
    idx = np.arange(16, dtype=np.int32).reshape(2, 8)[::-1].copy() if target == "cpu" else np.array([[2, 0] + [0] * 6], np.int32)
    table = np.zeros((1, 16) if target == "cpu" else (4, 8), np.float32)
    out = run(text, target, [src, idx, table])[-1]
    if target == "cpu":
        assert_bits_equal(out, elem_golden(target, "none", "undefined", src, idx, table))
    else:
        assert_bits_equal(out, row_golden(target, "none", "undefined", src, [2, 0], table))





# ---------------------------------------------------------------------------
# a2a3: an NZ tile into an NZ table (a2a3/MScatter.hpp MScatterRowNzImpl, MScatterElemNzImpl)


def nz_scatter_kernel(dtype: str, s: tuple[int, int, int], src_shape, idx_shape, attr_text: str, src_valid=None,
                      idx_valid=None) -> str:
    c0 = 32 // NP[dtype].itemsize
    shape = (*s, 16, c0)
    strides = (s[1] * s[2] * 16 * c0, s[2] * 16 * c0, 16 * c0, c0, 1)
    src_t = tile(src_shape, dtype, valid=src_valid, blayout="col_major", slayout="row_major")
    idx_t = tile(idx_shape, "i32", valid=idx_valid)
    sh, st = ", ".join(f"%c{d}" for d in shape), ", ".join(f"%c{d}" for d in strides)
    body = f"""
{constants(0, *shape, *strides)}
%tv = pto.make_tensor_view %p, shape = [{sh}], strides = [{st}] {{layout = #pto.layout<nz>}} : {tensor_view(5, dtype)}
%tp = pto.partition_view %tv, offsets = [%c0, %c0, %c0, %c0, %c0], sizes = [{sh}] : {tensor_view(5, dtype)}
pto.mscatter ins(%s, %i : {src_t}, {idx_t}) outs(%tp : {view(shape, dtype)}) {{{attr_text}}}
"""
    return func([("s", src_t), ("i", idx_t), ("p", f"!pto.ptr<{dtype}>")], body)


@pytest.mark.parametrize("dtype", ("f32", "f16"))
@pytest.mark.parametrize("op", ("none", "add"))
def test_a2a3_nz_row(dtype, op):
    """Row mode writes each logical row's S0*S1*C0 columns from src row r, rows in order."""
    rng = np.random.default_rng(seed("mscatter-nz-row", dtype, op))
    c0 = 32 // NP[dtype].itemsize
    s = (1, 2, 2)
    lr, lc = 32, 2 * c0
    logical = values(rng, dtype, (lr, lc), small=False)
    src = values(rng, dtype, (16, lc), small=False)
    ids = np.array([[5, 31, 5, 40, 0] + [0] * 11], np.int32)
    text = nz_scatter_kernel(dtype, s, (16, lc), (1, 16), attrs("row", op, "skip"), src_valid=(5, lc), idx_valid=(1, 5))
    out = run(text, "a2a3", [src, ids, nz_image(logical, c0)])[-1]
    want = logical.copy()
    for r, i in enumerate(ids[0, :5]):
        if i < lr:
            want[i] = combine_rows(op, want[i], src[r])
    assert_bits_equal(out, nz_image(want, c0))


def combine_rows(op: str, old: np.ndarray, new: np.ndarray) -> np.ndarray:
    return np.array([combine(op, a, b, old.dtype) for a, b in zip(old, new)], old.dtype)


def test_a2a3_nz_elem_walks_column_blocks():
    """Elem mode walks column block by column block: idx[0, C0] (block 1) is written after
    idx[1, 0] (block 0), so it wins a collision that row-major order would give to idx[1, 0]."""
    dtype, c0 = "f32", 8
    s = (1, 2, 1)
    lr, lc = 16, 16
    logical = np.zeros((lr, lc), np.float32)
    src = np.arange(16 * 16, dtype=np.float32).reshape(16, 16) + 1
    idx = np.zeros((2, 16), np.int32)
    idx[0] = np.arange(16) + 20
    idx[1] = np.arange(16) + 40
    idx[0, c0] = idx[1, 0] = 7
    text = nz_scatter_kernel(dtype, s, (16, 16), (2, 16), attrs("elem", "none", "undefined"), src_valid=(2, 16))
    out = run(text, "a2a3", [src, idx, nz_image(logical, c0)])[-1]
    want = logical.reshape(-1).copy()
    for block in range(2):
        for r in range(2):
            for c in range(block * c0, (block + 1) * c0):
                want[idx[r, c]] = src[r, c]
    assert want[7] == src[0, c0]
    assert_bits_equal(out, nz_image(want.reshape(lr, lc), c0))


def test_compare_sees_the_table_written():
    """`--targets all` (interpreter.compare) records MSCATTER as the op writing the table: its
    effects declare the GM write, so a divergence between targets is traced to it."""
    text = scatter_kernel(tile((2, 8), "f32"), tile((1, 8), "i32", valid=(1, 2)), view((4, 8), "f32"),
                          attrs("row", "max", "skip"))
    src = np.arange(16, dtype=np.float32).reshape(2, 8)
    idx = np.array([[1, 1, 0, 0, 0, 0, 0, 0]], np.int32)
    table = np.zeros((4, 8), np.float32)
    table[1, 0], table[0, 1] = 100, 50  # cpu's max reads table[1] = 50, a5's the row's own elements
    report = interpreter.compare(parse(text, "k.pto"), "all", [src, idx, table])
    assert report.first_divergent_op is not None
    assert "k.pto:2:3 pto.mscatter" in report.text()
    assert [d.differing for d in report.differences] == [0, 0, 8]
