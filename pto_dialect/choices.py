"""
Target choices: how a target executes an instruction where targets differ. Each kind of
choice is an enum whose members carry their meaning in words (for the cross-target
report), and an attribute that records it on a lowered op, printed
`#pto_choice<kind value>`. Instructions that behave alike share kinds (a row and a column
arg-reduction, a gather and a scatter), so every kind is declared here, grouped by the
instruction that first needed it; each lowered op names the ones it records.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Operation, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.utils.str_enum import StrEnum

Kind = TypeVar("Kind", bound="Choice")


class _KindAttribute:
    """`PadFill.Attr`: the attribute recording the choices of a kind (for `prop_def`), typed
    `type[EnumAttribute[PadFill]]` for the checker (whose `.data` is a `PadFill`)."""

    def __get__(self, choice: object, kind: type[Kind]) -> type[EnumAttribute[Kind]]:
        return ChoiceAttr.KINDS[kind]


class Choice(StrEnum):
    """A target choice, declared as `NAME = "value", "what the target then does"` in a kind of
    choice: a subclass named by its class keyword `kind` (`class PadFill(Choice, kind="pad_fill")`),
    which makes the attribute recording its choices, `#pto_choice<kind value>`: `PadFill.Attr`."""

    phrase: str
    Attr = _KindAttribute()  # a descriptor: no member of the enum

    def __new__(cls, value: str, phrase: str):
        member = str.__new__(cls, value)
        member._value_ = value
        member.phrase = phrase
        return member

    def __init_subclass__(cls, kind: str, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        ChoiceAttr.KINDS[cls] = _attribute(cls, kind)


class ChoiceAttr:
    """What the attribute recording one kind of choice is (its `Choice` subclass makes it)."""

    KINDS: ClassVar[dict[type[Choice], type[EnumAttribute]]] = {}
    """Every declared kind's attribute, by its enum."""


def _attribute(enum: type[Choice], kind: str) -> type[EnumAttribute]:
    """The attribute recording an enum's choices, `#pto_choice<kind value>`: a class named
    `<Enum>Attr` in the enum's module (reached as `<Enum>.Attr`)."""

    @irdl_attr_definition
    class Attr(ChoiceAttr, EnumAttribute[enum], SpacedOpaqueSyntaxAttribute):
        name = f"pto_choice.{kind}"
        __doc__ = f"`#pto_choice<{kind} {'|'.join(enum)}>`: {enum.__doc__ or ''}"

    Attr.__name__ = Attr.__qualname__ = f"{enum.__name__}Attr"
    Attr.__module__ = enum.__module__
    return Attr


def choice(value: Choice) -> Attribute:
    """The attribute holding a choice."""
    return ChoiceAttr.KINDS[type(value)](value)


def choices_of(op: Operation) -> dict[str, Choice]:
    """Every target choice an op records, by property or attribute name."""
    return {
        name: value.data  # pyright: ignore[reportAttributeAccessIssue]
        for name, value in (*op.properties.items(), *op.attributes.items())
        if isinstance(value, ChoiceAttr)
    }


# ---------------------------------------------------------------------------
# TLOAD


class PadFill(Choice, kind="pad_fill"):
    """What a TLOAD writes beyond the tile's valid region (docs/tload-padding.md)."""

    WHOLE_TILE = "whole_tile", "TLOAD fills the whole tile with the pad value first"
    BLOCK_TAIL = "block_tail", "TLOAD pads each valid row to its 32-byte boundary (pad != null)"
    NOTHING = "nothing", "TLOAD writes nothing beyond the valid region"


class PadValue(Choice, kind="pad_value"):
    """The value a TLOAD pads with."""

    TILE_PAD = "tile_pad", "pad value from the tile's pad (null: 0)"
    ALWAYS_ZERO = "always_zero", "pad value 0 for this element type"


# ---------------------------------------------------------------------------
# MGATHER


class IndexRead(Choice, kind="index_read"):
    """How an index is widened before the bounds check, which compares it as an unsigned
    number: `signed_64` sign-extends an i32 to 64 bits (-1 becomes 2^64 - 1), `unsigned_32`
    reads its 32 bits (-1 becomes 2^32 - 1)."""

    SIGNED_64 = "signed_64", "index sign-extended to 64 bits, then bounds-checked as unsigned"
    UNSIGNED_32 = "unsigned_32", "index read as 32-bit unsigned"
    UNSIGNED_OWN_WIDTH = "unsigned_own_width", "index read as unsigned of its own width"


