#include "flotilla/exec/window/window_frames.h"

#include <cmath>
#include <utility>

#include "flotilla/compute/arithmetic.h"
#include "flotilla/exec/window/window_internal.h"
#include "flotilla/types/type_dispatch.h"

namespace flotilla::exec {
namespace window_internal {
namespace {

bool IsOffset(const FrameBound& b) {
  return b.kind == FrameBound::kPreceding || b.kind == FrameBound::kFollowing;
}

std::string BoundToString(const FrameBound& b) {
  switch (b.kind) {
    case FrameBound::kUnboundedPreceding:
      return "UNBOUNDED PRECEDING";
    case FrameBound::kPreceding:
      return std::to_string(b.offset) + " PRECEDING";
    case FrameBound::kCurrentRow:
      return "CURRENT ROW";
    case FrameBound::kFollowing:
      return std::to_string(b.offset) + " FOLLOWING";
    case FrameBound::kUnboundedFollowing:
      return "UNBOUNDED FOLLOWING";
  }
  return "?";
}

bool IsRangeKeyType(const DataType& t) {
  return t.is_numeric() || t.id() == TypeId::kDecimal128 || t.id() == TypeId::kDate32 ||
         t.id() == TypeId::kTimestamp || t.id() == TypeId::kDuration || t.id() == TypeId::kTime64;
}

Int128 SaturatingAdd(Int128 a, Int128 b) {
  Int128 r;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? kInt128Max : kInt128Min;
  return r;
}
Int128 SaturatingSub(Int128 a, Int128 b) {
  Int128 r;
  if (__builtin_sub_overflow(a, b, &r)) return b > 0 ? kInt128Min : kInt128Max;
  return r;
}
double SaturatingAdd(double a, double b) {
  return a + b;
}
double SaturatingSub(double a, double b) {
  return a - b;
}

// Offset bounds of rows [lo, hi) whose keys `key_at` (direction applied, so non-decreasing in
// the row) are all comparable numbers. `fs`/`fe` are indexed by row - base.
template <typename K, typename KeyAt>
void NumericOffsetBounds(const WindowFrame& frame, int64_t lo, int64_t hi, int64_t base,
                         K start_offset, K end_offset, KeyAt&& key_at, int64_t* fs, int64_t* fe) {
  const bool start_is_offset = IsOffset(frame.start);
  const bool end_is_offset = IsOffset(frame.end);
  const bool start_preceding = frame.start.kind == FrameBound::kPreceding;
  const bool end_preceding = frame.end.kind == FrameBound::kPreceding;
  int64_t s = lo, e = lo;
  for (int64_t i = lo; i < hi; ++i) {
    const K v = key_at(i);
    if (start_is_offset) {
      // The first row whose key is >= the target.
      const K target =
          start_preceding ? SaturatingSub(v, start_offset) : SaturatingAdd(v, start_offset);
      while (s < hi && key_at(s) < target)
        ++s;
      fs[i - base] = s;
    }
    if (end_is_offset) {
      // One past the last row whose key is <= the target.
      const K target = end_preceding ? SaturatingSub(v, end_offset) : SaturatingAdd(v, end_offset);
      while (e < hi && !(target < key_at(e)))
        ++e;
      fe[i - base] = e;
    }
  }
}

}  // namespace

void PeerGroups(const compute::RowComparator* peers, int64_t begin, int64_t end,
                std::vector<int64_t>* out) {
  out->clear();
  out->push_back(begin);
  if (peers != nullptr) {
    for (int64_t i = begin + 1; i < end; ++i) {
      if (peers->Compare(i - 1, i) != 0) out->push_back(i);
    }
  }
  out->push_back(end);
}

WindowFrame EffectiveFrame(const WindowFunctionSpec& spec,
                           const std::vector<compute::SortKey>& order_keys) {
  if (spec.frame) return *spec.frame;
  WindowFrame frame;  // RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
  if (order_keys.empty()) frame.end = FrameBound{FrameBound::kUnboundedFollowing};
  return frame;
}

Status CheckFrame(const std::string& function, const WindowFrame& frame, const RecordBatch& batch,
                  const std::vector<compute::SortKey>& order_keys) {
  const std::string where = Call(function) + " OVER (" + WindowFrameToString(frame) + ")";
  const FrameBound& s = frame.start;
  const FrameBound& e = frame.end;
  if (s.kind == FrameBound::kUnboundedFollowing) {
    return Status::Invalid(where + ": a frame cannot start at UNBOUNDED FOLLOWING");
  }
  if (e.kind == FrameBound::kUnboundedPreceding) {
    return Status::Invalid(where + ": a frame cannot end at UNBOUNDED PRECEDING");
  }
  for (const FrameBound* b : {&s, &e}) {
    if (IsOffset(*b) && b->offset < 0) {
      return Status::Invalid(where + ": frame offsets must not be negative, got " +
                             std::to_string(b->offset));
    }
  }
  if (s.kind == FrameBound::kCurrentRow && e.kind == FrameBound::kPreceding) {
    return Status::Invalid(where + ": a frame starting at CURRENT ROW cannot end PRECEDING it");
  }
  if (s.kind == FrameBound::kFollowing &&
      (e.kind == FrameBound::kPreceding || e.kind == FrameBound::kCurrentRow)) {
    return Status::Invalid(where +
                           ": a frame starting FOLLOWING the current row must end FOLLOWING it");
  }
  if (frame.type == WindowFrame::kRange && (IsOffset(s) || IsOffset(e))) {
    if (order_keys.size() != 1) {
      return Status::NotImplemented(
          where + ": RANGE with an offset needs exactly one ORDER BY key, got " +
          std::to_string(order_keys.size()) + "; use ROWS, or order by a single key");
    }
    const TypePtr& type = batch.column(order_keys[0].column).type();
    if (!IsRangeKeyType(*type)) {
      return Status::NotImplemented(
          where +
          ": RANGE with an offset needs a numeric, decimal, date, timestamp or duration ORDER "
          "BY key, got " +
          type->ToString() + " ('" + batch.schema()->field(order_keys[0].column).name + "')");
    }
  }
  return Status::OK();
}

Result<std::unique_ptr<FrameComputer>> FrameComputer::Make(
    const RecordBatch& batch, const std::vector<compute::SortKey>& order_keys,
    const WindowFrame& frame) {
  auto out = std::unique_ptr<FrameComputer>(new FrameComputer());
  out->frame_ = frame;
  if (frame.type == WindowFrame::kRange) {
    out->needs_peers_ =
        frame.start.kind == FrameBound::kCurrentRow || frame.end.kind == FrameBound::kCurrentRow;
    out->has_offset_ = IsOffset(frame.start) || IsOffset(frame.end);
    if (out->needs_peers_ && !order_keys.empty()) {
      FLOTILLA_ASSIGN_OR_RETURN(compute::RowComparator peers,
                                compute::RowComparator::Make(batch, order_keys));
      out->peers_.emplace(std::move(peers));
    }
    if (out->has_offset_) {
      out->key_ = batch.column(order_keys[0].column);
      out->ascending_ = order_keys[0].ascending;
      out->nulls_first_ = order_keys[0].nulls_first;
    }
  }
  return out;
}

void FrameComputer::Compute(int64_t ps, int64_t pe, std::vector<int64_t>* starts,
                            std::vector<int64_t>* ends) {
  const int64_t m = pe - ps;
  starts->resize(static_cast<size_t>(m));
  ends->resize(static_cast<size_t>(m));
  int64_t* fs = starts->data();
  int64_t* fe = ends->data();
  if (frame_.type == WindowFrame::kRows) {
    for (int64_t k = 0; k < m; ++k) {
      fs[k] = RowsBound(frame_.start, ps, pe, ps + k, false);
      fe[k] = RowsBound(frame_.end, ps, pe, ps + k, true);
    }
  } else {
    if (needs_peers_) {
      PeerGroups(peers_ ? &*peers_ : nullptr, ps, pe, &peer_starts_);
      const bool start_current = frame_.start.kind == FrameBound::kCurrentRow;
      const bool end_current = frame_.end.kind == FrameBound::kCurrentRow;
      for (size_t g = 0; g + 1 < peer_starts_.size(); ++g) {
        const int64_t gs = peer_starts_[g], ge = peer_starts_[g + 1];
        for (int64_t i = gs; i < ge; ++i) {
          if (start_current) fs[i - ps] = gs;
          if (end_current) fe[i - ps] = ge;
        }
      }
    }
    if (frame_.start.kind == FrameBound::kUnboundedPreceding) std::fill(fs, fs + m, ps);
    if (frame_.end.kind == FrameBound::kUnboundedFollowing) std::fill(fe, fe + m, pe);
    if (has_offset_) RangeOffsetBounds(ps, pe, fs, fe);
  }
  for (int64_t k = 0; k < m; ++k) {
    if (fe[k] < fs[k]) fe[k] = fs[k];
  }
}

int64_t FrameComputer::RowsBound(const FrameBound& b, int64_t ps, int64_t pe, int64_t i,
                                 bool is_end) {
  Int128 v = i;
  switch (b.kind) {
    case FrameBound::kUnboundedPreceding:
      return ps;
    case FrameBound::kUnboundedFollowing:
      return pe;
    case FrameBound::kCurrentRow:
      break;
    case FrameBound::kPreceding:
      v -= b.offset;
      break;
    case FrameBound::kFollowing:
      v += b.offset;
      break;
  }
  if (is_end) v += 1;
  return static_cast<int64_t>(std::clamp<Int128>(v, ps, pe));
}

// Sets the offset bounds of RANGE frames on the one order key.
void FrameComputer::RangeOffsetBounds(int64_t ps, int64_t pe, int64_t* fs, int64_t* fe) {
  const int64_t m = pe - ps;
  int64_t nulls = 0;
  if (key_.null_count() > 0) {
    nulls = key_.validity() == nullptr
                ? m
                : m - bit_util::CountSetBits(key_.validity(), key_.offset() + ps, m);
  }
  // Non-null keys are rows [a, b); the nulls are before or after them.
  int64_t a = ps, b = pe;
  if (nulls_first_) {
    a += nulls;
  } else {
    b -= nulls;
  }
  if (nulls_first_) {
    SetBlockBounds(ps, a, ps, fs, fe);
  } else {
    SetBlockBounds(b, pe, ps, fs, fe);
  }

  const FrameBound& start = frame_.start;
  const FrameBound& end = frame_.end;
  const TypeId id = key_.type_id();
  if (id == TypeId::kFloat32 || id == TypeId::kFloat64) {
    auto run = [&](auto tag) {
      using T = decltype(tag);
      const T* values = key_.values<T>();
      // NaN sorts after every number: last when ascending, first when descending.
      int64_t lo = a, hi = b;
      if (ascending_) {
        while (hi > lo && std::isnan(values[hi - 1]))
          --hi;
        SetBlockBounds(hi, b, ps, fs, fe);
      } else {
        while (lo < hi && std::isnan(values[lo]))
          ++lo;
        SetBlockBounds(a, lo, ps, fs, fe);
      }
      const double sign = ascending_ ? 1.0 : -1.0;
      NumericOffsetBounds<double>(
          frame_, lo, hi, ps, static_cast<double>(start.offset), static_cast<double>(end.offset),
          [&](int64_t j) { return sign * static_cast<double>(values[j]); }, fs, fe);
    };
    if (id == TypeId::kFloat32) {
      run(float{});
    } else {
      run(double{});
    }
    return;
  }
  if (id == TypeId::kDecimal128) {
    const Int128 unit = compute::PowerOfTen(key_.type()->scale());
    auto scaled = [&](int64_t offset) {
      Int128 r;
      return __builtin_mul_overflow(static_cast<Int128>(offset), unit, &r) ? kInt128Max : r;
    };
    const bool asc = ascending_;
    NumericOffsetBounds<Int128>(
        frame_, a, b, ps, scaled(start.offset), scaled(end.offset),
        [&](int64_t j) {
          const Int128 v = DecimalValue(key_, j);
          return asc ? v : -v;
        },
        fs, fe);
    return;
  }
  VisitPrimitiveType(
      id,
      [&](auto tag) {
        using T = decltype(tag);
        const T* values = key_.values<T>();
        const bool asc = ascending_;
        NumericOffsetBounds<Int128>(
            frame_, a, b, ps, static_cast<Int128>(start.offset), static_cast<Int128>(end.offset),
            [&](int64_t j) {
              const Int128 v = static_cast<Int128>(values[j]);
              return asc ? v : -v;
            },
            fs, fe);
      },
      [] {});
}

// Rows [begin, end) are peers that only reach each other by offset (null or NaN keys).
void FrameComputer::SetBlockBounds(int64_t begin, int64_t end, int64_t base, int64_t* fs,
                                   int64_t* fe) const {
  for (int64_t i = begin; i < end; ++i) {
    if (IsOffset(frame_.start)) fs[i - base] = begin;
    if (IsOffset(frame_.end)) fe[i - base] = end;
  }
}

}  // namespace window_internal

std::string WindowFrameToString(const WindowFrame& frame) {
  return std::string(frame.type == WindowFrame::kRows ? "ROWS" : "RANGE") + " BETWEEN " +
         window_internal::BoundToString(frame.start) + " AND " +
         window_internal::BoundToString(frame.end);
}

}  // namespace flotilla::exec
