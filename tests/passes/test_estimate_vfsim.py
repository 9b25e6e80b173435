"""
The a5 estimate of the tile ops pto-isa's a5 cost model builds, which it prices with VfSim
(targets/a5/costs.py VFSIM_TABLE, pto_dialect/cost.py VfSimLoop). The expected cycles are worked
out here from the table's documented formula, issue by issue (each iteration's intrinsic issued
when it is ready and a port is free again), not by the estimate's code; a few are also the
figures VfSim itself gave (pto-isa 3186c381, bench/vfsim_diff.py).
"""

from __future__ import annotations

import pytest

from passes.estimate import estimate
from pto_dialect import parse
from targets.a5.costs import VFSIM_TABLE as TABLE
from tests.interpreter.harness import func, tile

BINARY = {"tadd": "vadd", "tsub": "vsub", "tmul": "vmul", "tdiv": "vdiv", "tmax": "vmax", "tmin": "vmin", "tand": "vand"}
SCALAR = {"tadds": "vadds", "tsubs": "vadds", "tmuls": "vmuls", "tmins": "vmins", "tshls": "vshls", "tshrs": "vshrs"}
SIZE = {"f32": 4, "f16": 2, "bf16": 2, "i32": 4, "i16": 2, "i8": 1}


def cycles_of(op: str, shape: tuple[int, int], valid: tuple[int, int], dtype: str) -> int:
    t = tile(shape, dtype, valid=valid)
    body = f"    %a = pto.alloc_tile : {t}\n    %b = pto.alloc_tile : {t}\n    %d = pto.alloc_tile : {t}\n"
    if op in BINARY:
        body += f"    pto.{op} ins(%a, %b : {t}, {t}) outs(%d : {t})\n"
    else:
        value = "2.0" if dtype.startswith(("f", "bf")) else "2"
        body += f"    %s = arith.constant {value} : {dtype}\n    pto.{op} ins(%a, %s : {t}, {dtype}) outs(%d : {t})\n"
    text = 'module attributes {pto.target_arch = "a5"} {\n' + func([], body) + "}\n"
    (row,) = estimate(parse(text, "k.pto"), "a5").json()["ops"]
    assert (row["pipe"], row["bytes"], row["model"]) == ("V", 0, "a5-vf-model")
    return row["cycles"]


def ready_times(rows: int, per_row: int, nested: bool) -> list[int]:
    """When each iteration is ready: one a cycle; in a nested loop (inner loop longer than one
    iteration) each row starts max(row_gap, per_row + nested_start) after the one before."""
    if not nested or per_row == 1:
        return list(range(rows * per_row))
    start, gap = int(TABLE.nested_start.value), max(int(TABLE.row_gap.value), per_row + int(TABLE.nested_start.value))
    return [start + o * gap + i for o in range(rows) for i in range(per_row)]


def expected(intrinsic: str, dtype: str, loads: int, rows: int, per_row: int, nested: bool) -> int:
    row = TABLE.rows.get(intrinsic, {}).get(dtype)
    if row is None:  # no VfSim row: VecCycle per executed instruction, nothing else
        f = TABLE.fallback
        return rows * per_row * int(loads * f["vlds"].value + f[intrinsic].value + f["vsts"].value)
    free = [0] * int(TABLE.ports.value)  # when each issue port takes its next intrinsic
    issued = 0
    for ready in ready_times(rows, per_row, nested):
        port = min(range(len(free)), key=free.__getitem__)
        issued = max(ready, free[port])
        free[port] = issued + int(row.initiation_interval.value)
    fixed = TABLE.startup.value + row.load_forward.value + row.store_forward.value + row.store_cost.value + TABLE.drain.value
    return int(fixed) + issued


def registers(count: int, dtype: str) -> int:
    return -(-count * SIZE[dtype] // 256)


@pytest.mark.parametrize(("op", "shape", "valid", "dtype"), [
    ("tadd", (16, 64), (16, 64), "f32"),  # one loop of 16 registers
    ("tdiv", (16, 64), (16, 64), "f32"),  # two ports, 4 cycles apart on each
    ("tdiv", (4, 256), (4, 256), "f16"),  # 8 cycles apart
    ("tmul", (1, 512), (1, 300), "bf16"),  # one row: one loop; bf16 takes fp16's row
    ("tmax", (8, 64), (8, 40), "f32"),  # rows of one register: the inner loop is straight code
    ("tsub", (6, 512), (5, 300), "f16"),  # rows of 3 registers: each row 7 after the one before
    ("tdiv", (3, 1024), (3, 1000), "f32"),  # rows of 16 divisions: the ports bound it
    ("tadds", (32, 128), (32, 128), "f16"),
    ("tsubs", (9, 640), (9, 600), "f32"),
    ("tmuls", (2, 64), (2, 64), "f32"),
    ("tmins", (40, 16), (33, 10), "f16"),
    ("tadd", (8, 64), (8, 64), "i32"),  # no VfSim row for int32: VecCycle
    ("tand", (5, 64), (5, 33), "i16"),
    ("tshls", (4, 256), (4, 256), "i8"),
    ("tmuls", (8, 64), (8, 64), "i32"),
])  # fmt: skip
def test_the_table_formula(op, shape, valid, dtype):
    intrinsic, loads = (BINARY[op], 2) if op in BINARY else (SCALAR[op], 1)
    contiguous = valid[1] == shape[1] or shape[0] == 1
    if contiguous:
        want = expected(intrinsic, dtype, loads, 1, registers(valid[0] * valid[1], dtype), nested=False)
    else:
        want = expected(intrinsic, dtype, loads, valid[0], registers(valid[1], dtype), nested=True)
    assert cycles_of(op, shape, valid, dtype) == want


@pytest.mark.parametrize(("op", "shape", "valid", "dtype", "vfsim"), [
    ("tadd", (16, 64), (16, 64), "f32", 70),
    ("tadd", (4, 256), (3, 200), "f16", 71),
    ("tdiv", (4, 256), (3, 200), "f16", 88),
    ("tdiv", (1, 200), (1, 150), "f32", 69),
    ("tmuls", (4, 256), (3, 200), "f16", 72),
    ("tmin", (18, 912), (18, 912), "bf16", 182),
    ("tmuls", (8, 64), (8, 64), "i32", 144),
    ("tadds", (8, 64), (5, 33), "i16", 70),
])  # fmt: skip
def test_figures_vfsim_gave(op, shape, valid, dtype, vfsim):
    """pto-isa's a5 cost model, run on these kernels (bench/vfsim_diff.py's build)."""
    assert cycles_of(op, shape, valid, dtype) == vfsim

