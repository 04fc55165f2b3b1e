// Sort-merge join. The pipeline builder sorts both inputs on their join keys (ascending, nulls
// last) and hands the two sorted streams to the source built here, which merges them.
//
// Each side is read through a cursor: the current batch of that side, its key columns
// (evaluated into a batch of a key schema both sides share, so one RowComparator compares a
// left row with a right row), and a position. The merge looks at the group of equal keys at
// each side's position: the smaller group has no partner (emitted with nulls by an outer join
// of that side, skipped otherwise); equal groups give the cross product of their rows. A group
// that reaches the end of its batch is completed from the following batches, which are
// concatenated with its rows into one batch, so a group always lies in one batch.
//
// Dictionary keys are decoded to their values: the two sides (and the batches of one side) may
// each carry a dictionary of their own, which a comparator of two arrays cannot rank together.
//
// Null keys: the sort places nulls last and the comparator treats null as equal to null. Two
// equal groups whose key holds a null in a key without null_equal do not match; they are
// handled as if the left one were smaller, so both come out unmatched.
//
// Output rows are gathered as (left row, right row) index pairs into the current batches (-1
// for the null side) and turned into a batch by Take whenever either current batch is about to
// change and at the end of each morsel. A morsel has at most morsel_size rows; one source Next
// produces one morsel under a lock, so morsels come out in join order with dense numbers.
#include <algorithm>
#include <functional>
#include <mutex>
#include <optional>
#include <utility>

#include "flotilla/compute/cast.h"
#include "flotilla/compute/concat.h"
#include "flotilla/compute/row_comparator.h"
#include "flotilla/compute/take.h"
#include "flotilla/exec/operators/operators.h"
#include "flotilla/exec/pipeline/exec_context.h"
#include "flotilla/expr/binder.h"
#include "flotilla/expr/evaluator.h"

namespace flotilla::exec {

namespace {

/// One sorted input: its current batch, that batch's keys, and a position in it.
class SideCursor {
 public:
  /// `before_change` runs before the current batch is replaced (pending output that refers to
  /// it must be materialized first).
  SideCursor(std::unique_ptr<Source> source, std::vector<expr::BoundExpression> keys,
             SchemaPtr key_schema, std::vector<compute::SortKey> sort_keys,
             std::function<Status()> before_change)
      : source_(std::move(source)),
        key_exprs_(std::move(keys)),
        key_schema_(std::move(key_schema)),
        sort_keys_(std::move(sort_keys)),
        before_change_(std::move(before_change)) {}

  bool has_row() const { return row_ < rows_; }
  int64_t row() const { return row_; }
  int64_t rows() const { return rows_; }
  /// Changes whenever the current batch does.
  int64_t generation() const { return generation_; }
  const RecordBatch& data() const { return data_; }
  const RecordBatch& keys() const { return keys_; }

  /// Loads the first batch.
  Status Start() { return Load(); }

  /// The end (exclusive) of the group of rows with the key of row(), all in the current
  /// batch; completes the group from the next batches when it reaches the end of this one.
  Result<int64_t> GroupEnd() {
    if (group_end_ >= 0) return group_end_;
    int64_t end = row_ + 1;
    while (end < rows_ && self_->Compare(row_, end) == 0)
      ++end;
    if (end == rows_ && !exhausted_) {
      FLOTILLA_RETURN_NOT_OK(before_change_());
      const RecordBatch first = keys_.Slice(row_, 1);
      std::vector<RecordBatch> data_pieces = {data_.Slice(row_, rows_ - row_)};
      std::vector<RecordBatch> key_pieces = {keys_.Slice(row_, rows_ - row_)};
      int64_t length = rows_ - row_;
      while (true) {
        RecordBatch data, keys;
        FLOTILLA_ASSIGN_OR_RETURN(bool got, Pull(&data, &keys));
        if (!got) break;
        FLOTILLA_ASSIGN_OR_RETURN(compute::RowComparator compare,
                                  compute::RowComparator::Make(first, keys, sort_keys_));
        int64_t same = 0;
        while (same < keys.num_rows() && compare.Compare(0, same) == 0)
          ++same;
        length += same;
        data_pieces.push_back(std::move(data));
        key_pieces.push_back(std::move(keys));
        if (same < key_pieces.back().num_rows()) break;
      }
      if (data_pieces.size() > 1) {
        FLOTILLA_ASSIGN_OR_RETURN(RecordBatch data, compute::ConcatBatches(data_pieces));
        FLOTILLA_ASSIGN_OR_RETURN(RecordBatch keys, compute::ConcatBatches(key_pieces));
        FLOTILLA_RETURN_NOT_OK(SetBatch(std::move(data), std::move(keys)));
        end = length;  // the group now starts at row 0
      }
    }
    group_end_ = end;
    return end;
  }

