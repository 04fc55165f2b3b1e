#include "flotilla/io/parquet/column_reader.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

#include "flotilla/columnar/buffer_builder.h"
#include "flotilla/columnar/decimal.h"
#include "flotilla/common/utf8.h"
#include "flotilla/io/parquet/codec.h"
#include "flotilla/io/parquet/encoding.h"

namespace flotilla::io::parquet {

namespace {

// A corrupt header must not turn into a huge allocation: no real codec expands a page more than
// this (zstd's best ratio on a constant page stays well below it).
int64_t MaxUncompressedPageSize(int64_t compressed) {
  return std::min<int64_t>(std::numeric_limits<int32_t>::max(), compressed * 65536 + (16 << 20));
}

constexpr int kCopySlack = 16;

// Per-thread decode buffers (decompressed page, dictionary indices), kept across chunks and
// only ever grown: a page costs no allocation and no zero-fill.
struct DecodeScratch {
  std::vector<uint8_t> page;
  std::vector<uint32_t> indices;
};
DecodeScratch& ThreadScratch() {
  thread_local DecodeScratch scratch;
  return scratch;
}
template <typename T>
T* Grown(std::vector<T>* v, int64_t n) {
  if (static_cast<int64_t>(v->size()) < n) v->resize(static_cast<size_t>(n));
  return v->data();
}

Int128 BigEndianToInt128(const uint8_t* p, int n) {
  // Sign-extend the big-endian two's complement bytes.
  unsigned __int128 v = (n > 0 && (p[0] & 0x80)) ? ~static_cast<unsigned __int128>(0) : 0;
  for (int i = 0; i < n; ++i)
    v = (v << 8) | p[i];
  return static_cast<Int128>(v);
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const int exp = (h >> 10) & 0x1f;
  const uint32_t mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      int e = -1;
      uint32_t m = mant;
      do {
        ++e;
        m <<= 1;
      } while ((m & 0x400) == 0);
      bits = sign | static_cast<uint32_t>(127 - 15 - e) << 23 | (m & 0x3ff) << 13;
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | mant << 13;
  } else {
    bits = sign | static_cast<uint32_t>(exp - 15 + 127) << 23 | mant << 13;
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// The Arrow value width of a fixed-width column: what ConvertFixed writes per value.
int ArrowWidth(const ColumnDescriptor& c) {
  const PhysicalType physical = *c.element.type;
  if (physical == PhysicalType::kBoolean || physical == PhysicalType::kByteArray ||
      c.type->id() == TypeId::kNull || c.type->byte_width() <= 0)
    return c.physical_width();
  return c.type->byte_width();
}

// n physical values at src as the column's Arrow values at dst (ArrowWidth bytes each).
void ConvertFixed(const ColumnDescriptor& c, const uint8_t* src, int64_t n, uint8_t* dst) {
  const TypeId id = c.type->id();
  const int width = c.physical_width();
  auto each = [&](auto zero, auto fn) {
    using T = decltype(zero);
    T* out = reinterpret_cast<T*>(dst);
    for (int64_t i = 0; i < n; ++i)
      out[i] = fn(src + i * width);
  };
  auto load = [](const uint8_t* p, auto v) {
    std::memcpy(&v, p, sizeof(v));
    return v;
  };
  switch (*c.element.type) {
    case PhysicalType::kInt32: {
      auto from32 = [&](auto zero) {
        each(zero,
             [&](const uint8_t* p) { return static_cast<decltype(zero)>(load(p, int32_t{})); });
      };
      if (id == TypeId::kInt8) return from32(int8_t{});
      if (id == TypeId::kUInt8) return from32(uint8_t{});
      if (id == TypeId::kInt16) return from32(int16_t{});
      if (id == TypeId::kUInt16) return from32(uint16_t{});
      if (id == TypeId::kDecimal128) return from32(Int128{});
      if (id == TypeId::kTime64)  // TIME(MILLIS) read as microseconds
        return each(int64_t{},
                    [&](const uint8_t* p) { return int64_t{load(p, int32_t{})} * 1000; });
      break;
    }
    case PhysicalType::kInt64:
      if (id == TypeId::kDecimal128)
        return each(Int128{},
                    [&](const uint8_t* p) { return static_cast<Int128>(load(p, int64_t{})); });
      break;
    case PhysicalType::kInt96:
      // Legacy timestamps: 8 bytes of nanoseconds within the day, then 4 bytes of Julian day.
      return each(int64_t{}, [&](const uint8_t* p) {
        constexpr int64_t kJulianEpoch = 2440588;
        constexpr int64_t kNanosPerDay = 86400LL * 1000 * 1000 * 1000;
        const int64_t nanos = load(p, int64_t{});
        const int32_t day = load(p + 8, int32_t{});
        return static_cast<int64_t>(static_cast<uint64_t>(day - kJulianEpoch) * kNanosPerDay +
                                    static_cast<uint64_t>(nanos));
      });
    case PhysicalType::kFixedLenByteArray:
      if (id == TypeId::kDecimal128)
        return each(Int128{}, [&](const uint8_t* p) { return BigEndianToInt128(p, width); });
      if (id == TypeId::kFloat32)  // float16
        return each(float{}, [&](const uint8_t* p) { return HalfToFloat(load(p, uint16_t{})); });
      break;
    default:
      break;
  }
  if (n > 0) std::memcpy(dst, src, static_cast<size_t>(n * width));  // the same layout
}

// Dense physical values of a chunk (or of its dictionary), in the order decoded.
class ValueSink {
 public:
  explicit ValueSink(const ColumnDescriptor& c)
      : column_(c),
        physical_(*c.element.type),
        width_(c.physical_width()),
        out_width_(ArrowWidth(c)),
        utf8_(c.type->id() == TypeId::kString || c.type->id() == TypeId::kLargeString) {}

  int64_t size() const { return count_; }
  int width() const { return width_; }
  bool is_byte_array() const { return physical_ == PhysicalType::kByteArray; }
  const uint8_t* fixed() const { return fixed_.data(); }
  const int32_t* offsets() const { return reinterpret_cast<const int32_t*>(offsets_.data()); }
  const uint8_t* bytes() const { return data_.data(); }

  Status Reserve(int64_t n) {
    if (is_byte_array()) return offsets_.Reserve(n * 4);
    return fixed_.Reserve(n * out_width_);
  }

  // Fixed-width values are kept as the column's Arrow values, converted as they arrive (a
  // dictionary once, so that gathers copy final values).
  Status AppendFixed(const uint8_t* src, int64_t n) {
    FLOTILLA_RETURN_NOT_OK(fixed_.Reserve(n * out_width_));
    ConvertFixed(column_, src, n, fixed_.mutable_data() + fixed_.size());
    fixed_.UnsafeAdvance(n * out_width_);
    count_ += n;
    return Status::OK();
  }
  Status AppendBytes(const void* src, int64_t length) {
    if (offsets_.size() == 0) FLOTILLA_RETURN_NOT_OK(offsets_.Append<int32_t>(0));
    if (data_.size() + length > std::numeric_limits<int32_t>::max())
      return Status::NotImplemented("column chunk with more than 2 GiB of string data");
    FLOTILLA_RETURN_NOT_OK(data_.Append(src, length));
    FLOTILLA_RETURN_NOT_OK(offsets_.Append<int32_t>(static_cast<int32_t>(data_.size())));
    ++count_;
    return Status::OK();
  }

  // String columns hold UTF-8 (the engine's invariant for strings): values [first, size())
  // are checked as one run plus a test that none starts inside a character, which together
  // mean each value is whole, valid UTF-8. Gathers from a checked dictionary need no check.
  Status CheckUtf8(int64_t first) const {
    if (!utf8_ || first >= count_) return Status::OK();
    const int32_t* o = offsets();
    const uint8_t* b = bytes();
    bool boundaries = true;
    for (int64_t i = first; i < count_; ++i)
      boundaries &= o[i] == o[i + 1] || (b[o[i]] & 0xC0) != 0x80;
    if (boundaries && IsValidUtf8(reinterpret_cast<const char*>(b) + o[first],
                                  static_cast<size_t>(o[count_] - o[first])))
      return Status::OK();
    for (int64_t i = first; i < count_; ++i) {
      if (!IsValidUtf8(reinterpret_cast<const char*>(b) + o[i],
                       static_cast<size_t>(o[i + 1] - o[i])))
        return Status::Invalid("string value " + std::to_string(i) + " is not valid UTF-8");
    }
    return Status::OK();
  }

  Status DecodePlain(const uint8_t* p, int64_t size, int64_t n) {
    switch (physical_) {
      case PhysicalType::kBoolean: {
        if (size * 8 < n) return Status::Invalid("PLAIN booleans past the end of the page");
        FLOTILLA_RETURN_NOT_OK(fixed_.Reserve(n));
        for (int64_t i = 0; i < n; ++i)
          fixed_.UnsafeAppend<uint8_t>((p[i >> 3] >> (i & 7)) & 1);
        count_ += n;
        return Status::OK();
      }
      case PhysicalType::kByteArray: {
        const uint8_t* end = p + size;
        // Each value takes at least its 4-byte length: a count beyond that is corrupt (and must
        // not size an allocation).
        if (n > size / 4)
          return Status::Invalid("PLAIN page claims " + std::to_string(n) + " byte arrays in " +
                                 std::to_string(size) + " bytes");
        if (offsets_.size() == 0) FLOTILLA_RETURN_NOT_OK(offsets_.Append<int32_t>(0));
        FLOTILLA_RETURN_NOT_OK(offsets_.Reserve(n * 4));
        // The values are at most the page; the slack lets Gather copy short values as whole
        // 16-byte blocks when this sink is a dictionary.
        FLOTILLA_RETURN_NOT_OK(data_.Reserve(size + kCopySlack));
        for (int64_t i = 0; i < n; ++i) {
          if (end - p < 4) return Status::Invalid("PLAIN byte array length past the end");
          uint32_t length;
          std::memcpy(&length, p, 4);
          p += 4;
          if (length > static_cast<uint64_t>(end - p))
            return Status::Invalid("PLAIN byte array of " + std::to_string(length) +
                                   " bytes past the end of the page");
          if (data_.size() + length > std::numeric_limits<int32_t>::max())
            return Status::NotImplemented("column chunk with more than 2 GiB of string data");
          if (length > 0) std::memcpy(data_.mutable_data() + data_.size(), p, length);
          data_.UnsafeAdvance(length);
          offsets_.UnsafeAppend<int32_t>(static_cast<int32_t>(data_.size()));
          p += length;
        }
        count_ += n;
        return CheckUtf8(count_ - n);
      }
      default:
        if (size < n * width_)
          return Status::Invalid("PLAIN values need " + std::to_string(n * width_) +
                                 " bytes, the page holds " + std::to_string(size));
        return AppendFixed(p, n);
    }
  }

  // Appends dictionary[indices[i]] for each index.
  Status Gather(const ValueSink& dict, const uint32_t* indices, int64_t n) {
    uint32_t largest = 0;  // a branch-free reduction, then one test
    for (int64_t i = 0; i < n; ++i)
      largest = std::max(largest, indices[i]);
    if (n > 0 && largest >= static_cast<uint64_t>(dict.size()))
      return Status::Invalid("dictionary index " + std::to_string(largest) +
                             " beyond the dictionary's " + std::to_string(dict.size()) + " values");
    if (is_byte_array()) {
      // One reservation for all the bytes, then plain copies.
      const int32_t* offsets = dict.offsets();
      int64_t total = 0;
      for (int64_t i = 0; i < n; ++i)
        total += offsets[indices[i] + 1] - offsets[indices[i]];
      if (data_.size() + total > std::numeric_limits<int32_t>::max())
        return Status::NotImplemented("column chunk with more than 2 GiB of string data");
      if (offsets_.size() == 0) FLOTILLA_RETURN_NOT_OK(offsets_.Append<int32_t>(0));
      FLOTILLA_RETURN_NOT_OK(offsets_.Reserve(n * 4));
      FLOTILLA_RETURN_NOT_OK(data_.Reserve(total + kCopySlack));
      uint8_t* out = data_.mutable_data();
      int64_t at = data_.size();
      const uint8_t* src = dict.bytes();
      for (int64_t i = 0; i < n; ++i) {
        const int32_t begin = offsets[indices[i]], length = offsets[indices[i] + 1] - begin;
        // A fixed-size copy is a couple of instructions, a sized one a library call; both sides
        // have kCopySlack bytes to spare.
        if (length <= kCopySlack) {
          std::memcpy(out + at, src + begin, kCopySlack);
        } else {
          std::memcpy(out + at, src + begin, static_cast<size_t>(length));
        }
        at += length;
        offsets_.UnsafeAppend<int32_t>(static_cast<int32_t>(at));
      }
      data_.UnsafeAdvance(at - data_.size());
      count_ += n;
      return Status::OK();
    }
    FLOTILLA_RETURN_NOT_OK(fixed_.Reserve(n * out_width_));
    uint8_t* out = fixed_.mutable_data() + fixed_.size();
    const uint8_t* src = dict.fixed();
    switch (out_width_) {
      case 4:
        for (int64_t i = 0; i < n; ++i)
          std::memcpy(out + i * 4, src + indices[i] * 4, 4);
        break;
      case 8:
        for (int64_t i = 0; i < n; ++i)
          std::memcpy(out + i * 8, src + indices[i] * 8, 8);
        break;
      case 16:
        for (int64_t i = 0; i < n; ++i)
          std::memcpy(out + i * 16, src + indices[i] * 16, 16);
        break;
      default:
        for (int64_t i = 0; i < n; ++i)
          std::memcpy(out + i * out_width_, src + static_cast<int64_t>(indices[i]) * out_width_,
                      static_cast<size_t>(out_width_));
    }
    fixed_.UnsafeAdvance(n * out_width_);
    count_ += n;
    return Status::OK();
  }

  Result<BufferPtr> FinishFixed() { return fixed_.Finish(); }
  Result<BufferPtr> FinishOffsets() {
    if (offsets_.size() == 0) FLOTILLA_RETURN_NOT_OK(offsets_.Append<int32_t>(0));
    return offsets_.Finish();
  }
  Result<BufferPtr> FinishData() { return data_.Finish(); }

 private:
  const ColumnDescriptor& column_;
  PhysicalType physical_;
  int width_;      // physical bytes per value
  int out_width_;  // Arrow bytes per value, as stored in fixed_
  bool utf8_;
  BufferBuilder fixed_, offsets_, data_;
  int64_t count_ = 0;
};

class ChunkReader {
 public:
  ChunkReader(const ColumnMetaData& meta, const ColumnDescriptor& column)
      : meta_(meta), column_(column), values_(column) {}

  Result<LeafData> Read(const std::vector<PageSpan>& spans) {
    FLOTILLA_ASSIGN_OR_RETURN(codec_, ThreadDecompressor(meta_.codec));
    if (meta_.num_values < 0) return Status::Invalid("negative value count in column metadata");
    out_.def_bitmap = column_.max_def == 1 && column_.max_rep == 0;
    int64_t wanted = 0;
    for (const PageSpan& s : spans)
      wanted += s.entries;
    if (wanted > meta_.num_values)
      return Status::Invalid("pages of " + std::to_string(wanted) + " values in a chunk of " +
                             std::to_string(meta_.num_values));
    // Reservations are capped: a corrupt count must not size an allocation (past the cap the
    // buffers grow as pages arrive).
    const int64_t expected = std::min<int64_t>(wanted, int64_t{1} << 22);
    if (out_.def_bitmap) {
      FLOTILLA_RETURN_NOT_OK(def_bits_.Reserve(bit_util::BytesForBits(expected)));
    } else if (column_.max_def > 0) {
      out_.def.reserve(static_cast<size_t>(expected));
    }
    if (column_.max_rep > 0) out_.rep.reserve(static_cast<size_t>(expected));
    FLOTILLA_RETURN_NOT_OK(values_.Reserve(expected));
    for (const PageSpan& span : spans)
      FLOTILLA_RETURN_NOT_OK(ReadSpan(span));
    FLOTILLA_ASSIGN_OR_RETURN(out_.values, FinishValues());
    if (out_.def_bitmap && values_.size() < out_.entries) {
      FLOTILLA_RETURN_NOT_OK(def_bits_.Resize(bit_util::BytesForBits(out_.entries)));
      FLOTILLA_ASSIGN_OR_RETURN(out_.def_bits, def_bits_.Finish());
    }
    return std::move(out_);
  }

 private:
  // The pages of `span` up to its entries (at least one page for a dictionary span).
  Status ReadSpan(const PageSpan& span) {
    const int64_t target = out_.entries + span.entries;
    int64_t pos = 0;
    for (int pages = 0; out_.entries < target || (span.dictionary && pages == 0); ++pages) {
      const std::string page = "page " + std::to_string(page_++);
      if (pos >= span.size)
        return Status::Invalid("column chunk ends after " + std::to_string(out_.entries) +
                               " of its " + std::to_string(meta_.num_values) + " values");
      int64_t used = 0;
      auto header = DecodePageHeader(span.data + pos, span.size - pos, &used);
      if (!header.ok()) return header.status().WithContext(page);
      pos += used;
      const PageHeader& h = *header;
      if (h.compressed_page_size < 0 || h.compressed_page_size > span.size - pos)
        return Status::Invalid(page + " of " + std::to_string(h.compressed_page_size) +
                               " bytes runs past the end of the column chunk");
      if (h.uncompressed_page_size < 0 ||
          h.uncompressed_page_size > MaxUncompressedPageSize(h.compressed_page_size))
        return Status::Invalid(page + " claims " + std::to_string(h.uncompressed_page_size) +
                               " uncompressed bytes");
      Status st = Page(h, span.data + pos);
      if (!st.ok()) return st.WithContext(page);
      pos += h.compressed_page_size;
    }
    if (out_.entries != target)
      return Status::Invalid("pages hold " + std::to_string(out_.entries) + " values where " +
                             std::to_string(target) + " were expected");
    return Status::OK();
  }

  Status Page(const PageHeader& h, const uint8_t* data) {
    switch (h.type) {
      case PageType::kDictionaryPage: {
        if (!h.dictionary_page_header) return Status::Invalid("dictionary page without header");
        if (dict_) return Status::Invalid("a second dictionary page");
        FLOTILLA_ASSIGN_OR_RETURN(
            const uint8_t* p, Decompress(data, h.compressed_page_size, h.uncompressed_page_size));
        const DictionaryPageHeader& d = *h.dictionary_page_header;
        if (d.num_values < 0) return Status::Invalid("negative dictionary size");
        if (d.encoding != Encoding::kPlain && d.encoding != Encoding::kPlainDictionary)
          return Status::NotImplemented(std::string("dictionary page encoding ") +
                                        EncodingName(d.encoding));
        dict_ = std::make_unique<ValueSink>(column_);
        return dict_->DecodePlain(p, h.uncompressed_page_size, d.num_values);
      }
      case PageType::kDataPage: {
        if (!h.data_page_header) return Status::Invalid("data page without header");
        const DataPageHeader& d = *h.data_page_header;
        FLOTILLA_ASSIGN_OR_RETURN(
            const uint8_t* p, Decompress(data, h.compressed_page_size, h.uncompressed_page_size));
        const uint8_t* end = p + h.uncompressed_page_size;
        FLOTILLA_RETURN_NOT_OK(CheckCount(d.num_values));
        if (column_.max_rep > 0) {
          if (d.repetition_level_encoding != Encoding::kRle)
            return Status::NotImplemented(std::string("repetition levels in ") +
                                          EncodingName(d.repetition_level_encoding));
          FLOTILLA_ASSIGN_OR_RETURN(std::string_view levels, LevelsV1(&p, end));
          FLOTILLA_RETURN_NOT_OK(LevelsRaw(reinterpret_cast<const uint8_t*>(levels.data()),
                                           static_cast<int64_t>(levels.size()), column_.max_rep,
                                           d.num_values, &out_.rep));
        }
        int64_t present = d.num_values;
        if (column_.max_def > 0) {
          if (d.definition_level_encoding != Encoding::kRle)
            return Status::NotImplemented(std::string("definition levels in ") +
                                          EncodingName(d.definition_level_encoding));
          FLOTILLA_ASSIGN_OR_RETURN(std::string_view levels, LevelsV1(&p, end));
          FLOTILLA_ASSIGN_OR_RETURN(
              present, DefinitionLevels(reinterpret_cast<const uint8_t*>(levels.data()),
                                        static_cast<int64_t>(levels.size()), d.num_values));
        }
        return Values(d.encoding, p, end - p, d.num_values, present);
      }
      case PageType::kDataPageV2: {
        if (!h.data_page_header_v2) return Status::Invalid("data page v2 without header");
        const DataPageHeaderV2& d = *h.data_page_header_v2;
        FLOTILLA_RETURN_NOT_OK(CheckCount(d.num_values));
        const int64_t levels =
            int64_t{d.repetition_levels_byte_length} + d.definition_levels_byte_length;
        if (d.repetition_levels_byte_length < 0 || d.definition_levels_byte_length < 0 ||
            levels > h.compressed_page_size || levels > h.uncompressed_page_size)
          return Status::Invalid("data page v2 level lengths exceed the page");
        const uint8_t* p = data;
        if (column_.max_rep > 0) {
          FLOTILLA_RETURN_NOT_OK(LevelsRaw(p, d.repetition_levels_byte_length, column_.max_rep,
                                           d.num_values, &out_.rep));
        }
        p += d.repetition_levels_byte_length;
        int64_t present = d.num_values;
        if (column_.max_def > 0) {
          FLOTILLA_ASSIGN_OR_RETURN(
              present, DefinitionLevels(p, d.definition_levels_byte_length, d.num_values));
        }
        p += d.definition_levels_byte_length;
        const int64_t compressed = h.compressed_page_size - levels;
        const int64_t uncompressed = h.uncompressed_page_size - levels;
        const uint8_t* v = p;
        if (d.is_compressed && compressed > 0) {
          FLOTILLA_ASSIGN_OR_RETURN(v, Decompress(p, compressed, uncompressed));
        } else if (compressed != uncompressed) {
          return Status::Invalid("uncompressed data page v2 with differing sizes");
        }
        return Values(d.encoding, v, d.is_compressed && compressed > 0 ? uncompressed : compressed,
                      d.num_values, present);
      }
      case PageType::kIndexPage:
        return Status::OK();
    }
    return Status::Invalid("unknown page type " + std::to_string(static_cast<int>(h.type)));
  }

  Status CheckCount(int32_t n) {
    if (n < 0 || n > meta_.num_values - out_.entries)
      return Status::Invalid("page of " + std::to_string(n) + " values exceeds the chunk's " +
                             std::to_string(meta_.num_values));
    return Status::OK();
  }

  Result<const uint8_t*> Decompress(const uint8_t* data, int64_t compressed, int64_t size) {
    if (meta_.codec == Codec::kUncompressed) {
      if (compressed != size)
        return Status::Invalid("uncompressed page of " + std::to_string(compressed) +
                               " bytes, header says " + std::to_string(size));
      return data;
    }
    uint8_t* page = Grown(&scratch_.page, size);
    FLOTILLA_RETURN_NOT_OK(codec_->Decompress(data, compressed, page, size));
    return static_cast<const uint8_t*>(page);
  }

  // The levels of a v1 page: a 4-byte length, then that many bytes of RLE runs; moves *p past
  // them.
  Result<std::string_view> LevelsV1(const uint8_t** p, const uint8_t* end) {
    if (end - *p < 4) return Status::Invalid("truncated level length");
    uint32_t length;
    std::memcpy(&length, *p, 4);
    *p += 4;
    if (length > static_cast<uint64_t>(end - *p)) return Status::Invalid("levels past the page");
    std::string_view levels(reinterpret_cast<const char*>(*p), length);
    *p += length;
    return levels;
  }

  // A page's definition levels (RLE, `length` bytes at p); returns how many entries hold a
  // value (are at the maximum level).
  Result<int64_t> DefinitionLevels(const uint8_t* p, int64_t length, int32_t n) {
    if (out_.def_bitmap) {
      FLOTILLA_RETURN_NOT_OK(def_bits_.Resize(bit_util::BytesForBits(out_.entries + n)));
      RleDecoder decoder(p, length, 1);
      return decoder.DecodeBits(def_bits_.mutable_data(), out_.entries, n);
    }
    FLOTILLA_RETURN_NOT_OK(LevelsRaw(p, length, column_.max_def, n, &out_.def));
    const int16_t* def = out_.def.data() + out_.entries;
    int64_t present = 0;
    for (int32_t i = 0; i < n; ++i)
      present += def[i] == column_.max_def;
    return present;
  }

  Status LevelsRaw(const uint8_t* p, int64_t length, int16_t max_level, int32_t n,
                   std::vector<int16_t>* out) {
    const size_t at = out->size();
    out->resize(at + static_cast<size_t>(n));
    RleDecoder decoder(p, length, BitWidthFor(static_cast<uint64_t>(max_level)));
    FLOTILLA_RETURN_NOT_OK(decoder.DecodeLevels(out->data() + at, n));
    for (size_t i = at; i < out->size(); ++i) {
      if ((*out)[i] > max_level)
        return Status::Invalid("level " + std::to_string((*out)[i]) + " above the column's " +
                               std::to_string(max_level));
    }
    return Status::OK();
  }

  // `n` of the page's `num_values` entries hold a value (those at the maximum definition
  // level); only they are stored.
  Status Values(Encoding encoding, const uint8_t* p, int64_t size, int32_t num_values, int64_t n) {
    out_.entries += num_values;
    if (n == 0) return Status::OK();
    const PhysicalType physical = *column_.element.type;
    switch (encoding) {
      case Encoding::kPlain:
        return values_.DecodePlain(p, size, n);
      case Encoding::kPlainDictionary:
      case Encoding::kRleDictionary: {
        if (!dict_) return Status::Invalid("dictionary-encoded page without a dictionary page");
        if (size < 1) return Status::Invalid("dictionary page data without a bit width");
        const int width = p[0];
        if (width > 32) return Status::Invalid("dictionary index width " + std::to_string(width));
        uint32_t* indices = Grown(&scratch_.indices, n);
        RleDecoder decoder(p + 1, size - 1, width);
        FLOTILLA_RETURN_NOT_OK(decoder.Decode(indices, n));
        return values_.Gather(*dict_, indices, n);
      }
      case Encoding::kRle: {
        if (physical != PhysicalType::kBoolean)
          return Status::NotImplemented("RLE encoding for non-boolean values");
        if (size < 4) return Status::Invalid("truncated RLE boolean length");
        uint32_t length;
        std::memcpy(&length, p, 4);
        if (length > static_cast<uint64_t>(size - 4))
          return Status::Invalid("RLE booleans past the page");
        uint32_t* indices = Grown(&scratch_.indices, n);
        RleDecoder decoder(p + 4, length, 1);
        FLOTILLA_RETURN_NOT_OK(decoder.Decode(indices, n));
        std::vector<uint8_t> bytes(indices, indices + n);
        return values_.AppendFixed(bytes.data(), n);
      }
      case Encoding::kDeltaBinaryPacked: {
        if (physical == PhysicalType::kInt32) return Delta<int32_t>(p, size, n);
        if (physical == PhysicalType::kInt64) return Delta<int64_t>(p, size, n);
        return Status::Invalid("DELTA_BINARY_PACKED on a " +
                               std::string(PhysicalTypeName(physical)) + " column");
      }
      case Encoding::kDeltaLengthByteArray:
      case Encoding::kDeltaByteArray: {
        if (physical != PhysicalType::kByteArray && !(encoding == Encoding::kDeltaByteArray &&
                                                      physical == PhysicalType::kFixedLenByteArray))
          return Status::Invalid(std::string(EncodingName(encoding)) + " on a " +
                                 PhysicalTypeName(physical) + " column");
        ByteArrays arrays;
        arrays.offsets.reserve(static_cast<size_t>(n) + 1);
        if (encoding == Encoding::kDeltaLengthByteArray) {
          FLOTILLA_RETURN_NOT_OK(DeltaLengthByteArrayDecode(p, size, n, &arrays));
        } else {
          FLOTILLA_RETURN_NOT_OK(DeltaByteArrayDecode(p, size, n, &arrays));
        }
        const int64_t first = values_.size();
        for (int64_t i = 0; i < n; ++i) {
          const int64_t length = arrays.offsets[i + 1] - arrays.offsets[i];
          const char* src = arrays.data.data() + arrays.offsets[i];
          if (physical == PhysicalType::kByteArray) {
            FLOTILLA_RETURN_NOT_OK(values_.AppendBytes(src, length));
          } else {
            if (length != values_.width())
              return Status::Invalid("DELTA_BYTE_ARRAY value of " + std::to_string(length) +
                                     " bytes in a FIXED_LEN_BYTE_ARRAY(" +
                                     std::to_string(values_.width()) + ") column");
            FLOTILLA_RETURN_NOT_OK(values_.AppendFixed(reinterpret_cast<const uint8_t*>(src), 1));
          }
        }
        return physical == PhysicalType::kByteArray ? values_.CheckUtf8(first) : Status::OK();
      }
      case Encoding::kByteStreamSplit: {
        const int width = values_.width();
        if (physical == PhysicalType::kBoolean || physical == PhysicalType::kByteArray ||
            physical == PhysicalType::kInt96 || width <= 0)
          return Status::Invalid(std::string("BYTE_STREAM_SPLIT on a ") +
                                 PhysicalTypeName(physical) + " column");
        std::string tmp(static_cast<size_t>(n * width), '\0');
        FLOTILLA_RETURN_NOT_OK(
            ByteStreamSplitDecode(p, size, width, n, reinterpret_cast<uint8_t*>(tmp.data())));
        return values_.AppendFixed(reinterpret_cast<const uint8_t*>(tmp.data()), n);
      }
      default:
        return Status::NotImplemented(std::string("encoding ") + EncodingName(encoding) + " (" +
                                      std::to_string(static_cast<int>(encoding)) + ")");
    }
  }

  template <typename T>
  Status Delta(const uint8_t* p, int64_t size, int64_t n) {
    std::vector<T> decoded;
    FLOTILLA_RETURN_NOT_OK(DeltaBinaryPackedDecode(p, size, &decoded, nullptr));
    if (static_cast<int64_t>(decoded.size()) < n)
      return Status::Invalid("DELTA_BINARY_PACKED page holds " + std::to_string(decoded.size()) +
                             " of " + std::to_string(n) + " values");
    return values_.AppendFixed(reinterpret_cast<const uint8_t*>(decoded.data()), n);
  }

  Result<Array> FinishValues();

  const ColumnMetaData& meta_;
  const ColumnDescriptor& column_;
  PageCodec* codec_ = nullptr;
  std::unique_ptr<ValueSink> dict_;
  ValueSink values_;
  LeafData out_;
  BufferBuilder def_bits_;  // out_.def_bits while pages are read
  int page_ = 0;            // pages read, for error messages
  DecodeScratch& scratch_ = ThreadScratch();
};

template <typename Out, typename Fn>
Result<BufferPtr> Convert(int64_t n, Fn&& fn) {
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr out, Buffer::Allocate(n * static_cast<int64_t>(sizeof(Out))));
  Out* dst = reinterpret_cast<Out*>(out->mutable_data());
  for (int64_t i = 0; i < n; ++i)
    dst[i] = fn(i);
  return out;
}

Result<Array> ChunkReader::FinishValues() {
  if (!column_.unsupported.empty()) return Status::NotImplemented(column_.unsupported);
  const int64_t n = values_.size();
  auto data = std::make_shared<ArrayData>();
  data->type = column_.type;
  data->length = n;
  data->buffers.resize(static_cast<size_t>(NumBuffers(*column_.type)));
  const TypeId id = column_.type->id();
  const PhysicalType physical = *column_.element.type;
  if (id == TypeId::kNull) {
    data->null_count = n;
    return Array::Make(data);
  }
  if (physical == PhysicalType::kByteArray && id != TypeId::kDecimal128) {
    FLOTILLA_ASSIGN_OR_RETURN(data->buffers[1], values_.FinishOffsets());
    FLOTILLA_ASSIGN_OR_RETURN(data->buffers[2], values_.FinishData());
    return Array(data);
  }
  if (physical == PhysicalType::kByteArray) {  // decimal in variable-length bytes
    const int32_t* offsets = values_.offsets();
    const uint8_t* bytes = values_.bytes();
    for (int64_t i = 0; i < n; ++i) {
      if (offsets[i + 1] - offsets[i] > 16)
        return Status::Invalid("decimal value of " + std::to_string(offsets[i + 1] - offsets[i]) +
                               " bytes");
    }
    FLOTILLA_ASSIGN_OR_RETURN(data->buffers[1], Convert<Int128>(n, [&](int64_t i) {
                                return BigEndianToInt128(bytes + offsets[i],
                                                         offsets[i + 1] - offsets[i]);
                              }));
    return Array(data);
  }
  // Fixed-width values were converted to the Arrow layout as they arrived; booleans (one
  // byte each so far) become a bitmap.
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr raw, values_.FinishFixed());
  if (physical == PhysicalType::kBoolean) {
    const uint8_t* src = raw->data();
    FLOTILLA_ASSIGN_OR_RETURN(data->buffers[1], Buffer::AllocateZeroed(bit_util::BytesForBits(n)));
    uint8_t* bits = data->buffers[1]->mutable_data();
    for (int64_t i = 0; i < n; ++i)
      if (src[i]) bit_util::SetBit(bits, i);
    return Array(data);
  }
  data->buffers[1] = std::move(raw);
  return Array(data);
}

}  // namespace

