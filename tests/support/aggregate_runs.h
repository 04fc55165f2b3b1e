#pragma once
// Helpers for the aggregate tests: building small arrays, and running an aggregate single-phase,
// with thread-style Merge, and two-phase (SerializePartial -> MergePartial).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "flotilla/columnar/builder.h"
#include "flotilla/expr/aggregate/aggregate_function.h"

namespace flotilla::testing {

// The aggregate tests speak the expression layer's terms.
using namespace ::flotilla::expr;  // NOLINT

template <typename T>
Array MakeArray(const TypePtr& type, const std::vector<std::optional<T>>& values) {
  auto builder = MakeBuilder(type).ValueOrDie();
  for (const auto& v : values) {
    if (!v) {
      builder->AppendNull().Check();
    } else if constexpr (std::is_same_v<T, bool>) {
      static_cast<BooleanBuilder*>(builder.get())->Append(*v).Check();
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (type->has_large_offsets()) {
        static_cast<LargeStringBuilder*>(builder.get())->Append(*v).Check();
      } else {
        static_cast<StringBuilder*>(builder.get())->Append(*v).Check();
      }
    } else if constexpr (std::is_same_v<T, Int128>) {
      static_cast<FixedSizeBinaryBuilder*>(builder.get())->AppendDecimal(*v).Check();
    } else {
      static_cast<NumericBuilder<T>*>(builder.get())->Append(*v).Check();
    }
  }
  return builder->Finish().ValueOrDie();
}

inline const AggregateFunction& Fn(const std::string& name) {
  return *DefaultAggregateRegistry().Find(name).ValueOrDie();
}

inline std::vector<TypePtr> TypesOf(const std::vector<Array>& args) {
  std::vector<TypePtr> types;
  for (const Array& a : args)
    types.push_back(a.type());
  return types;
}

/// Constants: a one-row slice of each argument after the first (separator, quantile).
inline std::vector<Array> ConstantsOf(const std::vector<Array>& args) {
  std::vector<Array> constants(args.size());
  for (size_t i = 1; i < args.size(); ++i)
    constants[i] = args[i].Slice(0, 1);
  return constants;
}

inline std::unique_ptr<GroupedAccumulator> Make(const std::string& name,
                                                const std::vector<Array>& args) {
  return Fn(name).MakeAccumulator(TypesOf(args), ConstantsOf(args)).ValueOrDie();
}

/// Single phase: one accumulator, one Update over all rows.
inline Result<Array> RunSingle(const std::string& name, const std::vector<Array>& args,
                               const std::vector<uint32_t>& groups, int64_t num_groups) {
  auto acc = Make(name, args);
  FLOTILLA_RETURN_NOT_OK(acc->Resize(num_groups));
  FLOTILLA_RETURN_NOT_OK(acc->Update(args, groups.data(), static_cast<int64_t>(groups.size())));
  return acc->Finalize();
}

/// Splits the rows into `parts` contiguous pieces, each aggregated by its own accumulator with
/// its own dense local group ids (in order of first appearance, as a hash table assigns them),
/// then combines them in order, through Merge (`two_phase` false) or through
/// SerializePartial/MergePartial (`two_phase` true).
inline Result<Array> RunSplit(const std::string& name, const std::vector<Array>& args,
                              const std::vector<uint32_t>& groups, int64_t num_groups, int parts,
                              bool two_phase) {
  auto final_acc = Make(name, args);
  FLOTILLA_RETURN_NOT_OK(final_acc->Resize(num_groups));
  const auto n = static_cast<int64_t>(groups.size());
  for (int p = 0; p < parts; ++p) {
    const int64_t begin = n * p / parts, end = n * (p + 1) / parts;
    std::vector<int64_t> local_of(static_cast<size_t>(num_groups), -1);
    std::vector<uint32_t> global_of, local_ids;
    for (int64_t i = begin; i < end; ++i) {
      if (local_of[groups[i]] < 0) {
        local_of[groups[i]] = static_cast<int64_t>(global_of.size());
        global_of.push_back(groups[i]);
      }
      local_ids.push_back(static_cast<uint32_t>(local_of[groups[i]]));
    }
    std::vector<Array> slices;
    for (const Array& a : args)
      slices.push_back(a.Slice(begin, end - begin));
    auto acc = Make(name, args);
    FLOTILLA_RETURN_NOT_OK(acc->Resize(static_cast<int64_t>(global_of.size())));
    // Two batches per part, so batch order is exercised too.
    const int64_t half = (end - begin) / 2;
    std::vector<Array> first, second;
    for (const Array& s : slices) {
      first.push_back(s.Slice(0, half));
      second.push_back(s.Slice(half));
    }
    FLOTILLA_RETURN_NOT_OK(acc->Update(first, local_ids.data(), half));
    FLOTILLA_RETURN_NOT_OK(acc->Update(second, local_ids.data() + half, end - begin - half));
    if (two_phase) {
      FLOTILLA_ASSIGN_OR_RETURN(auto partial, acc->SerializePartial());
      FLOTILLA_RETURN_NOT_OK(final_acc->MergePartial(partial, global_of.data(),
                                                     static_cast<int64_t>(global_of.size())));
    } else {
      FLOTILLA_RETURN_NOT_OK(final_acc->Merge(*acc, global_of.data()));
    }
  }
  return final_acc->Finalize();
}

/// Equal arrays, with float64 values compared to a relative tolerance.
inline void ExpectSameResult(const Array& expected, const Array& actual, double tolerance = 1e-9) {
  ASSERT_TRUE(expected.type()->Equals(*actual.type()))
      << expected.type()->ToString() << " vs " << actual.type()->ToString();
  ASSERT_EQ(expected.length(), actual.length());
  if (expected.type_id() != TypeId::kFloat64) {
    EXPECT_TRUE(expected.Equals(actual)) << expected.ToString() << "\n vs \n" << actual.ToString();
    return;
  }
  for (int64_t i = 0; i < expected.length(); ++i) {
    ASSERT_EQ(expected.IsValid(i), actual.IsValid(i)) << "row " << i;
    if (!expected.IsValid(i)) continue;
    const double e = expected.values<double>()[i], a = actual.values<double>()[i];
    if (std::isnan(e)) {
      EXPECT_TRUE(std::isnan(a)) << "row " << i;
    } else if (std::isinf(e)) {
      EXPECT_EQ(e, a) << "row " << i;
    } else {
      EXPECT_NEAR(e, a, tolerance * std::max(1.0, std::abs(e))) << "row " << i;
    }
  }
}

}  // namespace flotilla::testing
