#include "flotilla/io/csv/reader.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "flotilla/common/utf8.h"
#include "flotilla/io/csv/tokenizer.h"
#include "flotilla/io/text/value_parse.h"

namespace flotilla::io::csv {

namespace {

// How much of a file inference looks at, at most.
constexpr int64_t kSampleBytes = int64_t{8} << 20;

// Linear in the columns, however many share a name (thousands of columns are input too).
std::vector<std::string> ColumnNames(const CsvRows& header, int num_columns) {
  std::vector<std::string> names;
  std::unordered_set<std::string> used;
  std::unordered_map<std::string, int> next_suffix;  // per name: the next _k to try
  for (int c = 0; c < num_columns; ++c) {
    std::string name = header.num_rows() > 0 ? std::string(header.field(0, c)) : "";
    if (name.empty()) name = "column" + std::to_string(c);
    // Duplicates get a suffix, as a later column must stay addressable.
    std::string unique = name;
    if (used.count(unique)) {
      int& k = next_suffix[name];
      do {
        unique = name + "_" + std::to_string(++k);
      } while (used.count(unique));
    }
    used.insert(unique);
    names.push_back(std::move(unique));
  }
  return names;
}

bool IsNullText(std::string_view text, bool quoted, const CsvParseOptions& options) {
  if (quoted) return false;
  for (const std::string& n : options.null_values)
    if (text == n) return true;
  return false;
}

}  // namespace

Result<CsvFileInfo> InspectCsvFile(io::RandomAccessFile* file, const CsvReadOptions& options) {
  const CsvParseOptions& parse = options.parse;
  int64_t prefix_size = std::min(file->size(), kSampleBytes);
  BufferPtr prefix;
  // Offsets below are within `bytes`, which starts after a byte-order mark.
  int64_t bom = 0, start = 0;
  std::string_view bytes;
  bool truncated = false;
  CsvRows header;
  // The prefix holds the first row whole, however long: a wide file's header can be longer
  // than the sample.
  while (true) {
    FLOTILLA_ASSIGN_OR_RETURN(prefix, file->ReadAt(0, prefix_size));
    bom = Utf8BomSize(prefix->view());
    bytes = prefix->view().substr(static_cast<size_t>(bom));
    truncated = prefix_size < file->size();
    FLOTILLA_ASSIGN_OR_RETURN(
        start, SkipRows(bytes, parse, parse.skip_rows, text::LineLocator(file, bom, bytes)));
    header = CsvRows();
    TokenizeOptions one;
    one.max_rows = 1;
    one.truncated = truncated;
    FLOTILLA_RETURN_NOT_OK(Tokenize(bytes.substr(static_cast<size_t>(start)), parse, one,
                                    text::LineLocator(file, bom + start, bytes.substr(start)),
                                    &header));
    if (header.num_rows() > 0 || !truncated) break;
    prefix_size = std::min(file->size(), prefix_size * 2);
  }
  text::LineLocator where(file, bom, bytes);

  CsvFileInfo info;
  info.columns.file = file->name();
  if (header.num_rows() == 0 && options.schema == nullptr)
    return Status::Invalid("CSV file '" + file->name() + "' has no rows to take columns from");
  const int num_columns =
      header.num_rows() > 0 ? header.num_columns() : options.schema->num_fields();
  if (options.schema != nullptr && header.num_rows() > 0 &&
      num_columns != options.schema->num_fields())
    return Status::Invalid("CSV file '" + file->name() + "' has " + std::to_string(num_columns) +
                           " columns, the schema " + std::to_string(options.schema->num_fields()));
  if (parse.has_header) {
    info.columns.names = ColumnNames(header, num_columns);
    FLOTILLA_ASSIGN_OR_RETURN(start, SkipRows(bytes, parse, parse.skip_rows + 1, where));
  } else {
    CsvRows none;
    info.columns.names = ColumnNames(none, num_columns);
  }
  info.data_offset = bom + start;
  if (options.schema != nullptr) return info;

  CsvRows sample;
  TokenizeOptions how;
  how.expected_columns = num_columns;
  how.max_rows = options.sample_rows;
  how.truncated = truncated;
  const std::string_view rest = bytes.substr(static_cast<size_t>(start));
  FLOTILLA_RETURN_NOT_OK(
      Tokenize(rest, parse, how, text::LineLocator(file, bom + start, rest), &sample));
  info.columns.columns.assign(static_cast<size_t>(num_columns), text::Inferred{});
  for (int c = 0; c < num_columns; ++c) {
    text::Inferred& column = info.columns.columns[static_cast<size_t>(c)];
    for (int64_t r = 0; r < sample.num_rows(); ++r) {
      const std::string_view v = sample.field(r, c);
      if (IsNullText(v, sample.quoted(r, c), parse)) continue;
      // Every CSV kind comes from text, so joining never conflicts.
      FLOTILLA_RETURN_NOT_OK(text::Join(&column, text::InferText(v), ""));
      if (column.kind == text::Kind::kString) break;
    }
  }
  return info;
}

Result<RecordBatch> ReadCsvRange(io::RandomAccessFile* file, int64_t begin, int64_t end,
                                 const SchemaPtr& schema, const std::vector<int>& fields,
                                 const CsvParseOptions& options, std::optional<int64_t> limit) {
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr chunk, file->ReadAt(begin, end - begin));
  const std::string_view bytes = chunk->view();
  text::LineLocator where(file, begin, bytes);
  CsvRows rows;
  TokenizeOptions how;
  how.expected_columns = schema->num_fields();
  if (limit) how.max_rows = *limit;
  FLOTILLA_RETURN_NOT_OK(Tokenize(bytes, options, how, where, &rows));

