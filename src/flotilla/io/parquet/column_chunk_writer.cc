#include "flotilla/io/parquet/column_chunk_writer.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "flotilla/io/parquet/codec.h"
#include "flotilla/io/parquet/encoding.h"
#include "flotilla/io/parquet/writer_statistics.h"

namespace flotilla::io::parquet {
namespace {

// The dictionary of the leaf's values: each distinct value once, in first-seen order (`dict`
// holds each entry's position among the values), and each value's entry (`indices`). False when
// the distinct values take more than `max_bytes`, or the dictionary would not be smaller than
// the values: the chunk is written PLAIN instead.
bool BuildDictionary(const LeafBuffer& leaf, int width, int64_t max_bytes,
                     std::vector<uint32_t>* indices, std::vector<int64_t>* dict) {
  // Open addressing over value bytes: slots hold dictionary index + 1 (0: empty).
  size_t mask = 1023;
  std::vector<uint32_t> slots(mask + 1, 0);
  std::vector<uint64_t> hashes;  // of each dictionary entry, for regrowing
  indices->resize(static_cast<size_t>(leaf.values));
  int64_t dict_bytes = 0;
  int64_t plain_bytes = 0;
  for (int64_t i = 0; i < leaf.values; ++i) {
    const std::string_view v = leaf.Value(i, width);
    plain_bytes += static_cast<int64_t>(v.size()) + (width == 0 ? 4 : 0);
    const uint64_t h = XXH3_64bits(v.data(), v.size());
    size_t at = h & mask;
    while (slots[at] != 0 && leaf.Value((*dict)[slots[at] - 1], width) != v)
      at = (at + 1) & mask;
    if (slots[at] == 0) {
      dict->push_back(i);
      hashes.push_back(h);
      slots[at] = static_cast<uint32_t>(dict->size());
      dict_bytes += static_cast<int64_t>(v.size()) + (width == 0 ? 4 : 0);
      if (dict_bytes > max_bytes) return false;
    }
    (*indices)[static_cast<size_t>(i)] = slots[at] - 1;
    if (dict->size() * 2 > mask) {  // keep the table at most half full
      mask = mask * 2 + 1;
      slots.assign(mask + 1, 0);
      for (size_t d = 0; d < dict->size(); ++d) {
        size_t k = hashes[d] & mask;
        while (slots[k] != 0)
          k = (k + 1) & mask;
        slots[k] = static_cast<uint32_t>(d + 1);
      }
    }
  }
  // A dictionary pays when its entries and the values' indices take less than the values
  // plain, as well-tuned writers decide: not for (nearly) unique values such as prices, keys
  // or comments, where it only adds a lookup per value for every reader.
  const int64_t index_bytes = leaf.values * BitWidthFor(static_cast<uint64_t>(dict->size())) / 8;
  return dict_bytes + index_bytes < plain_bytes;
}

// Appends levels as a data page v1 holds them: their RLE encoding's length, then it.
void AppendLevels(const int16_t* levels, int64_t n, int16_t max_level, std::string* out) {
  std::string encoded;
  RleEncodeLevels(levels, n, BitWidthFor(static_cast<uint64_t>(max_level)), &encoded);
  AppendPlain<uint32_t>(out, static_cast<uint32_t>(encoded.size()));
  out->append(encoded);
}

// One column chunk being written: its pages go to `out` as they are encoded.
class ChunkWriter {
 public:
  ChunkWriter(const ColumnDescriptor& column, const ParquetWriteOptions& options, PageCodec* codec,
              const LeafBuffer& leaf, int64_t base, std::string* out)
      : column_(column),
        options_(options),
        codec_(codec),
        width_(column.physical_width()),
        leaf_(leaf),
        base_(base),
        out_(out),
        start_(out->size()) {}

