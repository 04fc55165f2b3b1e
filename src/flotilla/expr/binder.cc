#include "flotilla/expr/binder.h"

#include <algorithm>
#include <string>

#include "flotilla/common/suggest.h"
#include "flotilla/compute/cast.h"
#include "flotilla/expr/evaluator.h"
#include "flotilla/types/coercion.h"

namespace flotilla::expr {
namespace {

bool IsComparison(BinaryOp op) {
  return op >= BinaryOp::kEqual && op <= BinaryOp::kGreaterEqual;
}
bool IsLogic(BinaryOp op) {
  return op == BinaryOp::kAnd || op == BinaryOp::kOr;
}

std::string In(const std::string& text) {
  return " in `" + text + "`";
}

bool IsLambdaFunction(const std::string& name) {
  return name == "list_transform" || name == "list_filter" || name == "list_reduce" ||
         name == "list_reduce_from";
}

BoundPtr Node(BoundNode node) {
  return std::make_shared<const BoundNode>(std::move(node));
}

class Binder {
 public:
  explicit Binder(const Schema& schema) : schema_(schema) {}

  Result<BoundPtr> Bind(const ExprPtr& e) {
    const std::string text = e->ToString();
    switch (e->kind()) {
      case ExprKind::kColumn: {
        const int index = schema_.GetFieldIndex(e->name());
        if (index < 0) {
          return Status::KeyError(NotFoundMessage("column", e->name(), schema_.field_names()));
        }
        BoundNode n{BoundKind::kColumn, schema_.field(index).type};
        n.column_index = index;
        n.text = text;
        return Node(std::move(n));
      }
      case ExprKind::kLiteral:
        return MakeBoundLiteral(e->literal(), text);
      case ExprKind::kAlias:
        return Bind(e->children()[0]);
      case ExprKind::kCast: {
        FLOTILLA_ASSIGN_OR_RETURN(BoundPtr input, Bind(e->children()[0]));
        return CastTo(std::move(input), e->cast_type(), !e->try_cast(), text);
      }
      case ExprKind::kUnary: {
        FLOTILLA_ASSIGN_OR_RETURN(BoundPtr input, Bind(e->children()[0]));
        const bool is_not = e->unary_op() == UnaryOp::kNot;
        if (is_not) {
          FLOTILLA_ASSIGN_OR_RETURN(input, RequireBool(std::move(input), "NOT", text));
        }
        return CallFunction(is_not ? "not" : "negate", {std::move(input)}, text);
      }
      case ExprKind::kBinary: {
        FLOTILLA_ASSIGN_OR_RETURN(BoundPtr left, Bind(e->children()[0]));
        FLOTILLA_ASSIGN_OR_RETURN(BoundPtr right, Bind(e->children()[1]));
        return BindOperator(e->binary_op(), std::move(left), std::move(right), text);
      }
      case ExprKind::kCall:
        return BindCall(e, text);
      case ExprKind::kCase:
        return BindCase(e, text);
      case ExprKind::kIsIn:
        return BindIsIn(e, text);
      case ExprKind::kBetween: {
        const auto& c = e->children();
        ExprPtr both = And(GreaterEqual(c[0], c[1]), LessEqual(c[0], c[2]));
        return Bind(e->negated() ? Not(std::move(both)) : std::move(both));
      }
      case ExprKind::kIsNull: {
        FLOTILLA_ASSIGN_OR_RETURN(BoundPtr input, Bind(e->children()[0]));
        BoundNode n{BoundKind::kIsNull, boolean(), {std::move(input)}};
        n.negated = e->negated();
        n.text = text;
        return Fold(Node(std::move(n)));
      }
      case ExprKind::kCoalesce: {
        if (e->children().empty()) return Status::TypeError("coalesce() needs an argument");
        FLOTILLA_ASSIGN_OR_RETURN(auto args, BindAll(e->children(), 0));
        FLOTILLA_RETURN_NOT_OK(Unify(&args, 0, 1, "coalesce", text));
        BoundNode n{BoundKind::kCoalesce, args[0]->type, std::move(args)};
        n.text = text;
        return Fold(Node(std::move(n)));
      }
      case ExprKind::kAggregate:
      case ExprKind::kWindow: {
        FLOTILLA_ASSIGN_OR_RETURN(auto args, BindAll(e->children(), 0));
        const bool aggregate = e->kind() == ExprKind::kAggregate;
        if (aggregate) FLOTILLA_RETURN_NOT_OK(DecodeAll(&args));
        // The result type is decided by the operator that evaluates it.
        BoundNode n{aggregate ? BoundKind::kAggregate : BoundKind::kWindow, null(),
                    std::move(args)};
        n.name = e->name();
        n.text = text;
        return Node(std::move(n));
      }
    }
    return Status::Internal("unknown expression kind");
  }

