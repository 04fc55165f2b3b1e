"""Functions over expressions, as Daft's ``daft.functions`` module spells them:
``when(col("x") > 0, "pos").otherwise("neg")``, ``columns_sum("a", "b")``, ``row_number()``,
``sum(col("x"))``, ``lower(col("s"))``, ``year(col("d"))``...

Most are the Expression methods (and .str / .dt / .list methods) written as functions of their
first argument; see docs/python_api.md for the list and what each means.
"""

from __future__ import annotations

import builtins
import math

from .expressions import (Expression, _call, _to_expr, coalesce, col, dense_rank, lit,
                          monotonically_increasing_id, rank, row_number)

_export = ["when", "columns_sum", "columns_mean", "columns_avg", "columns_min", "columns_max",
           "row_number", "rank", "dense_rank", "monotonically_increasing_id", "coalesce", "col",
           "lit", "format", "concat", "cast", "try_cast", "lag", "lead", "pi", "e", "to_list",
           "first_value", "last_value", "list_agg", "list_agg_distinct", "eq_null_safe", "get"]


class _When(Expression):
    """A CASE expression being built: .when(condition, then) adds a branch, .otherwise(value)
    the value where no condition holds (null until given)."""

    __slots__ = ("_branches",)

    def __init__(self, branches: list, otherwise=None):
        self._branches = branches
        value = _to_expr(otherwise) if otherwise is not None else lit(None)
        for condition, then in reversed(branches):
            value = condition.if_else(then, value)
        super().__init__(value._e, calls=value._calls, name=branches[0][1]._name)

    def when(self, condition, then) -> "_When":
        return _When(self._branches + [(_condition(condition), _to_expr(then))])

    def otherwise(self, value) -> Expression:
        out = _When(self._branches, value)
        return Expression(out._e, calls=out._calls, name=out._name)


def _condition(condition) -> Expression:
    if not isinstance(condition, Expression):
        raise TypeError(f"when() takes a boolean Expression as its condition, got {condition!r}")
    return condition


def when(condition, then) -> _When:
    """``when(cond, then).when(cond2, then2).otherwise(value)``: the first branch whose
    condition holds (a null condition does not); null where none does and no otherwise."""
    return _When([(_condition(condition), _to_expr(then))])


def _columns(exprs, function: str) -> list:
    if not exprs:
        raise ValueError(f"{function} needs at least one column")
    return [col(e) if isinstance(e, str) else _to_expr(e) for e in exprs]


def to_list(*exprs) -> Expression:
    """Each row's values of `exprs` as one list."""
    items = _columns(exprs, "to_list")
    return _call("list_value", *items, name=items[0]._name)


def columns_sum(*exprs) -> Expression:
    """The sum across columns, row by row (nulls skipped); named "columns_sum"."""
    return _call("list_sum", to_list(*_columns(exprs, "columns_sum"))).alias("columns_sum")


def columns_mean(*exprs) -> Expression:
    """The mean across columns, row by row (nulls skipped); named "columns_mean"."""
    return _call("list_mean", to_list(*_columns(exprs, "columns_mean"))).alias("columns_mean")


def columns_avg(*exprs) -> Expression:
    return _call("list_mean", to_list(*_columns(exprs, "columns_avg"))).alias("columns_avg")


def columns_min(*exprs) -> Expression:
    return _call("list_min", to_list(*_columns(exprs, "columns_min"))).alias("columns_min")


def columns_max(*exprs) -> Expression:
    return _call("list_max", to_list(*_columns(exprs, "columns_max"))).alias("columns_max")


def format(f_string: str, *args) -> Expression:  # noqa: A001 - Daft's name
    """``format("{} of {}", col("a"), "b")``: each {} replaced by an argument (a string names a
    column)."""
    parts = f_string.split("{}")
    if len(parts) - 1 != len(args):
        raise ValueError(f"format string {f_string!r} has {len(parts) - 1} placeholders and "
                         f"{len(args)} arguments")
    pieces = []
    for i, a in enumerate(args):
        if parts[i]:
            pieces.append(lit(parts[i]))
        pieces.append((col(a) if isinstance(a, str) else _to_expr(a)).cast("string"))
    if parts[-1]:
        pieces.append(lit(parts[-1]))
    if not pieces:
        return lit("")
    return _call("concat", *pieces, name=pieces[0]._name)


def concat(left, right) -> Expression:
    """Two strings joined."""
    return _call("concat", left, right)


def cast(expr, dtype) -> Expression:
    return _to_expr(expr).cast(dtype)


def try_cast(expr, dtype) -> Expression:
    return _to_expr(expr).try_cast(dtype)


def eq_null_safe(left, right) -> Expression:
    return _to_expr(left).eq_null_safe(right)


def get(expr, key, default=None) -> Expression:
    """A list's item (int key, from 0) or a struct's field (str key)."""
    expr = _to_expr(expr)
    if isinstance(key, str):
        return expr.struct.get(key)
    return expr.list.get(key, default)


def lag(expr, offset: int = 1, default=None) -> Expression:
    return _to_expr(expr).lag(offset, default)


def lead(expr, offset: int = 1, default=None) -> Expression:
    return _to_expr(expr).lead(offset, default)


def first_value(expr) -> Expression:
    return _to_expr(expr).first()


def last_value(expr) -> Expression:
    return _to_expr(expr).last()


def list_agg(expr) -> Expression:
    return _to_expr(expr).agg_list()


def list_agg_distinct(expr) -> Expression:
    return _to_expr(expr).agg_set()


