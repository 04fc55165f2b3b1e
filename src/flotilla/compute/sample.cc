#include "flotilla/compute/sample.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "flotilla/compute/concat.h"
#include "flotilla/compute/gather.h"

namespace flotilla::compute {
namespace {

// Exact Poisson draws by Knuth's method need exp(-mean) to stay far from underflow and the
// expected number of draws (mean + 1) small, so larger means are summed from pieces of this
// size (a sum of independent Poisson variables is Poisson with the summed mean).
constexpr double kPoissonPiece = 16.0;

int64_t KnuthPoisson(SplitMix64* random, double mean) {
  const double limit = std::exp(-mean);
  int64_t k = 0;
  double p = random->NextDouble();
  while (p > limit) {
    ++k;
    p *= random->NextDouble();
  }
  return k;
}

int64_t PoissonCopies(SplitMix64* random, double mean) {
  int64_t copies = 0;
  double rest = mean;
  while (rest >= kPoissonPiece) {
    copies += KnuthPoisson(random, kPoissonPiece);
    rest -= kPoissonPiece;
  }
  if (rest > 0) copies += KnuthPoisson(random, rest);
  return copies;
}

Result<Array> UInt64Indices(const std::vector<uint64_t>& rows, MemoryPool* pool) {
  const int64_t n = static_cast<int64_t>(rows.size());
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr buffer, Buffer::Allocate(n * 8, pool));
  if (n > 0) std::memcpy(buffer->mutable_data(), rows.data(), n * 8);
  auto d = std::make_shared<ArrayData>();
  d->type = uint64();
  d->length = n;
  d->buffers = {nullptr, std::move(buffer)};
  return Array(std::move(d));
}

// The rows of `batch` at `rows` (all in range).
Result<RecordBatch> GatherRows(const RecordBatch& batch, const std::vector<uint64_t>& rows,
                               MemoryPool* pool) {
  FLOTILLA_ASSIGN_OR_RETURN(Array indices, UInt64Indices(rows, pool));
  std::vector<Array> columns;
  columns.reserve(batch.num_columns());
  for (const Array& column : batch.columns()) {
    FLOTILLA_ASSIGN_OR_RETURN(Array taken, internal::Gather(column, indices, pool));
    columns.push_back(std::move(taken));
  }
  return RecordBatch::Make(batch.schema(), std::move(columns), indices.length());
}

// A candidate of the without-replacement sample: its key, then its position among the held
// rows in arrival order (the tie-break).
using KeyedRow = std::pair<uint64_t, uint64_t>;

}  // namespace

Result<RecordBatch> SampleFraction(const RecordBatch& batch, double fraction, bool with_replacement,
                                   uint64_t seed, int64_t stream_offset, MemoryPool* pool) {
  if (!std::isfinite(fraction) || fraction < 0 || (!with_replacement && fraction > 1)) {
    return Status::Invalid(fmt::format(
        "SampleFraction: fraction {} is out of range; without replacement it is the probability "
        "of keeping a row, in [0, 1], with replacement the expected number of copies of a row, "
        "finite and >= 0",
        fraction));
  }
  const int64_t n = batch.num_rows();
  SplitMix64 random = SplitMix64::ForStream(seed, static_cast<uint64_t>(stream_offset));
  std::vector<uint64_t> rows;
  if (with_replacement) {
    rows.reserve(static_cast<size_t>(static_cast<double>(n) * std::min(fraction, 64.0)) + 16);
    for (int64_t i = 0; i < n; ++i) {
      rows.insert(rows.end(), PoissonCopies(&random, fraction), static_cast<uint64_t>(i));
    }
  } else {
    rows.reserve(static_cast<size_t>(static_cast<double>(n) * fraction) + 16);
    for (int64_t i = 0; i < n; ++i) {
      if (random.NextDouble() < fraction) rows.push_back(static_cast<uint64_t>(i));
    }
  }
  // `rows` is non-decreasing, so n entries all equal to their position mean every row once.
  if (static_cast<int64_t>(rows.size()) == n &&
      (n == 0 || rows.back() == static_cast<uint64_t>(n - 1)) &&
      std::adjacent_find(rows.begin(), rows.end()) == rows.end()) {
    return batch;
  }
  return GatherRows(batch, rows, pool);
}

// --- ReservoirSampler ----------------------------------------------------------------------------

