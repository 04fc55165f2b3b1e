#include <algorithm>
#include <array>
#include <cstdlib>
#include <string>

#include "flotilla/common/ascii.h"
#include "flotilla/sql/parser_internal.h"
#include "flotilla/sql/source_error.h"

namespace flotilla::sql::internal {

Result<QueryPtr> Parser::ParseQuery() {
  const int64_t start = Peek().offset;
  FLOTILLA_RETURN_NOT_OK(NestingAllowed(start));
  if (Keyword("summarize")) return Summarize(start);
  std::vector<CommonTable> with;
  if (Keyword("with")) {
    const bool recursive = Keyword("recursive");
    do {
      CommonTable cte;
      cte.recursive = recursive;
      cte.offset = Peek().offset;
      FLOTILLA_ASSIGN_OR_RETURN(cte.name, Identifier("a name for the WITH query"));
      if (Operator("(")) {
        FLOTILLA_ASSIGN_OR_RETURN(cte.column_aliases, IdentifierList());
      }
      FLOTILLA_RETURN_NOT_OK(ExpectKeyword("as"));
      Keyword("materialized");
      FLOTILLA_RETURN_NOT_OK(ExpectOperator("("));
      FLOTILLA_ASSIGN_OR_RETURN(cte.query, ParseQuery());
      FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
      with.push_back(std::move(cte));
    } while (Operator(","));
  }
  QueryPtr body;
  if (Peek().IsKeyword("pivot") || Peek().IsKeyword("unpivot")) {
    FLOTILLA_ASSIGN_OR_RETURN(body, Pivot());
  } else {
    FLOTILLA_ASSIGN_OR_RETURN(body, SetOperation(0));
  }
  auto q = std::make_shared<Query>(*body);
  q->offset = start;
  if (!with.empty()) {
    // WITH a AS (...) (WITH b AS (...) SELECT ...): b may use a.
    for (CommonTable& inner : q->with)
      with.push_back(std::move(inner));
    q->with = std::move(with);
  }
  if (Keywords("order", "by")) {
    if (Peek().IsKeyword("all")) {
      // DuckDB's ORDER BY ALL: every output column, left to right (a `*` item the planner
      // expands into ordinals), with one direction for all.
      OrderItem all;
      all.expr = Make(NodeKind::kStar, Next().offset);
      if (Keyword("desc")) {
        all.ascending = false;
      } else {
        Keyword("asc");
      }
      if (Keyword("nulls")) {
        if (Keyword("first")) {
          all.nulls_first = true;
        } else {
          FLOTILLA_RETURN_NOT_OK(ExpectKeyword("last"));
          all.nulls_first = false;
        }
      }
      q->order_by.push_back(std::move(all));
    } else {
      FLOTILLA_ASSIGN_OR_RETURN(q->order_by, OrderList());
    }
  }
  // LIMIT and OFFSET in either order.
  for (int i = 0; i < 2; ++i) {
    if (!q->limit && Keyword("limit")) {
      if (Keyword("all")) continue;
      FLOTILLA_ASSIGN_OR_RETURN(q->limit, Expr());
    } else if (!q->offset_rows && Keyword("offset")) {
      FLOTILLA_ASSIGN_OR_RETURN(q->offset_rows, Expr());
      if (!Keyword("rows")) Keyword("row");
    }
  }
  return QueryPtr(q);
}

Result<QueryPtr> Parser::SetOperation(int level) {
  FLOTILLA_ASSIGN_OR_RETURN(QueryPtr left, level == 0 ? SetOperation(1) : QueryTerm());
  while (true) {
    SetOpKind op;
    const int64_t at = Peek().offset;
    if (level == 0 && Keyword("union")) {
      op = SetOpKind::kUnion;
    } else if (level == 0 && Keyword("except")) {
      op = SetOpKind::kExcept;
    } else if (level == 1 && Keyword("intersect")) {
      op = SetOpKind::kIntersect;
    } else {
      return left;
    }
    const bool all = Keyword("all");
    if (!all) Keyword("distinct");
    const bool by_name = op == SetOpKind::kUnion && Keywords("by", "name");
    FLOTILLA_ASSIGN_OR_RETURN(QueryPtr right, level == 0 ? SetOperation(1) : QueryTerm());
    auto q = std::make_shared<Query>();
    q->kind = Query::kSetOp;
    q->offset = at;
    q->set_op = op;
    q->all = all;
    q->by_name = by_name;
    q->left = std::move(left);
    q->right = std::move(right);
    left = std::move(q);
  }
}

Result<QueryPtr> Parser::QueryTerm() {
  const int64_t at = Peek().offset;
  if (Operator("(")) {
    FLOTILLA_ASSIGN_OR_RETURN(QueryPtr inner, ParseQuery());
    FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
    return inner;
  }
  if (Keyword("values")) {
    auto q = std::make_shared<Query>();
    q->kind = Query::kValues;
    q->offset = at;
    do {
      FLOTILLA_RETURN_NOT_OK(ExpectOperator("("));
      std::vector<NodePtr> row;
      do {
        FLOTILLA_ASSIGN_OR_RETURN(NodePtr e, Expr());
        row.push_back(std::move(e));
      } while (Operator(","));
      FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
      q->values.push_back(std::move(row));
    } while (Operator(","));
    return QueryPtr(q);
  }
  auto core = std::make_shared<SelectCore>();
  if (Peek().IsKeyword("from")) {
    // DuckDB's FROM-first form: FROM t [SELECT ...]; without SELECT it is SELECT *.
    Next();
    FLOTILLA_RETURN_NOT_OK(FromList(core.get()));
    if (Keyword("select")) {
      FLOTILLA_RETURN_NOT_OK(SelectList(core.get()));
    } else {
      core->items.push_back({Make(NodeKind::kStar, at), ""});
    }
  } else {
    FLOTILLA_RETURN_NOT_OK(ExpectKeyword("select"));
    FLOTILLA_RETURN_NOT_OK(SelectList(core.get()));
    if (Keyword("from")) FLOTILLA_RETURN_NOT_OK(FromList(core.get()));
  }
  if (Keyword("where")) {
    FLOTILLA_ASSIGN_OR_RETURN(core->where, Expr());
  }
  if (Keywords("group", "by")) {
    if (Keyword("all")) {
      core->group_by_all = true;
    } else {
      FLOTILLA_RETURN_NOT_OK(GroupByList(core.get()));
    }
  }
  if (Keyword("having")) {
    FLOTILLA_ASSIGN_OR_RETURN(core->having, Expr());
  }
  if (Keyword("window")) {
    do {
      const Token& at_name = Peek();
      FLOTILLA_ASSIGN_OR_RETURN(std::string name, Identifier("a window name"));
      FLOTILLA_RETURN_NOT_OK(ExpectKeyword("as"));
      FLOTILLA_ASSIGN_OR_RETURN(auto spec, WindowSpecification());
      if (!core->windows.emplace(name, std::move(spec)).second) {
        return Error(at_name, "window '" + name + "' is defined twice");
      }
    } while (Operator(","));
  }
  if (Keyword("qualify")) {
    FLOTILLA_ASSIGN_OR_RETURN(core->qualify, Expr());
  }
  if (Peek().IsKeyword("using") && Peek(1).IsKeyword("sample")) {
    Next();
    Next();
    FLOTILLA_ASSIGN_OR_RETURN(core->sample, SampleClause());
  }
  auto q = std::make_shared<Query>();
  q->kind = Query::kSelect;
  q->offset = at;
  q->select = core;
  return QueryPtr(q);
}

// GROUP BY items: expressions, ROLLUP (...), CUBE (...) and GROUPING SETS ((...), ...). With any
// of the last three, the grouping sets are the cross product of each item's sets (a plain
// expression is one set of itself), as in PostgreSQL and DuckDB.
Status Parser::GroupByList(SelectCore* core) {
  std::vector<std::vector<std::vector<size_t>>> factors;
  bool sets = false;
  auto key = [&](NodePtr e) {
    core->group_by.push_back(std::move(e));
    return core->group_by.size() - 1;
  };
  // (a, b) or a or (): the positions of one set's keys.
  auto one_set = [&]() -> Result<std::vector<size_t>> {
    std::vector<size_t> set;
    if (Peek().IsOperator("(") && Peek(1).IsOperator(")")) {
      Next();
      Next();
      return set;
    }
    FLOTILLA_ASSIGN_OR_RETURN(NodePtr e, Expr());
    if (e->kind == NodeKind::kRow) {
      for (const NodePtr& a : e->args)
        set.push_back(key(a));
    } else {
      set.push_back(key(std::move(e)));
    }
    return set;
  };
  do {
    const bool rollup = Peek().IsKeyword("rollup") && Peek(1).IsOperator("(");
    const bool cube = Peek().IsKeyword("cube") && Peek(1).IsOperator("(");
    if (rollup || cube) {
      const Token& at = Next();
      Next();
      std::vector<std::vector<size_t>> items;
      do {
        FLOTILLA_ASSIGN_OR_RETURN(std::vector<size_t> item, one_set());
        items.push_back(std::move(item));
      } while (Operator(","));
      FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
      if (cube && items.size() > 12) return Error(at, "CUBE of more than 12 items");
      std::vector<std::vector<size_t>> out;
      if (rollup) {
        for (size_t n = items.size() + 1; n-- > 0;) {
          std::vector<size_t> set;
          for (size_t i = 0; i < n; ++i)
            set.insert(set.end(), items[i].begin(), items[i].end());
          out.push_back(std::move(set));
        }
      } else {
        for (size_t mask = (size_t{1} << items.size()); mask-- > 0;) {
          std::vector<size_t> set;
          for (size_t i = 0; i < items.size(); ++i) {
            if (mask & (size_t{1} << (items.size() - 1 - i))) {
              set.insert(set.end(), items[i].begin(), items[i].end());
            }
          }
          out.push_back(std::move(set));
        }
      }
      factors.push_back(std::move(out));
      sets = true;
    } else if (Peek().IsKeyword("grouping") && Peek(1).IsKeyword("sets")) {
      Next();
      Next();
      FLOTILLA_RETURN_NOT_OK(ExpectOperator("("));
      std::vector<std::vector<size_t>> out;
      do {
        FLOTILLA_ASSIGN_OR_RETURN(std::vector<size_t> set, one_set());
        out.push_back(std::move(set));
      } while (Operator(","));
      FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
      factors.push_back(std::move(out));
      sets = true;
    } else {
      FLOTILLA_ASSIGN_OR_RETURN(NodePtr e, Expr());
      factors.push_back({{key(std::move(e))}});
    }
  } while (Operator(","));
  if (!sets) return Status::OK();
  std::vector<std::vector<size_t>> product = {{}};
  for (const auto& factor : factors) {
    std::vector<std::vector<size_t>> next;
    for (const auto& left : product) {
      for (const auto& right : factor) {
        std::vector<size_t> set = left;
        set.insert(set.end(), right.begin(), right.end());
        next.push_back(std::move(set));
      }
    }
    if (next.size() > 4096) return Error(Peek(), "more than 4096 grouping sets");
    product = std::move(next);
  }
  core->grouping_sets = std::move(product);
  return Status::OK();
}

// n [ROWS] | p% | p PERCENT, optionally as method(...) or followed by (method[, seed]), and
// REPEATABLE (seed): DuckDB's forms. Every method samples uniformly without replacement here.
Result<SampleAst> Parser::SampleClause() {
  SampleAst sample;
  sample.offset = Peek().offset;
  const bool wrapped = (Peek().IsKeyword("reservoir") || Peek().IsKeyword("bernoulli") ||
                        Peek().IsKeyword("system")) &&
                       Peek(1).IsOperator("(");
  if (wrapped) {
    Next();
    Next();
  }
  const Token& number = Peek();
  if (number.kind != TokenKind::kInteger && number.kind != TokenKind::kFloat) {
    return Error(number, "expected a sample size: n ROWS or p PERCENT");
  }
  sample.amount = std::strtod(Next().text.c_str(), nullptr);
  if (Operator("%") || Keyword("percent")) {
    sample.percent = true;
    if (sample.amount > 100) return Error(number, "a sample of more than 100 percent");
  } else {
    Keyword("rows");
    if (number.kind != TokenKind::kInteger) return Error(number, "a row count must be whole");
  }
  if (wrapped) FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
  auto seed = [&]() -> Status {
    const Token& t = Peek();
    if (t.kind != TokenKind::kInteger) return Error(t, "expected a seed (an integer)");
    sample.seed = std::strtoull(Next().text.c_str(), nullptr, 10);
    return Status::OK();
  };
  if (!wrapped && Operator("(")) {
    if (!Keyword("reservoir") && !Keyword("bernoulli") && !Keyword("system")) {
      return Error(Peek(), "expected a sampling method (reservoir, bernoulli or system)");
    }
    if (Operator(",")) FLOTILLA_RETURN_NOT_OK(seed());
    FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
  }
  if (Keyword("repeatable")) {
    FLOTILLA_RETURN_NOT_OK(ExpectOperator("("));
    FLOTILLA_RETURN_NOT_OK(seed());
    FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
  }
  return sample;
}

// SUMMARIZE table | 'file' | query: DuckDB's statistics of every column.
Result<QueryPtr> Parser::Summarize(int64_t start) {
  auto q = std::make_shared<Query>();
  q->kind = Query::kSummarize;
  q->offset = start;
  if (Peek().kind == TokenKind::kString ||
      (AtIdentifier() && !Peek(1).IsOperator("(") && !Peek().IsKeyword("select") &&
       !Peek().IsKeyword("with") && !Peek().IsKeyword("values") && !Peek().IsKeyword("from") &&
       !Peek().IsKeyword("summarize"))) {
    FLOTILLA_ASSIGN_OR_RETURN(TableRefPtr ref, TablePrimary());
    q->left = SelectStarFrom(ref);
  } else {
    FLOTILLA_ASSIGN_OR_RETURN(q->left, ParseQuery());
  }
  return QueryPtr(q);
}

// An expression with its text as written (the name of a column it makes without an alias).
Result<SelectItem> Parser::WrittenExpression() {
  SelectItem item;
  const int64_t start = Peek().offset;
  FLOTILLA_ASSIGN_OR_RETURN(item.expr, Expr());
  const Token& last = tokens_[pos_ - 1];
  item.text = std::string(sql_.substr(start, last.offset + last.length - start));
  return item;
}

// PIVOT's aggregates: agg [AS alias], ...
Status Parser::PivotAggregates(PivotAst* p) {
  do {
    FLOTILLA_ASSIGN_OR_RETURN(SelectItem item, WrittenExpression());
    if (Keyword("as")) {
      FLOTILLA_ASSIGN_OR_RETURN(item.alias, AliasName());
    }
    p->aggregates.push_back(std::move(item));
  } while (Operator(","));
  return Status::OK();
}

// PIVOT's GROUP BY keys (after GROUP BY).
Status Parser::PivotKeys(PivotAst* p) {
  do {
    FLOTILLA_ASSIGN_OR_RETURN(NodePtr key, Expr());
    p->group_by.push_back(std::move(key));
  } while (Operator(","));
  return Status::OK();
}

Result<QueryPtr> Parser::Pivot() {
  auto q = std::make_shared<Query>();
  q->offset = Peek().offset;
  const bool pivot = Next().IsKeyword("pivot");
  q->kind = pivot ? Query::kPivot : Query::kUnpivot;
  auto p = std::make_shared<PivotAst>();
  FLOTILLA_ASSIGN_OR_RETURN(p->source, TablePrimary());
  FLOTILLA_RETURN_NOT_OK(ExpectKeyword("on"));
  do {
    FLOTILLA_ASSIGN_OR_RETURN(NodePtr on, Expr());
    if (pivot && on->kind == NodeKind::kInList && !on->flag) {
      // ON k IN ('a', 'b'): these values only.
      if (!p->in.empty()) return Error(Peek(), "only one PIVOT column may list its values");
      p->in.assign(on->args.begin() + 1, on->args.end());
      on = on->args[0];
    }
    p->on.push_back(std::move(on));
  } while (Operator(","));
  if (pivot && Keyword("using")) {
    FLOTILLA_RETURN_NOT_OK(PivotAggregates(p.get()));
  }
  if (pivot && Keywords("group", "by")) {
    FLOTILLA_RETURN_NOT_OK(PivotKeys(p.get()));
  }
  if (!pivot && Keyword("into")) {
    FLOTILLA_RETURN_NOT_OK(ExpectKeyword("name"));
    FLOTILLA_ASSIGN_OR_RETURN(p->name_column, AliasName());
    FLOTILLA_RETURN_NOT_OK(ExpectKeyword("value"));
    FLOTILLA_ASSIGN_OR_RETURN(p->value_column, AliasName());
  }
  q->pivot = std::move(p);
  return QueryPtr(q);
}

Status Parser::SelectList(SelectCore* core) {
  if (Keyword("distinct")) {
    if (Keyword("on")) {
      FLOTILLA_RETURN_NOT_OK(ExpectOperator("("));
      do {
        FLOTILLA_ASSIGN_OR_RETURN(NodePtr e, Expr());
        core->distinct_on.push_back(std::move(e));
      } while (Operator(","));
      FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
    } else {
      core->distinct = true;
    }
  } else {
    Keyword("all");
  }
  do {
    FLOTILLA_ASSIGN_OR_RETURN(SelectItem item, WrittenExpression());
    if (Keyword("as")) {
      FLOTILLA_ASSIGN_OR_RETURN(item.alias, AliasName());
    } else if (AtIdentifier()) {
      FLOTILLA_ASSIGN_OR_RETURN(item.alias, Identifier("an alias"));
    }
    core->items.push_back(std::move(item));
  } while (Operator(",") && !Peek().IsKeyword("from"));
  return Status::OK();
}

Result<std::string> Parser::AliasName() {
  // After AS even a reserved word or a string may name a column.
  const Token& t = Peek();
  if (t.kind == TokenKind::kIdentifier) return AsciiLower(Next().text);
  if (t.kind == TokenKind::kQuotedIdentifier || t.kind == TokenKind::kString) return Next().text;
  return Error(t, "expected an alias");
}

Result<std::vector<std::string>> Parser::IdentifierList() {
  std::vector<std::string> names;
  do {
    FLOTILLA_ASSIGN_OR_RETURN(std::string n, Identifier("a column name"));
    names.push_back(std::move(n));
  } while (Operator(","));
  FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
  return names;
}

Result<std::vector<OrderItem>> Parser::OrderList() {
  std::vector<OrderItem> items;
  do {
    OrderItem item;
    FLOTILLA_ASSIGN_OR_RETURN(item.expr, Expr());
    if (Keyword("desc")) {
      item.ascending = false;
    } else {
      Keyword("asc");
    }
    if (Keyword("nulls")) {
      if (Keyword("first")) {
        item.nulls_first = true;
      } else if (Keyword("last")) {
        item.nulls_first = false;
      } else {
        return Error(Peek(), "expected FIRST or LAST");
      }
    }
    items.push_back(std::move(item));
  } while (Operator(","));
  return items;
}

Status Parser::FromList(SelectCore* core) {
  do {
    FLOTILLA_ASSIGN_OR_RETURN(TableRefPtr t, JoinedTable());
    core->from.push_back(std::move(t));
  } while (Operator(","));
  return Status::OK();
}

Result<TableRefPtr> Parser::JoinedTable() {
  FLOTILLA_ASSIGN_OR_RETURN(TableRefPtr left, TablePrimary());
  while (true) {
    const int64_t at = Peek().offset;
    auto join = std::make_shared<TableRef>();
    join->kind = TableRef::kJoin;
    join->offset = at;
    join->natural = Keyword("natural");
    if (Keyword("cross")) {
      join->join = JoinKind::kCross;
    } else if (Keyword("inner")) {
      join->join = JoinKind::kInner;
    } else if (Keyword("left")) {
      join->join = JoinKind::kLeft;
      if (Keyword("semi")) {
        join->join = JoinKind::kSemi;
      } else if (Keyword("anti")) {
        join->join = JoinKind::kAnti;
      } else {
        Keyword("outer");
      }
    } else if (Keyword("right")) {
      join->join = JoinKind::kRight;
      Keyword("outer");
    } else if (Keyword("full")) {
      join->join = JoinKind::kFull;
      Keyword("outer");
    } else if (Keyword("semi")) {
      join->join = JoinKind::kSemi;
    } else if (Keyword("anti")) {
      join->join = JoinKind::kAnti;
    } else if (!Peek().IsKeyword("join")) {
      if (join->natural) return Error(Peek(), "expected JOIN after NATURAL");
      return left;
    }
    FLOTILLA_RETURN_NOT_OK(ExpectKeyword("join"));
    FLOTILLA_ASSIGN_OR_RETURN(join->right, TablePrimary());
    join->left = std::move(left);
    if (join->join != JoinKind::kCross && !join->natural) {
      if (Keyword("on")) {
        FLOTILLA_ASSIGN_OR_RETURN(join->on, Expr());
      } else if (Keyword("using")) {
        FLOTILLA_RETURN_NOT_OK(ExpectOperator("("));
        FLOTILLA_ASSIGN_OR_RETURN(join->using_columns, IdentifierList());
      } else {
        return Error(Peek(), "expected ON or USING after the joined table");
      }
    }
    left = std::move(join);
  }
}

Result<TableRefPtr> Parser::TablePrimary() {
  auto t = std::make_shared<TableRef>();
  t->offset = Peek().offset;
  if (Operator("(")) {
    if (Peek().IsKeyword("select") || Peek().IsKeyword("with") || Peek().IsKeyword("values") ||
        Peek().IsKeyword("from") || Peek().IsKeyword("summarize") || Peek().IsKeyword("pivot") ||
        Peek().IsKeyword("unpivot") || Peek().IsOperator("(")) {
      t->kind = TableRef::kSubquery;
      FLOTILLA_ASSIGN_OR_RETURN(t->subquery, ParseQuery());
      FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
    } else {
      FLOTILLA_ASSIGN_OR_RETURN(TableRefPtr inner, JoinedTable());
      FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
      if (!AtIdentifier() && !Peek().IsKeyword("as")) return inner;
      auto copy = std::make_shared<TableRef>(*inner);
      t = copy;
    }
  } else if (Peek().kind == TokenKind::kString) {
    t->kind = TableRef::kPath;
    t->name = Next().text;
  } else if (Peek().IsKeyword("values")) {
    t->kind = TableRef::kSubquery;
    FLOTILLA_ASSIGN_OR_RETURN(t->subquery, QueryTerm());
  } else {
    FLOTILLA_ASSIGN_OR_RETURN(t->name, Identifier("a table name, a quoted path or '(' query ')'"));
    while (Operator(".")) {  // schema.table: the last part names the table
      FLOTILLA_ASSIGN_OR_RETURN(t->name, Identifier("a table name"));
    }
    if (Operator("(")) {
      t->kind = TableRef::kFunction;
      if (!Operator(")")) {
        do {
          NamedArg arg;
          if ((Peek().kind == TokenKind::kIdentifier ||
               Peek().kind == TokenKind::kQuotedIdentifier) &&
              (Peek(1).IsOperator("=") || Peek(1).IsOperator(":="))) {
            arg.name = AsciiLower(Next().text);
            Next();
          }
          FLOTILLA_ASSIGN_OR_RETURN(arg.value, Expr());
          t->args.push_back(std::move(arg));
        } while (Operator(","));
        FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
      }
    } else {
      t->kind = TableRef::kNamed;
    }
  }
  FLOTILLA_RETURN_NOT_OK(TableSuffixes(t.get()));
  while (AtPivotClause()) {
    // t PIVOT (...) / t UNPIVOT (...): a subquery over t, which may have an alias of its own.
    auto pivoted = std::make_shared<TableRef>();
    pivoted->kind = TableRef::kSubquery;
    pivoted->offset = Peek().offset;
    FLOTILLA_ASSIGN_OR_RETURN(pivoted->subquery, PivotClause(t));
    FLOTILLA_RETURN_NOT_OK(TableSuffixes(pivoted.get()));
    t = pivoted;
  }
  return TableRefPtr(t);
}

// A table's [AS] alias [(column aliases)] and TABLESAMPLE.
Status Parser::TableSuffixes(TableRef* t) {
  if (Keyword("as")) {
    FLOTILLA_ASSIGN_OR_RETURN(t->alias, Identifier("an alias"));
  } else if (AtIdentifier() && !AtPivotClause()) {
    t->alias = Identifier("an alias").ValueOrDie();
  }
  if (!t->alias.empty() && Operator("(")) {
    FLOTILLA_ASSIGN_OR_RETURN(t->column_aliases, IdentifierList());
  }
  if (Keyword("tablesample")) {
    FLOTILLA_ASSIGN_OR_RETURN(t->sample, SampleClause());
  }
  return Status::OK();
}

bool Parser::AtPivotClause() const {
  if (Peek().IsKeyword("pivot")) return Peek(1).IsOperator("(");
  if (!Peek().IsKeyword("unpivot")) return false;
  return Peek(1).IsOperator("(") || Peek(1).IsKeyword("include") || Peek(1).IsKeyword("exclude");
}

// The SQL standard's forms: PIVOT (agg [AS a], ... FOR col IN (values) [GROUP BY keys]) and
// UNPIVOT [INCLUDE | EXCLUDE NULLS] (value FOR name IN (columns)).
Result<QueryPtr> Parser::PivotClause(TableRefPtr source) {
  auto q = std::make_shared<Query>();
  q->offset = Peek().offset;
  const bool pivot = Next().IsKeyword("pivot");
  q->kind = pivot ? Query::kPivot : Query::kUnpivot;
  auto p = std::make_shared<PivotAst>();
  p->source = std::move(source);
  if (!pivot && (Peek().IsKeyword("include") || Peek().IsKeyword("exclude"))) {
    p->include_nulls = Next().IsKeyword("include");
    FLOTILLA_RETURN_NOT_OK(ExpectKeyword("nulls"));
  }
  FLOTILLA_RETURN_NOT_OK(ExpectOperator("("));
  if (pivot) {
    FLOTILLA_RETURN_NOT_OK(PivotAggregates(p.get()));
  } else {
    FLOTILLA_ASSIGN_OR_RETURN(p->value_column, Identifier("the name of the value column"));
  }
  FLOTILLA_RETURN_NOT_OK(ExpectKeyword("for"));
  if (pivot) {
    FLOTILLA_ASSIGN_OR_RETURN(NodePtr on, Concat());
    p->on.push_back(std::move(on));
  } else {
    FLOTILLA_ASSIGN_OR_RETURN(p->name_column, Identifier("the name of the name column"));
  }
  FLOTILLA_RETURN_NOT_OK(ExpectKeyword("in"));
  FLOTILLA_RETURN_NOT_OK(ExpectOperator("("));
  std::vector<NodePtr> listed;
  do {
    FLOTILLA_ASSIGN_OR_RETURN(NodePtr e, Expr());
    listed.push_back(std::move(e));
  } while (Operator(","));
  FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
  (pivot ? p->in : p->on) = std::move(listed);
  if (pivot && Keywords("group", "by")) {
    FLOTILLA_RETURN_NOT_OK(PivotKeys(p.get()));
  }
  FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
  q->pivot = std::move(p);
  return QueryPtr(q);
}

}  // namespace flotilla::sql::internal