class Capacity(Choice, kind="capacity"):
    """Which table extent bounds an index (Shape<S0..S4> of the GM view)."""

    S3 = "s3", "index bounded by Shape[3]"
    S0_TO_S3 = "s0_to_s3", "index bounded by Shape[0]*...*Shape[3]"
    ALL_ELEMENTS = "all_elements", "index bounded by all table elements"
    NZ_ROWS = "nz_rows", "index bounded by the NZ table's logical rows"
    NZ_ELEMENTS = "nz_elements", "index bounded by the NZ table's logical elements"


class Stride(Choice, kind="stride"):
    """An element stride of a table row read."""

    T3 = "t3", "the view's Stride[3]"
    T4 = "t4", "the view's Stride[4]"
    VALID_COLS = "valid_cols", "dst valid cols (packed rows)"
    ONE = "one", "1"


# ---------------------------------------------------------------------------
# TGATHER


class OutOfRange(Choice, kind="out_of_range"):
    """An index-form offset past src's storage."""

    ZERO = "zero", "out-of-range offset reads 0"
    FAULT = "fault", "out-of-range offset faults"


class TmpUse(Choice, kind="tmp_use"):
    """What the index form writes into its tmp tile."""

    NONE = "none", "tmp unused"
    B16_BYTE_OFFSETS = "b16_byte_offsets", "tmp receives byte offsets (index * 2) for 2-byte data"


class Packing(Choice, kind="packing"):
    """How the mask form packs what it keeps."""

    DENSE = "dense", "kept elements packed densely"
    PER_ROW = "per_row", "dst row r starts at r * Cols / period (8-byte data)"


class IndexNumbering(Choice, kind="index_numbering"):
    """How the compare form numbers the columns it reports."""

    SRC_COLS = "src_cols", "matches numbered by src column"
    LANE_CHUNKS_64 = "lane_chunks_64", "matches numbered within 64-lane chunks"
    LANE_CHUNKS_128 = "lane_chunks_128", "matches numbered within 128-lane chunks"


class CompareSpan(Choice, kind="compare_span"):
    """Which columns of a src row the compare form compares."""

    VALID_COLS = "valid_cols", "the valid columns are compared"
    WHOLE_CHUNKS = "whole_chunks", "whole lane chunks are compared, up to src's cols (an all-true mask)"


class CompareKind(Choice, kind="compare"):
    """How the compare form compares src with its threshold."""

    NUMERIC = "numeric", "numeric comparison in src's type"
    UNSIGNED_AFTER_ROUND = "unsigned_after_round", "unsigned comparison after rounding"


class ThresholdRead(Choice, kind="threshold_read"):
    """How the compare form reads a threshold tile (one threshold per row)."""

    RAW = "raw", "threshold tile values compared as they are"
    CONVERTED = "converted", "threshold tile integers converted to src's type"
    LOW_16_BITS_SIGNED = "low_16_bits_signed", "threshold tile's low 16 bits read as int16, then converted to src's type"


# ---------------------------------------------------------------------------
# TCOLARGMIN and TCOLARGMAX


class ArgCompare(Choice, kind="arg_compare"):
    """What an arg-reduction compares."""

    NATIVE = "native", "typed comparison"
    FP_BITS = "fp_bits", "bits compared as fp16/fp32, denormals flushed"


class NanPolicy(Choice, kind="nan"):
    """How an arg-reduction's search meets a NaN."""

    FIRST_STICKS = "first_sticks", "a NaN in the first position sticks, later NaNs never win"
    PROPAGATES = "propagates", "every NaN replaces the index"
    FIRST_NAN_WINS = "first_nan_wins", "the first NaN wins (a NaN-propagating reduction)"
    NAN_CHUNK_SKIPPED = "nan_chunk_skipped", "a 256-byte chunk holding a NaN never wins (per-chunk reduction, strict compare across chunks)"


class RowCounter(Choice, kind="row_counter"):
    EXACT = "exact", "exact row index"
    F16 = "f16", "row index counted in fp16 (rounds beyond 2048 rows)"


