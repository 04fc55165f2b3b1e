// sum and mean over window frames without an accumulator per frame: integers and decimals as a
// sliding 128-bit sum, floats as compensated sums (running, or from a tree of partial sums when
// the frame's start moves). Results match the sum / mean aggregates (expr/aggregate/sum_mean.cc)
// through the arithmetic they share.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "flotilla/exec/window/window_internal.h"
#include "flotilla/expr/aggregate/sum_arithmetic.h"
#include "flotilla/types/type_dispatch.h"

namespace flotilla::exec::window_internal {
namespace {

// sum / mean of integers and decimals: a sliding sum modulo 2^128, exact whenever every frame's
// true sum fits in 128 bits (the caller checks). `get(j)` reads valid row j as an Int128.
template <typename Out, typename Get>
Result<Array> ExactSum(const std::string& name, const Array& x, Get&& get, const TypePtr& out_type,
                       bool mean, int32_t scale, const PartitionList& parts,
                       FrameComputer* frames) {
  FLOTILLA_ASSIGN_OR_RETURN(auto out, OutputColumn<Out>::Make(out_type, parts.num_rows));
  const Validity valid(x);
  const double unit = std::pow(10.0, scale);
  FLOTILLA_RETURN_NOT_OK(ForEachFramedPartition(
      parts, frames, [&](int64_t ps, int64_t pe, const int64_t* fs, const int64_t* fe) -> Status {
        SlidingWindow window(ps);
        UInt128 sum = 0;
        int64_t count = 0;
        for (int64_t k = 0; k < pe - ps; ++k) {
          window.MoveTo(
              fs[k], fe[k],
              [&](int64_t j) {
                if (valid(j)) {
                  sum += static_cast<UInt128>(get(j));
                  ++count;
                }
              },
              [&](int64_t j) {
                if (valid(j)) {
                  sum -= static_cast<UInt128>(get(j));
                  --count;
                }
              });
          const int64_t row = ps + k;
          if (count == 0) {
            out.SetNull(row);
            continue;
          }
          const auto total = static_cast<Int128>(sum);
          if constexpr (std::is_same_v<Out, double>) {
            out.Set(row, static_cast<double>(total) / unit / static_cast<double>(count));
          } else {
            bool fits;
            if constexpr (std::is_same_v<Out, Int128>) {
              fits = expr::FitsDecimal38(total);
            } else {
              fits = total >= static_cast<Int128>(std::numeric_limits<Out>::min()) &&
                     total <= static_cast<Int128>(std::numeric_limits<Out>::max());
            }
            if (!fits) {
              return Status::Invalid(
                  Call(name) + " overflowed " + out_type->ToString() +
                  " in the window frame of row " + std::to_string(row) +
                  "; cast the argument to a wider type (decimal128(38, 0) or float64)");
            }
            out.Set(row, static_cast<Out>(total));
          }
        }
        return Status::OK();
      }));
  return out.Finish();
}

// sum / mean of floats. Frames with a fixed start add rows in order, exactly like the
// accumulator; frames whose start moves query a tree of compensated partial sums.
template <typename T>
Result<Array> FloatSum(const Array& x, bool mean, const PartitionList& parts,
                       FrameComputer* frames) {
  FLOTILLA_ASSIGN_OR_RETURN(auto out, OutputColumn<double>::Make(float64(), parts.num_rows));
  const Validity valid(x);
  const T* values = x.values<T>();
  std::vector<expr::CompensatedSum> tree;
  FLOTILLA_RETURN_NOT_OK(ForEachFramedPartition(
      parts, frames, [&](int64_t ps, int64_t pe, const int64_t* fs, const int64_t* fe) -> Status {
        const int64_t m = pe - ps;
        const bool fixed_start = std::all_of(fs, fs + m, [&](int64_t s) { return s == fs[0]; });
        auto emit = [&](int64_t row, const expr::CompensatedSum& s, int64_t count) {
          if (count == 0) {
            out.SetNull(row);
          } else {
            out.Set(row, mean ? s.Total() / static_cast<double>(count) : s.Total());
          }
        };
        if (fixed_start) {
          expr::CompensatedSum running;
          int64_t count = 0;
          int64_t next = fs[0];
          for (int64_t k = 0; k < m; ++k) {
            for (; next < fe[k]; ++next) {
              if (!valid(next)) continue;
              running.Add(static_cast<double>(values[next]));
              ++count;
            }
            emit(ps + k, running, count);
          }
          return Status::OK();
        }
        // Bottom-up segment tree over the partition: leaf k at m + k.
        tree.assign(static_cast<size_t>(2 * m), expr::CompensatedSum{});
        for (int64_t k = 0; k < m; ++k) {
          if (valid(ps + k)) tree[m + k].sum = static_cast<double>(values[ps + k]);
        }
        for (int64_t k = m - 1; k >= 1; --k) {
          tree[k] = tree[2 * k];
          tree[k].Add(tree[2 * k + 1]);
        }
        SlidingWindow window(ps);
        int64_t count = 0;
        for (int64_t k = 0; k < m; ++k) {
          window.MoveTo(
              fs[k], fe[k], [&](int64_t j) { count += valid(j); },
              [&](int64_t j) { count -= valid(j); });
          expr::CompensatedSum s;
          for (int64_t l = fs[k] - ps + m, h = fe[k] - ps + m; l < h; l >>= 1, h >>= 1) {
            if (l & 1) s.Add(tree[l++]);
            if (h & 1) s.Add(tree[--h]);
          }
          emit(ps + k, s, count);
        }
        return Status::OK();
      }));
  return out.Finish();
}

// True when a sliding 128-bit sum of `x` (decimal128) cannot wrap: rows * max |value| < 2^127.
bool DecimalSumFitsInt128(const Array& x) {
  const Validity valid(x);
  Int128 max_abs = 0;
  for (int64_t i = 0; i < x.length(); ++i) {
    if (!valid(i)) continue;
    const Int128 v = DecimalValue(x, i);
    if (v == kInt128Min) return false;
    max_abs = std::max(max_abs, v < 0 ? -v : v);
  }
  return max_abs == 0 || x.length() <= kInt128Max / max_abs;
}

}  // namespace

bool HasSlidingSum(const Array& x) {
  const DataType& t = *x.type();
  return t.is_floating() || t.is_integer() ||
         (t.id() == TypeId::kDecimal128 && DecimalSumFitsInt128(x));
}

Result<Array> ComputeSlidingSum(const std::string& name, const Array& x, const TypePtr& type,
                                bool mean, const PartitionList& parts, FrameComputer* frames) {
  const DataType& t = *x.type();
  if (t.is_floating()) {
    return t.id() == TypeId::kFloat32 ? FloatSum<float>(x, mean, parts, frames)
                                      : FloatSum<double>(x, mean, parts, frames);
  }
  if (t.id() == TypeId::kDecimal128) {
    auto get = [&x](int64_t j) { return DecimalValue(x, j); };
    if (mean) return ExactSum<double>(name, x, get, type, true, t.scale(), parts, frames);
    return ExactSum<Int128>(name, x, get, type, false, t.scale(), parts, frames);
  }
  return VisitNumericType(
      t.id(),
      [&](auto tag) -> Result<Array> {
        using T = decltype(tag);
        const T* values = x.values<T>();
        auto get = [values](int64_t j) { return static_cast<Int128>(values[j]); };
        if (mean) return ExactSum<double>(name, x, get, type, true, 0, parts, frames);
        if constexpr (std::is_signed_v<T>) {
          return ExactSum<int64_t>(name, x, get, type, false, 0, parts, frames);
        } else {
          return ExactSum<uint64_t>(name, x, get, type, false, 0, parts, frames);
        }
      },
      [&]() -> Result<Array> { return Status::Internal("integer type expected"); });
}

}  // namespace flotilla::exec::window_internal
