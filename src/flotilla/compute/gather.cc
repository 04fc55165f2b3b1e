#include "flotilla/compute/gather.h"

#include <fmt/format.h>

#include <cstring>

#include "flotilla/columnar/builder.h"
#include "flotilla/compute/dictionary_view.h"

namespace flotilla::compute::internal {
namespace {

// 16 bytes moved as one value so decimal128 takes the typed loop too.
struct Bytes16 {
  uint64_t lo, hi;
};

// The integer positions of a gather, resolved once: the typed loops below are instantiated per
// index type, so the inner loops have no per-row dispatch.
template <typename IndexT>
struct Positions {
  const IndexT* idx;
  const uint8_t* validity;  // nullptr when no index is null
  int64_t validity_offset;
  int64_t length;

  explicit Positions(const Array& indices)
      : idx(indices.values<IndexT>()),
        validity(indices.null_count() > 0 ? indices.validity() : nullptr),
        validity_offset(indices.offset()),
        length(indices.length()) {}
  bool IsValid(int64_t i) const {
    return validity == nullptr || bit_util::GetBit(validity, validity_offset + i);
  }
};

// Output validity: row i is valid when index i is valid and values[idx[i]] is valid. Bits are
// accumulated into a 64-bit word and stored once per word.
template <typename IndexT>
Result<BufferPtr> GatherValidity(const Array& values, const Positions<IndexT>& pos,
                                 MemoryPool* pool, int64_t* null_count) {
  const uint8_t* vv = values.null_count() > 0 ? values.validity() : nullptr;
  *null_count = 0;
  if (vv == nullptr && pos.validity == nullptr) return BufferPtr();
  const int64_t n = pos.length;
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr out, Buffer::AllocateZeroed(bit_util::BytesForBits(n), pool));
  uint8_t* bits = out->mutable_data();
  const int64_t voff = values.offset();
  int64_t valid_count = 0;
  for (int64_t base = 0; base < n; base += 64) {
    const int64_t end = std::min<int64_t>(base + 64, n);
    uint64_t word = 0;
    for (int64_t i = base; i < end; ++i) {
      bool valid = pos.IsValid(i) && (vv == nullptr || bit_util::GetBit(vv, voff + pos.idx[i]));
      word |= static_cast<uint64_t>(valid) << (i - base);
    }
    valid_count += __builtin_popcountll(word);
    std::memcpy(bits + base / 8, &word, static_cast<size_t>(bit_util::BytesForBits(end - base)));
  }
  *null_count = n - valid_count;
  if (*null_count == 0) return BufferPtr();
  return out;
}

template <typename T, typename IndexT>
void GatherFixed(const uint8_t* raw, const Positions<IndexT>& pos, uint8_t* out_raw) {
  const T* in = reinterpret_cast<const T*>(raw);
  T* out = reinterpret_cast<T*>(out_raw);
  const IndexT* idx = pos.idx;
  const int64_t n = pos.length;
  if (pos.validity == nullptr) {
    for (int64_t i = 0; i < n; ++i)
      out[i] = in[idx[i]];
  } else {
    // A null index may hold any bits, so it must not be dereferenced.
    for (int64_t i = 0; i < n; ++i)
      out[i] = pos.IsValid(i) ? in[idx[i]] : T{};
  }
}

template <typename IndexT>
Status GatherFixedWidth(const Array& values, const Positions<IndexT>& pos, MemoryPool* pool,
                        ArrayData* out) {
  const int64_t w = values.type()->byte_width();
  FLOTILLA_ASSIGN_OR_RETURN(out->buffers[1], Buffer::Allocate(pos.length * w, pool));
  const uint8_t* in = values.raw_values() + values.offset() * w;
  uint8_t* dst = out->buffers[1]->mutable_data();
  switch (w) {
    case 1:
      GatherFixed<uint8_t>(in, pos, dst);
      break;
    case 2:
      GatherFixed<uint16_t>(in, pos, dst);
      break;
    case 4:
      GatherFixed<uint32_t>(in, pos, dst);
      break;
    case 8:
      GatherFixed<uint64_t>(in, pos, dst);
      break;
    case 16:
      GatherFixed<Bytes16>(in, pos, dst);
      break;
    default:
      for (int64_t i = 0; i < pos.length; ++i) {
        if (pos.IsValid(i)) {
          std::memcpy(dst + i * w, in + static_cast<int64_t>(pos.idx[i]) * w, w);
        } else {
          std::memset(dst + i * w, 0, w);
        }
      }
  }
  return Status::OK();
}

template <typename IndexT>
Status GatherBool(const Array& values, const Positions<IndexT>& pos, MemoryPool* pool,
                  ArrayData* out) {
  const int64_t n = pos.length;
  FLOTILLA_ASSIGN_OR_RETURN(out->buffers[1],
                            Buffer::AllocateZeroed(bit_util::BytesForBits(n), pool));
  uint8_t* bits = out->buffers[1]->mutable_data();
  const uint8_t* in = values.raw_values();
  const int64_t off = values.offset();
  for (int64_t base = 0; base < n; base += 64) {
    const int64_t end = std::min<int64_t>(base + 64, n);
    uint64_t word = 0;
    for (int64_t i = base; i < end; ++i) {
      bool bit = pos.IsValid(i) && bit_util::GetBit(in, off + pos.idx[i]);
      word |= static_cast<uint64_t>(bit) << (i - base);
    }
    std::memcpy(bits + base / 8, &word, static_cast<size_t>(bit_util::BytesForBits(end - base)));
  }
  return Status::OK();
}

// A gather of `rows` rows of `values` (32-bit offsets) would hold more than 2 GiB of bytes.
Status StringsTooLarge(const Array& values, int64_t rows) {
  return Status::Invalid(fmt::format(
      "the result of gathering {} rows of {} exceeds 2 GiB of string data; cast the column to "
      "large_{} or process fewer rows at a time",
      rows, values.type()->ToString(), values.type()->ToString()));
}

// Strings in two passes: the output offsets (and total size) first, then the bytes into a data
// buffer allocated once, one memcpy per run of consecutive positions (a filter's selection is
// mostly runs, and a run's bytes are contiguous in the input as in the output).
template <typename Offset, typename IndexT>
Status GatherBinary(const Array& values, const Positions<IndexT>& pos, MemoryPool* pool,
                    ArrayData* out) {
  const int64_t n = pos.length;
  const Offset* in_off = values.data()->buffers[1]->data_as<Offset>() + values.offset();
  FLOTILLA_ASSIGN_OR_RETURN(out->buffers[1], Buffer::Allocate((n + 1) * sizeof(Offset), pool));
  Offset* out_off = reinterpret_cast<Offset*>(out->buffers[1]->mutable_data());
  int64_t total = 0;
  out_off[0] = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (pos.IsValid(i)) {
      const IndexT j = pos.idx[i];
      total += static_cast<int64_t>(in_off[j + 1]) - in_off[j];
    }
    if (sizeof(Offset) == 4 && total > INT32_MAX) return StringsTooLarge(values, n);
    out_off[i + 1] = static_cast<Offset>(total);
  }
  FLOTILLA_ASSIGN_OR_RETURN(out->buffers[2], Buffer::Allocate(total, pool));
  const BufferPtr& in_data = values.data()->buffers[2];
  const uint8_t* src = in_data ? in_data->data() : nullptr;
  uint8_t* dst = out->buffers[2]->mutable_data();
  // The output rows [begin, end) hold consecutive positions from pos.idx[begin] on.
  auto copy_run = [&](int64_t begin, int64_t end) {
    const int64_t len = static_cast<int64_t>(out_off[end]) - out_off[begin];
    if (len > 0) {
      std::memcpy(dst + out_off[begin], src + in_off[pos.idx[begin]], static_cast<size_t>(len));
    }
  };
  // One pass that closes a run where the positions stop being consecutive; a null index closes
  // the run before it and is never dereferenced. A random gather pays one compare per row over
  // copying row by row.
  int64_t begin = -1;  // first row of the open run, -1 when none is open
  for (int64_t i = 0; i < n; ++i) {
    if (!pos.IsValid(i)) {
      if (begin >= 0) copy_run(begin, i);
      begin = -1;
      continue;
    }
    if (begin >= 0) {
      if (static_cast<int64_t>(pos.idx[i]) == static_cast<int64_t>(pos.idx[i - 1]) + 1) continue;
      copy_run(begin, i);
    }
    begin = i;
  }
  if (begin >= 0) copy_run(begin, n);
  return Status::OK();
}