  Result<EncodedChunk> Write() {
    meta_.type = *column_.element.type;
    meta_.path_in_schema = column_.path_in_schema;
    meta_.codec = options_.codec;
    const int64_t entries = std::max<int64_t>(static_cast<int64_t>(leaf_.def.size()),
                                              column_.max_def > 0 ? 0 : leaf_.values);
    meta_.num_values = entries;
    const bool null_column = column_.type->id() == TypeId::kNull;

    std::vector<uint32_t> indices;
    std::vector<int64_t> dict;
    const bool use_dict =
        options_.dictionary && *column_.element.type != PhysicalType::kBoolean &&
        leaf_.values > 0 && !null_column &&
        BuildDictionary(leaf_, width_, options_.dictionary_bytes, &indices, &dict);
    if (use_dict) {
      FLOTILLA_RETURN_NOT_OK(WriteDictionaryPage(dict));
      meta_.encodings = {Encoding::kPlain, Encoding::kRle, Encoding::kRleDictionary};
    } else {
      meta_.encodings = {Encoding::kPlain, Encoding::kRle};
    }
    meta_.data_page_offset = Offset();
    const int bit_width = use_dict ? std::max(1, BitWidthFor(dict.size() - 1)) : 0;
    const ValueOrder order = options_.statistics ? ValueOrderOf(column_) : ValueOrder::kNone;
    std::optional<DictionaryRanks> ranks;
    if (use_dict && order != ValueOrder::kNone) ranks.emplace(leaf_, dict, width_, order);
    ColumnIndex& column_index = encoded_.column_index.emplace();
    bool column_index_valid = order != ValueOrder::kNone;

    // Data pages, cut at row starts once a page holds about page_bytes of values or page_rows
    // rows (small enough pages let the page index skip parts of a row group).
    int64_t entry = 0, value = 0, row = 0;
    std::string body;
    while (entry < entries) {
      const int64_t first_entry = entry, first_value = value, first_row = row;
      int64_t bytes = 0;
      while (entry < entries) {
        const bool present = column_.max_def == 0 || leaf_.def[entry] == column_.max_def;
        if (present && !null_column) {
          bytes += use_dict
                       ? 1 + bit_width / 8
                       : (width_ ? width_ : 4 + static_cast<int64_t>(leaf_.Value(value, 0).size()));
          ++value;
        }
        ++entry;
        const bool row_start = column_.max_rep == 0 || entry == entries || leaf_.rep[entry] == 0;
        if (row_start) ++row;
        if (entry < entries && row_start &&
            (bytes >= options_.page_bytes || row - first_row >= options_.page_rows))
          break;
      }
      if (column_index_valid) {
        const ValueBounds bounds =
            ranks ? ranks->Bounds(leaf_, width_, indices.data(), first_value, value)
                  : BoundsOfValues(leaf_, width_, order, first_value, value);
        column_index.null_pages.push_back(value == first_value);
        column_index.null_counts.push_back((entry - first_entry) - (value - first_value));
        column_index.min_values.push_back(bounds.min);
        column_index.max_values.push_back(bounds.max);
        // A page of only NaNs has no min/max to state: no column index for this chunk.
        if (value > first_value && !bounds.known) column_index_valid = false;
      }
      body.clear();
      AppendPageLevels(first_entry, entry, &body);
      if (use_dict) {
        body.push_back(static_cast<char>(bit_width));
        RleEncode(indices.data() + first_value, value - first_value, bit_width, &body);
      } else {
        AppendPlainValues(first_value, value, &body);
      }
      FLOTILLA_RETURN_NOT_OK(WriteDataPage(static_cast<int32_t>(entry - first_entry),
                                           use_dict ? Encoding::kRleDictionary : Encoding::kPlain,
                                           body, first_row));
    }
    if (entries == 0) {  // an empty row group still has one (empty) page per column
      FLOTILLA_RETURN_NOT_OK(WriteDataPage(0, Encoding::kPlain, "", 0));
    }
    meta_.total_compressed_size = static_cast<int64_t>(out_->size() - start_);
    if (options_.statistics) {
      meta_.statistics = column_index_valid
                             ? StatisticsOfPages(leaf_.nulls, column_index, order)
                             : StatisticsOfValues(leaf_, width_, order, use_dict ? &dict : nullptr);
    }
    if (column_index_valid && !column_index.null_pages.empty()) {
      column_index.boundary_order = BoundaryOrderOf(column_index, order);
    } else {
      encoded_.column_index.reset();
    }
    encoded_.chunk.file_offset = meta_.data_page_offset;
    encoded_.chunk.meta_data = std::move(meta_);
    return std::move(encoded_);
  }

