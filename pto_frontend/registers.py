"""
a5's register level in Python: one builder function per register-level op, made from the op's
definition rather than written.

    with pto.vecscope():                                   # pto.vecscope { ... }
        table = pto.tile_buf_addr(t)                       # !pto.ptr<f32, ub>
        at = pto.castptr(pto.tile_buf_addr(i), pto.ptr(pto.ui32, "ub"))
        m, rest = pto.plt_b32(n)                           # the first n lanes
        offsets = pto.vlds(at, 0)                          # !pto.vreg<64xui32>
        r = pto.vgather2(table, offsets, m)                # !pto.vreg<64xf32>
        pto.vsts(r, pto.tile_buf_addr(o), 0, m)

- Arguments: the op's operands in its order, then its properties (a str for a token: `"PAT_ALL"`,
  `dist="PK_B16"`), the optional ones None when absent; optional operands (a value) and variadic
  ones (a list: `mte_gm_ub`'s `loop_counts=[...]`) by keyword. A Python int stands for an operand
  whose type the op fixes (index, i32, i64); any other operand takes a value of the kernel.
- Results: what each op gives is stated once, in `RESULT_TYPES`; a function returns its op's value,
  a tuple of them (`pto.plt_b32`), or None. `vlds` / `vsts` take `post_update=True` (PTOAS's
  post-update form: the access at the base, which also comes back advanced by the offset).
- The op's own verifier judges the call, at the caller's line; a kernel holding them verifies only for
  a5 (elsewhere: the register level is a5's).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from xdsl.dialects.builtin import IndexType, i32, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import AttrSizedSegments, IRDLOperation, OperandDef, OptOperandDef, OptPropertyDef, VarOperandDef, VerificationContext
from xdsl.utils.exceptions import VerifyException

from pto_dialect.dtypes import element_info
from pto_dialect.types import PtrType, TileBufType
from pto_dialect.vpto.dma import MteGmUbOp, MteUbGmOp
from pto_dialect.vpto.gather import GATHER_OPS, RegisterGatherOp
from pto_dialect.vpto.load_store import VldsOp, VstsOp
from pto_dialect.vpto.pointers import AddPtrOp, CastPtrOp
from pto_dialect.vpto.predicates import PGE_OPS, PLT_OPS, PSET_OPS, PandOp, PnotOp, PorOp, PselOp, PxorOp
from pto_dialect.vpto.scope import MemBarOp, SprClrOp
from pto_dialect.vpto.tile_handles import TileBufAddrOp
from pto_dialect.vpto.types import MaskType, VRegType
from pto_dialect.vpto.vector import VbrOp, VcmpsOp, VdupOp, VselOp

from pto_frontend.instructions import property_attribute
from pto_frontend.trace import bind, current, located, sequence_of
from pto_frontend.values import DType, Ptr, Value, wrap

Types = Mapping[str, Attribute]
"""An op's operand types, by operand name."""


@dataclass(frozen=True)
class Results:
    """What an op gives: its result types from its operand types and the function's own keywords
    (`to=`, `dtype=`: what the operands do not decide); None for an absent optional result."""

    types: Callable[[type[IRDLOperation], Types, Mapping[str, object]], list[Attribute | None]]
    keywords: tuple[str, ...] = field(default=())
    """Optional, keyword-only (None when absent)."""
    required: tuple[str, ...] = field(default=())
    """Required, after the operands (`pto.castptr(address, pto.ptr(pto.f32, "ub"))`)."""


def _granularity(op: type[IRDLOperation]) -> MaskType:
    return MaskType.of(getattr(op, "GRANULARITY"))


def _cast_target(_op: type[IRDLOperation], _types: Types, keywords: Mapping[str, object]) -> list[Attribute | None]:
    to = keywords["to"]
    if not isinstance(to, Ptr | DType):
        raise located(f"pto.castptr() takes to=pto.ptr(dtype, 'ub'|'gm') or an integer type (pto.i64), got {to!r}")
    return [to.attr]


def _advanced(base: str) -> Callable[[Types, Mapping[str, object]], Attribute | None]:
    """The post-update result (`post_update=True`: the access at the base, which comes back advanced
    by the offset): the type of operand `base`; None when not asked for."""
    return lambda types, keywords: types[base] if keywords["post_update"] else None


