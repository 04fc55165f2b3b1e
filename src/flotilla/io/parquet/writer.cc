#include "flotilla/io/parquet/writer.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <thread>

#include "flotilla/columnar/decimal.h"
#include "flotilla/compute/cast.h"
#include "flotilla/io/fs/atomic_write.h"
#include "flotilla/io/parquet/codec.h"
#include "flotilla/io/parquet/encoding.h"
#include "flotilla/io/parquet/schema.h"

namespace flotilla::parquet {

namespace {

constexpr char kMagic[] = "PAR1";

// --- schema ------------------------------------------------------------------------------------

TypePtr StorageType(const TypePtr& type) {
  return type->id() == TypeId::kDictionary ? type->value_type() : type;
}

void IntegerType(SchemaElement* e, PhysicalType physical, int bits, bool is_signed) {
  e->type = physical;
  e->logical_type.kind = LogicalType::kInteger;
  e->logical_type.bit_width = static_cast<int8_t>(bits);
  e->logical_type.is_signed = is_signed;
  static const ConvertedType kSigned[] = {ConvertedType::kInt8, ConvertedType::kInt16,
                                          ConvertedType::kInt32, ConvertedType::kInt64};
  static const ConvertedType kUnsigned[] = {ConvertedType::kUint8, ConvertedType::kUint16,
                                            ConvertedType::kUint32, ConvertedType::kUint64};
  const int k = bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : 3;
  e->converted_type = is_signed ? kSigned[k] : kUnsigned[k];
}

Status AddElements(const Field& field, std::vector<SchemaElement>* out) {
  const TypePtr type = StorageType(field.type);
  SchemaElement e;
  e.name = field.name;
  e.repetition = field.nullable ? Repetition::kOptional : Repetition::kRequired;
  switch (type->id()) {
    case TypeId::kNull:
      e.type = PhysicalType::kInt32;
      e.repetition = Repetition::kOptional;
      e.logical_type.kind = LogicalType::kUnknown;
      break;
    case TypeId::kBool: e.type = PhysicalType::kBoolean; break;
    case TypeId::kInt8: IntegerType(&e, PhysicalType::kInt32, 8, true); break;
    case TypeId::kInt16: IntegerType(&e, PhysicalType::kInt32, 16, true); break;
    case TypeId::kInt32: e.type = PhysicalType::kInt32; break;
    case TypeId::kInt64: e.type = PhysicalType::kInt64; break;
    case TypeId::kUInt8: IntegerType(&e, PhysicalType::kInt32, 8, false); break;
    case TypeId::kUInt16: IntegerType(&e, PhysicalType::kInt32, 16, false); break;
    case TypeId::kUInt32: IntegerType(&e, PhysicalType::kInt32, 32, false); break;
    case TypeId::kUInt64: IntegerType(&e, PhysicalType::kInt64, 64, false); break;
    case TypeId::kFloat32: e.type = PhysicalType::kFloat; break;
    case TypeId::kFloat64: e.type = PhysicalType::kDouble; break;
    case TypeId::kDecimal128:
      e.type = type->precision() <= 9    ? PhysicalType::kInt32
               : type->precision() <= 18 ? PhysicalType::kInt64
                                         : PhysicalType::kFixedLenByteArray;
      if (*e.type == PhysicalType::kFixedLenByteArray) e.type_length = 16;
      e.converted_type = ConvertedType::kDecimal;
      e.precision = type->precision();
      e.scale = type->scale();
      e.logical_type.kind = LogicalType::kDecimal;
      e.logical_type.precision = type->precision();
      e.logical_type.scale = type->scale();
      break;
    case TypeId::kDate32:
      e.type = PhysicalType::kInt32;
      e.converted_type = ConvertedType::kDate;
      e.logical_type.kind = LogicalType::kDate;
      break;
    case TypeId::kTimestamp: {
      e.type = PhysicalType::kInt64;
      e.logical_type.kind = LogicalType::kTimestamp;
      e.logical_type.adjusted_to_utc = !type->timezone().empty();
      // Parquet has no seconds: they are written as milliseconds.
      e.logical_type.unit = type->unit() == TimeUnit::kMicro  ? LogicalType::kMicros
                            : type->unit() == TimeUnit::kNano ? LogicalType::kNanos
                                                              : LogicalType::kMillis;
      if (e.logical_type.adjusted_to_utc && e.logical_type.unit != LogicalType::kNanos)
        e.converted_type = e.logical_type.unit == LogicalType::kMillis
                               ? ConvertedType::kTimestampMillis
                               : ConvertedType::kTimestampMicros;
      break;
    }
    case TypeId::kTime64:
      e.type = PhysicalType::kInt64;
      e.logical_type.kind = LogicalType::kTime;
      e.logical_type.adjusted_to_utc = false;
      e.logical_type.unit = type->unit() == TimeUnit::kNano ? LogicalType::kNanos : LogicalType::kMicros;
      if (type->unit() == TimeUnit::kMicro) e.converted_type = ConvertedType::kTimeMicros;
      break;
    case TypeId::kDuration:
      return Status::NotImplemented("Parquet has no duration type: cast column '" + field.name +
                                    "' to int64 to write it");
    case TypeId::kString:
    case TypeId::kLargeString:
      e.type = PhysicalType::kByteArray;
      e.converted_type = ConvertedType::kUtf8;
      e.logical_type.kind = LogicalType::kString;
      break;
    case TypeId::kBinary:
    case TypeId::kLargeBinary: e.type = PhysicalType::kByteArray; break;
    case TypeId::kFixedSizeBinary:
      e.type = PhysicalType::kFixedLenByteArray;
      e.type_length = type->fixed_size();
      break;
    case TypeId::kList:
    case TypeId::kFixedSizeList: {
      e.num_children = 1;
      e.converted_type = ConvertedType::kList;
      e.logical_type.kind = LogicalType::kList;
      out->push_back(e);
      SchemaElement repeated;
      repeated.name = "list";
      repeated.repetition = Repetition::kRepeated;
      repeated.num_children = 1;
      out->push_back(repeated);
      Field element = type->fields()[0];
      element.name = "element";
      return AddElements(element, out);
    }
    case TypeId::kStruct: {
      if (type->fields().empty())
        return Status::NotImplemented("Parquet cannot store the empty struct '" + field.name + "'");
      e.num_children = static_cast<int32_t>(type->fields().size());
      out->push_back(e);
      for (const Field& child : type->fields()) FLOTILLA_RETURN_NOT_OK(AddElements(child, out));
      return Status::OK();
    }
    default:
      return Status::NotImplemented("writing " + type->ToString() + " column '" + field.name +
                                    "' to Parquet");
  }
  out->push_back(e);
  return Status::OK();
}

// --- shredding ---------------------------------------------------------------------------------

// A leaf's levels and dense values for the rows buffered in a row group.
struct LeafBuffer {
  std::vector<int16_t> def, rep;
  std::string fixed;              // fixed-width values (booleans: one byte each)
  std::vector<uint32_t> offsets{0};  // byte arrays: value i is data[offsets[i], offsets[i+1])
  std::string data;
  int64_t values = 0;
  int64_t nulls = 0;

