// Expressions: immutable trees built from Python (the Python Expression class wraps one).
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings.h"
#include "convert.h"
#include "flotilla/expr/expression.h"
#include "flotilla/expr/rewrite.h"

namespace flotilla::python {

using expr::ExprPtr;

namespace {

ExprPtr LiteralOf(const py::handle& v) {
  if (v.is_none()) return expr::NullLiteral(null());
  if (py::isinstance<py::bool_>(v)) return expr::Literal(v.cast<bool>());
  if (py::isinstance<py::int_>(v)) {
    int overflow = 0;
    const long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
    if (overflow)
      throw py::value_error("integer literal out of int64 range: " +
                            py::repr(v).cast<std::string>());
    return expr::Literal(static_cast<int64_t>(x));
  }
  if (py::isinstance<py::float_>(v)) return expr::Literal(v.cast<double>());
  if (py::isinstance<py::str>(v)) return expr::Literal(v.cast<std::string>());
  py::list one;
  one.append(v);
  Array array = Check(ToArray(one));
  return expr::Literal(array);
}

expr::BinaryOp BinaryOpOf(const std::string& op) {
  static const std::map<std::string, expr::BinaryOp> ops = {
      {"add", expr::BinaryOp::kAdd},         {"sub", expr::BinaryOp::kSubtract},
      {"mul", expr::BinaryOp::kMultiply},    {"div", expr::BinaryOp::kDivide},
      {"floordiv", expr::BinaryOp::kIntDiv}, {"mod", expr::BinaryOp::kMod},
      {"eq", expr::BinaryOp::kEqual},        {"ne", expr::BinaryOp::kNotEqual},
      {"lt", expr::BinaryOp::kLess},         {"le", expr::BinaryOp::kLessEqual},
      {"gt", expr::BinaryOp::kGreater},      {"ge", expr::BinaryOp::kGreaterEqual},
      {"and", expr::BinaryOp::kAnd},         {"or", expr::BinaryOp::kOr},
  };
  auto it = ops.find(op);
  if (it == ops.end()) throw py::value_error("unknown operator " + op);
  return it->second;
}

}  // namespace

void BindExpressions(py::module_& m) {
  // Expressions: immutable trees; the Python Expression class wraps one.
  py::class_<expr::Expression, std::shared_ptr<expr::Expression>>(m, "Expr")
      .def("__repr__", &expr::Expression::ToString)
      .def("name",
           [](const expr::Expression& e) {
             return e.kind() == expr::ExprKind::kColumn || e.kind() == expr::ExprKind::kAlias
                        ? e.name()
                        : e.ToString();
           })
      .def("columns", [](const std::shared_ptr<expr::Expression>& e) {
        auto names = expr::Columns(e);
        return std::vector<std::string>(names.begin(), names.end());
      });
  // Every expression the Python API builds: deeper trees than any pass may recurse on are
  // refused where they are made, with the chain still short enough to unwind.
  auto cast_expr = [](ExprPtr e) {
    Check(expr::CheckExpressionDepth(*e));
    return std::const_pointer_cast<expr::Expression>(e);
  };
  using E = std::shared_ptr<expr::Expression>;
  m.def("col", [=](const std::string& name) { return cast_expr(expr::Column(name)); });
  m.def("lit", [=](py::object v) { return cast_expr(LiteralOf(v)); });
  m.def("alias", [=](E e, const std::string& name) { return cast_expr(expr::Alias(e, name)); });
  m.def("cast", [=](E e, py::object type, bool try_cast) {
    TypePtr t = TypeOf(type);
    return cast_expr(try_cast ? expr::TryCast(e, t) : expr::Cast(e, t));
  });
  m.def("binary", [=](const std::string& op, E a, E b) {
    return cast_expr(expr::Binary(BinaryOpOf(op), a, b));
  });
  m.def("negate", [=](E e) { return cast_expr(expr::Negate(e)); });
  m.def("not_", [=](E e) { return cast_expr(expr::Not(e)); });
  m.def("call", [=](const std::string& name, std::vector<E> args) {
    return cast_expr(expr::Call(name, Exprs(args)));
  });
  m.def("aggregate", [=](const std::string& name, std::vector<E> args) {
    return cast_expr(expr::Aggregate(name, Exprs(args)));
  });
  m.def("is_null", [=](E e) { return cast_expr(expr::IsNull(e)); });
  m.def("not_null", [=](E e) { return cast_expr(expr::IsNotNull(e)); });
  m.def("is_in", [=](E e, py::list values) {
    std::vector<ExprPtr> lits;
    for (const py::handle v : values)
      lits.push_back(LiteralOf(v));
    return cast_expr(expr::IsIn(e, lits));
  });
  m.def("between", [=](E e, E lo, E hi) { return cast_expr(expr::Between(e, lo, hi)); });
  m.def("if_else", [=](E c, E a, E b) { return cast_expr(expr::IfElse(c, a, b)); });
  m.def("coalesce", [=](std::vector<E> args) { return cast_expr(expr::Coalesce(Exprs(args))); });
}

}  // namespace flotilla::python