def _loaded(_op: type[IRDLOperation], types: Types, keywords: Mapping[str, object]) -> list[Attribute | None]:
    dtype = keywords["dtype"]
    if dtype is not None and not isinstance(dtype, DType):
        raise located(f"pto.vlds() takes dtype=pto.f32, pto.i16, ... (the register's lanes), got {dtype!r}")
    element = dtype.attr if dtype is not None else types["source"].element_type  # pyright: ignore[reportAttributeAccessIssue]
    return [VRegType.of(element), _advanced("source")(types, keywords)]


def _same_as(operand: str) -> Results:
    """An op whose result has the type of its operand `operand`."""
    return Results(lambda _op, types, _k: [types[operand]])


def _broadcast(op: type[IRDLOperation], types: Types, _keywords: Mapping[str, object]) -> list[Attribute | None]:
    """A register of a scalar's type (or the register given, for vdup's lane form)."""
    given = next(iter(types.values()))
    if isinstance(given, VRegType):
        return [given]
    if element_info(given) is None:
        raise located(f"pto.{op.name.removeprefix('pto.')}() takes a scalar of an element type, got a {given}")
    return [VRegType.of(given)]


NOTHING = Results(lambda _op, _t, _k: [])
"""An op without results."""


def _tile_address(_op: type[IRDLOperation], types: Types, _keywords: Mapping[str, object]) -> list[Attribute | None]:
    tile = types["src"]
    assert isinstance(tile, TileBufType), "its operand was checked"
    return [PtrType.get(tile.element_type, "ub")]


def _gathered(op: type[IRDLOperation], types: Types, _keywords: Mapping[str, object]) -> list[Attribute | None]:
    assert issubclass(op, RegisterGatherOp)
    source = types["source"]
    assert isinstance(source, PtrType), "its operand was checked"
    return [op.result_for(source)]


RESULT_TYPES: dict[type[IRDLOperation], Results] = {
    CastPtrOp: Results(_cast_target, required=("to",)),
    AddPtrOp: _same_as("ptr"),
    **{op: Results(lambda op, _t, _k: [_granularity(op)]) for op in (*PSET_OPS, *PGE_OPS)},
    **{op: Results(lambda op, _t, _k: [_granularity(op), i32]) for op in PLT_OPS},
    VldsOp: Results(_loaded, ("dtype", "post_update")),
    VstsOp: Results(lambda _op, types, keywords: [_advanced("destination")(types, keywords)], ("post_update",)),
    VdupOp: Results(_broadcast),
    VbrOp: Results(_broadcast),
    VselOp: _same_as("src0"),
    VcmpsOp: _same_as("mask"),
    **{op: _same_as("src0") for op in (PandOp, PorOp, PxorOp, PselOp)},
    PnotOp: _same_as("input"),
    **{op: NOTHING for op in (MemBarOp, SprClrOp, MteGmUbOp, MteUbGmOp)},
    TileBufAddrOp: Results(_tile_address),
    **{op: Results(_gathered) for op in GATHER_OPS if issubclass(op, RegisterGatherOp)},
    **{op: NOTHING for op in GATHER_OPS if not issubclass(op, RegisterGatherOp)},
}
"""The register-level ops the builder writes, and what each gives."""

_FIXED_TYPES: tuple[Attribute, ...] = (IndexType(), i32, i64)
"""The operand types a Python int can stand for (when the op takes exactly one of them there)."""


def _fits(definition: OperandDef, type_: Attribute) -> bool:
    try:
        definition.constr.verify((type_,), VerificationContext())
    except VerifyException:
        return False
    return True


def _operand(function: str, argument: str, value: object, definition: OperandDef) -> SSAValue:
    """A value of the kernel whose type the operand takes, or a Python int as a constant of the one
    integer type it takes."""
    if isinstance(value, Value):
        if not _fits(definition, value.type):
            raise located(f"{function}(): '{argument}' takes {_expected(definition)}, got {value!r}")
        return value.ssa
    fixed = [t for t in _FIXED_TYPES if _fits(definition, t)]
    if isinstance(value, int) and not isinstance(value, bool) and len(fixed) == 1:
        return current(function).constant(value, fixed[0])
    raise located(f"{function}(): '{argument}' takes {_expected(definition)}, got {value!r}")


