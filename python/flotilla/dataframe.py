"""The DataFrame: a lazy query over the engine. Nothing runs until an action (collect, show,
to_pydict, to_pandas, count_rows, write_*, iter_partitions, explain(analyze=True)).
"""

from __future__ import annotations

import os
from typing import Iterator

from . import _flotilla as _ext
from . import runner as _runner
from . import udf as _udf
from .datatype import Field, _parse, engine_type
from .expressions import Expression, _PlusCall, _column_list, coalesce, col
from .sql_frames import _SqlCall, sql, sql_expr
from .window_spec import _WindowCall

__all__ = ["DataFrame", "GroupedDataFrame", "Schema", "read_parquet", "read_csv", "read_json", "read_warc",
           "from_pydict", "from_pylist", "from_pandas", "sql", "sql_expr"]


class Schema:
    """Column names and types: iterating gives Fields, which unpack as (name, DataType)."""

    def __init__(self, fields):
        self._fields = [Field(name, _parse(dtype)) for name, dtype, _ in fields]

    def column_names(self) -> list:
        return [f.name for f in self._fields]

    def __getitem__(self, name: str) -> Field:
        for f in self._fields:
            if f.name == name:
                return f
        raise KeyError(f"column '{name}' not found; the columns are {self.column_names()}")

    def __contains__(self, name: str) -> bool:
        return name in self.column_names()

    def to_pydict(self) -> dict:
        return {f.name: f.dtype for f in self._fields}

    def __iter__(self):
        return iter(self._fields)

    def __len__(self) -> int:
        return len(self._fields)

    def __repr__(self) -> str:
        return "\n".join(f"{n}: {t}" for n, t in self._fields)


class Partition:
    """The rows of one output partition."""

    def __init__(self, batch):
        self._batch = batch

    def __len__(self) -> int:
        return self._batch.num_rows

    def to_pydict(self) -> dict:
        return self._batch.to_pydict()

    def to_pandas(self):
        return _batch_to_pandas(self._batch)


def _batch_to_pandas(batch):
    import pandas as pd

    names = [n for n, _, _ in batch.schema()]
    return pd.DataFrame({n: batch.to_numpy(i) for i, n in enumerate(names)}, columns=names)


