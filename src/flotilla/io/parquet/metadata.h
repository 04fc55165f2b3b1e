#pragma once
// The Parquet metadata structures (parquet-format's parquet.thrift, field ids from the spec),
// decoded from and encoded to the compact protocol. Only the fields Flotilla reads or writes are
// kept; unknown fields are skipped, so files from newer writers still decode.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "flotilla/common/result.h"

namespace flotilla::io::parquet {

enum class PhysicalType : int32_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7,
};
const char* PhysicalTypeName(PhysicalType type);

enum class Repetition : int32_t { kRequired = 0, kOptional = 1, kRepeated = 2 };

enum class ConvertedType : int32_t {
  kUtf8 = 0,
  kMap = 1,
  kMapKeyValue = 2,
  kList = 3,
  kEnum = 4,
  kDecimal = 5,
  kDate = 6,
  kTimeMillis = 7,
  kTimeMicros = 8,
  kTimestampMillis = 9,
  kTimestampMicros = 10,
  kUint8 = 11,
  kUint16 = 12,
  kUint32 = 13,
  kUint64 = 14,
  kInt8 = 15,
  kInt16 = 16,
  kInt32 = 17,
  kInt64 = 18,
  kJson = 19,
  kBson = 20,
  kInterval = 21,
};

enum class Encoding : int32_t {
  kPlain = 0,
  kPlainDictionary = 2,
  kRle = 3,
  kBitPacked = 4,
  kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6,
  kDeltaByteArray = 7,
  kRleDictionary = 8,
  kByteStreamSplit = 9,
};
const char* EncodingName(Encoding encoding);

enum class Codec : int32_t {
  kUncompressed = 0,
  kSnappy = 1,
  kGzip = 2,
  kLzo = 3,
  kBrotli = 4,
  kLz4 = 5,  // Hadoop's framing (or, from old writers, a bare lz4 frame)
  kZstd = 6,
  kLz4Raw = 7,
};
const char* CodecName(Codec codec);

enum class PageType : int32_t {
  kDataPage = 0,
  kIndexPage = 1,
  kDictionaryPage = 2,
  kDataPageV2 = 3
};

/// The LogicalType union; `kind` is its field id (0: absent).
struct LogicalType {
  enum Kind : int16_t {
    kNone = 0,
    kString = 1,
    kMap = 2,
    kList = 3,
    kEnum = 4,
    kDecimal = 5,
    kDate = 6,
    kTime = 7,
    kTimestamp = 8,
    kInteger = 10,
    kUnknown = 11,  // always-null column
    kJson = 12,
    kBson = 13,
    kUuid = 14,
    kFloat16 = 15,
  };
  enum Unit : int16_t { kMillis = 1, kMicros = 2, kNanos = 3 };
  Kind kind = kNone;
  int32_t scale = 0, precision = 0;  // decimal
  bool adjusted_to_utc = false;      // time, timestamp
  Unit unit = kMicros;               // time, timestamp
  int8_t bit_width = 0;              // integer
  bool is_signed = true;             // integer
};

struct SchemaElement {
  std::optional<PhysicalType> type;
  int32_t type_length = 0;
  std::optional<Repetition> repetition;
  std::string name;
  int32_t num_children = 0;
  std::optional<ConvertedType> converted_type;
  int32_t scale = 0;
  int32_t precision = 0;
  std::optional<int32_t> field_id;
  LogicalType logical_type;
};

struct Statistics {
  std::optional<std::string> max, min;  // deprecated: signed-order only
  std::optional<int64_t> null_count;
  std::optional<int64_t> distinct_count;
  std::optional<std::string> max_value, min_value;
};

struct KeyValue {
  std::string key;
  std::optional<std::string> value;
};