Status ColumnChunkRange(const ColumnMetaData& meta, int64_t file_size, int64_t* offset,
                        int64_t* length) {
  int64_t start = meta.data_page_offset;
  if (meta.dictionary_page_offset && *meta.dictionary_page_offset > 0 &&
      *meta.dictionary_page_offset < start)
    start = *meta.dictionary_page_offset;
  if (start < 4 || meta.total_compressed_size < 0 || start >= file_size ||
      meta.total_compressed_size > file_size - start)
    return Status::Invalid("column chunk at byte " + std::to_string(start) + " of " +
                           std::to_string(meta.total_compressed_size) +
                           " bytes lies outside the file of " + std::to_string(file_size) +
                           " bytes");
  *offset = start;
  *length = meta.total_compressed_size;
  return Status::OK();
}

Result<LeafData> ReadColumnPages(const std::vector<PageSpan>& spans, const ColumnMetaData& meta,
                                 const ColumnDescriptor& column) {
  if (meta.type != *column.element.type)
    return Status::Invalid(std::string("column chunk of type ") + PhysicalTypeName(meta.type) +
                           " for a " + PhysicalTypeName(*column.element.type) + " column");
  ChunkReader reader(meta, column);
  return reader.Read(spans);
}

Result<LeafData> ReadColumnChunk(const uint8_t* chunk, int64_t size, const ColumnMetaData& meta,
                                 const ColumnDescriptor& column) {
  return ReadColumnPages({PageSpan{chunk, size, meta.num_values, false}}, meta, column);
}

}  // namespace flotilla::io::parquet