class DataFrame:
    """A lazily evaluated table."""

    def __init__(self, df, pools=()):
        self._df = df
        self._pools = tuple(pools)  # actor pools to start when the query starts
        self._result = None
        self._collected = False  # _df is an in-memory source of this query's partitions

    # --- schema ---------------------------------------------------------------------------------
    def schema(self) -> Schema:
        return Schema(self._df.schema())

    @property
    def column_names(self) -> list:
        return list(self._df.column_names())

    @property
    def columns(self) -> list:
        return [col(n) for n in self.column_names]

    def __getitem__(self, name) -> Expression:
        if isinstance(name, (list, tuple)):
            return self.select(*name)
        if name not in self.column_names:
            raise ValueError(f"column '{name}' not found; the columns are {self.column_names}")
        return col(name)

    def __contains__(self, name: str) -> bool:
        return name in self.column_names

    def __repr__(self) -> str:
        return f"DataFrame({', '.join(f'{n}: {t}' for n, t in self.schema())})"

    def _wrap(self, df, pools=()) -> "DataFrame":
        return DataFrame(df, self._pools + tuple(pools))

    # --- lowering UDF and window calls ----------------------------------------------------------
    def _lower(self, exprs: list):
        """Adds the UDF, window and id nodes the expressions need; returns (engine df, pools)."""
        df = self._df
        pools = []
        present = set(df.column_names())
        pending = []  # (placeholder, call), dependencies first
        seen = set()

        def visit(e: Expression):
            for name in e._e.columns():
                if name in seen or name in present or name not in e._calls:
                    continue
                seen.add(name)
                call = e._calls[name]
                if isinstance(call, (_udf._UdfCall, _PlusCall)):
                    for a in call.arguments:
                        visit(a)
                elif isinstance(call, _WindowCall):
                    for a in call.arguments:
                        visit(a)
                    if call.window is not None:
                        for a in call.window._partition + call.window._order:
                            visit(a)
                pending.append((name, call))

        for e in exprs:
            visit(e)
        for name, call in pending:
            if isinstance(call, _udf._UdfCall):
                u = call.udf
                df = df.udf_project(u.name, u.batch_function(), [a._e for a in call.arguments],
                                    list(df.column_names()), name, u.return_dtype, u.concurrency)
                pools.append(u)  # what a worker needs to run it, and a pool to start
            elif isinstance(call, _WindowCall):
                w = call.window
                if w is None:
                    raise ValueError(f"window function {call.function}() needs .over(Window...)")
                df = df.window([e._e for e in w._partition], [e._e for e in w._order], w._desc,
                               w._nulls_first, [call.spec()])
            elif isinstance(call, _PlusCall):
                types = {n: t for n, t, _ in df.schema()}
                df = df.select([_ext.col(n) for n in df.column_names()] +
                               [_ext.alias(call.expression(types), name)])
            elif isinstance(call, _SqlCall):
                session = _ext.Session()
                session.register("this", df)
                try:
                    df = session.plan(f"SELECT *, ({call.text}) AS \"{name}\" FROM this")
                except ValueError as e:
                    raise ValueError(f"sql_expr({call.text!r}): {e}") from None
            else:
                df = df.with_monotonic_id(name)
        return df, pools

    def _project(self, exprs: list) -> "DataFrame":
        exprs = [e._named() for e in exprs]
        df, pools = self._lower(exprs)
        return self._wrap(df.select([e._e for e in exprs]), pools)

    def _expand(self, columns) -> list:
        """Column names and expressions with "*" standing for every column."""
        out = []
        for c in columns:
            if isinstance(c, str) and c == "*":
                out += [col(n) for n in self.column_names]
            elif isinstance(c, (list, tuple)):
                out += self._expand(c)
            else:
                out += _column_list([c])
        return out

    # --- transformations ------------------------------------------------------------------------
    def select(self, *columns) -> "DataFrame":
        return self._project(self._expand(columns))

    def with_column(self, name: str, expr: Expression) -> "DataFrame":
        return self.with_columns({name: expr})

    def with_columns(self, columns: dict) -> "DataFrame":
        exprs = []
        existing = self.column_names
        for n in existing:
            exprs.append(columns[n].alias(n) if n in columns else col(n))
        for n, e in columns.items():
            if n not in existing:
                exprs.append(e.alias(n))
        return self._project(exprs)

    def with_column_renamed(self, existing: str, new: str) -> "DataFrame":
        return self.with_columns_renamed({existing: new})

    def with_columns_renamed(self, renames: dict) -> "DataFrame":
        """Columns renamed by {old: new}; the others kept, in order."""
        for old in renames:
            if old not in self.column_names:
                raise ValueError(f"column '{old}' not found; the columns are {self.column_names}")
        return self.select(*[col(n).alias(renames[n]) if n in renames else col(n)
                             for n in self.column_names])

    def exclude(self, *names) -> "DataFrame":
        for n in names:
            if n not in self.column_names:
                raise ValueError(f"column '{n}' not found; the columns are {self.column_names}")
        return self.select(*[n for n in self.column_names if n not in names])

    def where(self, predicate) -> "DataFrame":
        if isinstance(predicate, str):  # a SQL condition
            return sql(f"SELECT * FROM this WHERE {predicate}", register_globals=False, this=self)
        df, pools = self._lower([predicate])
        out = self._wrap(df.where(predicate._e), pools)
        return out if df is self._df else out.select(*self.column_names)

    filter = where

    def groupby(self, *keys) -> "GroupedDataFrame":
        return GroupedDataFrame(self, _column_list(keys))

    group_by = groupby

    def agg(self, *aggregations) -> "DataFrame":
        aggs = [a._named() for a in _column_list(aggregations)]
        df, pools = self._lower(aggs)
        return self._wrap(df.agg([a._e for a in aggs]), pools)

    def _each_column(self, fn: str, columns) -> "DataFrame":
        names = [c if isinstance(c, str) else c.name() for c in columns] or self.column_names
        return self.agg(*[getattr(col(n), fn)() for n in names])

    def sum(self, *columns) -> "DataFrame":
        """One row: each column's sum (every column when none are named)."""
        return self._each_column("sum", columns)

    def mean(self, *columns) -> "DataFrame": return self._each_column("mean", columns)
    avg = mean
    def min(self, *columns) -> "DataFrame": return self._each_column("min", columns)
    def max(self, *columns) -> "DataFrame": return self._each_column("max", columns)
    def stddev(self, *columns) -> "DataFrame": return self._each_column("stddev", columns)
    def any_value(self, *columns) -> "DataFrame": return self._each_column("any_value", columns)
    def agg_list(self, *columns) -> "DataFrame": return self._each_column("agg_list", columns)
    def agg_set(self, *columns) -> "DataFrame": return self._each_column("agg_set", columns)
    def agg_concat(self, *columns) -> "DataFrame": return self._each_column("agg_concat", columns)

    def count(self, *columns) -> "DataFrame":
        """One row: the number of rows as "count", or with columns named (or "*"), each
        column's number of non-null values under its name."""
        if not columns or columns == ("*",):
            return self.agg(Expression(_ext.alias(_ext.aggregate("count_star", []), "count"),
                                       name="count"))
        return self._each_column("count", columns)

    def join(self, other: "DataFrame", on=None, left_on=None, right_on=None, how: str = "inner",
             strategy: str | None = None, prefix: str | None = None,
             suffix: str | None = None) -> "DataFrame":
        """Joins on equal keys: `on` (names or expressions in both) or `left_on` / `right_on`.
        how: inner, left, right, outer, semi, anti, cross. strategy: hash, sort_merge, broadcast
        or None (auto). With `on`, each key is one column (in a right or outer join, a key only
        the right side has keeps its value). A right column whose name the left side also has
        is renamed "right.<name>", or prefix + name + suffix when either is given."""
        if how == "cross":
            joined = self._wrap(self._df.join(other._df, [], [], "cross", "auto"), other._pools)
            return self._rename_right(joined, other, prefix, suffix, set())
        if on is not None:
            left_on = right_on = on
        if left_on is None or right_on is None:
            raise ValueError("join needs on= or both left_on= and right_on=")
        lk = _column_list([left_on] if not isinstance(left_on, (list, tuple)) else left_on)
        rk = _column_list([right_on] if not isinstance(right_on, (list, tuple)) else right_on)
        joined = self._df.join(other._df, [k._e for k in lk], [k._e for k in rk], how, strategy or "auto")
        out = self._wrap(joined, other._pools)
        drop = set()
        if on is not None and how not in ("semi", "anti"):
            # One copy of each key column, as Daft: the right side's keys are dropped. In a right
            # or outer join a key only the right side has comes from there (as SQL's USING).
            names = [k._name for k in lk if k._e.name() == k._name and k._name in other.column_names]
            right_names = [n for n in out.column_names if n.startswith("right.")]
            drop = {f"right.{n}" for n in names if f"right.{n}" in right_names}
            if drop:
                keep = [n for n in out.column_names if n not in drop]
                if how in ("right", "outer", "full"):
                    keep = [coalesce(col(n), col(f"right.{n}")).alias(n) if f"right.{n}" in drop
                            else n for n in keep]
                out = out.select(*keep)
        return self._rename_right(out, other, prefix, suffix, drop)

    def _rename_right(self, out: "DataFrame", other: "DataFrame", prefix, suffix, dropped):
        if prefix is None and suffix is None:
            return out
        renames = {}
        for n in other.column_names:
            engine_name = f"right.{n}"
            if engine_name in out.column_names and engine_name not in dropped:
                renames[engine_name] = f"{prefix or ''}{n}{suffix or ''}"
        return out.with_columns_renamed(renames) if renames else out

    def sort(self, by, desc=False, nulls_first=None) -> "DataFrame":
        keys = _column_list([by] if not isinstance(by, (list, tuple)) else by)
        descs = list(desc) if isinstance(desc, (list, tuple)) else [bool(desc)] * len(keys)
        nf = list(nulls_first) if isinstance(nulls_first, (list, tuple)) else [nulls_first] * len(keys)
        df, pools = self._lower(keys)
        out = self._wrap(df.sort([k._e for k in keys], descs, nf), pools)
        return out if df is self._df else out.select(*self.column_names)

    def limit(self, n: int) -> "DataFrame":
        return self._wrap(self._df.limit(int(n)))

    def offset(self, n: int) -> "DataFrame":
        return self._wrap(self._df.offset(int(n)))

    def distinct(self, *on) -> "DataFrame":
        return self._wrap(self._df.distinct([c if isinstance(c, str) else c.name() for c in on]))

    drop_duplicates = distinct
    unique = distinct

    def explode(self, *columns) -> "DataFrame":
        return self._wrap(self._df.explode([c if isinstance(c, str) else c.name() for c in columns]))

    def unpivot(self, ids, values=None, variable_name: str = "variable",
                value_name: str = "value") -> "DataFrame":
        ids = [ids] if isinstance(ids, str) else [c if isinstance(c, str) else c.name() for c in ids]
        if values is None:
            values = [n for n in self.column_names if n not in ids]
        values = [values] if isinstance(values, str) else [c if isinstance(c, str) else c.name() for c in values]
        return self._wrap(self._df.unpivot(ids, values, variable_name, value_name))

    melt = unpivot

    def pivot(self, group_by, pivot_col, value_col, agg_fn: str, names: list | None = None) -> "DataFrame":
        groups = _column_list([group_by] if not isinstance(group_by, (list, tuple)) else group_by)
        pivot_e = _column_list([pivot_col])[0]
        value_e = _column_list([value_col])[0]
        if names is None:
            distinct = self.select(pivot_e).distinct().sort(pivot_e).to_pydict()
            names = [str(v) for v in next(iter(distinct.values())) if v is not None]
        return self._wrap(self._df.pivot([g._e for g in groups], pivot_e._e, value_e._e, agg_fn,
                                         [str(n) for n in names]))

    def sample(self, fraction: float | None = None, size: int | None = None,
               with_replacement: bool = False, seed: int | None = None) -> "DataFrame":
        if (fraction is None) == (size is None):
            raise ValueError("sample takes fraction= or size=")
        seed = 0 if seed is None else int(seed)
        if fraction is not None:
            return self._wrap(self._df.sample_fraction(float(fraction), with_replacement, seed))
        return self._wrap(self._df.sample_size(int(size), with_replacement, seed))

    def concat(self, other: "DataFrame") -> "DataFrame":
        return self._wrap(self._df.concat(other._df), other._pools)

    union_all = concat

    def union(self, other: "DataFrame") -> "DataFrame":
        return self.concat(other).distinct()

    def _set_operation(self, other: "DataFrame", operation: str) -> "DataFrame":
        if len(self.column_names) != len(other.column_names):
            raise ValueError(f"{operation.lower()}: the DataFrames have {len(self.column_names)} and "
                             f"{len(other.column_names)} columns")
        return sql(f"SELECT * FROM left_side {operation} SELECT * FROM right_side",
                   register_globals=False, left_side=self, right_side=other)

    def intersect(self, other: "DataFrame") -> "DataFrame":
        """The distinct rows both DataFrames have (null equal to null)."""
        return self._set_operation(other, "INTERSECT")

    def intersect_all(self, other: "DataFrame") -> "DataFrame":
        """Rows both have, each as many times as the smaller count."""
        return self._set_operation(other, "INTERSECT ALL")

    def except_distinct(self, other: "DataFrame") -> "DataFrame":
        """The distinct rows of this DataFrame that `other` does not have."""
        return self._set_operation(other, "EXCEPT")

    def except_all(self, other: "DataFrame") -> "DataFrame":
        """This DataFrame's rows less `other`'s, counting duplicates."""
        return self._set_operation(other, "EXCEPT ALL")

    def drop_null(self, *columns) -> "DataFrame":
        """The rows with no null in `columns` (every column when none are named)."""
        names = [c if isinstance(c, str) else c.name() for c in columns] or self.column_names
        keep = None
        for n in names:
            cond = col(n).not_null()
            keep = cond if keep is None else keep & cond
        return self if keep is None else self.where(keep)

    def drop_nan(self, *columns) -> "DataFrame":
        """The rows with no NaN in the float columns among `columns` (all when none named)."""
        names = [c if isinstance(c, str) else c.name() for c in columns] or self.column_names
        types = self.schema().to_pydict()
        keep = None
        for n in names:
            if not types[n].is_floating():
                if columns:
                    raise TypeError(f"drop_nan: column '{n}' is {types[n]!r}, not a float column")
                continue
            cond = ~col(n).float.is_nan()
            cond = cond.fill_null(True)  # a null is not a NaN
            keep = cond if keep is None else keep & cond
        return self if keep is None else self.where(keep)

    def describe(self) -> "DataFrame":
        """The schema as rows: column_name and type."""
        return from_pydict({"column_name": self.column_names,
                            "type": [repr(f.dtype) for f in self.schema()]})

    def summarize(self) -> "DataFrame":
        """One row per column: column, type, min, max (as strings), count, count_nulls,
        approx_count_distinct."""
        aggs = []
        for i, n in enumerate(self.column_names):
            c = col(n)
            aggs += [c.min().cast("string").alias(f"min{i}"), c.max().cast("string").alias(f"max{i}"),
                     c.count().alias(f"count{i}"), c.is_null().if_else(1, 0).sum().alias(f"nulls{i}"),
                     c.approx_count_distinct().alias(f"distinct{i}")]
        row = self.agg(*aggs).to_pydict() if aggs else {}
        names = self.column_names
        return from_pydict({
            "column": names,
            "type": [repr(f.dtype) for f in self.schema()],
            "min": [row[f"min{i}"][0] for i in range(len(names))],
            "max": [row[f"max{i}"][0] for i in range(len(names))],
            "count": [row[f"count{i}"][0] for i in range(len(names))],
            "count_nulls": [row[f"nulls{i}"][0] or 0 for i in range(len(names))],
            "approx_count_distinct": [row[f"distinct{i}"][0] for i in range(len(names))],
        }, schema={"column": "string", "type": "string", "min": "string", "max": "string",
                   "count": "uint64", "count_nulls": "uint64", "approx_count_distinct": "uint64"})

    def num_partitions(self) -> int:
        """How many partitions the query makes (it runs the query)."""
        return sum(1 for _ in self.iter_partitions())

    def into_partitions(self, n: int) -> "DataFrame":
        return self._wrap(self._df.into_partitions(int(n)))

    def repartition(self, n: int | None, *keys) -> "DataFrame":
        """Splits the rows into `n` partitions by the hash of `keys`, or at random without keys.
        `n` None (with keys): the runner picks the count, as it does for an aggregation's
        shuffle, from its input's size."""
        if n is None:
            if not keys:
                raise ValueError("repartition(None) needs partition keys: without them, give "
                                 "the number of partitions")
            n = 0
        elif int(n) < 1:
            raise ValueError(f"repartition: the number of partitions must be at least 1, not {n}")
        return self._wrap(self._df.repartition(int(n), [k._e for k in _column_list(keys)]))

    def _add_monotonically_increasing_id(self, column_name: str = "id") -> "DataFrame":
        return self._wrap(self._df.with_monotonic_id(column_name))

    # --- actions --------------------------------------------------------------------------------
    def _batch(self):
        if self._result is None:
            self._result = _runner.current().collect(self._df, self._pools)
        return self._result

    def collect(self) -> "DataFrame":
        """Runs the query and keeps its result partitions: later actions on this DataFrame, and
        DataFrames built from it afterwards, start from them instead of running it again."""
        if not self._collected:
            batches = list(_runner.current().partitions(self._df, self._pools))
            self._df = _ext.from_partitions(self._df, batches)
            self._pools = ()
            self._result = None
            self._collected = True
        return self

    def to_pydict(self) -> dict:
        return self._batch().to_pydict()

    def to_pylist(self) -> list:
        d = self.to_pydict()
        names = list(d)
        return [dict(zip(names, row)) for row in zip(*d.values())] if names else []

    def to_pandas(self):
        return _batch_to_pandas(self._batch())

    def show(self, n: int = 8) -> None:
        """Prints the first n rows as a table; its footer says when there are more."""
        rows = self.limit(n + 1)._batch()  # one more than shown: are there more?
        more = rows.num_rows > n
        print((rows.slice(0, n) if more else rows).to_string(n, 32, more))

    def __len__(self) -> int:
        return self.count_rows()

    def count_rows(self) -> int:
        if self._result is not None:
            return self._result.num_rows
        return _runner.current().count_rows(self._df, self._pools)

    def iter_partitions(self) -> Iterator[Partition]:
        for batch in _runner.current().partitions(self._df, self._pools):
            yield Partition(batch)

    def iter_rows(self) -> Iterator[dict]:
        yield from self.to_pylist()

    def explain(self, analyze: bool = False, show_all: bool = True) -> str:
        """The plan as built and as optimized (and with analyze=True the runtime statistics of a
        local run); with the distributed runner set, also the pipeline nodes it runs the query
        as. Printed and returned."""
        text = _runner.current().explain(self._df, self._pools, analyze)
        print(text)
        return text

    def _write(self, root: str, fmt: str, partition_cols, compression) -> "DataFrame":
        cols = [] if partition_cols is None else [c if isinstance(c, str) else c.name() for c in partition_cols]
        files = _runner.current().write(self._df, self._pools, os.fspath(root), fmt, cols, compression)
        return from_pydict(files.to_pydict())

    def write_parquet(self, root: str, partition_cols=None, compression: str | None = None) -> "DataFrame":
        """Writes files under directory `root`; returns a DataFrame of the files written."""
        return self._write(root, "parquet", partition_cols, compression)

    def write_csv(self, root: str, partition_cols=None) -> "DataFrame":
        return self._write(root, "csv", partition_cols, None)

    def write_json(self, root: str, partition_cols=None) -> "DataFrame":
        return self._write(root, "json", partition_cols, None)


