#include "flotilla/expr/expression.h"

#include <algorithm>

#include "flotilla/columnar/builder.h"

namespace flotilla::expr {
namespace {

ExprPtr Make(Expression::Parts parts) {
  return std::make_shared<const Expression>(std::move(parts));
}

template <typename T>
Array OneValue(TypePtr type, T value) {
  NumericBuilder<T> b(std::move(type));
  b.Append(value).Check();  // a one-value append only fails when memory runs out
  return b.Finish().ValueOrDie();
}

std::string LiteralText(const Array& a) {
  if (a.IsNull(0)) return "NULL";
  switch (a.type_id()) {
    case TypeId::kString:
    case TypeId::kLargeString: {
      std::string out = "'";
      for (char c : a.GetView(0))
        out += c == '\'' ? std::string("''") : std::string(1, c);
      return out + "'";
    }
    case TypeId::kDate32:
      return "DATE '" + a.ValueToString(0) + "'";
    case TypeId::kTimestamp:
      return "TIMESTAMP '" + a.ValueToString(0) + "'";
    case TypeId::kBool:
      return a.BoolValue(0) ? "TRUE" : "FALSE";
    default:
      return a.ValueToString(0);
  }
}

std::string Joined(const std::vector<ExprPtr>& items, size_t from = 0) {
  std::string out;
  for (size_t i = from; i < items.size(); ++i) {
    if (i > from) out += ", ";
    out += items[i]->ToString();
  }
  return out;
}

// Operands that are themselves operators are parenthesized so the text reads unambiguously.
std::string Operand(const ExprPtr& e) {
  const bool compound = e->kind() == ExprKind::kBinary || e->kind() == ExprKind::kBetween ||
                        e->kind() == ExprKind::kIsIn || e->kind() == ExprKind::kUnary;
  return compound ? "(" + e->ToString() + ")" : e->ToString();
}

}  // namespace

const char* BinaryOpSymbol(BinaryOp op) {
  static constexpr const char* kSymbols[] = {"+",  "-", "*",  "/", "//", "%",   "=",
                                             "!=", "<", "<=", ">", ">=", "AND", "OR"};
  return kSymbols[static_cast<int>(op)];
}

const char* BinaryOpFunctionName(BinaryOp op) {
  static constexpr const char* kNames[] = {"add", "subtract", "multiply", "divide", "int_div",
                                           "mod", "eq",       "ne",       "lt",     "le",
                                           "gt",  "ge",       "and",      "or"};
  return kNames[static_cast<int>(op)];
}

Expression::Expression(Parts p)
    : kind_(p.kind),
      name_(std::move(p.name)),
      children_(std::move(p.children)),
      literal_(std::move(p.literal)),
      cast_type_(std::move(p.cast_type)),
      flag_(p.flag),
      unary_op_(p.unary_op),
      binary_op_(p.binary_op) {
  for (const ExprPtr& c : children_)
    if (c != nullptr) depth_ = std::max(depth_, c->depth() + 1);
}

Status CheckExpressionDepth(const Expression& e) {
  if (e.depth() <= kMaxExpressionDepth) return Status::OK();
  return Status::Invalid("an expression nested " + std::to_string(e.depth()) +
                         " levels deep; the limit is " + std::to_string(kMaxExpressionDepth) +
                         " (a long chain of operators, or calls inside calls: split it up)");
}

std::string Expression::ToString() const {
  switch (kind_) {
    case ExprKind::kColumn:
      return name_;
    case ExprKind::kLiteral:
      return LiteralText(literal_);
    case ExprKind::kAlias:
      return children_[0]->ToString() + " AS " + name_;
    case ExprKind::kCast:
      return std::string(flag_ ? "TRY_CAST(" : "CAST(") + children_[0]->ToString() + " AS " +
             cast_type_->ToString() + ")";
    case ExprKind::kUnary:
      return (unary_op_ == UnaryOp::kNot ? "NOT " : "-") + Operand(children_[0]);
    case ExprKind::kBinary:
      return Operand(children_[0]) + " " + BinaryOpSymbol(binary_op_) + " " + Operand(children_[1]);
    case ExprKind::kCall:
    case ExprKind::kAggregate:
      return name_ + "(" + Joined(children_) + ")";
    case ExprKind::kWindow:
      return name_ + "(" + Joined(children_) + ") OVER (...)";
    case ExprKind::kCase: {
      std::string out = "CASE";
      const size_t pairs = (children_.size() - (flag_ ? 1 : 0)) / 2;
      for (size_t i = 0; i < pairs; ++i) {
        out +=
            " WHEN " + children_[2 * i]->ToString() + " THEN " + children_[2 * i + 1]->ToString();
      }
      if (flag_) out += " ELSE " + children_.back()->ToString();
      return out + " END";
    }
    case ExprKind::kIsIn:
      return Operand(children_[0]) + (flag_ ? " NOT IN (" : " IN (") + Joined(children_, 1) + ")";
    case ExprKind::kBetween:
      return Operand(children_[0]) + (flag_ ? " NOT BETWEEN " : " BETWEEN ") +
             Operand(children_[1]) + " AND " + Operand(children_[2]);
    case ExprKind::kIsNull:
      return Operand(children_[0]) + (flag_ ? " IS NOT NULL" : " IS NULL");
    case ExprKind::kCoalesce:
      return "coalesce(" + Joined(children_) + ")";
  }
  return "?";
}

ExprPtr Column(std::string name) {
  return Make({ExprKind::kColumn, std::move(name)});
}

ExprPtr Literal(Array one_value) {
  Expression::Parts p{ExprKind::kLiteral};
  p.literal = std::move(one_value);
  return Make(std::move(p));
}
ExprPtr Literal(int32_t value) {
  return Literal(OneValue(int32(), value));
}
ExprPtr Literal(int64_t value) {
  return Literal(OneValue(int64(), value));
}
ExprPtr Literal(double value) {
  return Literal(OneValue(float64(), value));
}
ExprPtr Literal(bool value) {
  BooleanBuilder b;
  b.Append(value).Check();
  return Literal(b.Finish().ValueOrDie());
}
ExprPtr Literal(std::string value) {
  StringBuilder b(utf8());
  b.Append(value).Check();
  return Literal(b.Finish().ValueOrDie());
}
ExprPtr Literal(const char* value) {
  return Literal(std::string(value));
}
ExprPtr NullLiteral(TypePtr type) {
  return Literal(Array::MakeNull(type, 1).ValueOrDie());
}
ExprPtr DateLiteral(int64_t year, unsigned month, unsigned day) {
  return Literal(OneValue(date32(), DaysFromCivil(year, month, day)));
}
ExprPtr DecimalLiteral(Int128 unscaled, int32_t precision, int32_t scale) {
  FixedSizeBinaryBuilder b(decimal128(precision, scale));
  b.AppendDecimal(unscaled).Check();
  return Literal(b.Finish().ValueOrDie());
}
Result<ExprPtr> DecimalLiteral(std::string_view text) {
  int32_t digits = 0, scale = 0;
  bool after_point = false;
  for (char c : text) {
    if (c == '.') after_point = true;
    if (c >= '0' && c <= '9') {
      ++digits;
      if (after_point) ++scale;
    }
  }
  const int32_t precision = std::max(digits, 1);
  if (precision > 38) {
    return Status::Invalid("decimal literal '" + std::string(text) + "' has more than 38 digits");
  }
  FLOTILLA_ASSIGN_OR_RETURN(Int128 v, DecimalFromString(text, precision, scale));
  return DecimalLiteral(v, precision, scale);
}
ExprPtr TimestampLiteral(int64_t value, TimeUnit unit) {
  return Literal(OneValue(timestamp(unit), value));
}

ExprPtr Alias(ExprPtr input, std::string name) {
  return Make({ExprKind::kAlias, std::move(name), {std::move(input)}});
}
ExprPtr Cast(ExprPtr input, TypePtr type) {
  Expression::Parts p{ExprKind::kCast, "", {std::move(input)}};
  p.cast_type = std::move(type);
  return Make(std::move(p));
}
ExprPtr TryCast(ExprPtr input, TypePtr type) {
  Expression::Parts p{ExprKind::kCast, "", {std::move(input)}};
  p.cast_type = std::move(type);
  p.flag = true;
  return Make(std::move(p));
}
ExprPtr Negate(ExprPtr input) {
  Expression::Parts p{ExprKind::kUnary, "", {std::move(input)}};
  p.unary_op = UnaryOp::kNegate;
  return Make(std::move(p));
}
ExprPtr Not(ExprPtr input) {
  Expression::Parts p{ExprKind::kUnary, "", {std::move(input)}};
  p.unary_op = UnaryOp::kNot;
  return Make(std::move(p));
}
ExprPtr Binary(BinaryOp op, ExprPtr left, ExprPtr right) {
  Expression::Parts p{ExprKind::kBinary, "", {std::move(left), std::move(right)}};
  p.binary_op = op;
  return Make(std::move(p));
}
ExprPtr Add(ExprPtr l, ExprPtr r) {
  return Binary(BinaryOp::kAdd, std::move(l), std::move(r));
}
ExprPtr Subtract(ExprPtr l, ExprPtr r) {
  return Binary(BinaryOp::kSubtract, std::move(l), std::move(r));
}
ExprPtr Multiply(ExprPtr l, ExprPtr r) {
  return Binary(BinaryOp::kMultiply, std::move(l), std::move(r));
}
ExprPtr Divide(ExprPtr l, ExprPtr r) {
  return Binary(BinaryOp::kDivide, std::move(l), std::move(r));
}
ExprPtr IntDiv(ExprPtr l, ExprPtr r) {
  return Binary(BinaryOp::kIntDiv, std::move(l), std::move(r));
}
ExprPtr Mod(ExprPtr l, ExprPtr r) {
  return Binary(BinaryOp::kMod, std::move(l), std::move(r));
}
ExprPtr Equal(ExprPtr l, ExprPtr r) {
  return Binary(BinaryOp::kEqual, std::move(l), std::move(r));
}
ExprPtr NotEqual(ExprPtr l, ExprPtr r) {
  return Binary(BinaryOp::kNotEqual, std::move(l), std::move(r));
}
ExprPtr Less(ExprPtr l, ExprPtr r) {
  return Binary(BinaryOp::kLess, std::move(l), std::move(r));
}
ExprPtr LessEqual(ExprPtr l, ExprPtr r) {
  return Binary(BinaryOp::kLessEqual, std::move(l), std::move(r));
}
ExprPtr Greater(ExprPtr l, ExprPtr r) {
  return Binary(BinaryOp::kGreater, std::move(l), std::move(r));
}
ExprPtr GreaterEqual(ExprPtr l, ExprPtr r) {
  return Binary(BinaryOp::kGreaterEqual, std::move(l), std::move(r));
}
ExprPtr And(ExprPtr l, ExprPtr r) {
  return Binary(BinaryOp::kAnd, std::move(l), std::move(r));
}
ExprPtr Or(ExprPtr l, ExprPtr r) {
  return Binary(BinaryOp::kOr, std::move(l), std::move(r));
}
ExprPtr Call(std::string function, std::vector<ExprPtr> args) {
  return Make({ExprKind::kCall, std::move(function), std::move(args)});
}
ExprPtr Case(std::vector<std::pair<ExprPtr, ExprPtr>> when_then, ExprPtr otherwise) {
  Expression::Parts p{ExprKind::kCase};
  for (auto& [when, then] : when_then) {
    p.children.push_back(std::move(when));
    p.children.push_back(std::move(then));
  }
  if (otherwise) {
    p.children.push_back(std::move(otherwise));
    p.flag = true;
  }
  return Make(std::move(p));
}
ExprPtr IfElse(ExprPtr condition, ExprPtr then, ExprPtr otherwise) {
  return Case({{std::move(condition), std::move(then)}}, std::move(otherwise));
}
ExprPtr IsIn(ExprPtr input, std::vector<ExprPtr> values, bool negated) {
  Expression::Parts p{ExprKind::kIsIn, "", {std::move(input)}};
  for (auto& v : values)
    p.children.push_back(std::move(v));
  p.flag = negated;
  return Make(std::move(p));
}
ExprPtr Between(ExprPtr input, ExprPtr low, ExprPtr high, bool negated) {
  Expression::Parts p{ExprKind::kBetween, "", {std::move(input), std::move(low), std::move(high)}};
  p.flag = negated;
  return Make(std::move(p));
}
ExprPtr IsNull(ExprPtr input) {
  return Make({ExprKind::kIsNull, "", {std::move(input)}});
}
ExprPtr IsNotNull(ExprPtr input) {
  Expression::Parts p{ExprKind::kIsNull, "", {std::move(input)}};
  p.flag = true;
  return Make(std::move(p));
}
ExprPtr Coalesce(std::vector<ExprPtr> args) {
  return Make({ExprKind::kCoalesce, "", std::move(args)});
}
ExprPtr Aggregate(std::string function, std::vector<ExprPtr> args) {
  return Make({ExprKind::kAggregate, std::move(function), std::move(args)});
}
ExprPtr Window(std::string function, std::vector<ExprPtr> args) {
  return Make({ExprKind::kWindow, std::move(function), std::move(args)});
}

}  // namespace flotilla::expr
