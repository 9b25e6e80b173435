// A stand-in for pto-isa's <pto/pto-inst.hpp>, for tests only: the declarations that
// the C++ emitted by `pto-opt --to=cpp` uses, with the signatures of the spec files'
// "C++ Built-in APIs" (spec/{mgather,tgather,tcolargmin}.md, pto-isa's docs/isa for the others) and of pto-isa's Tile,
// GlobalTensor and pipe flags. Declarations only: tests/test_emit_cpp.py compiles the
// emitted kernels with `g++ -std=c++17 -fsyntax-only` against it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

// Bisheng (CCE) keywords and builtins, outside namespace pto as on the device.
#define AICORE
#define __global__
#define __gm__

struct half { uint16_t bits; half() = default; half(float); };
struct bfloat16_t { uint16_t bits; bfloat16_t() = default; bfloat16_t(float); };
struct float8_e4m3_t { uint8_t bits; float8_e4m3_t() = default; float8_e4m3_t(float); };
struct float8_e5m2_t { uint8_t bits; float8_e5m2_t() = default; float8_e5m2_t(float); };
struct hifloat8_t { uint8_t bits; hifloat8_t() = default; hifloat8_t(float); };

enum pipe_t { PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_FIX, PIPE_ALL };
enum event_t { EVENT_ID0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 };
void set_flag(pipe_t producer, pipe_t consumer, event_t event);
void wait_flag(pipe_t producer, pipe_t consumer, event_t event);
void pipe_barrier(pipe_t pipe);
// cross-core (FFTS) signals, as pto-isa's npu/a2a3/SyncAll.hpp calls them
uint64_t getFFTSMsg(uint64_t mode, uint64_t flag_id);
void ffts_cross_core_sync(pipe_t pipe, uint64_t config);
void wait_flag_dev(int64_t flag_id);
// data-cache maintenance and memory barriers (pto.cmo.cacheinvalid, pto.fence.barrier_all)
enum cache_line_t { SINGLE_CACHE_LINE, ENTIRE_DATA_CACHE };
void dcci(__gm__ void* address, cache_line_t scope);
enum mem_dsb_t { DSB_ALL, DSB_DDR, DSB_UB };
void dsb(mem_dsb_t mode);

namespace pto {

enum class TileType { Vec, Mat, Left, Right, Acc, Bias, Scaling };
enum class BLayout { RowMajor = 0, ColMajor = 1 };
enum class SLayout { NoneBox = 0, RowMajor = 1, ColMajor = 2 };
enum class PadValue { Null = 0, Zero = 1, Max = 2, Min = 3 };
enum class CompactMode { Null = 0, Normal = 1, RowPlusOne = 2 };
enum class Layout { ND = 0, DN = 1, NZ = 2, MX_A_ZZ = 3, MX_B_NN = 4 };
enum class Coalesce : uint8_t { Row = 0, Elem = 1 };
enum class GatherOOB : uint8_t { Undefined = 0, Clamp = 1, Wrap = 2, Zero = 3 };
enum class GatherExec : uint8_t { Scalar = 0, Simt = 1 };
enum class ScatterAtomicOp : uint8_t { None = 0, Add = 1, Max = 2, Min = 3 };
enum class ScatterOOB : uint8_t { Undefined = 0, Skip = 1, Clamp = 2, Wrap = 3 };
enum class ScatterConflict : uint8_t { Last = 0, Default = 1 };
enum class MaskPattern { P0101 = 1, P1010 = 2, P0001 = 3, P0010 = 4, P0100 = 5, P1000 = 6, P1111 = 7 };
enum class GatherAxis { GATHER_ROW, GATHER_COL };
enum class ScatterAxis { SCATTER_ROW, SCATTER_COL };
enum class CmpMode { EQ = 0, NE = 1, LT = 2, LE = 3, GT = 4, GE = 5 };
enum class PrintFormat : uint8_t { Width8_Precision4 = 0, Width8_Precision2 = 1, Width10_Precision6 = 2 };

struct RecordEvent {};

template <TileType Loc_, typename Element_, int Rows_, int Cols_, BLayout BFractal_ = BLayout::RowMajor,
          int RowValid_ = Rows_, int ColValid_ = Cols_, SLayout SFractal_ = SLayout::NoneBox,
          int SFractalSize_ = 512, PadValue PadVal_ = PadValue::Null, CompactMode Compact_ = CompactMode::Null>
struct Tile {
    using DType = Element_;
    static constexpr TileType Loc = Loc_;
    static constexpr BLayout BFractal = BFractal_;
    static constexpr SLayout SFractal = SFractal_;
    static_assert(Rows_ > 0 && Cols_ > 0, "Tile rows and cols must be positive");
    static_assert(RowValid_ == -1 || (0 <= RowValid_ && RowValid_ <= Rows_), "Invalid Tile valid rows");
    static_assert(ColValid_ == -1 || (0 <= ColValid_ && ColValid_ <= Cols_), "Invalid Tile valid cols");
    static_assert(SFractalSize_ == 32 || SFractalSize_ == 512 || SFractalSize_ == 1024, "SFractalSize_ illegal");