class GroupedDataFrame:
    def __init__(self, df: DataFrame, keys: list):
        self._df = df
        self._keys = [k._named() for k in keys]

    def agg(self, *aggregations) -> DataFrame:
        aggs = [a._named() for a in _column_list(aggregations)]
        df, pools = self._df._lower(self._keys + aggs)
        return self._df._wrap(df.groupby_agg([k._e for k in self._keys], [a._e for a in aggs]), pools)

    def _each(self, fn: str, columns) -> DataFrame:
        names = columns or [n for n in self._df.column_names
                            if n not in {k.name() for k in self._keys}]
        return self.agg(*[getattr(col(n), fn)().alias(n) for n in names])

    def sum(self, *columns): return self._each("sum", list(columns))
    def mean(self, *columns): return self._each("mean", list(columns))
    avg = mean
    def min(self, *columns): return self._each("min", list(columns))
    def max(self, *columns): return self._each("max", list(columns))
    def stddev(self, *columns): return self._each("stddev", list(columns))
    def any_value(self, *columns): return self._each("any_value", list(columns))
    def agg_list(self, *columns): return self._each("agg_list", list(columns))
    def agg_set(self, *columns): return self._each("agg_set", list(columns))
    def agg_concat(self, *columns): return self._each("agg_concat", list(columns))

    def count(self, *columns) -> DataFrame:
        """Rows per group as "count", or each named column's non-null values per group."""
        if columns:
            return self._each("count", list(columns))
        return self.agg(Expression(_ext.alias(_ext.aggregate("count_star", []), "count"), name="count"))


