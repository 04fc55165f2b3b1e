#include "flotilla/io/json/writer.h"

#include "flotilla/io/fs/atomic_write.h"
#include "flotilla/io/text/value_format.h"

namespace flotilla::io::json {

namespace {

bool HasBinary(const DataType& t) {
  if (t.id() == TypeId::kBinary || t.id() == TypeId::kLargeBinary ||
      t.id() == TypeId::kFixedSizeBinary)
    return true;
  if (t.id() == TypeId::kDictionary) return HasBinary(*t.value_type());
  for (const Field& f : t.fields())
    if (HasBinary(*f.type)) return true;
  return false;
}

}  // namespace

JsonFileWriter::JsonFileWriter(std::unique_ptr<io::OutputStream> out, SchemaPtr schema)
    : out_(std::move(out)), schema_(std::move(schema)) {
  for (const Field& f : schema_->fields()) {
    std::string key;
    text::AppendJsonString(f.name, &key);
    keys_.push_back(key + ":");
  }
}

Result<std::unique_ptr<JsonFileWriter>> JsonFileWriter::Open(std::unique_ptr<io::OutputStream> out,
                                                             SchemaPtr schema) {
  for (const Field& f : schema->fields())
    if (HasBinary(*f.type))
      return Status::TypeError("column '" + f.name + "' of type " + f.type->ToString() +
                               " cannot be written as JSON; cast it to string first");
  return std::unique_ptr<JsonFileWriter>(new JsonFileWriter(std::move(out), std::move(schema)));
}

Status JsonFileWriter::Write(const RecordBatch& batch) {
  if (!batch.schema()->Equals(*schema_))
    return Status::Invalid("batch schema differs from the JSON writer's:\n" +
                           batch.schema()->ToString());
  const int n = batch.num_columns();
  std::vector<text::ColumnText> columns(static_cast<size_t>(n));
  for (int c = 0; c < n; ++c)
    FLOTILLA_RETURN_NOT_OK(text::FormatColumn(batch.column(c), text::TextStyle::kJson,
                                              schema_->field(c).name, &columns[c]));
  std::string out;
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    out += '{';
    for (int c = 0; c < n; ++c) {
      if (c) out += ',';
      out += keys_[c];
      out += columns[c].at(r);
    }
    out += "}\n";
    if (out.size() >= (1u << 20)) {
      FLOTILLA_RETURN_NOT_OK(out_->Write(out.data(), static_cast<int64_t>(out.size())));
      out.clear();
    }
  }
  rows_ += batch.num_rows();
  return out_->Write(out.data(), static_cast<int64_t>(out.size()));
}

Status WriteJsonFile(const std::string& path, const SchemaPtr& schema,
                     const std::vector<RecordBatch>& batches) {
  return io::WriteFileAtomically(path, [&](std::unique_ptr<io::OutputStream> stream) -> Status {
    FLOTILLA_ASSIGN_OR_RETURN(auto writer, JsonFileWriter::Open(std::move(stream), schema));
    for (const RecordBatch& b : batches)
      FLOTILLA_RETURN_NOT_OK(writer->Write(b));
    return writer->Close();
  });
}

}  // namespace flotilla::io::json
