#include "flotilla/io/parquet/reader.h"

#include <cstring>

#include "flotilla/io/parquet/assemble.h"
#include "flotilla/io/parquet/column_reader.h"
#include "flotilla/io/parquet/statistics.h"

namespace flotilla::parquet {

namespace {
constexpr char kMagic[] = "PAR1";
constexpr int64_t kMaxFooter = int64_t{1} << 30;
}  // namespace

Result<std::shared_ptr<ParquetFileReader>> ParquetFileReader::Open(const std::string& uri) {
  FLOTILLA_ASSIGN_OR_RETURN(auto file, io::OpenFile(uri));
  return Open(std::move(file));
}

Result<std::shared_ptr<ParquetFileReader>> ParquetFileReader::Open(
    std::shared_ptr<io::RandomAccessFile> file) {
  const std::string name = file->name();
  auto fail = [&](const std::string& why) {
    return Status::Invalid("parquet file '" + name + "': " + why);
  };
  const int64_t size = file->size();
  if (size < 12) return fail("too small to be Parquet (" + std::to_string(size) + " bytes)");
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr head, file->ReadAt(0, 4));
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr tail, file->ReadAt(size - 8, 8));
  if (std::memcmp(tail->data() + 4, "PARE", 4) == 0)
    return Status::NotImplemented("parquet file '" + name + "' is encrypted");
  if (std::memcmp(head->data(), kMagic, 4) != 0 || std::memcmp(tail->data() + 4, kMagic, 4) != 0)
    return fail("not a Parquet file (no PAR1 magic at its start and end)");
  uint32_t footer_length;
  std::memcpy(&footer_length, tail->data(), 4);
  if (footer_length > size - 12 || footer_length > kMaxFooter)
    return fail("footer of " + std::to_string(footer_length) + " bytes does not fit the file");
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr footer, file->ReadAt(size - 8 - footer_length, footer_length));
  auto metadata = DecodeFileMetaData(footer->data(), footer->size());
  if (!metadata.ok()) return metadata.status().WithContext("parquet file '" + name + "'");
  if (metadata->encrypted) return Status::NotImplemented("parquet file '" + name + "' is encrypted");
  auto schema = BuildFileSchema(*metadata);
  if (!schema.ok()) return schema.status().WithContext("parquet file '" + name + "' schema");
  const size_t leaves = schema->leaves.size();
  int64_t rows = 0;
  for (size_t g = 0; g < metadata->row_groups.size(); ++g) {
    const RowGroup& rg = metadata->row_groups[g];
    if (rg.columns.size() != leaves)
      return fail("row group " + std::to_string(g) + " has " + std::to_string(rg.columns.size()) +
                  " column chunks for " + std::to_string(leaves) + " columns");
    if (rg.num_rows < 0) return fail("row group " + std::to_string(g) + " has negative rows");
    rows += rg.num_rows;
  }
  if (rows != metadata->num_rows)
    return fail("row groups hold " + std::to_string(rows) + " rows, the footer says " +
                std::to_string(metadata->num_rows));
  return std::shared_ptr<ParquetFileReader>(new ParquetFileReader(
      std::move(file), std::move(metadata).ValueOrDie(), std::move(schema).ValueOrDie()));
}

Result<std::vector<int>> ParquetFileReader::FieldIndices(
    const std::optional<std::vector<std::string>>& columns) const {
  std::vector<int> out;
  if (!columns) {
    for (int i = 0; i < schema()->num_fields(); ++i) out.push_back(i);
    return out;
  }
  for (const std::string& c : *columns) {
    auto index = schema()->FindField(c);
    if (!index.ok()) return index.status().WithContext("parquet file '" + name() + "'");
    out.push_back(*index);
  }
  return out;
}

Result<RecordBatch> ParquetFileReader::ReadRowGroup(int index, const std::vector<int>& fields) const {
  const std::string where = "parquet file '" + name() + "', row group " + std::to_string(index);
  if (index < 0 || index >= num_row_groups())
    return Status::IndexError(where + " does not exist (" + std::to_string(num_row_groups()) +
                              " row groups)");
  const RowGroup& rg = metadata_.row_groups[index];
  std::vector<LeafData> leaves(schema_.leaves.size());
  std::vector<Array> columns;
  std::vector<Field> out_fields;
  for (int f : fields) {
    const SchemaNode& node = schema_.fields[f];
    for (int leaf = node.first_leaf; leaf < node.end_leaf; ++leaf) {
      const ColumnDescriptor& column = schema_.leaves[leaf];
      const std::string at = where + ", column '" + column.path + "'";
      if (!column.unsupported.empty()) return Status::NotImplemented(at + ": " + column.unsupported);
      const ColumnChunk& chunk = rg.columns[leaf];
      if (chunk.file_path) return Status::NotImplemented(at + ": column chunks in other files");
      if (!chunk.meta_data) return Status::Invalid(at + ": column chunk without metadata");
      int64_t offset = 0, length = 0;
      Status range = ColumnChunkRange(*chunk.meta_data, file_->size(), &offset, &length);
      if (!range.ok()) return range.WithContext(at);
      auto bytes = file_->ReadAt(offset, length);
      if (!bytes.ok()) return bytes.status().WithContext(at);
      auto data = ReadColumnChunk((*bytes)->data(), length, *chunk.meta_data, column);
      if (!data.ok()) return data.status().WithContext(at);
      leaves[leaf] = std::move(data).ValueOrDie();
    }
    auto array = AssembleField(node, leaves, schema_.leaves, rg.num_rows);
    if (!array.ok()) return array.status().WithContext(where);
    // The levels and values were checked while decoding; this re-checks the assembled buffers
    // as a whole, so that no corrupt file can hand out an array reaching outside its memory.
    auto valid = Array::Make(array->data());
    if (!valid.ok())
      return valid.status().WithContext(where + ", column '" + node.name + "'");
    columns.push_back(std::move(valid).ValueOrDie());
    out_fields.push_back(schema()->field(f));
    for (int leaf = node.first_leaf; leaf < node.end_leaf; ++leaf) leaves[leaf] = LeafData();
  }
  return RecordBatch::Make(std::make_shared<Schema>(std::move(out_fields)), std::move(columns),
                           rg.num_rows);
}

bool ParquetFileReader::RowGroupMayMatch(int index, const expr::ExprPtr& filter) const {
  if (filter == nullptr || index < 0 || index >= num_row_groups()) return true;
  const RowGroup& rg = metadata_.row_groups[index];
  return MayMatch(filter, [&](const std::string& name) -> std::optional<ColumnStats> {
    const int f = schema()->GetFieldIndex(name);
    if (f < 0) return std::nullopt;
    const SchemaNode& node = schema_.fields[f];
    if (node.kind != SchemaNode::Kind::kLeaf) return std::nullopt;
    // TIME(MILLIS) statistics are in milliseconds, the column in microseconds: not compared.
    if (schema_.leaves[node.leaf].type->id() == TypeId::kTime64) return std::nullopt;
    const ColumnChunk& chunk = rg.columns[node.leaf];
    if (!chunk.meta_data || !chunk.meta_data->statistics) return std::nullopt;
    return ChunkStats(schema_.leaves[node.leaf], *chunk.meta_data->statistics, rg.num_rows);
  });
}

}  // namespace flotilla::parquet
