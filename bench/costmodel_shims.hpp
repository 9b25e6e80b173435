// Included first by bench/costmodel_diff.py's driver, so that the C++ `pto-opt --to=cpp` emits
// for a2a3 builds against pto-isa's cost model (include/pto/costmodel, -D__COSTMODEL) for the
// forms PTOAS writes but the cost model's own wrappers cannot express. Each wrapper forwards to
// the same *_IMPL the cost model's wrappers reach through MAP_INSTR_IMPL / MAP_INSTR_IMPL_T, so
// the intrinsic sequence it prices is the a2a3 header's, with the cost model's mocks.
#pragma once
#include <cstdint>

#include <cstring>

// The compare form of TGATHER addresses its scratch through get_imm(address), whose cost-model
// stub returns 0, so that it writes through a null pointer. Declared before the headers so that
// their call resolves to it (an exact match beats the stub's `...`). TGather.hpp takes the
// address to 32 bits: the driver is linked -no-pie, so that the on-chip memory below lies low.
inline uint64_t get_imm(uint64_t address) { return address; }

#include <pto/pto-inst.hpp>

namespace costmodel_diff {
// The a2a3 code reads and writes tiles through their addresses in scalar loops (MGATHER's
// indices, the compare form's scratch): a tile's address (TASSIGN, from pto-opt's memory plan)
// is taken as an offset into host memory standing for its on-chip buffer, one per TileType,
// zeroed before each case (every index 0: in range; no data of an earlier case).
constexpr std::size_t kTileTypes = static_cast<std::size_t>(pto::TileType::Ctrl) + 1;
constexpr std::size_t kOnChipBytes = 1 << 20; // more than any a2a3 buffer (UB 192 KiB, L1 512 KiB)
alignas(4096) inline char on_chip[kTileTypes][kOnChipBytes];

inline void ClearOnChip() { std::memset(on_chip, 0, sizeof(on_chip)); }
} // namespace costmodel_diff

namespace pto {
// pto-opt emits TASSIGN(tile, offset) with an int literal: preferred to the cost model's
// TASSIGN(T&, AddrType), which it calls with the host address.
template <typename T>
    requires is_tile_data_v<T>
void TASSIGN(T& tile, int offset)
{
    TASSIGN(tile, reinterpret_cast<std::uintptr_t>(costmodel_diff::on_chip[static_cast<std::size_t>(T::Loc)] + offset));
}
} // namespace pto

// TCOLARGMIN / TCOLARGMAX compare with vcmp_le / vcmp_ge, which have no mock: priced as the
// mocks of vcmpv_le (EstimateLinearCycles' defaults) and vcmpv_ge (head 14, slope 2, tail 22).
inline void vcmp_le(auto dst, auto src, auto repeat, auto, auto, auto, auto, auto, auto)
{
    const uint64_t cycles = EstimateLinearCycles(repeat);
    ::pto::mocker::RecordCceCall(::pto::mocker::evaluator::PipeKey::VECTOR, "vcmp_le", cycles, dst, src, repeat);
}
inline void vcmp_ge(auto dst, auto src, auto repeat, auto, auto, auto, auto, auto, auto)
{
    const uint64_t cycles = EstimateLinearCycles(repeat, 14, 2, 22);
    ::pto::mocker::RecordCceCall(::pto::mocker::evaluator::PipeKey::VECTOR, "vcmp_ge", cycles, dst, src, repeat);
}

// The cost model's list of a2a3 headers (common/pto_instr_impl.hpp, its __COSTMODEL branch)
// leaves out MGATHER's, MSCATTER's, TCOLARGMIN/MAX's and TROWARGMIN/MAX's.
#define __DAV_CUBE__ // MGather.hpp compiles its GM -> L1 paths only for the cube core
#include "pto/npu/a2a3/MGather.hpp"
#undef __DAV_CUBE__
#include "pto/npu/a2a3/MScatter.hpp"
#include "pto/npu/a2a3/TColReduceIdx.hpp"
#include "pto/npu/a2a3/TRowReduceIdxOps.hpp"

