"""
The calibrated a2a3 cost model (`--cost-model=calibrated`) against the public hardware figures
it is fitted to: each figure's kernel rebuilt as .pto, estimated by pto-isa's model and by the
calibrated one, with the errors and the leave-one-out error (each figure predicted by the
parameters fitted without it).

    .venv/bin/python bench/cost_calibration.py            # the table (markdown)
    .venv/bin/python bench/cost_calibration.py --write    # also into targets/a2a3/calibration.md,
                                                          # which docs/cost.md includes

The fit: the calibrated machine's cycles are linear in its parameters (targets/a2a3/costs.py
CALIBRATED), so each figure's kernel is estimated once per parameter with that parameter 1 and the
others 0, which gives the design matrix; the parameters minimise the squared relative error
subject to being >= 0 (Lawson-Hanson). Exit 1 when the stored parameters are not the fit's
(rounded to 4 significant digits).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from passes.estimate import estimate  # noqa: E402
from passes.pipeline import PipelinePass  # noqa: E402
from pto_dialect import parse  # noqa: E402
from pto_dialect.cost import CalibratedMachine, DmaPath  # noqa: E402
from targets.a2a3.costs import CALIBRATED, MACHINE  # noqa: E402
from xdsl.context import Context  # noqa: E402

TABLE = ROOT / "targets" / "a2a3" / "calibration.md"
FREQUENCY_MHZ = MACHINE.dma.frequency_hz.value / 1e6
"""Cycles per microsecond: A3's 1.85 GHz (pto-isa arch_config.hpp kMainFrequencyHz)."""

TLOAD_TEST = "pto-isa tests/costmodel/st/testcase/tload/main.cpp"
TOPK = "pto-isa kernels/manual/a2a3/topk/README.md"
GEMM = "pto-isa kernels/manual/a2a3/gemm_performance/README.md"


# ---------------------------------------------------------------------------
# The kernels


def _module(name: str, args: list[tuple[str, str]], body: list[str], consts: set[int]) -> str:
    sig = ", ".join(f"%{n}: !pto.ptr<{t}, gm>" for n, t in args)
    lines = [f"    %c{v} = arith.constant {v} : index" for v in sorted(consts)] + [f"    {b}" for b in body]
    return (
        'module attributes {pto.target_arch = "a2a3"} {\n'
        f"  func.func @{name}({sig}) {{\n" + "\n".join(lines) + "\n    return\n  }\n}\n"
    )


def _view(name: str, ptr: str, dtype: str, shape: tuple[int, ...], strides: tuple[int, ...], layout: str,
          offsets: tuple[str, ...] | None = None, sizes: tuple[int, ...] | None = None) -> tuple[list[str], set[int], str]:
    """A tensor view of `ptr` and its partition `%<name>` (offsets: SSA names, default 0)."""
    rank = len(shape)
    sizes = sizes or shape
    offsets = offsets or ("%c0",) * rank
    tv = "!pto.tensor_view<" + "?x" * rank + f"{dtype}>"
    pv = "!pto.partition_tensor_view<" + "x".join(map(str, sizes)) + f"x{dtype}>"
    c = lambda vs: ", ".join(f"%c{v}" for v in vs)  # noqa: E731
    lines = [
        f"%{name}_t = pto.make_tensor_view %{ptr}, shape = [{c(shape)}], strides = [{c(strides)}] "
        f"{{layout = #pto.layout<{layout}>}} : {tv}",
        f"%{name} = pto.partition_view %{name}_t, offsets = [{', '.join(offsets)}], sizes = [{c(sizes)}] : {tv}",
    ]
    return lines, {0, *shape, *strides, *sizes}, pv


def _tile(loc: str, rows: int, cols: int, dtype: str, valid: tuple[int, int] | None = None, **keys: object) -> str:
    text = f"!pto.tile_buf<{loc}, {rows}x{cols}x{dtype}"
    if valid is not None and valid != (rows, cols):
        text += f", valid={valid[0]}x{valid[1]}"
    return text + "".join(f", {k}={v}" for k, v in keys.items()) + ">"


