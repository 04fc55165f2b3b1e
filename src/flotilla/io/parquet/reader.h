#pragma once
// Reading Parquet files: the footer, the schema, and row groups as record batches, with column
// projection, row-group pruning by statistics and page pruning by the page index.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flotilla/columnar/record_batch.h"
#include "flotilla/expr/expression.h"
#include "flotilla/io/fs/file.h"
#include "flotilla/io/parquet/column_reader.h"
#include "flotilla/io/parquet/metadata.h"
#include "flotilla/io/parquet/page_index.h"
#include "flotilla/io/parquet/schema.h"

namespace flotilla::io::parquet {

class ParquetFileReader {
 public:
  /// Reads and checks the footer. Errors name the file.
  static Result<std::shared_ptr<ParquetFileReader>> Open(
      std::shared_ptr<io::RandomAccessFile> file);
  static Result<std::shared_ptr<ParquetFileReader>> Open(const std::string& uri);
  /// A reader of `file` (the same file, opened again) sharing this one's decoded footer.
  std::shared_ptr<ParquetFileReader> Reopen(std::shared_ptr<io::RandomAccessFile> file) const;

  const std::string& name() const { return file_->name(); }
  const FileMetaData& metadata() const { return *metadata_; }
  const FileSchema& file_schema() const { return *schema_; }
  const SchemaPtr& schema() const { return schema_->arrow; }
  int num_row_groups() const { return static_cast<int>(metadata_->row_groups.size()); }
  int64_t num_rows() const { return metadata_->num_rows; }
  const io::RandomAccessFile& file() const { return *file_; }

  /// Top-level field indices for `columns` (all fields when nullopt); a KeyError naming the
  /// file and the closest column otherwise.
  Result<std::vector<int>> FieldIndices(
      const std::optional<std::vector<std::string>>& columns) const;

  /// Row group `index` with the top-level `fields` (in that order); only the rows in `rows`
  /// when given (RowsMayMatch's answer: top-level leaf columns then decode only the pages
  /// holding them).
  Result<RecordBatch> ReadRowGroup(int index, const std::vector<int>& fields,
                                   const RowRanges* rows = nullptr) const;

  /// The min and max of an integer or date column in row group `index` from its statistics;
  /// nullopt when the column is of another type or has none.
  std::optional<std::pair<int64_t, int64_t>> IntegerRange(int index,
                                                          const std::string& column) const;

  /// False when the row group's statistics show that no row satisfies `filter`.
  bool RowGroupMayMatch(int index, const expr::ExprPtr& filter) const;

  /// The rows of row group `index` that may satisfy `filter` by the page index of the columns
  /// it names (empty: none); nullopt when the page index rules out nothing (or is absent).
  Result<std::optional<RowRanges>> RowsMayMatch(int index, const expr::ExprPtr& filter) const;

 private:
  ParquetFileReader(std::shared_ptr<io::RandomAccessFile> file,
                    std::shared_ptr<const FileMetaData> metadata,
                    std::shared_ptr<const FileSchema> schema)
      : file_(std::move(file)), metadata_(std::move(metadata)), schema_(std::move(schema)) {}

  Result<OffsetIndex> ReadOffsetIndex(const ColumnChunk& chunk, int64_t num_rows) const;
  Result<LeafData> ReadPagesOfRows(const ColumnChunk& chunk, const ColumnDescriptor& column,
                                   int64_t num_rows, const RowRanges& rows,
                                   RowRanges* covered) const;

  std::shared_ptr<io::RandomAccessFile> file_;
  std::shared_ptr<const FileMetaData> metadata_;  // shared by readers of one file (reader_cache.h)
  std::shared_ptr<const FileSchema> schema_;
};

}  // namespace flotilla::io::parquet
