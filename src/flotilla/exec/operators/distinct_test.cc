#include <gtest/gtest.h>

#include "flotilla/expr/expression.h"
#include "tests/support/plan_checks.h"

namespace flotilla::exec {
namespace {

using namespace flotilla::testing;
using expr::Column;

TEST(DistinctOperator, AllColumnsAndASubset) {
  auto input = Batch({{"a", I64({1, 2, 1, N, N, 2})}, {"b", Strs({"x", "y", "x", "z", "z", "w"})}});
  auto all = MakeDistinct(MemorySource({input})).ValueOrDie();
  ExpectPlanRows(all, Batch({{"a", I64({1, 2, N, 2})}, {"b", Strs({"x", "y", "z", "w"})}}), false);
  auto by_a = MakeDistinct(MemorySource({input}), {"a"}).ValueOrDie();
  for (const RunMode& mode : AllModes()) {
    auto result = RunToBatch(by_a, OptionsFor(mode)).ValueOrDie();
    EXPECT_EQ(result.num_rows(), 3) << mode.ToString();
    EXPECT_EQ(result.schema()->field(1).name, "b");
  }
  ExpectPlanRows(by_a, Batch({{"a", I64({1, 2, N})}, {"b", Strs({"x", "y", "z"})}}), false);
}

// Lists [k, k+1] for each k (null where k is null).
Array Lists(const std::vector<std::optional<int64_t>>& ks) {
  auto builder = MakeBuilder(list(int64())).ValueOrDie();
  auto* lists = static_cast<ListBuilder*>(builder.get());
  auto* values = static_cast<NumericBuilder<int64_t>*>(lists->value_builder());
  for (const auto& k : ks) {
    if (!k) {
      lists->AppendNull().Check();
      continue;
    }
    lists->Append().Check();
    values->Append(*k).Check();
    values->Append(*k + 1).Check();
  }
  return builder->Finish().ValueOrDie();
}

TEST(DistinctOperator, SubsetKeepsTheFirstRowInInputOrderForAnyColumnType) {
  // 40 rows over 3 keys, split into several batches; every mode (several threads, 1-row morsels)
  // must keep the first row of each key, nested columns included.
  std::vector<RecordBatch> batches;
  for (int b = 0; b < 4; ++b) {
    std::vector<std::optional<int64_t>> keys, seq;
    for (int i = 0; i < 10; ++i) {
      const int row = b * 10 + i;
      keys.push_back(row % 7 == 3 ? std::nullopt : std::optional<int64_t>((row * 5) % 3));
      seq.push_back(row % 11 == 0 ? std::nullopt : std::optional<int64_t>(row));
    }
    batches.push_back(Batch({{"k", I64(keys)}, {"row", I64(seq)}, {"l", Lists(seq)}}));
  }
  auto plan = MakeDistinct(MemorySource(batches), {"k"}).ValueOrDie();
  // Rows 0 (k 0, row null), 1 (k 2), 2 (k 1), 3 (k null).
  ExpectPlanRows(
      plan,
      Batch({{"k", I64({0, 2, 1, N})}, {"row", I64({N, 1, 2, 3})}, {"l", Lists({N, 1, 2, 3})}}),
      false);
}

}  // namespace
}  // namespace flotilla::exec