  // Keeps the capacity: the next row group fills the same memory instead of fresh pages.
  void Clear() {
    def.clear();
    rep.clear();
    fixed.clear();
    offsets.assign(1, 0);
    data.clear();
    values = 0;
    nulls = 0;
  }
  std::string_view Value(int64_t i, int width) const {
    if (width == 0) return std::string_view(data).substr(offsets[i], offsets[i + 1] - offsets[i]);
    return std::string_view(fixed).substr(static_cast<size_t>(i * width), static_cast<size_t>(width));
  }
};

template <typename T>
void Put(std::string* out, T v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(T));
}

class Shredder {
 public:
  Shredder(const FileSchema& schema, std::vector<LeafBuffer>* leaves)
      : schema_(schema), leaves_(*leaves) {}

  /// Rows [begin, end) of a top-level column that is a leaf: levels from the validity bitmap,
  /// values appended in bulk where the layouts match.
  void FlatRows(const SchemaNode& node, const Array& a, int64_t begin, int64_t end) {
    LeafBuffer& leaf = leaves_[node.leaf];
    const bool has_def = schema_.leaves[node.leaf].max_def > 0;
    const bool nulls = a.null_count() > 0;
    if (has_def) {
      const size_t at = leaf.def.size();
      leaf.def.resize(at + static_cast<size_t>(end - begin), node.def_level);
      if (nulls)
        for (int64_t i = begin; i < end; ++i)
          if (a.IsNull(i)) {
            leaf.def[at + static_cast<size_t>(i - begin)] = 0;
            ++leaf.nulls;
          }
    }
    const DataType& t = *a.type();
    const bool same_layout =
        t.id() == TypeId::kInt32 || t.id() == TypeId::kUInt32 || t.id() == TypeId::kDate32 ||
        t.id() == TypeId::kFloat32 || t.id() == TypeId::kInt64 || t.id() == TypeId::kUInt64 ||
        t.id() == TypeId::kFloat64 || t.id() == TypeId::kTime64 ||
        (t.id() == TypeId::kTimestamp && t.unit() != TimeUnit::kSecond);
    if (!nulls && same_layout) {
      const int width = t.byte_width();
      leaf.fixed.append(reinterpret_cast<const char*>(a.raw_values()) + (a.offset() + begin) * width,
                        static_cast<size_t>((end - begin) * width));
      leaf.values += end - begin;
      return;
    }
    if (!nulls && t.id() == TypeId::kString) {
      const int32_t* offsets = a.values<int32_t>();  // the offsets buffer, at the array's offset
      const int32_t first = offsets[begin], last = offsets[end];
      const size_t base = leaf.data.size();
      leaf.data.append(reinterpret_cast<const char*>(a.data()->buffers[2]->data()) + first,
                       static_cast<size_t>(last - first));
      leaf.offsets.reserve(leaf.offsets.size() + static_cast<size_t>(end - begin));
      for (int64_t i = begin; i < end; ++i)
        leaf.offsets.push_back(static_cast<uint32_t>(base + static_cast<size_t>(offsets[i + 1] - first)));
      leaf.values += end - begin;
      return;
    }
    for (int64_t i = begin; i < end; ++i)
      if (!nulls || !a.IsNull(i)) AppendValue(node, a, i, &leaf);
  }

