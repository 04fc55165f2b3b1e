"""Expressions: column references, literals, operators and functions, built lazily.

An Expression wraps the engine's expression tree. Operators build new expressions
(``col("a") + 1``, ``col("a") > col("b")``, ``~(col("x").is_null())``); names are resolved when
the expression is used in a DataFrame, so a misspelt column fails there with a suggestion.
"""

from __future__ import annotations

from typing import Any, Iterable

from . import _flotilla as _ext

__all__ = [
    "Expression",
    "col",
    "lit",
    "coalesce",
    "row_number",
    "rank",
    "dense_rank",
    "monotonically_increasing_id",
]


def _to_expr(value: Any) -> "Expression":
    if isinstance(value, Expression):
        return value
    return lit(value)


class Expression:
    """A lazily evaluated column expression."""

    __slots__ = ("_e", "_window", "_agg", "_calls")

    def __init__(self, e, window=None, agg=None, calls=None):
        self._e = e
        self._window = window  # a _WindowCall when this is a window function
        self._agg = agg  # (function, [argument Expressions]) when this is one aggregate call
        # The UDF and window calls (and id columns) this expression reads, by the placeholder
        # column each stands for; a DataFrame turns them into plan nodes before using it.
        self._calls = calls or {}

    # --- naming and types -----------------------------------------------------------------------
    def alias(self, name: str) -> "Expression":
        return Expression(_ext.alias(self._e, name), self._window, self._agg, self._calls)

    def name(self) -> str:
        return self._e.name()

    def cast(self, dtype: str) -> "Expression":
        """Cast to a SQL type name: "int64"/"bigint", "double", "decimal(15, 2)", "string"..."""
        return Expression(_ext.cast(self._e, _type_name(dtype), False), calls=self._calls)

    def try_cast(self, dtype: str) -> "Expression":
        return Expression(_ext.cast(self._e, _type_name(dtype), True), calls=self._calls)

    def __repr__(self) -> str:
        return repr(self._e)

    # --- operators ------------------------------------------------------------------------------
    def _bin(self, op, other, reverse=False):
        other = _to_expr(other)
        a, b = (other, self) if reverse else (self, other)
        return Expression(_ext.binary(op, a._e, b._e), calls=_merge(a, b))

    def __add__(self, o): return self._bin("add", o)
    def __radd__(self, o): return self._bin("add", o, True)
    def __sub__(self, o): return self._bin("sub", o)
    def __rsub__(self, o): return self._bin("sub", o, True)
    def __mul__(self, o): return self._bin("mul", o)
    def __rmul__(self, o): return self._bin("mul", o, True)
    def __truediv__(self, o): return self._bin("div", o)
    def __rtruediv__(self, o): return self._bin("div", o, True)
    def __floordiv__(self, o): return self._bin("floordiv", o)
    def __rfloordiv__(self, o): return self._bin("floordiv", o, True)
    def __mod__(self, o): return self._bin("mod", o)
    def __rmod__(self, o): return self._bin("mod", o, True)
    def __pow__(self, o): return _call("pow", self, o)
    def __eq__(self, o): return self._bin("eq", o)  # type: ignore[override]
    def __ne__(self, o): return self._bin("ne", o)  # type: ignore[override]
    def __lt__(self, o): return self._bin("lt", o)
    def __le__(self, o): return self._bin("le", o)
    def __gt__(self, o): return self._bin("gt", o)
    def __ge__(self, o): return self._bin("ge", o)
    def __and__(self, o): return self._bin("and", o)
    def __rand__(self, o): return self._bin("and", o, True)
    def __or__(self, o): return self._bin("or", o)
    def __ror__(self, o): return self._bin("or", o, True)
    def __invert__(self): return Expression(_ext.not_(self._e), calls=self._calls)
    def __neg__(self): return Expression(_ext.negate(self._e), calls=self._calls)
    def __abs__(self): return _call("abs", self)
    __hash__ = object.__hash__

    def __bool__(self):
        raise TypeError("an Expression has no truth value; use & | ~ instead of and / or / not")

    # --- predicates and conditionals ------------------------------------------------------------
    def is_null(self) -> "Expression": return Expression(_ext.is_null(self._e), calls=self._calls)
    def not_null(self) -> "Expression": return Expression(_ext.not_null(self._e), calls=self._calls)
    def is_in(self, values: Iterable[Any]) -> "Expression":
        return Expression(_ext.is_in(self._e, list(values)), calls=self._calls)
    def between(self, lower, upper) -> "Expression":
        lo, hi = _to_expr(lower), _to_expr(upper)
        return Expression(_ext.between(self._e, lo._e, hi._e), calls=_merge(self, lo, hi))
    def fill_null(self, value) -> "Expression":
        return coalesce(self, value)
    def if_else(self, if_true, if_false) -> "Expression":
        a, b = _to_expr(if_true), _to_expr(if_false)
        return Expression(_ext.if_else(self._e, a._e, b._e), calls=_merge(self, a, b))

    # --- math -----------------------------------------------------------------------------------
    def abs(self): return _call("abs", self)
    def round(self, decimals: int = 0): return _call("round", self, decimals)
    def floor(self): return _call("floor", self)
    def ceil(self): return _call("ceil", self)
    def sqrt(self): return _call("sqrt", self)
    def exp(self): return _call("exp", self)
    def log(self, base=None): return _call("ln", self) if base is None else _call("log", base, self)
    def sign(self): return _call("sign", self)
    def clip(self, lower, upper): return _call("clip", self, lower, upper)
    def hash(self): return _call("hash", self)

    # --- aggregates -----------------------------------------------------------------------------
    def _aggregate(self, name, *args):
        arguments = [self] + [_to_expr(a) for a in args]
        return Expression(_ext.aggregate(name, [a._e for a in arguments]), agg=(name, arguments),
                          calls=_merge(*arguments))

    def sum(self): return self._aggregate("sum")
    def mean(self): return self._aggregate("mean")
    def avg(self): return self._aggregate("avg")
    def min(self): return self._aggregate("min")
    def max(self): return self._aggregate("max")
    def count(self): return self._aggregate("count")
    def count_distinct(self): return self._aggregate("count_distinct")
    def approx_count_distinct(self): return self._aggregate("approx_count_distinct")
    def approx_percentile(self, q: float): return self._aggregate("approx_percentile", q)
    def stddev(self): return self._aggregate("stddev")
    def var(self): return self._aggregate("variance")
    def any_value(self): return self._aggregate("any_value")
    def first(self): return self._aggregate("first")
    def last(self): return self._aggregate("last")
    def agg_list(self): return self._aggregate("list")
    def bool_and(self): return self._aggregate("bool_and")
    def bool_or(self): return self._aggregate("bool_or")
    def string_agg(self, separator: str = ","): return self._aggregate("string_agg", separator)

    # --- window functions -----------------------------------------------------------------------
    def lag(self, offset: int = 1, default=None) -> "Expression":
        args = [self, offset] + ([] if default is None else [default])
        return _window_function("lag", args)

    def lead(self, offset: int = 1, default=None) -> "Expression":
        args = [self, offset] + ([] if default is None else [default])
        return _window_function("lead", args)

    def over(self, window) -> "Expression":
        """This aggregate (or window function) over a Window."""
        from .window import Window, _WindowCall

        if not isinstance(window, Window):
            raise TypeError("over() takes a flotilla.Window")
        if self._window is not None:
            call = self._window.with_window(window)
        elif self._agg is not None:
            name, args = self._agg
            call = _WindowCall(name, args, window, None)
        else:
            raise ValueError(f"over() needs an aggregate or a window function, got {self!r}")
        out = Expression(_ext.col(call.output), call, calls={call.output: call})
        aliased = self._e.name() != repr(self._e)
        return out.alias(self._e.name()) if aliased else out

    # --- namespaces -----------------------------------------------------------------------------
    @property
    def str(self) -> "StringNamespace": return StringNamespace(self)

    @property
    def dt(self) -> "DatetimeNamespace": return DatetimeNamespace(self)

    @property
    def list(self) -> "ListNamespace": return ListNamespace(self)

    @property
    def float(self) -> "FloatNamespace": return FloatNamespace(self)


