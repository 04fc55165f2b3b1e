#include "flotilla/io/scan_task.h"

#include <algorithm>

namespace flotilla::io {

std::string ScanPushdowns::ToString() const {
  std::string out;
  if (columns) {
    out += "columns [";
    for (size_t i = 0; i < columns->size(); ++i)
      out += (i ? ", " : "") + (*columns)[i];
    out += "]";
  }
  if (filter != nullptr)
    out += (out.empty() ? "" : " ") + std::string("filter ") + filter->ToString();
  if (limit) out += (out.empty() ? "" : " ") + std::string("limit ") + std::to_string(*limit);
  return out;
}

Result<std::vector<int>> ScanPushdowns::ColumnIndices(const Schema& schema,
                                                      const std::string& task) const {
  std::vector<int> indices;
  if (!columns) {
    for (int i = 0; i < schema.num_fields(); ++i)
      indices.push_back(i);
    return indices;
  }
  for (const std::string& c : *columns) {
    auto index = schema.FindField(c);
    if (!index.ok()) return index.status().WithContext(task);
    indices.push_back(*index);
  }
  return indices;
}

Status ScanTask::ReadEach(const ScanPushdowns& pushdowns,
                          const std::function<Status(RecordBatch)>& each) const {
  FLOTILLA_ASSIGN_OR_RETURN(std::vector<RecordBatch> batches, Read(pushdowns));
  for (RecordBatch& b : batches)
    FLOTILLA_RETURN_NOT_OK(each(std::move(b)));
  return Status::OK();
}

Result<std::vector<RecordBatch>> InMemoryScanTask::Read(const ScanPushdowns& pushdowns) const {
  if (!pushdowns.columns) return batches_;
  std::vector<RecordBatch> out;
  for (const RecordBatch& batch : batches_) {
    std::vector<int> indices;
    for (const std::string& name : *pushdowns.columns) {
      FLOTILLA_ASSIGN_OR_RETURN(int index, batch.schema()->FindField(name));
      indices.push_back(index);
    }
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch projected, batch.SelectColumns(indices));
    out.push_back(std::move(projected));
  }
  return out;
}

std::optional<std::pair<int64_t, int64_t>> InMemoryScanTask::IntegerRange(
    const std::string& column) const {
  // The data is at hand, so its range is as good as a file's statistics.
  std::optional<std::pair<int64_t, int64_t>> range;
  for (const RecordBatch& batch : batches_) {
    const int i = batch.schema()->GetFieldIndex(column);
    if (i < 0) return std::nullopt;
    const Array& a = batch.column(i);
    if (a.type_id() != TypeId::kInt64 && a.type_id() != TypeId::kInt32) return std::nullopt;
    for (int64_t r = 0; r < a.length(); ++r) {
      if (a.IsNull(r)) continue;
      const int64_t v =
          a.type_id() == TypeId::kInt64 ? a.values<int64_t>()[r] : a.values<int32_t>()[r];
      range = range ? std::make_pair(std::min(range->first, v), std::max(range->second, v))
                    : std::make_pair(v, v);
    }
  }
  return range;
}

int64_t InMemoryScanTask::num_rows() const {
  int64_t rows = 0;
  for (const RecordBatch& batch : batches_)
    rows += batch.num_rows();
  return rows;
}

}  // namespace flotilla::io
