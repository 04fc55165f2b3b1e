// product(x): the product of a group's non-null numbers as a double, as DuckDB's; null for a
// group without values.

#include "flotilla/expr/aggregate/accumulator_support.h"

namespace flotilla::expr {
namespace {

using aggregate_internal::ArgumentTypeError;
using aggregate_internal::CheckPartialState;
using aggregate_internal::ForEachValidAsDouble;
using aggregate_internal::GrowTo;
using aggregate_internal::MakeFixedWidthArray;

class ProductAccumulator : public GroupedAccumulator {
 public:
  Status Resize(int64_t num_groups) override {
    GrowTo(&products_, num_groups, 1.0);
    GrowTo(&seen_, num_groups, uint8_t{0});
    num_groups_ = std::max(num_groups_, num_groups);
    return Status::OK();
  }

  Status Update(const std::vector<Array>& args, const uint32_t* group_ids,
                int64_t num_rows) override {
    ForEachValidAsDouble(args[0], num_rows, [&](int64_t i, double x) { Combine(group_ids[i], x); });
    return Status::OK();
  }

  Status Merge(const GroupedAccumulator& other, const uint32_t* group_map) override {
    const auto& o = static_cast<const ProductAccumulator&>(other);
    for (int64_t g = 0; g < o.num_groups_; ++g) {
      if (o.seen_[g]) Combine(group_map[g], o.products_[g]);
    }
    return Status::OK();
  }

  Result<std::vector<Array>> SerializePartial() const override {
    FLOTILLA_ASSIGN_OR_RETURN(Array products, Finalize());
    return std::vector<Array>{products};
  }

  Status MergePartial(const std::vector<Array>& state, const uint32_t* group_ids,
                      int64_t n) override {
    FLOTILLA_RETURN_NOT_OK(CheckPartialState("product", state, 1, n));
    ForEachValidAsDouble(state[0], n, [&](int64_t i, double x) { Combine(group_ids[i], x); });
    return Status::OK();
  }

  Result<Array> Finalize() const override {
    std::vector<double> products(products_.begin(), products_.begin() + num_groups_);
    std::vector<uint8_t> seen(seen_.begin(), seen_.begin() + num_groups_);
    return MakeFixedWidthArray(float64(), products, &seen);
  }

 private:
  void Combine(uint32_t g, double x) {
    seen_[g] = 1;
    products_[g] *= x;
  }

  std::vector<double> products_;
  std::vector<uint8_t> seen_;
};

Result<TypePtr> ResolveProduct(const std::vector<TypePtr>& args) {
  if (!args[0]->is_numeric() && args[0]->id() != TypeId::kDecimal128 &&
      args[0]->id() != TypeId::kNull) {
    return ArgumentTypeError("product", "a numeric or decimal argument", args[0], 0);
  }
  return float64();
}

Result<std::vector<TypePtr>> ProductState(const std::vector<TypePtr>& args) {
  FLOTILLA_RETURN_NOT_OK(ResolveProduct(args));
  return std::vector<TypePtr>{float64()};
}

Result<std::unique_ptr<GroupedAccumulator>> MakeProduct(const std::vector<TypePtr>&,
                                                        const std::vector<Array>&) {
  return std::unique_ptr<GroupedAccumulator>(new ProductAccumulator());
}

}  // namespace

Status RegisterProductAggregate(AggregateRegistry* registry) {
  return registry->Add({"product",
                        "The product of the non-null numbers (a double, as DuckDB's); null for a "
                        "group without values.",
                        1, 1, ResolveProduct, ProductState, MakeProduct});
}

}  // namespace flotilla::expr
