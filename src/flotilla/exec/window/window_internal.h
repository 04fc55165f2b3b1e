#pragma once
// What the window kernels share: the resolved function call, fixed-width output columns built row
// by row, and the entry points of each family of kernels (ranking, offsets, aggregates), which
// window_kernels.cc dispatches to. Not part of the public contract.

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "flotilla/columnar/decimal.h"
#include "flotilla/exec/window/window_frames.h"
#include "flotilla/exec/window/window_kernels.h"

namespace flotilla::expr {
struct AggregateFunction;
}

namespace flotilla::exec::window_internal {

using UInt128 = unsigned __int128;

inline constexpr Int128 kInt128Max = static_cast<Int128>(~UInt128{0} >> 1);
inline constexpr Int128 kInt128Min = -kInt128Max - 1;

enum class WindowKind {
  kRowNumber,
  kRank,
  kDenseRank,
  kPercentRank,
  kCumeDist,
  kNtile,
  kLag,
  kLead,
  kFirstValue,
  kLastValue,
  kNthValue,
  kAggregate,
};

// A spec with its function found and its arguments checked.
struct ResolvedSpec {
  WindowKind kind = WindowKind::kAggregate;
  std::string name;  // lower case
  const expr::AggregateFunction* aggregate = nullptr;
  std::vector<TypePtr> arg_types;  // aggregates: the columns, then the constants
  TypePtr type;
};

/// Finds the function of `spec` and checks its arguments against `schema` (see the errors of
/// ComputeWindowFunction).
Result<ResolvedSpec> Resolve(const Schema& schema, const WindowFunctionSpec& spec);

/// "name()", for messages.
inline std::string Call(const std::string& name) {
  return name + "()";
}

/// The value of a one-row integer constant; nullopt when it is null.
std::optional<int64_t> ConstantInteger(const Array& constant);

// A fixed-width result written row by row; every row must be written once (Set or SetNull).
template <typename T>
class OutputColumn {
 public:
  static Result<OutputColumn> Make(TypePtr type, int64_t length) {
    OutputColumn out;
    out.type_ = std::move(type);
    out.length_ = length;
    FLOTILLA_ASSIGN_OR_RETURN(out.values_,
                              Buffer::Allocate(length * static_cast<int64_t>(sizeof(T))));
    FLOTILLA_ASSIGN_OR_RETURN(out.validity_, Buffer::Allocate(bit_util::BytesForBits(length)));
    if (length > 0) {
      std::memset(out.validity_->mutable_data(), 0xFF,
                  static_cast<size_t>(bit_util::BytesForBits(length)));
    }
    return out;
  }

  T* values() { return reinterpret_cast<T*>(values_->mutable_data()); }
  void Set(int64_t i, T v) { values()[i] = v; }
  void SetNull(int64_t i) {
    values()[i] = T{};
    bit_util::ClearBit(validity_->mutable_data(), i);
    ++null_count_;
  }

  Array Finish() {
    auto data = std::make_shared<ArrayData>();
    data->type = type_;
    data->length = length_;
    data->null_count = null_count_;
    data->buffers = {null_count_ > 0 ? validity_ : nullptr, values_};
    return Array(std::move(data));
  }

 private:
  TypePtr type_;
  int64_t length_ = 0;
  BufferPtr values_;
  BufferPtr validity_;
  int64_t null_count_ = 0;
};

/// Rows of `values` picked by an int64 index column (null index: null row).
Result<Array> TakeRows(const Array& values, OutputColumn<int64_t>* indices);

// Row validity of an array, with the per-row test hoisted (no bitmap: all valid).
struct Validity {
  const uint8_t* bits = nullptr;
  int64_t offset = 0;
  bool all_null = false;
  explicit Validity(const Array& a)
      : bits(a.null_count() > 0 ? a.validity() : nullptr),
        offset(a.offset()),
        all_null(a.type_id() == TypeId::kNull) {}
  bool operator()(int64_t i) const {
    return !all_null && (bits == nullptr || bit_util::GetBit(bits, offset + i));
  }
};

inline Int128 DecimalValue(const Array& a, int64_t i) {
  Int128 v;
  std::memcpy(&v, a.raw_values() + (a.offset() + i) * 16, 16);  // may be unaligned
  return v;
}

// The kernels. Each gets a batch with rows and checked arguments (Resolve); the framed ones get
// the frames of `spec`.

/// row_number, rank, dense_rank, percent_rank and cume_dist.
Result<Array> ComputeRanking(WindowKind kind, const RecordBatch& batch, const PartitionList& parts,
                             const std::vector<compute::SortKey>& order_keys);
Result<Array> ComputeNtile(const RecordBatch& batch, const PartitionList& parts,
                           const Array& buckets_constant);

Result<Array> ComputeLagLead(const ResolvedSpec& r, const WindowFunctionSpec& spec,
                             const RecordBatch& batch, const PartitionList& parts);
/// first_value / last_value / nth_value (`nth`), and the first / last aggregates.
Result<Array> ComputeFramePick(WindowKind kind, std::optional<int64_t> nth, const Array& x,
                               const PartitionList& parts, FrameComputer* frames);

/// An aggregate over the frames: a dedicated kernel where there is one, else the function's
/// GroupedAccumulator.
Result<Array> ComputeAggregate(const ResolvedSpec& r, const WindowFunctionSpec& spec,
                               const RecordBatch& batch, const PartitionList& parts,
                               FrameComputer* frames);
Result<Array> ComputeGenericAggregate(const ResolvedSpec& r, const WindowFunctionSpec& spec,
                                      const RecordBatch& batch, const PartitionList& parts,
                                      FrameComputer* frames);

/// Whether sum / mean of `x` has a sliding kernel: floats, integers, and decimals whose sums
/// cannot wrap 128 bits.
bool HasSlidingSum(const Array& x);
/// sum (or mean) of `x` over the frames, typed `type`; only where HasSlidingSum(x).
Result<Array> ComputeSlidingSum(const std::string& name, const Array& x, const TypePtr& type,
                                bool mean, const PartitionList& parts, FrameComputer* frames);

}  // namespace flotilla::exec::window_internal
