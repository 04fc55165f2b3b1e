#include "flotilla/exec/plan/range_scan.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "flotilla/columnar/builder.h"
#include "flotilla/exec/plan/plan_serde.h"
#include "flotilla/io/scan_task.h"

namespace flotilla::exec {
namespace {

// Values are made in batches of this many, the engine's usual morsel.
constexpr int64_t kBatchRows = int64_t{1} << 17;

// `count` values first, first + step, ...; the caller keeps them within int64.
class RangeScanTask final : public ScanTask {
 public:
  RangeScanTask(SchemaPtr schema, int64_t first, int64_t count, int64_t step)
      : schema_(std::move(schema)), first_(first), count_(count), step_(step) {}

  Result<std::vector<RecordBatch>> Read(const ScanPushdowns& pushdowns) const override {
    const bool want_column = !pushdowns.columns || !pushdowns.columns->empty();
    const SchemaPtr schema = want_column ? schema_ : std::make_shared<Schema>(std::vector<Field>{});
    int64_t count = count_;
    if (pushdowns.limit) count = std::min(count, *pushdowns.limit);
    std::vector<RecordBatch> out;
    for (int64_t done = 0; done < count; done += kBatchRows) {
      const int64_t n = std::min(kBatchRows, count - done);
      std::vector<Array> columns;
      if (want_column) {
        Int64Builder builder(int64());
        FLOTILLA_RETURN_NOT_OK(builder.Reserve(n));
        // In unsigned arithmetic, which wraps: every value fits, a partial product may not.
        for (int64_t i = 0; i < n; ++i) {
          const uint64_t k = static_cast<uint64_t>(done + i);
          FLOTILLA_RETURN_NOT_OK(builder.Append(static_cast<int64_t>(
              static_cast<uint64_t>(first_) + k * static_cast<uint64_t>(step_))));
        }
        FLOTILLA_ASSIGN_OR_RETURN(Array values, builder.Finish());
        columns.push_back(std::move(values));
      }
      FLOTILLA_ASSIGN_OR_RETURN(RecordBatch batch, RecordBatch::Make(schema, columns, n));
      out.push_back(std::move(batch));
    }
    return out;
  }
  int64_t num_rows() const override { return count_; }
  int64_t size_bytes() const override { return count_ * 8; }
  std::optional<std::pair<int64_t, int64_t>> IntegerRange(
      const std::string& column) const override {
    if (column != schema_->field(0).name || count_ == 0) return std::nullopt;
    const int64_t last =
        static_cast<int64_t>(static_cast<uint64_t>(first_) +
                             static_cast<uint64_t>(count_ - 1) * static_cast<uint64_t>(step_));
    return std::make_pair(std::min(first_, last), std::max(first_, last));
  }
  std::string ToString() const override {
    return "range " + std::to_string(first_) + ", " + std::to_string(count_) + " values, step " +
           std::to_string(step_);
  }
  std::string kind() const override { return "range"; }
  Result<std::string> Serialize() const override {
    return schema_->field(0).name + "\n" + std::to_string(first_) + " " + std::to_string(count_) +
           " " + std::to_string(step_);
  }

 private:
  SchemaPtr schema_;
  int64_t first_, count_, step_;
};

SchemaPtr RangeSchema(const std::string& column) {
  return std::make_shared<Schema>(std::vector<Field>{Field(column, int64(), false)});
}

}  // namespace

Result<PlanPtr> MakeRangeScan(const std::string& column, int64_t start, int64_t stop, int64_t step,
                              bool inclusive) {
  if (step == 0) return Status::Invalid("a range's step must not be 0");
  // How many values: computed in 128 bits, so no bound of int64 overflows.
  __int128 span = static_cast<__int128>(stop) - start;
  if (step < 0) span = -span;
  const __int128 stride = step < 0 ? -static_cast<__int128>(step) : step;
  __int128 count = 0;
  if (span > 0 || (inclusive && span == 0)) {
    count = inclusive ? span / stride + 1 : (span + stride - 1) / stride;
  }
  if (count > (static_cast<__int128>(1) << 62)) {
    return Status::Invalid("a range of more than 2^62 values");
  }
  const SchemaPtr schema = RangeSchema(column);
  std::vector<std::shared_ptr<const ScanTask>> tasks;
  for (__int128 done = 0; done < count; done += kRangeTaskRows) {
    const int64_t n = static_cast<int64_t>(std::min<__int128>(kRangeTaskRows, count - done));
    const int64_t first = static_cast<int64_t>(start + done * step);
    tasks.push_back(std::make_shared<RangeScanTask>(schema, first, n, step));
  }
  return MakeScan(schema, std::move(tasks));
}

void RegisterRangeScanTasks(io::ScanTaskRegistry* registry) {
  (*registry)["range"] = [](std::string_view bytes) -> Result<std::shared_ptr<const ScanTask>> {
    const size_t newline = bytes.find('\n');
    long long first = 0, count = 0, step = 0;
    const std::string numbers(newline == std::string_view::npos ? "" : bytes.substr(newline + 1));
    if (newline == std::string_view::npos ||
        std::sscanf(numbers.c_str(), "%lld %lld %lld", &first, &count, &step) != 3 || count < 0 ||
        count > kRangeTaskRows || step == 0) {
      return Status::Invalid("a range scan task needs a column name and three numbers");
    }
    return std::shared_ptr<const ScanTask>(std::make_shared<RangeScanTask>(
        RangeSchema(std::string(bytes.substr(0, newline))), first, count, step));
  };
}

}  // namespace flotilla::exec
