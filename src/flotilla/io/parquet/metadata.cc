#include "flotilla/io/parquet/metadata.h"

#include "flotilla/io/parquet/thrift_compact.h"

namespace flotilla::io::parquet {

const char* PhysicalTypeName(PhysicalType type) {
  switch (type) {
    case PhysicalType::kBoolean:
      return "BOOLEAN";
    case PhysicalType::kInt32:
      return "INT32";
    case PhysicalType::kInt64:
      return "INT64";
    case PhysicalType::kInt96:
      return "INT96";
    case PhysicalType::kFloat:
      return "FLOAT";
    case PhysicalType::kDouble:
      return "DOUBLE";
    case PhysicalType::kByteArray:
      return "BYTE_ARRAY";
    case PhysicalType::kFixedLenByteArray:
      return "FIXED_LEN_BYTE_ARRAY";
  }
  return "?";
}

const char* EncodingName(Encoding encoding) {
  switch (encoding) {
    case Encoding::kPlain:
      return "PLAIN";
    case Encoding::kPlainDictionary:
      return "PLAIN_DICTIONARY";
    case Encoding::kRle:
      return "RLE";
    case Encoding::kBitPacked:
      return "BIT_PACKED";
    case Encoding::kDeltaBinaryPacked:
      return "DELTA_BINARY_PACKED";
    case Encoding::kDeltaLengthByteArray:
      return "DELTA_LENGTH_BYTE_ARRAY";
    case Encoding::kDeltaByteArray:
      return "DELTA_BYTE_ARRAY";
    case Encoding::kRleDictionary:
      return "RLE_DICTIONARY";
    case Encoding::kByteStreamSplit:
      return "BYTE_STREAM_SPLIT";
  }
  return "?";
}

const char* CodecName(Codec codec) {
  switch (codec) {
    case Codec::kUncompressed:
      return "UNCOMPRESSED";
    case Codec::kSnappy:
      return "SNAPPY";
    case Codec::kGzip:
      return "GZIP";
    case Codec::kLzo:
      return "LZO";
    case Codec::kBrotli:
      return "BROTLI";
    case Codec::kLz4:
      return "LZ4";
    case Codec::kZstd:
      return "ZSTD";
    case Codec::kLz4Raw:
      return "LZ4_RAW";
  }
  return "?";
}

namespace {

// --- decoding ------------------------------------------------------------------------------
// Each Decode* reads one struct; a field whose wire type is not the expected one is skipped (as
// thrift does), so only the bytes, never the shape, can make decoding fail.

#define FIELDS(r)    \
  int16_t id;        \
  CType t;           \
  (r).BeginStruct(); \
  while ((r).NextField(&id, &t))

bool Is(CType t, CType want) {
  return t == want;
}
bool IsBool(CType t) {
  return t == CType::kTrue || t == CType::kFalse;
}

template <typename Fn>
void ReadList(CompactReader& r, CType want, Fn&& fn) {
  CType element;
  const int64_t n = r.ReadListHeader(&element);
  const bool bools = want == CType::kTrue;
  const bool match = bools ? IsBool(element) || element == CType::kByte : element == want;
  for (int64_t i = 0; i < n && r.ok(); ++i) {
    if (match) {
      fn();
    } else {
      r.Skip(element);
    }
  }
}

void DecodeStatistics(CompactReader& r, Statistics* s) {
  FIELDS(r) {
    switch (id) {
      case 1:
        if (Is(t, CType::kBinary)) {
          s->max = r.ReadString();
          continue;
        }
        break;
      case 2:
        if (Is(t, CType::kBinary)) {
          s->min = r.ReadString();
          continue;
        }
        break;
      case 3:
        if (Is(t, CType::kI64)) {
          s->null_count = r.ReadI64();
          continue;
        }
        break;
      case 4:
        if (Is(t, CType::kI64)) {
          s->distinct_count = r.ReadI64();
          continue;
        }
        break;
      case 5:
        if (Is(t, CType::kBinary)) {
          s->max_value = r.ReadString();
          continue;
        }
        break;
      case 6:
        if (Is(t, CType::kBinary)) {
          s->min_value = r.ReadString();
          continue;
        }
        break;
    }
    r.Skip(t);
  }
}

void DecodeTimeUnit(CompactReader& r, LogicalType* lt) {
  FIELDS(r) {
    if (t == CType::kStruct && id >= 1 && id <= 3) lt->unit = static_cast<LogicalType::Unit>(id);
    r.Skip(t);
  }
}

void DecodeLogicalType(CompactReader& r, LogicalType* lt) {
  FIELDS(r) {
    if (t != CType::kStruct) {
      r.Skip(t);
      continue;
    }
    lt->kind = static_cast<LogicalType::Kind>(id);
    int16_t sub;
    CType st;
    switch (id) {
      case LogicalType::kDecimal:
        r.BeginStruct();
        while (r.NextField(&sub, &st)) {
          if (sub == 1 && st == CType::kI32) {
            lt->scale = r.ReadI32();
          } else if (sub == 2 && st == CType::kI32) {
            lt->precision = r.ReadI32();
          } else {
            r.Skip(st);
          }
        }
        break;
      case LogicalType::kTime:
      case LogicalType::kTimestamp:
        r.BeginStruct();
        while (r.NextField(&sub, &st)) {
          if (sub == 1 && IsBool(st)) {
            lt->adjusted_to_utc = CompactReader::BoolField(st);
          } else if (sub == 2 && st == CType::kStruct) {
            DecodeTimeUnit(r, lt);
          } else {
            r.Skip(st);
          }
        }
        break;
      case LogicalType::kInteger:
        r.BeginStruct();
        while (r.NextField(&sub, &st)) {
          if (sub == 1 && st == CType::kByte) {
            lt->bit_width = r.ReadByte();
          } else if (sub == 2 && IsBool(st)) {
            lt->is_signed = CompactReader::BoolField(st);
          } else {
            r.Skip(st);
          }
        }
        break;
      default:
        r.Skip(t);
    }
  }
}

void DecodeSchemaElement(CompactReader& r, SchemaElement* e) {
  FIELDS(r) {
    switch (id) {
      case 1:
        if (Is(t, CType::kI32)) {
          e->type = static_cast<PhysicalType>(r.ReadI32());
          continue;
        }
        break;
      case 2:
        if (Is(t, CType::kI32)) {
          e->type_length = r.ReadI32();
          continue;
        }
        break;
      case 3:
        if (Is(t, CType::kI32)) {
          e->repetition = static_cast<Repetition>(r.ReadI32());
          continue;
        }
        break;
      case 4:
        if (Is(t, CType::kBinary)) {
          e->name = r.ReadString();
          continue;
        }
        break;
      case 5:
        if (Is(t, CType::kI32)) {
          e->num_children = r.ReadI32();
          continue;
        }
        break;
      case 6:
        if (Is(t, CType::kI32)) {
          e->converted_type = static_cast<ConvertedType>(r.ReadI32());
          continue;
        }
        break;
      case 7:
        if (Is(t, CType::kI32)) {
          e->scale = r.ReadI32();
          continue;
        }
        break;
      case 8:
        if (Is(t, CType::kI32)) {
          e->precision = r.ReadI32();
          continue;
        }
        break;
      case 9:
        if (Is(t, CType::kI32)) {
          e->field_id = r.ReadI32();
          continue;
        }
        break;
      case 10:
        if (Is(t, CType::kStruct)) {
          DecodeLogicalType(r, &e->logical_type);
          continue;
        }
        break;
    }
    r.Skip(t);
  }
}

void DecodeKeyValue(CompactReader& r, KeyValue* kv) {
  FIELDS(r) {
    if (id == 1 && t == CType::kBinary) {
      kv->key = r.ReadString();
    } else if (id == 2 && t == CType::kBinary) {
      kv->value = r.ReadString();
    } else {
      r.Skip(t);
    }
  }
}

void DecodeColumnMetaData(CompactReader& r, ColumnMetaData* m) {
  FIELDS(r) {
    switch (id) {
      case 1:
        if (Is(t, CType::kI32)) {
          m->type = static_cast<PhysicalType>(r.ReadI32());
          continue;
        }
        break;
      case 2:
        if (Is(t, CType::kList)) {
          ReadList(r, CType::kI32,
                   [&] { m->encodings.push_back(static_cast<Encoding>(r.ReadI32())); });
          continue;
        }
        break;
      case 3:
        if (Is(t, CType::kList)) {
          ReadList(r, CType::kBinary, [&] { m->path_in_schema.push_back(r.ReadString()); });
          continue;
        }
        break;
      case 4:
        if (Is(t, CType::kI32)) {
          m->codec = static_cast<Codec>(r.ReadI32());
          continue;
        }
        break;
      case 5:
        if (Is(t, CType::kI64)) {
          m->num_values = r.ReadI64();
          continue;
        }
        break;
      case 6:
        if (Is(t, CType::kI64)) {
          m->total_uncompressed_size = r.ReadI64();
          continue;
        }
        break;
      case 7:
        if (Is(t, CType::kI64)) {
          m->total_compressed_size = r.ReadI64();
          continue;
        }
        break;
      case 9:
        if (Is(t, CType::kI64)) {
          m->data_page_offset = r.ReadI64();
          continue;
        }
        break;
      case 10:
        if (Is(t, CType::kI64)) {
          m->index_page_offset = r.ReadI64();
          continue;
        }
        break;
      case 11:
        if (Is(t, CType::kI64)) {
          m->dictionary_page_offset = r.ReadI64();
          continue;
        }
        break;
      case 12:
        if (Is(t, CType::kStruct)) {
          DecodeStatistics(r, &m->statistics.emplace());
          continue;
        }
        break;
    }
    r.Skip(t);
  }
}

void DecodeColumnChunk(CompactReader& r, ColumnChunk* c) {
  FIELDS(r) {
    switch (id) {
      case 1:
        if (Is(t, CType::kBinary)) {
          c->file_path = r.ReadString();
          continue;
        }
        break;
      case 2:
        if (Is(t, CType::kI64)) {
          c->file_offset = r.ReadI64();
          continue;
        }
        break;
      case 3:
        if (Is(t, CType::kStruct)) {
          DecodeColumnMetaData(r, &c->meta_data.emplace());
          continue;
        }
        break;
      case 4:
        if (Is(t, CType::kI64)) {
          c->offset_index_offset = r.ReadI64();
          continue;
        }
        break;
      case 5:
        if (Is(t, CType::kI32)) {
          c->offset_index_length = r.ReadI32();
          continue;
        }
        break;
      case 6:
        if (Is(t, CType::kI64)) {
          c->column_index_offset = r.ReadI64();
          continue;
        }
        break;
      case 7:
        if (Is(t, CType::kI32)) {
          c->column_index_length = r.ReadI32();
          continue;
        }
        break;
    }
    r.Skip(t);
  }
}

void DecodeRowGroup(CompactReader& r, RowGroup* g) {
  FIELDS(r) {
    switch (id) {
      case 1:
        if (Is(t, CType::kList)) {
          ReadList(r, CType::kStruct, [&] { DecodeColumnChunk(r, &g->columns.emplace_back()); });
          continue;
        }
        break;
      case 2:
        if (Is(t, CType::kI64)) {
          g->total_byte_size = r.ReadI64();
          continue;
        }
        break;
      case 3:
        if (Is(t, CType::kI64)) {
          g->num_rows = r.ReadI64();
          continue;
        }
        break;
      case 5:
        if (Is(t, CType::kI64)) {
          g->file_offset = r.ReadI64();
          continue;
        }
        break;
      case 6:
        if (Is(t, CType::kI64)) {
          g->total_compressed_size = r.ReadI64();
          continue;
        }
        break;
      case 7:
        if (Is(t, CType::kI16)) {
          g->ordinal = r.ReadI16();
          continue;
        }
        break;
    }
    r.Skip(t);
  }
}

void DecodeColumnOrder(CompactReader& r, std::vector<bool>* orders) {
  bool type_defined = false;
  FIELDS(r) {
    if (id == 1 && t == CType::kStruct) type_defined = true;
    r.Skip(t);
  }
  orders->push_back(type_defined);
}

void DecodeDataPageHeader(CompactReader& r, DataPageHeader* h) {
  FIELDS(r) {
    switch (id) {
      case 1:
        if (Is(t, CType::kI32)) {
          h->num_values = r.ReadI32();
          continue;
        }
        break;
      case 2:
        if (Is(t, CType::kI32)) {
          h->encoding = static_cast<Encoding>(r.ReadI32());
          continue;
        }
        break;
      case 3:
        if (Is(t, CType::kI32)) {
          h->definition_level_encoding = static_cast<Encoding>(r.ReadI32());
          continue;
        }
        break;
      case 4:
        if (Is(t, CType::kI32)) {
          h->repetition_level_encoding = static_cast<Encoding>(r.ReadI32());
          continue;
        }
        break;
      case 5:
        if (Is(t, CType::kStruct)) {
          DecodeStatistics(r, &h->statistics.emplace());
          continue;
        }
        break;
    }
    r.Skip(t);
  }
}

void DecodeDictionaryPageHeader(CompactReader& r, DictionaryPageHeader* h) {
  FIELDS(r) {
    switch (id) {
      case 1:
        if (Is(t, CType::kI32)) {
          h->num_values = r.ReadI32();
          continue;
        }
        break;
      case 2:
        if (Is(t, CType::kI32)) {
          h->encoding = static_cast<Encoding>(r.ReadI32());
          continue;
        }
        break;
      case 3:
        if (IsBool(t)) {
          h->is_sorted = CompactReader::BoolField(t);
          continue;
        }
        break;
    }
    r.Skip(t);
  }
}

void DecodeDataPageHeaderV2(CompactReader& r, DataPageHeaderV2* h) {
  FIELDS(r) {
    switch (id) {
      case 1:
        if (Is(t, CType::kI32)) {
          h->num_values = r.ReadI32();
          continue;
        }
        break;
      case 2:
        if (Is(t, CType::kI32)) {
          h->num_nulls = r.ReadI32();
          continue;
        }
        break;
      case 3:
        if (Is(t, CType::kI32)) {
          h->num_rows = r.ReadI32();
          continue;
        }
        break;
      case 4:
        if (Is(t, CType::kI32)) {
          h->encoding = static_cast<Encoding>(r.ReadI32());
          continue;
        }
        break;
      case 5:
        if (Is(t, CType::kI32)) {
          h->definition_levels_byte_length = r.ReadI32();
          continue;
        }
        break;
      case 6:
        if (Is(t, CType::kI32)) {
          h->repetition_levels_byte_length = r.ReadI32();
          continue;
        }
        break;
      case 7:
        if (IsBool(t)) {
          h->is_compressed = CompactReader::BoolField(t);
          continue;
        }
        break;
      case 8:
        if (Is(t, CType::kStruct)) {
          DecodeStatistics(r, &h->statistics.emplace());
          continue;
        }
        break;
    }
    r.Skip(t);
  }
}

void DecodePageLocation(CompactReader& r, PageLocation* p) {
  FIELDS(r) {
    if (id == 1 && t == CType::kI64) {
      p->offset = r.ReadI64();
    } else if (id == 2 && t == CType::kI32) {
      p->compressed_page_size = r.ReadI32();
    } else if (id == 3 && t == CType::kI64) {
      p->first_row_index = r.ReadI64();
    } else {
      r.Skip(t);
    }
  }
}

#undef FIELDS

template <typename T>
Result<T> Finish(const CompactReader& r, T value, const char* what) {
  if (!r.ok()) return r.status().WithContext(std::string("decoding ") + what);
  return value;
}

// --- encoding ------------------------------------------------------------------------------

void EncodeStatistics(CompactWriter& w, const Statistics& s) {
  w.BeginStruct();
  if (s.max) w.BinaryField(1, *s.max);
  if (s.min) w.BinaryField(2, *s.min);
  if (s.null_count) w.I64Field(3, *s.null_count);
  if (s.distinct_count) w.I64Field(4, *s.distinct_count);
  if (s.max_value) w.BinaryField(5, *s.max_value);
  if (s.min_value) w.BinaryField(6, *s.min_value);
  w.EndStruct();
}

void EncodeLogicalType(CompactWriter& w, const LogicalType& lt) {
  w.BeginStruct();
  w.FieldHeader(lt.kind, CType::kStruct);
  w.BeginStruct();
  switch (lt.kind) {
    case LogicalType::kDecimal:
      w.I32Field(1, lt.scale);
      w.I32Field(2, lt.precision);
      break;
    case LogicalType::kTime:
    case LogicalType::kTimestamp:
      w.BoolField(1, lt.adjusted_to_utc);
      w.FieldHeader(2, CType::kStruct);
      w.BeginStruct();
      w.FieldHeader(lt.unit, CType::kStruct);
      w.BeginStruct();
      w.EndStruct();
      w.EndStruct();
      break;
    case LogicalType::kInteger:
      w.FieldHeader(1, CType::kByte);
      w.Byte(lt.bit_width);
      w.BoolField(2, lt.is_signed);
      break;
    default:
      break;
  }
  w.EndStruct();
  w.EndStruct();
}

void EncodeSchemaElement(CompactWriter& w, const SchemaElement& e) {
  w.BeginStruct();
  if (e.type) w.I32Field(1, static_cast<int32_t>(*e.type));
  if (e.type && *e.type == PhysicalType::kFixedLenByteArray) w.I32Field(2, e.type_length);
  if (e.repetition) w.I32Field(3, static_cast<int32_t>(*e.repetition));
  w.BinaryField(4, e.name);
  if (!e.type) w.I32Field(5, e.num_children);
  if (e.converted_type) w.I32Field(6, static_cast<int32_t>(*e.converted_type));
  if (e.converted_type == ConvertedType::kDecimal) {
    w.I32Field(7, e.scale);
    w.I32Field(8, e.precision);
  }
  if (e.field_id) w.I32Field(9, *e.field_id);
  if (e.logical_type.kind != LogicalType::kNone) {
    w.FieldHeader(10, CType::kStruct);
    EncodeLogicalType(w, e.logical_type);
  }
  w.EndStruct();
}

void EncodeColumnMetaData(CompactWriter& w, const ColumnMetaData& m) {
  w.BeginStruct();
  w.I32Field(1, static_cast<int32_t>(m.type));
  w.FieldHeader(2, CType::kList);
  w.ListHeader(CType::kI32, static_cast<int64_t>(m.encodings.size()));
  for (Encoding e : m.encodings)
    w.I32(static_cast<int32_t>(e));
  w.FieldHeader(3, CType::kList);
  w.ListHeader(CType::kBinary, static_cast<int64_t>(m.path_in_schema.size()));
  for (const std::string& p : m.path_in_schema)
    w.Binary(p);
  w.I32Field(4, static_cast<int32_t>(m.codec));
  w.I64Field(5, m.num_values);
  w.I64Field(6, m.total_uncompressed_size);
  w.I64Field(7, m.total_compressed_size);
  w.I64Field(9, m.data_page_offset);
  if (m.index_page_offset) w.I64Field(10, *m.index_page_offset);
  if (m.dictionary_page_offset) w.I64Field(11, *m.dictionary_page_offset);
  if (m.statistics) {
    w.FieldHeader(12, CType::kStruct);
    EncodeStatistics(w, *m.statistics);
  }
  w.EndStruct();
}

void EncodeColumnChunk(CompactWriter& w, const ColumnChunk& c) {
  w.BeginStruct();
  if (c.file_path) w.BinaryField(1, *c.file_path);
  w.I64Field(2, c.file_offset);
  if (c.meta_data) {
    w.FieldHeader(3, CType::kStruct);
    EncodeColumnMetaData(w, *c.meta_data);
  }
  if (c.offset_index_offset) w.I64Field(4, *c.offset_index_offset);
  if (c.offset_index_length) w.I32Field(5, *c.offset_index_length);
  if (c.column_index_offset) w.I64Field(6, *c.column_index_offset);
  if (c.column_index_length) w.I32Field(7, *c.column_index_length);
  w.EndStruct();
}

void EncodeRowGroup(CompactWriter& w, const RowGroup& g) {
  w.BeginStruct();
  w.FieldHeader(1, CType::kList);
  w.ListHeader(CType::kStruct, static_cast<int64_t>(g.columns.size()));
  for (const ColumnChunk& c : g.columns)
    EncodeColumnChunk(w, c);
  w.I64Field(2, g.total_byte_size);
  w.I64Field(3, g.num_rows);
  if (g.file_offset) w.I64Field(5, *g.file_offset);
  if (g.total_compressed_size) w.I64Field(6, *g.total_compressed_size);
  if (g.ordinal) {
    w.FieldHeader(7, CType::kI16);
    w.I32(*g.ordinal);
  }
  w.EndStruct();
}

}  // namespace

Result<FileMetaData> DecodeFileMetaData(const uint8_t* data, int64_t size) {
  CompactReader r(data, size);
  FileMetaData m;
  int16_t id;
  CType t;
  r.BeginStruct();
  while (r.NextField(&id, &t)) {
    switch (id) {
      case 1:
        if (t == CType::kI32) {
          m.version = r.ReadI32();
          continue;
        }
        break;
      case 2:
        if (t == CType::kList) {
          ReadList(r, CType::kStruct, [&] { DecodeSchemaElement(r, &m.schema.emplace_back()); });
          continue;
        }
        break;
      case 3:
        if (t == CType::kI64) {
          m.num_rows = r.ReadI64();
          continue;
        }
        break;
      case 4:
        if (t == CType::kList) {
          ReadList(r, CType::kStruct, [&] { DecodeRowGroup(r, &m.row_groups.emplace_back()); });
          continue;
        }
        break;
      case 5:
        if (t == CType::kList) {
          ReadList(r, CType::kStruct,
                   [&] { DecodeKeyValue(r, &m.key_value_metadata.emplace_back()); });
          continue;
        }
        break;
      case 6:
        if (t == CType::kBinary) {
          m.created_by = r.ReadString();
          continue;
        }
        break;
      case 7:
        if (t == CType::kList) {
          ReadList(r, CType::kStruct, [&] { DecodeColumnOrder(r, &m.type_defined_order); });
          continue;
        }
        break;
      case 8:
        m.encrypted = true;
        break;
    }
    r.Skip(t);
  }
  return Finish(r, std::move(m), "the file footer");
}

Result<PageHeader> DecodePageHeader(const uint8_t* data, int64_t size, int64_t* consumed) {
  CompactReader r(data, size);
  PageHeader h;
  int16_t id;
  CType t;
  r.BeginStruct();
  while (r.NextField(&id, &t)) {
    switch (id) {
      case 1:
        if (t == CType::kI32) {
          h.type = static_cast<PageType>(r.ReadI32());
          continue;
        }
        break;
      case 2:
        if (t == CType::kI32) {
          h.uncompressed_page_size = r.ReadI32();
          continue;
        }
        break;
      case 3:
        if (t == CType::kI32) {
          h.compressed_page_size = r.ReadI32();
          continue;
        }
        break;
      case 4:
        if (t == CType::kI32) {
          h.crc = r.ReadI32();
          continue;
        }
        break;
      case 5:
        if (t == CType::kStruct) {
          DecodeDataPageHeader(r, &h.data_page_header.emplace());
          continue;
        }
        break;
      case 7:
        if (t == CType::kStruct) {
          DecodeDictionaryPageHeader(r, &h.dictionary_page_header.emplace());
          continue;
        }
        break;
      case 8:
        if (t == CType::kStruct) {
          DecodeDataPageHeaderV2(r, &h.data_page_header_v2.emplace());
          continue;
        }
        break;
    }
    r.Skip(t);
  }
  if (consumed != nullptr) *consumed = r.position();
  return Finish(r, std::move(h), "a page header");
}

Result<ColumnIndex> DecodeColumnIndex(const uint8_t* data, int64_t size) {
  CompactReader r(data, size);
  ColumnIndex c;
  int16_t id;
  CType t;
  r.BeginStruct();
  while (r.NextField(&id, &t)) {
    switch (id) {
      case 1:
        if (t == CType::kList) {
          ReadList(r, CType::kTrue, [&] { c.null_pages.push_back(r.ReadBoolElement()); });
          continue;
        }
        break;
      case 2:
        if (t == CType::kList) {
          ReadList(r, CType::kBinary, [&] { c.min_values.push_back(r.ReadString()); });
          continue;
        }
        break;
      case 3:
        if (t == CType::kList) {
          ReadList(r, CType::kBinary, [&] { c.max_values.push_back(r.ReadString()); });
          continue;
        }
        break;
      case 4:
        if (t == CType::kI32) {
          c.boundary_order = static_cast<BoundaryOrder>(r.ReadI32());
          continue;
        }
        break;
      case 5:
        if (t == CType::kList) {
          ReadList(r, CType::kI64, [&] { c.null_counts.push_back(r.ReadI64()); });
          continue;
        }
        break;
    }
    r.Skip(t);
  }
  if (r.ok() &&
      (c.min_values.size() != c.null_pages.size() || c.max_values.size() != c.null_pages.size())) {
    r.Fail("column index with " + std::to_string(c.null_pages.size()) + " pages but " +
           std::to_string(c.min_values.size()) + " minima");
  }
  return Finish(r, std::move(c), "a column index");
}

Result<OffsetIndex> DecodeOffsetIndex(const uint8_t* data, int64_t size) {
  CompactReader r(data, size);
  OffsetIndex o;
  int16_t id;
  CType t;
  r.BeginStruct();
  while (r.NextField(&id, &t)) {
    if (id == 1 && t == CType::kList) {
      ReadList(r, CType::kStruct, [&] { DecodePageLocation(r, &o.page_locations.emplace_back()); });
    } else {
      r.Skip(t);
    }
  }
  return Finish(r, std::move(o), "an offset index");
}

std::string EncodeFileMetaData(const FileMetaData& m) {
  CompactWriter w;
  w.BeginStruct();
  w.I32Field(1, m.version);
  w.FieldHeader(2, CType::kList);
  w.ListHeader(CType::kStruct, static_cast<int64_t>(m.schema.size()));
  for (const SchemaElement& e : m.schema)
    EncodeSchemaElement(w, e);
  w.I64Field(3, m.num_rows);
  w.FieldHeader(4, CType::kList);
  w.ListHeader(CType::kStruct, static_cast<int64_t>(m.row_groups.size()));
  for (const RowGroup& g : m.row_groups)
    EncodeRowGroup(w, g);
  if (!m.key_value_metadata.empty()) {
    w.FieldHeader(5, CType::kList);
    w.ListHeader(CType::kStruct, static_cast<int64_t>(m.key_value_metadata.size()));
    for (const KeyValue& kv : m.key_value_metadata) {
      w.BeginStruct();
      w.BinaryField(1, kv.key);
      if (kv.value) w.BinaryField(2, *kv.value);
      w.EndStruct();
    }
  }
  if (m.created_by) w.BinaryField(6, *m.created_by);
  if (!m.type_defined_order.empty()) {
    w.FieldHeader(7, CType::kList);
    w.ListHeader(CType::kStruct, static_cast<int64_t>(m.type_defined_order.size()));
    for (size_t i = 0; i < m.type_defined_order.size(); ++i) {
      w.BeginStruct();
      w.FieldHeader(1, CType::kStruct);
      w.BeginStruct();
      w.EndStruct();
      w.EndStruct();
    }
  }
  w.EndStruct();
  return w.Take();
}

std::string EncodePageHeader(const PageHeader& h) {
  CompactWriter w;
  w.BeginStruct();
  w.I32Field(1, static_cast<int32_t>(h.type));
  w.I32Field(2, h.uncompressed_page_size);
  w.I32Field(3, h.compressed_page_size);
  if (h.crc) w.I32Field(4, *h.crc);
  if (h.data_page_header) {
    const DataPageHeader& d = *h.data_page_header;
    w.FieldHeader(5, CType::kStruct);
    w.BeginStruct();
    w.I32Field(1, d.num_values);
    w.I32Field(2, static_cast<int32_t>(d.encoding));
    w.I32Field(3, static_cast<int32_t>(d.definition_level_encoding));
    w.I32Field(4, static_cast<int32_t>(d.repetition_level_encoding));
    if (d.statistics) {
      w.FieldHeader(5, CType::kStruct);
      EncodeStatistics(w, *d.statistics);
    }
    w.EndStruct();
  }
  if (h.dictionary_page_header) {
    const DictionaryPageHeader& d = *h.dictionary_page_header;
    w.FieldHeader(7, CType::kStruct);
    w.BeginStruct();
    w.I32Field(1, d.num_values);
    w.I32Field(2, static_cast<int32_t>(d.encoding));
    if (d.is_sorted) w.BoolField(3, true);
    w.EndStruct();
  }
  if (h.data_page_header_v2) {
    const DataPageHeaderV2& d = *h.data_page_header_v2;
    w.FieldHeader(8, CType::kStruct);
    w.BeginStruct();
    w.I32Field(1, d.num_values);
    w.I32Field(2, d.num_nulls);
    w.I32Field(3, d.num_rows);
    w.I32Field(4, static_cast<int32_t>(d.encoding));
    w.I32Field(5, d.definition_levels_byte_length);
    w.I32Field(6, d.repetition_levels_byte_length);
    w.BoolField(7, d.is_compressed);
    if (d.statistics) {
      w.FieldHeader(8, CType::kStruct);
      EncodeStatistics(w, *d.statistics);
    }
    w.EndStruct();
  }
  w.EndStruct();
  return w.Take();
}

std::string EncodeColumnIndex(const ColumnIndex& c) {
  CompactWriter w;
  w.BeginStruct();
  w.FieldHeader(1, CType::kList);
  w.ListHeader(CType::kTrue, static_cast<int64_t>(c.null_pages.size()));
  for (bool b : c.null_pages)
    w.BoolElement(b);
  w.FieldHeader(2, CType::kList);
  w.ListHeader(CType::kBinary, static_cast<int64_t>(c.min_values.size()));
  for (const std::string& v : c.min_values)
    w.Binary(v);
  w.FieldHeader(3, CType::kList);
  w.ListHeader(CType::kBinary, static_cast<int64_t>(c.max_values.size()));
  for (const std::string& v : c.max_values)
    w.Binary(v);
  w.I32Field(4, static_cast<int32_t>(c.boundary_order));
  if (!c.null_counts.empty()) {
    w.FieldHeader(5, CType::kList);
    w.ListHeader(CType::kI64, static_cast<int64_t>(c.null_counts.size()));
    for (int64_t n : c.null_counts)
      w.I64(n);
  }
  w.EndStruct();
  return w.Take();
}

std::string EncodeOffsetIndex(const OffsetIndex& o) {
  CompactWriter w;
  w.BeginStruct();
  w.FieldHeader(1, CType::kList);
  w.ListHeader(CType::kStruct, static_cast<int64_t>(o.page_locations.size()));
  for (const PageLocation& p : o.page_locations) {
    w.BeginStruct();
    w.I64Field(1, p.offset);
    w.I32Field(2, p.compressed_page_size);
    w.I64Field(3, p.first_row_index);
    w.EndStruct();
  }
  w.EndStruct();
  return w.Take();
}

}  // namespace flotilla::io::parquet