 private:
  Result<std::vector<BoundPtr>> BindAll(const std::vector<ExprPtr>& exprs, size_t from) {
    std::vector<BoundPtr> out;
    for (size_t i = from; i < exprs.size(); ++i) {
      FLOTILLA_ASSIGN_OR_RETURN(BoundPtr b, Bind(exprs[i]));
      out.push_back(std::move(b));
    }
    return out;
  }

  // A literal-only subtree is evaluated now, so each batch sees a constant. One that fails
  // (CAST(500000000000 AS INTEGER)) stays as it is unless `strict`: it fails only if a row
  // evaluates it, which under CASE WHEN, or over no rows, none may.
  Result<BoundPtr> Fold(BoundPtr node, bool strict = false) {
    if (node->kind == BoundKind::kCall && node->function->is_volatile) return node;
    for (const BoundPtr& c : node->children) {
      if (c->kind != BoundKind::kLiteral) return node;
    }
    static const SchemaPtr kNoColumns = std::make_shared<Schema>(std::vector<Field>{});
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch one_row, RecordBatch::Make(kNoColumns, {}, 1));
    Result<Datum> value = Evaluate(*node, one_row);
    if (!value.ok()) return strict ? value.status() : Result<BoundPtr>(std::move(node));
    FLOTILLA_ASSIGN_OR_RETURN(Array column, value->ToColumn(1));
    return MakeBoundLiteral(column.Slice(0, 1), node->text);
  }

  Result<BoundPtr> CastTo(BoundPtr input, const TypePtr& type, bool safe, const std::string& text,
                          bool strict = false) {
    if (input->type->Equals(*type)) return input;
    if (!compute::CanCast(*input->type, *type)) {
      return Status::TypeError("cannot cast " + input->type->ToString() + " to " +
                               type->ToString() + In(text));
    }
    BoundNode n{BoundKind::kCast, type, {std::move(input)}};
    n.safe = safe;
    n.text = text;
    return Fold(Node(std::move(n)), strict);
  }

  // No kernel reads dictionary indices (comparison, arithmetic, the scalar functions, the
  // aggregates): a dictionary-encoded operand is decoded to its values first.
  Result<BoundPtr> Decoded(BoundPtr input) {
    if (input->type->id() != TypeId::kDictionary) return input;
    const TypePtr values = input->type->value_type();
    const std::string text = input->text;
    return CastTo(std::move(input), values, true, text);
  }

  Status DecodeAll(std::vector<BoundPtr>* args) {
    for (BoundPtr& arg : *args) {
      FLOTILLA_ASSIGN_OR_RETURN(arg, Decoded(std::move(arg)));
    }
    return Status::OK();
  }

  Result<BoundPtr> RequireBool(BoundPtr input, const char* op, const std::string& text) {
    FLOTILLA_ASSIGN_OR_RETURN(input, Decoded(std::move(input)));
    if (input->type->id() == TypeId::kNull) return CastTo(std::move(input), boolean(), true, text);
    if (input->type->id() != TypeId::kBool) {
      return Status::TypeError(std::string(op) + " expects bool operands, got " +
                               input->type->ToString() + " (`" + input->text + "`)" + In(text));
    }
    return input;
  }

