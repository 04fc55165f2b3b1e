#include "flotilla/columnar/micro_partition.h"

#include <fmt/format.h>

#include <algorithm>

namespace flotilla {

Result<MicroPartition> MicroPartition::FromBatches(SchemaPtr schema,
                                                   std::vector<RecordBatch> batches) {
  if (!schema) return Status::Invalid("micro-partition without a schema");
  MicroPartition p(std::move(schema));
  for (size_t i = 0; i < batches.size(); ++i) {
    if (!batches[i].schema()->Equals(*p.schema_)) {
      return Status::TypeError(fmt::format("batch {} has schema\n{}but the partition's is\n{}", i,
                                           batches[i].schema()->ToString(), p.schema_->ToString()));
    }
    p.num_rows_ += batches[i].num_rows();
  }
  p.batches_ = std::move(batches);
  return p;
}

MicroPartition MicroPartition::Unloaded(SchemaPtr schema,
                                        std::shared_ptr<const PartitionSource> source,
                                        int64_t num_rows, int64_t size_bytes) {
  MicroPartition p(std::move(schema));
  p.source_ = std::move(source);
  p.num_rows_ = num_rows;
  p.size_estimate_ = size_bytes;
  return p;
}

int64_t MicroPartition::size_bytes() const {
  if (!is_loaded()) return size_estimate_;
  int64_t total = 0;
  for (const auto& b : batches_)
    total += b.TotalBufferSize();
  return total;
}

Result<MicroPartition> MicroPartition::Load() const {
  if (is_loaded()) return *this;
  auto loaded = source_->Load();
  if (!loaded.ok()) return loaded.status().WithContext("loading " + source_->ToString());
  FLOTILLA_ASSIGN_OR_RETURN(MicroPartition p, FromBatches(schema_, loaded.MoveValueUnsafe()));
  p.statistics_ = statistics_;
  return p;
}

Status MicroPartition::SetStatistics(std::vector<ColumnStatistics> statistics) {
  if (static_cast<int>(statistics.size()) != schema_->num_fields()) {
    return Status::Invalid(fmt::format("{} column statistics for {} fields", statistics.size(),
                                       schema_->num_fields()));
  }
  for (size_t i = 0; i < statistics.size(); ++i) {
    for (const Array* a : {&statistics[i].min, &statistics[i].max}) {
      if (a->valid() &&
          (!a->type()->Equals(*schema_->field(static_cast<int>(i)).type) || a->length() != 1)) {
        return Status::TypeError("statistics for column '" +
                                 schema_->field(static_cast<int>(i)).name +
                                 "' must be one value of the column's type");
      }
    }
  }
  statistics_ = std::move(statistics);
  return Status::OK();
}

Result<MicroPartition> MicroPartition::Slice(int64_t offset, int64_t length) const {
  if (!is_loaded()) return Status::Invalid("cannot slice an unloaded micro-partition; Load() it");
  std::vector<RecordBatch> out;
  int64_t start = 0;
  for (const auto& b : batches_) {
    int64_t lo = std::max(offset, start);
    int64_t hi = std::min(offset + length, start + b.num_rows());
    if (lo < hi) out.push_back(b.Slice(lo - start, hi - lo));
    start += b.num_rows();
  }
  // Slicing invalidates min/max but keeps the schema.
  return FromBatches(schema_, std::move(out));
}

std::string MicroPartition::ToString() const {
  if (!is_loaded()) {
    return fmt::format("MicroPartition(unloaded: {}, ~{} rows)", source_->ToString(), num_rows_);
  }
  return fmt::format("MicroPartition({} rows in {} batches, {} bytes)", num_rows_, batches_.size(),
                     size_bytes());
}

}  // namespace flotilla