  void Row(const SchemaNode& node, const Array& a, int64_t i, int16_t d, int16_t r) {
    if (node.nullable && a.IsNull(i)) return Empty(node, d, r);
    const int16_t present = node.def_level;
    switch (node.kind) {
      case SchemaNode::Kind::kLeaf: {
        LeafBuffer& leaf = leaves_[node.leaf];
        if (schema_.leaves[node.leaf].max_def > 0) leaf.def.push_back(present);
        if (schema_.leaves[node.leaf].max_rep > 0) leaf.rep.push_back(r);
        AppendValue(node, a, i, &leaf);
        return;
      }
      case SchemaNode::Kind::kStruct:
        for (size_t f = 0; f < node.children.size(); ++f)
          Row(node.children[f], a.field(static_cast<int>(f)), i, present, r);
        return;
      case SchemaNode::Kind::kList: {
        int64_t begin, end;
        Array values;
        if (a.type_id() == TypeId::kFixedSizeList) {
          const int64_t size = a.type()->fixed_size();
          begin = (a.offset() + i) * size;
          end = begin + size;
          values = a.child(0);
        } else {
          begin = a.ValueOffset(i);
          end = a.ValueOffset(i + 1);
          values = a.child(0);
        }
        if (begin == end) return Empty(node, present, r);
        for (int64_t k = begin; k < end; ++k)
          Row(node.children[0], values, k, node.element_def, k == begin ? r : node.rep_level);
        return;
      }
    }
  }

 private:
  // A null (or empty list) at definition level `d`: one entry in every leaf below.
  void Empty(const SchemaNode& node, int16_t d, int16_t r) {
    for (int l = node.first_leaf; l < node.end_leaf; ++l) {
      LeafBuffer& leaf = leaves_[l];
      if (schema_.leaves[l].max_def > 0) leaf.def.push_back(d);
      if (schema_.leaves[l].max_rep > 0) leaf.rep.push_back(r);
      ++leaf.nulls;
    }
  }

  static void AppendValue(const SchemaNode& node, const Array& a, int64_t i, LeafBuffer* leaf) {
    ++leaf->values;
    const DataType& t = *a.type();
    switch (t.id()) {
      case TypeId::kBool: leaf->fixed.push_back(a.BoolValue(i) ? 1 : 0); return;
      case TypeId::kInt8: return Put<int32_t>(&leaf->fixed, a.values<int8_t>()[i]);
      case TypeId::kInt16: return Put<int32_t>(&leaf->fixed, a.values<int16_t>()[i]);
      case TypeId::kUInt8: return Put<int32_t>(&leaf->fixed, a.values<uint8_t>()[i]);
      case TypeId::kUInt16: return Put<int32_t>(&leaf->fixed, a.values<uint16_t>()[i]);
      case TypeId::kInt32:
      case TypeId::kUInt32:
      case TypeId::kDate32:
      case TypeId::kFloat32: leaf->fixed.append(reinterpret_cast<const char*>(a.values<int32_t>() + i), 4); return;
      case TypeId::kTimestamp:
        if (t.unit() == TimeUnit::kSecond) return Put<int64_t>(&leaf->fixed, a.values<int64_t>()[i] * 1000);
        [[fallthrough]];
      case TypeId::kInt64:
      case TypeId::kUInt64:
      case TypeId::kTime64:
      case TypeId::kFloat64: leaf->fixed.append(reinterpret_cast<const char*>(a.values<int64_t>() + i), 8); return;
      case TypeId::kDecimal128: {
        const Int128 v = a.values<Int128>()[i];
        if (t.precision() <= 9) return Put<int32_t>(&leaf->fixed, static_cast<int32_t>(v));
        if (t.precision() <= 18) return Put<int64_t>(&leaf->fixed, static_cast<int64_t>(v));
        char be[16];
        for (int k = 0; k < 16; ++k) be[k] = static_cast<char>(static_cast<unsigned __int128>(v) >> (8 * (15 - k)));
        leaf->fixed.append(be, 16);
        return;
      }
      case TypeId::kFixedSizeBinary: leaf->fixed.append(a.GetView(i)); return;
      case TypeId::kNull: return;
      default: {  // string and binary
        const std::string_view v = a.GetView(i);
        leaf->data.append(v);
        leaf->offsets.push_back(static_cast<uint32_t>(leaf->data.size()));
        return;
      }
    }
  }

