#include "flotilla/exec/operators/sort_support.h"

#include <algorithm>
#include <limits>

#include "flotilla/compute/concat.h"
#include "flotilla/compute/sort.h"
#include "flotilla/compute/take.h"
#include "flotilla/expr/evaluator.h"

namespace flotilla::exec {

Result<BoundSortKeys> BoundSortKeys::Make(const SchemaPtr& input,
                                          const std::vector<SortSpec>& keys) {
  BoundSortKeys out;
  out.input_ = input;
  out.num_input_columns_ = input->num_fields();
  std::vector<Field> fields = input->fields();
  for (const SortSpec& spec : keys) {
    FLOTILLA_ASSIGN_OR_RETURN(expr::BoundExpression bound, expr::Bind(spec.key, *input));
    int column;
    if (bound.root->kind == expr::BoundKind::kColumn) {
      column = bound.root->column_index;
    } else {
      column = static_cast<int>(fields.size());
      fields.push_back(
          Field{"__sort_key" + std::to_string(out.computed_.size()), bound.type(), true});
      out.computed_.push_back(std::move(bound));
    }
    out.keys_.push_back(compute::SortKey{column, spec.ascending, spec.nulls_first});
  }
  out.extended_ = std::make_shared<Schema>(std::move(fields));
  return out;
}

Result<RecordBatch> BoundSortKeys::Extend(const RecordBatch& input) const {
  if (computed_.empty()) return input;
  std::vector<Array> columns = input.columns();
  for (const auto& e : computed_) {
    FLOTILLA_ASSIGN_OR_RETURN(expr::Datum value, expr::Evaluate(e, input));
    FLOTILLA_ASSIGN_OR_RETURN(Array column, value.ToColumn(input.num_rows()));
    columns.push_back(std::move(column));
  }
  return RecordBatch::Make(extended_, std::move(columns), input.num_rows());
}

Result<RecordBatch> BoundSortKeys::Strip(const RecordBatch& extended) const {
  if (extended.num_columns() == num_input_columns_) return extended;
  std::vector<Array> columns(extended.columns().begin(),
                             extended.columns().begin() + num_input_columns_);
  return RecordBatch::Make(input_, std::move(columns), extended.num_rows());
}

namespace {}  // namespace

Result<RecordBatch> SortBatches(const SchemaPtr& schema, const std::vector<RecordBatch>& batches,
                                const std::vector<compute::SortKey>& keys, int64_t max_rows) {
  FLOTILLA_ASSIGN_OR_RETURN(RecordBatch all, compute::ConcatBatches(schema, batches));
  if (all.num_rows() == 0) return all;
  FLOTILLA_ASSIGN_OR_RETURN(Array order, compute::SortIndices(all, keys));
  if (max_rows >= 0 && max_rows < order.length()) order = order.Slice(0, max_rows);
  return compute::Take(all, order);
}

Result<std::vector<RecordBatch>> SortBatches(const SchemaPtr& schema,
                                             const std::vector<RecordBatch>& batches,
                                             const std::vector<compute::SortKey>& keys,
                                             ThreadPool* pool, int64_t piece_rows) {
  FLOTILLA_ASSIGN_OR_RETURN(RecordBatch all, compute::ConcatBatches(schema, batches));
  if (all.num_rows() == 0) return std::vector<RecordBatch>{all};
  FLOTILLA_ASSIGN_OR_RETURN(Array order, compute::SortIndices(all, keys));
  // The gather reads rows in random order, so it is memory-bound per thread: every thread
  // gathers pieces of its own.
  const int64_t n = all.num_rows();
  piece_rows = std::max<int64_t>(1, piece_rows);
  std::vector<RecordBatch> pieces(static_cast<size_t>((n + piece_rows - 1) / piece_rows));
  TaskGroup group(pool);
  for (size_t p = 0; p < pieces.size(); ++p) {
    group.Spawn([&, p]() -> Status {
      const int64_t start = static_cast<int64_t>(p) * piece_rows;
      FLOTILLA_ASSIGN_OR_RETURN(
          pieces[p], compute::Take(all, order.Slice(start, std::min(piece_rows, n - start))));
      return Status::OK();
    });
  }
  FLOTILLA_RETURN_NOT_OK(group.Wait());
  return pieces;
}

namespace {

class MemoryRun final : public SortedRun {
 public:
  MemoryRun(RecordBatch sorted, int64_t chunk_rows)
      : sorted_(std::move(sorted)), chunk_(std::max<int64_t>(1, chunk_rows)) {}
  Result<std::optional<RecordBatch>> Next() override {
    if (offset_ >= sorted_.num_rows()) return std::optional<RecordBatch>();
    const int64_t n = std::min(chunk_, sorted_.num_rows() - offset_);
    RecordBatch out = sorted_.Slice(offset_, n);
    offset_ += n;
    return std::optional<RecordBatch>(std::move(out));
  }