def tload_test(dtype: str, shape5: tuple[int, ...], tile: tuple[int, int], valid: tuple[int, int], layout: str,
               pad: int = 0) -> str:
    """pto-isa's runTLoadND / runTLoadDN: one TLOAD of a 5-D GM tensor into a UB tile."""
    s0, s1, s2, s3, s4 = shape5
    if layout == "nd":
        strides = (s1 * s2 * s3 * s4, s2 * s3 * s4, s3 * s4, s4, 1)
        keys: dict[str, object] = {}
    else:
        strides = (s1 * s2 * s3 * s4, s2 * s3 * s4, s3 * s4, 1, s3)
        keys = {"blayout": "col_major"}
    if pad:
        keys["pad"] = pad
    lines, consts, pv = _view("src", "a", dtype, shape5, strides, layout)
    t = _tile("vec", *tile, dtype, valid, **keys)
    body = [*lines, f"%t = pto.alloc_tile : {t}", f"pto.tload ins(%src : {pv}) outs(%t : {t})"]
    return _module("tload", [("a", dtype)], body, consts | {1})


def topk_core(rows: int, dtype: str, topk: int, cores: int = 48, cols: int = 1280, valid_col: int = 1024) -> str:
    """One core's transfers of pto-isa's topk kernel (topk_kernel.cpp): its rows / cores rows,
    two at a time (SINGLE_LOOP_ROW), each pair loaded from a row stride of `cols`, its top-k
    values (dtype) and indices (u32 as i32) stored, two rows each."""
    loops = rows // cores // 2
    src, s_consts, s_pv = _view("src", "a", dtype, (rows, cols), (cols, 1), "nd", ("%r", "%c0"), (2, valid_col))
    out, o_consts, o_pv = _view("dst", "o", dtype, (rows, topk), (topk, 1), "nd", ("%r", "%c0"), (2, topk))
    idx, i_consts, i_pv = _view("idx", "ids", "i32", (rows, topk), (topk, 1), "nd", ("%r", "%c0"), (2, topk))
    t_src = _tile("vec", 2, valid_col, dtype)
    t_out = _tile("vec", 2, valid_col, dtype, (2, topk))
    t_idx = _tile("vec", 2, valid_col, "i32", (2, topk))
    body = [
        f"%s = pto.alloc_tile : {t_src}",
        f"%d = pto.alloc_tile : {t_out}",
        f"%x = pto.alloc_tile : {t_idx}",
        f"scf.for %i = %c0 to %c{loops} step %c1 {{",
        "  %r = arith.muli %i, %c2 : index",
        *("  " + line for line in src + out + idx),
        f"  pto.tload ins(%src : {s_pv}) outs(%s : {t_src})",
        f"  pto.tstore ins(%d : {t_out}) outs(%dst : {o_pv})",
        f"  pto.tstore ins(%x : {t_idx}) outs(%idx : {i_pv})",
        "}",
    ]
    return _module("topk_core", [("a", dtype), ("o", dtype), ("ids", "i32")], body,
                   s_consts | o_consts | i_consts | {1, 2, loops})


def gemm_core(size: int, base_m: int = 128, base_n: int = 256, base_k: int = 64, step_k: int = 4) -> str:
    """One core's GM->L1 loads of pto-isa's gemm_performance kernel (m = k = n = size on 24
    cores split 4 x 6): per (m, n) block and per step of base_k * step_k, an ND A panel into an
    NZ L1 tile and a DN B panel into a ZN one (gemm_performance_kernel.cpp ProcessKIteration)."""
    m_loop, n_loop, k_loop = size // 4 // base_m, size // 6 // base_n, size // (base_k * step_k)
    panel_k = base_k * step_k
    a, a_consts, a_pv = _view("pa", "a", "f16", (size, size), (size, 1), "nd", ("%am", "%ak"), (base_m, panel_k))
    b, b_consts, b_pv = _view("pb", "b", "f16", (size, size), (1, size), "dn", ("%ak", "%bn"), (panel_k, base_n))
    t_a = _tile("mat", base_m, panel_k, "f16", blayout="col_major", slayout="row_major")
    t_b = _tile("mat", panel_k, base_n, "f16", slayout="col_major")
    body = [
        f"%ta = pto.alloc_tile : {t_a}",
        f"%tb = pto.alloc_tile : {t_b}",
        f"scf.for %i = %c0 to %c{m_loop} step %c1 {{",
        f"  %am = arith.muli %i, %c{base_m} : index",
        f"  scf.for %j = %c0 to %c{n_loop} step %c1 {{",
        f"    %bn = arith.muli %j, %c{base_n} : index",
        f"    scf.for %k = %c0 to %c{k_loop} step %c1 {{",
        f"      %ak = arith.muli %k, %c{panel_k} : index",
        *("      " + line for line in a + b),
        f"      pto.tload ins(%pa : {a_pv}) outs(%ta : {t_a})",
        f"      pto.tload ins(%pb : {b_pv}) outs(%tb : {t_b})",
        "    }",
        "  }",
        "}",
    ]
    return _module("gemm_core", [("a", "f16"), ("b", "f16")], body,
                   a_consts | b_consts | {1, m_loop, n_loop, k_loop, base_m, base_n})


