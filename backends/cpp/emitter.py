"""
pto-isa C++ for DPS kernels: the built-in API of pto-isa's docs/isa ("C++ Built-in APIs",
"Examples"), laid out as PTOAS writes it.

    #include <pto/pto-inst.hpp>

    using namespace pto;

    using Vec_i32_1x8 = Tile<TileType::Vec, int32_t, 1, 8, BLayout::RowMajor, 1, 8, SLayout::NoneBox, 512, PadValue::Null>;
    using Vec_f16_8x64 = Tile<TileType::Vec, half, 8, 64, BLayout::RowMajor, 8, 64, SLayout::NoneBox, 512, PadValue::Null>;

    __global__ AICORE void embedding_rows(__gm__ half* table, __gm__ int32_t* ids, __gm__ half* out)
    {
        GlobalTensor<half, Shape<1, 1, 1, 1024, 64>, Stride<65536, 65536, 65536, 64, 1>> tab(table);
        GlobalTensor<int32_t, Shape<1, 1, 1, 1, 8>, Stride<8, 8, 8, 8, 1>> ip(ids);
        ...
        Vec_i32_1x8 idx;
        TASSIGN(idx, 0x0);
        TLOAD(idx, ip);
        Vec_f16_8x64 rows;
        TASSIGN(rows, 0x20);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        MGATHER<Coalesce::Row, GatherOOB::Clamp>(rows, tab, idx);
        ...

What each op becomes:
- `func.func`: `__global__ AICORE void NAME(...)`, `__gm__ T*` per `!pto.ptr<T>` argument, T per
  scalar one; it returns nothing;
- `pto.alloc_tile`: a variable of its type's alias (one `using` per distinct tile type), the
  dynamic valid dims as constructor arguments, `TASSIGN(tile, ADDRESS)` when it has an address
  (without one, pto-isa's "automatic mode" places it); `pto.tassign`: a new tile of the same
  type (dynamic valid dims from the source's GetValidRow/GetValidCol) and its `TASSIGN`;
- `pto.make_tensor_view` + `pto.partition_view`: a `GlobalTensor` at pointer + offset, its shape
  and strides right-aligned to pto-isa's 5-D form (padded dims get tight strides);
- `pto.tload` / `pto.tstore`: `TLOAD(tile, view)` / `TSTORE(view, tile)`; the instructions: their
  API call with every template argument spelled (cpu and NPU defaults differ);
- `pto.set_flag` / `wait_flag` (`_dyn`) / `barrier` / `sync.set` / `sync.wait`: pto-isa's calls. A
  kernel without sync ops of its own gets them from pto-insert-sync (passes/insert_sync.py) for
  the target first, so the C++ orders its pipes as the sync checker proves;
- `scf.for`: a `for` loop; `pto.section.vector` / `.cube`: `#if defined(__DAV_VEC__)` / `__DAV_CUBE__`;
- `arith.constant`: its literal where it is used (a compare threshold, which pto-isa takes by
  reference, gets a variable).
Anything else (SSA instructions, an instruction without the tmp its C++ call takes, a view of
dynamic size, ...) is a PtoError located at the op.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, FloatAttr, IndexType, IntegerAttr, ModuleOp
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Operation, SSAValue

import targets
from passes.insert_sync import insert_sync
from pto_dialect.attributes import GmLayout, KernelKind, KernelKindAttr
from pto_dialect.diagnostics import PtoError
from pto_dialect.dtypes import ELEMENT_TYPES, element_info
from pto_dialect.instruction import Pipe, camel
from pto_dialect.instructions import REGISTRY, instruction_of
from pto_dialect.instructions.transfer import TLoadOp, TStoreOp, column_taken_as_dn
from pto_dialect.mlir_arith import IndexCastUIOp
from pto_dialect.names import unique
from pto_dialect.walk import walk
from pto_dialect.ops import AllocTileOp, CmoCacheInvalidOp, DeclareLocalArrayOp, FenceBarrierAllOp, ImportReservedBufferOp, LoadScalarOp, LocalArrayGetOp, LocalArraySetOp, MakeTensorViewOp, PartitionViewOp, ReserveBufferOp, SectionCubeOp, SectionVectorOp, SetValidShapeOp, StoreScalarOp, SubViewOp, TAssignOp, TGetValOp, TReshapeOp, TSetValOp
from pto_dialect.ops.common import PtoInstructionOp
from pto_dialect.ops.memory import constant_index
from pto_dialect.ops.subview import stored_type
from pto_dialect.ops.sync import SYNC_OPS, BarrierOp, CrossCoreBase, DynFlagOp, StaticFlagOp, SyncSetOp
from pto_dialect.types import COMPACTS, LocalArrayType, GM_RANK, PADS, PartitionTensorViewType, PtrType, TileBufType, TileTypeBase, gm_shape5, gm_strides5

HEADER = "#include <pto/pto-inst.hpp>\n\nusing namespace pto;\n"

SECTION_MACROS: dict[type[Operation], str] = {
    SectionVectorOp: "__DAV_VEC__",
    SectionCubeOp: "__DAV_CUBE__",
}
"""The macro the compiler defines while building the code of each core kind (as PTOAS writes it)."""


_CPP_KEYWORDS = """
    alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
    char32_t class compl concept const consteval constexpr constinit const_cast continue co_await
    co_return co_yield decltype default delete do double dynamic_cast else enum explicit export
    extern false float for friend goto if inline int long mutable namespace new noexcept not not_eq
    nullptr operator or or_eq private protected public register reinterpret_cast requires return
    short signed sizeof static static_assert static_cast struct switch template this thread_local
    throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t while
    xor xor_eq main
