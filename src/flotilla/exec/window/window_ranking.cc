// Ranking window functions: row_number, rank, dense_rank, percent_rank, cume_dist and ntile.
// They ignore the frame; rank-like functions number peer groups, not rows.
#include <optional>
#include <utility>

#include "flotilla/exec/window/window_internal.h"

namespace flotilla::exec::window_internal {

Result<Array> ComputeRanking(WindowKind kind, const RecordBatch& batch, const PartitionList& parts,
                             const std::vector<compute::SortKey>& order_keys) {
  const int64_t n = batch.num_rows();
  std::optional<compute::RowComparator> peers;
  if (kind != WindowKind::kRowNumber && !order_keys.empty()) {
    FLOTILLA_ASSIGN_OR_RETURN(compute::RowComparator cmp,
                              compute::RowComparator::Make(batch, order_keys));
    peers.emplace(std::move(cmp));
  }
  const bool fractional = kind == WindowKind::kPercentRank || kind == WindowKind::kCumeDist;
  FLOTILLA_ASSIGN_OR_RETURN(auto ints, OutputColumn<int64_t>::Make(int64(), fractional ? 0 : n));
  FLOTILLA_ASSIGN_OR_RETURN(auto doubles,
                            OutputColumn<double>::Make(float64(), fractional ? n : 0));
  int64_t* iv = ints.values();
  double* dv = doubles.values();
  std::vector<int64_t> groups;
  for (size_t p = 0; p < parts.size(); ++p) {
    const int64_t ps = parts.begin(p), pe = parts.end(p), m = pe - ps;
    if (m == 0) continue;
    if (kind == WindowKind::kRowNumber) {
      for (int64_t i = ps; i < pe; ++i)
        iv[i] = i - ps + 1;
      continue;
    }
    PeerGroups(peers ? &*peers : nullptr, ps, pe, &groups);
    for (size_t g = 0; g + 1 < groups.size(); ++g) {
      const int64_t gs = groups[g], ge = groups[g + 1];
      const int64_t rank = gs - ps + 1;
      for (int64_t i = gs; i < ge; ++i) {
        switch (kind) {
          case WindowKind::kRank:
            iv[i] = rank;
            break;
          case WindowKind::kDenseRank:
            iv[i] = static_cast<int64_t>(g) + 1;
            break;
          case WindowKind::kPercentRank:
            dv[i] = m == 1 ? 0.0 : static_cast<double>(rank - 1) / static_cast<double>(m - 1);
            break;
          default:  // cume_dist
            dv[i] = static_cast<double>(ge - ps) / static_cast<double>(m);
            break;
        }
      }
    }
  }
  return fractional ? doubles.Finish() : ints.Finish();
}

Result<Array> ComputeNtile(const RecordBatch& batch, const PartitionList& parts,
                           const Array& buckets_constant) {
  const int64_t n = batch.num_rows();
  const std::optional<int64_t> buckets = ConstantInteger(buckets_constant);
  if (!buckets) return Array::MakeNull(int64(), n);
  if (*buckets <= 0) {
    return Status::Invalid("ntile(): the number of buckets must be greater than zero, got " +
                           std::to_string(*buckets));
  }
  FLOTILLA_ASSIGN_OR_RETURN(auto out, OutputColumn<int64_t>::Make(int64(), n));
  int64_t* v = out.values();
  for (size_t p = 0; p < parts.size(); ++p) {
    const int64_t ps = parts.begin(p), pe = parts.end(p), m = pe - ps;
    if (m == 0) continue;
    // The first m % buckets buckets get one row more (PostgreSQL's distribution).
    const int64_t per_bucket = m / *buckets;
    const int64_t larger = per_bucket == 0 ? 0 : m % *buckets;
    const int64_t larger_rows = larger * (per_bucket + 1);
    for (int64_t k = 0; k < m; ++k) {
      if (per_bucket == 0) {
        v[ps + k] = k + 1;
      } else if (k < larger_rows) {
        v[ps + k] = k / (per_bucket + 1) + 1;
      } else {
        v[ps + k] = larger + (k - larger_rows) / per_bucket + 1;
      }
    }
  }
  return out.Finish();
}

}  // namespace flotilla::exec::window_internal