namespace pto {
// The cost model's MGATHER takes no Coalesce / GatherOOB arguments (row mode, undefined only).
template <Coalesce Mode, GatherOOB Oob, typename TileDst, typename GlobalData, typename TileInd>
RecordEvent MGATHER(TileDst& dst, GlobalData& src, TileInd& indexes)
{
    MAP_INSTR_IMPL_T(MGATHER, PTO_TEMPLATE_ARGS(Mode, Oob, TileDst, GlobalData, TileInd), dst, src, indexes);
    return {};
}
// Elem mode into an L1 tile gathers through GM scratch.
template <Coalesce Mode, GatherOOB Oob, typename TileDst, typename GlobalData, typename Idx, typename Scratch>
RecordEvent MGATHER(TileDst& dst, GlobalData& src, Idx& indexes, Scratch& scratch)
{
    MAP_INSTR_IMPL_T(MGATHER, PTO_TEMPLATE_ARGS(Mode, Oob, TileDst, GlobalData, Idx, Scratch), dst, src, indexes, scratch);
    return {};
}

// The cost model's MSCATTER takes no Coalesce / ScatterAtomicOp / ScatterOOB arguments (row
// mode, no atomic op, undefined only).
template <Coalesce Mode, ScatterAtomicOp Atomic, ScatterOOB Oob, typename GlobalData, typename TileSrc, typename TileInd>
RecordEvent MSCATTER(GlobalData& table, TileSrc& src, TileInd& indexes)
{
    MAP_INSTR_IMPL_T(MSCATTER, PTO_TEMPLATE_ARGS(Mode, Atomic, Oob, GlobalData, TileSrc, TileInd), table, src, indexes);
    return {};
}

// The cost model has no TCOLARGMIN / TCOLARGMAX (index only, and value + index), and its
// TROWARGMIN / TROWARGMAX are index only: the missing arg-reduce wrappers, one shape each.
#define PTO_SHIM_INDEX_ONLY(NAME)                                                              \
    template <typename TileDataOut, typename TileDataIn, typename TileDataTmp>                 \
    RecordEvent NAME(TileDataOut& dst, TileDataIn& src, TileDataTmp& tmp)                      \
    {                                                                                          \
        MAP_INSTR_IMPL(NAME, dst, src, tmp);                                                   \
        return {};                                                                             \
    }
#define PTO_SHIM_VALUE_INDEX(NAME)                                                             \
    template <typename TileValues, typename TileIndices, typename TileDataIn, typename TileDataTmp> \
    RecordEvent NAME(TileValues& values, TileIndices& indices, TileDataIn& src, TileDataTmp& tmp) \
    {                                                                                          \
        MAP_INSTR_IMPL(NAME, values, indices, src, tmp);                                       \
        return {};                                                                             \
    }
PTO_SHIM_INDEX_ONLY(TCOLARGMIN)
PTO_SHIM_INDEX_ONLY(TCOLARGMAX)
PTO_SHIM_VALUE_INDEX(TCOLARGMIN)
PTO_SHIM_VALUE_INDEX(TCOLARGMAX)
PTO_SHIM_VALUE_INDEX(TROWARGMIN)
PTO_SHIM_VALUE_INDEX(TROWARGMAX)
#undef PTO_SHIM_INDEX_ONLY
#undef PTO_SHIM_VALUE_INDEX

// The cost model's compare-form TGATHER has pto-isa's older signature (the offset a template
// argument); pto-opt emits today's (the offset an argument).
template <typename TileDst, typename TileSrc, typename TileK, typename TileCount, typename TileTmp, CmpMode Mode>
RecordEvent TGATHER(TileDst& dst, TileSrc& src, TileK& k, TileCount& counts, TileTmp& tmp, int offset)
{
    MAP_INSTR_IMPL_T(TGATHER, PTO_TEMPLATE_ARGS(TileDst, TileSrc, TileK, TileCount, TileTmp, Mode), dst, src, k, counts,
                     tmp, offset);
    return {};
}
// The cost model's mask-form TGATHER takes no GatherAxis argument (row axis only).
template <typename TileDst, typename TileSrc, MaskPattern Pattern, auto Axis>
RecordEvent TGATHER(TileDst& dst, TileSrc& src)
{
    MAP_INSTR_IMPL_T(TGATHER, PTO_TEMPLATE_ARGS(TileDst, TileSrc, Pattern, Axis), dst, src);
    return {};
}
// The cost model has no mask-form TSCATTER.
template <MaskPattern Pattern, auto Axis, typename TileDst, typename TileSrc>
RecordEvent TSCATTER(TileDst& dst, TileSrc& src)
{
    MAP_INSTR_IMPL_T(TSCATTER, PTO_TEMPLATE_ARGS(Pattern, Axis, TileDst, TileSrc), dst, src);
    return {};
}
} // namespace pto