"""
_PTO_NAMES = """
    pto Tile TileType BLayout SLayout PadValue CompactMode Shape Stride GlobalTensor Layout
    Coalesce GatherOOB GatherExec MaskPattern GatherAxis CmpMode TASSIGN set_flag wait_flag
    pipe_barrier PIPE_ALL EVENT_ID0 EVENT_ID1 EVENT_ID2 EVENT_ID3 EVENT_ID4 EVENT_ID5 EVENT_ID6 EVENT_ID7
    event_t ffts_cross_core_sync getFFTSMsg wait_flag_dev AICORE int64_t
"""
RESERVED_NAMES = frozenset(
    _CPP_KEYWORDS.split()
    + _PTO_NAMES.split()
    + [i.mnemonic.upper() for i in REGISTRY]
    + [pipe.value for pipe in Pipe]
    + [info.cpp for info in ELEMENT_TYPES.values() if info.cpp]
)
"""Identifiers a kernel's own names must not take (C++ keywords, the names the emitted code uses)."""


def emit_cpp(module: ModuleOp, target: str | targets.TargetInfo | None = None) -> str:
    """The pto-isa C++ of every kernel in the module, one without sync ops of its own with the
    flags and barriers pto-insert-sync gives it for `target` (default: the module's); PtoError
    at the first op it cannot write. The module is left as it is."""
    _require_cpp_types(module)
    return _Emitter().module(synchronised(module, target))


def synchronised(module: ModuleOp, target: str | targets.TargetInfo | None = None) -> ModuleOp:
    """The module emit_cpp writes: a copy, pto-insert-sync run on it for `target`."""
    copy = module.clone()
    insert_sync(copy, targets.resolve(target, module))
    return copy


def _require_cpp_types(module: ModuleOp) -> None:
    """Every element type the kernels use has a pto-isa C++ name (f8E4M3FNUZ and kin have none)."""
    for op in walk(module):
        for value in (*op.operands, *op.results):
            kind = value.type
            element = getattr(kind, "element_type", kind)
            info = element_info(element) if isinstance(element, Attribute) else None
            if info is not None and not info.cpp:
                raise PtoError.at_op(op, f"cannot be emitted as C++: pto-isa has no C++ type for {info.mlir}")


