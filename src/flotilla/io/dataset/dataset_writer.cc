#include "flotilla/io/dataset/dataset_writer.h"

#include <cstdio>
#include <deque>
#include <filesystem>
#include <map>
#include <optional>
#include <random>

#include "flotilla/columnar/builder.h"
#include "flotilla/compute/partition.h"
#include "flotilla/io/csv/writer.h"
#include "flotilla/io/fs/atomic_write.h"
#include "flotilla/io/json/writer.h"

namespace flotilla::io {

namespace {

using PartitionValues = std::vector<std::optional<std::string>>;

std::string RandomPrefix() {
  std::random_device rd;
  const uint64_t bits = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  char buf[32];
  std::snprintf(buf, sizeof(buf), "part-%012llx",
                static_cast<unsigned long long>(bits & 0xffffffffffffULL));
  return buf;
}

}  // namespace

Result<FileFormat> ParseFileFormat(std::string_view name) {
  std::string lower(name);
  for (char& c : lower)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "parquet") return FileFormat::kParquet;
  if (lower == "csv") return FileFormat::kCsv;
  if (lower == "json" || lower == "ndjson" || lower == "jsonl") return FileFormat::kJson;
  return Status::Invalid("unknown file format '" + std::string(name) +
                         "' (expected parquet, csv or json)");
}

const char* FileExtension(FileFormat format) {
  switch (format) {
    case FileFormat::kParquet:
      return "parquet";
    case FileFormat::kCsv:
      return "csv";
    case FileFormat::kJson:
      return "json";
  }
  return "";
}