class SrcRead(Choice, kind="src_read"):
    LAYOUT = "layout", "src read through its layout"
    ROW_MAJOR_STORAGE = "row_major_storage", "a DN src read as row-major storage"


# ---------------------------------------------------------------------------
# TPRINT


class PrintRegion(Choice, kind="print_region"):
    """What a TPRINT of a tile prints."""

    VALID = "valid", "the valid region"
    WHOLE = "whole", "the whole tile, the valid region marked"


# ---------------------------------------------------------------------------
# TSCATTER


class DstFill(Choice, kind="dst_fill"):
    """What a scatter writes into its dst tile besides the scattered elements."""

    WHOLE_TILE_ZERO = "whole_tile_zero", "the whole dst tile is zeroed first"
    NONE = "none", "only the scattered elements (and the mask form's zeros between them) are written"


class ScatterWinner(Choice, kind="scatter_winner"):
    """Which write survives where scattered indices collide."""

    LAST_IN_ORDER = "last_in_order", "the last write in the target's order wins"
    LOWEST_LANE = "lowest_lane", "the lowest lane of a vscatter wins, later vscatters overwrite"
    UNORDERED = "unordered", "colliding writes of one call are a run-time error: the winner is up to the warp scheduler"


class MaskSource(Choice, kind="mask_source"):
    """Which src elements a row-axis mask scatter places in each dst row."""

    ROW = "row", "dst row i takes src row i"
    STORAGE_STREAM = "storage_stream", "dst rows take src's storage in order, padding columns included"


# ---------------------------------------------------------------------------
# MSCATTER


class WriteOrder(Choice, kind="write_order"):
    """The order in which a scatter's writes (and atomic updates) reach the table."""

    ROW_MAJOR = "row_major", "writes in row-major order of src"
    BLOCK_COLUMNS = "block_columns", "writes by column blocks of C0 elements, row-major inside a block"


class ExtremeRead(Choice, kind="extreme_read"):
    """What an atomic max / min compares src with."""

    DESTINATION = "destination", "max/min against the destination element"
    ROW_INDEX_ELEMENT = "row_index_element", "row-mode max/min against the table element at the row index (the simulator's base[idx])"


# ---------------------------------------------------------------------------
# Every instruction family (pto_dialect/family.py)


class Numerics(Choice, kind="numerics"):
    """Whether public code fixes the values a target computes: the headers (or the simulator)
    compute them with arithmetic we reproduce bit for bit, or they come from a hardware
    intrinsic (exp, log, sqrt, ...) whose numerics no public code fixes, so the interpreter
    gives the reference formula's values and `--targets all` reports a difference there as
    approximate."""

    EXACT = "exact", "values as the target's code computes them, bit for bit"
    APPROXIMATE = "approximate", "a hardware intrinsic no public code fixes: the reference formula's values"


# ---------------------------------------------------------------------------
# The reductions (pto_dialect/instructions/reduction.py)


class ReduceOrder(Choice, kind="reduce_order"):
    """In which order a target combines a row's (or a column's) elements: what decides a
    float sum's or product's rounding."""

    SEQUENTIAL = "sequential", "one accumulator, element after element (the simulator's C++ loop)"
    REPEAT_STAGES = "repeat_stages", (
        "256-byte repeats added lane-wise into tmp in the header's order, then one vcadd per row "
        "(a2a3 TRowReduceOps.hpp); 32-byte blocks multiplied lane-wise, then a scalar product (TRowProd.hpp)"
    )
    CHUNK_THEN_SEQUENTIAL = "chunk_then_sequential", (
        "each 256-byte chunk reduced by vcadd/vcmax/vcmin, the chunk results accumulated in order (a5 TRowReduce.hpp)"
    )
    ROW_ZERO_THEN_SEQUENTIAL = "row_zero_then_sequential", (
        "a column reduction: row 0 copied by whole 32-byte blocks, then each later row combined lane-wise in order "
        "(a2a3 TColReduceOps.hpp, TColSum.hpp)"
    )
    ROW_ZERO_THEN_PAIRS = "row_zero_then_pairs", (
        "a column reduction: row 0, then rows 1+2, 3+4, ... combined pairwise and into it in order, an odd last row "
        "last (a5 TColReduceOps.hpp TColReduceInstr_PostUpdate)"
    )