def tile_template(tile: TileBufType) -> str:
    """`Tile<TileType::Vec, half, 8, 64, BLayout::RowMajor, 8, 64, SLayout::NoneBox, 512, PadValue::Null>`."""
    p = tile.params
    valid = ["-1" if d == DYNAMIC_INDEX else str(d) for d in tile.valid_shape]
    params = [
        f"TileType::{camel(p.loc)}",
        tile.element.cpp,
        str(p.rows),
        str(p.cols),
        f"BLayout::{camel(p.blayout)}",
        *valid,
        f"SLayout::{camel(p.slayout)}",
        str(p.fractal),
        f"PadValue::{camel(PADS[p.pad])}",
    ]
    if p.compact:
        params.append(f"CompactMode::{camel(COMPACTS[p.compact])}")
    return f"Tile<{', '.join(params)}>"


def tile_alias_base(tile: TileBufType) -> str:
    """`Vec_f16_8x64`, then whatever differs from the defaults: `_v8xD` (valid; D = dynamic),
    `_ColMajor`, `_SRowMajor` (boxed), `_F1024`, `_PadZero`, `_RowPlusOne`."""
    p = tile.params
    parts = [camel(p.loc), re.sub(r"\W", "", tile.element.mlir), f"{p.rows}x{p.cols}"]
    if tile.valid_shape != tile.shape:
        parts.append("v" + "x".join("D" if d == DYNAMIC_INDEX else str(d) for d in tile.valid_shape))
    if not tile.is_row_major:
        parts.append(camel(p.blayout))
    if p.slayout != "none_box":
        parts.append("S" + camel(p.slayout))
    if p.fractal != 512:
        parts.append(f"F{p.fractal}")
    if p.pad:
        parts.append("Pad" + camel(PADS[p.pad]))
    if p.compact:
        parts.append(camel(COMPACTS[p.compact]))
    return "_".join(parts)


class CppNames:
    """A scope of C++ identifiers: sanitized hints, made unique with `_1`, `_2`, ...; a
    kernel's scope also avoids every name of the enclosing (global) one."""

    def __init__(self, enclosing: CppNames | None = None):
        self.taken: set[str] = set(enclosing.taken if enclosing else RESERVED_NAMES)

    def fresh(self, hint: str | None) -> str:
        base = re.sub(r"\W", "_", hint or "v")
        if base[0].isdigit() or base.startswith("_"):  # `_X` and `__x` are the implementation's
            base = "v" + base
        return unique(base, self.taken)


@dataclass(frozen=True)
class _Tensor:
    """A `make_tensor_view`: where it starts and its constant element strides."""

    pointer: str
    strides: tuple[int, ...]
    layout: GmLayout