  const FileSchema& schema_;
  std::vector<LeafBuffer>& leaves_;
};

// --- statistics --------------------------------------------------------------------------------

enum class Order { kNone, kSigned32, kUnsigned32, kSigned64, kUnsigned64, kFloat, kDouble,
                   kBytes, kSignedBytes, kBool };

Order OrderOf(const ColumnDescriptor& c) {
  const TypeId id = c.type->id();
  switch (*c.element.type) {
    case PhysicalType::kBoolean: return Order::kBool;
    case PhysicalType::kInt32:
      if (c.type->id() == TypeId::kNull) return Order::kNone;
      return id == TypeId::kUInt8 || id == TypeId::kUInt16 || id == TypeId::kUInt32
                 ? Order::kUnsigned32 : Order::kSigned32;
    case PhysicalType::kInt64: return id == TypeId::kUInt64 ? Order::kUnsigned64 : Order::kSigned64;
    case PhysicalType::kFloat: return Order::kFloat;
    case PhysicalType::kDouble: return Order::kDouble;
    case PhysicalType::kByteArray: return Order::kBytes;
    case PhysicalType::kFixedLenByteArray:
      return id == TypeId::kDecimal128 ? Order::kSignedBytes : Order::kBytes;
    default: return Order::kNone;
  }
}

// a < b in the column's order (NaN never reaches here).
bool Less(Order order, std::string_view a, std::string_view b) {
  auto load = [](std::string_view s, auto v) { std::memcpy(&v, s.data(), sizeof(v)); return v; };
  switch (order) {
    case Order::kBool: return a[0] < b[0];
    case Order::kSigned32: return load(a, int32_t{}) < load(b, int32_t{});
    case Order::kUnsigned32: return load(a, uint32_t{}) < load(b, uint32_t{});
    case Order::kSigned64: return load(a, int64_t{}) < load(b, int64_t{});
    case Order::kUnsigned64: return load(a, uint64_t{}) < load(b, uint64_t{});
    case Order::kFloat: return load(a, float{}) < load(b, float{});
    case Order::kDouble: return load(a, double{}) < load(b, double{});
    case Order::kBytes: return a < b;  // std::string_view compares bytes as unsigned char
    case Order::kSignedBytes: {
      const bool na = static_cast<unsigned char>(a[0]) & 0x80, nb = static_cast<unsigned char>(b[0]) & 0x80;
      if (na != nb) return na;
      return a < b;
    }
    case Order::kNone: return false;
  }
  return false;
}

bool IsNaN(Order order, std::string_view v) {
  if (order == Order::kFloat) { float f; std::memcpy(&f, v.data(), 4); return f != f; }
  if (order == Order::kDouble) { double d; std::memcpy(&d, v.data(), 8); return d != d; }
  return false;
}

// --- column chunks -----------------------------------------------------------------------------

// A column chunk's metadata and its page index (written after the row groups, before the
// footer). Offsets are relative to the chunk's start until the chunk is placed in the file.
struct EncodedChunk {
  ColumnChunk chunk;
  std::optional<ColumnIndex> column_index;  // none when the column has no order or NaN pages
  OffsetIndex offset_index;
};

class ChunkWriter {
 public:
  ChunkWriter(const ColumnDescriptor& column, const ParquetWriteOptions& options, PageCodec* codec)
      : column_(column), options_(options), codec_(codec),
        width_(column.physical_width()) {}

