#include "flotilla/compute/filter.h"

#include <fmt/format.h>

#include <bit>
#include <cstring>

#include "flotilla/compute/gather.h"

namespace flotilla::compute {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the word-at-a-time bitmap reader assumes a little-endian machine");

// Reads 64 bits of an LSB-first bitmap starting at any bit position. Reads only bytes below
// `size` (buffers that wrap foreign memory may have no padding).
class BitWordReader {
 public:
  BitWordReader(const uint8_t* bits, int64_t size) : bits_(bits), size_(size) {}
  uint64_t Read(int64_t bit_pos, int64_t nbits) const {
    const int64_t byte = bit_pos >> 3;
    const int shift = static_cast<int>(bit_pos & 7);
    uint64_t word;
    if (byte + 9 <= size_) {
      std::memcpy(&word, bits_ + byte, 8);
      word >>= shift;
      if (shift) word |= static_cast<uint64_t>(bits_[byte + 8]) << (64 - shift);
    } else {
      word = 0;  // the tail: gather the few remaining bits one by one
      for (int64_t i = 0; i < nbits; ++i) {
        word |= static_cast<uint64_t>(bit_util::GetBit(bits_, bit_pos + i)) << i;
      }
    }
    return nbits == 64 ? word : word & ((uint64_t{1} << nbits) - 1);
  }

 private:
  const uint8_t* bits_;
  int64_t size_;
};

Status CheckMask(const Array& mask, int64_t length) {
  if (!mask.valid()) return Status::Invalid("Filter: the mask array is missing");
  if (mask.type_id() != TypeId::kBool) {
    return Status::TypeError(fmt::format(
        "Filter: the mask must be bool, got {}; compare the column to a value to get a mask",
        mask.type()->ToString()));
  }
  if (mask.length() != length) {
    return Status::Invalid(fmt::format(
        "Filter: the mask has {} rows but the input has {}; they must be the same length",
        mask.length(), length));
  }
  return Status::OK();
}

// Calls fn(word_index, word) for each 64-row word of (mask value AND mask validity).
template <typename Fn>
void ForEachMaskWord(const Array& mask, Fn&& fn) {
  const int64_t n = mask.length();
  if (n == 0) return;
  const BufferPtr& values = mask.data()->buffers[1];
  BitWordReader value_reader(values->data(), values->size());
  const uint8_t* validity = mask.null_count() > 0 ? mask.validity() : nullptr;
  BitWordReader valid_reader(validity, validity ? mask.data()->buffers[0]->size() : 0);
  for (int64_t base = 0; base < n; base += 64) {
    const int64_t nbits = std::min<int64_t>(64, n - base);
    uint64_t word = value_reader.Read(mask.offset() + base, nbits);
    if (validity) word &= valid_reader.Read(mask.offset() + base, nbits);
    fn(base, word);
  }
}

template <typename Pos>
Result<Array> BuildPositions(const Array& mask, int64_t count, const TypePtr& type,
                             MemoryPool* pool) {
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr buffer, Buffer::Allocate(count * sizeof(Pos), pool));
  Pos* out = reinterpret_cast<Pos*>(buffer->mutable_data());
  int64_t k = 0;
  ForEachMaskWord(mask, [&](int64_t base, uint64_t word) {
    if (word == ~uint64_t{0}) {  // dense words are common in selective-but-clustered masks
      for (int i = 0; i < 64; ++i)
        out[k++] = static_cast<Pos>(base + i);
      return;
    }
    while (word) {
      out[k++] = static_cast<Pos>(base + std::countr_zero(word));
      word &= word - 1;
    }
  });
  auto d = std::make_shared<ArrayData>();
  d->type = type;
  d->length = count;
  d->buffers = {nullptr, std::move(buffer)};
  return Array(std::move(d));
}

Result<Array> PositionsFromMask(const Array& mask, int64_t count, MemoryPool* pool) {
  if (mask.length() <= static_cast<int64_t>(UINT32_MAX)) {
    return BuildPositions<uint32_t>(mask, count, uint32(), pool);
  }
  return BuildPositions<uint64_t>(mask, count, uint64(), pool);
}

}  // namespace

int64_t CountSelected(const Array& mask) {
  int64_t count = 0;
  ForEachMaskWord(mask, [&](int64_t, uint64_t word) { count += std::popcount(word); });
  return count;
}

Result<Array> SelectedPositions(const Array& mask, MemoryPool* pool) {
  FLOTILLA_RETURN_NOT_OK(CheckMask(mask, mask.valid() ? mask.length() : 0));
  return PositionsFromMask(mask, CountSelected(mask), pool);
}

Result<Array> Filter(const Array& values, const Array& mask, MemoryPool* pool) {
  FLOTILLA_RETURN_NOT_OK(CheckMask(mask, values.length()));
  const int64_t count = CountSelected(mask);
  if (count == values.length()) return values;
  FLOTILLA_ASSIGN_OR_RETURN(Array positions, PositionsFromMask(mask, count, pool));
  return internal::Gather(values, positions, pool);
}

Result<RecordBatch> Filter(const RecordBatch& batch, const Array& mask, MemoryPool* pool) {
  FLOTILLA_RETURN_NOT_OK(CheckMask(mask, batch.num_rows()));
  const int64_t count = CountSelected(mask);
  if (count == batch.num_rows()) return batch;
  FLOTILLA_ASSIGN_OR_RETURN(Array positions, PositionsFromMask(mask, count, pool));
  std::vector<Array> columns;
  columns.reserve(batch.num_columns());
  for (const Array& column : batch.columns()) {
    FLOTILLA_ASSIGN_OR_RETURN(Array selected, internal::Gather(column, positions, pool));
    columns.push_back(std::move(selected));
  }
  return RecordBatch::Make(batch.schema(), std::move(columns), count);
}

}  // namespace flotilla::compute
