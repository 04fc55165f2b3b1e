"""Expressions: column references, literals, operators and functions, built lazily.

An Expression wraps the engine's expression tree. Operators build new expressions
(``col("a") + 1``, ``col("a") > col("b")``, ``~(col("x").is_null())``); names are resolved when
the expression is used in a DataFrame, so a misspelt column fails there with a suggestion.
"""

from __future__ import annotations

from typing import Any, Iterable

from . import _flotilla as _ext
from .datatype import engine_type
from .window_spec import _WindowCall, _WindowSpec

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

    __slots__ = ("_e", "_window", "_agg", "_calls", "_name")

    def __init__(self, e, window=None, agg=None, calls=None, name=None):
        self._e = e
        self._window = window  # a _WindowCall when this is a window function
        self._agg = agg  # (function, [argument Expressions]) when this is one aggregate call
        # The UDF and window calls (and id columns) this expression reads, by the placeholder
        # column each stands for; a DataFrame turns them into plan nodes before using it.
        self._calls = calls or {}
        # The output column's name, as Daft names it: an alias, else the name of the first
        # column the expression reads ("literal" for a constant).
        self._name = name if name is not None else e.name()

    # --- naming and types -----------------------------------------------------------------------
    def alias(self, name: str) -> "Expression":
        return Expression(_ext.alias(self._e, name), self._window, self._agg, self._calls, name)

    def name(self) -> str:
        """The column this expression makes: its alias, else the first column it reads."""
        return self._name

    def _is_column(self) -> bool:
        return self._e.columns() == [self._e.name()] and repr(self._e) == self._e.name()

    def _is_string_literal(self) -> bool:
        return self._name == "literal" and repr(self._e).startswith("'")

    def _named(self) -> "Expression":
        """This expression with its name() as the engine's output name (an alias if needed)."""
        return self if self._e.name() == self._name else self.alias(self._name)

    def cast(self, dtype) -> "Expression":
        """Cast to a DataType, a SQL type name ("bigint", "decimal(15, 2)") or a Python type."""
        return Expression(_ext.cast(self._e, engine_type(dtype), False), calls=self._calls,
                          name=self._name)

    def try_cast(self, dtype) -> "Expression":
        return Expression(_ext.cast(self._e, engine_type(dtype), True), calls=self._calls,
                          name=self._name)

    def __repr__(self) -> str:
        return repr(self._e)

    # --- operators ------------------------------------------------------------------------------
    def _bin(self, op, other, reverse=False):
        other = _to_expr(other)
        a, b = (other, self) if reverse else (self, other)
        return Expression(_ext.binary(op, a._e, b._e), calls=_merge(a, b), name=a._name)

    def __add__(self, o):
        return _concat_or_add(self, o)

    def __radd__(self, o):
        return _concat_or_add(_to_expr(o), self)

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
    def __invert__(self): return Expression(_ext.not_(self._e), calls=self._calls, name=self._name)
    def __neg__(self): return Expression(_ext.negate(self._e), calls=self._calls, name=self._name)
    def __abs__(self): return _call("abs", self)
    __hash__ = object.__hash__

    def __bool__(self):
        raise TypeError("an Expression has no truth value; use & | ~ instead of and / or / not")

    # --- predicates and conditionals ------------------------------------------------------------
    def is_null(self) -> "Expression":
        return Expression(_ext.is_null(self._e), calls=self._calls, name=self._name)
    def not_null(self) -> "Expression":
        return Expression(_ext.not_null(self._e), calls=self._calls, name=self._name)
    def is_in(self, values: Iterable[Any]) -> "Expression":
        if isinstance(values, Expression):
            raise TypeError("is_in takes a list of values, not an Expression")
        return Expression(_ext.is_in(self._e, list(values)), calls=self._calls, name=self._name)
    def between(self, lower, upper) -> "Expression":
        lo, hi = _to_expr(lower), _to_expr(upper)
        return Expression(_ext.between(self._e, lo._e, hi._e), calls=_merge(self, lo, hi),
                          name=self._name)
    def fill_null(self, value) -> "Expression":
        return coalesce(self, value)
    def fill_nan(self, value) -> "Expression":
        return self.float.fill_nan(value)
    def is_nan(self) -> "Expression": return self.float.is_nan()
    def not_nan(self) -> "Expression": return self.float.not_nan()
    def is_inf(self) -> "Expression": return self.float.is_inf()
    def eq_null_safe(self, other) -> "Expression":
        """Equal, with null equal to null (SQL's IS NOT DISTINCT FROM)."""
        o = _to_expr(other)
        both_null = self.is_null() & o.is_null()
        return (both_null | (self.not_null() & o.not_null() & (self == o)).fill_null(False)).alias(self._name)
    def if_else(self, if_true, if_false) -> "Expression":
        a, b = _to_expr(if_true), _to_expr(if_false)
        return Expression(_ext.if_else(self._e, a._e, b._e), calls=_merge(self, a, b), name=a._name)
    def apply(self, fn, return_dtype) -> "Expression":
        """`fn` called on each non-null value: a row-wise UDF over this column."""
        from .udf import func  # udf.py builds on this module, so it cannot be imported above

        return func(fn, return_dtype=return_dtype, name=getattr(fn, "__name__", "apply"))(self)

    # --- math -----------------------------------------------------------------------------------
    def abs(self): return _call("abs", self)
    def round(self, decimals: int = 0): return _call("round", self, decimals)
    def floor(self): return _call("floor", self)
    def ceil(self): return _call("ceil", self)
    def sqrt(self): return _call("sqrt", self)
    def exp(self): return _call("exp", self)
    def log(self, base=None):
        return _call("ln", self) if base is None else _call("log", base, self, name=self._name)
    def log2(self): return _call("log2", self)
    def log10(self): return _call("log10", self)
    def ln(self): return _call("ln", self)
    def sin(self): return _call("sin", self)
    def cos(self): return _call("cos", self)
    def tan(self): return _call("tan", self)
    def cbrt(self): return _call("pow", self, 1.0 / 3.0)
    def negate(self): return -self
    def sign(self): return _call("sign", self)
    def clip(self, lower, upper): return _call("clip", self, lower, upper)
    def hash(self): return _call("hash", self)

    def minhash(self, num_hashes: int, ngram_size: int, seed: int = 1) -> "Expression":
        """MinHash signature of a string's word n-grams: `num_hashes` uint32 values."""
        return _call("minhash", self, num_hashes, ngram_size, seed)

    # --- aggregates -----------------------------------------------------------------------------
    def _aggregate(self, name, *args):
        arguments = [self] + [_to_expr(a) for a in args]
        return Expression(_ext.aggregate(name, [a._e for a in arguments]), agg=(name, arguments),
                          calls=_merge(*arguments), name=self._name)

    def _list_aggregate(self, function, *args, distinct=False):
        """A list function over the group's values (median, percentiles, sets)."""
        values = self._aggregate("list")
        if distinct:
            values = _call("list_distinct", values)
        return _call(function, values, *args, name=self._name)

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
    def agg_set(self):
        """The group's distinct non-null values as a list."""
        return _call("list_distinct", self._aggregate("list"), name=self._name)
    def agg_concat(self):
        """The group's strings joined with no separator."""
        return self._aggregate("string_agg", "")
    def median(self):
        """The group's median (interpolated between the two middle values)."""
        return self._list_aggregate("list_quantile_cont", 0.5)
    def approx_percentiles(self, percentiles):
        """A percentile (one float) or a list of them (a list per group), interpolated."""
        if isinstance(percentiles, (list, tuple)):
            return _list_of([self._list_aggregate("list_quantile_cont", float(p)) for p in percentiles],
                            self._name)
        return self._list_aggregate("list_quantile_cont", float(percentiles))
    def product(self):
        """The product of the group's non-null values, a float (null when there are none)."""
        return self._aggregate("product")
    def skew(self):
        raise NotImplementedError("skew() is not supported yet")
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
        if not isinstance(window, _WindowSpec):
            raise TypeError("over() takes a flotilla.Window")
        if self._window is not None:
            call = self._window.with_window(window)
        elif self._agg is not None:
            name, args = self._agg
            call = _WindowCall(name, args, window, None)
        else:
            raise ValueError(f"over() needs an aggregate or a window function, got {self!r}")
        return Expression(_ext.col(call.output), call, calls={call.output: call}, name=self._name)

    # --- namespaces -----------------------------------------------------------------------------
    @property
    def str(self) -> "StringNamespace": return StringNamespace(self)

    @property
    def dt(self) -> "DatetimeNamespace": return DatetimeNamespace(self)

    @property
    def list(self) -> "ListNamespace": return ListNamespace(self)

    @property
    def float(self) -> "FloatNamespace": return FloatNamespace(self)

    @property
    def struct(self) -> "StructNamespace": return StructNamespace(self)

    @property
    def image(self) -> "ImageNamespace": return ImageNamespace(self)

    @property
    def url(self) -> "UrlNamespace": return UrlNamespace(self)

    def __getitem__(self, field: str) -> "Expression":
        """A struct's field: col("s")["f"]."""
        if not isinstance(field, str):
            raise TypeError("expr[...] takes a struct field name; use .list.get(i) for list items")
        return self.struct.get(field)

    # --- Daft's methods for functions the namespaces also have ----------------------------------
    def __getattr__(self, name: str):
        # Daft spells many namespace functions as methods too (col("s").lower(),
        # col("d").year()); the namespaces are looked in, in order.
        if name.startswith("_"):
            raise AttributeError(name)
        for ns in (StringNamespace, DatetimeNamespace, ListNamespace):
            fn = ns.__dict__.get(name)
            if fn is not None:
                return fn.__get__(ns(self))
        raise AttributeError(f"'Expression' has no method {name!r}")


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