  std::vector<Field> out_fields;
  std::vector<Array> columns;
  for (int c : fields) {
    const Field& field = schema->field(c);
    const DataType& type = *field.type;
    if (type.id() != TypeId::kNull && !text::IsTextParsable(type))
      return Status::TypeError("CSV column '" + field.name + "' cannot be read as " +
                               type.ToString());
    FLOTILLA_ASSIGN_OR_RETURN(std::unique_ptr<ArrayBuilder> builder, MakeBuilder(field.type));
    FLOTILLA_RETURN_NOT_OK(builder->Reserve(rows.num_rows()));
    for (int64_t r = 0; r < rows.num_rows(); ++r) {
      const std::string_view v = rows.field(r, c);
      if (IsNullText(v, rows.quoted(r, c), options)) {
        FLOTILLA_RETURN_NOT_OK(builder->AppendNull());
        continue;
      }
      bool ok = false;
      if (type.id() != TypeId::kNull) {
        FLOTILLA_ASSIGN_OR_RETURN(ok, text::AppendParsed(builder.get(), v));
      }
      if (!ok)
        return Status::Invalid("cannot read '" + std::string(v.substr(0, 100)) + "' as " +
                               type.ToString() + " in column '" + field.name + "' at " +
                               where.Describe(rows.row_offset(r)));
    }
    FLOTILLA_ASSIGN_OR_RETURN(Array array, builder->Finish());
    if (type.is_string()) {
      // The values are valid when their concatenation is and none starts inside a character
      // (a value cut mid-character is followed by a continuation byte or ends the buffer).
      const BufferPtr& data = array.data()->buffers[2];
      bool valid = data == nullptr || IsValidUtf8(reinterpret_cast<const char*>(data->data()),
                                                  static_cast<size_t>(data->size()));
      for (int64_t r = 0; valid && r < rows.num_rows(); ++r) {
        const std::string_view v = rows.field(r, c);
        if (!v.empty() && (static_cast<unsigned char>(v[0]) & 0xC0) == 0x80) valid = false;
      }
      if (!valid) {
        for (int64_t r = 0; r < rows.num_rows(); ++r) {
          const std::string_view v = rows.field(r, c);
          if (!IsValidUtf8(v.data(), v.size()))
            return Status::Invalid("invalid UTF-8 in column '" + field.name + "' at " +
                                   where.Describe(rows.row_offset(r)) +
                                   " (read the column as binary)");
        }
      }
    }
    out_fields.push_back(field);
    columns.push_back(std::move(array));
  }
  return RecordBatch::Make(std::make_shared<Schema>(std::move(out_fields)), std::move(columns),
                           rows.num_rows());
}

}  // namespace flotilla::io::csv
