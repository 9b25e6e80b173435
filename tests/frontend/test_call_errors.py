# pyright: reportInvalidTypeForm=false, reportCallIssue=false, reportArgumentType=false
# (kernels annotated with calls; the calls below are wrong on purpose)
"""
Issue 30, "The Python builder": a wrong call (a misspelt keyword, a missing operand, an
argument of the wrong type) is a PtoError at the caller's line naming the function and what
it expected, never Python's TypeError; with `from __future__ import annotations` too;
`pto.estimate` gives what `pto-opt --estimate=json` prints; `pto.kernel(dyn_ubuf_size=...)`.
"""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pto_frontend as pto
from tests.frontend.views import whole_views

HERE = __file__


def line() -> int:
    """The caller's line."""
    frame = inspect.currentframe()
    assert frame is not None and frame.f_back is not None
    return frame.f_back.f_lineno


@pto.kernel
def copy(src: pto.ptr(pto.f32), dst: pto.ptr(pto.f32)):
    sp, dp = whole_views([(src, (16, 64)), (dst, (16, 64))])
    t = pto.alloc_tile(shape=[16, 64], dtype=pto.f32)
    pto.tload(sp, t)
    pto.tstore(t, dp)


def located_at(error: pytest.ExceptionInfo[pto.PtoError], at: int) -> str:
    """The message after `FILE:LINE:COL: error: `, checking that it names this file and line."""
    where, _, message = str(error.value).partition(": error: ")
    assert where.startswith(f"{HERE}:{at}:"), str(error.value)
    return message


def building_error(kernel: pto.Kernel, at: list[int]) -> str:
    """The message of the error building `kernel` raises, checked located at the line its
    building recorded in `at`."""
    with pytest.raises(pto.PtoError) as e:
        kernel.to_pto()
    return located_at(e, at[0])


def test_a_misspelt_keyword_names_the_function_and_the_nearest() -> None:
    at: list[int] = []

    @pto.kernel
    def k(src: pto.ptr(pto.f32)):
        t = pto.alloc_tile(shape=[16, 64], dtype=pto.f32)
        sv = pto.make_tensor_view(src, shape=[16, 64], strides=[64, 1])
        at.append(line() + 1)
        pto.tload(pto.partition_view(sv, offsets=[0, 0], sizes=[16, 64]), t, tille=t)

    assert building_error(k, at) == "pto.tload(): got an unexpected keyword argument 'tille' (did you mean 'tile'?); it takes (view, tile)"


def test_a_missing_operand_names_it() -> None:
    at: list[int] = []

    @pto.kernel
    def k(src: pto.ptr(pto.f32)):
        t = pto.alloc_tile(shape=[16, 64], dtype=pto.f32)
        at.append(line() + 1)
        pto.tload(t)

    assert building_error(k, at) == "pto.tload(): missing a required argument: 'tile'; it takes (view, tile)"


def test_a_misspelt_keyword_of_a_scaffolding_function() -> None:
    at: list[int] = []

    @pto.kernel
    def k(src: pto.ptr(pto.f32)):
        at.append(line() + 1)
        pto.alloc_tile(shape=[16, 64], dtyp=pto.f32)

    assert building_error(k, at).startswith("pto.alloc_tile(): got an unexpected keyword argument 'dtyp' (did you mean 'dtype'?); it takes (shape, dtype, ")


@pytest.mark.parametrize(("function", "keyword"), [("alloc_tile", "shape"), ("make_tensor_view", "shape")])
def test_a_number_for_a_list(function: str, keyword: str) -> None:
    at: list[int] = []

    @pto.kernel
    def k(src: pto.ptr(pto.f32)):
        if function == "alloc_tile":
            at.append(line() + 1)
            pto.alloc_tile(shape=8, dtype=pto.f32)
        else:
            at.append(line() + 1)
            pto.make_tensor_view(src, shape=8, strides=[64, 1])

    assert building_error(k, at) == f"pto.{function}(): {keyword} takes a list, got 8"


def test_a_list_for_a_target() -> None:
    at = line() + 2
    with pytest.raises(pto.PtoError) as e:
        copy.to_pto(target=["cpu"])
    assert located_at(e, at) == "copy.to_pto(): target takes a target name (a str: cpu, a2a3, a5), got ['cpu']"


def test_a_number_for_targets() -> None:
    x = np.zeros(16 * 64, np.float32)
    at = line() + 2
    with pytest.raises(pto.PtoError) as e:
        copy.compare(x, x, targets=3)
    assert located_at(e, at) == 'copy.compare(): targets takes "all", a comma-separated str or a list of target names, got 3'


def test_a_misspelt_keyword_of_the_decorator() -> None:
    at = line() + 2
    with pytest.raises(pto.PtoError) as e:
        pto.kernel(targt="a5")
    assert located_at(e, at) == (
        "pto.kernel(): got an unexpected keyword argument 'targt' (did you mean 'target'?); "
        "it takes (function=None, *, target=None, name=None, dyn_ubuf_size=None)"
    )


def test_future_annotations_locate_at_the_annotation(tmp_path: Path) -> None:
    source = tmp_path / "k.py"
    source.write_text(
        "from __future__ import annotations\n"
        "import pto_frontend as pto\n"
        "\n"
        "@pto.kernel\n"
        "def k(src: pto.ptr('f16')):\n"
        "    pass\n"
        "\n"
        "try:\n"
        "    k.to_pto()\n"
        "except pto.PtoError as e:\n"
        "    print(e)\n"
    )
    done = subprocess.run([sys.executable, str(source)], capture_output=True, text=True, check=True, timeout=120)
    assert done.stdout == f"{source}:5:12: error: pto.ptr() takes an element type (pto.f16, pto.i32, ...), got 'f16'\n"