class _Emitter:
    def __init__(self):
        self.globals = CppNames()
        """Kernels and tile aliases."""
        self.names = self.globals
        """The current kernel's scope."""
        self.aliases: dict[TileBufType, str] = {}
        self.values: dict[SSAValue, str] = {}
        """The C++ expression of each value: a variable, or a constant's literal."""
        self.tensors: dict[SSAValue, _Tensor] = {}
        self.lines: list[str] = []
        self.depth = 1

    # -- output -----------------------------------------------------------------

    def module(self, module: ModuleOp) -> str:
        kernels = []
        for op in module.ops:
            if not isinstance(op, FuncOp):
                raise PtoError.at_op(op, "cannot be emitted as C++: a module holds kernels (func.func)")
            kernels.append(self.kernel(op))
        aliases = "".join(f"using {name} = {tile_template(tile)};\n" for tile, name in self.aliases.items())
        return "\n".join([HEADER, *([aliases] if aliases else []), *kernels])

    def line(self, text: str) -> None:
        self.lines.append("    " * self.depth + text)

    def kernel(self, function: FuncOp) -> str:
        if function.is_declaration:
            raise PtoError.at_op(function, "cannot be emitted as C++: a kernel needs a body")
        if function.function_type.outputs.data:
            raise PtoError.at_op(function, "cannot be emitted as C++: a kernel returns nothing")
        name = self.globals.fresh(function.sym_name.data)
        self.names, self.lines, self.depth = CppNames(self.globals), [], 1
        params = ", ".join(self.parameter(function, arg.index) for arg in function.args)
        self.block(function.body.block)
        body = "".join(line + "\n" for line in self.lines)
        return f"__global__ AICORE void {name}({params})\n{{\n{body}}}\n"

    def parameter(self, function: FuncOp, index: int) -> str:
        arg = function.args[index]
        if isinstance(arg.type, PtrType):
            if arg.type.space.data != "gm":
                raise PtoError.at_op(function, f"cannot be emitted as C++: argument {index} is not a GM pointer")
            return f"__gm__ {arg.type.element.cpp}* {self.bind(arg)}"
        if (cpp := _scalar_cpp(arg.type)) is None:
            raise PtoError.at_op(
                function,
                f"cannot be emitted as C++: argument {index} has type {arg.type}; "
                "a kernel takes !pto.ptr and scalar arguments",
            )
        return f"{cpp} {self.bind(arg)}"

    def block(self, block: Block) -> None:
        for op in block.ops:
            handler = _HANDLERS.get(type(op))
            if handler is None:
                raise PtoError.at_op(op, "has no pto-isa C++ form")
            handler(self, op)

    # -- values -------------------------------------------------------------------

    def bind(self, value: SSAValue) -> str:
        """A new variable for the value, named after it."""
        name = self.values[value] = self.names.fresh(value.name_hint)
        return name

    def alias(self, tile_type: Attribute) -> str:
        tile = tile_type
        assert isinstance(tile, TileBufType)
        if (name := self.aliases.get(tile)) is None:
            name = self.aliases[tile] = self.names.fresh(tile_alias_base(tile))  # not a local of this kernel
            self.globals.taken.add(name)
        return name

    def address(self, addr: SSAValue) -> str:
        value = constant_index(addr)
        return f"0x{value:X}" if value is not None else self.values[addr]

    def expression(self, value: SSAValue) -> str:
        return self.values[value]

    def issue(self, op: Operation, statement: str) -> None:
        """The op's statement (its pipe's order comes from the kernel's sync ops, written as they are)."""
        self.line(statement)

    def synchronised(self, statement: str) -> None:
        self.line(statement)

    def call(
        self, name: str, args: Sequence[SSAValue], template: Sequence[str] = (), extra: Sequence[str] = ()
    ) -> str:
        """`NAME<TEMPLATE>(ARGS, EXTRA);`"""
        arguments = ", ".join([*(self.values[v] for v in args), *extra])
        return f"{name}<{', '.join(template)}>({arguments});" if template else f"{name}({arguments});"

    # -- scaffolding ------------------------------------------------------------------

    def constant(self, op: arith.ConstantOp) -> None:
        value = op.value
        if isinstance(value, IntegerAttr):
            literal = str(value.value.data)
        elif isinstance(value, FloatAttr) and math.isfinite(value.value.data):
            literal = f"{value.value.data!r}f"
        else:
            raise PtoError.at_op(op, f"cannot be emitted as C++: constant {value}")
        if not any(_is_compare_threshold(use.operation, op.result) for use in op.result.uses):
            self.values[op.result] = literal
            return
        self.define_scalar(op.result, literal)  # a compare threshold: a scalar of an element type

    def make_tensor_view(self, op: MakeTensorViewOp) -> None:
        strides = [constant_index(s) for s in op.strides]
        if None in strides:
            raise PtoError.at_op(op, "cannot be emitted as C++: its strides must be constants")
        self.tensors[op.result] = _Tensor(self.values[op.ptr], tuple(strides), op.gm_layout)  # pyright: ignore[reportArgumentType]

    def integer_arith(self, op: Operation) -> None:
        """Index and integer math on scalars (offsets computed from loaded ids, clamps)."""
        for role, value in (("result", op.results[0]), ("operand", op.operands[0])):
            if _scalar_cpp(value.type) is None:
                raise PtoError.at_op(op, f"cannot be emitted as C++: a {role} of type {value.type}")
        cpp, source = _scalar_cpp(op.results[0].type), _scalar_cpp(op.operands[0].type)
        a, *rest = (self.values[v] for v in op.operands)
        b = rest[0] if rest else ""
        expression = {
            arith.IndexCastOp: f"static_cast<{cpp}>({a})",
            IndexCastUIOp: f"static_cast<{cpp}>(static_cast<u{source}>({a}))",  # read as unsigned
            arith.AddiOp: f"{a} + {b}",
            arith.SubiOp: f"{a} - {b}",
            arith.MuliOp: f"{a} * {b}",
            arith.DivSIOp: f"{a} / {b}",
            arith.RemSIOp: f"{a} % {b}",
            arith.MaxSIOp: f"{a} > {b} ? {a} : {b}",
            arith.MinSIOp: f"{a} < {b} ? {a} : {b}",
        }[type(op)]
        # A tensor view's shape is not written (pto-isa's GlobalTensor takes its partitions' static
        # shapes), so a value only views use is unused in C++.
        only_shapes = all(isinstance(u.operation, MakeTensorViewOp) for u in op.results[0].uses)
        unused = "[[maybe_unused]] " if only_shapes else ""
        self.line(f"{unused}{cpp} {self.bind(op.results[0])} = {expression};")

    def subview(self, op: SubViewOp) -> None:
        """pto-isa's TSUBVIEW: a tile variable over the source's storage, of the type that keeps the
        source's strides (stored_type)."""
        name = self.bind(op.result)
        valid = [self.values[v] for v in (op.valid_row, op.valid_col) if v is not None]
        self.declare_tile(self.alias(stored_type(op.result)), name, valid)
        row, col = (self.values[o] for o in op.offsets)
        self.line(f"TSUBVIEW({name}, {self.values[op.source]}, {row}, {col});")

    def treshape(self, op: TReshapeOp) -> None:
        """PTOAS's `TRESHAPE(dst, src)`: a tile variable of the result's type over the source's storage."""
        name = self.bind(op.result)
        self.declare_tile(self.alias(op.result.type), name, [])
        self.line(f"TRESHAPE({name}, {self.values[op.source]});")

    def set_validshape(self, op: SetValidShapeOp) -> None:
        self.line(f"{self.values[op.source]}.SetValidShape({self.values[op.valid_row]}, {self.values[op.valid_col]});")

    def define_scalar(self, value: SSAValue, expression: str) -> None:
        """`T name = expression;`, the scalar `value` (of a type the verifier gave a C++ type)."""
        cpp = _scalar_cpp(value.type)
        assert cpp is not None, "a verified scalar type"
        self.line(f"{cpp} {self.bind(value)} = {expression};")

    def load_scalar(self, op: LoadScalarOp) -> None:
        self.define_scalar(op.value, f"{self.values[op.ptr]}[{self.values[op.offset]}]")

    def tgetval(self, op: TGetValOp) -> None:
        """PTOAS's `src.GetValue(offset)`, on the scalar unit."""
        self.define_scalar(op.value, f"{self.values[op.tile]}.GetValue({self.values[op.offset]})")

    def tsetval(self, op: TSetValOp) -> None:
        """PTOAS's `dst.SetValue(offset, value)`, on the scalar unit."""
        self.line(f"{self.values[op.tile]}.SetValue({self.values[op.offset]}, {self.values[op.value]});")

    def store_scalar(self, op: StoreScalarOp) -> None:
        self.line(f"{self.values[op.ptr]}[{self.values[op.offset]}] = {self.values[op.value]};")

    def declare_local_array(self, op: DeclareLocalArrayOp) -> None:
        array = op.array.type
        assert isinstance(array, LocalArrayType)
        self.line(f"{array.element.cpp} {self.bind(op.array)}{''.join(f'[{d}]' for d in array.shape)};")

    def element(self, op: LocalArrayGetOp | LocalArraySetOp) -> str:
        return self.values[op.array] + "".join(f"[{self.values[i]}]" for i in op.indices)

    def local_array_get(self, op: LocalArrayGetOp) -> None:
        self.define_scalar(op.value, self.element(op))

    def local_array_set(self, op: LocalArraySetOp) -> None:
        self.line(f"{self.element(op)} = {self.values[op.value]};")

    def cache_invalid(self, op: CmoCacheInvalidOp) -> None:
        """PTOAS's lowering: dcci of the whole data cache, or of the line holding the address."""
        if op.addr is None:
            self.line("dcci((__gm__ void*)0, cache_line_t::ENTIRE_DATA_CACHE);")
            return
        if isinstance(op.addr.type, PtrType):
            address = self.values[op.addr]
        elif op.addr in self.tensors:
            address = self.tensors[op.addr].pointer
        else:
            address = f"{self.values[op.addr]}.data()"
        self.line(f"dcci({address}, cache_line_t::SINGLE_CACHE_LINE);")

    def fence(self, op: FenceBarrierAllOp) -> None:
        """PTOAS's lowering of a gm / all fence: a vector kernel drains every pipe, another
        kind MTE2, MTE3 and FIX, then `dsb(DSB_DDR)`."""
        if not op.orders_gm:
            raise PtoError.at_op(op, f"cannot be emitted as C++: no public lowering of {op.scope}")
        pipes = ("PIPE_ALL",) if _in_vector_kernel(op) else ("PIPE_MTE2", "PIPE_MTE3", "PIPE_FIX")
        for pipe in pipes:
            self.line(f"pipe_barrier({pipe});")
        self.line("dsb(DSB_DDR);")

    def reserved_buffer(self, op: ReserveBufferOp | ImportReservedBufferOp) -> None:
        reserve = op if isinstance(op, ReserveBufferOp) else op.reserved()
        base = reserve.planned_base()
        if base is None:
            raise PtoError.at_op(
                op, f"cannot be emitted as C++: reserve_buffer \"{reserve.buffer_name}\" has auto = true, an address "
                "PTOAS's memory planning chooses: give auto = false, base = N"
            )
        unused = "" if op.addr.uses else "[[maybe_unused]] "  # the pipes' push/pop use it; a kernel may not
        self.line(f"{unused}int32_t {self.bind(op.addr)} = {base};")

    def partition_view(self, op: PartitionViewOp) -> None:
        tensor = self.tensors[op.source]  # kernels take no tensor_view arguments
        view = op.result.type
        assert isinstance(view, PartitionTensorViewType)
        if DYNAMIC_INDEX in view.shape or len(view.shape) > GM_RANK:
            raise PtoError.at_op(
                op, f"cannot be emitted as C++: a GM view needs a static shape of rank <= {GM_RANK}, got {view}"
            )
        shape = gm_shape5(view.shape)
        strides = gm_strides5(view.shape, tensor.strides)
        gm_layout = GmLayout.DN if _column_into_col_major_tile(op) else tensor.layout
        layout = "" if gm_layout == GmLayout.ND else f", Layout::{gm_layout.value.upper()}"
        offset = self.offset(op.offsets, tensor.strides)
        start = tensor.pointer if offset == "0" else f"{tensor.pointer} + {offset}"
        self.line(
            f"GlobalTensor<{view.element.cpp}, Shape<{_list(shape)}>, Stride<{_list(strides)}>{layout}> "
            f"{self.bind(op.result)}({start});"
        )

    def offset(self, offsets: Sequence[SSAValue], strides: Sequence[int]) -> str:
        """sum(offset_i * stride_i), constants folded: `b * 64 + 8`, `(b + 8)` in a sum."""
        constant, terms = 0, []
        for offset, stride in zip(offsets, strides, strict=True):
            if (value := constant_index(offset)) is not None:
                constant += value * stride
            elif stride:
                terms.append(self.values[offset] if stride == 1 else f"{self.values[offset]} * {stride}")
        if constant or not terms:
            terms.append(str(constant))
        return terms[0] if len(terms) == 1 else f"({' + '.join(terms)})"

    def alloc_tile(self, op: AllocTileOp) -> None:
        alias = self.alias(op.tile)
        name = self.bind(op.result)
        self.declare_tile(alias, name, [self.values[v] for v in (op.valid_row, op.valid_col) if v is not None])
        if op.addr is not None:
            self.line(f"TASSIGN({name}, {self.address(op.addr)});")

    def tassign(self, op: TAssignOp) -> None:
        """A new tile variable at the new address (the IR's source tile keeps its own)."""
        source = self.values[op.tile]
        alias = self.alias(op.result.type)
        name = self.bind(op.result)
        tile = op.result.type
        assert isinstance(tile, TileBufType)
        valid = [f"{source}.{get}()" for v, get in zip(tile.valid_shape, ("GetValidRow", "GetValidCol")) if v == DYNAMIC_INDEX]
        self.declare_tile(alias, name, valid)
        self.line(f"TASSIGN({name}, {self.address(op.addr)});")

    def declare_tile(self, alias: str, name: str, valid: list[str]) -> None:
        """A tile variable; its dynamic valid dims (if any) as constructor arguments."""
        self.line(f"{alias} {name}({', '.join(valid)});" if valid else f"{alias} {name};")

    def section(self, op: SectionVectorOp | SectionCubeOp) -> None:
        macro = SECTION_MACROS[type(op)]
        self.line(f"#if defined({macro})")
        self.block(op.body.block)
        self.line(f"#endif  // {macro}")

    def for_loop(self, op: scf.ForOp) -> None:
        if op.iter_args:
            raise PtoError.at_op(op, "cannot be emitted as C++: loop-carried values are not supported")
        iv = op.body.block.args[0]
        cpp = _scalar_cpp(iv.type)
        i, lb, ub, step = self.bind(iv), self.values[op.lb], self.values[op.ub], self.values[op.step]
        self.line(f"for ({cpp} {i} = {lb}; {i} < {ub}; {i} += {step}) {{")
        self.depth += 1
        self.block(op.body.block)
        self.depth -= 1
        self.line("}")

    def flag(self, op: StaticFlagOp | DynFlagOp) -> None:
        """`set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);`; a dynamic id is an `event_t`."""
        call = op.name.removeprefix("pto.").removesuffix("_dyn")
        src, dst = (p.value for p in op.pair)
        event = op.event_id.data.value if isinstance(op, StaticFlagOp) else f"(event_t){self.values[op.event_id]}"
        self.line(f"{call}({src}, {dst}, {event});")

    def pipe_barrier(self, op: BarrierOp) -> None:
        self.line(f"pipe_barrier({op.pipe.data.value});")

    def cross_core(self, op: CrossCoreBase) -> None:
        """pto-isa's SyncAll spelling: `ffts_cross_core_sync(PIPE, getFFTSMsg(MODE, ID))` / `wait_flag_dev(ID)`."""
        event = self.values[op.event_id_dyn] if op.event_id_dyn is not None else str(op.event_id.value.data)  # pyright: ignore[reportOptionalMemberAccess]
        if isinstance(op, SyncSetOp):
            self.line(f"ffts_cross_core_sync({op.pipe.data.value}, getFFTSMsg({op.mode}, {event}));")
        else:
            self.line(f"wait_flag_dev({event});")

    def terminator(self, op: ReturnOp | scf.YieldOp) -> None:
        if op.operands:
            raise PtoError.at_op(op, "cannot be emitted as C++: it returns values")

    # -- the Emission protocol (pto_dialect/instruction.py) that instructions write with --

    def scalar(self, value_type: Attribute) -> str:
        cpp = _scalar_cpp(value_type)
        assert cpp is not None, "a scalar operand has an element type (verified)"
        return cpp

    def require(self, op: Operation, role: str) -> SSAValue:
        """The operand playing `role`; a located error when the op omits it (a tmp)."""
        if (value := op.role(role)) is None:  # pyright: ignore[reportAttributeAccessIssue]
            raise PtoError.at_op(
                op,
                f"cannot be emitted as C++: pto-isa's {op.name.removeprefix('pto.').upper()} takes a {role} tile; "
                "add one to ins(...) (pto-materialize-implicit-tmp adds the one the target needs)",
            )
        return value

    def instruction(self, op: PtoInstructionOp) -> None:
        if not op.is_dps:
            raise PtoError.at_op(
                op,
                "cannot be emitted as C++: it is in SSA form; C++ emission takes DPS instructions on tile buffers: "
                "run -p pto-ssa-to-dps,pto-materialize-implicit-tmp,pto-plan-memory,pto-emit-cpp",
            )
        instruction = instruction_of(op)
        assert instruction is not None
        instruction.emit(self, op)