# ---------------------------------------------------------------------------
# The figures


@dataclass(frozen=True)
class Figure:
    name: str
    measured: float
    """Cycles."""
    source: str
    kernel: str
    pipe: str
    """The pipe whose total the figure measures."""
    cores: int = 1


def _tload(name: str, cycles: float, *args: object, **keys: object) -> Figure:
    return Figure(name, cycles, f"{TLOAD_TEST} {name} EXPECT_CYCLE_NEAR", tload_test(*args, **keys), "MTE2")  # type: ignore[arg-type]


def _ratio(percent: float, micros: float) -> float:
    return percent / 100 * micros * FREQUENCY_MHZ


def figures() -> list[Figure]:
    out = [
        _tload("c01_nd_float_128x128", 776, "f32", (1, 1, 1, 128, 128), (128, 128), (128, 128), "nd"),
        _tload("c02_nd_float_256x64", 2624, "f32", (2, 2, 2, 32, 64), (256, 64), (256, 64), "nd"),
        _tload("c03_nd_float_128x127_padmax", 773, "f32", (1, 1, 1, 128, 127), (128, 128), (128, 127), "nd", pad=2),
        _tload("c04_nd_int16_128x127_padmax", 519, "i16", (1, 1, 1, 128, 127), (128, 128), (128, 127), "nd", pad=2),
        _tload("c05_nd_uint8_128x127_padmin", 392, "ui8", (1, 1, 1, 128, 127), (128, 128), (128, 127), "nd", pad=3),
        _tload("c06_nd_int16_64x128_dyn", 8576, "i16", (1, 1, 32, 2, 128), (64, 128), (64, 128), "nd"),
        _tload("c07_nd_int16_64x128_static", 8576, "i16", (1, 1, 32, 2, 128), (64, 128), (64, 128), "nd"),
        _tload("c08_nd_float_256x60_padmax", 2497, "f32", (2, 2, 2, 32, 60), (256, 64), (256, 60), "nd", pad=2),
        _tload("c09_dn_float_64x128", 8704, "f32", (1, 1, 32, 64, 4), (64, 128), (64, 128), "dn"),
        _tload("c10_dn_float_256x60", 8352, "f32", (2, 2, 2, 255, 8), (256, 64), (255, 64), "dn"),
    ]
    topk = [  # (rows, dtype, topk, mte2 %, mte3 %, task_duration us)
        (4800, "f32", 1000, 11.7, 10.4, 324.106),
        (3456, "f32", 1000, 12.3, 10.5, 238.819),
        (2304, "f32", 1000, 12.4, 10.1, 161.375),
        (4800, "f16", 1008, 11.5, 9.6, 326.886),
    ]
    for rows, dtype, k, mte2, mte3, micros in topk:
        kernel = topk_core(rows, dtype, k)
        row = f"{TOPK} Measured Performance, type={'float' if dtype == 'f32' else 'half'} rows={rows}"
        out.append(Figure(f"topk {dtype} {rows} rows: TLOAD", _ratio(mte2, micros), f"{row}: aiv_mte2_ratio {mte2}% x {micros} us", kernel, "MTE2", 48))
        out.append(Figure(f"topk {dtype} {rows} rows: TSTORE", _ratio(mte3, micros), f"{row}: aiv_mte3_ratio {mte3}% x {micros} us", kernel, "MTE3", 48))
    gemm = [(1536, 72.2, 0.0388), (3072, 90.9, 0.2067), (6144, 95.2, 1.5060), (7680, 98.4, 3.1680)]
    for size, ratio, millis in gemm:
        out.append(Figure(
            f"gemm {size}^3: TLOAD GM->L1", _ratio(ratio, millis * 1000),
            f"{GEMM} Measured Performance, m=k=n={size}: TLOAD Ratio {ratio}% x {millis} ms", gemm_core(size), "MTE2", 24,
        ))
    return out