  // Casts `*side` to `type`; a string literal becoming a date or timestamp that does not parse
  // is reported, when bound, as the comparison that needed it.
  Status CoerceSide(BoundPtr* side, const TypePtr& type, const BoundPtr& other,
                    const std::string& text) {
    if ((*side)->type->Equals(*type)) return Status::OK();
    auto cast = CastTo(*side, type, true, text, /*strict=*/true);
    if (!cast.ok()) {
      return Status::TypeError("cannot compare " + other->type->ToString() + " with " +
                               (*side)->type->ToString() + In(text) + ": " +
                               cast.status().message());
    }
    *side = cast.MoveValueUnsafe();
    return Status::OK();
  }

  // Brings a comparison's operands to types the kernel accepts.
  Status CoerceComparison(BoundPtr* left, BoundPtr* right, const std::string& text) {
    const DataType& l = *(*left)->type;
    const DataType& r = *(*right)->type;
    auto mismatch = [&] {
      return Status::TypeError("cannot compare " + l.ToString() + " with " + r.ToString() +
                               In(text));
    };
    if (l.is_date_or_timestamp() && r.is_string()) {
      if ((*right)->kind != BoundKind::kLiteral) return mismatch();
      return CoerceSide(right, (*left)->type, *left, text);
    }
    if (r.is_date_or_timestamp() && l.is_string()) {
      if ((*left)->kind != BoundKind::kLiteral) return mismatch();
      return CoerceSide(left, (*right)->type, *right, text);
    }
    // A date column against a timestamp constant at midnight compares as dates: the same
    // answer without converting every row, and the scan can still prune by date statistics.
    for (BoundPtr* date_side : {left, right}) {
      BoundPtr* other = date_side == left ? right : left;
      if ((*date_side)->type->id() != TypeId::kDate32 || (*other)->kind != BoundKind::kLiteral ||
          (*other)->type->id() != TypeId::kTimestamp || (*other)->literal.IsNull(0)) {
        continue;
      }
      const DataType& t = *(*other)->type;
      const int64_t per_day = t.unit() == TimeUnit::kSecond  ? 86400LL
                              : t.unit() == TimeUnit::kMilli ? 86400000LL
                              : t.unit() == TimeUnit::kMicro ? 86400000000LL
                                                             : 86400000000000LL;
      const int64_t v = (*other)->literal.values<int64_t>()[0];
      if (t.timezone().empty() && v % per_day == 0) {
        FLOTILLA_ASSIGN_OR_RETURN(*other, CastTo(*other, date32(), true, (*other)->text));
        return Status::OK();
      }
    }
    return CoerceNumeric(left, right, CoercionPurpose::kCompare, mismatch);
  }

  template <typename Mismatch>
  Status CoerceNumeric(BoundPtr* left, BoundPtr* right, CoercionPurpose purpose,
                       Mismatch mismatch) {
    const DataType& l = *(*left)->type;
    const DataType& r = *(*right)->type;
    const bool ld = l.id() == TypeId::kDecimal128, rd = r.id() == TypeId::kDecimal128;
    if ((ld && r.is_integer()) || (rd && l.is_integer())) {
      BoundPtr* integer_side = ld ? right : left;
      FLOTILLA_ASSIGN_OR_RETURN(
          *integer_side, CastTo(*integer_side, IntegerAsDecimal(*(*integer_side)->type), true,
                                (*integer_side)->text));
      return Status::OK();
    }
    if (ld && rd) return Status::OK();
    TypePtr common = CommonType((*left)->type, (*right)->type, purpose);
    if (common == nullptr) return mismatch();
    if (common->id() == TypeId::kNull) common = int64();
    FLOTILLA_ASSIGN_OR_RETURN(*left, CastTo(*left, common, true, (*left)->text));
    FLOTILLA_ASSIGN_OR_RETURN(*right, CastTo(*right, common, true, (*right)->text));
    return Status::OK();
  }