def _paths(path) -> list:
    if isinstance(path, (list, tuple)):
        return [os.fspath(p) for p in path]
    return [os.fspath(path)]


def read_parquet(path) -> DataFrame:
    """Parquet files: a path, directory, glob or URL, or a list of them."""
    return DataFrame(_ext.read_parquet(_paths(path)))


def read_csv(path, has_headers: bool = True, delimiter: str | None = None,
             schema: dict | None = None) -> DataFrame:
    """CSV files. `schema` ({"name": DataType or type name, ...}) turns inference off."""
    fields = None if schema is None else [(n, engine_type(t)) for n, t in schema.items()]
    return DataFrame(_ext.read_csv(_paths(path), has_headers, delimiter or ",", fields))


def read_json(path) -> DataFrame:
    """Newline-delimited JSON files."""
    return DataFrame(_ext.read_json(_paths(path)))


def read_warc(path, ignore_errors: bool = False) -> DataFrame:
    """WARC and WET files (web archives such as Common Crawl's), plain or gzip: one row per
    record with warc_version, record_id, record_type, target_uri, date, content_type,
    content_length, headers (a list of {name, value}), payload (bytes) and record_offset.
    ignore_errors=True skips damaged records instead of failing."""
    return DataFrame(_ext.read_warc(_paths(path), ignore_errors))