  // Encodes `leaf` as one column chunk appended to `out` at file offset `base`.
  Result<EncodedChunk> Write(const LeafBuffer& leaf, int64_t base, std::string* out) {
    ColumnMetaData meta;
    meta.type = *column_.element.type;
    meta.path_in_schema = column_.path_in_schema;
    meta.codec = options_.codec;
    const int64_t entries = std::max<int64_t>(
        static_cast<int64_t>(leaf.def.size()),
        column_.max_def > 0 ? 0 : leaf.values);
    meta.num_values = entries;
    const size_t start = out->size();
    const bool null_column = column_.type->id() == TypeId::kNull;

    // Dictionary: each distinct value once, in first-seen order.
    std::vector<uint32_t> indices;
    std::vector<int64_t> dict;
    bool use_dict = options_.dictionary && *column_.element.type != PhysicalType::kBoolean &&
                    leaf.values > 0 && !null_column;
    if (use_dict) {
      // Open addressing over value bytes: slots hold dictionary index + 1 (0: empty).
      size_t mask = 1023;
      std::vector<uint32_t> slots(mask + 1, 0);
      std::vector<uint64_t> hashes;  // of each dictionary entry, for regrowing
      indices.resize(static_cast<size_t>(leaf.values));
      int64_t dict_bytes = 0;
      for (int64_t i = 0; i < leaf.values && use_dict; ++i) {
        const std::string_view v = leaf.Value(i, width_);
        const uint64_t h = XXH3_64bits(v.data(), v.size());
        size_t at = h & mask;
        while (slots[at] != 0 && leaf.Value(dict[slots[at] - 1], width_) != v) at = (at + 1) & mask;
        if (slots[at] == 0) {
          dict.push_back(i);
          hashes.push_back(h);
          slots[at] = static_cast<uint32_t>(dict.size());
          dict_bytes += static_cast<int64_t>(v.size()) + (width_ == 0 ? 4 : 0);
          if (dict_bytes > options_.dictionary_bytes) use_dict = false;
        }
        indices[static_cast<size_t>(i)] = slots[at] - 1;
        if (dict.size() * 2 > mask) {  // keep the table at most half full
          mask = mask * 2 + 1;
          slots.assign(mask + 1, 0);
          for (size_t d = 0; d < dict.size(); ++d) {
            size_t k = hashes[d] & mask;
            while (slots[k] != 0) k = (k + 1) & mask;
            slots[k] = static_cast<uint32_t>(d + 1);
          }
        }
      }
    }
    if (use_dict) {
      std::string plain;
      for (int64_t i : dict) PlainValue(leaf, i, &plain);
      PageHeader h;
      h.type = PageType::kDictionaryPage;
      h.dictionary_page_header = DictionaryPageHeader{static_cast<int32_t>(dict.size()), Encoding::kPlain, false};
      meta.dictionary_page_offset = base + static_cast<int64_t>(out->size() - start);
      FLOTILLA_RETURN_NOT_OK(WritePage(&h, plain, out, &meta));
      meta.encodings = {Encoding::kPlain, Encoding::kRle, Encoding::kRleDictionary};
    } else {
      meta.encodings = {Encoding::kPlain, Encoding::kRle};
    }
    meta.data_page_offset = base + static_cast<int64_t>(out->size() - start);
    const int bit_width = use_dict ? std::max(1, BitWidthFor(dict.size() - 1)) : 0;
    const Order order = options_.statistics ? OrderOf(column_) : Order::kNone;
    if (use_dict && order != Order::kNone) RankDictionary(leaf, dict, order);
    EncodedChunk encoded;
    ColumnIndex& column_index = encoded.column_index.emplace();
    bool column_index_valid = order != Order::kNone;

    // Data pages, cut at row starts once a page holds about page_bytes of values or page_rows
    // rows (small enough pages let the page index skip parts of a row group).
    int64_t entry = 0, value = 0, row = 0;
    std::string body;
    while (entry < entries) {
      const int64_t first_entry = entry, first_value = value, first_row = row;
      int64_t bytes = 0;
      while (entry < entries) {
        const bool present = column_.max_def == 0 || leaf.def[entry] == column_.max_def;
        if (present && !null_column) {
          bytes += use_dict ? 1 + bit_width / 8 : (width_ ? width_ : 4 + static_cast<int64_t>(leaf.Value(value, 0).size()));
          ++value;
        }
        ++entry;
        const bool row_start = column_.max_rep == 0 || entry == entries || leaf.rep[entry] == 0;
        if (row_start) ++row;
        if (entry < entries && row_start &&
            (bytes >= options_.page_bytes || row - first_row >= options_.page_rows))
          break;
      }
      if (column_index_valid) {
        const PageBounds bounds = Bounds(leaf, first_value, value, use_dict ? &indices : nullptr, order);
        column_index.null_pages.push_back(value == first_value);
        column_index.null_counts.push_back((entry - first_entry) - (value - first_value));
        column_index.min_values.push_back(bounds.min);
        column_index.max_values.push_back(bounds.max);
        // A page of only NaNs has no min/max to state: no column index for this chunk.
        if (value > first_value && !bounds.known) column_index_valid = false;
      }
      const int64_t page_offset = static_cast<int64_t>(out->size() - start);
      body.clear();
      if (column_.max_rep > 0) Levels(leaf.rep.data() + first_entry, entry - first_entry, column_.max_rep, &body);
      if (column_.max_def > 0) Levels(leaf.def.data() + first_entry, entry - first_entry, column_.max_def, &body);
      if (use_dict) {
        body.push_back(static_cast<char>(bit_width));
        RleEncode(indices.data() + first_value, value - first_value, bit_width, &body);
      } else if (*column_.element.type == PhysicalType::kBoolean) {
        const size_t at = body.size();
        body.resize(at + static_cast<size_t>((value - first_value + 7) / 8), '\0');
        for (int64_t i = first_value; i < value; ++i)
          if (leaf.fixed[i]) body[at + (i - first_value) / 8] |= static_cast<char>(1 << ((i - first_value) % 8));
      } else {
        for (int64_t i = first_value; i < value; ++i) PlainValue(leaf, i, &body);
      }
      PageHeader h;
      h.type = PageType::kDataPage;
      h.data_page_header = DataPageHeader{static_cast<int32_t>(entry - first_entry),
                                          use_dict ? Encoding::kRleDictionary : Encoding::kPlain,
                                          Encoding::kRle, Encoding::kRle, std::nullopt};
      FLOTILLA_RETURN_NOT_OK(WritePage(&h, body, out, &meta));
      encoded.offset_index.page_locations.push_back(
          PageLocation{base + page_offset,
                       static_cast<int32_t>(out->size() - start - page_offset), first_row});
    }
    if (entries == 0) {  // an empty row group still has one (empty) page per column
      PageHeader h;
      h.type = PageType::kDataPage;
      h.data_page_header = DataPageHeader{0, Encoding::kPlain, Encoding::kRle, Encoding::kRle, std::nullopt};
      const int64_t page_offset = static_cast<int64_t>(out->size() - start);
      FLOTILLA_RETURN_NOT_OK(WritePage(&h, "", out, &meta));
      encoded.offset_index.page_locations.push_back(PageLocation{
          base + page_offset, static_cast<int32_t>(out->size() - start - page_offset), 0});
    }
    meta.total_compressed_size = static_cast<int64_t>(out->size() - start);
    if (options_.statistics) {
      meta.statistics = column_index_valid ? ChunkStatsOfPages(leaf, column_index, order)
                                           : Stats(leaf, use_dict ? &dict : nullptr);
    }
    if (column_index_valid && !column_index.null_pages.empty()) {
      column_index.boundary_order = BoundaryOrderOf(column_index, order);
    } else {
      encoded.column_index.reset();
    }
    encoded.chunk.file_offset = meta.data_page_offset;
    encoded.chunk.meta_data = std::move(meta);
    return encoded;
  }

 private:
  void PlainValue(const LeafBuffer& leaf, int64_t i, std::string* out) const {
    const std::string_view v = leaf.Value(i, width_);
    if (width_ == 0) Put<uint32_t>(out, static_cast<uint32_t>(v.size()));
    out->append(v);
  }

  static void Levels(const int16_t* levels, int64_t n, int16_t max_level, std::string* out) {
    std::string encoded;
    RleEncodeLevels(levels, n, BitWidthFor(static_cast<uint64_t>(max_level)), &encoded);
    Put<uint32_t>(out, static_cast<uint32_t>(encoded.size()));
    out->append(encoded);
  }

