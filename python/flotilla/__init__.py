"""Flotilla: a dataframe and SQL engine.

    import flotilla
    from flotilla import col

    df = flotilla.read_parquet("data/lineitem/*.parquet")
    df.where(col("l_quantity") < 24).groupby("l_returnflag").agg(col("l_quantity").sum()).show()
    flotilla.sql("SELECT count(*) FROM t", t=df).to_pydict()
"""

from ._flotilla import set_execution_config as _set_execution_config
from .datatype import DataType, Field, TimeUnit
from .dataframe import (DataFrame, GroupedDataFrame, Schema, from_pandas, from_pydict,
                        from_pylist, read_csv, read_json, read_parquet, read_warc, sql,
                        sql_expr)
from .runner import set_runner_dask, set_runner_local, set_runner_session, subscribe
from .expressions import (Expression, coalesce, col, dense_rank, lit,
                          monotonically_increasing_id, rank, row_number)
from .udf import Series, UDFError, cls, func, method
from .udf_legacy import udf
from .window import Window
from . import functions

__version__ = "0.1.0"


def set_execution_config(num_threads: int | None = None, default_morsel_size: int | None = None,
                         memory_limit: str | None = None, maintain_order: bool | None = None,
                         progress: bool | None = None) -> None:
    """Settings for every query of the process: threads, rows per morsel, memory budget
    ('8GiB'), whether to keep input order, progress bars on stderr (by default drawn when
    stderr is a terminal and FLOTILLA_PROGRESS is not 0, as Daft's)."""
    _set_execution_config(num_threads, default_morsel_size, memory_limit, maintain_order, progress)


__all__ = [
    "DataFrame", "GroupedDataFrame", "Schema", "Expression", "Window", "Series", "UDFError",
    "DataType", "Field", "TimeUnit",
    "col", "lit", "coalesce", "row_number", "rank", "dense_rank", "monotonically_increasing_id",
    "read_parquet", "read_csv", "read_json", "read_warc", "from_pydict", "from_pylist", "from_pandas", "sql",
    "sql_expr", "func", "cls", "method", "udf", "functions",
    "set_execution_config", "set_runner_dask", "set_runner_local", "set_runner_session",
    "subscribe",
]