struct ColumnMetaData {
  PhysicalType type = PhysicalType::kInt32;
  std::vector<Encoding> encodings;
  std::vector<std::string> path_in_schema;
  Codec codec = Codec::kUncompressed;
  int64_t num_values = 0;
  int64_t total_uncompressed_size = 0;
  int64_t total_compressed_size = 0;
  int64_t data_page_offset = 0;
  std::optional<int64_t> index_page_offset;
  std::optional<int64_t> dictionary_page_offset;
  std::optional<Statistics> statistics;
};

struct ColumnChunk {
  std::optional<std::string> file_path;
  int64_t file_offset = 0;
  std::optional<ColumnMetaData> meta_data;
  std::optional<int64_t> offset_index_offset;
  std::optional<int32_t> offset_index_length;
  std::optional<int64_t> column_index_offset;
  std::optional<int32_t> column_index_length;
};

struct RowGroup {
  std::vector<ColumnChunk> columns;
  int64_t total_byte_size = 0;
  int64_t num_rows = 0;
  std::optional<int64_t> file_offset;
  std::optional<int64_t> total_compressed_size;
  std::optional<int16_t> ordinal;
};

struct FileMetaData {
  int32_t version = 0;
  std::vector<SchemaElement> schema;
  int64_t num_rows = 0;
  std::vector<RowGroup> row_groups;
  std::vector<KeyValue> key_value_metadata;
  std::optional<std::string> created_by;
  /// Column orders: true where the column's statistics use the type-defined order (and so
  /// min_value/max_value are trustworthy for unsigned and byte-array columns).
  std::vector<bool> type_defined_order;
  bool encrypted = false;  // encryption_algorithm present: not supported
};

struct DataPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::kPlain;
  Encoding definition_level_encoding = Encoding::kRle;
  Encoding repetition_level_encoding = Encoding::kRle;
  std::optional<Statistics> statistics;
};

struct DictionaryPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::kPlain;
  bool is_sorted = false;
};

struct DataPageHeaderV2 {
  int32_t num_values = 0;
  int32_t num_nulls = 0;
  int32_t num_rows = 0;
  Encoding encoding = Encoding::kPlain;
  int32_t definition_levels_byte_length = 0;
  int32_t repetition_levels_byte_length = 0;
  bool is_compressed = true;
  std::optional<Statistics> statistics;
};

struct PageHeader {
  PageType type = PageType::kDataPage;
  int32_t uncompressed_page_size = 0;
  int32_t compressed_page_size = 0;
  std::optional<int32_t> crc;
  std::optional<DataPageHeader> data_page_header;
  std::optional<DictionaryPageHeader> dictionary_page_header;
  std::optional<DataPageHeaderV2> data_page_header_v2;
};

enum class BoundaryOrder : int32_t { kUnordered = 0, kAscending = 1, kDescending = 2 };

/// The page index: per-page min/max (ColumnIndex) and locations (OffsetIndex) of one column chunk.
struct ColumnIndex {
  std::vector<bool> null_pages;
  std::vector<std::string> min_values, max_values;
  BoundaryOrder boundary_order = BoundaryOrder::kUnordered;
  std::vector<int64_t> null_counts;
};

struct PageLocation {
  int64_t offset = 0;
  int32_t compressed_page_size = 0;
  int64_t first_row_index = 0;
};

struct OffsetIndex {
  std::vector<PageLocation> page_locations;
};

/// Decoders: `size` bytes at `data`; on success `*consumed` (when given) is the bytes used.
Result<FileMetaData> DecodeFileMetaData(const uint8_t* data, int64_t size);
Result<PageHeader> DecodePageHeader(const uint8_t* data, int64_t size, int64_t* consumed);
Result<ColumnIndex> DecodeColumnIndex(const uint8_t* data, int64_t size);
Result<OffsetIndex> DecodeOffsetIndex(const uint8_t* data, int64_t size);

std::string EncodeFileMetaData(const FileMetaData& metadata);
std::string EncodePageHeader(const PageHeader& header);
std::string EncodeColumnIndex(const ColumnIndex& index);
std::string EncodeOffsetIndex(const OffsetIndex& index);

}  // namespace flotilla::io::parquet
