"""
What `pto-opt` and `pto-run` import: a plain parse-verify-print and `--help` leave out what they
do not use, and a run loads only its target's dialect and xDSL's func, arith and scf interpreters
(bench/startup.py measures the time; this checks the cause, without timing).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).parent.parent / "examples" / "embedding_lookup.pto"

REGISTER_LEVEL = ("pto_dialect.vpto", "interpreter.vpto")
"""The register level (pto_dialect/dialect.py): declared once IR names one of its ops or types."""

HEAVY = ("ml_dtypes", "numpy", "lark", "interpreter", "backends.cpp.emitter", "pto_dialect.asm.reader", *REGISTER_LEVEL)

PROBE = """
import sys
from pto_tools.{tool} import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
sys.stdout.flush()
print("\\nIMPORTED", *sorted(m for m in {heavy!r} if m in sys.modules))
"""


def imported_heavy_modules(*args: str, tool: str = "pto_opt", heavy: tuple[str, ...] = HEAVY) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(tool=tool, heavy=heavy), *args],
        capture_output=True, text=True, check=True,
    )
    return done.stdout.rsplit("IMPORTED", 1)[1].split()


def test_help_imports_nothing_heavy():
    assert imported_heavy_modules("--help") == []


def test_parse_verify_print_imports_nothing_heavy():
    assert imported_heavy_modules(str(EXAMPLE), "--target", "a5") == []


def test_the_probe_sees_heavy_imports():
    assert imported_heavy_modules(str(EXAMPLE), "--to=cpp", "-p", "pto-ssa-to-dps") == ["backends.cpp.emitter"]


def test_import_pto_frontend_leaves_the_interpreter_out():
    """Building and printing a kernel do not run it: the interpreter comes with run/compare."""
    probe = "import sys, pto_frontend; print(sorted(m for m in sys.modules if m.partition('.')[0] == 'interpreter'))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


RUN_UNUSED = (
    "targets.cpu.lowering", "targets.a5.lowering", "xdsl.interpreters.riscv", "xdsl.interpreters.linalg",
    "lark", "pto_dialect.asm.reader", *REGISTER_LEVEL, "passes.estimate", "passes.sync_check",
)
"""What a2a3's run of the example has no use for: the other targets' dialects, the interpreters of
xDSL's other dialects (which `xdsl.interpreters`' __init__ would import), the assembly form's
reader (a `.pto` file is MLIR text), the register level (the kernel has none), the cost model and
the sync check (neither --profile nor --check-sync)."""


def test_pto_run_help_imports_no_interpreter():
    assert imported_heavy_modules("--help", tool="pto_run", heavy=("interpreter", *RUN_UNUSED)) == []


def test_pto_run_imports_only_what_its_run_uses():
    used = ("interpreter", "targets.a2a3.lowering", "xdsl.interpreters.scf")
    found = imported_heavy_modules(str(EXAMPLE), "--inputs", "random", tool="pto_run", heavy=(*used, *RUN_UNUSED))
    assert found == sorted(used)


def test_the_register_level_joins_a_context_when_ir_names_it():
    """A register-level op or type parses in a context that had loaded the rest of `pto` (and in
    a clone of it), where the register level was not declared before."""
    probe = (
        "import sys, pto_dialect; ctx = pto_dialect.make_context(); "
        "tile = ctx.get_optional_op('pto.tload') is not None; before = pto_dialect.register_level_declared(); "
        "copy = ctx.clone(); found = (copy.get_optional_type('pto.vreg'), copy.get_optional_op('pto.vlds')); "
        "print(tile, before, type(copy).__name__, all(found), ctx.get_optional_op('pto.vlds') is not None, "
        "copy.get_optional_op('pto.no_such_op'))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "False", "PtoContext", "True", "True", "None"]


def test_xdsl_interpreters_init_runs_when_a_name_of_it_is_used():
    probe = (
        "import sys, pto_dialect.xdsl_interpreter; import xdsl.interpreters.scf; "
        "before = 'xdsl.interpreters.riscv' in sys.modules; "
        "from xdsl.interpreters import register_implementations; "
        "print(before, 'xdsl.interpreters.riscv' in sys.modules, callable(register_implementations))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True", "True"]


def test_formats_read_on_first_use_are_valid():
    """Each op of the project reads its assembly format into a parser when first used
    (pto_dialect/op_formats.py): every one of them reads, so none fails only once an op of it
    is parsed or printed; xDSL's own ops read theirs as xDSL declares them."""
    import targets
    from pto_dialect.dialect import PTO
    from pto_dialect.op_formats import format_program
    from xdsl.dialects.arith import AddiOp

    formats = 0
    for dialect in (PTO, *(target.dialect for target in targets.REGISTRY)):
        for op in dialect.operations:
            definition = op.get_irdl_definition()  # pyright: ignore[reportAttributeAccessIssue]
            if definition.assembly_format is not None:
                format_program(definition)
                formats += 1
    assert formats > 250
    AddiOp.get_irdl_definition()  # defined on first use (pto_dialect/op_definitions.py)
    assert AddiOp.parse.__qualname__.startswith("get_accessors_from_op_def")


