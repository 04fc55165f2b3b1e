#include "flotilla/exec/hash/batch_groups.h"

#include <bit>
#include <cstring>
#include <optional>

#include "flotilla/exec/hash/key_columns.h"

namespace flotilla::exec::key_table_internal {
namespace {

constexpr size_t kMaxColumns = 4;
constexpr int64_t kMaxStringBytes = 7;  // the 8th byte of the word holds the length
constexpr uint32_t kEmptySlot = UINT32_MAX;

// How a column of `type` packs: as its key table column normalizes it, when that is a fixed
// width of at most 8 bytes (taken as it is) or a string; nullopt for the rest (a dictionary,
// whose values are elsewhere; floats and bools, which need canonical values; wider values).
std::optional<Kind> PackedKind(const TypePtr& type) {
  if (type->id() == TypeId::kDictionary) return std::nullopt;
  Result<Column> column = DescribeColumn(type, 0);
  if (!column.ok()) return std::nullopt;
  if (column->kind == Kind::kFixed && column->width <= 8) return Kind::kFixed;
  if (IsBinary(*column)) return column->kind;
  return std::nullopt;
}

void PackFixed(const Array& a, int64_t n, size_t stride, uint64_t* out) {
  const int width = a.type()->byte_width();
  const uint8_t* values = a.raw_values() + a.offset() * width;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t word = 0;
    std::memcpy(&word, values + i * width, static_cast<size_t>(width));
    out[i * stride] = word;
  }
}

// The bytes in the low 7 bytes, the length in the top one; false when a value is longer.
template <typename Offset>
bool PackBinary(const Array& a, int64_t n, size_t stride, uint64_t* out) {
  const Offset* offsets = a.values<Offset>();
  for (int64_t i = 0; i < n; ++i) {
    if (offsets[i + 1] - offsets[i] > kMaxStringBytes) return false;
  }
  const BufferPtr& data = a.data()->buffers[2];
  const uint8_t* bytes = data ? data->data() : nullptr;
  const int64_t size = data ? data->size() : 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t start = offsets[i];
    const auto length = static_cast<uint64_t>(offsets[i + 1] - start);
    uint64_t word = 0;
    if (start + 8 <= size) {
      // One load, masked to the value's bytes, in place of a memcpy of variable length.
      std::memcpy(&word, bytes + start, 8);
      word &= (uint64_t{1} << (8 * length)) - 1;
    } else if (length > 0) {
      std::memcpy(&word, bytes + start, length);
    }
    out[i * stride] = word | (length << 56);
  }
  return true;
}

uint64_t HashWords(const uint64_t* words, size_t count) {
  uint64_t h = 0x9E3779B97F4A7C15ULL;
  for (size_t c = 0; c < count; ++c) {
    h = (h ^ words[c]) * 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 31;
  }
  return h ^ (h >> 29);
}

bool SameWords(const uint64_t* a, const uint64_t* b, size_t count) {
  for (size_t c = 0; c < count; ++c) {
    if (a[c] != b[c]) return false;
  }
  return true;
}

}  // namespace

bool KeysMayPack(const std::vector<TypePtr>& key_types) {
  if (key_types.empty() || key_types.size() > kMaxColumns) return false;
  for (const TypePtr& t : key_types) {
    if (!PackedKind(t)) return false;
  }
  return true;
}

bool BatchGroups::Pack(const std::vector<Array>& keys, int64_t n) {
  if (keys.size() > kMaxColumns) return false;
  const size_t stride = keys.size();
  words_.resize(static_cast<size_t>(n) * stride);
  for (size_t c = 0; c < keys.size(); ++c) {
    const Array& a = keys[c];
    if (a.validity() != nullptr && a.null_count() != 0) return false;
    const std::optional<Kind> kind = PackedKind(a.type());
    uint64_t* out = words_.data() + c;
    if (kind == Kind::kFixed) {
      PackFixed(a, n, stride, out);
    } else if (kind == Kind::kBinary) {
      if (!PackBinary<int32_t>(a, n, stride, out)) return false;
    } else if (kind == Kind::kLargeBinary) {
      if (!PackBinary<int64_t>(a, n, stride, out)) return false;
    } else {
      return false;
    }
  }
  return true;
}

BatchGroups::Outcome BatchGroups::Group(const std::vector<Array>& keys, int64_t max_groups) {
  const int64_t n = keys[0].length();
  if (!Pack(keys, n)) return Outcome::kNotPacked;
  const size_t stride = keys.size();
  // At most a quarter full, so probes stay short.
  const size_t capacity = std::bit_ceil(static_cast<size_t>(4 * max_groups));
  slots_.assign(capacity, kEmptySlot);
  const size_t mask = capacity - 1;
  first_rows_.clear();
  group_of_row_.resize(static_cast<size_t>(n));
  const uint64_t* words = words_.data();
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t* row = words + i * stride;
    for (size_t at = HashWords(row, stride) & mask;; at = (at + 1) & mask) {
      const uint32_t g = slots_[at];
      if (g == kEmptySlot) {
        if (static_cast<int64_t>(first_rows_.size()) == max_groups) return Outcome::kTooMany;
        slots_[at] = static_cast<uint32_t>(first_rows_.size());
        group_of_row_[i] = slots_[at];
        first_rows_.push_back(i);
        break;
      }
      if (SameWords(words + first_rows_[g] * stride, row, stride)) {
        group_of_row_[i] = g;
        break;
      }
    }
  }
  return Outcome::kGrouped;
}

}  // namespace flotilla::exec::key_table_internal
