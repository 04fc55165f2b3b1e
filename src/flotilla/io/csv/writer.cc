#include "flotilla/io/csv/writer.h"

#include "flotilla/io/fs/atomic_write.h"
#include "flotilla/io/text/value_format.h"

namespace flotilla::io::csv {

Result<std::unique_ptr<CsvFileWriter>> CsvFileWriter::Open(std::unique_ptr<io::OutputStream> out,
                                                           SchemaPtr schema,
                                                           CsvWriteOptions options) {
  for (const Field& f : schema->fields()) {
    const DataType& t = f.type->id() == TypeId::kDictionary ? *f.type->value_type() : *f.type;
    if (t.id() == TypeId::kBinary || t.id() == TypeId::kLargeBinary ||
        t.id() == TypeId::kFixedSizeBinary)
      return Status::TypeError("column '" + f.name + "' of type " + f.type->ToString() +
                               " cannot be written as CSV; cast it to string first");
  }
  std::unique_ptr<CsvFileWriter> writer(
      new CsvFileWriter(std::move(out), std::move(schema), std::move(options)));
  if (writer->options_.header) {
    std::string line;
    for (int c = 0; c < writer->schema_->num_fields(); ++c) {
      if (c) line += writer->options_.delimiter;
      writer->AppendField(writer->schema_->field(c).name, true, &line);
    }
    line += '\n';
    FLOTILLA_RETURN_NOT_OK(writer->out_->Write(line.data(), static_cast<int64_t>(line.size())));
  }
  return writer;
}

void CsvFileWriter::AppendField(std::string_view text, bool may_be_null_text,
                                std::string* line) const {
  bool quote = may_be_null_text && text == options_.null_string;
  for (char c : text) {
    if (c == options_.delimiter || c == options_.quote || c == '\n' || c == '\r') {
      quote = true;
      break;
    }
  }
  if (!quote || options_.quote == '\0') {
    *line += text;
    return;
  }
  *line += options_.quote;
  for (char c : text) {
    if (c == options_.quote) *line += c;
    *line += c;
  }
  *line += options_.quote;
}

Status CsvFileWriter::Write(const RecordBatch& batch) {
  if (!batch.schema()->Equals(*schema_))
    return Status::Invalid("batch schema differs from the CSV writer's:\n" +
                           batch.schema()->ToString());
  const int n = batch.num_columns();
  std::vector<text::ColumnText> columns(static_cast<size_t>(n));
  std::vector<bool> textual(static_cast<size_t>(n));
  for (int c = 0; c < n; ++c) {
    FLOTILLA_RETURN_NOT_OK(text::FormatColumn(batch.column(c), text::TextStyle::kCsv,
                                              schema_->field(c).name, &columns[c]));
    const TypeId id = batch.column(c).type_id();
    textual[c] = id == TypeId::kString || id == TypeId::kLargeString || id == TypeId::kDictionary;
  }
  std::string out;
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    for (int c = 0; c < n; ++c) {
      if (c) out += options_.delimiter;
      const Array& column = batch.column(c);
      if (column.IsNull(r)) {
        out += options_.null_string;
      } else {
        AppendField(columns[c].at(r), textual[c], &out);
      }
    }
    out += '\n';
    if (out.size() >= (1u << 20)) {
      FLOTILLA_RETURN_NOT_OK(out_->Write(out.data(), static_cast<int64_t>(out.size())));
      out.clear();
    }
  }
  rows_ += batch.num_rows();
  return out_->Write(out.data(), static_cast<int64_t>(out.size()));
}

Status CsvFileWriter::Close() {
  return out_->Close();
}

Status WriteCsvFile(const std::string& path, const SchemaPtr& schema,
                    const std::vector<RecordBatch>& batches, const CsvWriteOptions& options) {
  return io::WriteFileAtomically(path, [&](std::unique_ptr<io::OutputStream> stream) -> Status {
    FLOTILLA_ASSIGN_OR_RETURN(auto writer, CsvFileWriter::Open(std::move(stream), schema, options));
    for (const RecordBatch& b : batches)
      FLOTILLA_RETURN_NOT_OK(writer->Write(b));
    return writer->Close();
  });
}

}  // namespace flotilla::io::csv