def from_pydict(data: dict, schema: dict | None = None) -> DataFrame:
    """Columns from lists or numpy arrays: {"a": [1, 2], "b": ["x", None]}. `schema` gives some
    or all columns' types ({"a": DataType.int32()}); the others are inferred."""
    if not isinstance(data, dict):
        raise TypeError(f"from_pydict takes a dict of columns, got {type(data).__name__}")
    names = list(data)
    schema = dict(schema or {})
    unknown = [n for n in schema if n not in data]
    if unknown:
        raise ValueError(f"from_pydict: schema names {unknown}, which are not columns of the data")
    types = [engine_type(schema[n]) if n in schema else None for n in names]
    return DataFrame(_ext.from_columns(names, [data[n] for n in names], types))


def from_pylist(rows: list, schema: dict | None = None) -> DataFrame:
    """Rows as dicts: [{"a": 1, "b": "x"}, ...]; a key missing from a row is null there."""
    names: dict = {}
    for i, r in enumerate(rows):
        if not isinstance(r, dict):
            raise TypeError(f"from_pylist takes a list of dicts; row {i} is {type(r).__name__}")
        for k in r:
            names.setdefault(k, None)
    return from_pydict({n: [r.get(n) for r in rows] for n in names}, schema=schema)


def from_pandas(df) -> DataFrame:
    names = [str(c) for c in df.columns]
    columns = []
    for c in df.columns:
        series = df[c]
        values = series.to_numpy()
        if values.dtype.kind == "O":
            values = [None if (v is None or (isinstance(v, float) and v != v)) else v for v in values]
        columns.append(values)
    return DataFrame(_ext.from_columns(names, columns, [None] * len(names)))