DEFINITIONS_PROBE = """
import sys, targets
from pto_dialect.dialect import PTO
from pto_dialect.op_definitions import defined
from xdsl.dialects import arith, func, scf
dialects = (PTO, *(t.dialect for t in targets.REGISTRY), arith.Arith, func.Func, scf.Scf)
ops = [op for dialect in dialects for op in dialect.operations]
declared = sum(not defined(op) for op in ops)
gathered = {op: frozenset(op.traits) for op in ops}
for op in ops:
    op.get_irdl_definition()
print(len(ops), declared, all(defined(op) for op in ops), all(frozenset(op.traits) == gathered[op] for op in ops))
"""


def test_ops_defined_on_first_use_keep_their_traits():
    """Each op of the project, and of xDSL's arith, func and scf, builds its IRDL definition when
    first used (pto_dialect/op_definitions.py): every one of them builds, and the traits read before
    (xDSL's interpreter asks each op it registers) are those the definition gives."""
    done = subprocess.run([sys.executable, "-c", DEFINITIONS_PROBE], capture_output=True, text=True, check=True)
    ops, declared, all_defined, same_traits = done.stdout.split()
    assert int(declared) == int(ops) > 400
    assert (all_defined, same_traits) == ("True", "True")


def test_a_run_defines_only_the_ops_it_makes():
    """The a2a3 run of the example (about ten kinds of op) builds the IRDL definitions of few of the
    project's ops, not of its target's whole dialect nor of every pto instruction."""
    probe = PROBE.format(tool="pto_run", heavy=()) + (
        "from pto_dialect.dialect import PTO; from pto_dialect.op_definitions import defined; import targets\n"
        "ops = [*PTO.operations, *targets.SPELLINGS['a2a3'].dialect.operations]\n"
        "print('DEFINED', sum(map(defined, ops)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(EXAMPLE), "--inputs", "random"], capture_output=True, text=True, check=True
    )
    assert 0 < int(done.stdout.rsplit("DEFINED", 1)[1]) < 20


REGISTRATIONS_PROBE = """
import abc, contextlib, io, sys
registered = []
register = abc.ABCMeta.register
def recording(cls, subclass):
    registered.append(cls)
    return register(cls, subclass)
abc.ABCMeta.register = recording  # before any op or attribute class exists
import targets
from pto_dialect.dialect import PTO
from pto_tools.pto_run import main
from xdsl.ir import Attribute, Operation
with contextlib.redirect_stdout(io.StringIO()):
    main(sys.argv[1:])
ops = [*PTO.operations, *(op for t in targets.REGISTRY for op in t.dialect.operations)]
classes, pending = set(), [Operation, Attribute]
while pending:
    cls = pending.pop()
    if cls not in classes:
        classes.add(cls)
        pending += cls.__subclasses__()
nominal = not isinstance([], Operation) and all(issubclass(op, Operation) for op in ops)
print(len(registered), len(classes), nominal, *sorted(c.__qualname__ for c in registered if c in classes))
"""


def test_no_op_or_attribute_class_has_a_virtual_subclass():
    """`isinstance` against an op or attribute class answers from the MRO (pto_dialect/nominal_checks.py),
    which is what ABCMeta's walk over the subclasses finds only while none of them has a registered
    virtual subclass: none gets one (`ABCMeta.register`, followed from before xDSL is imported) while
    every dialect of the project is declared and a2a3 runs the example (NumPy's random module, which
    registers some on other ABCs, included)."""
    done = subprocess.run(
        [sys.executable, "-c", REGISTRATIONS_PROBE, str(EXAMPLE), "--inputs", "random"],
        capture_output=True, text=True, check=True,
    )
    registrations, classes, nominal, *on_ops_or_attributes = done.stdout.split()
    assert int(registrations) > 0  # the probe sees registrations
    assert int(classes) > 800
    assert nominal == "True"
    assert on_ops_or_attributes == []


BLAS_PROBE = """
import os, sys
from pto_tools import cli
numpy_before = "numpy" in sys.modules
try:
    cli.pto_run()
except SystemExit:
    pass
print(numpy_before, "numpy" in sys.modules, *(os.environ.get(name) for name in cli.BLAS_THREAD_COUNTS))
"""


def test_commands_ask_blas_for_one_thread_unless_told():
    """Before NumPy is imported, pto-run sets each BLAS thread count the user left unset to 1."""
    from pto_tools.cli import BLAS_THREAD_COUNTS

    unset = {k: v for k, v in os.environ.items() if k not in BLAS_THREAD_COUNTS}
    runs = [
        subprocess.run(
            [sys.executable, "-c", BLAS_PROBE, str(EXAMPLE), "--inputs", "random"],
            capture_output=True, text=True, check=True, env=unset | given,
        ).stdout.splitlines()[-1].split()
        for given in ({}, {"OPENBLAS_NUM_THREADS": "3"})
    ]
    assert runs == [["False", "True", "1", "1", "1"], ["False", "True", "3", "1", "1"]]
