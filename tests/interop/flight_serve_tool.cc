// A worker's Flight server holding one map task's output, for the independent Flight client test
// (flight_client.mjs): a table of ROWS rows split by id % PARTITIONS, kept as a shuffle map task
// keeps it (sent with the codec asked for). Prints one JSON line (address, token, each partition's
// ticket and rows) and serves until its standard input is closed.
//
//   flight_serve_tool ROWS PARTITIONS none|lz4|zstd [TOKEN]
#include <cstdio>
#include <iostream>
#include <string>

#include "flotilla/columnar/builder.h"
#include "flotilla/distributed/worker_runtime.h"

namespace flotilla {
namespace {

// id int64, name utf8 (null when id % 7 == 3), value float64 (id / 2), tags list<int32> (null
// when id % 11 == 5, else [id % 3, id % 5]): the rows of one partition, in id order.
Result<RecordBatch> PartitionRows(int64_t rows, int partitions, int p) {
  auto schema = std::make_shared<Schema>(std::vector<Field>{
      {"id", int64()}, {"name", utf8()}, {"value", float64()}, {"tags", list(int32())}});
  std::vector<std::unique_ptr<ArrayBuilder>> builders;
  for (const Field& f : schema->fields()) {
    FLOTILLA_ASSIGN_OR_RETURN(auto b, MakeBuilder(f.type));
    builders.push_back(std::move(b));
  }
  auto* ids = static_cast<Int64Builder*>(builders[0].get());
  auto* names = static_cast<StringBuilder*>(builders[1].get());
  auto* values = static_cast<DoubleBuilder*>(builders[2].get());
  auto* tags = static_cast<ListBuilder*>(builders[3].get());
  auto* tag_values = static_cast<Int32Builder*>(tags->value_builder());
  int64_t n = 0;
  for (int64_t id = p; id < rows; id += partitions, ++n) {
    FLOTILLA_RETURN_NOT_OK(ids->Append(id));
    FLOTILLA_RETURN_NOT_OK(id % 7 == 3 ? names->AppendNull()
                                       : names->Append("row-" + std::to_string(id)));
    FLOTILLA_RETURN_NOT_OK(values->Append(static_cast<double>(id) * 0.5));
    if (id % 11 == 5) {
      FLOTILLA_RETURN_NOT_OK(tags->AppendNull());
    } else {
      FLOTILLA_RETURN_NOT_OK(tags->Append());
      FLOTILLA_RETURN_NOT_OK(tag_values->Append(static_cast<int32_t>(id % 3)));
      FLOTILLA_RETURN_NOT_OK(tag_values->Append(static_cast<int32_t>(id % 5)));
    }
  }
  std::vector<Array> columns;
  for (auto& b : builders) {
    FLOTILLA_ASSIGN_OR_RETURN(Array a, b->Finish());
    columns.push_back(std::move(a));
  }
  return RecordBatch::Make(schema, std::move(columns), n);
}

// Batches of at most 64Ki rows, as a map task's output comes.
std::vector<RecordBatch> Chunks(const RecordBatch& b) {
  std::vector<RecordBatch> out;
  for (int64_t at = 0; at < b.num_rows(); at += 65536)
    out.push_back(b.Slice(at, std::min<int64_t>(65536, b.num_rows() - at)));
  return out;
}

Status Run(int64_t rows, int partitions, const std::string& codec, const std::string& token) {
  FLOTILLA_ASSIGN_OR_RETURN(ipc::Compression compression, ipc::ParseCompression(codec));
  distributed::WorkerOptions options;
  options.token = token;
  FLOTILLA_ASSIGN_OR_RETURN(auto worker, distributed::WorkerRuntime::Start(options));
  std::vector<std::vector<RecordBatch>> parts;
  SchemaPtr schema;
  for (int p = 0; p < partitions; ++p) {
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch b, PartitionRows(rows, partitions, p));
    schema = b.schema();
    parts.push_back(Chunks(b));
  }
  std::string listing;
  for (int p = 0; p < partitions; ++p) {
    if (p > 0) listing += ",";
    listing += "{\"ticket\":\"" + distributed::PartitionKey(0, 0, 0, p) + "\",\"rows\":" +
               std::to_string(distributed::StoredPartition{schema, parts[p]}.num_rows()) + "}";
  }
  FLOTILLA_RETURN_NOT_OK(worker->store().PutGroup(distributed::TaskOutputKey(0, 0, 0), schema,
                                                  std::move(parts), compression));
  std::cout << "{\"address\":\"" << worker->address() << "\",\"token\":\"" << token
            << "\",\"partitions\":[" << listing << "]}" << std::endl;
  std::string line;
  while (std::getline(std::cin, line)) {
  }
  return Status::OK();
}

}  // namespace
}  // namespace flotilla

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s ROWS PARTITIONS none|lz4|zstd [TOKEN]\n", argv[0]);
    return 2;
  }
  const int partitions = std::atoi(argv[2]);
  if (partitions < 1) {
    std::fprintf(stderr, "flight_serve_tool: PARTITIONS must be at least 1\n");
    return 2;
  }
  flotilla::Status s =
      flotilla::Run(std::atoll(argv[1]), partitions, argv[3], argc > 4 ? argv[4] : "interop-token");
  if (!s.ok()) {
    std::fprintf(stderr, "flight_serve_tool: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