_HANDLERS: dict[type[Operation], Callable[[_Emitter, Operation], None]] = {
    arith.ConstantOp: _Emitter.constant,
    MakeTensorViewOp: _Emitter.make_tensor_view,
    LoadScalarOp: _Emitter.load_scalar,
    TGetValOp: _Emitter.tgetval,
    TSetValOp: _Emitter.tsetval,
    SetValidShapeOp: _Emitter.set_validshape,
    SubViewOp: _Emitter.subview,
    TReshapeOp: _Emitter.treshape,
    **dict.fromkeys(
        (arith.IndexCastOp, IndexCastUIOp, arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.DivSIOp, arith.RemSIOp, arith.MaxSIOp, arith.MinSIOp),
        _Emitter.integer_arith,
    ),
    StoreScalarOp: _Emitter.store_scalar,
    DeclareLocalArrayOp: _Emitter.declare_local_array,
    LocalArrayGetOp: _Emitter.local_array_get,
    LocalArraySetOp: _Emitter.local_array_set,
    CmoCacheInvalidOp: _Emitter.cache_invalid,
    FenceBarrierAllOp: _Emitter.fence,
    ReserveBufferOp: _Emitter.reserved_buffer,
    ImportReservedBufferOp: _Emitter.reserved_buffer,
    PartitionViewOp: _Emitter.partition_view,
    AllocTileOp: _Emitter.alloc_tile,
    TAssignOp: _Emitter.tassign,
    **{i.op: _Emitter.instruction for i in REGISTRY},
    SectionVectorOp: _Emitter.section,
    SectionCubeOp: _Emitter.section,
    scf.ForOp: _Emitter.for_loop,
    **{op: _Emitter.flag for op in SYNC_OPS if issubclass(op, StaticFlagOp | DynFlagOp)},
    BarrierOp: _Emitter.pipe_barrier,
    **{op: _Emitter.cross_core for op in SYNC_OPS if issubclass(op, CrossCoreBase)},
    scf.YieldOp: _Emitter.terminator,
    ReturnOp: _Emitter.terminator,
}  # pyright: ignore[reportAssignmentType]
"""How each op is written; an op not listed has no C++ form."""