// Lists go through the builder (allowed by their lower volume), one AppendArraySlice per run
// of consecutive positions so that filters with long runs stay cheap.
template <typename IndexT>
Result<Array> GatherWithBuilder(const Array& values, const Positions<IndexT>& pos,
                                MemoryPool* pool) {
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(values.type(), pool));
  FLOTILLA_RETURN_NOT_OK(builder->Reserve(pos.length));
  int64_t i = 0;
  while (i < pos.length) {
    if (!pos.IsValid(i)) {
      FLOTILLA_RETURN_NOT_OK(builder->AppendNull());
      ++i;
      continue;
    }
    const int64_t start = static_cast<int64_t>(pos.idx[i]);
    int64_t run = 1;
    while (i + run < pos.length && pos.IsValid(i + run) &&
           static_cast<int64_t>(pos.idx[i + run]) == start + run) {
      ++run;
    }
    FLOTILLA_RETURN_NOT_OK(builder->AppendArraySlice(values, start, run));
    i += run;
  }
  return builder->Finish();
}

template <typename IndexT>
Result<Array> GatherTyped(const Array& values, const Array& indices, MemoryPool* pool) {
  const Positions<IndexT> pos(indices);
  const DataType& type = *values.type();
  switch (type.id()) {
    case TypeId::kNull:
      return Array::MakeNull(values.type(), pos.length);
    case TypeId::kList:
    case TypeId::kFixedSizeList:
      return GatherWithBuilder(values, pos, pool);
    case TypeId::kDictionary: {
      FLOTILLA_ASSIGN_OR_RETURN(Array idx, Gather(DictionaryIndices(values), indices, pool));
      return WithDictionary(values.type(), idx, values.data()->dictionary);
    }
    default:
      break;
  }
  auto out = std::make_shared<ArrayData>();
  out->type = values.type();
  out->length = pos.length;
  out->buffers.resize(NumBuffers(type));
  FLOTILLA_ASSIGN_OR_RETURN(out->buffers[0], GatherValidity(values, pos, pool, &out->null_count));
  switch (type.id()) {
    case TypeId::kBool:
      FLOTILLA_RETURN_NOT_OK(GatherBool(values, pos, pool, out.get()));
      break;
    case TypeId::kString:
    case TypeId::kBinary:
      FLOTILLA_RETURN_NOT_OK((GatherBinary<int32_t>(values, pos, pool, out.get())));
      break;
    case TypeId::kLargeString:
    case TypeId::kLargeBinary:
      FLOTILLA_RETURN_NOT_OK((GatherBinary<int64_t>(values, pos, pool, out.get())));
      break;
    case TypeId::kStruct:
      // Each field is gathered by the same positions; the struct's own validity is above.
      for (int f = 0; f < values.num_children(); ++f) {
        FLOTILLA_ASSIGN_OR_RETURN(Array child, Gather(values.field(f), indices, pool));
        out->children.push_back(child.data());
      }
      break;
    default:
      if (!type.is_fixed_width()) {
        return Status::NotImplemented("gathering rows of " + type.ToString());
      }
      FLOTILLA_RETURN_NOT_OK(GatherFixedWidth(values, pos, pool, out.get()));
  }
  return Array(std::move(out));
}

}  // namespace