class ExtremeNan(Choice, kind="extreme_nan"):
    """What a max/min reduction or operation gives where an operand is NaN."""

    FIRST_STICKS = "first_sticks", "a NaN held by the accumulator stays, a later NaN is never taken ((a<b)?b:a)"
    PROPAGATES = "propagates", "any NaN operand gives NaN (assumed for vmax/vcmax: no public code fixes it)"


class VectorRead(Choice, kind="vector_read"):
    """Where a broadcast instruction reads row r of its per-row (32-byte row-major) operand."""

    LAYOUT = "layout", "row r of the tile through its layout (its row stride)"
    PACKED_BLOCKS = "packed_blocks", "the 32-byte block at r * 32 bytes of its storage (the header's stride)"


class BroadcastDivisor(Choice, kind="broadcast_divisor"):
    """What a broadcast division gives where the divisor is 0."""

    FAULT = "fault", "a located run-time error naming the element (the simulator asserts a non-zero divisor)"
    IEEE = "ieee", "IEEE infinities and NaN for floats (vdiv); integers give 0 (assumed: no public code fixes it)"


class AbsSign(Choice, kind="abs_sign"):
    """What TABS does to the sign of -0.0 and NaN."""

    COMPARE = "compare", "x < 0 ? -x : x: -0.0 and NaN keep their sign, integers wrap"
    CLEAR = "clear", "the sign bit cleared (IEEE abs): -0.0 becomes +0.0, integers wrap"


class ZeroReciprocal(Choice, kind="zero_reciprocal"):
    """What TRECIP does with a zero element."""

    FAULT = "fault", "a zero element stops the run (the simulator asserts)"
    INFINITY = "infinity", "a zero element gives +-inf (IEEE division)"


class ExpArithmetic(Choice, kind="exp_arithmetic"):
    """How TEXP computes a float32 exp (half and bfloat16 as cpu's formula on every target)."""

    DOUBLE = "double", "exp in double, rounded to float once (the simulator's std::exp)"
    SINGLE = "single", (
        "NumPy's float32 exp, within 3 ulp of the double one and a third of its time "
        "(vexp's rounding is in no public code)"
    )


# ---------------------------------------------------------------------------
# TCVT


class CvtArithmetic(Choice, kind="cvt_arithmetic"):
    """How TCVT converts an element (pto_dialect/instructions/tcvt.py)."""

    SIMULATOR = "simulator", (
        "cpu/TCvt.hpp: saturation clamps the source first (NaN to the upper limit), a float rounds to an "
        "integral double by the mode, then a C++ cast (out of range: x86's cvttsd2si result); float to float "
        "and integer to float round to nearest even whatever the mode"
    )
    VCONV = "vconv", (
        "the vector conversion: the value rounded once by the mode (ODD only f32 to f16; NONE: float to "
        "integer truncates, others to nearest even), out of range saturated (ON) or wrapped (OFF), NaN to 0"
    )
# ---------------------------------------------------------------------------
# The elementwise families (pto_dialect/instructions/elementwise.py)


class Unordered(Choice, kind="unordered"):
    """What an elementwise max or min gives where its comparison is false both ways (a NaN,
    or equal values such as -0 and +0)."""

    FIRST = "first", "the first operand, as C++ std::max / std::min compute it ((a < b) ? b : a)"
    NAN = "nan", "NaN if either is NaN, else NumPy's maximum/minimum: the reference for vmax/vmin, whose NaN handling no public code fixes"


class Division(Choice, kind="division"):
    """How an elementwise division computes its quotients."""

    NATIVE = "native", (
        "the element type's division: IEEE for floats (a zero divisor too: TDIVS's PTO_ASSERT on a zero scalar "
        "is compiled only with _DEBUG); integers truncated toward zero, a zero divisor (or the least 32/64-bit "
        "integer by -1) traps"
    )
    SIMULATOR = "simulator", (
        "as native, but scalar / src (TDIVS's scalar-first form) asserts every src element is nonzero "
        "(cpu/ElementOp.h OP_RDIVS), floats too"
    )
    A2A3_VECTOR = "a2a3_vector", (
        "a2a3 TDivS.hpp: int32 through f32 and int16 through f16 (vconv, vdiv, vconv toward zero); floats by "
        "vdiv, or (src / scalar) in place by vmuls with the scalar's reciprocal (1/scalar in f32, rounded to the "
        "element type)"
    )