def _is_compare_threshold(user: Operation, value: SSAValue) -> bool:
    return isinstance(user, PtoInstructionOp) and user.role("threshold") is value


def _in_vector_kernel(op: Operation) -> bool:
    """Inside a pto.section.vector, or a function whose kernel_kind is vector (PTOAS's isInVectorKernel)."""
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, SectionVectorOp):
            return True
        kind = parent.attributes.get("pto.kernel_kind")
        if kind is not None:
            return isinstance(kind, KernelKindAttr) and kind.data == KernelKind.VECTOR
        parent = parent.parent_op()
    return False


def _scalar_cpp(type_: Attribute) -> str | None:
    """The C++ type of a scalar: an element type's pto-isa name, `int64_t` for index."""
    if isinstance(type_, IndexType):
        return "int64_t"
    info = element_info(type_)
    return info.cpp if info is not None else None


def _column_into_col_major_tile(view: PartitionViewOp) -> bool:
    """An ND column window [.., R, 1] moved to or from a col-major ND tile (transfer.py
    `column_taken_as_dn`): pto-isa's TLOAD / TSTORE pick the DN path from the GlobalTensor's
    layout (an ND tensor into a col-major tile fails their static_asserts); the spec's [R, 1]
    index example declares it `Layout::DN`."""
    shape = view.result.type.shape  # pyright: ignore[reportAttributeAccessIssue]
    if shape[-1] != 1:
        return False
    for use in view.result.uses:
        if isinstance(use.operation, TLoadOp | TStoreOp):
            tile = use.operation.dst.type if isinstance(use.operation, TLoadOp) else use.operation.src.type
            if isinstance(tile, TileTypeBase) and column_taken_as_dn(shape, tile.blayout.data, tile.slayout.data):
                return True
    return False


def _list(values: Sequence[int]) -> str:
    return ", ".join(map(str, values))