namespace {

template <typename IndexT>
std::optional<std::vector<GatherRun>> RunsOf(const Array& indices, int64_t max_runs) {
  const IndexT* idx = indices.values<IndexT>();
  const int64_t n = indices.length();
  std::vector<GatherRun> runs;
  int64_t begin = 0;
  for (int64_t i = 1; i <= n; ++i) {
    if (i < n && static_cast<int64_t>(idx[i]) == static_cast<int64_t>(idx[i - 1]) + 1) continue;
    if (static_cast<int64_t>(runs.size()) == max_runs) return std::nullopt;
    runs.push_back({static_cast<int64_t>(idx[begin]), i - begin});
    begin = i;
  }
  return runs;
}

// The bits of `runs` (from bit `offset` of `src`), one run after another into `dst`.
void CopyBitsByRuns(const uint8_t* src, int64_t offset, const std::vector<GatherRun>& runs,
                    uint8_t* dst) {
  int64_t row = 0;
  for (const GatherRun& run : runs) {
    bit_util::CopyBitmap(src, offset + run.start, run.length, dst, row);
    row += run.length;
  }
}

template <typename Offset>
Status GatherBinaryRuns(const Array& values, const std::vector<GatherRun>& runs, int64_t length,
                        MemoryPool* pool, ArrayData* out) {
  const Offset* in_off = values.data()->buffers[1]->data_as<Offset>() + values.offset();
  FLOTILLA_ASSIGN_OR_RETURN(out->buffers[1], Buffer::Allocate((length + 1) * sizeof(Offset), pool));
  Offset* out_off = reinterpret_cast<Offset*>(out->buffers[1]->mutable_data());
  int64_t total = 0;
  for (const GatherRun& run : runs)
    total += static_cast<int64_t>(in_off[run.start + run.length]) - in_off[run.start];
  if (sizeof(Offset) == 4 && total > INT32_MAX) return StringsTooLarge(values, length);
  FLOTILLA_ASSIGN_OR_RETURN(out->buffers[2], Buffer::Allocate(total, pool));
  const BufferPtr& in_data = values.data()->buffers[2];
  const uint8_t* src = in_data ? in_data->data() : nullptr;
  uint8_t* dst = out->buffers[2]->mutable_data();
  int64_t row = 0;
  Offset at = 0;
  for (const GatherRun& run : runs) {
    const Offset first = in_off[run.start];
    for (int64_t k = 0; k < run.length; ++k)
      out_off[row + k] = static_cast<Offset>(at + (in_off[run.start + k] - first));
    const Offset bytes = in_off[run.start + run.length] - first;
    if (bytes > 0) std::memcpy(dst + at, src + first, static_cast<size_t>(bytes));
    at = static_cast<Offset>(at + bytes);
    row += run.length;
  }
  out_off[length] = at;
  return Status::OK();
}

}  // namespace