  Status WritePage(PageHeader* h, std::string_view body, std::string* out, ColumnMetaData* meta) {
    std::string& compressed = compressed_;
    compressed.clear();
    FLOTILLA_RETURN_NOT_OK(codec_->Compress(reinterpret_cast<const uint8_t*>(body.data()),
                                            static_cast<int64_t>(body.size()), &compressed));
    h->uncompressed_page_size = static_cast<int32_t>(body.size());
    h->compressed_page_size = static_cast<int32_t>(compressed.size());
    const std::string header = EncodePageHeader(*h);
    out->append(header);
    out->append(compressed);
    meta->total_uncompressed_size += static_cast<int64_t>(header.size() + body.size());
    return Status::OK();
  }

  // rank_[entry]: the dictionary entry's position in the column's order (kNoRank for NaN).
  void RankDictionary(const LeafBuffer& leaf, const std::vector<int64_t>& dict, Order order) {
    std::vector<uint32_t> sorted;
    for (size_t d = 0; d < dict.size(); ++d)
      if (!IsNaN(order, leaf.Value(dict[d], width_))) sorted.push_back(static_cast<uint32_t>(d));
    std::sort(sorted.begin(), sorted.end(), [&](uint32_t a, uint32_t b) {
      return Less(order, leaf.Value(dict[a], width_), leaf.Value(dict[b], width_));
    });
    rank_.assign(dict.size(), kNoRank);
    by_rank_.assign(sorted.size(), 0);
    for (size_t r = 0; r < sorted.size(); ++r) {
      rank_[sorted[r]] = static_cast<uint32_t>(r);
      by_rank_[r] = dict[sorted[r]];
    }
  }

  struct PageBounds {
    bool known = false;  // false when the page has no value other than NaN
    std::string min, max;
  };

  // Min and max of values [begin, end): integer comparisons of dictionary ranks, or the
  // values themselves.
  PageBounds Bounds(const LeafBuffer& leaf, int64_t begin, int64_t end,
                    const std::vector<uint32_t>* indices, Order order) const {
    PageBounds b;
    if (indices) {
      uint32_t lo = kNoRank, hi = 0;
      for (int64_t i = begin; i < end; ++i) {
        const uint32_t r = rank_[(*indices)[static_cast<size_t>(i)]];
        if (r == kNoRank) continue;
        lo = std::min(lo, r);
        hi = std::max(hi, r);
      }
      if (lo == kNoRank) return b;
      b.known = true;
      b.min = std::string(leaf.Value(by_rank_[lo], width_));
      b.max = std::string(leaf.Value(by_rank_[hi], width_));
      return b;
    }
    std::string_view min, max;
    for (int64_t i = begin; i < end; ++i) {
      const std::string_view v = leaf.Value(i, width_);
      if (IsNaN(order, v)) continue;
      if (!b.known || Less(order, v, min)) min = v;
      if (!b.known || Less(order, max, v)) max = v;
      b.known = true;
    }
    b.min = std::string(min);
    b.max = std::string(max);
    return b;
  }

  // The chunk's statistics from its pages' (every value is in some page).
  static Statistics ChunkStatsOfPages(const LeafBuffer& leaf, const ColumnIndex& pages,
                                      Order order) {
    Statistics s;
    s.null_count = leaf.nulls;
    const std::string* min = nullptr;
    const std::string* max = nullptr;
    for (size_t p = 0; p < pages.null_pages.size(); ++p) {
      if (pages.null_pages[p]) continue;
      if (!min || Less(order, pages.min_values[p], *min)) min = &pages.min_values[p];
      if (!max || Less(order, *max, pages.max_values[p])) max = &pages.max_values[p];
    }
    if (min) {
      s.min_value = *min;
      s.max_value = *max;
    }
    return s;
  }

  static BoundaryOrder BoundaryOrderOf(const ColumnIndex& pages, Order order) {
    bool ascending = true, descending = true;
    const std::string* last_min = nullptr;
    const std::string* last_max = nullptr;
    for (size_t p = 0; p < pages.null_pages.size(); ++p) {
      if (pages.null_pages[p]) continue;
      if (last_min) {
        if (Less(order, pages.min_values[p], *last_min) || Less(order, pages.max_values[p], *last_max))
          ascending = false;
        if (Less(order, *last_min, pages.min_values[p]) || Less(order, *last_max, pages.max_values[p]))
          descending = false;
      }
      last_min = &pages.min_values[p];
      last_max = &pages.max_values[p];
    }
    if (ascending) return BoundaryOrder::kAscending;
    if (descending) return BoundaryOrder::kDescending;
    return BoundaryOrder::kUnordered;
  }

  // Min and max over the values, or only over the distinct ones when a dictionary holds them.
  Statistics Stats(const LeafBuffer& leaf, const std::vector<int64_t>* dict) const {
    Statistics s;
    s.null_count = leaf.nulls;
    const Order order = OrderOf(column_);
    if (order == Order::kNone) return s;
    std::string_view min, max;
    bool any = false;
    const int64_t n = dict ? static_cast<int64_t>(dict->size()) : leaf.values;
    for (int64_t k = 0; k < n; ++k) {
      const std::string_view v = leaf.Value(dict ? (*dict)[static_cast<size_t>(k)] : k, width_);
      if (IsNaN(order, v)) continue;
      if (!any || Less(order, v, min)) min = v;
      if (!any || Less(order, max, v)) max = v;
      any = true;
    }
    if (any) {
      s.min_value = std::string(min);
      s.max_value = std::string(max);
    }
    return s;
  }