  Result<BoundPtr> BindOperator(BinaryOp op, BoundPtr left, BoundPtr right,
                                const std::string& text) {
    FLOTILLA_ASSIGN_OR_RETURN(left, Decoded(std::move(left)));
    FLOTILLA_ASSIGN_OR_RETURN(right, Decoded(std::move(right)));
    if (IsLogic(op)) {
      const char* name = op == BinaryOp::kAnd ? "AND" : "OR";
      FLOTILLA_ASSIGN_OR_RETURN(left, RequireBool(std::move(left), name, text));
      FLOTILLA_ASSIGN_OR_RETURN(right, RequireBool(std::move(right), name, text));
    } else if (IsComparison(op)) {
      FLOTILLA_RETURN_NOT_OK(CoerceComparison(&left, &right, text));
    } else {
      // date ± n days, n + date (as SQL engines do).
      const bool add_sub = op == BinaryOp::kAdd || op == BinaryOp::kSubtract;
      if (add_sub && left->type->id() == TypeId::kDate32 && right->type->is_integer()) {
        return CallFunction(op == BinaryOp::kAdd ? "date_add" : "date_sub",
                            {std::move(left), std::move(right),
                             MakeBoundLiteral(Literal(std::string("day"))->literal(), "'day'")},
                            text);
      }
      if (op == BinaryOp::kAdd && left->type->is_integer() &&
          right->type->id() == TypeId::kDate32) {
        return CallFunction("date_add",
                            {std::move(right), std::move(left),
                             MakeBoundLiteral(Literal(std::string("day"))->literal(), "'day'")},
                            text);
      }
      // timestamp - timestamp: an interval, as DuckDB's.
      if (op == BinaryOp::kSubtract && left->type->id() == TypeId::kTimestamp &&
          right->type->id() == TypeId::kTimestamp) {
        return CallFunction("time_between", {std::move(left), std::move(right)}, text);
      }
      const bool dates = op == BinaryOp::kSubtract && left->type->id() == TypeId::kDate32 &&
                         right->type->id() == TypeId::kDate32;
      if (!dates) {
        FLOTILLA_RETURN_NOT_OK(CoerceNumeric(&left, &right, CoercionPurpose::kArithmetic, [&] {
          return Status::TypeError(std::string("cannot apply ") + BinaryOpSymbol(op) + " to " +
                                   left->type->ToString() + " and " + right->type->ToString() +
                                   In(text));
        }));
        if (!left->type->is_numeric() && left->type->id() != TypeId::kDecimal128) {
          return Status::TypeError(std::string("cannot apply ") + BinaryOpSymbol(op) + " to " +
                                   left->type->ToString() + " and " + right->type->ToString() +
                                   In(text));
        }
      }
    }
    const bool null_operand = IsNullLiteral(*left) || IsNullLiteral(*right);
    FLOTILLA_ASSIGN_OR_RETURN(
        BoundPtr call,
        CallFunction(BinaryOpFunctionName(op), {std::move(left), std::move(right)}, text));
    // Arithmetic and comparison with a NULL constant are NULL whatever the other side holds:
    // the other side is not evaluated at all (so `NULL / (-x)` cannot fail on an overflow).
    if (null_operand && !IsLogic(op) && call->kind != BoundKind::kLiteral) {
      FLOTILLA_ASSIGN_OR_RETURN(Array null_value, Array::MakeNull(call->type, 1));
      return MakeBoundLiteral(std::move(null_value), text);
    }
    return call;
  }

  static bool IsNullLiteral(const BoundNode& node) {
    return node.kind == BoundKind::kLiteral && node.literal.IsNull(0);
  }

