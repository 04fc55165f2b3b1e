#pragma once
// MicroPartition: the unit of data the engine schedules and moves. A schema plus record batches,
// optional per-column statistics, and — before it is read — the description of where its data
// lives, so a scan can be pruned by statistics without touching the data.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flotilla/columnar/record_batch.h"

namespace flotilla {

/// Statistics of one column. min/max are one-row arrays of the column's type (invalid Array
/// when unknown, e.g. for types without an order or when a file did not record them).
struct ColumnStatistics {
  int64_t null_count = -1;  // -1 when unknown
  Array min;
  Array max;
};

/// Where the rows of an unloaded partition come from (a file, a row-group range of a file...).
/// Implemented by the readers.
class PartitionSource {
 public:
  virtual ~PartitionSource() = default;
  virtual Result<std::vector<RecordBatch>> Load() const = 0;
  /// For plans and logs: "ipc file 'a.arrow' batches [0, 3)".
  virtual std::string ToString() const = 0;
};

class MicroPartition {
 public:
  /// A loaded partition. Every batch must have `schema`.
  static Result<MicroPartition> FromBatches(SchemaPtr schema, std::vector<RecordBatch> batches);
  /// A partition that is read from `source` on Load(). `num_rows` and `size_bytes` are
  /// estimates from metadata (-1 when unknown).
  static MicroPartition Unloaded(SchemaPtr schema, std::shared_ptr<const PartitionSource> source,
                                 int64_t num_rows = -1, int64_t size_bytes = -1);

  const SchemaPtr& schema() const { return schema_; }
  bool is_loaded() const { return source_ == nullptr; }
  /// Exact when loaded, the metadata estimate (or -1) otherwise.
  int64_t num_rows() const { return num_rows_; }
  /// Bytes held in memory when loaded; the metadata estimate otherwise.
  int64_t size_bytes() const;
  /// The batches; empty for an unloaded partition.
  const std::vector<RecordBatch>& batches() const { return batches_; }
  const std::shared_ptr<const PartitionSource>& source() const { return source_; }

  /// A loaded copy (itself when already loaded). Checks the loaded schema matches.
  Result<MicroPartition> Load() const;

  const std::optional<std::vector<ColumnStatistics>>& statistics() const { return statistics_; }
  /// Attaches statistics, one entry per field.
  Status SetStatistics(std::vector<ColumnStatistics> statistics);

  /// Rows [offset, offset + length) of a loaded partition, zero-copy.
  Result<MicroPartition> Slice(int64_t offset, int64_t length) const;

  std::string ToString() const;

 private:
  MicroPartition(SchemaPtr schema) : schema_(std::move(schema)) {}

  SchemaPtr schema_;
  std::vector<RecordBatch> batches_;
  std::shared_ptr<const PartitionSource> source_;
  int64_t num_rows_ = 0;
  int64_t size_estimate_ = -1;
  std::optional<std::vector<ColumnStatistics>> statistics_;
};

}  // namespace flotilla
