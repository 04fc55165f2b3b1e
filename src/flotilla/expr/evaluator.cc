#include "flotilla/expr/evaluator.h"

#include "flotilla/columnar/builder.h"
#include "flotilla/compute/boolean.h"
#include "flotilla/compute/cast.h"
#include "flotilla/compute/compare.h"
#include "flotilla/compute/elementwise.h"

namespace flotilla::expr {
namespace {

bool AllScalar(const std::vector<Datum>& args) {
  for (const Datum& d : args) {
    if (!d.is_scalar()) return false;
  }
  return true;
}

Datum Wrap(bool scalar, Array out) {
  return scalar ? Datum::Scalar(std::move(out)) : Datum::Column(std::move(out));
}

Result<std::vector<Datum>> EvaluateChildren(const BoundNode& node, const RecordBatch& batch) {
  std::vector<Datum> out;
  out.reserve(node.children.size());
  for (const BoundPtr& c : node.children) {
    FLOTILLA_ASSIGN_OR_RETURN(Datum d, Evaluate(*c, batch));
    out.push_back(std::move(d));
  }
  return out;
}

// True where `condition` is true and not null.
bool IsTrue(const Datum& condition, int64_t row) {
  const int64_t i = condition.index(row);
  const Array& a = condition.array();
  return a.type_id() == TypeId::kBool && a.IsValid(i) && a.BoolValue(i);
}

// Builds the result row by row from the argument chosen for each row: `pick(row)` returns the
// index into `args` whose value the row takes.
template <typename Pick>
Result<Array> Assemble(const TypePtr& type, const std::vector<Datum>& args, int64_t n, Pick pick) {
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(type));
  FLOTILLA_RETURN_NOT_OK(builder->Reserve(n));
  for (int64_t row = 0; row < n; ++row) {
    const Datum& source = args[pick(row)];
    if (source.type()->id() == TypeId::kNull) {
      FLOTILLA_RETURN_NOT_OK(builder->AppendNull());
    } else {
      FLOTILLA_RETURN_NOT_OK(builder->AppendArraySlice(source.array(), source.index(row), 1));
    }
  }
  return builder->Finish();
}

Result<Datum> EvaluateCase(const BoundNode& node, std::vector<Datum> args, int64_t num_rows) {
  const bool scalar = AllScalar(args);
  const int64_t n = scalar ? 1 : num_rows;
  const size_t else_index = args.size() - 1;
  FLOTILLA_ASSIGN_OR_RETURN(Array out, Assemble(node.type, args, n, [&](int64_t row) {
                              for (size_t w = 0; w + 1 < args.size(); w += 2) {
                                if (IsTrue(args[w], row)) return w + 1;
                              }
                              return else_index;
                            }));
  return Wrap(scalar, std::move(out));
}

Result<Datum> EvaluateCoalesce(const BoundNode& node, std::vector<Datum> args, int64_t num_rows) {
  const bool scalar = AllScalar(args);
  const int64_t n = scalar ? 1 : num_rows;
  // Fast path: a first argument without nulls is the answer.
  if (args[0].array().null_count() == 0 && args[0].type()->id() != TypeId::kNull) {
    return args[0];
  }
  FLOTILLA_ASSIGN_OR_RETURN(Array out, Assemble(node.type, args, n, [&](int64_t row) {
                              for (size_t i = 0; i < args.size(); ++i) {
                                if (!args[i].IsNull(row)) return i;
                              }
                              return args.size() - 1;
                            }));
  return Wrap(scalar, std::move(out));
}

// x IN (a, b, ...) is (x = a) OR (x = b) OR ...: Kleene OR gives exactly SQL's null rules.
Result<Datum> EvaluateIsIn(const BoundNode& node, const std::vector<Datum>& args,
                           int64_t num_rows) {
  const bool scalar = args[0].is_scalar();
  const int64_t n = scalar ? 1 : num_rows;
  const Array& value = args[0].array();
  Array result;
  if (args.size() == 1) {
    FLOTILLA_ASSIGN_OR_RETURN(BufferPtr bits, compute::AllocateBitmap(n));
    result = compute::MakeFixedWidthArray(boolean(), n, nullptr, 0, std::move(bits));
  }
  for (size_t i = 1; i < args.size(); ++i) {
    Array match;
    if (args[i].type()->id() == TypeId::kNull || value.type_id() == TypeId::kNull) {
      FLOTILLA_ASSIGN_OR_RETURN(match, Array::MakeNull(boolean(), 1));
    } else {
      FLOTILLA_ASSIGN_OR_RETURN(
          match, compute::Compare(compute::CompareOp::kEqual, value, args[i].array(), n));
    }
    if (i == 1 && match.length() == n) {
      result = std::move(match);
    } else if (i == 1) {
      FLOTILLA_ASSIGN_OR_RETURN(result, Datum::Scalar(match).ToColumn(n));
    } else {
      FLOTILLA_ASSIGN_OR_RETURN(result, compute::KleeneOr(result, match, n));
    }
  }
  if (node.negated) {
    FLOTILLA_ASSIGN_OR_RETURN(result, compute::Not(result));
  }
  return Wrap(scalar, std::move(result));
}

Result<Datum> EvaluateIsNull(const BoundNode& node, const Datum& input) {
  const Array& a = input.array();
  const int64_t n = a.length();
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr bits, compute::AllocateBitmap(n));
  uint8_t* out = bits->mutable_data();
  for (int64_t i = 0; i < n; ++i) {
    if (a.IsNull(i) != node.negated) bit_util::SetBit(out, i);
  }
  return Wrap(input.is_scalar(),
              compute::MakeFixedWidthArray(boolean(), n, nullptr, 0, std::move(bits)));
}

}  // namespace