  Result<BoundPtr> CallFunction(const std::string& name, std::vector<BoundPtr> args,
                                const std::string& text) {
    FLOTILLA_ASSIGN_OR_RETURN(const ScalarFunction* f, DefaultRegistry().Find(name));
    const int n = static_cast<int>(args.size());
    if (n < f->min_args || (f->max_args >= 0 && n > f->max_args)) {
      std::string expected = std::to_string(f->min_args);
      if (f->max_args != f->min_args) {
        expected += f->max_args < 0 ? " or more" : " to " + std::to_string(f->max_args);
      }
      return Status::TypeError(f->name + "() takes " + expected + " argument" +
                               (f->min_args == 1 && f->max_args == 1 ? "" : "s") + ", got " +
                               std::to_string(n) + In(text));
    }
    FLOTILLA_RETURN_NOT_OK(DecodeAll(&args));
    if (f->unify_arguments) FLOTILLA_RETURN_NOT_OK(Unify(&args, 0, 1, f->name.c_str(), text));
    Result<TypePtr> type = ResolveCall(*f, args);
    if (!type.ok()) {
      FLOTILLA_ASSIGN_OR_RETURN(bool retyped, TypeUntypedNulls(*f, &args));
      if (retyped) {
        type = ResolveCall(*f, args);
      }
    }
    if (!type.ok()) {
      // Last tries, as DuckDB converts: decimals to float64 for functions that take floats
      // (sqrt, pow, ln, ...), and any value to a string for concat.
      FLOTILLA_ASSIGN_OR_RETURN(std::vector<BoundPtr> retry, ImplicitRetry(*f, args));
      if (!retry.empty()) {
        Result<TypePtr> again = ResolveCall(*f, retry);
        if (again.ok()) {
          type = std::move(again);
          args = std::move(retry);
        }
      }
    }
    if (!type.ok()) {
      // Most resolve messages already start with "f()"; the rest get the name in front.
      const std::string& message = type.status().message();
      const std::string prefix = f->name + "()";
      return Status(type.status().code(),
                    (message.rfind(prefix, 0) == 0 ? message : prefix + ": " + message) + In(text));
    }
    BoundNode node{BoundKind::kCall, *type, std::move(args)};
    node.function = f;
    node.name = f->name;
    node.text = text;
    return Fold(Node(std::move(node)));
  }

  // The arguments with decimals as float64 (or, for concat, non-strings as strings); empty when
  // nothing would change.
  Result<std::vector<BoundPtr>> ImplicitRetry(const ScalarFunction& f,
                                              const std::vector<BoundPtr>& args) {
    const bool to_string = f.name == "concat" || f.name == "concat_ws";
    std::vector<BoundPtr> out = args;
    bool changed = false;
    for (BoundPtr& a : out) {
      const TypeId id = a->type->id();
      if (to_string && id != TypeId::kString && id != TypeId::kLargeString && id != TypeId::kNull) {
        FLOTILLA_ASSIGN_OR_RETURN(a, CastTo(a, utf8(), true, a->text));
        changed = true;
      } else if (!to_string && id == TypeId::kDecimal128) {
        FLOTILLA_ASSIGN_OR_RETURN(a, CastTo(a, float64(), true, a->text));
        changed = true;
      }
    }
    if (!changed) out.clear();
    return out;
  }

  static Result<TypePtr> ResolveCall(const ScalarFunction& f, const std::vector<BoundPtr>& args) {
    std::vector<TypePtr> types;
    std::vector<Array> literals;
    for (const BoundPtr& a : args) {
      types.push_back(a->type);
      literals.push_back(a->kind == BoundKind::kLiteral ? a->literal : Array());
    }
    return f.Resolve(types, literals);
  }