class ShiftRange(Choice, kind="shift_range"):
    """Which shift counts an elementwise shift defines (C++ promotes 8/16-bit operands to
    int; a vector shift works in the element's width)."""

    PROMOTED = "promoted", "C++ shifts: a count from 0 to below the promoted type's width (32 bits for 8/16-bit elements), others undefined (a run-time error)"
    ELEMENT = "element", "vector shifts: a count from 0 to below the element's width; other counts' results are in no public code (a run-time error)"


class ByteLanes(Choice, kind="byte_lanes"):
    """How 8-bit elements go through a bitwise instruction."""

    ELEMENT = "element", "element by element: the valid region only"
    PAIRED = "paired", (
        "in 16-bit pairs (a2a3 B82B16Trait): with an odd valid column count the element after each row's last "
        "valid one is computed too, from the inputs there; the scalar forms (TBitwiseSOp.hpp) fill dst with the "
        "scalar, then combine it with src (so that extra element uses dst's old value, and dst over src is refused)"
    )


class ZeroDivisor(Choice, kind="zero_divisor"):
    """What a remainder does with a zero divisor."""

    ASSERTED = "asserted", "a run-time error for every element type (cpu/ElementOp.h asserts `src1 != 0`)"
    IEEE = "ieee", "floats: NaN, as fmod gives; integers: a run-time error (integer division traps)"
    SKIPPED = "skipped", (
        "a zero scalar: dst keeps its contents (cpu/TBinSOps.hpp TFMODS_IMPL / TREMS_IMPL run the loop only for a "
        "nonzero scalar; the PTO_ASSERT in their else branch is compiled only with _DEBUG)"
    )


class BothNan(Choice, kind="both_nan"):
    """Which operand's payload (quieted) a float result carries when both operands are NaN
    (x86 SSE keeps the instruction's first operand's; which that is, the compiler decides)."""

    SRC0 = "src0", "src0's (the simulator's src0 - src1; the NPUs' reference)"
    SRC1 = "src1", "src1's: the simulator's g++ build emits the commutative + and * with src1 first"


# ---------------------------------------------------------------------------
# Compare and select (pto_dialect/instructions/compare.py)


class MaskWrite(Choice, kind="mask_write"):
    """How TCMP / TCMPS write their packed mask (bit j % 8 of byte j / 8 of a row: column j)."""

    WORDS = "words", (
        "cpu/TCmp.h: dst zeroed, then per valid row the words (8 or 32 bits, dst's type) holding "
        "the valid columns' bits, at most dst's valid columns of them"
    )
    BYTE_STREAM = "byte_stream", (
        "cpu/TCmps.hpp: the bits of src's whole rows (0 outside its valid region) packed into "
        "Cols / 8 bytes a row, that byte stream laid into dst's valid region row after row; dst zeroed first"
    )
    REPEATS = "repeats", (
        "npu/a2a3 TCmp.hpp / TCmps.hpp: whole 256-byte repeats compared, so the bits of the "
        "columns after the valid ones up to the repeat's end compare src's storage (0 where that "
        "lies past the tile: unknowable UB); the rest of dst kept; ne: eq written, then every byte "
        "of dst's first valid-row rows inverted (vnot)"
    )
    PREDICATED = "predicated", (
        "npu/a5 TCmp.hpp / TCmps.hpp: the valid columns under a predicate, bits after them 0 up to "
        "the stored register's end (32 bytes for 1-byte data, 16 for 2- and 4-byte data); the rest of dst kept"
    )


class CompareRead(Choice, kind="compare_read"):
    """What TCMP / TCMPS compare."""

    TYPED = "typed", "the element type's comparison (IEEE for floats: NaN unordered, -0 == +0)"
    DOUBLE_TOLERANCE = "double_tolerance", (
        "cpu/TCmps.hpp CmpCall: eq is |a - b| < 1e-9 and ne is (a or b NaN) or |a - b| > 1e-9, "
        "a - b in double (so inf eq inf is false, and ne too); lt/gt/ge/le typed"
    )
    VCMPV = "vcmpv", (
        "npu/a2a3 TCmp.hpp / TCmps.hpp: 32-bit integers always compared for eq (vcmpv_eq, whatever "
        "the mode; ne then inverts it), 16-bit integers compared as the half-precision numbers of "
        "their bits (TCMPS), floats typed"
    )


