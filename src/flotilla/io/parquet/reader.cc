#include "flotilla/io/parquet/reader.h"

#include <algorithm>
#include <cstring>

#include "flotilla/common/thread_pool.h"
#include "flotilla/io/parquet/assemble.h"
#include "flotilla/io/parquet/column_reader.h"
#include "flotilla/io/parquet/statistics.h"

namespace flotilla::io::parquet {

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
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr footer,
                            file->ReadAt(size - 8 - footer_length, footer_length));
  auto metadata = DecodeFileMetaData(footer->data(), footer->size());
  if (!metadata.ok()) return metadata.status().WithContext("parquet file '" + name + "'");
  if (metadata->encrypted)
    return Status::NotImplemented("parquet file '" + name + "' is encrypted");
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
      std::move(file), std::make_shared<const FileMetaData>(std::move(metadata).ValueOrDie()),
      std::make_shared<const FileSchema>(std::move(schema).ValueOrDie())));
}

std::shared_ptr<ParquetFileReader> ParquetFileReader::Reopen(
    std::shared_ptr<io::RandomAccessFile> file) const {
  return std::shared_ptr<ParquetFileReader>(
      new ParquetFileReader(std::move(file), metadata_, schema_));
}

Result<std::vector<int>> ParquetFileReader::FieldIndices(
    const std::optional<std::vector<std::string>>& columns) const {
  std::vector<int> out;
  if (!columns) {
    for (int i = 0; i < schema()->num_fields(); ++i)
      out.push_back(i);
    return out;
  }
  for (const std::string& c : *columns) {
    auto index = schema()->FindField(c);
    if (!index.ok()) return index.status().WithContext("parquet file '" + name() + "'");
    out.push_back(*index);
  }
  return out;
}

Result<RecordBatch> ParquetFileReader::ReadRowGroup(int index, const std::vector<int>& fields,
                                                    const RowRanges* rows) const {
  const std::string where = "parquet file '" + name() + "', row group " + std::to_string(index);
  if (index < 0 || index >= num_row_groups())
    return Status::IndexError(where + " does not exist (" + std::to_string(num_row_groups()) +
                              " row groups)");
  const RowGroup& rg = metadata_->row_groups[index];
  const bool all_rows = rows == nullptr || (rows->size() == 1 && rows->front().begin == 0 &&
                                            rows->front().end == rg.num_rows);
  // Every leaf under the fields, each once; decoded in parallel (ParallelFor uses the idle
  // threads of the calling pool), then assembled field by field.
  std::vector<LeafData> leaves(schema_->leaves.size());
  std::vector<RowRanges> covered(schema_->leaves.size(), RowRanges{{0, rg.num_rows}});
  std::vector<int> wanted;
  std::vector<bool> seen(schema_->leaves.size(), false), top_level(schema_->leaves.size(), false);
  for (int f : fields) {
    const SchemaNode& node = schema_->fields[f];
    if (node.kind == SchemaNode::Kind::kLeaf) top_level[node.leaf] = true;
    for (int leaf = node.first_leaf; leaf < node.end_leaf; ++leaf) {
      if (!seen[leaf]) wanted.push_back(leaf);
      seen[leaf] = true;
    }
  }
  FLOTILLA_RETURN_NOT_OK(ParallelFor(static_cast<int64_t>(wanted.size()), [&](int64_t i) {
    const int leaf = wanted[static_cast<size_t>(i)];
    const ColumnDescriptor& column = schema_->leaves[leaf];
    const std::string at = where + ", column '" + column.path + "'";
    if (!column.unsupported.empty()) return Status::NotImplemented(at + ": " + column.unsupported);
    const ColumnChunk& chunk = rg.columns[leaf];
    if (chunk.file_path) return Status::NotImplemented(at + ": column chunks in other files");
    if (!chunk.meta_data) return Status::Invalid(at + ": column chunk without metadata");
    Result<LeafData> data = Status::OK();
    // A top-level leaf with an offset index decodes only the pages holding the rows wanted;
    // nested fields decode whole chunks (their leaves must hold the same rows).
    if (!all_rows && top_level[leaf] && chunk.offset_index_offset) {
      data = ReadPagesOfRows(chunk, column, rg.num_rows, *rows, &covered[leaf]);
    } else {
      int64_t offset = 0, length = 0;
      Status range = ColumnChunkRange(*chunk.meta_data, file_->size(), &offset, &length);
      if (!range.ok()) return range.WithContext(at);
      auto bytes = file_->ReadAt(offset, length);
      if (!bytes.ok()) return bytes.status().WithContext(at);
      data = ReadColumnChunk((*bytes)->data(), length, *chunk.meta_data, column);
    }
    if (!data.ok()) return data.status().WithContext(at);
    leaves[leaf] = std::move(data).ValueOrDie();
    return Status::OK();
  }));
  std::vector<Array> columns;
  std::vector<Field> out_fields;
  for (int f : fields) {
    const SchemaNode& node = schema_->fields[f];
    const RowRanges& held = covered[node.first_leaf];
    auto array = AssembleField(node, leaves, schema_->leaves, CountRows(held));
    if (!array.ok()) return array.status().WithContext(where);
    if (!all_rows) {
      array = TakeRows(*array, held, *rows);
      if (!array.ok()) return array.status().WithContext(where);
    }
    // The levels and values were checked while decoding; this re-checks the assembled buffers
    // as a whole, so that no corrupt file can hand out an array reaching outside its memory.
    auto valid = Array::Make(array->data());
    if (!valid.ok()) return valid.status().WithContext(where + ", column '" + node.name + "'");
    columns.push_back(std::move(valid).ValueOrDie());
    out_fields.push_back(schema()->field(f));
  }
  return RecordBatch::Make(std::make_shared<Schema>(std::move(out_fields)), std::move(columns),
                           all_rows ? rg.num_rows : CountRows(*rows));
}