def _column_list(columns) -> list:
    """Strings, Expressions and lists of them as a flat list of Expressions."""
    out = []
    for c in columns:
        if isinstance(c, (list, tuple)):
            out += _column_list(c)
        elif isinstance(c, str):
            out.append(col(c))
        elif isinstance(c, Expression):
            out.append(c)
        else:
            raise TypeError(f"expected a column name or an Expression, got {type(c).__name__}")
    return out


def _type_name(dtype: Any) -> str:
    aliases = {
        "int64": "bigint", "int32": "integer", "int16": "smallint", "int8": "tinyint",
        "uint64": "ubigint", "uint32": "uinteger", "uint16": "usmallint", "uint8": "utinyint",
        "float64": "double", "float32": "real", "string": "varchar", "utf8": "varchar",
        "bool": "boolean", int: "bigint", float: "double", str: "varchar", bool: "boolean",
    }
    return aliases.get(dtype, dtype)


def _merge(*exprs) -> dict:
    calls = {}
    for e in exprs:
        calls.update(e._calls)
    return calls


def _call(name: str, *args) -> Expression:
    exprs = [_to_expr(a) for a in args]
    return Expression(_ext.call(name, [e._e for e in exprs]), calls=_merge(*exprs))


def col(name: str) -> Expression:
    """A reference to the column `name`."""
    return Expression(_ext.col(name))


def lit(value: Any) -> Expression:
    """A constant: None, bool, int, float, str, bytes, date, datetime, Decimal."""
    return Expression(_ext.lit(value))


def coalesce(*args) -> Expression:
    """The first non-null argument."""
    exprs = [_to_expr(a) for a in args]
    return Expression(_ext.coalesce([e._e for e in exprs]), calls=_merge(*exprs))


def _window_function(name: str, args) -> Expression:
    from .window import _WindowCall

    call = _WindowCall(name, [_to_expr(a) for a in args], None, None)
    return Expression(_ext.col(call.output), call, calls={call.output: call})


def row_number() -> Expression:
    return _window_function("row_number", [])