class MaskWalk(Choice, kind="mask_walk"):
    """Which mask bit TSEL reads for dst[i, j]."""

    BIT_STREAM = "bit_stream", (
        "cpu/TSel.hpp: one bit stream over the valid elements in row order (element k: bit k % 8 "
        "of the mask byte k / 8), the bytes walked along the mask's valid columns, then its next row"
    )
    ROWS = "rows", "bit j % 8 of byte j / 8 of mask row i"
    REPEAT_STEP_16 = "repeat_step_16", (
        "npu/a5 TSel.hpp TSel_b16_8: as rows, but the mask of each 256-byte data repeat r read from "
        "byte 16 r of the row: for 1-byte data column j reads bit j - 128 (j / 256) of the row"
    )


class SelectTmp(Choice, kind="select_tmp"):
    """What TSEL / TSELS write into their tmp tile."""

    UNUSED = "unused", "tmp unused"
    SCALAR = "scalar", "npu/a2a3 TSels.hpp: tmp's first element receives the scalar (set_cmpmask reads it)"
    MASK_ADDRESS = "mask_address", (
        "npu/a2a3 TSel.hpp: tmp's first 8 (4-byte data) or 16 bytes receive the mask row's UB address "
        "(set_cmpmask reads it); not reproduced: the interpreter keeps tmp's contents"
    )


# ---------------------------------------------------------------------------
# The partial family (pto_dialect/instructions/partial.py)


class PartFill(Choice, kind="part_fill"):
    """What TPART* write where src0's and src1's valid regions differ."""

    REGIONS = "regions", (
        "cpu/TPartOp.hpp: over dst's valid region, the operation where both sources are valid, the one "
        "valid source's element where one is, 0 where neither is"
    )
    COPY_THEN_OP = "copy_then_op", (
        "npu/a2a3/TPartOp.hpp: the source whose valid shape is dst's (src0 first) is the larger; a smaller "
        "one short of rows: the operation over its rows, then the larger one's remaining rows copied; short of "
        "columns: the larger one copied, then op(smaller, dst) over the smaller one's region. Copies move 32-byte "
        "blocks (whole rows where dst and the source have as many columns), so dst's padding columns get the "
        "larger source's. Neither source with dst's valid shape: the header's assertion"
    )
    MERGE = "merge", (
        "npu/a5/TPartBinOps.hpp: op(src0, src1) over both valid regions' overlap, the larger source elsewhere "
        "in dst's valid region (an empty source: the other copied over its valid region within dst's); neither "
        "with dst's valid shape, or one beyond it: the header's assertion"
    )



class ArgPick(Choice, kind="arg_pick"):
    """Which source TPARTARGMAX / TPARTARGMIN pick where both are valid."""

    SRC0_IF_BETTER = "src0_if_better", (
        "cpu/TPartArgMax.hpp, TPartArgMin.hpp: src0 where src0 > src1 (< for min), else src1: ties and NaN take src1"
    )
    SRC0_IF_NOT_WORSE = "src0_if_not_worse", (
        "npu/a2a3/TPartArgOp.hpp: src0 where vcmp_ge (vcmp_le for min) holds, else src1: ties take src0, NaN src1"
    )
    SRC0_UNLESS_SRC1_BETTER = "src0_unless_src1_better", (
        "npu/a5/TPartArgMax.hpp, TPartArgMin.hpp: src1 where src1 > src0 (< for min), else src0: ties and NaN take src0"
    )


class ArgLanes(Choice, kind="arg_lanes"):
    """Which lanes of the overlap TPARTARGMAX / TPARTARGMIN compute."""

    ALL = "all", "every element of the overlap"
    HALF_MASK_FOR_WIDE_INDEX = "half_mask_for_wide_index", (
        "npu/a2a3/TPartArgOp.hpp: half values with 32-bit indices run under the mask (0, -1): of each whole "
        "128-value repeat only values 0-63 are picked (the others keep dst's old contents), and of every repeat "
        "only indices 0-63"
    )


