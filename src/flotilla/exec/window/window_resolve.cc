// Resolving a window function call: finding the function by name and checking its column
// arguments and constants, so that every kernel gets arguments of the types it reads.
#include <limits>
#include <type_traits>

#include "flotilla/common/ascii.h"
#include "flotilla/common/suggest.h"
#include "flotilla/compute/cast.h"
#include "flotilla/exec/window/window_internal.h"
#include "flotilla/expr/aggregate/aggregate_function.h"
#include "flotilla/types/type_dispatch.h"

namespace flotilla::exec::window_internal {
namespace {

struct NamedKind {
  const char* name;
  WindowKind kind;
};

constexpr NamedKind kWindowFunctions[] = {
    {"row_number", WindowKind::kRowNumber},
    {"rank", WindowKind::kRank},
    {"dense_rank", WindowKind::kDenseRank},
    {"percent_rank", WindowKind::kPercentRank},
    {"cume_dist", WindowKind::kCumeDist},
    {"ntile", WindowKind::kNtile},
    {"lag", WindowKind::kLag},
    {"lead", WindowKind::kLead},
    {"first_value", WindowKind::kFirstValue},
    {"last_value", WindowKind::kLastValue},
    {"nth_value", WindowKind::kNthValue},
};

bool IsIntegerOrNull(const DataType& type) {
  return type.is_integer() || type.id() == TypeId::kNull;
}

Status CheckArgumentCount(const ResolvedSpec& r, const WindowFunctionSpec& spec, size_t min_columns,
                          size_t max_columns, size_t max_constants, const char* usage) {
  if (spec.arguments.size() < min_columns || spec.arguments.size() > max_columns ||
      spec.constants.size() > max_constants) {
    return Status::TypeError(Call(r.name) + " takes " + usage + ", got " +
                             std::to_string(spec.arguments.size()) + " column argument(s) and " +
                             std::to_string(spec.constants.size()) + " constant(s)");
  }
  return Status::OK();
}

Status CheckIntegerConstant(const ResolvedSpec& r, const Array& constant, const char* what) {
  if (!IsIntegerOrNull(*constant.type())) {
    return Status::TypeError(Call(r.name) + " expects an integer " + what + ", got " +
                             constant.type()->ToString());
  }
  return Status::OK();
}

}  // namespace

std::optional<int64_t> ConstantInteger(const Array& constant) {
  if (constant.type_id() == TypeId::kNull || constant.IsNull(0)) return std::nullopt;
  return VisitNumericType(
      constant.type_id(),
      [&](auto tag) -> std::optional<int64_t> {
        using T = decltype(tag);
        const T v = constant.values<T>()[0];
        if constexpr (std::is_same_v<T, uint64_t>) {
          // Larger than any partition: the same as INT64_MAX for every use here.
          return v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
                     ? std::numeric_limits<int64_t>::max()
                     : static_cast<int64_t>(v);
        } else {
          return static_cast<int64_t>(v);
        }
      },
      [] { return std::optional<int64_t>(); });
}

Result<ResolvedSpec> Resolve(const Schema& schema, const WindowFunctionSpec& spec) {
  ResolvedSpec r;
  r.name = AsciiLower(spec.name);
  bool found = false;
  for (const NamedKind& named : kWindowFunctions) {
    if (r.name == named.name) {
      r.kind = named.kind;
      found = true;
    }
  }
  if (!found) {
    auto aggregate = expr::DefaultAggregateRegistry().Find(r.name);
    if (!aggregate.ok()) {
      std::vector<std::string> names = expr::DefaultAggregateRegistry().Names();
      for (const NamedKind& named : kWindowFunctions)
        names.emplace_back(named.name);
      return Status::KeyError(NotFoundMessage("window function", spec.name, names));
    }
    r.kind = WindowKind::kAggregate;
    r.aggregate = *aggregate;
  }

  for (size_t i = 0; i < spec.arguments.size(); ++i) {
    const int column = spec.arguments[i];
    if (column < 0 || column >= schema.num_fields()) {
      return Status::IndexError(Call(r.name) + ": argument " + std::to_string(i + 1) +
                                " is column " + std::to_string(column) +
                                ", out of range for a batch of " +
                                std::to_string(schema.num_fields()) + " columns");
    }
    r.arg_types.push_back(schema.field(column).type);
  }
  for (size_t i = 0; i < spec.constants.size(); ++i) {
    const Array& constant = spec.constants[i];
    if (!constant.valid() || constant.length() != 1) {
      return Status::Invalid(Call(r.name) + ": constant " + std::to_string(i + 1) +
                             " must be a one-row array");
    }
  }

  switch (r.kind) {
    case WindowKind::kRowNumber:
    case WindowKind::kRank:
    case WindowKind::kDenseRank:
      FLOTILLA_RETURN_NOT_OK(CheckArgumentCount(r, spec, 0, 0, 0, "no arguments"));
      r.type = int64();
      break;
    case WindowKind::kPercentRank:
    case WindowKind::kCumeDist:
      FLOTILLA_RETURN_NOT_OK(CheckArgumentCount(r, spec, 0, 0, 0, "no arguments"));
      r.type = float64();
      break;
    case WindowKind::kNtile:
      FLOTILLA_RETURN_NOT_OK(
          CheckArgumentCount(r, spec, 0, 0, 1, "the number of buckets as its one constant"));
      if (spec.constants.empty()) {
        return Status::TypeError(Call(r.name) +
                                 " takes the number of buckets as its one constant, got none");
      }
      FLOTILLA_RETURN_NOT_OK(CheckIntegerConstant(r, spec.constants[0], "number of buckets"));
      r.type = int64();
      break;
    case WindowKind::kLag:
    case WindowKind::kLead: {
      FLOTILLA_RETURN_NOT_OK(CheckArgumentCount(
          r, spec, 1, 2, 2,
          "a value column, then optionally an offset constant and a default (a constant or a "
          "second column)"));
      if (spec.arguments.size() == 2 && spec.constants.size() == 2) {
        return Status::Invalid(Call(r.name) +
                               " got a default twice: as a second column and as a constant");
      }
      if (!spec.constants.empty()) {
        FLOTILLA_RETURN_NOT_OK(CheckIntegerConstant(r, spec.constants[0], "offset"));
      }
      const TypePtr& x = r.arg_types[0];
      const TypePtr* default_type = nullptr;
      if (spec.arguments.size() == 2) default_type = &r.arg_types[1];
      if (spec.constants.size() == 2) default_type = &spec.constants[1].type();
      if (default_type != nullptr && (*default_type)->id() != TypeId::kNull &&
          !(*default_type)->Equals(*x) && !compute::CanCast(**default_type, *x)) {
        return Status::TypeError(Call(r.name) + ": the default of type " +
                                 (*default_type)->ToString() +
                                 " cannot be converted to the value's type " + x->ToString());
      }
      r.type = x;
      break;
    }
    case WindowKind::kFirstValue:
    case WindowKind::kLastValue:
      FLOTILLA_RETURN_NOT_OK(CheckArgumentCount(r, spec, 1, 1, 0, "one value column"));
      r.type = r.arg_types[0];
      break;
    case WindowKind::kNthValue:
      FLOTILLA_RETURN_NOT_OK(CheckArgumentCount(
          r, spec, 1, 1, 1, "a value column and the row number n as a constant"));
      if (spec.constants.empty()) {
        return Status::TypeError(Call(r.name) + " takes the row number n as a constant, got none");
      }
      FLOTILLA_RETURN_NOT_OK(CheckIntegerConstant(r, spec.constants[0], "row number n"));
      r.type = r.arg_types[0];
      break;
    case WindowKind::kAggregate: {
      for (const Array& constant : spec.constants)
        r.arg_types.push_back(constant.type());
      const expr::AggregateFunction& fn = *r.aggregate;
      const int n = static_cast<int>(r.arg_types.size());
      if (n < fn.min_args || (fn.max_args >= 0 && n > fn.max_args)) {
        return Status::TypeError(
            Call(fn.name) + " takes " + std::to_string(fn.min_args) +
            (fn.max_args == fn.min_args ? "" : " to " + std::to_string(fn.max_args)) +
            " argument(s) (columns, then constants), got " + std::to_string(n));
      }
      FLOTILLA_ASSIGN_OR_RETURN(r.type, fn.resolve(r.arg_types));
      break;
    }
  }
  return r;
}

}  // namespace flotilla::exec::window_internal