    Tile();
    // both valid dims, or only the dynamic one (-1), are runtime values
    template <int R = RowValid_, int C = ColValid_, std::enable_if_t<R == -1 && C == -1, int> = 0>
    Tile(size_t validRow, size_t validCol);
    template <int R = RowValid_, int C = ColValid_, std::enable_if_t<(R == -1) != (C == -1), int> = 0>
    explicit Tile(size_t validDim);
    size_t GetValidRow() const;
    size_t GetValidCol() const;
    // pto-isa's pto_tile.hpp: only a tile whose valid rows and cols are both dynamic
    template <int R = RowValid_, int C = ColValid_, std::enable_if_t<R == -1 && C == -1, int> = 0>
    void SetValidShape(unsigned validRow, unsigned validCol);
};

template <int S0, int S1, int S2, int S3, int S4>
struct Shape {};

template <int T0, int T1, int T2, int T3, int T4>
struct Stride {};

template <typename Element_, typename Shape_, typename Stride_, Layout Layout_ = Layout::ND>
struct GlobalTensor {
    using DType = Element_;
    static constexpr Layout layout = Layout_;
    explicit GlobalTensor(__gm__ Element_* data);
};

template <typename TileData>
void TASSIGN(TileData& tile, uint64_t address);

// pto_instr.hpp: dst views src's storage from (rowIdx, colIdx)
template <typename TileDataDst, typename TileDataSrc>
RecordEvent TSUBVIEW(TileDataDst& dst, TileDataSrc& src, uint16_t rowIdx, uint16_t colIdx);

// The GlobalTensor's layout picks the TLOAD / TSTORE path: ND2ND, DN2DN, NZ2NZ (and, into
// L1, ND2NZ / DN2ZN); pto-isa's static_asserts reject any other pair (an ND tensor into a
// col-major tile included).
template <typename TileData, typename GlobalData>
constexpr bool TransferLayoutsMatch()
{
    constexpr bool nd = TileData::BFractal == BLayout::RowMajor && TileData::SFractal == SLayout::NoneBox;
    constexpr bool dn = TileData::BFractal == BLayout::ColMajor && TileData::SFractal == SLayout::NoneBox;
    constexpr bool nz = TileData::BFractal == BLayout::ColMajor && TileData::SFractal == SLayout::RowMajor;
    constexpr bool zn = TileData::BFractal == BLayout::RowMajor && TileData::SFractal == SLayout::ColMajor;
    constexpr bool mat = TileData::Loc == TileType::Mat;
    return (GlobalData::layout == Layout::ND && (nd || (mat && nz))) ||
           (GlobalData::layout == Layout::DN && (dn || (mat && zn))) || (GlobalData::layout == Layout::NZ && nz);
}

template <typename TileData, typename GlobalData, typename... WaitEvents>
RecordEvent TLOAD(TileData& dst, GlobalData& src, WaitEvents&... events)
{
    static_assert(TransferLayoutsMatch<TileData, GlobalData>(), "TLOAD: GlobalTensor layout does not match the tile");
    return {};
}

template <typename GlobalData, typename TileData, typename... WaitEvents>
RecordEvent TSTORE(GlobalData& dst, TileData& src, WaitEvents&... events)
{
    static_assert(TransferLayoutsMatch<TileData, GlobalData>(), "TSTORE: GlobalTensor layout does not match the tile");
    return {};
}

// MGATHER: GM -> UB (index tile) or GM -> L1 (index tensor, row); GM -> L1 elem takes a GM scratch.
template <Coalesce CMode = Coalesce::Row, GatherOOB Oob = GatherOOB::Undefined, typename TileDst,
          typename GlobalTable, typename TileIdx, typename... WaitEvents>
RecordEvent MGATHER(TileDst& dst, GlobalTable& table, TileIdx& idx, WaitEvents&... events);
template <Coalesce CMode = Coalesce::Elem, GatherOOB Oob = GatherOOB::Undefined, typename MatTileDst,
          typename GlobalTable, typename GlobalIdx, typename GlobalScratch>
RecordEvent MGATHER(MatTileDst& dst, GlobalTable& table, GlobalIdx& idx, GlobalScratch& scratch);
template <Coalesce CMode, GatherOOB Oob, GatherExec Exec, typename MatTileDst, typename GlobalTable,
          typename GlobalIdx, typename GlobalScratch>
RecordEvent MGATHER(MatTileDst& dst, GlobalTable& table, GlobalIdx& idx, GlobalScratch& scratch);

// MSCATTER: UB -> GM through an index tile (without template arguments: each build's default mode).
template <typename GlobalData, typename TileSrc, typename TileInd, typename... WaitEvents>
RecordEvent MSCATTER(GlobalData& dst, TileSrc& src, TileInd& indexes, WaitEvents&... events);
template <Coalesce Mode, ScatterAtomicOp Atomic, ScatterOOB Oob, typename GlobalData, typename TileSrc,
          typename TileInd, typename... WaitEvents>
RecordEvent MSCATTER(GlobalData& dst, TileSrc& src, TileInd& indexes, WaitEvents&... events);
template <Coalesce Mode, ScatterAtomicOp Atomic, ScatterOOB Oob, ScatterConflict Conflict, typename GlobalData,
          typename TileSrc, typename TileInd, typename... WaitEvents>
RecordEvent MSCATTER(GlobalData& dst, TileSrc& src, TileInd& indexes, WaitEvents&... events);

// TGATHER: index, mask-pattern and compare forms.
template <typename TileDataD, typename TileDataS0, typename TileDataS1, typename TileDataTmp, typename... WaitEvents>
RecordEvent TGATHER(TileDataD& dst, TileDataS0& src0, TileDataS1& src1, TileDataTmp& tmp, WaitEvents&... events);
template <typename DstTileData, typename SrcTileData, MaskPattern maskPattern,
          GatherAxis gatherType = GatherAxis::GATHER_ROW, typename... WaitEvents>
RecordEvent TGATHER(DstTileData& dst, SrcTileData& src, WaitEvents&... events);
template <typename TileDataD, typename TileDataS, typename TileDataS1, typename TileDataC, typename TileDataTmp,
          CmpMode cmpMode, typename... WaitEvents>
RecordEvent TGATHER(TileDataD& dst, TileDataS& src0, TileDataS1& k_value, TileDataC& cdst, TileDataTmp& tmp,
                    uint32_t offset, WaitEvents&... events);

// TGATHERB: 32-byte blocks of src at the byte offsets.
template <typename TileDataDst, typename TileDataSrc, typename TileDataOffset, typename... WaitEvents>
RecordEvent TGATHERB(TileDataDst& dst, TileDataSrc& src, TileDataOffset& offset, WaitEvents&... events);

// TSCATTER: index and mask-pattern forms.
template <typename TileDataD, typename TileDataS, typename TileDataI, typename... WaitEvents>
RecordEvent TSCATTER(TileDataD& dst, TileDataS& src, TileDataI& indexes, WaitEvents&... events);
template <MaskPattern maskPattern = MaskPattern::P1111, auto ScatterType = ScatterAxis::SCATTER_ROW,
          typename DstTileData, typename SrcTileData, typename... WaitEvents>
RecordEvent TSCATTER(DstTileData& dst, SrcTileData& src, WaitEvents&... events);

// TCOLARGMIN, TCOLARGMAX, TROWARGMIN, TROWARGMAX: index only, and value + index.
#define PTO_ARG_REDUCTION(NAME)                                                                    \
    template <typename TileDataOut, typename TileDataIn, typename TileDataTmp, typename... WaitEvents>   \
    RecordEvent NAME(TileDataOut& dst, TileDataIn& src, TileDataTmp& tmp, WaitEvents&... events);        \
    template <typename TileDataOutVal, typename TileDataOutIdx, typename TileDataIn, typename TileDataTmp, \
              typename... WaitEvents>                                                                     \
    RecordEvent NAME(TileDataOutVal& dstVal, TileDataOutIdx& dstIdx, TileDataIn& src, TileDataTmp& tmp,   \
                     WaitEvents&... events);
PTO_ARG_REDUCTION(TCOLARGMIN)
PTO_ARG_REDUCTION(TCOLARGMAX)
PTO_ARG_REDUCTION(TROWARGMIN)
PTO_ARG_REDUCTION(TROWARGMAX)

// TCVT's modes and the precision template arguments (pto-isa include/pto/common/type.hpp).
enum class RoundMode : uint8_t { CAST_NONE, CAST_RINT, CAST_ROUND, CAST_FLOOR, CAST_CEIL, CAST_TRUNC, CAST_ODD };
enum class SaturationMode : uint8_t { ON, OFF };
enum class PowAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class DivAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class SqrtAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class RsqrtAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class RecipAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class ExpAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class LogAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class FmodAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class RemAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };

// TCI and TCVT (pto-isa's pto_instr.hpp). The families' calls (TADD, TROWSUM, ...) are declared
// by tests/test_emit_cpp.py from the family rows.
template <typename TileData, typename T, int descending, typename... WaitEvents>
RecordEvent TCI(TileData& dst, T start, WaitEvents&... events);
template <typename TileData, typename TileDataTmp, typename T, int descending, typename... WaitEvents>
RecordEvent TCI(TileData& dst, T start, TileDataTmp& tmp, WaitEvents&... events);
template <typename TileDataD, typename TileDataS, typename TmpTileData, typename... WaitEvents>
RecordEvent TCVT(TileDataD& dst, TileDataS& src, TmpTileData& tmp, RoundMode mode, WaitEvents&... events);
template <typename TileDataD, typename TileDataS, typename... WaitEvents>
RecordEvent TCVT(TileDataD& dst, TileDataS& src, RoundMode mode, SaturationMode satMode, WaitEvents&... events);
template <typename TileDataD, typename TileDataS, typename... WaitEvents>
RecordEvent TCVT(TileDataD& dst, TileDataS& src, RoundMode mode, WaitEvents&... events);

// Vec-side data movement (pto-isa's pto_instr.hpp; TRESHAPE as PTOAS emits it).
template <typename DstTileData, typename SrcTileData, typename... WaitEvents>
RecordEvent TMOV(DstTileData& dst, SrcTileData& src, WaitEvents&... events);
template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, typename... WaitEvents>
RecordEvent TCONCAT(TileDataDst& dst, TileDataSrc0& src0, TileDataSrc1& src1, WaitEvents&... events);
template <typename DstTileData, typename SrcTileData, typename... WaitEvents>
RecordEvent TEXTRACT(DstTileData& dst, SrcTileData& src, uint16_t indexRow, uint16_t indexCol, WaitEvents&... events);
template <typename DstTileData, typename SrcTileData, typename... WaitEvents>
RecordEvent TINSERT(DstTileData& dst, SrcTileData& src, uint16_t indexRow, uint16_t indexCol, WaitEvents&... events);
template <typename TileDataDst, typename TileDataSrc>
RecordEvent TRESHAPE(TileDataDst& dst, TileDataSrc& src);
enum class TFillPadMode { Normal, InPlace, Expand };
template <TFillPadMode mode = TFillPadMode::Normal, typename DstTileData, typename SrcTileData, typename... WaitEvents>
RecordEvent TFILLPAD(DstTileData& dst, SrcTileData& src, WaitEvents&... events);
template <typename TileDataDst, typename TileDataSrc, typename TileDataTmp, typename... WaitEvents>
RecordEvent TTRANS(TileDataDst& dst, TileDataSrc& src, TileDataTmp& tmp, WaitEvents&... events);

// TRANDOM (pto-isa's pto_instr.hpp; the key and counter arrays of common/type.hpp).
using TRandomKey = uint32_t[2];
using TRandomCounter = uint32_t[4];
template <uint16_t Rounds = 10, typename DstTile, typename... WaitEvents>
RecordEvent TRANDOM(DstTile& dst, TRandomKey& key, TRandomCounter& counter, WaitEvents&... events);

// TPRINT (pto-isa's TPRINT.md): a Vec tile or a GlobalTensor.
template <PrintFormat Format = PrintFormat::Width8_Precision4, typename TileData>
void TPRINT(TileData& src);

}  // namespace pto
