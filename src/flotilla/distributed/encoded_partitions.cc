#include "flotilla/distributed/encoded_partitions.h"

#include "flotilla/distributed/partition_store.h"
#include "flotilla/io/stream.h"

namespace flotilla::distributed {

Result<EncodedPartitions> EncodePartitions(const SchemaPtr& schema,
                                           const std::vector<std::vector<RecordBatch>>& partitions,
                                           ipc::Compression compression) {
  EncodedPartitions out;
  out.schema = schema;
  out.offsets.push_back(0);
  ipc::WriteOptions options;
  options.compression = compression;
  options.min_compress_bytes = kMinCompressBytes;
  io::BufferOutputStream sink;
  for (const std::vector<RecordBatch>& batches : partitions) {
    FLOTILLA_ASSIGN_OR_RETURN(auto writer, ipc::StreamWriter::Open(&sink, schema, options));
    int64_t rows = 0;
    for (const RecordBatch& b : batches) {
      if (b.num_rows() == 0) continue;
      FLOTILLA_RETURN_NOT_OK(writer->WriteBatch(b));
      rows += b.num_rows();
    }
    FLOTILLA_RETURN_NOT_OK(writer->Close());
    out.offsets.push_back(sink.Tell());
    out.rows.push_back(rows);
    out.decoded_bytes.push_back(PartitionBytes(batches));
  }
  FLOTILLA_ASSIGN_OR_RETURN(out.bytes, sink.Finish());
  return out;
}

Result<std::vector<RecordBatch>> DecodePartition(const BufferPtr& stream) {
  return ipc::ReadStream(stream);
}

}  // namespace flotilla::distributed
