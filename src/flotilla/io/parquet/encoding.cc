#include "flotilla/io/parquet/encoding.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "flotilla/common/bit_util.h"

namespace flotilla::io::parquet {

namespace {

bool ReadUleb(const uint8_t** pos, const uint8_t* end, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= end) return false;
    const uint8_t b = *(*pos)++;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      *out = v;
      return true;
    }
  }
  return false;
}

void WriteUleb(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

int64_t ZigZagDecode(uint64_t v) {
  return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
}
uint64_t ZigZagEncode(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

// Eight W-bit values (one group: W bytes) with every shift and offset a constant, value J from
// one 8-byte load at byte J * W / 8.
template <int W, size_t... J>
void UnpackGroup(const uint8_t* p, uint32_t* out, std::index_sequence<J...>) {
  constexpr uint64_t kMask = (uint64_t{1} << W) - 1;
  auto value = [p](size_t j) {
    uint64_t word;
    std::memcpy(&word, p + j * W / 8, 8);
    return static_cast<uint32_t>((word >> (j * W % 8)) & kMask);
  };
  ((out[J] = value(J)), ...);
}

template <int W>
void UnpackGroups(const uint8_t* in, int64_t groups, uint32_t* out) {
  for (int64_t g = 0; g < groups; ++g)
    UnpackGroup<W>(in + g * W, out + g * 8, std::make_index_sequence<8>());
}

template <size_t... W>
constexpr auto MakeGroupUnpackers(std::index_sequence<W...>) {
  using Fn = void (*)(const uint8_t*, int64_t, uint32_t*);
  return std::array<Fn, sizeof...(W)>{&UnpackGroups<static_cast<int>(W) + 1>...};
}

template <typename Out>
void UnpackBitsImpl(const uint8_t* in, int bit_width, int64_t count, Out* out) {
  if (bit_width == 0) {
    std::fill(out, out + count, Out{0});
    return;
  }
  const int64_t total_bytes = (count * bit_width + 7) / 8;
  const uint64_t mask = bit_width >= 64 ? ~uint64_t{0} : (uint64_t{1} << bit_width) - 1;
  int64_t i = 0;
  if constexpr (std::is_same_v<Out, uint32_t>) {
    // Whole groups whose last 8-byte load ends inside the input, by the width's own unrolled
    // loop (dictionary indices and levels are almost always unpacked here).
    if (bit_width <= 32 && total_bytes >= 8 + bit_width) {
      static constexpr auto kUnpackers = MakeGroupUnpackers(std::make_index_sequence<32>());
      const int64_t groups =
          std::min(count / 8, (total_bytes - 8 - 7 * bit_width / 8) / bit_width + 1);
      kUnpackers[static_cast<size_t>(bit_width - 1)](in, groups, out);
      i = groups * 8;
    }
  }
  if (bit_width <= 56 && total_bytes >= 8) {
    // Values whose whole 8-byte load lies inside the input: a fixed-size load each (the shift
    // plus the width stays within 63 bits).
    const int64_t fast = std::min(count, ((total_bytes - 7) * 8 - 1) / bit_width + 1);
    for (; i < fast; ++i) {
      const int64_t bit = i * bit_width;
      uint64_t word;
      std::memcpy(&word, in + (bit >> 3), 8);
      out[i] = static_cast<Out>((word >> (bit & 7)) & mask);
    }
  }
  for (; i < count; ++i) {
    const int64_t bit = i * bit_width;
    const int64_t byte = bit >> 3;
    const int shift = static_cast<int>(bit & 7);
    uint64_t word = 0;
    // Up to 64 + 7 bits may be needed: load 8 bytes (fewer at the end), then the ninth.
    const int64_t avail = std::min<int64_t>(8, total_bytes - byte);
    std::memcpy(&word, in + byte, static_cast<size_t>(avail));
    uint64_t v = word >> shift;
    if (shift + bit_width > 64 && byte + 8 < total_bytes)
      v |= static_cast<uint64_t>(in[byte + 8]) << (64 - shift);
    out[i] = static_cast<Out>(v & mask);
  }
}

}  // namespace

void UnpackBits(const uint8_t* in, int bit_width, int64_t count, uint32_t* out) {
  UnpackBitsImpl(in, bit_width, count, out);
}
void UnpackBits64(const uint8_t* in, int bit_width, int64_t count, uint64_t* out) {
  UnpackBitsImpl(in, bit_width, count, out);
}

int BitWidthFor(uint64_t max_value) {
  int bits = 0;
  while (max_value != 0) {
    ++bits;
    max_value >>= 1;
  }
  return bits;
}

// --- RLE / bit-packed hybrid -------------------------------------------------------------------

Status RleDecoder::NextRun() {
  uint64_t header;
  if (!ReadUleb(&pos_, end_, &header)) return Status::Invalid("truncated RLE run header");
  if (header & 1) {
    const uint64_t groups = header >> 1;
    const uint64_t bytes = groups * static_cast<uint64_t>(bit_width_);
    if (groups > (uint64_t{1} << 40) || bytes > static_cast<uint64_t>(end_ - pos_)) {
      // The last run of a page may be cut short by its writer: take the values that are there.
      const int64_t avail = end_ - pos_;
      if (bit_width_ == 0 || avail <= 0) return Status::Invalid("bit-packed run past the end");
      packed_left_ = avail * 8 / bit_width_;
      packed_ = pos_;
      packed_index_ = 0;
      pos_ = end_;
      return Status::OK();
    }
    packed_left_ = static_cast<int64_t>(groups * 8);
    packed_ = pos_;
    packed_index_ = 0;
    pos_ += bytes;
  } else {
    rle_left_ = static_cast<int64_t>(header >> 1);
    const int width = (bit_width_ + 7) / 8;
    if (end_ - pos_ < width) return Status::Invalid("truncated RLE run value");
    uint32_t v = 0;
    std::memcpy(&v, pos_, static_cast<size_t>(width));
    pos_ += width;
    if (bit_width_ < 32 && (v >> bit_width_) != 0)
      return Status::Invalid("RLE value " + std::to_string(v) + " wider than " +
                             std::to_string(bit_width_) + " bits");
    rle_value_ = v;
  }
  return Status::OK();
}

template <typename Repeated, typename Packed>
Status RleDecoder::Runs(int64_t count, Repeated&& repeated, Packed&& packed) {
  int64_t done = 0;
  while (done < count) {
    if (rle_left_ > 0) {
      const int64_t n = std::min(rle_left_, count - done);
      repeated(done, n);
      rle_left_ -= n;
      done += n;
    } else if (packed_left_ > 0) {
      const int64_t n = std::min(packed_left_, count - done);
      packed(done, n);
      packed_index_ += n;
      packed_left_ -= n;
      done += n;
    } else {
      if (pos_ >= end_)
        return Status::Invalid("RLE data holds " + std::to_string(done) + " of " +
                               std::to_string(count) + " values");
      FLOTILLA_RETURN_NOT_OK(NextRun());
    }
  }
  return Status::OK();
}

Status RleDecoder::Decode(uint32_t* out, int64_t count) {
  if (bit_width_ > 32) return Status::Invalid("RLE bit width " + std::to_string(bit_width_));
  return Runs(
      count, [&](int64_t done, int64_t n) { std::fill(out + done, out + done + n, rle_value_); },
      [&](int64_t done, int64_t n) {
        // Unpack from the run's start at packed_index_: whole-byte aligned when the index is a
        // multiple of 8 (bit_width * 8 bits is a whole number of bytes).
        if ((packed_index_ & 7) == 0) {
          UnpackBits(packed_ + packed_index_ / 8 * bit_width_, bit_width_, n, out + done);
          return;
        }
        const int64_t base = packed_index_ & ~int64_t{7};
        std::vector<uint32_t> tmp(static_cast<size_t>(packed_index_ - base + n));
        UnpackBits(packed_ + base / 8 * bit_width_, bit_width_, static_cast<int64_t>(tmp.size()),
                   tmp.data());
        std::copy(tmp.begin() + (packed_index_ - base), tmp.end(), out + done);
      });
}

Status RleDecoder::DecodeLevels(int16_t* out, int64_t count) {
  constexpr int64_t kChunk = 1024;
  uint32_t tmp[kChunk];
  for (int64_t done = 0; done < count; done += kChunk) {
    const int64_t n = std::min(kChunk, count - done);
    FLOTILLA_RETURN_NOT_OK(Decode(tmp, n));
    for (int64_t i = 0; i < n; ++i)
      out[done + i] = static_cast<int16_t>(tmp[i]);
  }
  return Status::OK();
}

Result<int64_t> RleDecoder::DecodeBits(uint8_t* bits, int64_t offset, int64_t count) {
  if (bit_width_ != 1)
    return Status::Invalid("bitmap decoding of " + std::to_string(bit_width_) + "-bit values");
  FLOTILLA_RETURN_NOT_OK(Runs(
      count,
      [&](int64_t done, int64_t n) {
        bit_util::SetBitsTo(bits, offset + done, n, rle_value_ != 0);
      },
      // One-bit values packed LSB first are a bitmap already.
      [&](int64_t done, int64_t n) {
        bit_util::CopyBitmap(packed_, packed_index_, n, bits, offset + done);
      }));
  return bit_util::CountSetBits(bits, offset, count);
}

namespace {

// Packs `count` values LSB-first and pads with zero values up to `padded` (bit_width <= 32, so
// the accumulator never holds more than 39 bits).
void PackBits(const uint32_t* values, int64_t count, int64_t padded, int bit_width,
              std::string* out) {
  const size_t start = out->size();
  out->resize(start + static_cast<size_t>((padded * bit_width + 7) / 8), '\0');
  auto* dst = reinterpret_cast<uint8_t*>(out->data() + start);
  uint64_t acc = 0;
  int bits = 0;
  for (int64_t i = 0; i < count; ++i) {
    acc |= static_cast<uint64_t>(values[i]) << bits;
    bits += bit_width;
    while (bits >= 8) {
      *dst++ = static_cast<uint8_t>(acc);
      acc >>= 8;
      bits -= 8;
    }
  }
  if (bits > 0) *dst = static_cast<uint8_t>(acc);  // the padding values are zeros already
}

}  // namespace

void RleEncode(const uint32_t* values, int64_t count, int bit_width, std::string* out) {
  const int width = (bit_width + 7) / 8;
  int64_t i = 0;
  // Runs of 8 or more equal values become RLE runs; everything between them is bit-packed in
  // groups of 8 (the last group padded with zeros).
  while (i < count) {
    int64_t run = 1;
    while (i + run < count && values[i + run] == values[i])
      ++run;
    if (run >= 8) {
      WriteUleb(static_cast<uint64_t>(run) << 1, out);
      out->append(reinterpret_cast<const char*>(&values[i]), static_cast<size_t>(width));
      i += run;
      continue;
    }
    // Bit-pack whole groups of 8 from i until a group boundary where a run of 8 starts.
    int64_t j = i;
    while (j < count) {
      j = std::min(count, j + 8);
      if (j >= count) break;
      int64_t r = 1;
      while (j + r < count && values[j + r] == values[j] && r < 8)
        ++r;
      if (r >= 8) break;
    }
    const int64_t n = j - i;
    const int64_t groups = (n + 7) / 8;
    WriteUleb((static_cast<uint64_t>(groups) << 1) | 1, out);
    PackBits(values + i, n, groups * 8, bit_width, out);
    i = j;
  }
}

void RleEncodeLevels(const int16_t* values, int64_t count, int bit_width, std::string* out) {
  std::vector<uint32_t> v(values, values + count);
  RleEncode(v.data(), count, bit_width, out);
}

// --- DELTA_BINARY_PACKED ---------------------------------------------------------------------

template <typename T>
Status DeltaBinaryPackedDecode(const uint8_t* data, int64_t size, std::vector<T>* out,
                               int64_t* consumed) {
  // Deltas of an int32 column may take 33 bits: add in 64 bits, keep the low bits of the sum.
  using U = uint64_t;
  const uint8_t* pos = data;
  const uint8_t* end = data + size;
  uint64_t block_size, miniblocks, total, first;
  if (!ReadUleb(&pos, end, &block_size) || !ReadUleb(&pos, end, &miniblocks) ||
      !ReadUleb(&pos, end, &total) || !ReadUleb(&pos, end, &first))
    return Status::Invalid("truncated DELTA_BINARY_PACKED header");
  if (block_size == 0 || block_size % 128 != 0 || miniblocks == 0 || block_size % miniblocks != 0 ||
      (block_size / miniblocks) % 32 != 0 || block_size > (1u << 20))
    return Status::Invalid("bad DELTA_BINARY_PACKED block size " + std::to_string(block_size) +
                           " with " + std::to_string(miniblocks) + " miniblocks");
  // A block of values takes at least its min delta and widths, so a count beyond that bound is
  // corrupt (and must not size an allocation).
  if (total > (static_cast<uint64_t>(size) + 1) * block_size)
    return Status::Invalid("DELTA_BINARY_PACKED claims " + std::to_string(total) + " values in " +
                           std::to_string(size) + " bytes");
  const uint64_t per_mini = block_size / miniblocks;
  out->reserve(out->size() + std::min<uint64_t>(total, 1 << 20));
  U value = static_cast<U>(ZigZagDecode(first));
  if (total > 0) out->push_back(static_cast<T>(value));
  uint64_t left = total > 0 ? total - 1 : 0;
  std::vector<uint64_t> deltas(per_mini);
  while (left > 0) {
    uint64_t min_raw;
    if (!ReadUleb(&pos, end, &min_raw)) return Status::Invalid("truncated DELTA block header");
    const U min_delta = static_cast<U>(ZigZagDecode(min_raw));
    if (static_cast<uint64_t>(end - pos) < miniblocks)
      return Status::Invalid("truncated DELTA miniblock widths");
    const uint8_t* widths = pos;
    pos += miniblocks;
    for (uint64_t m = 0; m < miniblocks && left > 0; ++m) {
      const int width = widths[m];
      if (width > 64) return Status::Invalid("DELTA miniblock bit width " + std::to_string(width));
      const uint64_t bytes = per_mini * static_cast<uint64_t>(width) / 8;
      if (static_cast<uint64_t>(end - pos) < bytes)
        return Status::Invalid("truncated DELTA miniblock");
      UnpackBits64(pos, width, static_cast<int64_t>(per_mini), deltas.data());
      pos += bytes;
      const uint64_t n = std::min(left, per_mini);
      for (uint64_t i = 0; i < n; ++i) {
        value = static_cast<U>(value + min_delta + static_cast<U>(deltas[i]));
        out->push_back(static_cast<T>(value));
      }
      left -= n;
    }
  }
  if (consumed != nullptr) *consumed = pos - data;
  return Status::OK();
}

template <typename T>
void DeltaBinaryPackedEncode(const T* values, int64_t count, std::string* out) {
  using U = std::make_unsigned_t<T>;
  constexpr uint64_t kBlock = 128, kMinis = 4, kPerMini = kBlock / kMinis;
  WriteUleb(kBlock, out);
  WriteUleb(kMinis, out);
  WriteUleb(static_cast<uint64_t>(count), out);
  WriteUleb(ZigZagEncode(count > 0 ? static_cast<int64_t>(values[0]) : 0), out);
  std::vector<int64_t> deltas;
  for (int64_t start = 1; start < count; start += kBlock) {
    const int64_t n = std::min<int64_t>(kBlock, count - start);
    deltas.assign(static_cast<size_t>(n), 0);
    int64_t min_delta = std::numeric_limits<int64_t>::max();
    for (int64_t i = 0; i < n; ++i) {
      // Deltas wrap in the column's width, as the decoder adds them back.
      const U d =
          static_cast<U>(static_cast<U>(values[start + i]) - static_cast<U>(values[start + i - 1]));
      deltas[i] = static_cast<int64_t>(static_cast<T>(d));
      min_delta = std::min(min_delta, deltas[i]);
    }
    WriteUleb(ZigZagEncode(min_delta), out);
    const size_t widths_at = out->size();
    out->append(kMinis, '\0');
    for (uint64_t m = 0; m < kMinis; ++m) {
      const int64_t lo = static_cast<int64_t>(m * kPerMini);
      if (lo >= n) break;  // unneeded miniblocks: width 0, no bytes
      uint64_t packed[kPerMini] = {};
      uint64_t max = 0;
      for (int64_t i = lo; i < std::min<int64_t>(n, lo + kPerMini); ++i) {
        packed[i - lo] = static_cast<U>(static_cast<U>(deltas[i]) - static_cast<U>(min_delta));
        max = std::max(max, packed[i - lo]);
      }
      const int width = BitWidthFor(max);
      (*out)[widths_at + m] = static_cast<char>(width);
      const size_t at = out->size();
      out->resize(at + kPerMini * width / 8, '\0');
      auto* dst = reinterpret_cast<uint8_t*>(out->data() + at);
      for (uint64_t i = 0; i < kPerMini; ++i) {
        for (int b = 0; b < width; ++b) {
          const uint64_t bit = i * width + b;
          if ((packed[i] >> b) & 1) dst[bit >> 3] |= static_cast<uint8_t>(1u << (bit & 7));
        }
      }
    }
  }
}

template Status DeltaBinaryPackedDecode<int32_t>(const uint8_t*, int64_t, std::vector<int32_t>*,
                                                 int64_t*);
template Status DeltaBinaryPackedDecode<int64_t>(const uint8_t*, int64_t, std::vector<int64_t>*,
                                                 int64_t*);
template void DeltaBinaryPackedEncode<int32_t>(const int32_t*, int64_t, std::string*);
template void DeltaBinaryPackedEncode<int64_t>(const int64_t*, int64_t, std::string*);

// --- byte arrays -------------------------------------------------------------------------------

Status DeltaLengthByteArrayDecode(const uint8_t* data, int64_t size, int64_t expected,
                                  ByteArrays* out) {
  std::vector<int32_t> lengths;
  int64_t used = 0;
  FLOTILLA_RETURN_NOT_OK(DeltaBinaryPackedDecode(data, size, &lengths, &used));
  if (static_cast<int64_t>(lengths.size()) < expected)
    return Status::Invalid("DELTA_LENGTH_BYTE_ARRAY holds " + std::to_string(lengths.size()) +
                           " lengths, the page " + std::to_string(expected) + " values");
  const uint8_t* bytes = data + used;
  int64_t left = size - used;
  for (int64_t i = 0; i < expected; ++i) {
    const int32_t n = lengths[i];
    if (n < 0 || n > left) return Status::Invalid("DELTA_LENGTH_BYTE_ARRAY value past the end");
    out->data.append(reinterpret_cast<const char*>(bytes), static_cast<size_t>(n));
    out->offsets.push_back(static_cast<int64_t>(out->data.size()));
    bytes += n;
    left -= n;
  }
  return Status::OK();
}

Status DeltaByteArrayDecode(const uint8_t* data, int64_t size, int64_t expected, ByteArrays* out) {
  std::vector<int32_t> prefixes;
  int64_t used = 0;
  FLOTILLA_RETURN_NOT_OK(DeltaBinaryPackedDecode(data, size, &prefixes, &used));
  if (static_cast<int64_t>(prefixes.size()) < expected)
    return Status::Invalid("DELTA_BYTE_ARRAY holds " + std::to_string(prefixes.size()) +
                           " prefixes, the page " + std::to_string(expected) + " values");
  ByteArrays suffixes;
  FLOTILLA_RETURN_NOT_OK(DeltaLengthByteArrayDecode(data + used, size - used, expected, &suffixes));
  std::string previous;
  for (int64_t i = 0; i < expected; ++i) {
    const int32_t prefix = prefixes[i];
    if (prefix < 0 || static_cast<size_t>(prefix) > previous.size())
      return Status::Invalid("DELTA_BYTE_ARRAY prefix " + std::to_string(prefix) +
                             " longer than the previous value");
    previous.resize(static_cast<size_t>(prefix));
    previous.append(suffixes.data, static_cast<size_t>(suffixes.offsets[i]),
                    static_cast<size_t>(suffixes.offsets[i + 1] - suffixes.offsets[i]));
    out->data += previous;
    out->offsets.push_back(static_cast<int64_t>(out->data.size()));
  }
  return Status::OK();
}

Status ByteStreamSplitDecode(const uint8_t* data, int64_t size, int width, int64_t count,
                             uint8_t* out) {
  if (size < count * width)
    return Status::Invalid("BYTE_STREAM_SPLIT data of " + std::to_string(size) + " bytes for " +
                           std::to_string(count) + " values of " + std::to_string(width));
  // The streams are laid out for the page's whole value count, which is size / width.
  const int64_t stride = size / width;
  for (int64_t i = 0; i < count; ++i) {
    for (int j = 0; j < width; ++j)
      out[i * width + j] = data[j * stride + i];
  }
  return Status::OK();
}

}  // namespace flotilla::io::parquet