  /// Moves to row `end`, loading the next batch when the current one is used up.
  Status Consume(int64_t end) {
    row_ = end;
    group_end_ = -1;
    if (row_ < rows_) return Status::OK();
    FLOTILLA_RETURN_NOT_OK(before_change_());
    return Load();
  }

 private:
  /// The next non-empty batch of the source and its keys; false when there is none.
  Result<bool> Pull(RecordBatch* data, RecordBatch* keys) {
    while (!exhausted_) {
      FLOTILLA_ASSIGN_OR_RETURN(std::optional<Morsel> morsel, source_->Next());
      if (!morsel) {
        exhausted_ = true;
        break;
      }
      if (morsel->batch.num_rows() == 0) continue;
      *data = std::move(morsel->batch);
      std::vector<Array> columns;
      for (const auto& k : key_exprs_) {
        FLOTILLA_ASSIGN_OR_RETURN(expr::Datum d, expr::Evaluate(k, *data));
        FLOTILLA_ASSIGN_OR_RETURN(Array column, d.ToColumn(data->num_rows()));
        if (column.type_id() == TypeId::kDictionary) {
          FLOTILLA_ASSIGN_OR_RETURN(column, compute::Cast(column, column.type()->value_type()));
        }
        columns.push_back(std::move(column));
      }
      FLOTILLA_ASSIGN_OR_RETURN(
          *keys, RecordBatch::Make(key_schema_, std::move(columns), data->num_rows()));
      return true;
    }
    return false;
  }

  Status Load() {
    RecordBatch data, keys;
    FLOTILLA_ASSIGN_OR_RETURN(bool got, Pull(&data, &keys));
    if (!got) {
      data_ = RecordBatch();
      keys_ = RecordBatch();
      self_.reset();
      rows_ = row_ = 0;
      group_end_ = -1;
      ++generation_;
      return Status::OK();
    }
    return SetBatch(std::move(data), std::move(keys));
  }

  Status SetBatch(RecordBatch data, RecordBatch keys) {
    data_ = std::move(data);
    keys_ = std::move(keys);
    FLOTILLA_ASSIGN_OR_RETURN(compute::RowComparator self,
                              compute::RowComparator::Make(keys_, sort_keys_));
    self_.emplace(std::move(self));
    rows_ = data_.num_rows();
    row_ = 0;
    group_end_ = -1;
    ++generation_;
    return Status::OK();
  }

  std::unique_ptr<Source> source_;
  std::vector<expr::BoundExpression> key_exprs_;
  SchemaPtr key_schema_;
  std::vector<compute::SortKey> sort_keys_;
  std::function<Status()> before_change_;
  RecordBatch data_;
  RecordBatch keys_;
  std::optional<compute::RowComparator> self_;
  int64_t rows_ = 0;
  int64_t row_ = 0;
  int64_t group_end_ = -1;  // cached GroupEnd() of row_, -1 when not computed
  int64_t generation_ = 0;
  bool exhausted_ = false;
};

/// What the merge is emitting: rows [l_start, l_start + l_count) of the left batch times rows
/// [r_start, r_start + r_count) of the right one; when one count is 0, the other side's rows
/// each with nulls. Both groups are consumed when it is done.
struct Work {
  bool active = false;
  int64_t l_start = 0, l_count = 0;
  int64_t r_start = 0, r_count = 0;
  int64_t done = 0;
  int64_t total() const {
    return l_count > 0 && r_count > 0 ? l_count * r_count : l_count + r_count;
  }
};

class MergeJoinSource final : public Source {
 public:
  MergeJoinSource(SchemaPtr schema, const JoinNode& node, std::unique_ptr<Source> left,
                  std::unique_ptr<Source> right, std::vector<expr::BoundExpression> left_keys,
                  std::vector<expr::BoundExpression> right_keys, SchemaPtr key_schema,
                  int64_t morsel_size)
      : schema_(std::move(schema)),
        num_left_(node.children()[0]->schema()->num_fields()),
        null_equal_(node.null_equal),
        emit_left_(node.type == JoinType::kLeft || node.type == JoinType::kFull),
        emit_right_(node.type == JoinType::kRight || node.type == JoinType::kFull),
        morsel_size_(std::max<int64_t>(1, morsel_size)) {
    for (size_t k = 0; k < left_keys.size(); ++k)
      sort_keys_.push_back(compute::SortKey{static_cast<int>(k), true, false});
    auto flush = [this]() { return Flush(); };
    left_ = std::make_unique<SideCursor>(std::move(left), std::move(left_keys), key_schema,
                                         sort_keys_, flush);
    right_ = std::make_unique<SideCursor>(std::move(right), std::move(right_keys), key_schema,
                                          sort_keys_, flush);
  }