  const ColumnDescriptor& column_;
  const ParquetWriteOptions& options_;
  PageCodec* codec_;
  int width_;
  std::string compressed_;  // reused by every page
  static constexpr uint32_t kNoRank = UINT32_MAX;
  std::vector<uint32_t> rank_;    // per dictionary entry
  std::vector<int64_t> by_rank_;  // the value (leaf position) of each rank
};

}  // namespace

struct ParquetFileWriter::Impl {
  std::unique_ptr<io::OutputStream> out;
  SchemaPtr schema;
  ParquetWriteOptions options;
  FileMetaData metadata;
  FileSchema file_schema;
  std::unique_ptr<PageCodec> codec;
  std::vector<LeafBuffer> leaves;
  std::vector<std::string> chunk_bytes;  // one per leaf, reused by every row group
  // The page index of every chunk so far, per row group and leaf: written at Close.
  std::vector<std::vector<std::optional<ColumnIndex>>> column_indexes;
  std::vector<std::vector<OffsetIndex>> offset_indexes;
  int64_t buffered_rows = 0;
  bool closed = false;

  Status WritePageIndex();

  int64_t BufferedBytes() const {
    int64_t bytes = 0;
    for (const LeafBuffer& l : leaves)
      bytes += static_cast<int64_t>(l.fixed.size() + l.data.size() + l.offsets.size() * 4 +
                                    (l.def.size() + l.rep.size()) * 2);
    return bytes;
  }

  // Encodes the buffered leaves as one row group, the column chunks on several threads (each
  // with its own codec), and writes them in column order.
  Status Flush() {
    if (buffered_rows == 0 && !metadata.row_groups.empty()) return Status::OK();
    RowGroup rg;
    rg.num_rows = buffered_rows;
    rg.file_offset = out->Tell();
    const size_t n = leaves.size();
    std::vector<std::string>& bytes = chunk_bytes;
    bytes.resize(n);
    for (std::string& b : bytes) b.clear();
    std::vector<Result<EncodedChunk>> chunks(n, Status::Internal("column chunk not encoded"));
    std::atomic<size_t> next{0};
    auto work = [&]() {
      auto local = PageCodec::Make(options.codec, options.compression_level);
      for (size_t l = next++; l < n; l = next++) {
        if (!local.ok()) {
          chunks[l] = local.status();
          continue;
        }
        ChunkWriter writer(file_schema.leaves[l], options, local->get());
        chunks[l] = writer.Write(leaves[l], 0, &bytes[l]);
        leaves[l].Clear();
      }
    };
    const int threads = std::min<int>(static_cast<int>(n), options.encode_threads > 0
                                                               ? options.encode_threads
                                                               : static_cast<int>(std::thread::hardware_concurrency()));
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
    int64_t base = out->Tell(), compressed = 0;
    std::vector<std::optional<ColumnIndex>> rg_column_indexes;
    std::vector<OffsetIndex> rg_offset_indexes;
    for (size_t l = 0; l < n; ++l) {
      FLOTILLA_RETURN_NOT_OK(chunks[l].status());
      ColumnChunk& chunk = chunks[l]->chunk;
      if (!chunk.meta_data.has_value()) return Status::Internal("column chunk without metadata");
      ColumnMetaData& meta = chunk.meta_data.value();
      // Chunks were encoded at offset 0: move them to where they land.
      chunk.file_offset += base;
      meta.data_page_offset += base;
      if (meta.dictionary_page_offset) *meta.dictionary_page_offset += base;
      for (PageLocation& page : chunks[l]->offset_index.page_locations) page.offset += base;
      rg_column_indexes.push_back(std::move(chunks[l]->column_index));
      rg_offset_indexes.push_back(std::move(chunks[l]->offset_index));
      rg.total_byte_size += meta.total_uncompressed_size;
      compressed += static_cast<int64_t>(bytes[l].size());
      rg.columns.push_back(std::move(chunk));
      FLOTILLA_RETURN_NOT_OK(out->Write(bytes[l].data(), static_cast<int64_t>(bytes[l].size())));
      base += static_cast<int64_t>(bytes[l].size());
    }
    rg.total_compressed_size = compressed;
    rg.ordinal = static_cast<int16_t>(metadata.row_groups.size());
    metadata.num_rows += buffered_rows;
    metadata.row_groups.push_back(std::move(rg));
    column_indexes.push_back(std::move(rg_column_indexes));
    offset_indexes.push_back(std::move(rg_offset_indexes));
    buffered_rows = 0;
    return Status::OK();
  }
};

// The page index after the row groups, as the format places it: every column index, then every
// offset index, each chunk's metadata pointing at its own.
Status ParquetFileWriter::Impl::WritePageIndex() {
  for (size_t g = 0; g < metadata.row_groups.size(); ++g) {
    for (size_t l = 0; l < column_indexes[g].size(); ++l) {
      if (!column_indexes[g][l]) continue;
      const std::string bytes = EncodeColumnIndex(*column_indexes[g][l]);
      ColumnChunk& chunk = metadata.row_groups[g].columns[l];
      chunk.column_index_offset = out->Tell();
      chunk.column_index_length = static_cast<int32_t>(bytes.size());
      FLOTILLA_RETURN_NOT_OK(out->Write(bytes.data(), static_cast<int64_t>(bytes.size())));
    }
  }
  for (size_t g = 0; g < metadata.row_groups.size(); ++g) {
    for (size_t l = 0; l < offset_indexes[g].size(); ++l) {
      const std::string bytes = EncodeOffsetIndex(offset_indexes[g][l]);
      ColumnChunk& chunk = metadata.row_groups[g].columns[l];
      chunk.offset_index_offset = out->Tell();
      chunk.offset_index_length = static_cast<int32_t>(bytes.size());
      FLOTILLA_RETURN_NOT_OK(out->Write(bytes.data(), static_cast<int64_t>(bytes.size())));
    }
  }
  column_indexes.clear();
  offset_indexes.clear();
  return Status::OK();
}