std::optional<std::vector<GatherRun>> ConsecutiveRuns(const Array& indices, int64_t max_runs) {
  if (indices.null_count() != 0 || indices.length() == 0) return std::nullopt;
  switch (indices.type_id()) {
    case TypeId::kInt32:
      return RunsOf<int32_t>(indices, max_runs);
    case TypeId::kUInt32:
      return RunsOf<uint32_t>(indices, max_runs);
    case TypeId::kInt64:
      return RunsOf<int64_t>(indices, max_runs);
    case TypeId::kUInt64:
      return RunsOf<uint64_t>(indices, max_runs);
    default:
      return std::nullopt;
  }
}

bool GathersByRuns(const DataType& type) {
  switch (type.id()) {
    case TypeId::kNull:
    case TypeId::kList:
    case TypeId::kFixedSizeList:
    case TypeId::kStruct:
    case TypeId::kDictionary:
      return false;
    default:
      return type.is_binary_like() || type.is_fixed_width();
  }
}

Result<Array> GatherRuns(const Array& values, const std::vector<GatherRun>& runs, int64_t length,
                         MemoryPool* pool) {
  const DataType& type = *values.type();
  auto out = std::make_shared<ArrayData>();
  out->type = values.type();
  out->length = length;
  out->buffers.resize(NumBuffers(type));
  const int64_t offset = values.offset();
  if (values.null_count() != 0 && values.validity() != nullptr) {
    FLOTILLA_ASSIGN_OR_RETURN(out->buffers[0],
                              Buffer::AllocateZeroed(bit_util::BytesForBits(length), pool));
    uint8_t* bits = out->buffers[0]->mutable_data();
    CopyBitsByRuns(values.validity(), offset, runs, bits);
    out->null_count = length - bit_util::CountSetBits(bits, 0, length);
    if (out->null_count == 0) out->buffers[0] = nullptr;
  }
  if (type.id() == TypeId::kBool) {
    FLOTILLA_ASSIGN_OR_RETURN(out->buffers[1],
                              Buffer::AllocateZeroed(bit_util::BytesForBits(length), pool));
    CopyBitsByRuns(values.raw_values(), offset, runs, out->buffers[1]->mutable_data());
  } else if (type.id() == TypeId::kString || type.id() == TypeId::kBinary) {
    FLOTILLA_RETURN_NOT_OK(GatherBinaryRuns<int32_t>(values, runs, length, pool, out.get()));
  } else if (type.id() == TypeId::kLargeString || type.id() == TypeId::kLargeBinary) {
    FLOTILLA_RETURN_NOT_OK(GatherBinaryRuns<int64_t>(values, runs, length, pool, out.get()));
  } else {
    const int64_t w = type.byte_width();
    FLOTILLA_ASSIGN_OR_RETURN(out->buffers[1], Buffer::Allocate(length * w, pool));
    const uint8_t* in = values.raw_values() + offset * w;
    uint8_t* dst = out->buffers[1]->mutable_data();
    for (const GatherRun& run : runs) {
      std::memcpy(dst, in + run.start * w, static_cast<size_t>(run.length * w));
      dst += run.length * w;
    }
  }
  return Array(std::move(out));
}

Result<Array> Gather(const Array& values, const Array& indices, MemoryPool* pool) {
  switch (indices.type_id()) {
    case TypeId::kInt32:
      return GatherTyped<int32_t>(values, indices, pool);
    case TypeId::kUInt32:
      return GatherTyped<uint32_t>(values, indices, pool);
    case TypeId::kInt64:
      return GatherTyped<int64_t>(values, indices, pool);
    case TypeId::kUInt64:
      return GatherTyped<uint64_t>(values, indices, pool);
    default:
      return Status::Internal("Gather called with indices of type " + indices.type()->ToString());
  }
}

}  // namespace flotilla::compute::internal