  const SchemaPtr& schema() const override { return schema_; }

  Result<std::optional<Morsel>> Next() override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (finished_) return std::optional<Morsel>();
    if (!started_) {
      started_ = true;
      FLOTILLA_RETURN_NOT_OK(left_->Start());
      FLOTILLA_RETURN_NOT_OK(right_->Start());
    }
    while (out_rows_ + static_cast<int64_t>(pending_left_.size()) < morsel_size_) {
      FLOTILLA_ASSIGN_OR_RETURN(bool more, Step());
      if (!more) break;
    }
    FLOTILLA_RETURN_NOT_OK(Flush());
    if (out_rows_ == 0) {
      finished_ = true;
      return std::optional<Morsel>();
    }
    RecordBatch batch;
    if (out_.size() == 1) {
      batch = std::move(out_[0]);
    } else {
      FLOTILLA_ASSIGN_OR_RETURN(batch, compute::ConcatBatches(out_));
    }
    out_.clear();
    out_rows_ = 0;
    return std::optional<Morsel>(Morsel{seq_++, 0, std::move(batch)});
  }

 private:
  /// Advances the merge by one step that emits at most the room left in the morsel; false
  /// when the join is complete.
  Result<bool> Step() {
    if (work_.active) {
      FLOTILLA_RETURN_NOT_OK(ContinueWork());
      return true;
    }
    const bool left = left_->has_row();
    const bool right = right_->has_row();
    if (!left && !right) return false;
    if (!right || !left) {
      // One side is used up: the rest of the other matches nothing.
      SideCursor* rest = left ? left_.get() : right_.get();
      if (!(left ? emit_left_ : emit_right_)) return false;
      Begin(left, rest->row(), rest->rows() - rest->row());
      return true;
    }
    FLOTILLA_ASSIGN_OR_RETURN(int64_t left_end, left_->GroupEnd());
    FLOTILLA_ASSIGN_OR_RETURN(int64_t right_end, right_->GroupEnd());
    if (comparator_generations_ != std::make_pair(left_->generation(), right_->generation())) {
      FLOTILLA_ASSIGN_OR_RETURN(
          compute::RowComparator made,
          compute::RowComparator::Make(left_->keys(), right_->keys(), sort_keys_));
      comparator_.emplace(std::move(made));
      comparator_generations_ = {left_->generation(), right_->generation()};
    }
    int c = comparator_->Compare(left_->row(), right_->row());
    if (c == 0 && NullBlocked()) c = -1;
    if (c < 0) {
      if (!emit_left_) return Consume(left_.get(), left_end);
      Begin(true, left_->row(), left_end - left_->row());
    } else if (c > 0) {
      if (!emit_right_) return Consume(right_.get(), right_end);
      Begin(false, right_->row(), right_end - right_->row());
    } else {
      work_ = Work{
          true, left_->row(), left_end - left_->row(), right_->row(), right_end - right_->row(), 0};
    }
    FLOTILLA_RETURN_NOT_OK(ContinueWork());
    return true;
  }

  Result<bool> Consume(SideCursor* side, int64_t end) {
    FLOTILLA_RETURN_NOT_OK(side->Consume(end));
    return true;
  }

  /// Starts emitting `count` rows of one side from `start`, with nulls for the other.
  void Begin(bool left, int64_t start, int64_t count) {
    work_ = left ? Work{true, start, count, 0, 0, 0} : Work{true, 0, 0, start, count, 0};
  }

  /// True when the (equal) keys at both positions hold a null in a key that is not null-safe.
  bool NullBlocked() const {
    for (size_t k = 0; k < null_equal_.size(); ++k) {
      if (!null_equal_[k] && left_->keys().column(static_cast<int>(k)).IsNull(left_->row())) {
        return true;
      }
    }
    return false;
  }

  /// Emits the next pairs of the current work, as many as the morsel has room for.
  Status ContinueWork() {
    const int64_t room = morsel_size_ - out_rows_ - static_cast<int64_t>(pending_left_.size());
    const int64_t total = work_.total();
    const int64_t n = std::min(std::max<int64_t>(room, 1), total - work_.done);
    for (int64_t p = work_.done; p < work_.done + n; ++p) {
      if (work_.l_count > 0 && work_.r_count > 0) {
        pending_left_.push_back(work_.l_start + p / work_.r_count);
        pending_right_.push_back(work_.r_start + p % work_.r_count);
      } else if (work_.l_count > 0) {
        pending_left_.push_back(work_.l_start + p);
        pending_right_.push_back(-1);
      } else {
        pending_left_.push_back(-1);
        pending_right_.push_back(work_.r_start + p);
      }
    }
    work_.done += n;
    if (work_.done < total) return Status::OK();
    const Work finished = work_;
    work_ = Work();
    if (finished.l_count > 0) {
      FLOTILLA_RETURN_NOT_OK(left_->Consume(finished.l_start + finished.l_count));
    }
    if (finished.r_count > 0) {
      FLOTILLA_RETURN_NOT_OK(right_->Consume(finished.r_start + finished.r_count));
    }
    return Status::OK();
  }

