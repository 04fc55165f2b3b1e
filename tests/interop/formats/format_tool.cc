// The C++ half of the file format interop tests (tests/interop/parquet_read.mjs,
// tests/interop/text_formats.mjs):
//
//   format_tool read FILE       reads Parquet; prints "schema\t[...]" then one canonical JSON row
//                               per line
//   format_tool write FILE CODEC [ROWS]
//                               writes a generated table of every type to FILE with our Parquet
//                               writer and prints it in the same form, from memory (not read back);
//                               fewer ROWS than the default 2500 also cut pages at ROWS / 4 rows
//                               (small, many-page files: fuzzing seeds)
//   format_tool read-csv FILE [SCHEMA]
//   format_tool read-json FILE [SCHEMA]
//                               reads CSV (header, ',' and '"') or newline-delimited JSON, with the
//                               schema inferred or SCHEMA ("name:type|name:type", types spelled
//                               as DataType::ToString prints them: "int8", "decimal128(15, 2)",
//                               "timestamp[us, tz=UTC]", "list<int64>"... flat types only for CSV),
//                               and prints it the same way
//   format_tool write-csv FILE
//   format_tool write-json FILE
//                               writes a generated table (flat types for CSV, nested too for JSON,
//                               strings that need quoting or escaping, nulls) and prints it
//
// The canonical cell form (shared with the DuckDB side): integers as decimal strings, floats as
// numbers with 17 significant digits ("NaN", "Infinity"), decimals as strings with the scale's
// digits, dates "YYYY-MM-DD", timestamps as "<count><unit>", binary as lowercase hex, lists as
// arrays, structs as objects.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <string>

#include "flotilla/columnar/builder.h"
#include "flotilla/columnar/decimal.h"
#include "flotilla/compute/cast.h"
#include "flotilla/compute/parse.h"
#include "flotilla/io/csv/scan_task.h"
#include "flotilla/io/csv/writer.h"
#include "flotilla/io/json/scan_task.h"
#include "flotilla/io/json/writer.h"
#include "flotilla/io/parquet/codec.h"
#include "flotilla/io/parquet/reader.h"
#include "flotilla/io/parquet/writer.h"
#include "tests/support/random_data.h"

using namespace flotilla;

