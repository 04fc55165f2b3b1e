// The file writer: rows are shredded into per-leaf buffers (column_shredder.cc) until a row
// group is full, then its column chunks are encoded on several threads (column_chunk_writer.cc)
// and written in column order; the page index and the footer follow the last row group.
#include "flotilla/io/parquet/writer.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <optional>
#include <thread>

#include "flotilla/compute/cast.h"
#include "flotilla/io/fs/atomic_write.h"
#include "flotilla/io/parquet/codec.h"
#include "flotilla/io/parquet/column_chunk_writer.h"
#include "flotilla/io/parquet/column_shredder.h"
#include "flotilla/io/parquet/schema.h"
#include "flotilla/io/parquet/writer_schema.h"

namespace flotilla::io::parquet {

namespace {

constexpr char kMagic[] = "PAR1";

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
    for (std::string& b : bytes)
      b.clear();
    std::vector<Result<EncodedChunk>> chunks(n, Status::Internal("column chunk not encoded"));
    std::atomic<size_t> next{0};
    auto work = [&]() {
      auto local = PageCodec::Make(options.codec, options.compression_level);
      for (size_t l = next++; l < n; l = next++) {
        if (!local.ok()) {
          chunks[l] = local.status();
          continue;
        }
        chunks[l] =
            WriteColumnChunk(file_schema.leaves[l], options, local->get(), leaves[l], 0, &bytes[l]);
        leaves[l].Clear();
      }
    };
    const int threads = std::min<int>(static_cast<int>(n),
                                      options.encode_threads > 0
                                          ? options.encode_threads
                                          : static_cast<int>(std::thread::hardware_concurrency()));
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t)
      pool.emplace_back(work);
    work();
    for (std::thread& t : pool)
      t.join();
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
      for (PageLocation& page : chunks[l]->offset_index.page_locations)
        page.offset += base;
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

int64_t ParquetFileWriter::bytes_written() const {
  return impl_->out->Tell();
}

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
    FLOTILLA_RETURN_NOT_OK(AddSchemaElements(f, &impl->metadata.schema));
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
                           " columns for a Parquet file of " +
                           std::to_string(s.schema->num_fields()));
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
    const int64_t take = std::min<int64_t>(
        {batch.num_rows() - row, 4096, s.options.row_group_rows - s.buffered_rows});
    for (size_t c = 0; c < columns.size(); ++c) {
      const SchemaNode& node = s.file_schema.fields[c];
      if (node.kind == SchemaNode::Kind::kLeaf) {
        shredder.FlatRows(node, columns[c], row, row + take);
      } else {
        for (int64_t r = row; r < row + take; ++r)
          shredder.Row(node, columns[c], r, 0, 0);
      }
    }
    row += take;
    s.buffered_rows += take;
    rows_written_ += take;
    if (s.buffered_rows >= s.options.row_group_rows ||
        s.BufferedBytes() >= s.options.row_group_bytes)
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
                        const std::vector<RecordBatch>& batches,
                        const ParquetWriteOptions& options) {
  return io::WriteFileAtomically(path, [&](std::unique_ptr<io::OutputStream> stream) -> Status {
    FLOTILLA_ASSIGN_OR_RETURN(auto writer,
                              ParquetFileWriter::Open(std::move(stream), schema, options));
    for (const RecordBatch& b : batches)
      FLOTILLA_RETURN_NOT_OK(writer->Write(b));
    return writer->Close();
  });
}

}  // namespace flotilla::io::parquet
