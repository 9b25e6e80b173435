"""
The instruction registry and the target registry are complete: every instruction has
every piece each layer reads, every target has a rule row and a lowering for it, every
op a lowering can produce has a kernel, and every (instruction, target) pair has
interpreter tests that check it against an independent formula (`COVERS` in the test
modules of tests/interpreter/, parametrized over the target registry), and every
instruction has its builder function (pto_frontend).
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from xdsl.traits import MemoryEffect

import targets
from pto_dialect.dialect import PTO
from pto_dialect.instruction import Instruction
from pto_dialect.instructions import REGISTRY
from pto_dialect.lowered import LoweredOp

INTERPRETER_TESTS = Path(__file__).parent / "interpreter"
INSTRUCTIONS = [pytest.param(i, id=i.mnemonic) for i in REGISTRY]
TARGETS = [pytest.param(t, id=t.name) for t in targets.REGISTRY]


def _parametrized_targets(function: object) -> set[str]:
    """The targets a test function is parametrized over (its `target` argument)."""
    found: set[str] = set()
    for mark in getattr(function, "pytestmark", []):
        if mark.name != "parametrize":
            continue
        names, values = mark.args[0], mark.args[1]
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        if "target" not in names:
            continue
        at = names.index("target")
        for value in values:
            value = value.values if hasattr(value, "values") else value
            found.add(value[at] if len(names) > 1 else value)
    return found


def _oracle_coverage() -> dict[str, set[str]]:
    """Instruction name -> targets its interpreter tests run on."""
    covered: dict[str, set[str]] = {}
    for path in sorted(INTERPRETER_TESTS.glob("test_*.py")):
        module = importlib.import_module(f"tests.interpreter.{path.stem}")
        tested = set().union(*(_parametrized_targets(f) for n, f in vars(module).items() if n.startswith("test_")))
        for name in getattr(module, "COVERS", ()):
            covered.setdefault(name, set()).update(tested)
    return covered


@pytest.mark.parametrize("instruction", INSTRUCTIONS)
@pytest.mark.parametrize("target", TARGETS)
def test_every_instruction_has_oracle_tests_on_every_target(instruction: Instruction, target: targets.TargetInfo):
    assert target.name in _oracle_coverage().get(instruction.name, set()), (
        f"no interpreter test checks {instruction.name} on {target.name} against its own formula "
        "(a tests/interpreter module with COVERS naming it, parametrized over the target registry)"
    )


@pytest.mark.parametrize("instruction", INSTRUCTIONS)
def test_every_instruction_is_declared_whole(instruction: Instruction):
    assert instruction.op in PTO.operations
    assert any(isinstance(t, MemoryEffect) for t in instruction.op.traits), "memory effects declared to xDSL"
    assert instruction.op.operand_roles(1, 1) is not None
    assert callable(instruction.check) and callable(instruction.describe) and callable(instruction.emit)
    for base in instruction.lowered:
        assert base.SOURCE is instruction.op  # pyright: ignore[reportAttributeAccessIssue]
        assert callable(base.KERNEL), f"{base.__name__} names no kernel"  # pyright: ignore[reportAttributeAccessIssue]


@pytest.mark.parametrize("instruction", INSTRUCTIONS)
def test_every_instruction_has_a_builder_function(instruction: Instruction):
    """pto_frontend's `pto.<mnemonic>(...)`, made from the op's forms (FORMS, operand_roles)
    and properties: every operand role and property is one of its arguments."""
    import inspect

    import pto_frontend
    from pto_frontend.instructions import argument_name

    op = instruction.op
    assert op.FORMS, f"{instruction.name} declares no FORMS (the ins and outs counts of its forms)"
    function = getattr(pto_frontend, instruction.mnemonic, None)
    assert callable(function), f"pto_frontend has no {instruction.mnemonic}()"
    roles = {argument_name(op, r) for counts in op.FORMS for group in op.operand_roles(*counts) for r in group}
    properties = {py for py, (_, kind) in op.get_irdl_definition().accessor_names.items() if kind == "property"}
    assert set(inspect.signature(function).parameters) == roles | properties


@pytest.mark.parametrize("instruction", INSTRUCTIONS)
@pytest.mark.parametrize("target", TARGETS)
def test_every_target_has_a_row_and_a_lowering(instruction: Instruction, target: targets.TargetInfo):
    assert isinstance(target.rules[instruction], instruction.rules)
    assert instruction in target.lowering.table


@pytest.mark.parametrize("instruction", INSTRUCTIONS)
@pytest.mark.parametrize("target", TARGETS)
def test_every_instruction_has_a_cost_model_on_every_target(instruction: Instruction, target: targets.TargetInfo):
    machine = target.costs
    assert instruction.cost is not None, f"{instruction.name} declares no cost (Instruction.cost, pto_dialect/cost.py)"
    assert type(machine) in instruction.cost.on, (
        f"{instruction.name} has no cost model on {target.name}'s machine ({type(machine).__name__}, "
        f"{target.package}.costs)"
    )


def test_the_cost_check_sees_a_missing_model():
    from dataclasses import replace

    from pto_dialect.instructions.transfer import TLOAD

    assert TLOAD.cost is not None
    for stripped in (replace(TLOAD, cost=None), replace(TLOAD, cost=replace(TLOAD.cost, on={}))):
        with pytest.raises(AssertionError, match="cost"):
            test_every_instruction_has_a_cost_model_on_every_target(stripped, targets.get("a2a3"))


@pytest.mark.parametrize("target", TARGETS)
def test_every_lowered_op_runs_a_kernel_of_its_instruction(target: targets.TargetInfo):
    bases = {base for i in REGISTRY for base in i.lowered}
    for op in target.dialect.operations:
        assert getattr(op, "KERNEL", None) is not None, f"{op.name} names no kernel"
        assert any(issubclass(op, base) for base in bases), f"{op.name} derives from no instruction's lowered op"
        assert op.__name__.lower().startswith(target.name.lower()), f"{op.__name__}: one class name per op ({op.name})"
        if issubclass(op, LoweredOp):
            assert op.SOURCE in {i.op for i in REGISTRY}


def test_an_incomplete_target_fails_when_its_tables_are_read():
    from targets.info import IncompleteTarget

    cpu = targets.get("cpu")
    broken = type(cpu)(**{**vars(cpu), "name": "broken", "package": "tests.incomplete_target"})
    with pytest.raises(IncompleteTarget, match="has no rule row for pto.tcolargmin"):
        broken.rules
