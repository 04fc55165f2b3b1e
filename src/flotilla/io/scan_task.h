#pragma once
// The interface the file readers plug into: a scan is a list of scan tasks (a file, a row-group
// range of a file...), each read on its own, in parallel with the others, in task order.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flotilla/columnar/record_batch.h"
#include "flotilla/expr/expression.h"

namespace flotilla::io {

/// What a scan may skip. `columns` (names of the file schema, in output order) is applied
/// exactly by every task; `filter` and `limit` are hints a task may use to read less (statistics
/// pruning, stopping early) — the scan operator applies both again to what the task returns.
struct ScanPushdowns {
  std::optional<std::vector<std::string>> columns;
  expr::ExprPtr filter;
  std::optional<int64_t> limit;

  std::string ToString() const;

  /// Indices in `schema` of the columns to read, in output order (all when `columns` is unset);
  /// a missing column is an error naming `task`.
  Result<std::vector<int>> ColumnIndices(const Schema& schema, const std::string& task) const;
  /// How many rows a task may stop after: the limit, unless a filter still runs over them.
  std::optional<int64_t> StoppingLimit() const { return filter == nullptr ? limit : std::nullopt; }
};

class ScanTask {
 public:
  virtual ~ScanTask() = default;
  /// Reads the task's rows with `pushdowns.columns` applied (the output schema is the file
  /// schema projected to them). Errors name the file and, where it applies, the part of it.
  virtual Result<std::vector<RecordBatch>> Read(const ScanPushdowns& pushdowns) const = 0;
  /// The same rows handed to `each` batch by batch as they are read, so a consumer can start
  /// on the first before the last arrives (a shuffle's fetch streams so); an error from `each`
  /// stops the read and is returned. By default, Read and then each batch.
  virtual Status ReadEach(const ScanPushdowns& pushdowns,
                          const std::function<Status(RecordBatch)>& each) const;
  /// Whether ReadEach hands over rows as they arrive from elsewhere (a shuffle's fetch), at a
  /// pace set more by the network and other machines than by this one's CPU: a scan reads such
  /// a task on a thread of its own and holds only a bounded queue of its batches.
  virtual bool Streams() const { return false; }
  /// Estimates from metadata, -1 when unknown.
  virtual int64_t num_rows() const { return -1; }
  virtual int64_t size_bytes() const { return -1; }
  /// The smallest and largest value of the integer (or date) column `column` in the task's
  /// rows, from metadata; nullopt when unknown. The optimizer bounds distinct counts with it.
  virtual std::optional<std::pair<int64_t, int64_t>> IntegerRange(const std::string& column) const {
    return std::nullopt;
  }
  /// For plans and errors: "parquet 'a.parquet' row groups [0, 4)".
  virtual std::string ToString() const = 0;

  /// Plan serialization (exec/plan/plan_serde.h): a task that can travel to a worker names its
  /// kind (the key its reader registers a factory under in a ScanTaskRegistry; empty: none)...
  virtual std::string kind() const { return ""; }
  /// ...and writes the bytes that factory reads back. NotImplemented naming the task by default.
  virtual Result<std::string> Serialize() const {
    return Status::NotImplemented("scan task '" + ToString() +
                                  "' cannot be serialized: its reader has no serializer");
  }
};

/// A scan task over batches held in memory (tests, and data handed over by a caller).
class InMemoryScanTask final : public ScanTask {
 public:
  explicit InMemoryScanTask(std::vector<RecordBatch> batches, std::string name = "memory")
      : batches_(std::move(batches)), name_(std::move(name)) {}
  Result<std::vector<RecordBatch>> Read(const ScanPushdowns& pushdowns) const override;
  int64_t num_rows() const override;
  std::optional<std::pair<int64_t, int64_t>> IntegerRange(const std::string& column) const override;
  std::string ToString() const override { return name_; }

 private:
  std::vector<RecordBatch> batches_;
  std::string name_;
};

/// Reads back one kind of scan task from the bytes its ScanTask::Serialize() wrote.
using ScanTaskFactory =
    std::function<Result<std::shared_ptr<const ScanTask>>(std::string_view bytes)>;

/// Scan task readers by ScanTask::kind() ("parquet", ...): each file format registers its own.
using ScanTaskRegistry = std::map<std::string, ScanTaskFactory, std::less<>>;

}  // namespace flotilla::io