# ---------------------------------------------------------------------------
# UB-to-UB data movement (pto_dialect/instructions/movement.py)


class MoveCopy(Choice, kind="move_copy"):
    """How TMOV copies a Vec tile into another."""

    ELEMENTS = "elements", (
        "cpu/TMov.hpp: each valid element through GetElement / SetElement (each tile's own layout), converted to "
        "dst's type as C++ converts it; src's and dst's valid shapes must be equal (an assert)"
    )
    UB_BLOCKS = "ub_blocks", (
        "npu/a2a3/TMov.hpp TMovToVec: copy_ubuf_to_ubuf of the smaller valid rows, whole rows when dst's valid "
        "columns are all its columns, else each row's smaller valid columns rounded up to whole 32-byte blocks; "
        "storage bits kept"
    )
    VECTOR_ROWS = "vector_rows", (
        "npu/a5/TMov.hpp TMovVecToVec: vlds / vsts of the smaller valid rows, each row's smaller valid columns "
        "(a predicate), rows at each tile's RowStride; storage bits kept"
    )


class WindowBounds(Choice, kind="window_bounds"):
    """What the position of TEXTRACT's and TINSERT's window must satisfy at run time: the window
    (the part: TEXTRACT's dst, TINSERT's src) at (indexRow, indexCol) of the whole (TEXTRACT's
    src, TINSERT's dst)."""

    WHOLE_VALID = "whole_valid", (
        "cpu/TExtract.hpp, TInsert.hpp: indexRow + the part's valid rows at most the whole's valid rows, likewise "
        "columns (an assert)"
    )
    ALIGNED_TILE = "aligned_tile", (
        "npu/a2a3/TExtract.hpp, TInsert.hpp: indexRow + the part's valid rows at most the whole's rows, likewise "
        "columns; an ND indexCol a whole number of 32-byte blocks, an NZ one of C0 columns and its indexRow of 16 "
        "rows (PTO_ASSERTs; a 1x1 part: the scalar path, the position inside the whole)"
    )
    TILE = "tile", (
        "npu/a5/TExtract.hpp, TInsert.hpp: indexRow + the part's valid rows at most the whole's rows, likewise "
        "columns (PTO_ASSERTs; a 1x1 part: the position inside the whole)"
    )


class ConcatCopy(Choice, kind="concat_copy"):
    """How TCONCAT places src0's and src1's valid columns side by side in dst."""

    ELEMENTS = "elements", "cpu/TConcat.hpp: element by element through each tile's layout, exactly the valid columns"
    UB_BLOCKS = "ub_blocks", (
        "npu/a2a3/TConcat.hpp: src0's rows by copy_ubuf_to_ubuf, its valid columns rounded up to 32-byte blocks; "
        "src1's rows after them the same way when src0's valid columns end on a block, else element by element"
    )
    VECTOR = "vector", "npu/a5/TConcat.hpp: vsts (src0) and vscatter (src1) of exactly the valid columns"


# ---------------------------------------------------------------------------
# TFILLPAD (pto_dialect/instructions/fillpad.py)


class FillPadWrite(Choice, kind="fill_write"):
    """What TFILLPAD writes of dst."""

    ELEMENTS = "elements", (
        "cpu/TFillPad.hpp: every element of dst's Rows x Cols through each tile's layout, src's (converted) inside "
        "src's valid region, the pad value elsewhere"
    )
    ROW_BLOCKS = "row_blocks", (
        "npu/a2a3/TFillPad.hpp: src's valid rows copied whole (bits), each padded from its valid columns rounded up "
        "to a 32-byte block (the block's tail only where the pads differ; row 0 always), dst's further valid rows "
        "padded whole"
    )
    VECTOR = "vector", (
        "npu/a5/TFillPad.hpp: src's valid region copied (bits), each of its valid rows padded to dst's Cols, dst's "
        "further valid rows padded whole"
    )


class FillPadMode(Choice, kind="fill_mode"):
    """TFILLPAD's form, inferred from the tiles as PTOAS infers it."""

    NORMAL = "normal", "src and dst of one shape, two tiles: copy, then pad"
    IN_PLACE = "in_place", "src and dst one tile (one value or one address): pad only"
    EXPAND = "expand", "dst larger than src: copy into it, then pad"


# ---------------------------------------------------------------------------
# TTRANS (pto_dialect/instructions/ttrans.py)