# ---------------------------------------------------------------------------
# The fit


@dataclass(frozen=True)
class Unknown:
    """A fitted parameter: where it sits in the calibrated machine."""

    name: str
    set: Callable[[CalibratedMachine, float], CalibratedMachine]
    get: Callable[[CalibratedMachine], float]


def _path(path: DmaPath, **fields: float) -> Callable[[CalibratedMachine, float], CalibratedMachine]:
    def put(machine: CalibratedMachine, value: float) -> CalibratedMachine:
        timing = machine.paths[path]
        changed = {f: replace(getattr(timing, f), value=value * scale) for f, scale in fields.items()}
        return replace(machine, paths={**machine.paths, path: replace(timing, **changed)})

    return put


def _shared_latency(machine: CalibratedMachine, value: float) -> CalibratedMachine:
    for path in (DmaPath.GM_TO_UB, DmaPath.GM_TO_L1):
        machine = _path(path, latency=1)(machine, value)
    return machine


UNKNOWNS = [
    Unknown("GM read latency (GM_TO_UB, GM_TO_L1)", _shared_latency, lambda m: m.paths[DmaPath.GM_TO_UB].latency.value),
    Unknown("GM_TO_UB per block (<= 512-B bursts)", _path(DmaPath.GM_TO_UB, per_block=1), lambda m: m.paths[DmaPath.GM_TO_UB].per_block.value),
    Unknown("GM_TO_UB per block (longer bursts)", _path(DmaPath.GM_TO_UB, per_long_block=1), lambda m: m.paths[DmaPath.GM_TO_UB].per_long_block.value),  # type: ignore[union-attr]
    Unknown("GM_TO_L1 per block", _path(DmaPath.GM_TO_L1, per_block=1), lambda m: m.paths[DmaPath.GM_TO_L1].per_block.value),
    Unknown("UB_TO_GM latency", _path(DmaPath.UB_TO_GM, latency=1), lambda m: m.paths[DmaPath.UB_TO_GM].latency.value),
    Unknown("UB_TO_GM per block", _path(DmaPath.UB_TO_GM, per_block=1), lambda m: m.paths[DmaPath.UB_TO_GM].per_block.value),
    Unknown("contention per other core", lambda m, v: replace(m, contention=replace(m.contention, value=v)), lambda m: m.contention.value),
]


def with_values(values: np.ndarray | list[float]) -> CalibratedMachine:
    machine = CALIBRATED
    for unknown, value in zip(UNKNOWNS, values):
        machine = unknown.set(machine, float(value))
    return machine


def pipe_total(lowered: object, figure: Figure, machine: object) -> float:
    report = estimate(lowered, "a2a3", machine=machine)  # type: ignore[arg-type]
    total = report.pipes().get(figure.pipe)
    assert total is not None, (figure.name, report.pipes())
    return float(total)


def nnls(a: np.ndarray, b: np.ndarray, tolerance: float = 1e-10) -> np.ndarray:
    """min |a x - b| subject to x >= 0 (Lawson and Hanson's active-set method)."""
    n = a.shape[1]
    x, passive = np.zeros(n), np.zeros(n, dtype=bool)
    for _ in range(3 * n):
        gradient = a.T @ (b - a @ x)
        if passive.all() or gradient[~passive].max(initial=-np.inf) <= tolerance:
            break
        passive[np.argmax(np.where(passive, -np.inf, gradient))] = True
        while True:
            z = np.zeros(n)
            z[passive] = np.linalg.lstsq(a[:, passive], b, rcond=None)[0]
            if (z[passive] > tolerance).all():
                x = z
                break
            negative = passive & (z <= tolerance)
            step = np.min(x[negative] / (x[negative] - z[negative]))
            x = x + step * (z - x)
            passive &= x > tolerance
    return x