def _merge(*exprs) -> dict:
    calls = {}
    for e in exprs:
        calls.update(e._calls)
    return calls


def _call(function: str, *args, name: str | None = None) -> Expression:
    """Scalar function `function` over `args`; named after its first argument unless `name`."""
    exprs = [_to_expr(a) for a in args]
    if name is None:
        name = exprs[0]._name if exprs else function
    return Expression(_ext.call(function, [e._e for e in exprs]), calls=_merge(*exprs), name=name)


def _concat_or_add(a: "Expression", b) -> "Expression":
    # `+` joins strings, as Daft's does: at once when a side is a string literal; when both sides
    # are plain columns, by their types once the DataFrame is known (a _PlusCall); else it adds.
    b = _to_expr(b)
    if a._is_string_literal() or b._is_string_literal():
        return _call("concat", a, b, name=a._name)
    if a._is_column() and b._is_column():
        call = _PlusCall(a, b)
        calls = _merge(a, b)
        calls[call.output] = call
        return Expression(_ext.col(call.output), calls=calls, name=a._name)
    return a._bin("add", b)


class _PlusCall:
    """`a + b` of two columns: concat if either is a string column, else add; its value is the
    column `output` once planned (the DataFrame knows the columns' types)."""

    _ids = iter(range(1 << 62))

    def __init__(self, a: "Expression", b: "Expression"):
        self.arguments = [a, b]
        self.output = f"__plus_{next(_PlusCall._ids)}"

    def expression(self, types: dict):
        a, b = self.arguments
        strings = any(types.get(x._e.name(), "").endswith("string") for x in (a, b))
        if strings:
            return _ext.call("concat", [a._e, b._e])
        return _ext.binary("add", a._e, b._e)


