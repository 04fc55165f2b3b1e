#include "flotilla/io/parquet/statistics.h"

#include <cstring>
#include <variant>

#include "flotilla/columnar/decimal.h"
#include "flotilla/compute/cast.h"

namespace flotilla::io::parquet {

namespace {

// A value in a form that compares in the column's order.
using Value = std::variant<Int128, double, std::string>;

bool SignedOrderIsColumnOrder(const ColumnDescriptor& c) {
  switch (*c.element.type) {
    case PhysicalType::kInt32:
    case PhysicalType::kInt64:
      return !(c.type->is_integer() && !c.type->is_signed_integer());
    case PhysicalType::kFloat:
    case PhysicalType::kDouble:
    case PhysicalType::kBoolean:
      return true;
    default:
      return false;
  }
}

// A plain-encoded statistics value of `c`, or nullopt when it cannot be compared.
std::optional<Value> FromStat(const ColumnDescriptor& c, const std::string& bytes) {
  const TypeId id = c.type->id();
  auto load = [&](auto v) -> std::optional<decltype(v)> {
    if (bytes.size() != sizeof(v)) return std::nullopt;
    std::memcpy(&v, bytes.data(), sizeof(v));
    return v;
  };
  switch (*c.element.type) {
    case PhysicalType::kBoolean:
      if (bytes.size() != 1) return std::nullopt;
      return Value(Int128(bytes[0] != 0));
    case PhysicalType::kInt32: {
      auto v = load(int32_t{});
      if (!v) return std::nullopt;
      if (id == TypeId::kUInt8 || id == TypeId::kUInt16 || id == TypeId::kUInt32)
        return Value(Int128(static_cast<uint32_t>(*v)));
      return Value(Int128(*v));
    }
    case PhysicalType::kInt64: {
      auto v = load(int64_t{});
      if (!v) return std::nullopt;
      if (id == TypeId::kUInt64) return Value(Int128(static_cast<uint64_t>(*v)));
      return Value(Int128(*v));
    }
    case PhysicalType::kFloat: {
      auto v = load(float{});
      if (!v || *v != *v) return std::nullopt;
      return Value(double(*v));
    }
    case PhysicalType::kDouble: {
      auto v = load(double{});
      if (!v || *v != *v) return std::nullopt;
      return Value(*v);
    }
    case PhysicalType::kByteArray:
    case PhysicalType::kFixedLenByteArray:
      if (id == TypeId::kDecimal128) {
        if (bytes.empty() || bytes.size() > 16) return std::nullopt;
        unsigned __int128 v = (bytes[0] & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
        for (unsigned char b : bytes)
          v = (v << 8) | b;
        return Value(static_cast<Int128>(v));
      }
      if (id == TypeId::kString || id == TypeId::kBinary || id == TypeId::kFixedSizeBinary)
        return Value(bytes);
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

// The literal as a Value of the column's type, or nullopt when it does not convert exactly.
std::optional<Value> FromLiteral(const ColumnDescriptor& c, const Array& literal) {
  if (literal.length() != 1 || literal.IsNull(0)) return std::nullopt;
  Array v = literal;
  if (!v.type()->Equals(*c.type)) {
    auto cast = compute::Cast(literal, c.type);
    if (!cast.ok()) return std::nullopt;
    v = *cast;
    // A lossy conversion (3.5 to an integer column) would prune wrongly: round-trip it.
    auto back = compute::Cast(v, literal.type());
    if (!back.ok() || !back->Equals(literal)) return std::nullopt;
  }
  if (v.IsNull(0)) return std::nullopt;
  switch (v.type_id()) {
    case TypeId::kBool:
      return Value(Int128(v.BoolValue(0)));
    case TypeId::kInt8:
      return Value(Int128(v.values<int8_t>()[0]));
    case TypeId::kInt16:
      return Value(Int128(v.values<int16_t>()[0]));
    case TypeId::kInt32:
    case TypeId::kDate32:
      return Value(Int128(v.values<int32_t>()[0]));
    case TypeId::kInt64:
    case TypeId::kTimestamp:
      return Value(Int128(v.values<int64_t>()[0]));
    case TypeId::kUInt8:
      return Value(Int128(v.values<uint8_t>()[0]));
    case TypeId::kUInt16:
      return Value(Int128(v.values<uint16_t>()[0]));
    case TypeId::kUInt32:
      return Value(Int128(v.values<uint32_t>()[0]));
    case TypeId::kUInt64:
      return Value(Int128(v.values<uint64_t>()[0]));
    case TypeId::kFloat32:
      return Value(double(v.values<float>()[0]));
    case TypeId::kFloat64:
      return Value(v.values<double>()[0]);
    case TypeId::kDecimal128:
      return Value(v.values<Int128>()[0]);
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kFixedSizeBinary:
      return Value(std::string(v.GetView(0)));
    default:
      return std::nullopt;
  }
}

struct Range {
  std::optional<Value> min, max;
  bool all_null = false;
  bool floating = false;
};

std::optional<Range> ColumnRange(const expr::ExprPtr& e, const StatsLookup& lookup,
                                 const ColumnDescriptor** column) {
  if (e->kind() != expr::ExprKind::kColumn) return std::nullopt;
  auto stats = lookup(e->name());
  if (!stats || stats->column == nullptr) return std::nullopt;
  *column = stats->column;
  Range r;
  r.floating = stats->column->type->is_floating();
  r.all_null = stats->null_count && *stats->null_count == stats->num_rows && stats->num_rows > 0;
  if (stats->min) r.min = FromStat(*stats->column, *stats->min);
  if (stats->max) r.max = FromStat(*stats->column, *stats->max);
  return r;
}

expr::BinaryOp Flip(expr::BinaryOp op) {
  using B = expr::BinaryOp;
  switch (op) {
    case B::kLess:
      return B::kGreater;
    case B::kLessEqual:
      return B::kGreaterEqual;
    case B::kGreater:
      return B::kLess;
    case B::kGreaterEqual:
      return B::kLessEqual;
    default:
      return op;
  }
}

// May `column OP literal` hold for a value in `r`?
bool CompareMayMatch(const Range& r, expr::BinaryOp op, const Value& lit) {
  using B = expr::BinaryOp;
  if (r.all_null) return false;  // comparisons with null are never true
  const bool has_min = r.min && r.min->index() == lit.index();
  // NaN sorts above every number in the engine but is left out of statistics: a float column's
  // maximum bounds nothing from above.
  const bool has_max = r.max && r.max->index() == lit.index() && !r.floating;
  const bool max_for_equal = r.max && r.max->index() == lit.index();
  switch (op) {
    case B::kEqual:
      if (has_min && lit < *r.min) return false;
      if (max_for_equal && *r.max < lit) return false;
      return true;
    case B::kLess:
      return !(has_min && !(*r.min < lit));
    case B::kLessEqual:
      return !(has_min && lit < *r.min);
    case B::kGreater:
      return !(has_max && !(lit < *r.max));
    case B::kGreaterEqual:
      return !(has_max && *r.max < lit);
    default:
      return true;
  }
}

}  // namespace

ColumnStats ChunkStats(const ColumnDescriptor& column, const Statistics& s, int64_t num_rows) {
  ColumnStats out;
  out.column = &column;
  out.num_rows = num_rows;
  out.null_count = s.null_count;
  if (s.min_value && s.max_value) {
    out.min = s.min_value;
    out.max = s.max_value;
  } else if (s.min && s.max && SignedOrderIsColumnOrder(column)) {
    out.min = s.min;
    out.max = s.max;
  }
  return out;
}

bool MayMatch(const expr::ExprPtr& e, const StatsLookup& stats) {
  using K = expr::ExprKind;
  using B = expr::BinaryOp;
  switch (e->kind()) {
    case K::kBinary: {
      const B op = e->binary_op();
      if (op == B::kAnd)
        return MayMatch(e->children()[0], stats) && MayMatch(e->children()[1], stats);
      if (op == B::kOr)
        return MayMatch(e->children()[0], stats) || MayMatch(e->children()[1], stats);
      if (op != B::kEqual && op != B::kLess && op != B::kLessEqual && op != B::kGreater &&
          op != B::kGreaterEqual)
        return true;
      expr::ExprPtr col = e->children()[0], lit = e->children()[1];
      B effective = op;
      if (col->kind() == K::kLiteral) {
        std::swap(col, lit);
        effective = Flip(op);
      }
      if (lit->kind() != K::kLiteral) return true;
      const ColumnDescriptor* column = nullptr;
      auto range = ColumnRange(col, stats, &column);
      if (!range) return true;
      if (lit->literal().length() == 1 && lit->literal().IsNull(0)) return false;
      auto value = FromLiteral(*column, lit->literal());
      if (!value) return true;
      return CompareMayMatch(*range, effective, *value);
    }
    case K::kBetween: {
      if (e->negated()) return true;
      const auto& c = e->children();
      if (c[1]->kind() != K::kLiteral || c[2]->kind() != K::kLiteral) return true;
      const ColumnDescriptor* column = nullptr;
      auto range = ColumnRange(c[0], stats, &column);
      if (!range) return true;
      auto lo = FromLiteral(*column, c[1]->literal());
      auto hi = FromLiteral(*column, c[2]->literal());
      if (lo && !CompareMayMatch(*range, B::kGreaterEqual, *lo)) return false;
      if (hi && !CompareMayMatch(*range, B::kLessEqual, *hi)) return false;
      return true;
    }
    case K::kIsIn: {
      if (e->negated()) return true;
      const auto& c = e->children();
      const ColumnDescriptor* column = nullptr;
      auto range = ColumnRange(c[0], stats, &column);
      if (!range) return true;
      for (size_t i = 1; i < c.size(); ++i) {
        if (c[i]->kind() != K::kLiteral) return true;
        auto v = FromLiteral(*column, c[i]->literal());
        if (!v || CompareMayMatch(*range, B::kEqual, *v)) return true;
      }
      return false;
    }
    case K::kIsNull: {
      if (e->children()[0]->kind() != K::kColumn) return true;
      auto s = stats(e->children()[0]->name());
      if (!s || !s->null_count) return true;
      if (e->negated()) return *s->null_count < s->num_rows;
      return *s->null_count > 0;
    }
    default:
      return true;
  }
}

}  // namespace flotilla::io::parquet