def rank() -> Expression:
    return _window_function("rank", [])


def dense_rank() -> Expression:
    return _window_function("dense_rank", [])


MONOTONIC_ID = "__monotonic_id"


def monotonically_increasing_id() -> Expression:
    """Unique, increasing int64 ids (partition index * 2^36 + row), for with_column."""
    return Expression(_ext.col(MONOTONIC_ID), calls={MONOTONIC_ID: MONOTONIC_ID})


class _Namespace:
    __slots__ = ("_x",)

    def __init__(self, x: Expression):
        self._x = x


class StringNamespace(_Namespace):
    """String functions: ``col("s").str.lower()``."""

    def lower(self): return _call("lower", self._x)
    def upper(self): return _call("upper", self._x)
    def length(self): return _call("length", self._x)
    def strip(self): return _call("trim", self._x)
    def lstrip(self): return _call("ltrim", self._x)
    def rstrip(self): return _call("rtrim", self._x)
    def reverse(self): return _call("reverse", self._x)
    def contains(self, pattern): return _call("contains", self._x, pattern)
    def startswith(self, prefix): return _call("starts_with", self._x, prefix)
    def endswith(self, suffix): return _call("ends_with", self._x, suffix)
    def concat(self, *others): return _call("concat", self._x, *others)
    def substr(self, start: int, length: int | None = None):
        # 0-based start, as Python slicing
        if length is None:
            return _call("substr", self._x, start + 1)
        return _call("substr", self._x, start + 1, length)
    def left(self, n): return _call("left", self._x, n)
    def right(self, n): return _call("right", self._x, n)
    def replace(self, old, new): return _call("replace", self._x, old, new)
    def split(self, separator): return _call("split", self._x, separator)
    def like(self, pattern): return _call("like", self._x, pattern)
    def ilike(self, pattern): return _call("ilike", self._x, pattern)
    def match(self, pattern): return _call("regexp_matches", self._x, pattern)
    def extract(self, pattern, index: int = 0): return _call("regexp_extract", self._x, pattern, index)
    def extract_all(self, pattern, index: int = 0):
        return _call("regexp_extract_all", self._x, pattern, index)
    def regexp_replace(self, pattern, replacement):
        return _call("regexp_replace", self._x, pattern, replacement)
    def lpad(self, length, pad=" "): return _call("lpad", self._x, length, pad)
    def rpad(self, length, pad=" "): return _call("rpad", self._x, length, pad)
    def repeat(self, n): return _call("repeat", self._x, n)
    def find(self, substring): return _call("strpos", self._x, substring) - 1
    def normalize(self, **options):
        return _call("normalize_text", self._x) if not options else _call("normalize", self._x)
    def to_date(self, fmt: str): return _call("to_date", self._x, fmt)
    def to_datetime(self, fmt: str): return _call("strptime", self._x, fmt)


class DatetimeNamespace(_Namespace):
    """Date and time fields and arithmetic: ``col("d").dt.year()``."""

    def year(self): return _call("year", self._x)
    def month(self): return _call("month", self._x)
    def day(self): return _call("day", self._x)
    def hour(self): return _call("hour", self._x)
    def minute(self): return _call("minute", self._x)
    def second(self): return _call("second", self._x)
    def day_of_week(self): return _call("day_of_week", self._x)
    def day_of_year(self): return _call("day_of_year", self._x)
    def quarter(self): return _call("quarter", self._x)
    def week(self): return _call("week", self._x)
    def date(self): return self._x.cast("date")
    def truncate(self, unit: str): return _call("date_trunc", unit, self._x)
    def strftime(self, fmt: str): return _call("strftime", self._x, fmt)
    def add(self, count, unit: str): return _call("date_add", self._x, count, unit)
    def sub(self, count, unit: str): return _call("date_sub", self._x, count, unit)


class ListNamespace(_Namespace):
    """List functions: ``col("xs").list.length()``."""

    def length(self): return _call("list_length", self._x)
    def lengths(self): return _call("list_length", self._x)
    def get(self, index: int, default=None):
        # 0-based, negative from the end, as Python
        return _call("list_get", self._x, index) if default is None else coalesce(
            _call("list_get", self._x, index), default)
    def slice(self, start: int, end: int | None = None):
        return _call("list_slice", self._x, start) if end is None else _call("list_slice", self._x, start, end)
    def sum(self): return _call("list_sum", self._x)
    def mean(self): return _call("list_mean", self._x)
    def min(self): return _call("list_min", self._x)
    def max(self): return _call("list_max", self._x)
    def sort(self, desc: bool = False): return _call("list_sort", self._x, desc)
    def distinct(self): return _call("list_distinct", self._x)
    def contains(self, value): return _call("list_contains", self._x, value)
    def join(self, separator: str): return _call("list_join", self._x, separator)


class FloatNamespace(_Namespace):
    """Float predicates: ``col("x").float.is_nan()``."""

    def is_nan(self): return _call("isnan", self._x)
    def is_inf(self): return _call("isinf", self._x)
    def not_nan(self): return ~_call("isnan", self._x)
    def fill_nan(self, value): return _call("isnan", self._x).if_else(value, self._x)