namespace {

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string Hex(std::string_view s) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

std::string Float(double v) {
  if (std::isnan(v)) return "\"NaN\"";
  if (std::isinf(v)) return v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

std::string Cell(const Array& a, int64_t i) {
  if (a.IsNull(i)) return "null";
  const DataType& t = *a.type();
  switch (t.id()) {
    case TypeId::kBool:
      return a.BoolValue(i) ? "true" : "false";
    case TypeId::kInt8:
      return Quote(std::to_string(a.values<int8_t>()[i]));
    case TypeId::kInt16:
      return Quote(std::to_string(a.values<int16_t>()[i]));
    case TypeId::kInt32:
      return Quote(std::to_string(a.values<int32_t>()[i]));
    case TypeId::kInt64:
      return Quote(std::to_string(a.values<int64_t>()[i]));
    case TypeId::kUInt8:
      return Quote(std::to_string(a.values<uint8_t>()[i]));
    case TypeId::kUInt16:
      return Quote(std::to_string(a.values<uint16_t>()[i]));
    case TypeId::kUInt32:
      return Quote(std::to_string(a.values<uint32_t>()[i]));
    case TypeId::kUInt64:
      return Quote(std::to_string(a.values<uint64_t>()[i]));
    case TypeId::kFloat32:
      return Float(a.values<float>()[i]);
    case TypeId::kFloat64:
      return Float(a.values<double>()[i]);
    case TypeId::kDecimal128:
      return Quote(DecimalToString(a.values<Int128>()[i], t.scale()));
    case TypeId::kDate32:
      return Quote(FormatDate32(a.values<int32_t>()[i]));
    case TypeId::kTimestamp:
    case TypeId::kTime64:
      return Quote(std::to_string(a.values<int64_t>()[i]) + TimeUnitName(t.unit()));
    case TypeId::kString:
    case TypeId::kLargeString:
      return Quote(a.GetView(i));
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
    case TypeId::kFixedSizeBinary:
      return Quote(Hex(a.GetView(i)));
    case TypeId::kList: {
      Array values = a.ListValues(i);
      std::string out = "[";
      for (int64_t k = 0; k < values.length(); ++k)
        out += (k ? "," : "") + Cell(values, k);
      return out + "]";
    }
    case TypeId::kFixedSizeList: {
      const int64_t size = t.fixed_size();
      Array values = a.child(0);
      std::string out = "[";
      for (int64_t k = 0; k < size; ++k)
        out += (k ? "," : "") + Cell(values, (a.offset() + i) * size + k);
      return out + "]";
    }
    case TypeId::kDictionary:
      return Cell(a.dictionary(), a.DictionaryIndex(i));
    case TypeId::kStruct: {
      std::string out = "{";
      for (int f = 0; f < static_cast<int>(t.fields().size()); ++f)
        out += (f ? "," : "") + Quote(t.fields()[f].name) + ":" + Cell(a.field(f), i);
      return out + "}";
    }
    default:
      return Quote("unsupported type " + t.ToString());
  }
}

void PrintSchema(const Schema& schema) {
  std::string line = "schema\t[";
  for (int f = 0; f < schema.num_fields(); ++f)
    line += std::string(f ? "," : "") + "{\"name\":" + Quote(schema.field(f).name) +
            ",\"type\":" + Quote(schema.field(f).type->ToString()) + "}";
  std::cout << line << "]\n";
}

void PrintRows(const RecordBatch& batch) {
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    std::string row = "[";
    for (int c = 0; c < batch.num_columns(); ++c)
      row += (c ? "," : "") + Cell(batch.column(c), r);
    std::cout << row << "]\n";
  }
}

int Fail(const Status& st) {
  std::cerr << st.ToString() << "\n";
  return 1;
}

// Every type our writer stores (durations have no Parquet type), duplicates for dictionaries.
int Write(const std::string& path, const std::string& codec_name, int64_t rows = 2500) {
  auto codec = io::parquet::ParseCodec(codec_name);
  if (!codec.ok()) return Fail(codec.status());
  testing::RandomOptions random;
  random.distinct_values = 300;
  RecordBatch all = testing::RandomBatchOfAllTypes(rows, 42, random);
  std::vector<int> keep;
  for (int c = 0; c < all.num_columns(); ++c) {
    const TypeId id = all.column(c).type_id();
    if (id != TypeId::kDuration) keep.push_back(c);
  }
  RecordBatch selected = all.SelectColumns(keep).ValueOrDie();
  // Times of day are not among AllTypesForTesting: add both units.
  std::vector<std::pair<std::string, Array>> with_times;
  for (int c = 0; c < selected.num_columns(); ++c)
    with_times.emplace_back(selected.schema()->field(c).name, selected.column(c));
  with_times.emplace_back("time_us",
                          testing::RandomArray(time64(TimeUnit::kMicro), rows, 77, random));
  with_times.emplace_back("time_ns",
                          testing::RandomArray(time64(TimeUnit::kNano), rows, 78, random));
  RecordBatch batch = RecordBatch::FromColumns(with_times).ValueOrDie();
  io::parquet::ParquetWriteOptions options;
  options.codec = *codec;
  options.row_group_rows = 1000;
  options.page_bytes = 4096;
  if (rows < 2500) options.page_rows = std::max<int64_t>(1, rows / 4);  // small seeds, many pages
  // Timestamps in seconds are stored as milliseconds: print them as the file holds them.
  std::vector<Array> batch_columns = batch.columns();
  std::vector<Array> columns;
  std::vector<Field> fields;
  for (int c = 0; c < batch.num_columns(); ++c) {
    Field f = batch.schema()->field(c);
    Array a = batch.column(c);
    if (a.type_id() == TypeId::kTimestamp && a.type()->unit() == TimeUnit::kSecond) {
      // Random seconds reach ±2^51, beyond what DuckDB's microsecond timestamps hold once
      // stored as milliseconds: keep them within ±10^11 s (about 3000 years).
      auto data = std::make_shared<ArrayData>(*a.data());
      auto values = Buffer::Allocate(a.length() * 8);
      if (!values.ok()) return Fail(values.status());
      auto* v = reinterpret_cast<int64_t*>((*values)->mutable_data());
      for (int64_t i = 0; i < a.length(); ++i)
        v[i] = a.values<int64_t>()[i] % 100000000000;
      data->buffers[1] = *values;
      data->offset = 0;
      if (a.offset() != 0) return Fail(Status::Internal("sliced timestamp column"));
      a = Array(data);
      batch_columns[c] = a;
      f.type = timestamp(TimeUnit::kMilli, a.type()->timezone());
      auto cast = compute::Cast(a, f.type);
      if (!cast.ok()) return Fail(cast.status());
      a = *cast;
    }
    fields.push_back(f);
    columns.push_back(a);
  }
  auto written = RecordBatch::Make(batch.schema(), batch_columns, batch.num_rows());
  if (!written.ok()) return Fail(written.status());
  Status st = io::parquet::WriteParquetFile(path, batch.schema(), {*written}, options);
  if (!st.ok()) return Fail(st);
  auto shown = RecordBatch::Make(std::make_shared<Schema>(fields), columns, batch.num_rows());
  if (!shown.ok()) return Fail(shown.status());
  PrintSchema(*shown->schema());
  PrintRows(*shown);
  return 0;
}

int Read(const std::string& path) {
  auto reader = io::parquet::ParquetFileReader::Open(path);
  if (!reader.ok()) {
    std::cerr << reader.status().ToString() << "\n";
    return 1;
  }
  PrintSchema(*(*reader)->schema());
  auto fields = (*reader)->FieldIndices(std::nullopt);
  for (int g = 0; g < (*reader)->num_row_groups(); ++g) {
    auto batch = (*reader)->ReadRowGroup(g, *fields);
    if (!batch.ok()) {
      std::cerr << batch.status().ToString() << "\n";
      return 1;
    }
    PrintRows(*batch);
  }
  return 0;
}

// "name:type|name:type": each type is found among the ones the text formats hold by its
// ToString() spelling.
Result<SchemaPtr> ParseSchema(const std::string& spec) {
  std::vector<TypePtr> known = {boolean(), int8(),   int16(),  int32(),  int64(),
                                uint8(),   uint16(), uint32(), uint64(), float32(),
                                float64(), date32(), utf8()};
  for (TimeUnit u : {TimeUnit::kSecond, TimeUnit::kMilli, TimeUnit::kMicro, TimeUnit::kNano}) {
    known.push_back(timestamp(u));
    known.push_back(timestamp(u, "UTC"));
  }
  std::function<Result<TypePtr>(const std::string&)> parse =
      [&](const std::string& t) -> Result<TypePtr> {
    for (const TypePtr& k : known)
      if (k->ToString() == t) return k;
    int p = 0, sc = 0;
    if (std::sscanf(t.c_str(), "decimal128(%d, %d)", &p, &sc) == 2) return decimal128(p, sc);
    if (t.rfind("list<", 0) == 0 && t.back() == '>') {
      FLOTILLA_ASSIGN_OR_RETURN(TypePtr e, parse(t.substr(5, t.size() - 6)));
      return list(e);
    }
    return Status::Invalid("unknown type '" + t + "'");
  };
  std::vector<Field> fields;
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t end = spec.find('|', pos);
    if (end == std::string::npos) end = spec.size();
    const std::string item = spec.substr(pos, end - pos);
    const size_t colon = item.find(':');
    if (colon == std::string::npos) return Status::Invalid("bad schema item '" + item + "'");
    FLOTILLA_ASSIGN_OR_RETURN(TypePtr type, parse(item.substr(colon + 1)));
    fields.push_back({item.substr(0, colon), type});
    pos = end + 1;
  }
  return std::make_shared<Schema>(std::move(fields));
}