def _operands(function: str, argument: str, value: object, definition: VarOperandDef) -> list[SSAValue]:
    """An optional operand's value (none for None), or a variadic operand's list of them."""
    if value is None:
        return []
    if isinstance(definition, OptOperandDef):
        return [_operand(function, argument, value, definition)]
    return [_operand(function, argument, v, definition) for v in sequence_of(f"{function}()", argument, value)]


def _expected(definition: OperandDef) -> str:
    fixed = [t for t in _FIXED_TYPES if _fits(definition, t)]
    if len(fixed) == 1:
        return f"a value of type {fixed[0]} or a Python int"
    kinds = {VRegType: "a vector register (!pto.vreg)", MaskType: "a mask (!pto.mask)", PtrType: "a pointer (!pto.ptr)",
             TileBufType: "a tile (pto.alloc_tile)"}
    return next((spelled for kind, spelled in kinds.items() if _fits_kind(definition, kind)), "a value of the kernel (a number as one: pto.constant(n, dtype))")


def _fits_kind(definition: OperandDef, kind: type[Attribute]) -> bool:
    """The operand takes only `kind` (its single-value constraint's base)."""
    single = getattr(getattr(definition.constr, "constraint", None), "constr", None)  # RangeLength(RangeOf(c))
    bases = single.get_bases() if single is not None else None
    return bases == {kind}


def register_function(op: type[IRDLOperation], results: Results) -> Callable[..., object]:
    """The builder function of a register-level op."""
    definition = op.get_irdl_definition()
    name = f"pto.{op.name.removeprefix('pto.')}"
    single = {n: d for n, d in definition.operands if not isinstance(d, VarOperandDef)}
    varied = {n: d for n, d in definition.operands if isinstance(d, VarOperandDef)}
    """Optional operands (a value or None) and variadic ones (a list), keyword-only."""
    sizes = {o.attribute_name for o in definition.options if isinstance(o, AttrSizedSegments)}  # build computes them
    given = {n: p for n, p in definition.properties.items() if n not in sizes}
    required = [n for n, p in given.items() if not isinstance(p, OptPropertyDef)]
    optional = [n for n, p in given.items() if isinstance(p, OptPropertyDef)]
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    signature = inspect.Signature(
        [inspect.Parameter(n, positional) for n in (*single, *results.required, *required)]
        + [inspect.Parameter(n, positional, default=None) for n in optional]
        + [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=None) for n in (*varied, *results.keywords)]
    )

    def build(*args: object, **kwargs: object) -> object:
        trace = current(f"{name}()")
        arguments = bind(f"{name}()", signature, args, kwargs)
        values = {n: _operand(name, n, arguments[n], d) for n, d in single.items()}
        groups = {n: _operands(name, n, arguments.get(n), d) for n, d in varied.items()}
        properties = {
            n: property_attribute(name, op, n, n, arguments[n]) for n in (*required, *optional) if arguments.get(n) is not None
        }
        keywords = {k: arguments.get(k) for k in (*results.required, *results.keywords)}
        result_types = results.types(op, {n: v.type for n, v in values.items()}, keywords)
        operands = [values[n] if n in values else groups[n] for n, _ in definition.operands]
        built = trace.append(op.build(operands=operands, properties=properties, result_types=result_types))
        made = tuple(wrap(r) for r in built.results)
        return made[0] if len(made) == 1 else made or None

    build.__name__ = build.__qualname__ = op.name.removeprefix("pto.")
    build.__signature__ = signature  # pyright: ignore[reportFunctionMemberAccess]
    build.__doc__ = f"{name}{signature}: builds `{op.name}` (a5's register level).\n\n{inspect.cleandoc(op.__doc__ or '')}"
    build.__module__ = "pto_frontend"
    return build


REGISTER_FUNCTIONS: dict[str, Callable[..., object]] = {
    op.name.removeprefix("pto."): register_function(op, results) for op, results in RESULT_TYPES.items()
}
"""Every register-level builder function, by its op's name without `pto.`."""

__all__ = ["REGISTER_FUNCTIONS", "RESULT_TYPES", "Results", "register_function"]