class TransWrite(Choice, kind="trans_write"):
    """What TTRANS writes of dst."""

    ELEMENTS = "elements", "cpu/TTrans.hpp: each element of src's valid region transposed, through each tile's layout, converted"
    VNCHWCONV = "vnchwconv", (
        "npu/a2a3/TTrans.hpp: the valid region transposed (bits); on its vnchwconv path also the rest of each dst "
        "row's last 32-byte block, from UB address 0 (not modelled: approximate there)"
    )
    VECTOR = "vector", "npu/a5/TTrans.hpp: exactly the valid region transposed (bits), by vgather2 / vscatter"


# ---------------------------------------------------------------------------
# THISTOGRAM (pto_dialect/instructions/thistogram.py)


class HistogramRows(Choice, kind="histogram_rows"):
    """Where THISTOGRAM stores each row's 256 bins."""

    TILE = "tile", "cpu/THistogram.hpp: row r's bins at dst's (r, b), through its layout"
    PACKED = "packed", "npu/a5/THistogram.hpp: row r's bins at dst's storage element 256 * r + b, whatever dst's row stride"


# ---------------------------------------------------------------------------
# TGATHERB (pto_dialect/instructions/tgatherb.py)


class BlockRead(Choice, kind="block_read"):
    """How TGATHERB reads the 32-byte block at a byte offset into src's storage."""

    BYTES_IN_SRC = "bytes_in_src", (
        "cpu/TGatherB.hpp: the 32 bytes at any byte offset; a block past src's storage is not copied (that dst "
        "block keeps its contents); an offset of 2**32 - 32 or more wraps its 32-bit bounds test and reads outside "
        "src: a run-time fault"
    )
    ALIGNED_IN_SRC = "aligned_in_src", (
        "npu vgatherb: a 32-byte aligned offset whose block lies inside src's storage; any other offset reads an "
        "unaligned address or another tile's bytes (undefined): a run-time fault"
    )


# ---------------------------------------------------------------------------
# TRANDOM (pto_dialect/instructions/trandom.py)


class RandomStream(Choice, kind="random_stream"):
    """Which Philox-4x32 counter TRANDOM draws each element from, and where it stores it: per
    valid row, blocks of 256 columns, each block from 64 consecutive counters (lane l: counter +
    l) whose four output words fill it."""

    LANE_BLOCKS = "lane_blocks", (
        "cpu/TRandom.hpp: word w of lane l at column 64 * w + l of the block; the counter advances by "
        "dst's row stride / 4 per block; stored through dst's layout"
    )
    INTERLEAVED = "interleaved", (
        "npu/a5/TRandom.hpp (four vintlv): word w of lane l at column 4 * l + w of the block; the counter "
        "advances by 64 per block, the row's last block by (valid cols - 1) % 64 + 1; stored at dst's "
        "storage element row * row stride + column"
    )



# ---------------------------------------------------------------------------
# TTRI (pto_dialect/instructions/ttri.py)


class TriRun(Choice, kind="tri_run"):
    """Where TTRI's run (lower: the ones of j <= i + d; upper: the zeros of j < i + d) ends."""

    CLIPPED = "clipped", "cpu/TTRI.hpp, npu/a2a3/TTri.hpp: at the valid columns"
    REGISTERS = "registers", (
        "npu/a5/TTri.hpp: at its own length, within the row's ceil(valid cols / E) registers (E = 256 bytes / "
        "element size), so past the valid columns into the storage after the row where the run is longer"
    )


# ---------------------------------------------------------------------------
# Row broadcasts (pto_dialect/instructions/broadcast.py)


class FullOperand(Choice, kind="full_operand"):
    """Which input a row broadcast takes as its full operand where both have dst's valid shape
    (the other is then its per-row operand)."""

    SRC0 = "src0", "src0 (cpu/TRowExpandOp.hpp, npu/a5/TRowExpand*.hpp, a2a3's forms with a tmp)"
    LARGER_ROW_STRIDE = "larger_row_stride", (
        "the one of the larger row stride (Tile::RowStride: Cols if row-major, else 1), src0 on a tie "
        "(npu/a2a3/TRowExpandAdd.hpp, Sub, Mul, Div, Max, Min without a tmp)"
    )