int ReadText(const std::string& format, const std::string& path, const std::string& spec) {
  SchemaPtr schema;
  if (!spec.empty()) {
    auto parsed = ParseSchema(spec);
    if (!parsed.ok()) return Fail(parsed.status());
    schema = *parsed;
  }
  Result<io::FileScan> scan = Status::Invalid("unknown format");
  if (format == "csv") {
    io::csv::CsvReadOptions options;
    options.schema = schema;
    scan = io::csv::PlanCsvScan({path}, options);
  } else {
    io::json::JsonReadOptions options;
    options.schema = schema;
    scan = io::json::PlanJsonScan({path}, options);
  }
  if (!scan.ok()) return Fail(scan.status());
  PrintSchema(*scan->schema);
  for (const auto& task : scan->tasks) {
    auto batches = task->Read({});
    if (!batches.ok()) return Fail(batches.status());
    for (const RecordBatch& b : *batches)
      PrintRows(b);
  }
  return 0;
}

// A table for the text writers: every flat type (timestamps within ±2800 years so that every
// engine's microseconds hold them), strings that need quoting or escaping; nested columns for
// JSON.
int WriteText(const std::string& format, const std::string& path) {
  testing::RandomOptions random;
  random.null_probability = 0.15;
  RecordBatch all = testing::RandomBatchOfAllTypes(1500, 5, random);
  std::vector<std::pair<std::string, Array>> columns;
  for (int c = 0; c < all.num_columns(); ++c) {
    const DataType& t = *all.column(c).type();
    const TypeId id = t.id();
    if (id == TypeId::kBinary || id == TypeId::kLargeBinary || id == TypeId::kFixedSizeBinary ||
        id == TypeId::kTimestamp || id == TypeId::kDuration || id == TypeId::kNull ||
        id == TypeId::kLargeString || id == TypeId::kDictionary || id == TypeId::kFixedSizeList)
      continue;
    if (format == "csv" && t.is_nested()) continue;
    columns.emplace_back(all.schema()->field(c).name, all.column(c));
  }
  for (TimeUnit unit : {TimeUnit::kSecond, TimeUnit::kMilli, TimeUnit::kMicro, TimeUnit::kNano}) {
    const bool tz = unit == TimeUnit::kMicro;
    Int64Builder ts(timestamp(unit, tz ? "UTC" : ""));
    const int64_t per_second = compute::TicksPerSecond(unit);
    // Seconds within ±88 years for nanoseconds, ±2800 years otherwise.
    const int64_t span = unit == TimeUnit::kNano ? int64_t{2770000000} : int64_t{88000000000};
    for (int64_t i = 0; i < 1500; ++i) {
      Status st = i % 9 == 4 ? ts.AppendNull()
                             : ts.Append(((i * 7919 * 104729) % span - span / 2) * per_second +
                                         (i * 37) % per_second);
      if (!st.ok()) return Fail(st);
    }
    auto a = ts.Finish();
    if (!a.ok()) return Fail(a.status());
    columns.emplace_back(std::string("ts_") + TimeUnitName(unit) + (tz ? "_utc" : ""), *a);
  }
  StringBuilder tricky(utf8());
  const char* pieces[] = {"",         "a,b",       "say \"hi\"", "two\nlines", "back\\slash",
                          " padded ", "tab\there", "日本🚀"};
  for (int64_t i = 0; i < 1500; ++i) {
    Status st = i % 13 == 3 ? tricky.AppendNull() : tricky.Append(pieces[i % 8]);
    if (!st.ok()) return Fail(st);
  }
  columns.emplace_back("tricky", *tricky.Finish());
  auto batch = RecordBatch::FromColumns(columns);
  if (!batch.ok()) return Fail(batch.status());
  Status st = format == "csv" ? io::csv::WriteCsvFile(path, batch->schema(), {*batch})
                              : io::json::WriteJsonFile(path, batch->schema(), {*batch});
  if (!st.ok()) return Fail(st);
  PrintSchema(*batch->schema());
  PrintRows(*batch);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "read") return Read(argv[2]);
  if ((argc == 4 || argc == 5) && std::string(argv[1]) == "write")
    return Write(argv[2], argv[3], argc == 5 ? std::atoll(argv[4]) : 2500);
  const std::string mode = argc >= 2 ? argv[1] : "";
  if ((mode == "read-csv" || mode == "read-json") && (argc == 3 || argc == 4))
    return ReadText(mode.substr(5), argv[2], argc == 4 ? argv[3] : "");
  if ((mode == "write-csv" || mode == "write-json") && argc == 3)
    return WriteText(mode.substr(6), argv[2]);
  std::cerr << "usage: format_tool read FILE | write FILE CODEC [ROWS] | read-csv FILE [SCHEMA] |\n"
               "       read-json FILE [SCHEMA] | write-csv FILE | write-json FILE\n";
  return 2;
}