Result<OffsetIndex> ParquetFileReader::ReadOffsetIndex(const ColumnChunk& chunk,
                                                       int64_t num_rows) const {
  const int64_t offset = *chunk.offset_index_offset;
  const int64_t length = chunk.offset_index_length.value_or(-1);
  if (offset < 0 || length <= 0 || length > file_->size() || offset > file_->size() - length)
    return Status::Invalid("offset index at byte " + std::to_string(offset) + " of " +
                           std::to_string(length) + " bytes lies outside the file");
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr bytes, file_->ReadAt(offset, length));
  FLOTILLA_ASSIGN_OR_RETURN(OffsetIndex index, DecodeOffsetIndex(bytes->data(), bytes->size()));
  int64_t chunk_offset = 0, chunk_length = 0;
  FLOTILLA_RETURN_NOT_OK(
      ColumnChunkRange(*chunk.meta_data, file_->size(), &chunk_offset, &chunk_length));
  FLOTILLA_RETURN_NOT_OK(CheckOffsetIndex(index, num_rows, chunk_offset, chunk_length));
  return index;
}

Result<LeafData> ParquetFileReader::ReadPagesOfRows(const ColumnChunk& chunk,
                                                    const ColumnDescriptor& column,
                                                    int64_t num_rows, const RowRanges& rows,
                                                    RowRanges* covered) const {
  FLOTILLA_ASSIGN_OR_RETURN(OffsetIndex index, ReadOffsetIndex(chunk, num_rows));
  const ColumnMetaData& meta = *chunk.meta_data;
  const auto& pages = index.page_locations;
  // The pages overlapping `rows`, in runs of neighbours read with one request each.
  std::vector<size_t> selected;
  covered->clear();
  size_t r = 0;
  for (size_t p = 0; p < pages.size(); ++p) {
    const RowRange page = PageRows(index, p, num_rows);
    while (r < rows.size() && rows[r].end <= page.begin)
      ++r;
    if (r < rows.size() && rows[r].begin < page.end && page.begin < page.end) {
      selected.push_back(p);
      AppendRange(covered, page.begin, page.end);
    }
  }
  std::vector<BufferPtr> held;
  std::vector<PageSpan> spans;
  int64_t chunk_offset = 0, chunk_length = 0;
  FLOTILLA_RETURN_NOT_OK(ColumnChunkRange(meta, file_->size(), &chunk_offset, &chunk_length));
  if (chunk_offset < pages[0].offset) {  // the dictionary page precedes the data pages
    FLOTILLA_ASSIGN_OR_RETURN(BufferPtr dict,
                              file_->ReadAt(chunk_offset, pages[0].offset - chunk_offset));
    spans.push_back({dict->data(), dict->size(), 0, true});
    held.push_back(std::move(dict));
  }
  for (size_t i = 0; i < selected.size();) {
    size_t j = i + 1;
    while (j < selected.size() && selected[j] == selected[j - 1] + 1)
      ++j;
    const PageLocation& first = pages[selected[i]];
    const PageLocation& last = pages[selected[j - 1]];
    FLOTILLA_ASSIGN_OR_RETURN(
        BufferPtr run,
        file_->ReadAt(first.offset, last.offset + last.compressed_page_size - first.offset));
    for (size_t k = i; k < j; ++k) {
      const PageLocation& page = pages[selected[k]];
      spans.push_back({run->data() + (page.offset - first.offset), page.compressed_page_size,
                       PageRows(index, selected[k], num_rows).size(), false});
    }
    held.push_back(std::move(run));
    i = j;
  }
  return ReadColumnPages(spans, meta, column);
}