def _list_of(items: list, name: str) -> Expression:
    return _call("list_value", *items, name=name)


def col(name: str) -> Expression:
    """A reference to the column `name`."""
    if not isinstance(name, str):
        raise TypeError(f"col() takes a column name, got {type(name).__name__}")
    return Expression(_ext.col(name), name=name)


def lit(value: Any) -> Expression:
    """A constant: None, bool, int, float, str, bytes, date, datetime, Decimal."""
    return Expression(_ext.lit(value), name="literal")


def coalesce(*args) -> Expression:
    """The first non-null argument."""
    exprs = [_to_expr(a) for a in args]
    return Expression(_ext.coalesce([e._e for e in exprs]), calls=_merge(*exprs), name=exprs[0]._name)


def _window_function(function: str, args) -> Expression:
    call = _WindowCall(function, [_to_expr(a) for a in args], None, None)
    name = call.arguments[0]._name if call.arguments else function
    return Expression(_ext.col(call.output), call, calls={call.output: call}, name=name)


def row_number() -> Expression:
    return _window_function("row_number", [])


def rank() -> Expression:
    return _window_function("rank", [])


def dense_rank() -> Expression:
    return _window_function("dense_rank", [])


MONOTONIC_ID = "__monotonic_id"


def monotonically_increasing_id() -> Expression:
    """Unique, increasing int64 ids (partition index * 2^36 + row), for with_column."""
    return Expression(_ext.col(MONOTONIC_ID), calls={MONOTONIC_ID: MONOTONIC_ID}, name="id")


# The namespaces (str, dt, list, float, struct) live beside this module; imported last because
# they build on the functions above.
from .expression_namespaces import (DatetimeNamespace, FloatNamespace,  # noqa: E402
                                    ImageNamespace, ListNamespace, StringNamespace,
                                    StructNamespace, UrlNamespace)