ParquetFileWriter::ParquetFileWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ParquetFileWriter::~ParquetFileWriter() = default;

int64_t ParquetFileWriter::bytes_written() const { return impl_->out->Tell(); }

Result<std::unique_ptr<ParquetFileWriter>> ParquetFileWriter::Open(
    std::unique_ptr<io::OutputStream> out, SchemaPtr schema, ParquetWriteOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->schema = schema;
  SchemaElement root;
  root.name = "schema";
  root.num_children = schema->num_fields();
  impl->metadata.schema.push_back(root);
  for (const Field& f : schema->fields())
    FLOTILLA_RETURN_NOT_OK(AddElements(f, &impl->metadata.schema));
  if (schema->num_fields() == 0) return Status::Invalid("cannot write Parquet without columns");
  FLOTILLA_ASSIGN_OR_RETURN(impl->file_schema, BuildFileSchema(impl->metadata));
  impl->metadata.version = 1;
  impl->metadata.created_by = "flotilla";
  impl->metadata.type_defined_order.assign(impl->file_schema.leaves.size(), true);
  FLOTILLA_ASSIGN_OR_RETURN(impl->codec, PageCodec::Make(options.codec, options.compression_level));
  impl->leaves.resize(impl->file_schema.leaves.size());
  FLOTILLA_RETURN_NOT_OK(out->Write(kMagic, 4));
  impl->out = std::move(out);
  return std::unique_ptr<ParquetFileWriter>(new ParquetFileWriter(std::move(impl)));
}

Status ParquetFileWriter::Write(const RecordBatch& batch) {
  Impl& s = *impl_;
  if (s.closed) return Status::Invalid("write to a closed Parquet writer");
  if (batch.num_columns() != s.schema->num_fields())
    return Status::Invalid("batch of " + std::to_string(batch.num_columns()) +
                           " columns for a Parquet file of " + std::to_string(s.schema->num_fields()));
  std::vector<Array> columns;
  for (int c = 0; c < batch.num_columns(); ++c) {
    Array column = batch.column(c);
    const TypePtr want = StorageType(s.schema->field(c).type);
    if (column.type_id() == TypeId::kDictionary) {
      FLOTILLA_ASSIGN_OR_RETURN(column, compute::Cast(column, want));
    }
    if (!column.type()->Equals(*want))
      return Status::TypeError("column '" + s.schema->field(c).name + "' is " +
                               column.type()->ToString() + ", the Parquet file's schema says " +
                               want->ToString());
    columns.push_back(std::move(column));
  }
  Shredder shredder(s.file_schema, &s.leaves);
  // Slices of at most 4096 rows, so that a row group ends near its byte target.
  for (int64_t row = 0; row < batch.num_rows();) {
    const int64_t take = std::min<int64_t>({batch.num_rows() - row, 4096,
                                            s.options.row_group_rows - s.buffered_rows});
    for (size_t c = 0; c < columns.size(); ++c) {
      const SchemaNode& node = s.file_schema.fields[c];
      if (node.kind == SchemaNode::Kind::kLeaf) {
        shredder.FlatRows(node, columns[c], row, row + take);
      } else {
        for (int64_t r = row; r < row + take; ++r) shredder.Row(node, columns[c], r, 0, 0);
      }
    }
    row += take;
    s.buffered_rows += take;
    rows_written_ += take;
    if (s.buffered_rows >= s.options.row_group_rows || s.BufferedBytes() >= s.options.row_group_bytes)
      FLOTILLA_RETURN_NOT_OK(s.Flush());
  }
  return Status::OK();
}

Status ParquetFileWriter::Close() {
  Impl& s = *impl_;
  if (s.closed) return Status::OK();
  s.closed = true;
  if (s.buffered_rows > 0 || s.metadata.row_groups.empty()) FLOTILLA_RETURN_NOT_OK(s.Flush());
  FLOTILLA_RETURN_NOT_OK(s.WritePageIndex());
  const std::string footer = EncodeFileMetaData(s.metadata);
  FLOTILLA_RETURN_NOT_OK(s.out->Write(footer.data(), static_cast<int64_t>(footer.size())));
  const uint32_t length = static_cast<uint32_t>(footer.size());
  FLOTILLA_RETURN_NOT_OK(s.out->Write(&length, 4));
  FLOTILLA_RETURN_NOT_OK(s.out->Write(kMagic, 4));
  return s.out->Close();
}

Status WriteParquetFile(const std::string& path, const SchemaPtr& schema,
                        const std::vector<RecordBatch>& batches, const ParquetWriteOptions& options) {
  return io::WriteFileAtomically(path, [&](std::unique_ptr<io::OutputStream> stream) -> Status {
    FLOTILLA_ASSIGN_OR_RETURN(auto writer, ParquetFileWriter::Open(std::move(stream), schema, options));
    for (const RecordBatch& b : batches) FLOTILLA_RETURN_NOT_OK(writer->Write(b));
    return writer->Close();
  });
}

}  // namespace flotilla::parquet