 private:
  // The file offset of the next byte written.
  int64_t Offset() const { return base_ + static_cast<int64_t>(out_->size() - start_); }

  void AppendPlainValue(int64_t i, std::string* out) const {
    const std::string_view v = leaf_.Value(i, width_);
    if (width_ == 0) AppendPlain<uint32_t>(out, static_cast<uint32_t>(v.size()));
    out->append(v);
  }

  // Values [begin, end) PLAIN-encoded: booleans as bits, byte arrays with their lengths.
  void AppendPlainValues(int64_t begin, int64_t end, std::string* out) const {
    if (*column_.element.type != PhysicalType::kBoolean) {
      for (int64_t i = begin; i < end; ++i)
        AppendPlainValue(i, out);
      return;
    }
    const size_t at = out->size();
    out->resize(at + static_cast<size_t>((end - begin + 7) / 8), '\0');
    for (int64_t i = begin; i < end; ++i)
      if (leaf_.fixed[i]) (*out)[at + (i - begin) / 8] |= static_cast<char>(1 << ((i - begin) % 8));
  }

  // The repetition and definition levels of entries [begin, end), those the column has.
  void AppendPageLevels(int64_t begin, int64_t end, std::string* out) const {
    if (column_.max_rep > 0)
      AppendLevels(leaf_.rep.data() + begin, end - begin, column_.max_rep, out);
    if (column_.max_def > 0)
      AppendLevels(leaf_.def.data() + begin, end - begin, column_.max_def, out);
  }

  Status WriteDictionaryPage(const std::vector<int64_t>& dict) {
    std::string plain;
    for (int64_t i : dict)
      AppendPlainValue(i, &plain);
    PageHeader h;
    h.type = PageType::kDictionaryPage;
    h.dictionary_page_header =
        DictionaryPageHeader{static_cast<int32_t>(dict.size()), Encoding::kPlain, false};
    meta_.dictionary_page_offset = Offset();
    return WritePage(&h, plain);
  }

  // A data page of `entries` level entries whose first row is `first_row`, and its location.
  Status WriteDataPage(int32_t entries, Encoding encoding, std::string_view body,
                       int64_t first_row) {
    PageHeader h;
    h.type = PageType::kDataPage;
    h.data_page_header =
        DataPageHeader{entries, encoding, Encoding::kRle, Encoding::kRle, std::nullopt};
    const int64_t page_offset = Offset();
    FLOTILLA_RETURN_NOT_OK(WritePage(&h, body));
    encoded_.offset_index.page_locations.push_back(
        PageLocation{page_offset, static_cast<int32_t>(Offset() - page_offset), first_row});
    return Status::OK();
  }

  Status WritePage(PageHeader* h, std::string_view body) {
    compressed_.clear();
    FLOTILLA_RETURN_NOT_OK(codec_->Compress(reinterpret_cast<const uint8_t*>(body.data()),
                                            static_cast<int64_t>(body.size()), &compressed_));
    h->uncompressed_page_size = static_cast<int32_t>(body.size());
    h->compressed_page_size = static_cast<int32_t>(compressed_.size());
    const std::string header = EncodePageHeader(*h);
    out_->append(header);
    out_->append(compressed_);
    meta_.total_uncompressed_size += static_cast<int64_t>(header.size() + body.size());
    return Status::OK();
  }

  const ColumnDescriptor& column_;
  const ParquetWriteOptions& options_;
  PageCodec* codec_;
  int width_;
  const LeafBuffer& leaf_;
  int64_t base_;  // the file offset of the chunk's first byte
  std::string* out_;
  size_t start_;  // where the chunk starts in out_
  ColumnMetaData meta_;
  EncodedChunk encoded_;
  std::string compressed_;  // reused by every page
};

}  // namespace

Result<EncodedChunk> WriteColumnChunk(const ColumnDescriptor& column,
                                      const ParquetWriteOptions& options, PageCodec* codec,
                                      const LeafBuffer& leaf, int64_t base, std::string* out) {
  return ChunkWriter(column, options, codec, leaf, base, out).Write();
}

}  // namespace flotilla::io::parquet