def fit(design: np.ndarray, offset: np.ndarray, measured: np.ndarray) -> np.ndarray:
    """The parameters minimising the squared relative error of offset + design @ x, x >= 0."""
    weight = 1 / measured
    return nnls(design * weight[:, None], (measured - offset) * weight)


@dataclass
class Row:
    figure: Figure
    pto_isa: float
    calibrated: float
    left_out: float

    def errors(self) -> tuple[float, float, float]:
        m = self.figure.measured
        return tuple((v - m) / m for v in (self.pto_isa, self.calibrated, self.left_out))  # type: ignore[return-value]


def calibrate() -> tuple[list[Row], np.ndarray]:
    """Each figure's row and the fitted parameters."""
    rows, design, offsets = [], [], []
    zero = with_values([0.0] * len(UNKNOWNS))
    for figure in figures():
        lowered = parse(figure.kernel, f"{figure.name}.pto")
        PipelinePass("a2a3").apply(Context(), lowered)
        at = lambda machine: pipe_total(lowered, figure, machine.with_cores(figure.cores))  # noqa: E731
        offset = at(zero)
        offsets.append(offset)
        design.append([at(unknown.set(zero, 1.0)) - offset for unknown in UNKNOWNS])
        rows.append(Row(figure, pipe_total(lowered, figure, MACHINE), at(CALIBRATED), 0.0))
    a, b, measured = np.array(design), np.array(offsets), np.array([r.figure.measured for r in rows])
    values = fit(a, b, measured)
    for i, row in enumerate(rows):
        keep = np.arange(len(rows)) != i
        row.left_out = float(b[i] + a[i] @ fit(a[keep], b[keep], measured[keep]))
    return rows, values


def significant(value: float, digits: int = 4) -> float:
    return float(f"{value:.{digits}g}")


def table(rows: list[Row]) -> str:
    head = "| figure | measured | pto-isa model | error | calibrated | error | left out | error |\n|---|---:|---:|---:|---:|---:|---:|---:|\n"
    lines = []
    for row in rows:
        e_isa, e_cal, e_loo = row.errors()
        lines.append(
            f"| {row.figure.name} | {row.figure.measured:.0f} | {row.pto_isa:.0f} | {e_isa:+.1%} | "
            f"{row.calibrated:.0f} | {e_cal:+.1%} | {row.left_out:.0f} | {e_loo:+.1%} |"
        )
    errors = np.abs(np.array([r.errors() for r in rows]))
    medians = np.median(errors, axis=0)
    worse = int((errors[:, 0] > 0.4).sum())
    summary = (
        f"\nMedian absolute error over the {len(rows)} figures: pto-isa's model {medians[0]:.1%} "
        f"(worse than 40% on {worse}), calibrated {medians[1]:.1%}, left out {medians[2]:.1%}; "
        f"largest: calibrated {errors[:, 1].max():.1%}, left out {errors[:, 2].max():.1%}.\n"
    )
    return head + "\n".join(lines) + "\n" + summary


def sources(rows: list[Row]) -> str:
    return "".join(f"- {r.figure.name}: {r.figure.source}; {r.figure.pipe} total, {r.figure.cores} core(s).\n" for r in rows)


def document(rows: list[Row]) -> str:
    """The table and the figures' sources (targets/a2a3/calibration.md)."""
    return table(rows) + "\nThe figures (each measured in cycles at 1.85 GHz):\n\n" + sources(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write the table to {TABLE.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    rows, values = calibrate()
    text = document(rows)
    print(text, end="")
    stale = [
        f"  {u.name}: stored {u.get(CALIBRATED)}, fitted {significant(v)}"
        for u, v in zip(UNKNOWNS, values)
        if significant(v) != u.get(CALIBRATED)
    ]
    if stale:
        print("the stored parameters (targets/a2a3/costs.py CALIBRATED) are not the fit:\n" + "\n".join(stale), file=sys.stderr)
        return 1
    if args.write:
        TABLE.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
