"""SQL inside the DataFrame API: `sql(query)` over DataFrames (passed by name or found among
the caller's variables) and `sql_expr(text)`, an expression written in SQL.
"""

from __future__ import annotations

import inspect
import re
from typing import TYPE_CHECKING

from . import _flotilla as _ext
from . import runner as _runner
from .expressions import Expression

if TYPE_CHECKING:
    from .dataframe import DataFrame

__all__ = ["sql", "sql_expr"]


def _caller_dataframes(depth: int) -> dict:
    """The DataFrames among the caller's variables, by name (locals over globals)."""
    frame = inspect.currentframe()
    try:
        for _ in range(depth + 1):
            frame = frame.f_back
        scope = {**frame.f_globals, **frame.f_locals}
    finally:
        del frame
    from .dataframe import DataFrame

    return {n: v for n, v in scope.items() if isinstance(v, DataFrame)}


def sql(query: str, register_globals: bool = True, **dataframes) -> DataFrame:
    """Runs SQL over DataFrames: those passed by name (sql("SELECT * FROM t", t=df)) and, unless
    register_globals=False, the DataFrames in the caller's local and global variables."""
    from .dataframe import DataFrame

    if register_globals:
        dataframes = {**_caller_dataframes(1), **dataframes}
    session = _ext.Session()
    pools = []
    for name, df in dataframes.items():
        if not isinstance(df, DataFrame):
            raise TypeError(f"sql(): {name} must be a DataFrame")
        session.register(name, df._df)
        pools += list(df._pools)
    # Uncorrelated scalar subqueries are answered while planning: on the same runner.
    _runner.current().answer_subqueries(session, pools)
    return DataFrame(session.plan(query), pools)


class _SqlCall:
    """A SQL expression; its value is the column `output` once planned over the DataFrame."""

    _ids = iter(range(1 << 62))

    def __init__(self, text: str):
        self.text = text
        self.output = f"__sql_{next(_SqlCall._ids)}"


_SQL_WORDS = {"case", "when", "then", "else", "end", "and", "or", "not", "is", "null", "in",
              "between", "like", "ilike", "true", "false", "as", "interval", "date", "timestamp",
              "distinct", "exists", "select", "from", "where", "escape", "similar", "to", "at",
              "time", "zone", "collate", "over", "partition", "by", "order", "asc", "desc"}


def _first_column(text: str) -> str:
    """The first name the SQL text reads as a column (Daft names the expression after it)."""
    for m in re.finditer(r"'(?:[^']|'')*'|\"((?:[^\"]|\"\")*)\"|([A-Za-z_][A-Za-z_0-9]*)(\s*\()?", text):
        if m.group(1) is not None:
            return m.group(1).replace('""', '"')
        word = m.group(2)
        if word and not m.group(3) and word.lower() not in _SQL_WORDS:
            return word
    return "literal"


def sql_expr(text: str) -> Expression:
    """An expression written in SQL over the DataFrame's columns: sql_expr("a + 1"),
    sql_expr("CASE WHEN x > 0 THEN 'pos' END"). Named, as Daft, after the first column it reads.
    Row-level only: write aggregates with the Expression methods."""
    if not isinstance(text, str) or not text.strip():
        raise TypeError(f"sql_expr takes the text of a SQL expression, got {text!r}")
    call = _SqlCall(text)
    return Expression(_ext.col(call.output), calls={call.output: call}, name=_first_column(text))
