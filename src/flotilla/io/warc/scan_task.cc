#include "flotilla/io/warc/scan_task.h"

#include <limits>

#include "flotilla/columnar/builder.h"
#include "flotilla/compute/parse.h"
#include "flotilla/io/text/packed.h"
#include "flotilla/io/text/range_task.h"
#include "flotilla/io/warc/record_reader.h"

namespace flotilla::io::warc {
namespace {

enum Column {
  kVersion,
  kRecordId,
  kRecordType,
  kTargetUri,
  kDate,
  kContentType,
  kContentLength,
  kHeaders,
  kPayload,
  kOffset,
};

// A batch is cut at this many records or payload bytes, whichever comes first.
constexpr int64_t kBatchRecords = 4096;
constexpr int64_t kBatchPayloadBytes = int64_t{64} << 20;

Status AppendOptionalString(ArrayBuilder* builder, const std::string* value) {
  if (value == nullptr) return builder->AppendNull();
  return static_cast<StringBuilder*>(builder)->Append(*value);
}

Status AppendColumn(int column, const WarcRecord& record, ArrayBuilder* builder) {
  switch (column) {
    case kVersion:
      return static_cast<StringBuilder*>(builder)->Append(record.version);
    case kRecordId:
      return AppendOptionalString(builder, record.Find("WARC-Record-ID"));
    case kRecordType:
      return AppendOptionalString(builder, record.Find("WARC-Type"));
    case kTargetUri:
      return AppendOptionalString(builder, record.Find("WARC-Target-URI"));
    case kDate: {
      const std::string* text = record.Find("WARC-Date");
      int64_t micros;
      if (text == nullptr || !compute::ParseTimestamp(*text, TimeUnit::kMicro, &micros))
        return builder->AppendNull();
      return static_cast<Int64Builder*>(builder)->Append(micros);
    }
    case kContentType:
      return AppendOptionalString(builder, record.Find("Content-Type"));
    case kContentLength:
      return static_cast<Int64Builder*>(builder)->Append(static_cast<int64_t>(record.block.size()));
    case kHeaders: {
      auto* list = static_cast<ListBuilder*>(builder);
      FLOTILLA_RETURN_NOT_OK(list->Append());
      auto* fields = static_cast<StructBuilder*>(list->value_builder());
      for (const auto& [name, value] : record.headers) {
        FLOTILLA_RETURN_NOT_OK(fields->Append());
        FLOTILLA_RETURN_NOT_OK(static_cast<StringBuilder*>(fields->field_builder(0))->Append(name));
        FLOTILLA_RETURN_NOT_OK(
            static_cast<StringBuilder*>(fields->field_builder(1))->Append(value));
      }
      return Status::OK();
    }
    case kPayload:
      return static_cast<StringBuilder*>(builder)->Append(record.block);
    case kOffset:
      return static_cast<Int64Builder*>(builder)->Append(record.offset);
  }
  return Status::Invalid("unknown WARC column");
}

}  // namespace

SchemaPtr WarcSchema() {
  static const SchemaPtr schema = std::make_shared<Schema>(std::vector<Field>{
      {"warc_version", utf8()},
      {"record_id", utf8()},
      {"record_type", utf8()},
      {"target_uri", utf8()},
      {"date", timestamp(TimeUnit::kMicro, "UTC")},
      {"content_type", utf8()},
      {"content_length", int64()},
      {"headers", list(struct_({{"name", utf8()}, {"value", utf8()}}))},
      {"payload", binary()},
      {"record_offset", int64()},
  });
  return schema;
}

Result<std::vector<RecordBatch>> WarcScanTask::Read(const io::ScanPushdowns& pushdowns) const {
  const SchemaPtr schema = WarcSchema();
  FLOTILLA_ASSIGN_OR_RETURN(std::vector<int> columns, pushdowns.ColumnIndices(*schema, ToString()));
  std::vector<Field> fields;
  for (int c : columns)
    fields.push_back(schema->field(c));
  const auto out_schema = std::make_shared<Schema>(fields);
  std::vector<std::unique_ptr<ArrayBuilder>> builders;
  for (const Field& field : fields) {
    FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(field.type));
    builders.push_back(std::move(builder));
  }
  const int64_t limit = pushdowns.StoppingLimit().value_or(std::numeric_limits<int64_t>::max());

  FLOTILLA_ASSIGN_OR_RETURN(auto input, DecodedInput::Open(file_.get()));
  WarcRecordReader reader(std::move(input), options_.ignore_errors);
  std::vector<RecordBatch> batches;
  int64_t rows = 0, batch_rows = 0, batch_bytes = 0;
  auto flush = [&]() -> Status {
    std::vector<Array> arrays;
    for (auto& builder : builders) {
      FLOTILLA_ASSIGN_OR_RETURN(Array array, builder->Finish());
      arrays.push_back(std::move(array));
    }
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch batch,
                              RecordBatch::Make(out_schema, std::move(arrays), batch_rows));
    batches.push_back(std::move(batch));
    batch_rows = batch_bytes = 0;
    return Status::OK();
  };
  WarcRecord record;
  while (rows < limit) {
    FLOTILLA_ASSIGN_OR_RETURN(bool more, reader.Next(&record));
    if (!more) break;
    for (size_t c = 0; c < columns.size(); ++c)
      FLOTILLA_RETURN_NOT_OK(AppendColumn(columns[c], record, builders[c].get()));
    ++rows;
    ++batch_rows;
    batch_bytes += static_cast<int64_t>(record.block.size());
    if (batch_rows >= kBatchRecords || batch_bytes >= kBatchPayloadBytes)
      FLOTILLA_RETURN_NOT_OK(flush());
  }
  if (batch_rows > 0 || batches.empty()) FLOTILLA_RETURN_NOT_OK(flush());
  return batches;
}

Result<std::string> WarcScanTask::Serialize() const {
  return text::Pack({file_->name(), options_.ignore_errors ? "1" : "0"});
}

Result<io::FileScan> PlanWarcScan(const std::vector<std::string>& paths,
                                  const WarcReadOptions& options) {
  FLOTILLA_ASSIGN_OR_RETURN(auto files, text::OpenFiles(paths));
  io::FileScan scan;
  scan.schema = WarcSchema();
  for (auto& file : files)
    scan.tasks.push_back(std::make_shared<WarcScanTask>(std::move(file), options));
  return scan;
}

void RegisterWarcScanTasks(io::ScanTaskRegistry* registry) {
  (*registry)["warc"] = [](std::string_view bytes) -> Result<std::shared_ptr<const io::ScanTask>> {
    FLOTILLA_ASSIGN_OR_RETURN(std::vector<std::string> parts, text::Unpack(bytes, 2));
    FLOTILLA_ASSIGN_OR_RETURN(auto file, io::OpenFile(parts[0]));
    WarcReadOptions options;
    options.ignore_errors = parts[1] == "1";
    return std::shared_ptr<const io::ScanTask>(std::make_shared<WarcScanTask>(file, options));
  };
}

}  // namespace flotilla::io::warc