  /// Appends the columns of one side for the pending index pairs.
  Status TakeSide(const std::vector<int64_t>& indices, const RecordBatch& batch, int first_column,
                  int num_columns, std::vector<Array>* columns) const {
    const int64_t n = static_cast<int64_t>(indices.size());
    const bool all_null =
        std::all_of(indices.begin(), indices.end(), [](int64_t i) { return i < 0; });
    if (all_null) {
      for (int c = 0; c < num_columns; ++c) {
        FLOTILLA_ASSIGN_OR_RETURN(Array nulls,
                                  Array::MakeNull(schema_->field(first_column + c).type, n));
        columns->push_back(std::move(nulls));
      }
      return Status::OK();
    }
    FLOTILLA_ASSIGN_OR_RETURN(Array index, compute::TakeIndices(indices));
    for (int c = 0; c < num_columns; ++c) {
      FLOTILLA_ASSIGN_OR_RETURN(Array column, compute::Take(batch.column(c), index));
      columns->push_back(std::move(column));
    }
    return Status::OK();
  }

  /// Turns the pending index pairs into an output batch (they refer to the current batches).
  Status Flush() {
    if (pending_left_.empty()) return Status::OK();
    const int64_t n = static_cast<int64_t>(pending_left_.size());
    std::vector<Array> columns;
    FLOTILLA_RETURN_NOT_OK(TakeSide(pending_left_, left_->data(), 0, num_left_, &columns));
    FLOTILLA_RETURN_NOT_OK(TakeSide(pending_right_, right_->data(), num_left_,
                                    schema_->num_fields() - num_left_, &columns));
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch batch, RecordBatch::Make(schema_, std::move(columns), n));
    out_.push_back(std::move(batch));
    out_rows_ += n;
    pending_left_.clear();
    pending_right_.clear();
    return Status::OK();
  }

  SchemaPtr schema_;
  int num_left_;
  std::vector<bool> null_equal_;
  bool emit_left_;
  bool emit_right_;
  int64_t morsel_size_;
  std::vector<compute::SortKey> sort_keys_;

  std::mutex mutex_;
  std::unique_ptr<SideCursor> left_;
  std::unique_ptr<SideCursor> right_;
  std::optional<compute::RowComparator> comparator_;  // left keys against right keys
  std::pair<int64_t, int64_t> comparator_generations_{-1, -1};
  Work work_;
  std::vector<int64_t> pending_left_;
  std::vector<int64_t> pending_right_;
  std::vector<RecordBatch> out_;
  int64_t out_rows_ = 0;
  int64_t seq_ = 0;
  bool started_ = false;
  bool finished_ = false;
};

}  // namespace

CombineFactory MakeMergeJoinCombine(const JoinNode& node) {
  return [&node](std::vector<std::unique_ptr<Source>> upstream,
                 ExecContext* context) -> Result<std::unique_ptr<Source>> {
    if (upstream.size() != 2) {
      return Status::Internal("sort-merge join expects two inputs, got " +
                              std::to_string(upstream.size()));
    }
    const SchemaPtr& left_schema = node.children()[0]->schema();
    const SchemaPtr& right_schema = node.children()[1]->schema();
    std::vector<expr::BoundExpression> left_keys, right_keys;
    std::vector<Field> key_fields;
    for (size_t k = 0; k < node.left_keys.size(); ++k) {
      FLOTILLA_ASSIGN_OR_RETURN(auto l, expr::Bind(node.left_keys[k], *left_schema));
      FLOTILLA_ASSIGN_OR_RETURN(auto r, expr::Bind(node.right_keys[k], *right_schema));
      if (!l.type()->Equals(*r.type())) {
        return Status::Internal("sort-merge join: key " + std::to_string(k) +
                                " has different types on the two sides");
      }
      TypePtr type = l.type();
      if (type->id() == TypeId::kDictionary) type = type->value_type();
      key_fields.push_back(Field{"key" + std::to_string(k), std::move(type), true});
      left_keys.push_back(std::move(l));
      right_keys.push_back(std::move(r));
    }
    auto key_schema = std::make_shared<Schema>(std::move(key_fields));
    return std::unique_ptr<Source>(new MergeJoinSource(
        node.schema(), node, std::move(upstream[0]), std::move(upstream[1]), std::move(left_keys),
        std::move(right_keys), std::move(key_schema), context->morsel_size()));
  };
}

}  // namespace flotilla::exec