 private:
  RecordBatch sorted_;
  int64_t chunk_;
  int64_t offset_ = 0;
};

class SpilledRun final : public SortedRun {
 public:
  SpilledRun(std::shared_ptr<SpillFile> file, std::unique_ptr<SpillFile::Reader> reader)
      : file_(std::move(file)), reader_(std::move(reader)) {}
  Result<std::optional<RecordBatch>> Next() override { return reader_->Next(); }

 private:
  std::shared_ptr<SpillFile> file_;
  std::unique_ptr<SpillFile::Reader> reader_;
};

}  // namespace

std::unique_ptr<SortedRun> MakeMemoryRun(RecordBatch sorted, int64_t chunk_rows) {
  return std::make_unique<MemoryRun>(std::move(sorted), chunk_rows);
}

Result<std::unique_ptr<SortedRun>> MakeSpilledRun(std::shared_ptr<SpillFile> file) {
  FLOTILLA_ASSIGN_OR_RETURN(auto reader, file->OpenReader());
  return std::unique_ptr<SortedRun>(new SpilledRun(std::move(file), std::move(reader)));
}

Result<std::unique_ptr<RunMerger>> RunMerger::Make(SchemaPtr schema,
                                                   std::vector<std::unique_ptr<SortedRun>> runs,
                                                   std::vector<compute::SortKey> keys) {
  std::unique_ptr<RunMerger> merger(new RunMerger());
  merger->schema_ = std::move(schema);
  merger->keys_ = std::move(keys);
  const size_t n = runs.size();
  merger->cursors_.resize(n);
  merger->comparators_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    merger->cursors_[i].run = std::move(runs[i]);
    merger->comparators_[i].resize(n);
  }
  for (size_t i = 0; i < n; ++i) {
    FLOTILLA_RETURN_NOT_OK(merger->Advance(i));
    if (!merger->cursors_[i].done) merger->heap_.push_back(i);
  }
  // Build the heap by insertion so every comparison goes through Compare (which can fail).
  std::vector<size_t> items = std::move(merger->heap_);
  merger->heap_.clear();
  for (size_t item : items) {
    merger->heap_.push_back(item);
    size_t child = merger->heap_.size() - 1;
    while (child > 0) {
      const size_t parent = (child - 1) / 2;
      FLOTILLA_ASSIGN_OR_RETURN(int c,
                                merger->Compare(merger->heap_[child], merger->heap_[parent]));
      if (c >= 0) break;
      std::swap(merger->heap_[child], merger->heap_[parent]);
      child = parent;
    }
  }
  return merger;
}

Status RunMerger::Advance(size_t run) {
  Cursor& cursor = cursors_[run];
  while (true) {
    FLOTILLA_ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, cursor.run->Next());
    if (!batch) {
      cursor.done = true;
      cursor.batch = RecordBatch();
      break;
    }
    if (batch->num_rows() == 0) continue;
    cursor.batch = std::move(*batch);
    cursor.row = 0;
    break;
  }
  for (size_t other = 0; other < cursors_.size(); ++other) {
    comparators_[run][other].reset();
    comparators_[other][run].reset();
  }
  return Status::OK();
}

Result<int> RunMerger::Compare(size_t a, size_t b) {
  auto& comparator = comparators_[a][b];
  if (comparator == nullptr) {
    FLOTILLA_ASSIGN_OR_RETURN(
        compute::RowComparator made,
        compute::RowComparator::Make(cursors_[a].batch, cursors_[b].batch, keys_));
    comparator = std::make_unique<compute::RowComparator>(std::move(made));
  }
  const int c = comparator->Compare(cursors_[a].row, cursors_[b].row);
  if (c != 0) return c;
  return a < b ? -1 : 1;
}