  // \brief An untyped NULL argument the function rejects takes the first type, in a fixed order,
  // with which the call resolves.
  //
  // f(NULL, ...) of every such function (temporal, math, ...) is NULL, so any accepted type gives
  // the same rows; the order only decides the result type. Candidates: the types of the other
  // arguments (in order), then utf8, float64, int64, date32, timestamp[us], bool. With several
  // null arguments the combinations are tried in order, the first argument varying slowest
  // (so all-the-same comes first); beyond kMaxNullArguments only all-the-same is tried.
  // Returns whether a combination resolved; `*args` is then cast to it.
  Result<bool> TypeUntypedNulls(const ScalarFunction& f, std::vector<BoundPtr>* args) {
    constexpr size_t kMaxNullArguments = 3;
    std::vector<size_t> nulls;
    std::vector<TypePtr> candidates;
    auto add_candidate = [&](const TypePtr& t) {
      for (const TypePtr& c : candidates) {
        if (c->Equals(*t)) return;
      }
      candidates.push_back(t);
    };
    for (size_t i = 0; i < args->size(); ++i) {
      if ((*args)[i]->type->id() == TypeId::kNull) {
        nulls.push_back(i);
      } else {
        add_candidate((*args)[i]->type);
      }
    }
    if (nulls.empty()) return false;
    for (const TypePtr& t :
         {utf8(), float64(), int64(), date32(), timestamp(TimeUnit::kMicro), boolean()}) {
      add_candidate(t);
    }
    // cast[k][c]: null argument k cast to candidate c (a folded typed null for a literal).
    std::vector<std::vector<BoundPtr>> cast(nulls.size());
    for (size_t k = 0; k < nulls.size(); ++k) {
      const BoundPtr& arg = (*args)[nulls[k]];
      for (const TypePtr& c : candidates) {
        FLOTILLA_ASSIGN_OR_RETURN(BoundPtr b, CastTo(arg, c, true, arg->text));
        cast[k].push_back(std::move(b));
      }
    }
    std::vector<BoundPtr> trial = *args;
    auto try_choice = [&](const std::vector<size_t>& choice) {
      for (size_t k = 0; k < nulls.size(); ++k)
        trial[nulls[k]] = cast[k][choice[k]];
      return ResolveCall(f, trial).ok();
    };
    std::vector<size_t> choice(nulls.size(), 0);
    for (size_t c = 0; c < candidates.size(); ++c) {
      std::fill(choice.begin(), choice.end(), c);
      if (try_choice(choice)) {
        *args = trial;
        return true;
      }
    }
    if (nulls.size() < 2 || nulls.size() > kMaxNullArguments) return false;
    // Every combination in order, as an odometer whose last digit turns fastest.
    std::fill(choice.begin(), choice.end(), 0);
    while (true) {
      if (try_choice(choice)) {
        *args = trial;
        return true;
      }
      size_t k = nulls.size();
      while (k > 0 && ++choice[k - 1] == candidates.size()) {
        choice[k - 1] = 0;
        --k;
      }
      if (k == 0) return false;
    }
  }

  Result<BoundPtr> BindCall(const ExprPtr& e, const std::string& text) {
    if (IsLambdaFunction(e->name())) return BindLambda(e, text);
    FLOTILLA_ASSIGN_OR_RETURN(auto args, BindAll(e->children(), 0));
    // a || b of lists (SQL's || is concat).
    if (e->name() == "concat" && args.size() == 2 &&
        (args[0]->type->id() == TypeId::kList || args[1]->type->id() == TypeId::kList)) {
      return CallFunction("list_concat", std::move(args), text);
    }
    // Operators called by name get the same coercions as the operator syntax.
    for (int op = 0; op <= static_cast<int>(BinaryOp::kOr); ++op) {
      if (args.size() == 2 && e->name() == BinaryOpFunctionName(static_cast<BinaryOp>(op))) {
        return BindOperator(static_cast<BinaryOp>(op), args[0], args[1], text);
      }
    }
    return CallFunction(e->name(), std::move(args), text);
  }