Result<ReservoirSampler> ReservoirSampler::Make(SchemaPtr schema, int64_t sample_size,
                                                bool with_replacement, uint64_t seed,
                                                int64_t stream_offset, MemoryPool* pool) {
  if (!schema) return Status::Invalid("ReservoirSampler: the schema is missing");
  if (sample_size < 0) {
    return Status::Invalid(
        fmt::format("ReservoirSampler: the sample size must be >= 0, got {}", sample_size));
  }
  ReservoirSampler sampler(std::move(schema), sample_size, with_replacement,
                           SplitMix64::ForStream(seed, static_cast<uint64_t>(stream_offset)), pool);
  if (with_replacement) {
    sampler.slot_chunks_.assign(sample_size, -1);
    sampler.slot_rows_.assign(sample_size, -1);
  }
  return sampler;
}

int64_t ReservoirSampler::StoredRows() const {
  int64_t rows = 0;
  for (const RecordBatch& chunk : chunks_)
    rows += chunk.num_rows();
  return rows;
}

Status ReservoirSampler::Add(const RecordBatch& batch) {
  if (!batch.schema()->Equals(*schema_)) {
    return Status::TypeError(fmt::format(
        "ReservoirSampler: the batch has schema\n{}\nbut the sampler was made for\n{}\nsample "
        "batches of one schema",
        batch.schema()->ToString(), schema_->ToString()));
  }
  const int64_t m = batch.num_rows();
  if (m == 0) return Status::OK();
  const int64_t seen_before = rows_seen_;
  rows_seen_ += m;
  if (sample_size_ == 0) return Status::OK();

  if (with_replacement_) {
    std::vector<uint64_t> new_rows;
    std::vector<int64_t> slots;
    const uint64_t total = static_cast<uint64_t>(seen_before + m);
    for (int64_t j = 0; j < sample_size_; ++j) {
      const uint64_t r = random_.Bounded(total);
      if (r >= static_cast<uint64_t>(seen_before)) {
        new_rows.push_back(r - static_cast<uint64_t>(seen_before));
        slots.push_back(j);
      }
    }
    if (new_rows.empty()) return Status::OK();
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch chunk, GatherRows(batch, new_rows, pool_));
    const int64_t chunk_index = static_cast<int64_t>(chunks_.size());
    chunks_.push_back(std::move(chunk));
    for (size_t s = 0; s < slots.size(); ++s) {
      slot_chunks_[slots[s]] = chunk_index;
      slot_rows_[slots[s]] = static_cast<int64_t>(s);
    }
    if (StoredRows() > 2 * sample_size_) return CompactSlots();
    return Status::OK();
  }

  // Without replacement: every row takes a key; only rows that can still be among the
  // sample_size_ smallest are copied.
  const uint64_t held = keys_.size();
  std::vector<KeyedRow> candidates;
  for (int64_t i = 0; i < m; ++i) {
    const uint64_t key = random_.Next();
    if (!have_threshold_ || key < threshold_) {
      candidates.emplace_back(key, held + static_cast<uint64_t>(i));
    }
  }
  if (held + candidates.size() > static_cast<uint64_t>(sample_size_)) {
    // Tighten the threshold with this batch before copying anything from it.
    std::vector<KeyedRow> all;
    all.reserve(held + candidates.size());
    for (uint64_t p = 0; p < held; ++p)
      all.emplace_back(keys_[p], p);
    all.insert(all.end(), candidates.begin(), candidates.end());
    std::nth_element(all.begin(), all.begin() + (sample_size_ - 1), all.end());
    const KeyedRow kth = all[sample_size_ - 1];
    if (!have_threshold_ || kth.first < threshold_) threshold_ = kth.first;
    have_threshold_ = true;
    std::erase_if(candidates, [&](const KeyedRow& c) { return c > kth; });
  }
  if (candidates.empty()) return Status::OK();
  std::vector<uint64_t> rows;
  rows.reserve(candidates.size());
  for (const KeyedRow& c : candidates) {
    rows.push_back(c.second - held);
    keys_.push_back(c.first);
  }
  FLOTILLA_ASSIGN_OR_RETURN(RecordBatch chunk, GatherRows(batch, rows, pool_));
  chunks_.push_back(std::move(chunk));
  if (static_cast<int64_t>(keys_.size()) > 2 * sample_size_) return CompactSmallestKeys();
  return Status::OK();
}