Result<std::optional<RecordBatch>> RunMerger::Next(int64_t max_rows) {
  if (heap_.empty()) return std::optional<RecordBatch>();
  // Rows are taken in runs of consecutive rows from one batch (a slice each), then gathered
  // into one output batch by Concat: long stretches from one run cost one slice.
  std::vector<RecordBatch> pieces;
  int64_t rows = 0;
  while (!heap_.empty() && rows < max_rows) {
    const size_t top = heap_[0];
    Cursor& cursor = cursors_[top];
    const int64_t start = cursor.row;
    // Take rows from the top run while it stays the smallest.
    while (rows < max_rows) {
      ++cursor.row;
      ++rows;
      if (cursor.row >= cursor.batch.num_rows()) break;
      if (heap_.size() > 1) {
        // Compare with the smaller child of the root: the runner-up.
        size_t runner = heap_[1];
        if (heap_.size() > 2) {
          FLOTILLA_ASSIGN_OR_RETURN(int c, Compare(heap_[2], heap_[1]));
          if (c < 0) runner = heap_[2];
        }
        FLOTILLA_ASSIGN_OR_RETURN(int c, Compare(top, runner));
        if (c > 0) break;
      }
    }
    pieces.push_back(cursor.batch.Slice(start, cursor.row - start));
    if (cursor.row >= cursor.batch.num_rows()) {
      FLOTILLA_RETURN_NOT_OK(Advance(top));
      if (cursor.done) {
        heap_[0] = heap_.back();
        heap_.pop_back();
      }
    }
    // Sift the root down.
    size_t parent = 0;
    while (true) {
      const size_t left = 2 * parent + 1;
      if (left >= heap_.size()) break;
      size_t smallest = left;
      if (left + 1 < heap_.size()) {
        FLOTILLA_ASSIGN_OR_RETURN(int c, Compare(heap_[left + 1], heap_[left]));
        if (c < 0) smallest = left + 1;
      }
      FLOTILLA_ASSIGN_OR_RETURN(int c, Compare(heap_[smallest], heap_[parent]));
      if (c >= 0) break;
      std::swap(heap_[smallest], heap_[parent]);
      parent = smallest;
    }
  }
  if (pieces.size() == 1) return std::optional<RecordBatch>(std::move(pieces[0]));
  FLOTILLA_ASSIGN_OR_RETURN(RecordBatch out, compute::ConcatBatches(pieces));
  return std::optional<RecordBatch>(std::move(out));
}

namespace {

class MergeSource final : public Source {
 public:
  MergeSource(SchemaPtr schema, std::unique_ptr<RunMerger> merger,
              std::shared_ptr<const BoundSortKeys> strip, int64_t morsel_size,
              std::vector<std::shared_ptr<SpillFile>> files, int64_t skip, int64_t limit)
      : schema_(std::move(schema)),
        merger_(std::move(merger)),
        strip_(std::move(strip)),
        morsel_size_(morsel_size),
        files_(std::move(files)),
        skip_(skip),
        remaining_(limit < 0 ? std::numeric_limits<int64_t>::max() : limit) {}
  const SchemaPtr& schema() const override { return schema_; }
  Result<std::optional<Morsel>> Next() override {
    std::lock_guard<std::mutex> lock(mutex_);
    std::optional<RecordBatch> batch;
    while (remaining_ > 0) {
      FLOTILLA_ASSIGN_OR_RETURN(
          batch, merger_->Next(std::min(morsel_size_, skip_ > 0 ? skip_ : remaining_)));
      if (!batch || skip_ == 0) break;
      skip_ -= batch->num_rows();
    }
    if (!batch || remaining_ == 0) {
      files_.clear();  // the spill files can go now
      return std::optional<Morsel>();
    }
    remaining_ -= batch->num_rows();
    RecordBatch out = std::move(*batch);
    if (strip_ != nullptr) {
      FLOTILLA_ASSIGN_OR_RETURN(out, strip_->Strip(out));
    }
    return std::optional<Morsel>(Morsel{seq_++, 0, std::move(out)});
  }

 private:
  SchemaPtr schema_;
  std::unique_ptr<RunMerger> merger_;
  std::shared_ptr<const BoundSortKeys> strip_;
  int64_t morsel_size_;
  std::vector<std::shared_ptr<SpillFile>> files_;
  int64_t skip_;
  int64_t remaining_;
  std::mutex mutex_;
  int64_t seq_ = 0;
};

}  // namespace

std::unique_ptr<Source> MakeMergeSource(SchemaPtr output_schema, std::unique_ptr<RunMerger> merger,
                                        std::shared_ptr<const BoundSortKeys> strip,
                                        int64_t morsel_size,
                                        std::vector<std::shared_ptr<SpillFile>> files, int64_t skip,
                                        int64_t limit) {
  return std::make_unique<MergeSource>(std::move(output_schema), std::move(merger),
                                       std::move(strip), morsel_size, std::move(files), skip,
                                       limit);
}

}  // namespace flotilla::exec