  // list_transform(list, body, 'element'[, 'position']) / list_filter(...) /
  // list_reduce(list, body, 'acc', 'element'[, 'position']) / list_reduce_from(list, body,
  // initial, names...): the body is bound against this binder's columns followed by the
  // parameters (see the SQL planner's lambdas); the evaluator supplies every parameter, used
  // or not, in that order.
  Result<BoundPtr> BindLambda(const ExprPtr& e, const std::string& text) {
    const auto& c = e->children();
    const std::string& name = e->name();
    const bool reduce = name == "list_reduce" || name == "list_reduce_from";
    const size_t names_from = name == "list_reduce_from" ? 3 : 2;
    const size_t min_params = reduce ? 2 : 1;
    const bool shaped =
        c.size() >= names_from + min_params && c.size() <= names_from + min_params + 1 &&
        std::all_of(c.begin() + names_from, c.end(), [](const ExprPtr& p) {
          return p->kind() == ExprKind::kLiteral && p->literal().type()->is_string();
        });
    if (!shaped) {
      return Status::TypeError(name + "() takes a list and a lambda: " + name +
                               (reduce ? "(l, (acc, x) -> ...)" : "(l, x -> ...)") + In(text));
    }
    FLOTILLA_ASSIGN_OR_RETURN(BoundPtr list, Bind(c[0]));
    FLOTILLA_ASSIGN_OR_RETURN(list, Decoded(std::move(list)));
    if (list->type->id() == TypeId::kNull) {
      FLOTILLA_ASSIGN_OR_RETURN(list, CastTo(std::move(list), flotilla::list(null()), true, text));
    }
    if (list->type->id() != TypeId::kList) {
      return Status::TypeError(name + "() needs a list, got " + list->type->ToString() + In(text));
    }
    const TypePtr element = list->type->fields()[0].type;
    std::vector<TypePtr> param_types = {element, int64()};
    if (reduce) param_types = {element, element, int64()};
    std::vector<Field> fields = schema_.fields();
    for (size_t k = names_from; k < c.size(); ++k) {
      fields.push_back(
          {std::string(c[k]->literal().GetView(0)), param_types[k - names_from], true});
    }
    const Schema scope(std::move(fields));
    FLOTILLA_ASSIGN_OR_RETURN(BoundPtr body, Binder(scope).Bind(c[1]));
    std::vector<BoundPtr> children;
    TypePtr type;
    if (name == "list_filter") {
      // As DuckDB's: a number keeps its element when it is not zero.
      if (body->type->is_numeric()) {
        FLOTILLA_ASSIGN_OR_RETURN(body, CastTo(std::move(body), boolean(), true, text));
      }
      FLOTILLA_ASSIGN_OR_RETURN(body, RequireBool(std::move(body), "list_filter", text));
      type = list->type;
    } else if (reduce) {
      // The accumulator keeps the element's type, as DuckDB's.
      FLOTILLA_ASSIGN_OR_RETURN(body, CastTo(std::move(body), element, true, text));
      type = element;
    } else {
      type = flotilla::list(body->type);
    }
    children = {std::move(list), std::move(body)};
    if (name == "list_reduce_from") {
      FLOTILLA_ASSIGN_OR_RETURN(BoundPtr initial, Bind(c[2]));
      FLOTILLA_ASSIGN_OR_RETURN(initial, CastTo(std::move(initial), element, true, text));
      children.push_back(std::move(initial));
    }
    BoundNode n{BoundKind::kLambda, type, std::move(children)};
    n.column_index = schema_.num_fields();
    n.name = name;
    n.text = text;
    return Node(std::move(n));
  }

