"""
`isinstance` and `issubclass` against an xDSL op or attribute class answer from the class's MRO.

xDSL's `Operation` and `Attribute` are ABCs, so a check that fails (`isinstance(value, Operation)`
on a list, `isinstance(op, PtoInstructionOp)` on a func.func) makes ABCMeta look for a virtual
subclass registered on each subclass of the class, every one of the ~800 op and attribute
classes under it, once per checked type and again after any `ABC.register` anywhere (importing
numpy.random registers some): a fifth of `pto-run`'s time after its imports (bench/startup.py).
No class of these trees has a virtual subclass (tests/test_startup.py checks every one), so
their `__subclasshook__` answers nominally, which is what the walk found.
"""

from __future__ import annotations

from xdsl.ir import Attribute, Operation


def _nominal(cls: type, subclass: type) -> bool:
    return cls in subclass.__mro__


for _root in (Operation, Attribute):
    _root.__subclasshook__ = classmethod(_nominal)  # pyright: ignore[reportAttributeAccessIssue]