@pytest.mark.parametrize("flags", [[], ["--cost-model=calibrated"], ["--cost-model=calibrated", "--cores", "48"]])
def test_estimate_is_what_pto_opt_prints(tmp_path: Path, flags: list[str]) -> None:
    text = copy.to_pto(target="a2a3")
    (tmp_path / "k.pto").write_text(text)
    done = subprocess.run(
        [str(Path(sys.executable).parent / "pto-opt"), str(tmp_path / "k.pto"), "--target", "a2a3", "--estimate=json", *flags],
        capture_output=True, text=True, check=True, timeout=120,
    )
    printed = json.loads(done.stdout)
    cost_model = "calibrated" if flags else "pto-isa"
    cores = int(flags[-1]) if "--cores" in flags else None
    assert pto.estimate(str(tmp_path / "k.pto"), cost_model=cost_model, cores=cores) == printed
    from_kernel = pto.estimate(copy, target="a2a3", cost_model=cost_model, cores=cores)  # its ops located in this file
    assert [o["loc"].startswith(f"{HERE}:") for o in from_kernel["ops"]] == [True, True]
    assert {**from_kernel, "ops": [{**o, "loc": ""} for o in from_kernel["ops"]]} == {
        **printed, "ops": [{**o, "loc": ""} for o in printed["ops"]]
    }
    assert {o["model"] for o in printed["ops"]} == {"a2a3-calibrated" if flags else "pto-isa-costmodel"}


def test_estimate_takes_the_cost_models_and_cores_pto_opt_takes() -> None:
    at = line() + 2
    with pytest.raises(pto.PtoError) as e:
        pto.estimate(copy, target="a5", cost_model="roofline")
    assert located_at(e, at) == "pto.estimate(): cost_model takes 'pto-isa', 'calibrated', got 'roofline'"
    at = line() + 2
    with pytest.raises(pto.PtoError) as e:
        pto.estimate(copy, target="a5", cost_model="calibrated")
    assert located_at(e, at).startswith("pto.estimate(): target a5 has no calibrated cost model: no public hardware figure")
    at = line() + 2
    with pytest.raises(pto.PtoError) as e:
        pto.estimate(copy, target="a2a3", cores=4)
    assert located_at(e, at) == (
        "pto.estimate(): pto-isa's cost model has no contention between cores: --cores needs --cost-model=calibrated"
    )
    at = line() + 2
    with pytest.raises(pto.PtoError) as e:
        pto.estimate(copy, target="a2a3", cost_model="calibrated", cores="4")  # pyright: ignore[reportArgumentType]
    assert located_at(e, at) == "pto.estimate(): cores takes an int (cores transferring at once) or None, got '4'"


def test_dyn_ubuf_size_is_the_kernel_s_attribute() -> None:
    @pto.kernel(dyn_ubuf_size=65536)
    def k(src: pto.ptr(pto.f32)):
        pto.alloc_tile(shape=[16, 64], dtype=pto.f32)

    assert "attributes {pto.dyn_ubuf_size = 65536 : i64}" in k.to_pto(target="a5")
    at = line() + 2
    with pytest.raises(pto.PtoError) as e:
        pto.kernel(dyn_ubuf_size=-1)
    assert located_at(e, at) == "pto.kernel(): dyn_ubuf_size takes a non-negative int (bytes), got -1"


@pytest.fixture
def copy_module(tmp_path: Path):
    (tmp_path / "copy.pto").write_text(copy.to_pto())
    return pto.load(tmp_path / "copy.pto")


def test_the_module_forms_check_their_calls_as_the_kernel_s_do(copy_module) -> None:
    """pto.run / pto.compare / pto.draw_inputs on a loaded module: the same located errors."""
    x = np.zeros(16 * 64, np.float32)
    wrong_calls = [
        (lambda: pto.run(copy_module, ["cpu"], [x, x]), "pto.run(): target takes a target name (a str: cpu, a2a3, a5), got ['cpu']"),
        (lambda: pto.run(copy_module, "a9", [x, x]), "pto.run(): unknown target 'a9'; expected one of cpu, a2a3, a2, a3, a5"),
        (lambda: pto.compare(copy_module, targets=3, args=[x, x]),
         'pto.compare(): targets takes "all", a comma-separated str or a list of target names, got 3'),
        (lambda: pto.compare(copy_module, targets="cpu,a9", args=[x, x]),
         "pto.compare(): unknown target 'a9'; expected one of cpu, a2a3, a2, a3, a5"),
        (lambda: pto.draw_inputs(copy_module, "random", scalars=3),
         "pto.draw_inputs(): scalars takes a dict of scalar argument names and values, got 3"),
    ]
    for call, message in wrong_calls:
        at = inspect.getsourcelines(call)[1]  # each lambda's own line
        with pytest.raises(pto.PtoError) as e:
            call()
        assert located_at(e, at) == message
    at = line() + 2
    with pytest.raises(pto.PtoError) as e:
        pto.run(copy_module, "a5", [x, x], entyr="copy")
    assert located_at(e, at).startswith("pto.run(): got an unexpected keyword argument 'entyr' (did you mean 'entry'?); it takes (")
    assert np.array_equal(pto.run(copy_module, "a2", [np.arange(16 * 64, dtype=np.float32), x])[1], np.arange(16 * 64))


def test_calling_a_kernel_says_how_to_run_it() -> None:
    x = np.zeros(16 * 64, np.float32)
    at = line() + 2
    with pytest.raises(pto.PtoError) as e:
        copy(x, x)
    assert located_at(e, at) == (
        "copy() is a PTO kernel, not a Python function: run it with copy.run(*arrays, target=...), or print it with copy.to_pto()"
    )
