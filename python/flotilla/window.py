"""Window specifications for ``expr.over(Window...)``."""

from __future__ import annotations

from typing import Any

from .expressions import _column_list
from .window_spec import _WindowSpec

__all__ = ["Window"]


class Window(_WindowSpec):
    """PARTITION BY / ORDER BY / frame of a window function.

    ``Window().partition_by("k").order_by("t", desc=True).rows_between(-2, Window.current_row)``
    """

    def partition_by(self, *columns) -> "Window":
        w = self._copy()
        w._partition += _column_list(columns)
        return w

    def order_by(self, *columns, desc: Any = False, nulls_first: Any = None) -> "Window":
        w = self._copy()
        keys = _column_list(columns)
        w._order += keys
        w._desc += list(desc) if isinstance(desc, (list, tuple)) else [bool(desc)] * len(keys)
        nf = list(nulls_first) if isinstance(nulls_first, (list, tuple)) else [nulls_first] * len(keys)
        w._nulls_first += nf
        return w