std::string PartitionDirectory(const std::string& column, const std::string* value) {
  if (value == nullptr) return column + "=__HIVE_DEFAULT_PARTITION__";
  static const std::string kEscaped = "\"#%'*/:=?\\{[]^";
  std::string out = column + "=";
  for (unsigned char c : *value) {
    if (c < 0x20 || c == 0x7f || kEscaped.find(static_cast<char>(c)) != std::string::npos) {
      char buf[4];
      std::snprintf(buf, sizeof(buf), "%%%02X", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

Result<std::unique_ptr<FormatWriter>> OpenFormatWriter(std::unique_ptr<OutputStream> stream,
                                                       SchemaPtr schema,
                                                       const DatasetWriteOptions& options) {
  std::unique_ptr<FormatWriter> writer;
  switch (options.format) {
    case FileFormat::kParquet: {
      FLOTILLA_ASSIGN_OR_RETURN(writer, parquet::ParquetFileWriter::Open(
                                            std::move(stream), std::move(schema), options.parquet));
      return writer;
    }
    case FileFormat::kCsv: {
      FLOTILLA_ASSIGN_OR_RETURN(
          writer, csv::CsvFileWriter::Open(std::move(stream), std::move(schema), options.csv));
      return writer;
    }
    case FileFormat::kJson: {
      FLOTILLA_ASSIGN_OR_RETURN(writer,
                                json::JsonFileWriter::Open(std::move(stream), std::move(schema)));
      return writer;
    }
  }
  return Status::Invalid("unknown file format");
}

struct DatasetWriter::Impl {
  struct File {
    std::string path, temp;
    PartitionValues values;
    int64_t rows = 0, bytes = 0;
    bool renamed = false;
  };
  struct Open {
    std::unique_ptr<FormatWriter> writer;
    size_t file;  // index into files
  };

  std::filesystem::path root;
  SchemaPtr schema, data_schema;
  std::vector<int> partition_columns, data_columns;
  DatasetWriteOptions options;
  std::string prefix = RandomPrefix();
  std::vector<File> files;
  std::map<std::string, Open> open;  // by partition key
  std::deque<std::string> open_order;
  bool done = false;
  // Directories this writer created, in creation order: removed again (when empty) on abort.
  std::vector<std::filesystem::path> created;

  // Creates `dir` and any missing parents, remembering which were new.
  Status MakeDirectories(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> missing;
    std::error_code ec;
    for (auto p = dir; !p.empty() && !std::filesystem::exists(p, ec); p = p.parent_path()) {
      missing.push_back(p);
      if (p == p.parent_path()) break;
    }
    std::filesystem::create_directories(dir, ec);
    if (ec)
      return Status::IOError("cannot create directory '" + dir.string() + "': " + ec.message());
    created.insert(created.end(), missing.rbegin(), missing.rend());
    return Status::OK();
  }

  Result<Open*> Start(const std::string& key, const PartitionValues& values) {
    if (static_cast<int>(open.size()) >= std::max(1, options.max_open_files)) {
      FLOTILLA_RETURN_NOT_OK(Close(open_order.front()));
    }
    std::filesystem::path dir = root;
    for (size_t p = 0; p < values.size(); ++p)
      dir /= PartitionDirectory(schema->field(partition_columns[p]).name,
                                values[p] ? &*values[p] : nullptr);
    FLOTILLA_RETURN_NOT_OK(MakeDirectories(dir));
    char name[64];
    std::snprintf(name, sizeof(name), "%s-%05zu.%s", prefix.c_str(), files.size(),
                  FileExtension(options.format));
    File file;
    file.path = (dir / name).string();
    file.temp = TemporaryPathFor(file.path);
    file.values = values;
    FLOTILLA_ASSIGN_OR_RETURN(std::unique_ptr<OutputStream> stream,
                              FileOutputStream::Open(file.temp));
    files.push_back(file);
    Open o;
    o.file = files.size() - 1;
    FLOTILLA_ASSIGN_OR_RETURN(o.writer, OpenFormatWriter(std::move(stream), data_schema, options));
    open_order.push_back(key);
    return &(open[key] = std::move(o));
  }

  Status Close(const std::string& key) {
    auto it = open.find(key);
    if (it == open.end()) return Status::OK();
    Open o = std::move(it->second);
    open.erase(it);
    open_order.erase(std::find(open_order.begin(), open_order.end(), key));
    FLOTILLA_RETURN_NOT_OK(o.writer->Close().WithContext("writing '" + files[o.file].path + "'"));
    files[o.file].rows = o.writer->rows_written();
    files[o.file].bytes = o.writer->bytes_written();
    return Status::OK();
  }

  // Appends `batch` (data columns only) to the partition's current file, starting new files as
  // the targets are reached.
  Status WriteTo(const std::string& key, const PartitionValues& values, RecordBatch batch) {
    while (batch.num_rows() > 0) {
      auto it = open.find(key);
      Open* o = it == open.end() ? nullptr : &it->second;
      if (o != nullptr && ((options.max_rows_per_file > 0 &&
                            o->writer->rows_written() >= options.max_rows_per_file) ||
                           o->writer->bytes_written() >= options.target_file_bytes)) {
        FLOTILLA_RETURN_NOT_OK(Close(key));
        o = nullptr;
      }
      if (o == nullptr) {
        FLOTILLA_ASSIGN_OR_RETURN(o, Start(key, values));
      }
      int64_t take = batch.num_rows();
      if (options.max_rows_per_file > 0)
        take = std::min(take, options.max_rows_per_file - o->writer->rows_written());
      FLOTILLA_RETURN_NOT_OK(o->writer->Write(batch.Slice(0, take))
                                 .WithContext("writing '" + files[o->file].path + "'"));
      batch = batch.Slice(take, batch.num_rows() - take);
    }
    return Status::OK();
  }

  void RemoveAll() {
    open.clear();  // drops the writers and their streams
    open_order.clear();
    for (const File& f : files)
      std::remove((f.renamed ? f.path : f.temp).c_str());
    // Deepest first; a directory that holds anything else stays.
    std::error_code ec;
    for (auto it = created.rbegin(); it != created.rend(); ++it)
      std::filesystem::remove(*it, ec);
  }
};

DatasetWriter::DatasetWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

DatasetWriter::~DatasetWriter() {
  if (!impl_->done) Abort();
}

Result<std::unique_ptr<DatasetWriter>> DatasetWriter::Open(std::string root, SchemaPtr schema,
                                                           DatasetWriteOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->root = root;
  std::vector<Field> data_fields;
  for (const std::string& name : options.partition_by) {
    FLOTILLA_ASSIGN_OR_RETURN(int index, schema->FindField(name));
    const DataType& t = *schema->field(index).type;
    if (t.is_nested() || t.id() == TypeId::kBinary || t.id() == TypeId::kLargeBinary ||
        t.id() == TypeId::kFixedSizeBinary)
      return Status::TypeError("cannot partition by column '" + name + "' of type " + t.ToString());
    impl->partition_columns.push_back(index);
  }
  for (int c = 0; c < schema->num_fields(); ++c) {
    if (std::find(impl->partition_columns.begin(), impl->partition_columns.end(), c) !=
        impl->partition_columns.end())
      continue;
    impl->data_columns.push_back(c);
    data_fields.push_back(schema->field(c));
  }
  if (data_fields.empty())
    return Status::Invalid("every column is a partition column: the files would hold nothing");
  impl->data_schema = std::make_shared<Schema>(std::move(data_fields));
  impl->schema = std::move(schema);
  impl->options = std::move(options);
  FLOTILLA_RETURN_NOT_OK(impl->MakeDirectories(impl->root));
  return std::unique_ptr<DatasetWriter>(new DatasetWriter(std::move(impl)));
}

Status DatasetWriter::Write(const RecordBatch& batch) {
  Impl& w = *impl_;
  if (w.done) return Status::Invalid("dataset writer already finished");
  if (!batch.schema()->Equals(*w.schema))
    return Status::Invalid("batch schema differs from the dataset's:\n" +
                           batch.schema()->ToString());
  if (w.partition_columns.empty()) {
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch data, batch.SelectColumns(w.data_columns));
    return w.WriteTo("", {}, std::move(data));
  }
  // Rows grouped by their partition values, in order of first appearance.
  std::map<std::string, uint32_t> ids;
  std::vector<PartitionValues> values;
  std::vector<std::string> keys;
  std::vector<uint32_t> row_ids(static_cast<size_t>(batch.num_rows()));
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    std::string key;
    PartitionValues v;
    for (int c : w.partition_columns) {
      const Array& column = batch.column(c);
      if (column.IsNull(r)) {
        key += '\x01';
        v.emplace_back(std::nullopt);
      } else {
        std::string text = column.ValueToString(r);
        key += '\x02' + text;
        v.emplace_back(std::move(text));
      }
      key += '\0';
    }
    auto [it, added] = ids.emplace(key, static_cast<uint32_t>(values.size()));
    if (added) {
      values.push_back(std::move(v));
      keys.push_back(key);
    }
    row_ids[static_cast<size_t>(r)] = it->second;
  }
  FLOTILLA_ASSIGN_OR_RETURN(
      std::vector<RecordBatch> parts,
      compute::ScatterByPartition(batch, row_ids, static_cast<int>(values.size())));
  for (size_t p = 0; p < parts.size(); ++p) {
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch data, parts[p].SelectColumns(w.data_columns));
    FLOTILLA_RETURN_NOT_OK(w.WriteTo(keys[p], values[p], std::move(data)));
  }
  return Status::OK();
}

Result<RecordBatch> DatasetWriter::Finish() {
  Impl& w = *impl_;
  if (w.done) return Status::Invalid("dataset writer already finished");
  while (!w.open_order.empty())
    FLOTILLA_RETURN_NOT_OK(w.Close(w.open_order.front()));
  for (Impl::File& f : w.files) {
    std::error_code ec;
    std::filesystem::rename(f.temp, f.path, ec);
    if (ec)
      return Status::IOError("cannot rename '" + f.temp + "' to '" + f.path + "': " + ec.message());
    f.renamed = true;
  }
  w.done = true;
  StringBuilder paths(utf8());
  std::vector<std::unique_ptr<StringBuilder>> value_builders;
  for (size_t p = 0; p < w.partition_columns.size(); ++p)
    value_builders.push_back(std::make_unique<StringBuilder>(utf8()));
  Int64Builder rows(int64()), bytes(int64());
  for (const Impl::File& f : w.files) {
    FLOTILLA_RETURN_NOT_OK(paths.Append(f.path));
    for (size_t p = 0; p < f.values.size(); ++p)
      FLOTILLA_RETURN_NOT_OK(f.values[p] ? value_builders[p]->Append(*f.values[p])
                                         : value_builders[p]->AppendNull());
    FLOTILLA_RETURN_NOT_OK(rows.Append(f.rows));
    FLOTILLA_RETURN_NOT_OK(bytes.Append(f.bytes));
  }
  std::vector<std::pair<std::string, Array>> columns;
  FLOTILLA_ASSIGN_OR_RETURN(Array path_array, paths.Finish());
  columns.emplace_back("path", std::move(path_array));
  for (size_t p = 0; p < w.partition_columns.size(); ++p) {
    FLOTILLA_ASSIGN_OR_RETURN(Array a, value_builders[p]->Finish());
    columns.emplace_back(w.schema->field(w.partition_columns[p]).name, std::move(a));
  }
  FLOTILLA_ASSIGN_OR_RETURN(Array rows_array, rows.Finish());
  FLOTILLA_ASSIGN_OR_RETURN(Array bytes_array, bytes.Finish());
  columns.emplace_back("rows", std::move(rows_array));
  columns.emplace_back("bytes", std::move(bytes_array));
  return RecordBatch::FromColumns(std::move(columns));
}

void DatasetWriter::Abort() {
  if (impl_->done) return;
  impl_->RemoveAll();
  impl_->done = true;
}

Result<RecordBatch> WriteDataset(const std::string& root, const SchemaPtr& schema,
                                 const std::vector<RecordBatch>& batches,
                                 const DatasetWriteOptions& options) {
  FLOTILLA_ASSIGN_OR_RETURN(std::unique_ptr<DatasetWriter> writer,
                            DatasetWriter::Open(root, schema, options));
  for (const RecordBatch& b : batches) {
    Status st = writer->Write(b);
    if (!st.ok()) {
      writer->Abort();
      return st;
    }
  }
  auto result = writer->Finish();
  if (!result.ok()) writer->Abort();
  return result;
}

}  // namespace flotilla::io
