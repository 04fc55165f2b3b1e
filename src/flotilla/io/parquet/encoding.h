#pragma once
// Parquet's value and level encodings, decoded from page bytes (and encoded, for the writer):
// the RLE/bit-packed hybrid (levels, dictionary indices, booleans), DELTA_BINARY_PACKED,
// DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT. Every decoder checks its
// input bounds and reports a Status, never reads past the page.
#include <cstdint>
#include <string>
#include <vector>

#include "flotilla/common/result.h"

namespace flotilla::io::parquet {

/// Reads `count` values of `bit_width` bits, packed LSB first, starting at bit 0 of `in`
/// (which must hold at least ceil(count * bit_width / 8) bytes).
void UnpackBits(const uint8_t* in, int bit_width, int64_t count, uint32_t* out);
void UnpackBits64(const uint8_t* in, int bit_width, int64_t count, uint64_t* out);

/// The RLE/bit-packed hybrid: a sequence of runs, each a varint header then either one repeated
/// value (RLE) or groups of 8 bit-packed values.
class RleDecoder {
 public:
  RleDecoder(const uint8_t* data, int64_t size, int bit_width)
      : pos_(data), end_(data + size), bit_width_(bit_width) {}
  /// Decodes exactly `count` values into `out`; an error when the runs end first.
  Status Decode(uint32_t* out, int64_t count);
  /// Like Decode, for levels.
  Status DecodeLevels(int16_t* out, int64_t count);
  /// For bit width 1 (the definition levels of a flat optional column): writes `count` values
  /// as bits [offset, offset + count) of `bits`, runs at a time, and returns how many are 1.
  Result<int64_t> DecodeBits(uint8_t* bits, int64_t offset, int64_t count);

 private:
  Status NextRun();
  // Consumes `count` values run by run: repeated(done, n) for n copies of rle_value_,
  // packed(done, n) for n bit-packed values from packed_index_ (advanced afterwards).
  template <typename Repeated, typename Packed>
  Status Runs(int64_t count, Repeated&& repeated, Packed&& packed);
  const uint8_t* pos_;
  const uint8_t* end_;
  int bit_width_;
  int64_t rle_left_ = 0;
  uint32_t rle_value_ = 0;
  int64_t packed_left_ = 0;  // values left in the current bit-packed run
  const uint8_t* packed_ = nullptr;
  int64_t packed_index_ = 0;  // next value within the bit-packed run
};

/// Appends the RLE/bit-packed hybrid encoding of `values` (each < 2^bit_width) to `out`.
void RleEncode(const uint32_t* values, int64_t count, int bit_width, std::string* out);
void RleEncodeLevels(const int16_t* values, int64_t count, int bit_width, std::string* out);

/// Bits needed for values in [0, max_value].
int BitWidthFor(uint64_t max_value);

/// DELTA_BINARY_PACKED, for int32 (T = int32_t) and int64 columns. `*consumed` is set to the
/// bytes the encoded values occupy (the DELTA_*_BYTE_ARRAY encodings continue after them).
template <typename T>
Status DeltaBinaryPackedDecode(const uint8_t* data, int64_t size, std::vector<T>* out,
                               int64_t* consumed);
template <typename T>
void DeltaBinaryPackedEncode(const T* values, int64_t count, std::string* out);

/// Variable-length values as offsets (count + 1 of them, from 0) and concatenated bytes.
struct ByteArrays {
  std::vector<int64_t> offsets{0};
  std::string data;
  int64_t size() const { return static_cast<int64_t>(offsets.size()) - 1; }
};

/// DELTA_LENGTH_BYTE_ARRAY: the lengths delta-packed, then the bytes. `expected` values.
Status DeltaLengthByteArrayDecode(const uint8_t* data, int64_t size, int64_t expected,
                                  ByteArrays* out);
/// DELTA_BYTE_ARRAY (incremental): prefix lengths and suffixes.
Status DeltaByteArrayDecode(const uint8_t* data, int64_t size, int64_t expected, ByteArrays* out);

/// BYTE_STREAM_SPLIT: byte j of value i is at data[j * count + i]; `width`-byte values.
Status ByteStreamSplitDecode(const uint8_t* data, int64_t size, int width, int64_t count,
                             uint8_t* out);

}  // namespace flotilla::io::parquet