Result<Datum> Evaluate(const BoundNode& node, const RecordBatch& batch) {
  switch (node.kind) {
    case BoundKind::kColumn:
      if (node.column_index >= batch.num_columns() ||
          !batch.column(node.column_index).type()->Equals(*node.type)) {
        return Status::Invalid("`" + node.text + "` was bound to a different schema");
      }
      return Datum::Column(batch.column(node.column_index));
    case BoundKind::kLiteral:
      return Datum::Scalar(node.literal);
    case BoundKind::kAggregate:
      return Status::NotImplemented("aggregate " + node.name +
                                    " must be evaluated by an aggregation operator");
    case BoundKind::kWindow:
      return Status::NotImplemented("window function " + node.name +
                                    " must be evaluated by a window operator");
    default:
      break;
  }
  FLOTILLA_ASSIGN_OR_RETURN(std::vector<Datum> args, EvaluateChildren(node, batch));
  switch (node.kind) {
    case BoundKind::kCast: {
      Result<Array> out =
          compute::Cast(args[0].array(), node.type, compute::CastOptions{node.safe});
      if (!out.ok()) return out.status().WithContext("in `" + node.text + "`");
      return Wrap(args[0].is_scalar(), out.MoveValueUnsafe());
    }
    case BoundKind::kCall: {
      Result<Datum> out = node.function->exec(args, batch.num_rows());
      if (!out.ok()) return out.status().WithContext("in `" + node.text + "`");
      return out;
    }
    case BoundKind::kCase:
      return EvaluateCase(node, std::move(args), batch.num_rows());
    case BoundKind::kCoalesce:
      return EvaluateCoalesce(node, std::move(args), batch.num_rows());
    case BoundKind::kIsIn:
      return EvaluateIsIn(node, args, batch.num_rows());
    case BoundKind::kIsNull:
      return EvaluateIsNull(node, args[0]);
    default:
      return Status::Internal("unexpected bound node kind");
  }
}

Result<Datum> Evaluate(const BoundExpression& expression, const RecordBatch& batch) {
  return Evaluate(*expression.root, batch);
}

}  // namespace flotilla::expr