Status ReservoirSampler::Merge(ReservoirSampler&& other) {
  if (!other.schema_->Equals(*schema_) || other.sample_size_ != sample_size_ ||
      other.with_replacement_ != with_replacement_) {
    return Status::Invalid(fmt::format(
        "ReservoirSampler::Merge: samplers differ (sample size {} vs {}, {} vs {} replacement, "
        "schemas {}); merge only samplers made with the same schema, size and mode",
        sample_size_, other.sample_size_, with_replacement_ ? "with" : "without",
        other.with_replacement_ ? "with" : "without",
        other.schema_->Equals(*schema_) ? "equal" : "different"));
  }
  if (other.rows_seen_ == 0) return Status::OK();
  const int64_t seen_before = rows_seen_;
  rows_seen_ += other.rows_seen_;
  if (sample_size_ == 0) return Status::OK();
  const int64_t chunk_base = static_cast<int64_t>(chunks_.size());
  for (RecordBatch& chunk : other.chunks_)
    chunks_.push_back(std::move(chunk));
  other.chunks_.clear();

  if (with_replacement_) {
    const uint64_t total = static_cast<uint64_t>(rows_seen_);
    for (int64_t j = 0; j < sample_size_; ++j) {
      if (random_.Bounded(total) >= static_cast<uint64_t>(seen_before)) {
        slot_chunks_[j] = chunk_base + other.slot_chunks_[j];
        slot_rows_[j] = other.slot_rows_[j];
      }
    }
    if (StoredRows() > 2 * sample_size_) return CompactSlots();
    return Status::OK();
  }

  keys_.insert(keys_.end(), other.keys_.begin(), other.keys_.end());
  other.keys_.clear();
  if (other.have_threshold_ && (!have_threshold_ || other.threshold_ < threshold_)) {
    threshold_ = other.threshold_;
    have_threshold_ = true;
  }
  if (static_cast<int64_t>(keys_.size()) > 2 * sample_size_) return CompactSmallestKeys();
  return Status::OK();
}

Status ReservoirSampler::CompactSmallestKeys() {
  if (static_cast<int64_t>(keys_.size()) <= sample_size_ || sample_size_ == 0) {
    if (sample_size_ == 0) {
      chunks_.clear();
      keys_.clear();
    }
    return Status::OK();
  }
  std::vector<KeyedRow> order;
  order.reserve(keys_.size());
  for (uint64_t p = 0; p < keys_.size(); ++p)
    order.emplace_back(keys_[p], p);
  std::nth_element(order.begin(), order.begin() + (sample_size_ - 1), order.end());
  const KeyedRow kth = order[sample_size_ - 1];
  std::vector<uint64_t> keep;
  std::vector<uint64_t> kept_keys;
  keep.reserve(sample_size_);
  kept_keys.reserve(sample_size_);
  for (uint64_t p = 0; p < keys_.size(); ++p) {
    if (KeyedRow(keys_[p], p) <= kth) {
      keep.push_back(p);
      kept_keys.push_back(keys_[p]);
    }
  }
  FLOTILLA_ASSIGN_OR_RETURN(RecordBatch all, ConcatBatches(chunks_, pool_));
  FLOTILLA_ASSIGN_OR_RETURN(RecordBatch kept, GatherRows(all, keep, pool_));
  chunks_.clear();
  chunks_.push_back(std::move(kept));
  keys_ = std::move(kept_keys);
  if (!have_threshold_ || kth.first < threshold_) threshold_ = kth.first;
  have_threshold_ = true;
  return Status::OK();
}

Status ReservoirSampler::CompactSlots() {
  std::vector<int64_t> chunk_start(chunks_.size() + 1, 0);
  for (size_t c = 0; c < chunks_.size(); ++c)
    chunk_start[c + 1] = chunk_start[c] + chunks_[c].num_rows();
  std::vector<uint64_t> rows(sample_size_);
  for (int64_t j = 0; j < sample_size_; ++j) {
    rows[j] = static_cast<uint64_t>(chunk_start[slot_chunks_[j]] + slot_rows_[j]);
  }
  FLOTILLA_ASSIGN_OR_RETURN(RecordBatch all, ConcatBatches(chunks_, pool_));
  FLOTILLA_ASSIGN_OR_RETURN(RecordBatch slots, GatherRows(all, rows, pool_));
  chunks_.clear();
  chunks_.push_back(std::move(slots));
  for (int64_t j = 0; j < sample_size_; ++j) {
    slot_chunks_[j] = 0;
    slot_rows_[j] = j;
  }
  return Status::OK();
}

Result<RecordBatch> ReservoirSampler::Finish() {
  if (rows_seen_ == 0 || sample_size_ == 0) return RecordBatch::MakeEmpty(schema_);
  if (with_replacement_) {
    FLOTILLA_RETURN_NOT_OK(CompactSlots());
  } else {
    FLOTILLA_RETURN_NOT_OK(CompactSmallestKeys());
    if (chunks_.size() > 1) {
      FLOTILLA_ASSIGN_OR_RETURN(RecordBatch all, ConcatBatches(chunks_, pool_));
      chunks_.clear();
      chunks_.push_back(std::move(all));
    }
  }
  return chunks_[0];
}

}  // namespace flotilla::compute