Result<std::optional<RowRanges>> ParquetFileReader::RowsMayMatch(
    int index, const expr::ExprPtr& filter) const {
  if (filter == nullptr || index < 0 || index >= num_row_groups()) return std::nullopt;
  const RowGroup& rg = metadata_->row_groups[index];
  // The top-level leaf columns the filter names (MayMatch asks for each).
  std::vector<std::string> names;
  (void)MayMatch(filter, [&](const std::string& name) -> std::optional<ColumnStats> {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    return std::nullopt;
  });
  std::optional<RowRanges> rows;
  for (const std::string& column : names) {
    const int f = schema()->GetFieldIndex(column);
    if (f < 0 || schema_->fields[f].kind != SchemaNode::Kind::kLeaf) continue;
    const int leaf = schema_->fields[f].leaf;
    if (schema_->leaves[leaf].type->id() == TypeId::kTime64) continue;  // see RowGroupMayMatch
    const ColumnChunk& chunk = rg.columns[leaf];
    if (!chunk.column_index_offset || !chunk.offset_index_offset || !chunk.meta_data) continue;
    const std::string at = "parquet file '" + name() + "', row group " + std::to_string(index) +
                           ", column '" + column + "' page index";
    const int64_t offset = *chunk.column_index_offset;
    const int64_t length = chunk.column_index_length.value_or(-1);
    if (offset < 0 || length <= 0 || length > file_->size() || offset > file_->size() - length)
      return Status::Invalid(at + ": column index outside the file");
    auto bytes = file_->ReadAt(offset, length);
    if (!bytes.ok()) return bytes.status().WithContext(at);
    auto stats = DecodeColumnIndex((*bytes)->data(), (*bytes)->size());
    if (!stats.ok()) return stats.status().WithContext(at);
    auto offsets = ReadOffsetIndex(chunk, rg.num_rows);
    if (!offsets.ok()) return offsets.status().WithContext(at);
    RowRanges match =
        PagesMayMatch(schema_->leaves[leaf], column, *stats, *offsets, rg.num_rows, filter);
    rows = rows ? Intersect(*rows, match) : std::move(match);
  }
  if (rows && rows->size() == 1 && rows->front() == RowRange{0, rg.num_rows}) return std::nullopt;
  return rows;
}

std::optional<std::pair<int64_t, int64_t>> ParquetFileReader::IntegerRange(
    int index, const std::string& column) const {
  const int f = schema()->GetFieldIndex(column);
  if (f < 0 || index < 0 || index >= num_row_groups()) return std::nullopt;
  const SchemaNode& node = schema_->fields[f];
  if (node.kind != SchemaNode::Kind::kLeaf) return std::nullopt;
  const ColumnDescriptor& leaf = schema_->leaves[node.leaf];
  switch (leaf.type->id()) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kDate32:
      break;
    default:
      return std::nullopt;
  }
  const ColumnChunk& chunk = metadata_->row_groups[index].columns[node.leaf];
  if (!chunk.meta_data || !chunk.meta_data->statistics) return std::nullopt;
  const ColumnStats stats = ChunkStats(leaf, *chunk.meta_data->statistics, 0);
  // Plain-encoded little-endian INT32 or INT64 values.
  auto decode = [](const std::string& bytes) -> std::optional<int64_t> {
    if (bytes.size() == 4) {
      int32_t v;
      std::memcpy(&v, bytes.data(), 4);
      return v;
    }
    if (bytes.size() == 8) {
      int64_t v;
      std::memcpy(&v, bytes.data(), 8);
      return v;
    }
    return std::nullopt;
  };
  if (!stats.min || !stats.max) return std::nullopt;
  const auto lo = decode(*stats.min);
  const auto hi = decode(*stats.max);
  if (!lo || !hi || *lo > *hi) return std::nullopt;
  return std::make_pair(*lo, *hi);
}

bool ParquetFileReader::RowGroupMayMatch(int index, const expr::ExprPtr& filter) const {
  if (filter == nullptr || index < 0 || index >= num_row_groups()) return true;
  const RowGroup& rg = metadata_->row_groups[index];
  return MayMatch(filter, [&](const std::string& name) -> std::optional<ColumnStats> {
    const int f = schema()->GetFieldIndex(name);
    if (f < 0) return std::nullopt;
    const SchemaNode& node = schema_->fields[f];
    if (node.kind != SchemaNode::Kind::kLeaf) return std::nullopt;
    // TIME(MILLIS) statistics are in milliseconds, the column in microseconds: not compared.
    if (schema_->leaves[node.leaf].type->id() == TypeId::kTime64) return std::nullopt;
    const ColumnChunk& chunk = rg.columns[node.leaf];
    if (!chunk.meta_data || !chunk.meta_data->statistics) return std::nullopt;
    return ChunkStats(schema_->leaves[node.leaf], *chunk.meta_data->statistics, rg.num_rows);
  });
}

}  // namespace flotilla::io::parquet