  // Casts args[from], args[from + step], ... to one common type.
  Status Unify(std::vector<BoundPtr>* args, size_t from, size_t step, const char* what,
               const std::string& text) {
    for (size_t i = from; i < args->size(); i += step) {
      FLOTILLA_ASSIGN_OR_RETURN((*args)[i], Decoded(std::move((*args)[i])));
    }
    TypePtr common = null();
    for (size_t i = from; i < args->size(); i += step) {
      TypePtr next = CommonType(common, (*args)[i]->type, CoercionPurpose::kUnify);
      if (next == nullptr) {
        return Status::TypeError(std::string(what) + " mixes " + common->ToString() + " and " +
                                 (*args)[i]->type->ToString() + In(text));
      }
      common = next;
    }
    for (size_t i = from; i < args->size(); i += step) {
      FLOTILLA_ASSIGN_OR_RETURN((*args)[i], CastTo((*args)[i], common, true, text));
    }
    return Status::OK();
  }

  Result<BoundPtr> BindCase(const ExprPtr& e, const std::string& text) {
    FLOTILLA_ASSIGN_OR_RETURN(auto args, BindAll(e->children(), 0));
    if (!e->has_else())
      args.push_back(MakeBoundLiteral(Array::MakeNull(null(), 1).ValueOrDie(), "NULL"));
    for (size_t i = 0; i + 1 < args.size(); i += 2) {
      FLOTILLA_ASSIGN_OR_RETURN(args[i], RequireBool(args[i], "CASE WHEN", text));
    }
    // Values are at odd positions and the last one (ELSE).
    std::vector<BoundPtr> values;
    for (size_t i = 1; i < args.size(); i += 2)
      values.push_back(args[i]);
    values.push_back(args.back());
    FLOTILLA_RETURN_NOT_OK(Unify(&values, 0, 1, "CASE", text));
    for (size_t i = 1, v = 0; i < args.size(); i += 2, ++v)
      args[i] = values[v];
    args.back() = values.back();
    BoundNode n{BoundKind::kCase, values[0]->type, std::move(args)};
    n.text = text;
    return Fold(Node(std::move(n)));
  }

  Result<BoundPtr> BindIsIn(const ExprPtr& e, const std::string& text) {
    FLOTILLA_ASSIGN_OR_RETURN(auto args, BindAll(e->children(), 0));
    FLOTILLA_RETURN_NOT_OK(DecodeAll(&args));
    for (size_t i = 1; i < args.size(); ++i) {
      if (args[i]->kind != BoundKind::kLiteral) {
        return Status::TypeError("IN list values must be constants, got `" + args[i]->text + "`" +
                                 In(text));
      }
      FLOTILLA_RETURN_NOT_OK(CoerceComparison(&args[0], &args[i], text));
    }
    // A second pass: the value may have been widened by a later list element.
    for (size_t i = 1; i < args.size(); ++i) {
      FLOTILLA_RETURN_NOT_OK(CoerceComparison(&args[0], &args[i], text));
    }
    BoundNode n{BoundKind::kIsIn, boolean(), std::move(args)};
    n.negated = e->negated();
    n.text = text;
    return Fold(Node(std::move(n)));
  }

  const Schema& schema_;
};

std::string OutputName(const ExprPtr& e) {
  if (e->kind() == ExprKind::kAlias || e->kind() == ExprKind::kColumn) return e->name();
  return e->ToString();
}

}  // namespace

BoundPtr MakeBoundLiteral(Array one_value, std::string text) {
  BoundNode n{BoundKind::kLiteral, one_value.type()};
  n.literal = std::move(one_value);
  n.text = std::move(text);
  return Node(std::move(n));
}

Result<BoundExpression> Bind(const ExprPtr& expression, const Schema& schema) {
  FLOTILLA_RETURN_NOT_OK(CheckExpressionDepth(*expression));
  FLOTILLA_ASSIGN_OR_RETURN(BoundPtr root, Binder(schema).Bind(expression));
  return BoundExpression{std::move(root), OutputName(expression)};
}

}  // namespace flotilla::expr
