#pragma once
// Random expressions for the differential test, built twice from one template: as our
// expression tree and as DuckDB SQL with the same meaning. Where the two engines name or define
// a function differently, the template's SQL spells out our definition in DuckDB's terms
// (0-based list indices, null-propagating clip, regexp_extract's null on no match).

#include <functional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "flotilla/expr/expression.h"
#include "flotilla/types/schema.h"

namespace flotilla::diff {

/// The value kinds a template takes and returns. Leaves of a kind are the table's columns of
/// that kind (see dataset.h) or literals.
enum class Kind {
  kInt,
  kSignedInt,  // signed integer columns only (negation: DuckDB wraps unsigned values around)
  kFloat,
  kDouble,  // float64 only (DuckDB meets decimal with float at float32, we at float64)
  kDecimal,
  kString,
  kBool,
  kDate,
  kTimestamp,
  kListInt,
  kListString,
  kStruct,
  kConst,  // a constant argument chosen from the template's list (unit names, patterns, ...)
};

/// A constant argument: our literal and DuckDB's text for it.
struct Constant {
  expr::ExprPtr ours;
  std::string sql;
};

struct Arg {
  Kind kind;
  std::vector<Constant> constants;  // for Kind::kConst: one is picked at random
  bool literal = false;             // a literal of `kind` rather than any expression
};

struct Template {
  std::string family;
  Kind result;
  std::vector<Arg> args;
  std::function<expr::ExprPtr(const std::vector<expr::ExprPtr>&)> ours;
  std::string sql;  // "{0}", "{1}", ... stand for the arguments' SQL (no other "{digit}")
  /// Replaces `sql` when the SQL depends on the arguments' types: gets our arguments bound
  /// against the table's schema (nullptr where binding fails) and the arguments' SQL.
  std::function<std::string(const std::vector<TypePtr>&, const std::vector<std::string>&)>
      sql_for_types;
  /// DuckDB computes this one in floating point where we are exact (decimal division).
  bool inexact = false;
};

struct GeneratedExpr {
  std::string family;
  expr::ExprPtr ours;
  std::string sql;
  bool inexact = false;  // a template below is inexact in DuckDB: compare decimals as numbers
};

class ExprGenerator {
 public:
  explicit ExprGenerator(std::mt19937_64* rng);

  /// The template families, in a fixed order.
  std::vector<std::string> Families() const;
  /// A random expression over `schema` whose root comes from `family`; arguments nest up to
  /// `depth` levels.
  GeneratedExpr Generate(const std::string& family, int depth, const Schema& schema);

 private:
  GeneratedExpr Build(const Template& t, int depth);
  GeneratedExpr Gen(Kind kind, int depth);
  GeneratedExpr Leaf(Kind kind, bool literal);
  bool Chance(int percent) { return static_cast<int>((*rng_)() % 100) < percent; }

  std::mt19937_64* rng_;
  const Schema* schema_ = nullptr;  // of the table being generated for
  std::vector<Template> templates_;
};

}  // namespace flotilla::diff