def pi() -> Expression:
    return lit(math.pi)


def e() -> Expression:
    return lit(math.e)


def _method(name: str, attribute: str, namespace: str | None = None):
    def function(expr, *args, **kwargs):
        x = _to_expr(expr)
        target = getattr(x, namespace) if namespace else x
        return getattr(target, attribute)(*args, **kwargs)

    function.__name__ = name
    where = f".{namespace}" if namespace else ""
    function.__doc__ = f"``expr{where}.{attribute}(...)`` as a function."
    return function


# name: (namespace, method) for functions that are an Expression method of their first argument.
_METHODS = {
    # aggregates
    "count": (None, "count"), "count_distinct": (None, "count_distinct"), "sum": (None, "sum"),
    "mean": (None, "mean"), "avg": (None, "mean"), "min": (None, "min"), "max": (None, "max"),
    "stddev": (None, "stddev"), "var": (None, "var"), "median": (None, "median"),
    "approx_count_distinct": (None, "approx_count_distinct"),
    "approx_percentiles": (None, "approx_percentiles"), "percentile": (None, "approx_percentiles"),
    "bool_and": (None, "bool_and"), "bool_or": (None, "bool_or"), "any_value": (None, "any_value"),
    "string_agg": (None, "string_agg"), "product": (None, "product"),
    # null and membership
    "is_null": (None, "is_null"), "not_null": (None, "not_null"), "fill_null": (None, "fill_null"),
    "is_in": (None, "is_in"), "between": (None, "between"), "hash": (None, "hash"),
    "is_nan": (None, "is_nan"), "is_inf": (None, "is_inf"), "not_nan": (None, "not_nan"),
    "fill_nan": (None, "fill_nan"),
    # numbers
    "abs": (None, "abs"), "ceil": (None, "ceil"), "floor": (None, "floor"), "clip": (None, "clip"),
    "sign": (None, "sign"), "negate": (None, "negate"), "round": (None, "round"),
    "sqrt": (None, "sqrt"), "cbrt": (None, "cbrt"), "sin": (None, "sin"), "cos": (None, "cos"),
    "tan": (None, "tan"), "log2": (None, "log2"), "log10": (None, "log10"), "log": (None, "log"),
    "ln": (None, "ln"), "exp": (None, "exp"),
    # strings
    "lower": ("str", "lower"), "upper": ("str", "upper"), "length": ("str", "length"),
    "length_bytes": ("str", "length_bytes"), "strip": ("str", "strip"),
    "lstrip": ("str", "lstrip"), "rstrip": ("str", "rstrip"), "reverse": ("str", "reverse"),
    "contains": ("str", "contains"), "startswith": ("str", "startswith"),
    "endswith": ("str", "endswith"), "substr": ("str", "substr"), "left": ("str", "left"),
    "right": ("str", "right"), "replace": ("str", "replace"), "split": ("str", "split"),
    "like": ("str", "like"), "ilike": ("str", "ilike"), "regexp": ("str", "match"),
    "regexp_extract": ("str", "extract"), "regexp_extract_all": ("str", "extract_all"),
    "regexp_replace": ("str", "regexp_replace"), "lpad": ("str", "lpad"), "rpad": ("str", "rpad"),
    "repeat": ("str", "repeat"), "find": ("str", "find"), "capitalize": ("str", "capitalize"),
    "count_matches": ("str", "count_matches"), "to_date": ("str", "to_date"),
    "to_datetime": ("str", "to_datetime"), "normalize": ("str", "normalize"),
    # dates and times
    "year": ("dt", "year"), "month": ("dt", "month"), "day": ("dt", "day"),
    "day_of_month": ("dt", "day_of_month"), "dayofmonth": ("dt", "day_of_month"),
    "hour": ("dt", "hour"), "minute": ("dt", "minute"), "second": ("dt", "second"),
    "millisecond": ("dt", "millisecond"), "microsecond": ("dt", "microsecond"),
    "quarter": ("dt", "quarter"), "day_of_week": ("dt", "day_of_week"),
    "day_of_year": ("dt", "day_of_year"), "dayofyear": ("dt", "day_of_year"),
    "week_of_year": ("dt", "week_of_year"), "weekofyear": ("dt", "week_of_year"),
    "date": ("dt", "date"), "strftime": ("dt", "strftime"), "date_format": ("dt", "strftime"),
    "to_unix_epoch": ("dt", "to_unix_epoch"),
    # lists
    "list_sum": ("list", "sum"), "list_mean": ("list", "mean"), "list_min": ("list", "min"),
    "list_max": ("list", "max"), "list_count": ("list", "count"), "list_sort": ("list", "sort"),
    "list_distinct": ("list", "distinct"), "list_contains": ("list", "contains"),
    "list_join": ("list", "join"), "value_counts": ("list", "value_counts"),
    "slice": ("list", "slice"),
}

for _name, (_namespace, _attribute) in _METHODS.items():
    globals()[_name] = _method(_name, _attribute, _namespace)
    _export.append(_name)


def date_trunc(interval: str, expr) -> Expression:
    """``date_trunc("day", col("t"))``: as ``col("t").dt.truncate("1 day")``."""
    unit = interval if " " in str(interval) else f"1 {interval}"
    return _to_expr(expr).dt.truncate(unit)


_export.append("date_trunc")


def power(base, exponent) -> Expression:
    return _call("pow", base, exponent)


pow = power  # noqa: A001 - Daft's name
_export += ["power", "pow"]

__all__ = sorted(builtins.set(_export))
